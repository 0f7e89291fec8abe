//! The columns of the mutable segment and its id → row map: the one place where the five
//! per-row columns (vector, 1/‖x‖, id, insertion sequence, metadata) are kept in step.
//!
//! Invariants: every column has one entry per physical row (`inv_norms` only under cosine, else
//! empty); `map` holds exactly the *live* ids, each pointing at its row (an indexed collection
//! keeps tombstoned rows, whose ids are absent from `map`); `next_seq` is above every stored
//! sequence.

use std::collections::HashMap;

use crate::distance::Kernels;
use crate::error::{Error, Result};
use crate::filter::index::MetaIndex;
use crate::flat::FlatView;
use crate::rowdata::{Precision, RowBuf, RowSlice};
use crate::types::{Metric, VectorId};
use half::f16;

/// The rows of the mutable segment (`n × dim` row-major vectors and their per-row columns).
pub(crate) struct Rows {
    pub(super) dim: usize,
    pub(super) metric: Metric,
    pub(super) kernels: &'static Kernels,
    /// Whether the 1/‖x‖ column is kept ([`super::validate::keeps_norms`]).
    norms: bool,
    /// `n × dim`, row-major, as supplied (`f32`) or rounded to half precision (`f16`).
    pub(super) vectors: RowBuf,
    /// 1/‖x‖ per row (cosine only; empty otherwise).
    pub(super) inv_norms: Vec<f32>,
    pub(super) ids: Vec<VectorId>,
    pub(super) seqs: Vec<u64>,
    pub(super) metadata: Vec<Option<String>>,
    /// Live id → row.
    pub(super) map: HashMap<VectorId, u32>,
    pub(super) next_seq: u64,
    /// Longest metadata text ever stored here (bytes): a bound of one hit's metadata copy for
    /// [`crate::mem::ensure_headroom`].
    pub(super) metadata_max: usize,
    /// The metadata index of the live rows (a tombstoned row leaves it: [`Rows::unindex`]).
    pub(super) meta: MetaIndex,
    /// Rows pushed are not indexed, until [`Rows::set_meta_index`] installs an index made
    /// elsewhere (a snapshot's).
    meta_deferred: bool,
}

/// The one constructor of a [`FlatView`] over columns of rows (the mutable segment, a seal's
/// copy, a tail of rows).
pub(crate) fn flat_view<'a>(
    dim: usize,
    metric: Metric,
    vectors: RowSlice<'a>,
    inv_norms: &'a [f32],
    seqs: &'a [u64],
    deleted: &'a [bool],
    kernels: &'static Kernels,
) -> FlatView<'a> {
    FlatView {
        dim,
        metric,
        vectors,
        inv_norms,
        seqs,
        deleted,
        kernels,
        pages: None,
    }
}

/// Rows `m..n` of `view`, as a view of their own (row `i` of it = row `m + i`).
pub(crate) fn tail_view<'a>(view: &FlatView<'a>, m: usize, n: usize) -> FlatView<'a> {
    flat_view(
        view.dim,
        view.metric,
        view.vectors.range(m * view.dim, n * view.dim),
        view.inv_norms.get(m..n).unwrap_or(&[]),
        &view.seqs[m..n],
        view.deleted.get(m..n).unwrap_or(&[]),
        view.kernels,
    )
}

impl Rows {
    /// No rows, for `dim`-dimensional vectors under `metric`, stored in `precision`.
    pub(super) fn new(dim: usize, metric: Metric, precision: Precision) -> Rows {
        Rows {
            dim,
            metric,
            kernels: crate::distance::kernels(),
            norms: super::validate::keeps_norms(metric),
            vectors: RowBuf::new(precision),
            inv_norms: Vec::new(),
            ids: Vec::new(),
            seqs: Vec::new(),
            metadata: Vec::new(),
            map: HashMap::new(),
            next_seq: 0,
            metadata_max: 0,
            meta: MetaIndex::default(),
            meta_deferred: false,
        }
    }

    /// Physical rows (live and tombstoned).
    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    /// Live records.
    pub(super) fn live(&self) -> usize {
        self.map.len()
    }

    /// The row of live record `id`.
    pub(super) fn row_of(&self, id: &VectorId) -> Option<u32> {
        self.map.get(id).copied()
    }

    /// The `dim` values of row `r` (widened from `f16` rows).
    pub(super) fn vector(&self, r: usize) -> std::borrow::Cow<'_, [f32]> {
        self.vectors.as_slice().row(r, self.dim).to_f32()
    }

    /// Row `r` as stored (`dim` values in the rows' precision).
    pub(super) fn row(&self, r: usize) -> crate::rowdata::RowSlice<'_> {
        self.vectors.as_slice().row(r, self.dim)
    }

    /// How the rows are stored.
    pub(super) fn precision(&self) -> Precision {
        self.vectors.precision()
    }

    /// A view of every row with the tombstone flags `deleted` (empty: none).
    pub(super) fn view<'a>(&'a self, deleted: &'a [bool]) -> FlatView<'a> {
        flat_view(
            self.dim,
            self.metric,
            self.vectors.as_slice(),
            &self.inv_norms,
            &self.seqs,
            deleted,
            self.kernels,
        )
    }

    /// Appends a live record with a new insertion sequence; `inv` is 1/‖x‖ (kept under cosine).
    pub(super) fn push(&mut self, id: VectorId, v: &[f32], inv: f32, meta: Option<String>) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.push_at(id, v, None, inv, meta, seq);
    }

    /// Appends a live record that keeps insertion sequence `seq` (an upsert of a stored record,
    /// a record read back from storage: see [`Rows::note_seq`]).
    pub(super) fn push_at(
        &mut self,
        id: VectorId,
        v: &[f32],
        halves: Option<&[f16]>,
        inv: f32,
        meta: Option<String>,
        seq: u64,
    ) {
        let row = self.ids.len() as u32;
        match halves {
            // the stored halves of `v`, kept as they are (narrowing `v` gives them back)
            Some(h) if h.len() == v.len() => self.vectors.extend_rows(RowSlice::F16(h)),
            _ => self.vectors.extend(v),
        }
        if self.norms {
            self.inv_norms.push(inv);
        }
        self.map.insert(id.clone(), row);
        self.ids.push(id);
        self.seqs.push(seq);
        self.metadata_max = self.metadata_max.max(meta.as_ref().map_or(0, String::len));
        if !self.meta_deferred {
            self.meta.insert(row, meta.as_deref());
        }
        self.metadata.push(meta);
    }

    /// Raises the next insertion sequence above `seq` (a record loaded from storage).
    pub(super) fn note_seq(&mut self, seq: u64) {
        self.next_seq = self.next_seq.max(seq + 1);
    }

    /// Replaces the vector and metadata of row `r` in place (an upsert without an index).
    pub(super) fn overwrite(&mut self, r: usize, v: &[f32], inv: f32, meta: Option<String>) {
        let dim = self.dim;
        self.vectors.write_at(r * dim, v);
        if self.norms {
            self.inv_norms[r] = inv;
        }
        self.metadata_max = self.metadata_max.max(meta.as_ref().map_or(0, String::len));
        self.meta.remove(r as u32, self.metadata[r].as_deref());
        self.meta.insert(r as u32, meta.as_deref());
        self.metadata[r] = meta;
    }

    /// Removes row `r`, whose id already left the map: the last row moves into the hole.
    pub(super) fn swap_remove(&mut self, r: usize) {
        let last = self.ids.len() - 1;
        let dim = self.dim;
        let moved_live = self.meta.is_member(last as u32);
        self.meta.remove(r as u32, self.metadata[r].as_deref());
        if r != last {
            self.meta
                .remove(last as u32, self.metadata[last].as_deref());
            if moved_live {
                self.meta.insert(r as u32, self.metadata[last].as_deref());
            }
            self.vectors
                .copy_within(last * dim..(last + 1) * dim, r * dim);
            *self
                .map
                .get_mut(&self.ids[last])
                .expect("id map holds every live id") = r as u32;
        }
        self.meta.truncate(last);
        self.vectors.truncate(last * dim);
        self.ids.swap_remove(r);
        self.seqs.swap_remove(r);
        self.metadata.swap_remove(r);
        if self.norms {
            self.inv_norms.swap_remove(r);
        }
    }

    /// Keeps the rows with `remap[old] != u32::MAX`, in order, renumbered to `remap[old]`
    /// (ascending); the map follows the live ids that remain.
    pub(super) fn retain(&mut self, remap: &[u32]) {
        let dim = self.dim;
        let mut w = 0usize;
        for (old, &new) in remap.iter().enumerate() {
            if new == u32::MAX {
                continue;
            }
            debug_assert_eq!(new as usize, w);
            if old != w {
                self.vectors
                    .copy_within(old * dim..(old + 1) * dim, w * dim);
                self.ids.swap(old, w);
                self.seqs.swap(old, w);
                self.metadata.swap(old, w);
                if self.norms {
                    self.inv_norms.swap(old, w);
                }
            }
            w += 1;
        }
        self.vectors.truncate(w * dim);
        self.ids.truncate(w);
        self.seqs.truncate(w);
        self.metadata.truncate(w);
        if self.norms {
            self.inv_norms.truncate(w);
        }
        for (row, id) in self.ids.iter().enumerate() {
            if let Some(r) = self.map.get_mut(id) {
                *r = row as u32;
            }
        }
        self.reindex();
    }

    /// Rebuilds the metadata index over the live rows.
    fn reindex(&mut self) {
        let mut meta = MetaIndex::default();
        for (row, (id, m)) in self.ids.iter().zip(&self.metadata).enumerate() {
            if self.map.get(id) == Some(&(row as u32)) {
                meta.insert(row as u32, m.as_deref());
            }
        }
        meta.truncate(self.ids.len());
        self.meta = meta;
    }

    /// Stops indexing the metadata of rows pushed from now on: an index of them is installed by
    /// [`Rows::set_meta_index`] (a snapshot load restores its records, then installs the index
    /// it carries instead of parsing every record's metadata).
    pub(super) fn defer_meta_index(&mut self) {
        self.meta_deferred = true;
    }

    /// Installs `ix` as the metadata index of the rows (and indexes pushed rows again).
    ///
    /// # Errors
    /// `HV_CORRUPT` when `ix` does not range over exactly the rows or its members are not
    /// exactly the live rows (nothing changes).
    pub(super) fn set_meta_index(&mut self, ix: MetaIndex) -> Result<()> {
        if ix.rows() != self.len() {
            return Err(Error::Corrupt(format!(
                "the metadata index ranges over {} rows, the collection has {}",
                ix.rows(),
                self.len()
            )));
        }
        let live = |r: usize| self.map.get(&self.ids[r]) == Some(&(r as u32));
        if let Some(r) = (0..self.len()).find(|&r| ix.is_member(r as u32) != live(r)) {
            return Err(Error::Corrupt(format!(
                "the metadata index and the records disagree on row {r}"
            )));
        }
        self.meta = ix;
        self.meta_deferred = false;
        Ok(())
    }

    /// Takes tombstoned row `r` out of the metadata index (its id has left the map or points at
    /// a newer row).
    pub(super) fn unindex(&mut self, r: u32) {
        if let Some(m) = self.metadata.get(r as usize) {
            self.meta.remove(r, m.as_deref());
        }
    }

    /// Keeps rows `keep` (ascending) and forgets the ids of the others, unless such an id lives
    /// on in a newer row (a tombstone left by an upsert under an index).
    pub(super) fn keep(&mut self, keep: &[usize]) {
        let mut remap = vec![u32::MAX; self.ids.len()];
        for (new, &old) in keep.iter().enumerate() {
            remap[old] = new as u32;
        }
        for (old, &new) in remap.iter().enumerate() {
            if new == u32::MAX && self.map.get(&self.ids[old]) == Some(&(old as u32)) {
                self.map.remove(&self.ids[old]);
            }
        }
        self.retain(&remap);
    }

    /// Reserves room for `n` more records in every column, failing cleanly (nothing changed)
    /// when memory is exhausted, e.g. at the 4 GiB ceiling of wasm32.
    ///
    /// # Errors
    /// `HV_OUT_OF_MEMORY`.
    pub(super) fn try_reserve(&mut self, n: usize) -> Result<()> {
        let oom = |what: &str| {
            Error::OutOfMemory(format!("cannot grow the {what} column by {n} records"))
        };
        let dim = self.dim;
        let grow = |len: usize, cap: usize, add: usize| {
            if len + add > cap {
                (len + add).max(cap + cap / 2) - len
            } else {
                0
            }
        };
        let want = grow(self.vectors.len(), self.vectors.capacity(), n * dim);
        if want > 0 && self.vectors.try_reserve_exact(want).is_err() {
            self.vectors
                .try_reserve_exact(n * dim)
                .map_err(|_| oom("vector"))?;
        }
        self.ids.try_reserve(n).map_err(|_| oom("id"))?;
        self.seqs.try_reserve(n).map_err(|_| oom("sequence"))?;
        self.metadata.try_reserve(n).map_err(|_| oom("metadata"))?;
        self.map.try_reserve(n).map_err(|_| oom("id map"))?;
        if self.norms {
            self.inv_norms.try_reserve(n).map_err(|_| oom("norm"))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Rows;
    use crate::rowdata::Precision;
    use crate::types::{Metric, VectorId};

    /// Dropping the tombstone an upsert left (under an interim index) keeps the id's live row:
    /// a delete of that id once swap-removed a row whose id had left the map and panicked.
    #[test]
    fn keep_forgets_only_the_ids_of_dropped_rows() {
        let mut rows = Rows::new(2, Metric::L2, Precision::F32);
        let (a, b) = (VectorId::Int(1), VectorId::Int(2));
        rows.push(a.clone(), &[1.0, 0.0], 1.0, None);
        rows.push(b.clone(), &[0.0, 1.0], 1.0, None);
        // the upsert of `a`: row 0 becomes a tombstone, row 2 the live record
        rows.push_at(a.clone(), &[2.0, 0.0], None, 1.0, None, 0);
        rows.keep(&[1, 2]);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows.live(), 2);
        assert_eq!(rows.row_of(&b), Some(0));
        assert_eq!(rows.row_of(&a), Some(1));
        assert_eq!(&*rows.vector(1), &[2.0, 0.0]);
        // a dropped row whose id has no newer row leaves the map
        rows.keep(&[1]);
        assert_eq!((rows.row_of(&a), rows.row_of(&b)), (Some(0), None));
    }
}
