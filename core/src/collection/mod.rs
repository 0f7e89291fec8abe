//! The façade: an in-memory [`Collection`] of records (id, `f32` vector, optional JSON metadata)
//! with a fixed `dim` and [`Metric`], and exact search over it.
//!
//! Invariants: rows are stored densely (`n × dim`, row-major); a delete moves the last row into
//! the hole (swap-remove) and updates the id map, so no holes or dangling entries remain; every
//! record keeps the insertion sequence of its first `add`, which breaks distance ties (earlier
//! first) and keeps results deterministic whatever the physical row order. Every mutation
//! validates its whole batch before changing anything, so a failed call changes nothing.

use std::collections::{HashMap, HashSet};

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
        Err(Error::invalid_argument(format!("dim must be an integer in 1..={MAX_DIM}, got {dim}")))
    }
}

/// Options of one search.
#[derive(Clone, Copy, Debug)]
pub struct SearchOptions {
    /// How many nearest records to return (≥ 1). Larger than the collection returns every record.
    pub k: usize,
    /// Whether hits carry the record's metadata (default true).
    pub include_metadata: bool,
}

impl SearchOptions {
    /// Options for the `k` nearest records, metadata included.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` if `k` is 0.
    pub fn new(k: usize) -> Result<Self> {
        if k == 0 {
            return Err(Error::invalid_argument("k must be a positive integer, got 0"));
        }
        Ok(SearchOptions { k, include_metadata: true })
    }

    /// Options from a JS number `k`.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` unless `k` is an integer ≥ 1 (NaN, fractions, ≤ 0 are refused).
    pub fn from_f64(k: f64) -> Result<Self> {
        if !(k.is_finite() && k >= 1.0 && k.fract() == 0.0) {
            return Err(Error::invalid_argument(format!("k must be a positive integer, got {k}")));
        }
        Self::new(if k > usize::MAX as f64 { usize::MAX } else { k as usize })
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
    /// The search code path: `"exact"` (flat scan) for now.
    pub mode: &'static str,
    /// Bytes held by the vectors (n · dim · 4).
    pub vector_bytes: usize,
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
}

/// Smallest norm a vector may have under the cosine metric. Below it the direction cannot be
/// computed reliably in `f32` (products underflow), so such vectors are rejected like zero ones.
pub const MIN_COSINE_NORM: f64 = 1e-30;

/// Euclidean norm computed in f64 (no overflow or underflow for any finite `f32` input).
fn norm_f64(v: &[f32]) -> f64 {
    v.iter().map(|&x| (x as f64) * (x as f64)).sum::<f64>().sqrt()
}

impl Collection {
    /// An empty collection of `dim`-dimensional vectors compared with `metric`.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` if `dim` is 0 or above [`MAX_DIM`].
    pub fn new(dim: usize, metric: Metric) -> Result<Self> {
        if dim == 0 || dim > MAX_DIM {
            return Err(Error::invalid_argument(format!("dim must be an integer in 1..={MAX_DIM}, got {dim}")));
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

    /// Number of records.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when the collection holds no record.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
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
            mode: "exact",
            vector_bytes: self.vectors.len() * 4,
        }
    }

    /// Checks one vector: length, finiteness, and (cosine) a usable norm. Returns 1/‖x‖ for
    /// cosine (computed in f64), 1 otherwise.
    fn check_vector(&self, v: &[f32], index: usize) -> Result<f32> {
        if v.len() != self.dim {
            return Err(Error::DimMismatch { expected: self.dim, got: v.len() });
        }
        if let Some(pos) = v.iter().position(|x| !x.is_finite()) {
            return Err(Error::InvalidVector { index, reason: format!("component {pos} is {}", v[pos]) });
        }
        if self.metric == Metric::Cosine {
            let norm = norm_f64(v);
            if norm < MIN_COSINE_NORM {
                return Err(Error::InvalidVector {
                    index,
                    reason: if norm == 0.0 {
                        "all components are zero, which has no direction under the cosine metric".into()
                    } else {
                        format!("its norm {norm:e} is below {MIN_COSINE_NORM:e}, too small for a reliable direction in f32")
                    },
                });
            }
            return Ok((1.0 / norm) as f32);
        }
        Ok(1.0)
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
            return Err(Error::invalid_argument("empty batch: give at least one id and vector"));
        }
        if vectors.len() % self.dim != 0 {
            return Err(Error::BatchShape { dim: self.dim, len: vectors.len() });
        }
        let n = vectors.len() / self.dim;
        if n != ids.len() {
            return Err(Error::invalid_argument(format!("{} ids but {n} vectors of dim {}", ids.len(), self.dim)));
        }
        let metadata = match metadata {
            Some(m) if m.len() != n => {
                return Err(Error::invalid_argument(format!("{} metadata entries for {n} records", m.len())))
            }
            Some(m) => m,
            None => vec![None; n],
        };
        for (i, m) in metadata.iter().enumerate() {
            if let Some(text) = m {
                if serde_json::from_str::<serde::de::IgnoredAny>(text).is_err() {
                    return Err(Error::invalid_argument(format!("metadata of record {i} is not valid JSON")));
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
        let w = PreparedWrite { kind, ids, vectors, metadata, inv_norms };
        self.check_fresh(&w)?;
        Ok(w)
    }

    /// `add` only: no id of the batch may be stored already.
    fn check_fresh(&self, w: &PreparedWrite) -> Result<()> {
        if w.kind == WriteKind::Add {
            if let Some(id) = w.ids.iter().find(|id| self.rows.contains_key(*id)) {
                return Err(Error::DuplicateId(format!("{id} (already stored; use upsert to replace)")));
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
            return Err(Error::invalid_argument("write prepared for another collection"));
        }
        self.check_fresh(&w)?;
        self.try_reserve(w.ids.len())?;
        let cos = self.metric == Metric::Cosine;
        let dim = self.dim;
        let PreparedWrite { ids, vectors, metadata, inv_norms, .. } = w;
        for (i, (id, meta)) in ids.into_iter().zip(metadata).enumerate() {
            let v = &vectors[i * dim..(i + 1) * dim];
            let inv = cos.then(|| inv_norms[i]);
            match self.rows.get(&id) {
                Some(&row) => {
                    let r = row as usize;
                    self.vectors[r * dim..(r + 1) * dim].copy_from_slice(v);
                    if let Some(inv) = inv {
                        self.inv_norms[r] = inv;
                    }
                    self.metadata[r] = meta;
                }
                None => self.push_row(id, v, inv, meta),
            }
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
        self.metadata.push(meta);
    }

    /// Reserves room for `n` more records in every column, failing cleanly (nothing changed)
    /// when memory is exhausted, e.g. at the 4 GiB ceiling of wasm32.
    fn try_reserve(&mut self, n: usize) -> Result<()> {
        let oom = |what: &str| Error::OutOfMemory(format!("cannot grow the {what} column by {n} records"));
        let dim = self.dim;
        let grow = |len: usize, cap: usize, add: usize| if len + add > cap { (len + add).max(cap + cap / 2) - len } else { 0 };
        let want = grow(self.vectors.len(), self.vectors.capacity(), n * dim);
        if want > 0 && self.vectors.try_reserve_exact(want).is_err() {
            self.vectors.try_reserve_exact(n * dim).map_err(|_| oom("vector"))?;
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
    pub fn add(&mut self, ids: Vec<VectorId>, vectors: &[f32], metadata: Option<Vec<Option<String>>>) -> Result<()> {
        let w = self.prepare(WriteKind::Add, ids, vectors.to_vec(), metadata)?;
        self.commit(w)
    }

    /// Inserts or replaces records: an existing id gets the new vector and metadata (the whole
    /// record is replaced; absent metadata clears it) and keeps its original insertion sequence.
    /// Shapes and errors as [`Collection::add`], except that stored ids are allowed. All or nothing.
    ///
    /// # Errors
    /// As [`Collection::add`]; `HV_DUPLICATE_ID` only for an id named twice in the batch.
    pub fn upsert(&mut self, ids: Vec<VectorId>, vectors: &[f32], metadata: Option<Vec<Option<String>>>) -> Result<()> {
        let w = self.prepare(WriteKind::Upsert, ids, vectors.to_vec(), metadata)?;
        self.commit(w)
    }

    /// Deletes the named records; ids that are not stored are ignored. Returns how many records
    /// were deleted (an id named twice counts once).
    pub fn delete(&mut self, ids: &[VectorId]) -> usize {
        let mut deleted = 0;
        for id in ids {
            let Some(row) = self.rows.remove(id) else { continue };
            deleted += 1;
            let r = row as usize;
            let last = self.ids.len() - 1;
            if r != last {
                let dim = self.dim;
                self.vectors.copy_within(last * dim..(last + 1) * dim, r * dim);
                *self.rows.get_mut(&self.ids[last]).expect("id map holds every stored id") = row;
            }
            self.vectors.truncate(last * self.dim);
            self.ids.swap_remove(r);
            self.seqs.swap_remove(r);
            self.metadata.swap_remove(r);
            if self.metric == Metric::Cosine {
                self.inv_norms.swap_remove(r);
            }
        }
        deleted
    }

    /// The stored vector (`dim` values, as supplied) and metadata JSON of `id`, if stored.
    pub fn get(&self, id: &VectorId) -> Option<(&[f32], Option<&str>)> {
        let r = *self.rows.get(id)? as usize;
        Some((&self.vectors[r * self.dim..(r + 1) * self.dim], self.metadata[r].as_deref()))
    }

    /// True if `id` is stored.
    pub fn contains(&self, id: &VectorId) -> bool {
        self.rows.contains_key(id)
    }

    fn view(&self) -> FlatView<'_> {
        FlatView {
            dim: self.dim,
            metric: self.metric,
            vectors: &self.vectors,
            inv_norms: &self.inv_norms,
            seqs: &self.seqs,
            kernels: self.kernels,
        }
    }

    fn hits(&self, hits: Vec<Hit>, opts: &SearchOptions) -> Vec<SearchHit> {
        hits.into_iter()
            .map(|h| SearchHit {
                id: self.ids[h.row as usize].clone(),
                distance: h.dist,
                metadata: if opts.include_metadata { self.metadata[h.row as usize].clone() } else { None },
            })
            .collect()
    }

    /// The exact `k` nearest records to `query` (`dim` values), best first; ties go to the
    /// earlier-inserted record. Fewer than `k` come back when the collection is smaller.
    ///
    /// # Errors
    /// `HV_DIM_MISMATCH`, `HV_INVALID_VECTOR` (NaN/±Infinity; zero under cosine).
    pub fn search(&self, query: &[f32], opts: &SearchOptions) -> Result<Vec<SearchHit>> {
        self.check_vector(query, 0)?;
        let mut q = Vec::with_capacity(self.dim);
        flat::prepare_query(self.metric, self.kernels, query, &mut q);
        let hits = flat::search_one(&self.view(), &q, opts.k.min(self.len().max(1)));
        Ok(self.hits(hits, opts))
    }

    /// Exact search for `n` queries at once (`queries` is `n × dim` row-major); one result list
    /// per query, in order. Faster per query than [`Collection::search`]: each stored row is read
    /// once per chunk of queries, and chunks run in parallel natively.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` (no query), `HV_DIM_MISMATCH`, `HV_INVALID_VECTOR` (`index` = query number).
    pub fn search_batch(&self, queries: &[f32], opts: &SearchOptions) -> Result<Vec<Vec<SearchHit>>> {
        if queries.is_empty() {
            return Err(Error::invalid_argument("empty batch: give at least one query"));
        }
        if queries.len() % self.dim != 0 {
            return Err(Error::BatchShape { dim: self.dim, len: queries.len() });
        }
        let mut prepared = Vec::with_capacity(queries.len());
        let mut q = Vec::with_capacity(self.dim);
        for (i, v) in queries.chunks_exact(self.dim).enumerate() {
            self.check_vector(v, i)?;
            flat::prepare_query(self.metric, self.kernels, v, &mut q);
            prepared.extend_from_slice(&q);
        }
        let k = opts.k.min(self.len().max(1));
        let all = flat::search_batch(&self.view(), &prepared, k);
        Ok(all.into_iter().map(|h| self.hits(h, opts)).collect())
    }
}
