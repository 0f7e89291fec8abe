//! The façade: an in-memory [`Collection`] of records (id, `f32` vector, optional JSON metadata)
//! with a fixed `dim` and [`Metric`], and exact search over it.
//!
//! Invariants: rows are stored densely (`n × dim`, row-major); a delete moves the last row into
//! the hole (swap-remove) and updates the id map, so no holes or dangling entries remain; every
//! record keeps the insertion sequence of its first `add`, which breaks distance ties (earlier
//! first) and keeps results deterministic whatever the physical row order. Every mutation
//! validates its whole batch before changing anything, so a failed call changes nothing.

mod graph_io;
mod sealed;

pub use graph_io::{ExportedGraph, ImportReport, NO_NEIGHBOR};
use sealed::Place;
pub use sealed::{SealInput, SealedPart, SwapOutcome};

use std::collections::{HashMap, HashSet};

use std::sync::atomic::AtomicBool;

use crate::ann::{AnnIndex, AnnSearch, IndexParams};
use crate::distance::{kernels, Kernels};
use crate::error::{Error, Result};
use crate::flat::{self, FlatView, Hit};

use crate::types::{Metric, VectorId};

/// Largest supported dimension.
pub const MAX_DIM: usize = 65_536;

/// Parses a JS number as a dimension.
///
/// # Errors
/// `HV_INVALID_ARGUMENT` unless `dim` is an integer in 1..=[`MAX_DIM`].
pub fn parse_dim(dim: f64) -> Result<usize> {
    if dim.is_finite() && dim.fract() == 0.0 && dim >= 1.0 && dim <= MAX_DIM as f64 {
        Ok(dim as usize)
    } else {
        Err(Error::invalid_argument(format!(
            "dim must be an integer in 1..={MAX_DIM}, got {dim}"
        )))
    }
}

/// Options of one search.
#[derive(Clone, Copy, Debug)]
pub struct SearchOptions {
    /// How many nearest records to return (≥ 1). Larger than the collection returns every record.
    pub k: usize,
    /// Whether hits carry the record's metadata (default true).
    pub include_metadata: bool,
    /// ef of the graph search (list size; default [`DEFAULT_EF`], raised to k). Ignored
    /// without an index.
    pub ef: Option<usize>,
    /// Candidates offered to the exact rerank, best estimate first (default: all ef, see
    /// [`AnnIndex::default_rerank`]; those whose lower bound cannot beat the k-th exact distance
    /// are skipped). Ignored without an index.
    pub rerank: Option<usize>,
    /// `Some(true)`: exact search even when an index exists (a true flat scan over every live
    /// record). `Some(false)`: the index whenever one exists, even below [`FLAT_THRESHOLD`]
    /// (for measurements). `None` (default): the index from [`FLAT_THRESHOLD`] live records on.
    pub exact: Option<bool>,
}

/// Default ef of the graph search.
pub const DEFAULT_EF: usize = 64;

/// Below this many live records a search scans exactly even with an index: a flat scan of a
/// few thousand rows costs about what a graph walk does (measured: see `docs/index.md`).
pub const FLAT_THRESHOLD: usize = 2_000;

/// Rows re-encoded to check the codes of a snapshot against its vectors (besides the entry
/// point; see [`Collection::install_index_parts`]).
pub const CODE_SAMPLE: usize = 16;

/// Consolidate tombstones once they pass this fraction of the graph's nodes.
pub const CONSOLIDATE_RATIO: f64 = 0.1;

impl SearchOptions {
    /// Options for the `k` nearest records, metadata included.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` if `k` is 0.
    pub fn new(k: usize) -> Result<Self> {
        if k == 0 {
            return Err(Error::invalid_argument(
                "k must be a positive integer, got 0",
            ));
        }
        Ok(SearchOptions {
            k,
            include_metadata: true,
            ef: None,
            rerank: None,
            exact: None,
        })
    }

    /// Options from a JS number `k`.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` unless `k` is an integer ≥ 1 (NaN, fractions, ≤ 0 are refused).
    pub fn from_f64(k: f64) -> Result<Self> {
        if !(k.is_finite() && k >= 1.0 && k.fract() == 0.0) {
            return Err(Error::invalid_argument(format!(
                "k must be a positive integer, got {k}"
            )));
        }
        Self::new(if k > usize::MAX as f64 {
            usize::MAX
        } else {
            k as usize
        })
    }

    /// Sets ef / rerank from JS numbers (`None` keeps the default).
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` unless each given value is an integer ≥ 1.
    pub fn with_graph_f64(mut self, ef: Option<f64>, rerank: Option<f64>) -> Result<Self> {
        let check = |name: &str, v: f64| -> Result<usize> {
            if v.is_finite() && v >= 1.0 && v.fract() == 0.0 {
                Ok(v.min(1e9) as usize)
            } else {
                Err(Error::invalid_argument(format!(
                    "{name} must be a positive integer, got {v}"
                )))
            }
        };
        self.ef = ef.map(|v| check("ef", v)).transpose()?;
        self.rerank = rerank.map(|v| check("rerank", v)).transpose()?;
        Ok(self)
    }
}

/// One search result: the record's id, its distance to the query under the collection's metric
/// (lower is closer: squared L2, 1 − cos, −dot or L1) and, if asked for, its metadata (JSON text).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchHit {
    /// The record's id, of the kind it was inserted with.
    pub id: VectorId,
    /// Distance to the query; lower is closer.
    pub distance: f32,
    /// The record's metadata as JSON text, if it has some and it was asked for.
    pub metadata: Option<String>,
}

/// Counters and facts about a collection.
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    /// Number of records.
    pub size: usize,
    /// Vector dimension.
    pub dim: usize,
    /// Metric.
    pub metric: Metric,
    /// Name of the distance kernel set in use (e.g. `"avx2-fma-f16c"`, `"wasm-simd128"`).
    pub kernel: &'static str,
    /// The search code path: `"exact"` (flat scan) or the index's, e.g. `"vamana-rabitq4"`.
    pub mode: String,
    /// Bytes of the stored vectors (rows · dim · 4, tombstoned rows included; the rows of sealed
    /// segments are memory-mapped, not heap).
    pub vector_bytes: usize,
    /// Bytes per vector of what the graph walk touches (codes, factors, adjacency); 0 without an index.
    pub index_bytes_per_vector: f64,
    /// Deleted records still present as tombstones (in the index and in sealed segments).
    pub tombstones: usize,
    /// Records in the mutable segment (all of them for an in-memory collection).
    pub mutable_records: usize,
    /// Sealed segments (durable collections).
    pub sealed_segments: usize,
    /// Rows of the mutable segment covered by its index (durable collections: the interim index
    /// built in the background; the rest is scanned exactly).
    pub mutable_indexed: usize,
    /// Sealed segments whose walk data (codes and graph) is still being read into memory in the
    /// background after they were mapped; meanwhile their searches ask for the pages they need
    /// ahead of use (cold mode). 0 once warm, and always for in-memory collections.
    pub warming_segments: usize,
}

/// An in-memory collection of vectors with exact search.
pub struct Collection {
    dim: usize,
    metric: Metric,
    kernels: &'static Kernels,
    /// `n × dim`, row-major, as supplied.
    vectors: Vec<f32>,
    /// 1/‖x‖ per row (cosine only; empty otherwise).
    inv_norms: Vec<f32>,
    ids: Vec<VectorId>,
    seqs: Vec<u64>,
    metadata: Vec<Option<String>>,
    rows: HashMap<VectorId, u32>,
    next_seq: u64,
    /// The approximate index, if built. With an index, rows are never moved by a delete: they
    /// become tombstones until consolidation compacts them.
    index: Option<AnnIndex>,
    /// Bumped by every mutation (an index built from one version is installed only on it).
    version: u64,
    /// Sealed segments, oldest first (the rows above are the mutable segment).
    sealed: Vec<SealedPart>,
    /// Live records in the sealed segments.
    sealed_live: usize,
    /// Sealed-row tombstones not yet taken by the store (`take_tombstones`).
    tombstone_journal: Vec<(u64, u32)>,
    /// Ids written since a seal or compaction began (None when none is in progress).
    dirty: Option<HashSet<VectorId>>,
    /// Durable collections: the index of the mutable segment is an *interim* index built in the
    /// background over a prefix of the rows; later rows are a tail scanned exactly, deletes and
    /// upserts leave tombstones, and there is no consolidation (the segment is sealed instead).
    deferred: bool,
    /// Bumped whenever rows move (swap-remove delete, compaction of rows, seal): an interim
    /// index built over an older layout is not installed.
    layout_epoch: u64,
    /// Longest metadata text ever stored in the mutable segment (bytes): a bound of one hit's
    /// metadata copy for [`crate::mem::ensure_headroom`].
    metadata_max: usize,
}

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

    /// The write's `n × dim` vectors and per-record metadata, as they will be stored.
    pub fn payload(&self) -> (&[f32], &[Option<String>]) {
        (&self.vectors, &self.metadata)
    }
}

impl Collection {
    /// An empty collection of `dim`-dimensional vectors compared with `metric`.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` if `dim` is 0 or above [`MAX_DIM`].
    pub fn new(dim: usize, metric: Metric) -> Result<Self> {
        if dim == 0 || dim > MAX_DIM {
            return Err(Error::invalid_argument(format!(
                "dim must be an integer in 1..={MAX_DIM}, got {dim}"
            )));
        }
        Ok(Collection {
            dim,
            metric,
            kernels: kernels(),
            vectors: Vec::new(),
            inv_norms: Vec::new(),
            ids: Vec::new(),
            seqs: Vec::new(),
            metadata: Vec::new(),
            rows: HashMap::new(),
            next_seq: 0,
            index: None,
            version: 0,
            sealed: Vec::new(),
            sealed_live: 0,
            tombstone_journal: Vec::new(),
            dirty: None,
            deferred: false,
            layout_epoch: 0,
            metadata_max: 0,
        })
    }

    /// Vector dimension.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Distance metric.
    pub fn metric(&self) -> Metric {
        self.metric
    }

    /// Number of (live) records.
    pub fn len(&self) -> usize {
        self.rows.len() + self.sealed_live
    }

    /// True when the collection holds no record.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The mutation counter (see [`Collection::install_index`]).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Name of the distance kernel set in use.
    pub fn kernel_name(&self) -> &'static str {
        self.kernels.name
    }

    /// Facts about the collection.
    pub fn stats(&self) -> Stats {
        Stats {
            size: self.len(),
            dim: self.dim,
            metric: self.metric,
            kernel: self.kernels.name,
            mode: match (self.sealed.first(), &self.index) {
                (Some(p), _) => format!("segmented-{}", p.seg.index().mode()),
                (None, Some(ix)) => ix.mode(),
                (None, None) => "exact".to_string(),
            },
            vector_bytes: self.vectors.len() * 4
                + self
                    .sealed
                    .iter()
                    .map(|p| p.seg.len() * self.dim * 4)
                    .sum::<usize>(),
            index_bytes_per_vector: self.index_bytes_per_vector(),
            tombstones: self.index.as_ref().map_or(0, AnnIndex::deleted_count)
                + self.sealed.iter().map(|p| p.n_deleted).sum::<usize>(),
            mutable_records: self.rows.len(),
            sealed_segments: self.sealed.len(),
            mutable_indexed: self.mutable_indexed(),
            warming_segments: self
                .sealed
                .iter()
                .filter(|p| p.seg.index().is_cold())
                .count(),
        }
    }

    /// Checks one vector against this collection's dimension and metric
    /// ([`crate::vector::check_vector`]); returns 1/‖x‖ for cosine, 1 otherwise.
    fn check_vector(&self, v: &[f32], index: usize) -> Result<f32> {
        crate::vector::check_vector(v, self.dim, self.metric, index)
    }

    /// Validates a write (counts, dimension, values, metadata JSON, ids unique within the batch
    /// and, for `add`, absent from the collection) without changing anything. Needs only shared
    /// access, so callers can validate outside their write lock and then [`Collection::commit`].
    ///
    /// `vectors` is `n × dim` row-major `f32`; `metadata`, if given, holds one optional JSON text
    /// per record.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` (empty batch, counts differ, metadata not JSON), `HV_DIM_MISMATCH`,
    /// `HV_INVALID_VECTOR` (NaN/±Infinity; under cosine a zero or near-zero norm),
    /// `HV_DUPLICATE_ID` (`add` of a stored id, or an id twice in the batch).
    pub fn prepare(
        &self,
        kind: WriteKind,
        ids: Vec<VectorId>,
        vectors: Vec<f32>,
        metadata: Option<Vec<Option<String>>>,
    ) -> Result<PreparedWrite> {
        if ids.is_empty() {
            return Err(Error::invalid_argument(
                "empty batch: give at least one id and vector",
            ));
        }
        if !vectors.len().is_multiple_of(self.dim) {
            return Err(Error::BatchShape {
                dim: self.dim,
                len: vectors.len(),
            });
        }
        let n = vectors.len() / self.dim;
        if n != ids.len() {
            return Err(Error::invalid_argument(format!(
                "{} ids but {n} vectors of dim {}",
                ids.len(),
                self.dim
            )));
        }
        let metadata = match metadata {
            Some(m) if m.len() != n => {
                return Err(Error::invalid_argument(format!(
                    "{} metadata entries for {n} records",
                    m.len()
                )))
            }
            Some(m) => m,
            None => vec![None; n],
        };
        for (i, m) in metadata.iter().enumerate() {
            if let Some(text) = m {
                if serde_json::from_str::<serde::de::IgnoredAny>(text).is_err() {
                    return Err(Error::invalid_argument(format!(
                        "metadata of record {i} is not valid JSON"
                    )));
                }
            }
        }
        let mut inv_norms = Vec::with_capacity(if self.metric == Metric::Cosine { n } else { 0 });
        for (i, v) in vectors.chunks_exact(self.dim).enumerate() {
            let inv = self.check_vector(v, i)?;
            if self.metric == Metric::Cosine {
                inv_norms.push(inv);
            }
        }
        let mut seen = HashSet::with_capacity(n);
        for id in &ids {
            if !seen.insert(id) {
                return Err(Error::DuplicateId(format!("{id} (twice in one batch)")));
            }
        }
        let w = PreparedWrite {
            kind,
            ids,
            vectors,
            metadata,
            inv_norms,
        };
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
        if w.vectors.len() != w.ids.len() * self.dim {
            return Err(Error::invalid_argument(
                "write prepared for another collection",
            ));
        }
        self.check_fresh(&w)?;
        if let (false, Some(ix)) = (self.deferred, &self.index) {
            // the graph insert, the codes and the scratch grow too: all checked before any change
            crate::mem::ensure_headroom(
                || ix.insert_headroom(w.ids.len()),
                "inserting into the index",
            )?;
        }
        self.try_reserve(w.ids.len())?;
        let cos = self.metric == Metric::Cosine;
        let dim = self.dim;
        let first_new = self.ids.len();
        let indexed = self.index.is_some();
        let PreparedWrite {
            ids,
            vectors,
            metadata,
            inv_norms,
            ..
        } = w;
        for (i, (id, meta)) in ids.into_iter().zip(metadata).enumerate() {
            let v = &vectors[i * dim..(i + 1) * dim];
            let inv = cos.then(|| inv_norms[i]);
            self.touch(&id);
            if self.sealed_live > 0 && !self.rows.contains_key(&id) {
                if let Some(Place::Sealed(p, row)) = self.place(&id) {
                    // a sealed record: tombstone its row, the new version joins the mutable
                    // segment with the original insertion sequence
                    let seq = self.sealed[p].seg.seq(row);
                    self.kill_sealed(p, row);
                    self.push_row(id, v, inv, meta);
                    *self.seqs.last_mut().expect("row just pushed") = seq;
                    self.next_seq -= 1;
                    continue;
                }
            }
            match self.rows.get(&id).copied() {
                Some(row) if !indexed => {
                    let r = row as usize;
                    self.vectors[r * dim..(r + 1) * dim].copy_from_slice(v);
                    if let Some(inv) = inv {
                        self.inv_norms[r] = inv;
                    }
                    self.metadata_max = self.metadata_max.max(meta.as_ref().map_or(0, String::len));
                    self.metadata[r] = meta;
                }
                Some(row) => {
                    // Indexed: the old row becomes a tombstone and the record moves to a new row
                    // (with its original insertion sequence), which the graph then inserts.
                    let seq = self.seqs[row as usize];
                    if let Some(ix) = self.index.as_mut() {
                        ix.mark_deleted(row);
                    }
                    self.push_row(id, v, inv, meta);
                    *self.seqs.last_mut().expect("row just pushed") = seq;
                    self.next_seq -= 1;
                }
                None => self.push_row(id, v, inv, meta),
            }
        }
        self.version += 1;
        if self.deferred {
            // the interim index covers a prefix; the new rows join the exactly scanned tail
            if let Some(ix) = self.index.as_mut() {
                ix.extend_rows(self.ids.len());
            }
            return Ok(());
        }
        if let Some(mut ix) = self.index.take() {
            let r = ix.insert_rows(&self.view(), first_new);
            self.index = Some(ix);
            r?;
            self.maybe_consolidate()?;
        }
        Ok(())
    }

    fn push_row(&mut self, id: VectorId, v: &[f32], inv: Option<f32>, meta: Option<String>) {
        let row = self.ids.len() as u32;
        self.vectors.extend_from_slice(v);
        if let Some(inv) = inv {
            self.inv_norms.push(inv);
        }
        self.rows.insert(id.clone(), row);
        self.ids.push(id);
        self.seqs.push(self.next_seq);
        self.next_seq += 1;
        self.metadata_max = self.metadata_max.max(meta.as_ref().map_or(0, String::len));
        self.metadata.push(meta);
    }

    /// Reserves room for `n` more records in every column, failing cleanly (nothing changed)
    /// when memory is exhausted, e.g. at the 4 GiB ceiling of wasm32.
    fn try_reserve(&mut self, n: usize) -> Result<()> {
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
        self.rows.try_reserve(n).map_err(|_| oom("id map"))?;
        if self.metric == Metric::Cosine {
            self.inv_norms.try_reserve(n).map_err(|_| oom("norm"))?;
        }
        Ok(())
    }

    /// Inserts new records. `vectors` is `n × dim` row-major `f32`; `metadata`, if given, holds one
    /// optional JSON text per record. All or nothing.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` (empty batch, counts differ, metadata not JSON), `HV_DIM_MISMATCH`,
    /// `HV_INVALID_VECTOR` (NaN/±Infinity; zero vector under cosine), `HV_DUPLICATE_ID` (id stored
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
    /// [`CONSOLIDATE_RATIO`] of the graph.
    pub fn delete(&mut self, ids: &[VectorId]) -> usize {
        let mut deleted = 0;
        for id in ids {
            let Some(row) = self.rows.remove(id) else {
                if let Some(Place::Sealed(p, row)) = self.place(id) {
                    self.touch(id);
                    if self.kill_sealed(p, row) {
                        deleted += 1;
                    }
                }
                continue;
            };
            self.touch(id);
            deleted += 1;
            if let Some(ix) = self.index.as_mut() {
                ix.mark_deleted(row);
                continue;
            }
            let r = row as usize;
            let last = self.ids.len() - 1;
            self.layout_epoch += 1;
            if r != last {
                let dim = self.dim;
                self.vectors
                    .copy_within(last * dim..(last + 1) * dim, r * dim);
                *self
                    .rows
                    .get_mut(&self.ids[last])
                    .expect("id map holds every stored id") = row;
            }
            self.vectors.truncate(last * self.dim);
            self.ids.swap_remove(r);
            self.seqs.swap_remove(r);
            self.metadata.swap_remove(r);
            if self.metric == Metric::Cosine {
                self.inv_norms.swap_remove(r);
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

    fn maybe_consolidate(&mut self) -> Result<()> {
        if self.deferred {
            return Ok(()); // tombstones of the mutable segment go away when it is sealed
        }
        match &self.index {
            // without the memory to rebuild, the tombstones stay (searches filter them) until a
            // later write finds room: consolidation is upkeep, never a reason for a write to fail
            // (its check fails before any change)
            Some(ix) if ix.deleted_count() as f64 > CONSOLIDATE_RATIO * ix.len() as f64 => {
                match self.consolidate() {
                    Err(Error::OutOfMemory(_)) => Ok(()),
                    r => r,
                }
            }
            _ => Ok(()),
        }
    }

    /// Repairs the graph around tombstones (FreshDiskANN) and compacts the rows so that no
    /// deleted record takes space any more. A no-op without an index or tombstones.
    ///
    /// # Errors
    /// `HV_INTERNAL` on an internal mismatch (the index is then dropped; exact search goes on).
    pub fn consolidate(&mut self) -> Result<()> {
        if self.deferred {
            // an interim index is rebuilt in the background: drop it and its dead rows
            self.drop_dead_rows();
            return Ok(());
        }
        let Some(mut ix) = self.index.take() else {
            return Ok(());
        };
        if ix.deleted_count() == 0 {
            self.index = Some(ix);
            return Ok(());
        }
        if let Err(e) = crate::mem::ensure_headroom(|| ix.consolidate_headroom(), "consolidation") {
            self.index = Some(ix);
            return Err(e);
        }
        let mut remap = vec![u32::MAX; ix.len()];
        let mut next = 0u32;
        for (old, slot) in remap.iter_mut().enumerate() {
            if !ix.is_deleted(old as u32) {
                *slot = next;
                next += 1;
            }
        }
        ix.consolidate(&self.view_with(&[]), &remap)?;
        self.compact_rows(&remap);
        self.index = Some(ix);
        self.version += 1;
        Ok(())
    }

    /// Keeps the rows with `remap[old] != u32::MAX`, in order, renumbered to `remap[old]`.
    fn compact_rows(&mut self, remap: &[u32]) {
        self.layout_epoch += 1;
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
                if self.metric == Metric::Cosine {
                    self.inv_norms.swap(old, w);
                }
            }
            w += 1;
        }
        self.vectors.truncate(w * dim);
        self.ids.truncate(w);
        self.seqs.truncate(w);
        self.metadata.truncate(w);
        if self.metric == Metric::Cosine {
            self.inv_norms.truncate(w);
        }
        for (row, id) in self.ids.iter().enumerate() {
            if let Some(r) = self.rows.get_mut(id) {
                *r = row as u32;
            }
        }
    }

    /// Builds an approximate index over the current records (shared access only: searches go on
    /// meanwhile). Install it with [`Collection::install_index`]. `progress(done, total)` is
    /// called from the calling thread; setting `cancel` stops the build with `HV_CANCELLED`.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` (parameters), `HV_CANCELLED`.
    pub fn build_index(
        &self,
        params: IndexParams,
        progress: &dyn Fn(usize, usize),
        cancel: &AtomicBool,
    ) -> Result<(AnnIndex, u64)> {
        let view = self.view_with(&[]);
        crate::mem::ensure_headroom(
            || AnnIndex::build_headroom(view.seqs.len(), self.dim, &params),
            "building the index",
        )?;
        let mut ix = AnnIndex::build(&view, params, progress, cancel)?;
        if let Some(old) = &self.index {
            for (node, &d) in old.deleted().iter().enumerate() {
                if d {
                    ix.mark_deleted(node as u32);
                }
            }
        }
        Ok((ix, self.version))
    }

    /// Installs an index built by [`Collection::build_index`] at `version`, replacing any
    /// previous one, then consolidates its tombstones if there are many.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` if the collection changed since the build started.
    pub fn install_index(&mut self, ix: AnnIndex, version: u64) -> Result<()> {
        if version != self.version || ix.len() != self.ids.len() {
            return Err(Error::invalid_argument(
                "the collection changed during the index build; build again",
            ));
        }
        self.index = Some(ix);
        self.maybe_consolidate()
    }

    /// Installs an index over the current rows from a graph built elsewhere (snapshot load,
    /// import); see [`AnnIndex::from_graph`].
    ///
    /// # Errors
    /// `HV_CORRUPT` when the graph does not fit the rows or the parameters are invalid.
    pub fn install_graph(&mut self, params: IndexParams, graph: crate::graph::Graph) -> Result<()> {
        let ix = AnnIndex::from_graph(&self.view_with(&[]), params, graph);
        self.install_loaded(ix)
    }

    /// Installs an index made from loaded parts; a part that does not fit (`HV_INVALID_ARGUMENT`
    /// from the index) is damage in what was loaded: `HV_CORRUPT`.
    fn install_loaded(&mut self, ix: Result<AnnIndex>) -> Result<()> {
        let ix = ix.map_err(|e| match e {
            Error::InvalidArgument(m) => Error::Corrupt(m),
            other => other,
        })?;
        self.index = Some(ix);
        self.version += 1;
        Ok(())
    }

    /// Installs an index from its parts (a snapshot), after checking the codes: finite factors
    /// and centroid, and the entry point and [`CODE_SAMPLE`] spread rows re-encoded to the same
    /// codes (at least 90 % of the bits): `graph` and `codes` over every row, node
    /// and record `i` = row `i`, made with `params` (bits resolved). Nothing is encoded again.
    ///
    /// # Errors
    /// `HV_CORRUPT` (parts that do not match the rows or each other, invalid parameters).
    pub fn install_index_parts(
        &mut self,
        params: IndexParams,
        graph: crate::graph::Graph,
        codes: Option<crate::quant::RabitqIndex>,
    ) -> Result<()> {
        if graph.len() != self.ids.len() {
            return Err(Error::Corrupt(format!(
                "the graph has {} nodes for {} rows",
                graph.len(),
                self.ids.len()
            )));
        }
        if let Some(c) = &codes {
            if c.dim() != self.dim || c.metric() != self.metric || c.len() != self.ids.len() {
                return Err(Error::Corrupt(
                    "the codes do not match the collection's rows, dimension or metric".into(),
                ));
            }
            c.validate()?;
            // codes made with another rotation (seed) or centroid would pass every size check and
            // then estimate nonsense: re-encode the entry point and a few rows and compare
            let n = self.ids.len();
            let sample: Vec<usize> = std::iter::once(graph.entry_point() as usize)
                .chain((0..CODE_SAMPLE).map(|j| j * n / CODE_SAMPLE))
                .filter(|&r| r < n)
                .collect();
            let mut agree = 0.0;
            for &r in &sample {
                agree += c.agreement(r as u32, &self.vectors[r * self.dim..(r + 1) * self.dim])?;
            }
            if !sample.is_empty() && agree / (sample.len() as f64) < 0.9 {
                return Err(Error::Corrupt(format!(
                    "the stored codes do not match the vectors ({:.0} % of sampled code bits reproduced; another seed or centroid?)",
                    100.0 * agree / sample.len() as f64
                )));
            }
        }
        self.install_loaded(AnnIndex::from_mapped(self.metric, params, graph, codes))
    }

    /// A versioned binary snapshot of the collection (records and, if built, the index graph):
    /// see [`crate::snapshot`]. Tombstones are consolidated first, so the snapshot holds live
    /// records only.
    ///
    /// # Errors
    /// `HV_OUT_OF_MEMORY`, `HV_INTERNAL`.
    pub fn to_bytes(&mut self) -> Result<Vec<u8>> {
        if !self.sealed.is_empty() || self.deferred {
            return self.to_bytes_segmented();
        }
        self.consolidate()?; // a no-op without tombstones
        let n = self.ids.len();
        let dim = self.dim;
        let records = (0..n).map(|r| {
            (
                &self.ids[r],
                self.seqs[r],
                &self.vectors[r * dim..(r + 1) * dim],
                self.metadata[r].as_deref(),
            )
        });
        let index = self.index.as_ref().map(|ix| crate::snapshot::IndexPart {
            params: ix.params(),
            graph: ix.graph(),
            codes: ix.codes(),
        });
        crate::snapshot::write(dim, self.metric, n, records, index)
    }

    /// The snapshot of a collection with sealed segments: every live record, in insertion order,
    /// without an index (the segments' graphs cover only their own rows; the loader can build
    /// one over the whole).
    fn to_bytes_segmented(&self) -> Result<Vec<u8>> {
        let dim = self.dim;
        let mut recs: Vec<(VectorId, u64, &[f32], Option<String>)> = Vec::with_capacity(self.len());
        for (r, id) in self.ids.iter().enumerate() {
            if self.rows.contains_key(id)
                && self
                    .index
                    .as_ref()
                    .is_none_or(|ix| !ix.is_deleted(r as u32))
            {
                recs.push((
                    id.clone(),
                    self.seqs[r],
                    &self.vectors[r * dim..(r + 1) * dim],
                    self.metadata[r].clone(),
                ));
            }
        }
        for part in &self.sealed {
            for row in 0..part.seg.len() as u32 {
                if !part.deleted.get(row as usize).copied().unwrap_or(false) {
                    recs.push((
                        part.seg.id(row)?,
                        part.seg.seq(row),
                        part.seg.vector(row),
                        part.seg.metadata(row)?,
                    ));
                }
            }
        }
        recs.sort_unstable_by_key(|r| r.1);
        let n = recs.len();
        crate::snapshot::write(
            dim,
            self.metric,
            n,
            recs.iter()
                .map(|(id, seq, v, m)| (id, *seq, *v, m.as_deref())),
            None,
        )
    }

    /// `HV_UNSUPPORTED` for operations that work on one in-memory graph when sealed segments exist.
    fn no_sealed(&self, what: &str) -> Result<()> {
        if self.sealed.is_empty() {
            Ok(())
        } else {
            Err(Error::Unsupported(format!(
                "{what} works on collections without sealed segments; this one has {}",
                self.sealed.len()
            )))
        }
    }

    /// Loads a snapshot made by [`Collection::to_bytes`] (on either backend).
    ///
    /// # Errors
    /// `HV_CORRUPT`, `HV_VERSION`, `HV_OUT_OF_MEMORY` (see [`crate::snapshot::read`]).
    pub fn from_bytes(bytes: &[u8]) -> Result<Collection> {
        crate::snapshot::read(bytes)
    }

    /// Drops the index (searches become exact flat scans).
    pub fn drop_index(&mut self) {
        if self.index.is_some() {
            let _ = self.consolidate();
            self.index = None;
        }
    }

    /// True when an approximate index exists.
    pub fn has_index(&self) -> bool {
        self.index.is_some()
    }

    /// The stored vector (`dim` values, as supplied) and metadata JSON of `id`, if stored.
    ///
    /// # Errors
    /// `HV_CORRUPT` when a sealed segment's metadata cannot be read.
    pub fn get(&self, id: &VectorId) -> Result<Option<(&[f32], Option<String>)>> {
        Ok(match self.place(id) {
            None => None,
            Some(Place::Mutable(r)) => {
                let r = r as usize;
                Some((
                    &self.vectors[r * self.dim..(r + 1) * self.dim],
                    self.metadata[r].clone(),
                ))
            }
            Some(Place::Sealed(p, row)) => {
                let seg = &self.sealed[p].seg;
                Some((seg.vector(row), seg.metadata(row)?))
            }
        })
    }

    /// True if `id` is stored.
    pub fn contains(&self, id: &VectorId) -> bool {
        self.place(id).is_some()
    }

    /// The insertion sequence number of `id` (its tie-break rank), if stored.
    pub fn seq_of(&self, id: &VectorId) -> Option<u64> {
        match self.place(id)? {
            Place::Mutable(r) => Some(self.seqs[r as usize]),
            Place::Sealed(p, row) => Some(self.sealed[p].seg.seq(row)),
        }
    }

    /// Appends one record read back from storage with its original sequence number `seq`.
    /// For loading a collection (no index may exist yet); records should come in ascending `seq`.
    ///
    /// # Errors
    /// `HV_CORRUPT` when the stored record is not valid for this collection (wrong length,
    /// non-finite values, an id already loaded, metadata that is not JSON), `HV_OUT_OF_MEMORY`.
    pub fn restore_row(
        &mut self,
        id: VectorId,
        seq: u64,
        v: &[f32],
        metadata: Option<String>,
    ) -> Result<()> {
        if self.index.is_some() {
            return Err(Error::Internal(
                "restore_row on an indexed collection".into(),
            ));
        }
        if seq > crate::types::MAX_SAFE_INTEGER {
            return Err(Error::Corrupt(format!(
                "stored record {id} has insertion sequence {seq} (above 2^53 − 1)"
            )));
        }
        let inv = self
            .check_vector(v, 0)
            .map_err(|e| Error::Corrupt(format!("stored record {id}: {e}")))?;
        if self.place(&id).is_some() {
            return Err(Error::Corrupt(format!("stored id {id} appears twice")));
        }
        if let Some(m) = &metadata {
            if serde_json::from_str::<serde::de::IgnoredAny>(m).is_err() {
                return Err(Error::Corrupt(format!(
                    "stored metadata of {id} is not JSON"
                )));
            }
        }
        self.try_reserve(1)?;
        let cos = self.metric == Metric::Cosine;
        self.push_row(id, v, cos.then_some(inv), metadata);
        *self.seqs.last_mut().expect("row just pushed") = seq;
        self.next_seq = self.next_seq.max(seq + 1);
        self.version += 1;
        Ok(())
    }

    fn view(&self) -> FlatView<'_> {
        self.view_with(self.index.as_ref().map_or(&[], AnnIndex::deleted))
    }

    fn view_with<'a>(&'a self, deleted: &'a [bool]) -> FlatView<'a> {
        FlatView {
            dim: self.dim,
            metric: self.metric,
            vectors: &self.vectors,
            inv_norms: &self.inv_norms,
            seqs: &self.seqs,
            deleted,
            kernels: self.kernels,
            pages: None,
        }
    }

    fn hits(&self, hits: Vec<Hit>, opts: &SearchOptions) -> Vec<SearchHit> {
        hits.into_iter()
            .map(|h| SearchHit {
                id: self.ids[h.row as usize].clone(),
                distance: h.dist,
                metadata: if opts.include_metadata {
                    self.metadata[h.row as usize].clone()
                } else {
                    None
                },
            })
            .collect()
    }

    /// An upper bound of the bytes `nq` searches with `opts` allocate: the walks' scratch (one
    /// at a time, reused), the prepared queries, and every query's hits with their metadata.
    fn search_headroom(&self, opts: &SearchOptions, nq: usize) -> usize {
        let k = opts.k.min(self.len());
        let ef = opts.ef.unwrap_or(DEFAULT_EF).max(k);
        let walk = self
            .index
            .as_ref()
            .map_or(0, |ix| ix.search_headroom(k, ef))
            + self
                .sealed
                .iter()
                .map(|p| p.seg.index().search_headroom(k, ef))
                .max()
                .unwrap_or(0);
        // sealed segments' metadata is not counted: they are native only, where nothing is checked
        let hit = 64
            + if opts.include_metadata {
                self.metadata_max
            } else {
                0
            };
        walk.saturating_add(nq.saturating_mul(self.dim * 8 + k.saturating_mul(hit)))
    }

    /// The index to use for `opts`, if any (none when exact search is asked for or when the
    /// collection is small enough that a flat scan is as fast).
    fn index_for(&self, opts: &SearchOptions) -> Option<(&AnnIndex, AnnSearch)> {
        let ix = self.index.as_ref()?;
        // asking for every record (k ≥ the live records) is a scan: a walk could miss some
        let flat = match opts.exact {
            Some(exact) => exact,
            None => self.rows.len() < FLAT_THRESHOLD || opts.k >= self.rows.len(),
        };
        if flat {
            return None;
        }
        // k, ef and rerank are bounded by the graph's size (a caller's k may be 2⁵³)
        let n = ix.len().max(1);
        let k = opts.k.min(n);
        let ef = opts.ef.unwrap_or(DEFAULT_EF).max(k).min(n);
        let rerank = opts
            .rerank
            .unwrap_or_else(|| ix.default_rerank(k, ef))
            .max(k)
            .min(ef);
        Some((ix, AnnSearch { ef, rerank }))
    }

    /// The `k` nearest records to `query` (`dim` values), best first; ties go to the
    /// earlier-inserted record. Exact without an index or with `opts.exact`; with an index,
    /// approximate (graph walk + exact rerank, so the returned distances are exact). Fewer than
    /// `k` come back when the collection is smaller.
    ///
    /// # Errors
    /// `HV_DIM_MISMATCH`, `HV_INVALID_VECTOR` (NaN/±Infinity; zero under cosine).
    pub fn search(&self, query: &[f32], opts: &SearchOptions) -> Result<Vec<SearchHit>> {
        self.check_vector(query, 0)?;
        crate::mem::ensure_headroom(|| self.search_headroom(opts, 1), "search")?;
        let mut q = Vec::with_capacity(self.dim);
        flat::prepare_query(self.metric, self.kernels, query, &mut q);
        let k = opts.k.min(self.len().max(1));
        if !self.sealed.is_empty() || self.has_tail() {
            let hits = self.search_all(query, &q, k, opts)?;
            return self.hits_all(hits, opts);
        }
        let hits = match self.index_for(opts) {
            Some((ix, a)) => ix.search(&self.view(), query, &q, k, a)?,
            None => flat::search_one(&self.view(), &q, k),
        };
        Ok(self.hits(hits, opts))
    }

    /// Search for `n` queries at once (`queries` is `n × dim` row-major); one result list per
    /// query, in order. Exact searches read each stored row once per chunk of queries; indexed
    /// searches run the queries in parallel natively.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` (no query), `HV_DIM_MISMATCH`, `HV_INVALID_VECTOR` (`index` = query number).
    pub fn search_batch(
        &self,
        queries: &[f32],
        opts: &SearchOptions,
    ) -> Result<Vec<Vec<SearchHit>>> {
        if queries.is_empty() {
            return Err(Error::invalid_argument(
                "empty batch: give at least one query",
            ));
        }
        if !queries.len().is_multiple_of(self.dim) {
            return Err(Error::BatchShape {
                dim: self.dim,
                len: queries.len(),
            });
        }
        crate::mem::ensure_headroom(
            || self.search_headroom(opts, queries.len() / self.dim),
            "batch search",
        )?;
        let mut prepared = Vec::with_capacity(queries.len());
        let mut q = Vec::with_capacity(self.dim);
        for (i, v) in queries.chunks_exact(self.dim).enumerate() {
            self.check_vector(v, i)?;
            flat::prepare_query(self.metric, self.kernels, v, &mut q);
            prepared.extend_from_slice(&q);
        }
        let k = opts.k.min(self.len().max(1));
        let nq = queries.len() / self.dim;
        let rows = |j: usize| j * self.dim..(j + 1) * self.dim;
        if !self.sealed.is_empty() || self.has_tail() {
            return per_query(nq, |j| {
                self.search_all(&queries[rows(j)], &prepared[rows(j)], k, opts)
                    .and_then(|h| self.hits_all(h, opts))
            });
        }
        let view = self.view();
        let all = match self.index_for(opts) {
            Some((ix, a)) => per_query(nq, |j| {
                ix.search(&view, &queries[rows(j)], &prepared[rows(j)], k, a)
            })?,
            None => flat::search_batch(&view, &prepared, k),
        };
        Ok(all.into_iter().map(|h| self.hits(h, opts)).collect())
    }
}

/// `one(j)` for every query `0..nq`, in order: in parallel on the rayon pool natively, one after
/// another without the `parallel` feature.
fn per_query<T: Send>(nq: usize, one: impl Fn(usize) -> Result<T> + Sync + Send) -> Result<Vec<T>> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        (0..nq).into_par_iter().map(one).collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        (0..nq).map(one).collect()
    }
}
