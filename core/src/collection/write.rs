//! Writes: validated batches ([`Collection::prepare`] then [`Collection::commit`]), deletes,
//! and records read back from storage ([`Collection::restore_row`]). Every mutation validates
//! its whole batch before changing anything, so a failed call changes nothing.

use super::validate;
use super::Collection;
use crate::error::{Error, Result};
use crate::types::VectorId;

/// Which write a [`PreparedWrite`] performs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteKind {
    /// Insert new records; stored ids are an error.
    Add,
    /// Insert or replace records.
    Upsert,
}

/// A validated write, ready for [`Collection::commit`].
#[derive(Debug)]
pub struct PreparedWrite {
    kind: WriteKind,
    ids: Vec<VectorId>,
    vectors: Vec<f32>,
    metadata: Vec<Option<String>>,
    inv_norms: Vec<f32>,
}

impl PreparedWrite {
    /// Number of records in the write.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True for an empty write (never produced by `prepare`).
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The write's ids, as they will be stored (an upsert naming an id twice keeps the last).
    pub fn ids(&self) -> &[VectorId] {
        &self.ids
    }

    /// The write's `n × dim` vectors and per-record metadata, as they will be stored.
    pub fn payload(&self) -> (&[f32], &[Option<String>]) {
        (&self.vectors, &self.metadata)
    }
}

impl PreparedWrite {
    /// Drops every record whose id comes again later in the batch (an upsert: the last wins).
    fn keep_last(&mut self) {
        let mut last = std::collections::HashMap::with_capacity(self.ids.len());
        for (i, id) in self.ids.iter().enumerate() {
            last.insert(id, i);
        }
        if last.len() == self.ids.len() {
            return;
        }
        let keep: Vec<usize> = (0..self.ids.len())
            .filter(|&i| last[&self.ids[i]] == i)
            .collect();
        let dim = self.vectors.len() / self.ids.len();
        self.vectors = keep
            .iter()
            .flat_map(|&i| self.vectors[i * dim..(i + 1) * dim].iter().copied())
            .collect();
        self.ids = keep.iter().map(|&i| self.ids[i].clone()).collect();
        self.metadata = keep.iter().map(|&i| self.metadata[i].take()).collect();
        if !self.inv_norms.is_empty() {
            self.inv_norms = keep.iter().map(|&i| self.inv_norms[i]).collect();
        }
    }
}

impl Collection {
    /// Validates a write (counts, dimension, values, metadata JSON, ids unique within the batch
    /// and, for `add`, absent from the collection) without changing anything. Needs only shared
    /// access, so callers can validate outside their write lock and then [`Collection::commit`].
    ///
    /// `vectors` is `n × dim` row-major `f32`; `metadata`, if given, holds one optional JSON text
    /// per record.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` (empty batch, counts differ, metadata not JSON), `HV_DIM_MISMATCH`,
    /// `HV_INVALID_VECTOR` (NaN/±Infinity; zero vectors are accepted under cosine, at distance 1 from every query),
    /// `HV_DUPLICATE_ID` (`add` of a stored id, or an id twice in the batch).
    pub fn prepare(
        &self,
        kind: WriteKind,
        ids: Vec<VectorId>,
        mut vectors: Vec<f32>,
        metadata: Option<Vec<Option<String>>>,
    ) -> Result<PreparedWrite> {
        let upsert = kind == WriteKind::Upsert;
        let mut checked =
            validate::check_batch(self.dim(), self.metric(), &ids, &vectors, metadata, upsert)?;
        if self.precision() != crate::rowdata::Precision::F32 {
            // f16 rows: the values as they will be stored, then their 1/‖x‖
            self.precision().round(&mut vectors, self.dim())?;
            if !checked.inv_norms.is_empty() {
                for (inv, v) in checked
                    .inv_norms
                    .iter_mut()
                    .zip(vectors.chunks_exact(self.dim()))
                {
                    *inv = self.check_vector(v, 0)?;
                }
            }
        }
        let mut w = PreparedWrite {
            kind,
            ids,
            vectors,
            metadata: checked.metadata,
            inv_norms: checked.inv_norms,
        };
        if upsert {
            w.keep_last();
        }
        self.check_fresh(&w)?;
        Ok(w)
    }

    /// `add` only: no id of the batch may be stored already.
    fn check_fresh(&self, w: &PreparedWrite) -> Result<()> {
        if w.kind == WriteKind::Add {
            if let Some(id) = w.ids.iter().find(|id| self.place(id).is_some()) {
                return Err(Error::DuplicateId(format!(
                    "{id} (already stored; use upsert to replace)"
                )));
            }
        }
        Ok(())
    }

    /// Applies a write validated by [`Collection::prepare`] (possibly on an older state: the
    /// "already stored" check of `add` is repeated). All or nothing: memory for the whole batch
    /// is reserved before the first record changes.
    ///
    /// # Errors
    /// `HV_DUPLICATE_ID` (an id was added since `prepare`), `HV_OUT_OF_MEMORY`, `HV_INVALID_ARGUMENT`
    /// (the write was prepared for a collection of another dimension).
    pub fn commit(&mut self, w: PreparedWrite) -> Result<()> {
        let dim = self.dim();
        if w.vectors.len() != w.ids.len() * dim {
            return Err(Error::invalid_argument(
                "write prepared for another collection",
            ));
        }
        self.check_fresh(&w)?;
        if let (false, Some(ix)) = (self.mutable.deferred, &self.mutable.index) {
            // the graph insert, the codes and the scratch grow too: all checked before any change
            crate::mem::ensure_headroom(
                || ix.insert_headroom(w.ids.len()),
                "inserting into the index",
            )?;
        }
        self.mutable.rows.try_reserve(w.ids.len())?;
        let first_new = self.mutable.rows.len();
        let indexed = self.mutable.index.is_some();
        let PreparedWrite {
            ids,
            vectors,
            metadata,
            inv_norms,
            ..
        } = w;
        for (i, (id, meta)) in ids.into_iter().zip(metadata).enumerate() {
            let v = &vectors[i * dim..(i + 1) * dim];
            let inv = inv_norms.get(i).copied().unwrap_or(1.0);
            self.dirty.touch(&id);
            let rows = &mut self.mutable.rows;
            match rows.row_of(&id) {
                Some(row) if !indexed => rows.overwrite(row as usize, v, inv, meta),
                Some(row) => {
                    // Indexed: the old row becomes a tombstone and the record moves to a new row
                    // (with its original insertion sequence), which the graph then inserts.
                    let seq = rows.seqs[row as usize];
                    rows.push_at(id, v, None, inv, meta, seq);
                    rows.unindex(row);
                    if let Some(ix) = self.mutable.index.as_mut() {
                        ix.mark_deleted(row);
                    }
                }
                None => match self.segments.find(&id) {
                    // a sealed record: tombstone its row, the new version joins the mutable
                    // segment with the original insertion sequence
                    Some((p, row)) => {
                        let seq = self.segments.parts[p].seg.seq(row);
                        self.segments.kill(p, row);
                        rows.push_at(id, v, None, inv, meta, seq);
                    }
                    None => rows.push(id, v, inv, meta),
                },
            }
        }
        self.version += 1;
        if self.mutable.deferred {
            // the interim index covers a prefix; the new rows join the exactly scanned tail
            let n = self.mutable.rows.len();
            if let Some(ix) = self.mutable.index.as_mut() {
                ix.extend_rows(n);
            }
            return Ok(());
        }
        if self.mutable.index.is_none() && !self.segments.parts.is_empty() {
            // beside a loaded snapshot's parts: an index once the records are many
            self.index_beside_parts();
            return Ok(());
        }
        if let Some(mut ix) = self.mutable.index.take() {
            let r = ix.insert_rows(&self.mutable.view(), first_new);
            self.mutable.index = Some(ix);
            r?;
            self.maybe_consolidate()?;
        }
        Ok(())
    }

    /// Inserts new records. `vectors` is `n × dim` row-major `f32`; `metadata`, if given, holds one
    /// optional JSON text per record. All or nothing.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` (empty batch, counts differ, metadata not JSON), `HV_DIM_MISMATCH`,
    /// `HV_INVALID_VECTOR` (NaN/±Infinity), `HV_DUPLICATE_ID` (id stored
    /// already or twice in the batch), `HV_OUT_OF_MEMORY`. On error nothing is inserted.
    pub fn add(
        &mut self,
        ids: Vec<VectorId>,
        vectors: &[f32],
        metadata: Option<Vec<Option<String>>>,
    ) -> Result<()> {
        let w = self.prepare(WriteKind::Add, ids, vectors.to_vec(), metadata)?;
        self.commit(w)
    }

    /// Inserts or replaces records: an existing id gets the new vector and metadata (the whole
    /// record is replaced; absent metadata clears it) and keeps its original insertion sequence.
    /// Shapes and errors as [`Collection::add`], except that stored ids are allowed. All or nothing.
    ///
    /// # Errors
    /// As [`Collection::add`]; `HV_DUPLICATE_ID` only for an id named twice in the batch.
    pub fn upsert(
        &mut self,
        ids: Vec<VectorId>,
        vectors: &[f32],
        metadata: Option<Vec<Option<String>>>,
    ) -> Result<()> {
        let w = self.prepare(WriteKind::Upsert, ids, vectors.to_vec(), metadata)?;
        self.commit(w)
    }

    /// Deletes the named records; ids that are not stored are ignored. Returns how many records
    /// were deleted (an id named twice counts once). Without an index the last row moves into the
    /// hole; with one, the row becomes a tombstone, and tombstones are consolidated once they pass
    /// [`super::CONSOLIDATE_RATIO`] of the graph.
    pub fn delete(&mut self, ids: &[VectorId]) -> usize {
        let mut deleted = 0;
        for id in ids {
            let Some(row) = self.mutable.rows.map.remove(id) else {
                if let Some((p, row)) = self.segments.find(id) {
                    self.dirty.touch(id);
                    if self.segments.kill(p, row) {
                        deleted += 1;
                    }
                }
                continue;
            };
            self.dirty.touch(id);
            deleted += 1;
            match self.mutable.index.as_mut() {
                Some(ix) => {
                    ix.mark_deleted(row);
                    self.mutable.rows.unindex(row);
                }
                None => self.mutable.swap_remove(row as usize),
            }
        }
        if deleted > 0 {
            self.version += 1;
            // Consolidation only fails on internal mismatches; searches stay correct meanwhile
            // (tombstones are filtered), so the delete itself is never reported as failed.
            let _ = self.maybe_consolidate();
        }
        deleted
    }

    /// Appends one record read back from storage with its original sequence number `seq`:
    /// `v` its values, and `halves` the stored half floats of `v` when it was stored as `f16`
    /// (kept as they are by an `f16` collection; `None`: `v` is narrowed as an insert's is).
    /// For loading a collection (no index may exist yet); records should come in ascending `seq`.
    ///
    /// # Errors
    /// `HV_CORRUPT` when the stored record is not valid for this collection (wrong length,
    /// non-finite values, for `f16` rows a value that is not a half float, an id already loaded,
    /// metadata that is not JSON), `HV_OUT_OF_MEMORY`.
    pub fn restore_row(
        &mut self,
        id: VectorId,
        seq: u64,
        v: &[f32],
        halves: Option<&[half::f16]>,
        metadata: Option<String>,
    ) -> Result<()> {
        if self.mutable.index.is_some() {
            return Err(Error::Internal(
                "restore_row on an indexed collection".into(),
            ));
        }
        let inv = validate::check_stored(self.dim(), self.metric(), &id, seq, v)?;
        if halves.is_none() {
            validate::check_stored_precision(self.precision(), &id, v)?;
        }
        if self.place(&id).is_some() {
            return Err(Error::Corrupt(format!("stored id {id} appears twice")));
        }
        validate::check_stored_metadata(&id, metadata.as_deref())?;
        let rows = &mut self.mutable.rows;
        rows.try_reserve(1)?;
        rows.push_at(id, v, halves, inv, metadata, seq);
        rows.note_seq(seq);
        self.version += 1;
        Ok(())
    }
}
