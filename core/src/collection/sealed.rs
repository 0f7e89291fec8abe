//! Sealed segments inside a collection: tombstones for their rows, lookups, merged search, and
//! the two swaps that change the segment list (seal, compaction).
//!
//! The collection's own rows are the *mutable segment*; each [`SealedPart`] is an immutable
//! [`Segment`] shared by `Arc` (so a background seal or compaction reads it without a lock) plus
//! this collection's tombstone flags for its rows. An id is live in at most one place: an
//! upsert of a sealed record tombstones its sealed row and appends the new version to the
//! mutable segment with the same insertion sequence, so "the newest version wins" holds by
//! construction and search never has to deduplicate.

use std::collections::HashSet;
use std::sync::Arc;

use super::{Collection, SearchOptions, FLAT_THRESHOLD};
use crate::ann::AnnSearch;
use crate::error::{Error, Result};
use crate::flat::{self, Hit};
use crate::segment::{Segment, SegmentRows};
use crate::types::VectorId;

/// A sealed segment as one collection sees it: the shared immutable segment and the tombstones
/// of its rows.
#[derive(Clone, Debug)]
pub struct SealedPart {
    pub(crate) seg: Arc<Segment>,
    /// One flag per row once a row is deleted; empty while none is.
    pub(crate) deleted: Vec<bool>,
    pub(crate) n_deleted: usize,
}

impl SealedPart {
    /// A part with tombstones at `rows`.
    fn new(seg: Arc<Segment>, rows: &[u32]) -> SealedPart {
        let mut p = SealedPart {
            seg,
            deleted: Vec::new(),
            n_deleted: 0,
        };
        for &r in rows {
            p.kill(r);
        }
        p
    }

    fn kill(&mut self, row: u32) -> bool {
        if row as usize >= self.seg.len() {
            return false;
        }
        if self.deleted.is_empty() {
            self.deleted = vec![false; self.seg.len()];
        }
        let d = &mut self.deleted[row as usize];
        if *d {
            return false;
        }
        *d = true;
        self.n_deleted += 1;
        true
    }

    fn is_live(&self, row: u32) -> bool {
        !self.deleted.get(row as usize).copied().unwrap_or(false)
    }

    /// Live rows.
    pub fn live(&self) -> usize {
        self.seg.len() - self.n_deleted
    }

    /// The segment.
    pub fn segment(&self) -> &Arc<Segment> {
        &self.seg
    }

    /// Tombstoned rows / rows.
    pub fn tombstone_ratio(&self) -> f64 {
        self.n_deleted as f64 / self.seg.len().max(1) as f64
    }
}

/// The mutable rows copied out for a seal (bounded by the seal threshold), in row order.
#[derive(Debug)]
pub struct SealInput {
    /// Vector dimension.
    pub dim: usize,
    /// Metric.
    pub metric: crate::types::Metric,
    /// Ids, one per row.
    pub ids: Vec<VectorId>,
    /// Insertion sequences.
    pub seqs: Vec<u64>,
    /// `n × dim` values.
    pub vectors: Vec<f32>,
    /// 1/‖x‖ per row (cosine), else empty.
    pub inv_norms: Vec<f32>,
    /// Metadata JSON per row.
    pub metadata: Vec<Option<String>>,
}

impl SealInput {
    /// The rows as the segment writer takes them.
    pub fn rows(&self) -> SegmentRows<'_> {
        SegmentRows {
            dim: self.dim,
            metric: self.metric,
            ids: &self.ids,
            seqs: &self.seqs,
            vectors: &self.vectors,
            inv_norms: &self.inv_norms,
            metadata: &self.metadata,
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True without rows.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

/// What a swap changed, for the store's manifest transaction.
#[derive(Debug, Default)]
pub struct SwapOutcome {
    /// Rows of the new segment that must start as tombstones (their record was written or
    /// deleted while the segment was being built).
    pub new_tombstones: Vec<u32>,
    /// Ids whose records moved from the mutable segment into the new segment (a seal).
    pub moved: Vec<VectorId>,
    /// Generations removed from the segment list (a compaction).
    pub removed: Vec<u64>,
}

/// Most scoped threads one search uses for sealed parts in cold mode (see `search_all`).
const COLD_SEARCH_THREADS: usize = 4;

/// `ef · scale`, rounded up, at least `k`.
fn scaled_ef(ef: usize, k: usize, scale: f64) -> usize {
    ((ef as f64 * scale.min(1.0)).ceil() as usize).max(k)
}

/// Where a live record is.
pub(crate) enum Place {
    Mutable(u32),
    Sealed(usize, u32),
}

impl Collection {
    /// Where `id` is live, if anywhere.
    pub(crate) fn place(&self, id: &VectorId) -> Option<Place> {
        if let Some(&r) = self.rows.get(id) {
            return Some(Place::Mutable(r));
        }
        // newest segment first: an id is live in at most one, so the order only saves lookups
        for (p, part) in self.sealed.iter().enumerate().rev() {
            if let Some(row) = part.seg.find(id) {
                if part.is_live(row) {
                    return Some(Place::Sealed(p, row));
                }
            }
        }
        None
    }

    /// Tombstones sealed row `row` of part `p`, journals it for the store, and returns whether
    /// it was live.
    pub(crate) fn kill_sealed(&mut self, p: usize, row: u32) -> bool {
        let part = &mut self.sealed[p];
        if !part.kill(row) {
            return false;
        }
        self.sealed_live -= 1;
        self.tombstone_journal.push((part.seg.generation(), row));
        true
    }

    /// Notes that `id` was written or deleted (while a seal or compaction is being built).
    pub(crate) fn touch(&mut self, id: &VectorId) {
        if let Some(d) = self.dirty.as_mut() {
            d.insert(id.clone());
        }
    }

    /// Sealed-row tombstones made since the last call, as `(generation, row)`: what the store
    /// must record with the writes that caused them.
    pub fn take_tombstones(&mut self) -> Vec<(u64, u32)> {
        std::mem::take(&mut self.tombstone_journal)
    }

    /// Adds a sealed segment loaded from storage, with its tombstoned rows (open). Segments
    /// must come oldest first.
    ///
    /// # Errors
    /// `HV_CORRUPT` when the segment does not fit (dimension, metric) or holds an id that is
    /// already live elsewhere.
    pub fn attach_segment(&mut self, seg: Arc<Segment>, tombstones: &[u32]) -> Result<()> {
        if seg.dim() != self.dim {
            return Err(Error::Corrupt(format!(
                "segment {} holds {}-d vectors, the collection {}-d",
                seg.generation(),
                seg.dim(),
                self.dim
            )));
        }
        let part = SealedPart::new(seg, tombstones);
        self.next_seq = self.next_seq.max(part.seg.max_seq() + 1);
        self.sealed_live += part.live();
        self.sealed.push(part);
        self.version += 1;
        Ok(())
    }

    /// The sealed segments, oldest first.
    pub fn sealed(&self) -> &[SealedPart] {
        &self.sealed
    }

    /// Records in the mutable segment.
    pub fn mutable_len(&self) -> usize {
        self.rows.len()
    }

    /// Copies the live mutable rows out for a seal (shared access: the caller, the only writer,
    /// then calls [`Collection::begin_seal_tracking`]); None when there is none, or a seal or
    /// compaction is already being built.
    pub fn seal_input(&self) -> Option<SealInput> {
        if self.dirty.is_some() || self.rows.is_empty() {
            return None;
        }
        let live: Vec<usize> = (0..self.ids.len())
            .filter(|&r| {
                self.index
                    .as_ref()
                    .is_none_or(|ix| !ix.is_deleted(r as u32))
            })
            .collect();
        let dim = self.dim;
        let mut input = SealInput {
            dim,
            metric: self.metric,
            ids: Vec::with_capacity(live.len()),
            seqs: Vec::with_capacity(live.len()),
            vectors: Vec::with_capacity(live.len() * dim),
            inv_norms: Vec::new(),
            metadata: Vec::with_capacity(live.len()),
        };
        for r in live {
            input.ids.push(self.ids[r].clone());
            input.seqs.push(self.seqs[r]);
            input
                .vectors
                .extend_from_slice(&self.vectors[r * dim..(r + 1) * dim]);
            if let Some(&inv) = self.inv_norms.get(r) {
                input.inv_norms.push(inv);
            }
            input.metadata.push(self.metadata[r].clone());
        }
        Some(input)
    }

    /// Starts noting the ids written from now on (a seal's copy was just made).
    pub fn begin_seal_tracking(&mut self) {
        self.dirty = Some(HashSet::new());
    }

    /// Abandons a seal or compaction started by [`Collection::begin_seal_tracking`] /
    /// [`Collection::begin_compaction`] (its build failed).
    pub fn abort_swap(&mut self) {
        self.dirty = None;
    }

    /// Installs `seg`, built from `input` (a [`Collection::seal_input`] copy, tracked since [`Collection::begin_seal_tracking`]): records unchanged
    /// since the copy leave the mutable segment (they are now read from the segment); the rows
    /// of records written or deleted meanwhile start as tombstones in it.
    ///
    /// # Errors
    /// `HV_INTERNAL` when no seal was begun or the segment does not match the copy.
    pub fn install_sealed(&mut self, seg: Arc<Segment>, input: &SealInput) -> Result<SwapOutcome> {
        let dirty = self
            .dirty
            .take()
            .ok_or_else(|| Error::Internal("install_sealed without begin_seal_tracking".into()))?;
        if seg.len() != input.len() || seg.dim() != self.dim {
            return Err(Error::Internal(
                "the sealed segment does not match its input".into(),
            ));
        }
        let mut out = SwapOutcome::default();
        let mut leaving = HashSet::with_capacity(input.len());
        for (row, id) in input.ids.iter().enumerate() {
            if dirty.contains(id) {
                out.new_tombstones.push(row as u32);
            } else {
                leaving.insert(id);
            }
        }
        // The mutable segment keeps only the records not moved (written after the copy).
        let keep: Vec<usize> = (0..self.ids.len())
            .filter(|&r| {
                !leaving.contains(&self.ids[r])
                    && self
                        .index
                        .as_ref()
                        .is_none_or(|ix| !ix.is_deleted(r as u32))
            })
            .collect();
        out.moved = leaving.into_iter().cloned().collect();
        self.retain_rows(&keep);
        let part = SealedPart::new(seg, &out.new_tombstones);
        self.sealed_live += part.live();
        self.sealed.push(part);
        self.version += 1;
        Ok(out)
    }

    /// Keeps mutable rows `keep` (ascending), dropping the mutable index.
    fn retain_rows(&mut self, keep: &[usize]) {
        self.index = None;
        let mut remap = vec![u32::MAX; self.ids.len()];
        for (new, &old) in keep.iter().enumerate() {
            remap[old] = new as u32;
        }
        for (old, &new) in remap.iter().enumerate() {
            if new == u32::MAX {
                self.rows.remove(&self.ids[old]);
            }
        }
        self.compact_rows(&remap);
    }

    /// Starts a compaction of the sealed parts `parts` (indices into [`Collection::sealed`]):
    /// returns them (shared segments and a copy of their tombstones) and starts noting the ids
    /// written from now on. None when a seal or compaction is already being built.
    pub fn begin_compaction(&mut self, parts: &[usize]) -> Option<Vec<SealedPart>> {
        if self.dirty.is_some() || parts.is_empty() || parts.iter().any(|&p| p >= self.sealed.len())
        {
            return None;
        }
        self.dirty = Some(HashSet::new());
        Some(parts.iter().map(|&p| self.sealed[p].clone()).collect())
    }

    /// Replaces the segments of `from` (as returned by [`Collection::begin_compaction`]) with
    /// `seg`, built from their live rows; `origin[i]` is the `(generation, row)` that row `i` of
    /// `seg` came from. Rows whose record was written or deleted meanwhile start as tombstones.
    ///
    /// # Errors
    /// `HV_INTERNAL` when no compaction was begun or a segment of `from` is gone.
    pub fn install_compacted(
        &mut self,
        seg: Option<Arc<Segment>>,
        from: &[SealedPart],
        origin: &[(u64, u32)],
    ) -> Result<SwapOutcome> {
        let dirty = self
            .dirty
            .take()
            .ok_or_else(|| Error::Internal("install_compacted without begin_compaction".into()))?;
        let gens: Vec<u64> = from.iter().map(|p| p.seg.generation()).collect();
        let now: Vec<usize> = gens
            .iter()
            .map(|g| self.sealed.iter().position(|p| p.seg.generation() == *g))
            .collect::<Option<_>>()
            .ok_or_else(|| Error::Internal("a compacted segment left the list".into()))?;
        let mut out = SwapOutcome {
            removed: gens.clone(),
            ..SwapOutcome::default()
        };
        if let Some(seg) = &seg {
            for (row, &(g, old_row)) in origin.iter().enumerate() {
                let p = &self.sealed[now[gens
                    .iter()
                    .position(|&x| x == g)
                    .ok_or_else(|| Error::Internal("bad origin".into()))?]];
                // dead now: deleted or upserted since the copy (both tombstone the old row, so
                // the ids written meanwhile need no lookup unless some were)
                if !p.is_live(old_row)
                    || (!dirty.is_empty() && dirty.contains(&seg.id(row as u32)?))
                {
                    out.new_tombstones.push(row as u32);
                }
            }
        }
        let mut removed_live = 0;
        let mut idx = now.clone();
        idx.sort_unstable();
        for &p in idx.iter().rev() {
            removed_live += self.sealed[p].live();
            self.sealed.remove(p);
        }
        self.sealed_live -= removed_live;
        if let Some(seg) = seg {
            let part = SealedPart::new(seg, &out.new_tombstones);
            self.sealed_live += part.live();
            // keep the list ordered by generation (the new one is the newest)
            self.sealed.push(part);
        }
        self.tombstone_journal.retain(|(g, _)| !gens.contains(g));
        self.version += 1;
        Ok(out)
    }

    /// The `k` best hits over the mutable segment and every sealed segment, as
    /// `(distance, seq, part, row)` with part `usize::MAX` for the mutable segment.
    pub(crate) fn search_all(
        &self,
        query: &[f32],
        q: &[f32],
        k: usize,
        opts: &SearchOptions,
    ) -> Result<Vec<(Hit, usize)>> {
        let mut all: Vec<(Hit, usize)> = Vec::with_capacity(k * (self.sealed.len() + 1));
        // A part holding a fraction f of the largest part's records is walked with ef·√f (at
        // least k): it holds fewer of the k nearest, and a graph walk costs about ef whatever
        // the graph's size, so equal ef would make a small part cost as much as the largest.
        let largest = self
            .sealed
            .iter()
            .map(SealedPart::live)
            .max()
            .unwrap_or(0)
            .max(self.rows.len())
            .max(1);
        let scale = |live: usize| (live as f64 / largest as f64).sqrt();
        if !self.rows.is_empty() {
            let hits = self.search_mutable(query, q, k, opts, scale(self.rows.len()))?;
            all.extend(hits.into_iter().map(|h| (h, usize::MAX)));
        }
        // Parts whose files were just mapped (cold: their pages are read from the medium as the
        // walk needs them) are searched on scoped threads, so that their reads overlap: at most
        // COLD_SEARCH_THREADS, each taking a contiguous run of parts. Otherwise one after another
        // on this thread.
        let search =
            |part: &SealedPart| self.search_part(part, query, q, k, opts, scale(part.live()));
        let cold = self
            .sealed
            .iter()
            .filter(|p| p.live() > 0 && p.seg.index().is_cold())
            .count();
        let per_part: Vec<Result<Vec<Hit>>> = if cold >= 2 {
            let run = self.sealed.len().div_ceil(cold.min(COLD_SEARCH_THREADS));
            std::thread::scope(|s| {
                // a run whose thread cannot be created is searched here, after the others start
                let started: Vec<_> = self
                    .sealed
                    .chunks(run)
                    .map(|parts| {
                        (
                            parts,
                            std::thread::Builder::new()
                                .spawn_scoped(s, move || {
                                    parts.iter().map(search).collect::<Vec<_>>()
                                })
                                .ok(),
                        )
                    })
                    .collect();
                started
                    .into_iter()
                    .flat_map(|(parts, h)| match h {
                        Some(h) => h.join().unwrap_or_else(|_| {
                            vec![Err(Error::Internal("a segment search panicked".into()))]
                        }),
                        None => parts.iter().map(search).collect(),
                    })
                    .collect()
            })
        } else {
            self.sealed.iter().map(search).collect()
        };
        for (p, hits) in per_part.into_iter().enumerate() {
            all.extend(hits?.into_iter().map(|h| (h, p)));
        }
        // (a NaN distance can only come from a damaged file opened without `verify`: last)
        let key = |d: f32| if d.is_nan() { f32::INFINITY } else { d };
        all.sort_unstable_by(|a, b| {
            key(a.0.dist)
                .total_cmp(&key(b.0.dist))
                .then(a.0.seq.cmp(&b.0.seq))
        });
        all.truncate(k);
        Ok(all)
    }

    /// The `k` best hits of one sealed part (none when all its rows are deleted): an exact scan
    /// when asked for or when the part is small, else its index walked with ef scaled by
    /// `ef_scale` (see [`Collection::search_all`]).
    fn search_part(
        &self,
        part: &SealedPart,
        query: &[f32],
        q: &[f32],
        k: usize,
        opts: &SearchOptions,
        ef_scale: f64,
    ) -> Result<Vec<Hit>> {
        if part.live() == 0 {
            return Ok(Vec::new());
        }
        if opts
            .exact
            .unwrap_or(part.live() < FLAT_THRESHOLD || k >= part.live())
        {
            return Ok(flat::search_one(
                &part.seg.view(&part.deleted, self.kernels),
                q,
                k,
            ));
        }
        let view = part.seg.index_view(&part.deleted, self.kernels);
        let ix = part.seg.index();
        let ef = scaled_ef(opts.ef.unwrap_or(super::DEFAULT_EF), k, ef_scale);
        let rerank = opts
            .rerank
            .unwrap_or_else(|| ix.default_rerank(k, ef))
            .max(k);
        ix.search(
            &view,
            query,
            q,
            k.min(part.live()),
            AnnSearch { ef, rerank },
        )
    }

    /// The `k` best hits of the mutable segment: its index (over a prefix of the rows, for an
    /// interim index) plus an exact scan of the rows after that prefix; a flat scan without one.
    fn search_mutable(
        &self,
        query: &[f32],
        q: &[f32],
        k: usize,
        opts: &SearchOptions,
        ef_scale: f64,
    ) -> Result<Vec<Hit>> {
        let view = self.view();
        let Some((ix, a)) = self.index_for(opts) else {
            return Ok(flat::search_one(&view, q, k));
        };
        let a = match (ef_scale < 1.0, opts.rerank) {
            (true, None) => {
                let ef = scaled_ef(a.ef, k, ef_scale);
                AnnSearch { ef, rerank: ef }
            }
            (true, Some(_)) => AnnSearch {
                ef: scaled_ef(a.ef, k, ef_scale),
                ..a
            },
            (false, _) => a,
        };
        let mut hits = ix.search(&view, query, q, k.min(self.rows.len()), a)?;
        let m = ix.len();
        let n = self.ids.len();
        if m < n {
            let dim = self.dim;
            let tail = crate::flat::FlatView {
                vectors: &view.vectors[m * dim..n * dim],
                inv_norms: view.inv_norms.get(m..n).unwrap_or(&[]),
                seqs: &view.seqs[m..n],
                deleted: view.deleted.get(m..n).unwrap_or(&[]),
                ..view
            };
            hits.extend(flat::search_one(&tail, q, k).into_iter().map(|h| Hit {
                row: h.row + m as u32,
                ..h
            }));
            hits.sort_unstable_by(|a, b| a.dist.total_cmp(&b.dist).then(a.seq.cmp(&b.seq)));
            hits.truncate(k);
        }
        Ok(hits)
    }

    /// Walk bytes per vector over every index (sealed segments' and the mutable segment's),
    /// weighted by their rows; 0 without any index.
    pub(crate) fn index_bytes_per_vector(&self) -> f64 {
        let mut rows = 0usize;
        let mut bytes = 0.0f64;
        for ix in self
            .sealed
            .iter()
            .map(|p| p.seg.index())
            .chain(self.index.as_ref())
        {
            rows += ix.len();
            bytes += ix.walk_bytes_per_vector() * ix.len() as f64;
        }
        if rows == 0 {
            0.0
        } else {
            bytes / rows as f64
        }
    }

    /// True when the mutable segment has an interim index and rows after its prefix.
    pub(crate) fn has_tail(&self) -> bool {
        self.index
            .as_ref()
            .is_some_and(|ix| ix.len() < self.ids.len())
    }

    /// Makes the mutable segment's index an interim one (durable collections; see the field).
    pub fn set_deferred_index(&mut self, on: bool) {
        self.deferred = on;
    }

    /// Live records of the mutable segment its (interim) index covers.
    pub fn mutable_indexed(&self) -> usize {
        self.index.as_ref().map_or(0, |ix| {
            (0..ix.len() as u32).filter(|&r| !ix.is_deleted(r)).count()
        })
    }

    /// Whether the mutable segment's rows are mostly dead weight: over a quarter of them
    /// tombstones of deletes and upserts (an interim index never consolidates; this drops them).
    pub fn mutable_mostly_dead(&self) -> bool {
        self.deferred
            && self.ids.len() >= FLAT_THRESHOLD
            && (self.ids.len() - self.rows.len()) * 4 > self.ids.len()
    }

    /// Drops the mutable segment's index and its tombstoned rows (an interim index is then
    /// rebuilt in the background).
    pub fn drop_dead_rows(&mut self) {
        let Some(ix) = self.index.take() else { return };
        let keep: Vec<usize> = (0..self.ids.len())
            .filter(|&r| !ix.is_deleted(r as u32))
            .collect();
        self.retain_rows(&keep);
    }

    /// Whether an interim index of the mutable segment is worth (re)building: at least
    /// [`FLAT_THRESHOLD`] live rows, and a tail of a quarter of the indexed rows (at least half
    /// the threshold) not covered yet.
    pub fn interim_due(&self) -> bool {
        if !self.deferred || self.rows.len() < FLAT_THRESHOLD {
            return false;
        }
        let covered = self.index.as_ref().map_or(0, |ix| ix.len());
        self.ids.len() - covered >= (covered / 4).max(FLAT_THRESHOLD / 2)
    }

    /// Copies every mutable row (dead ones included, so that node `i` is row `i`) for an interim
    /// index build, with the layout epoch it is valid for.
    pub fn begin_interim(&self) -> (SealInput, u64) {
        let input = SealInput {
            dim: self.dim,
            metric: self.metric,
            ids: self.ids.clone(),
            seqs: self.seqs.clone(),
            vectors: self.vectors.clone(),
            inv_norms: self.inv_norms.clone(),
            metadata: Vec::new(),
        };
        (input, self.layout_epoch)
    }

    /// Installs an interim index built by [`Collection::begin_interim`] at `epoch` (false, and
    /// nothing changes, when rows moved since): it covers the rows copied then; the rows added
    /// since stay a tail, and every row deleted since is a tombstone.
    pub fn install_interim(&mut self, mut ix: crate::ann::AnnIndex, epoch: u64) -> bool {
        if epoch != self.layout_epoch || ix.len() > self.ids.len() || !self.deferred {
            return false;
        }
        ix.extend_rows(self.ids.len());
        for (r, id) in self.ids.iter().enumerate() {
            if self.rows.get(id) != Some(&(r as u32)) {
                ix.mark_deleted(r as u32);
            }
        }
        self.index = Some(ix);
        true
    }

    /// Turns merged hits into results.
    pub(crate) fn hits_all(
        &self,
        hits: Vec<(Hit, usize)>,
        opts: &SearchOptions,
    ) -> Result<Vec<super::SearchHit>> {
        hits.into_iter()
            .map(|(h, p)| {
                if p == usize::MAX {
                    let r = h.row as usize;
                    return Ok(super::SearchHit {
                        id: self.ids[r].clone(),
                        distance: h.dist,
                        metadata: if opts.include_metadata {
                            self.metadata[r].clone()
                        } else {
                            None
                        },
                    });
                }
                let seg = &self.sealed[p].seg;
                Ok(super::SearchHit {
                    id: seg.id(h.row)?,
                    distance: h.dist,
                    metadata: if opts.include_metadata {
                        seg.metadata(h.row)?
                    } else {
                        None
                    },
                })
            })
            .collect()
    }
}

impl SealInput {
    /// Builds the Vamana index of these rows (node `i` = row `i`) on the current thread pool.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` (parameters), `HV_CANCELLED`.
    pub fn build_index(
        &self,
        params: crate::ann::IndexParams,
        cancel: &std::sync::atomic::AtomicBool,
    ) -> Result<crate::ann::AnnIndex> {
        let view = crate::flat::FlatView {
            dim: self.dim,
            metric: self.metric,
            vectors: &self.vectors,
            inv_norms: &self.inv_norms,
            seqs: &self.seqs,
            deleted: &[],
            kernels: crate::distance::kernels(),
            pages: None,
        };
        crate::ann::AnnIndex::build(&view, params, &|_, _| {}, cancel)
    }

    /// The live rows of `parts` (a compaction's input), in insertion order, with the
    /// `(generation, row)` each came from.
    ///
    /// # Errors
    /// `HV_CORRUPT` (an id or metadata that cannot be read), `HV_OUT_OF_MEMORY`.
    pub fn from_parts(parts: &[SealedPart]) -> Result<(SealInput, Vec<(u64, u32)>)> {
        let first = parts
            .first()
            .ok_or_else(|| Error::Internal("compaction of no segment".into()))?;
        let dim = first.seg.dim();
        let metric = first.seg.view(&[], crate::distance::kernels()).metric;
        let mut rows: Vec<(u64, usize, u32)> = Vec::new();
        for (p, part) in parts.iter().enumerate() {
            for row in 0..part.seg.len() as u32 {
                if part.is_live(row) {
                    rows.push((part.seg.seq(row), p, row));
                }
            }
        }
        rows.sort_unstable();
        let n = rows.len();
        let mut input = SealInput {
            dim,
            metric,
            ids: Vec::with_capacity(n),
            seqs: Vec::with_capacity(n),
            vectors: Vec::new(),
            inv_norms: Vec::new(),
            metadata: Vec::with_capacity(n),
        };
        input
            .vectors
            .try_reserve_exact(n * dim)
            .map_err(|_| Error::OutOfMemory(format!("compaction of {n} rows")))?;
        let mut origin = Vec::with_capacity(n);
        for (seq, p, row) in rows {
            let seg = &parts[p].seg;
            input.ids.push(seg.id(row)?);
            input.seqs.push(seq);
            let v = seg.vector(row);
            if v.iter().any(|x| !x.is_finite()) {
                return Err(Error::Corrupt(format!(
                    "segment {}: row {row} holds a non-finite value (damaged file)",
                    seg.generation()
                )));
            }
            input.vectors.extend_from_slice(v);
            if let Some(inv) = seg.inv_norm(row) {
                input.inv_norms.push(inv);
            }
            input.metadata.push(seg.metadata(row)?);
            origin.push((seg.generation(), row));
        }
        Ok((input, origin))
    }
}
