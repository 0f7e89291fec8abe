//! The approximate index: a Vamana graph ([`crate::graph`]) walked with RaBitQ distance
//! estimates ([`crate::quant`]), whose candidates are reranked with exact distances.
//!
//! Search (one query): the query is prepared once for the codes (rotation + query quantisation),
//! the greedy beam search with list size `ef` orders candidates by the estimate, then the best
//! `rerank` candidates get their exact distance from the stored `f32` rows and the exact top-k
//! is returned. Returned distances are therefore always exact. The rerank skips candidates whose
//! lower bound (estimate − RaBitQ error bound) cannot beat the k-th exact distance found so far,
//! and prefetches the rows of the next candidates. Under L1, which RaBitQ cannot
//! estimate, the walk uses exact distances directly.
//!
//! Node ids are the collection's row numbers. Deleted rows stay in the graph as tombstones: the
//! walk routes through them but never returns them, until [`AnnIndex::consolidate`] repairs their
//! neighbourhoods (FreshDiskANN) and the caller compacts the rows.
//!
//! Sources: Subramanya et al., "DiskANN", NeurIPS 2019 (Vamana); Singh et al., "FreshDiskANN",
//! arXiv 2105.09613 (deletes); Gao & Long, "RaBitQ", SIGMOD 2024 and Gao et al., Extended RaBitQ,
//! SIGMOD 2025 (codes).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::flat::{FlatView, TopK};
use crate::graph::{
    self, BuildError, FlatNodes, Graph, QueryDistance, SearchScratch, VamanaParams,
};
use crate::quant::{PreparedQuery, RabitqIndex, RabitqParams};
use crate::types::Metric;

/// Parameters of an index build. Defaults are chosen by measurement (`bench-results/README.md`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IndexParams {
    /// R: maximum out-degree of the graph.
    pub r: usize,
    /// L: list size of the greedy searches during the build.
    pub l: usize,
    /// α of RobustPrune, with the paper's meaning on (non-squared) Euclidean distances.
    pub alpha: f32,
    /// Build passes (with two or more, the first uses α = 1).
    pub passes: usize,
    /// Bits per dimension of the RaBitQ codes (1..=8; 1 = RaBitQ, more = Extended RaBitQ), or
    /// [`AUTO_BITS`] to pick by dimension at build time ([`default_bits`]).
    pub bits: u8,
    /// Seed of everything random in the build (start graph, order, rotation).
    pub seed: u64,
}

impl Default for IndexParams {
    fn default() -> Self {
        let v = VamanaParams::default();
        IndexParams {
            r: v.r,
            l: v.l,
            alpha: v.alpha,
            passes: v.passes,
            bits: AUTO_BITS,
            seed: v.seed,
        }
    }
}

/// `bits` value meaning "choose by dimension" ([`default_bits`]).
pub const AUTO_BITS: u8 = 0;

/// Default code width for `dim`-dimensional vectors, chosen by measurement on the shipped 384-d
/// sentence embeddings and the 128-d SIFT set (`docs/index.md`): 1 bit from 320 dimensions
/// (codes, factors and R = 32 adjacency stay under 200 bytes per vector at 384-d, and the
/// bound-driven rerank absorbs the coarser estimates), 2 bits from 160, 4 bits below, where 1-bit
/// codes are too coarse for the walk.
pub const fn default_bits(dim: usize) -> u8 {
    if dim >= 320 {
        1
    } else if dim >= 160 {
        2
    } else {
        4
    }
}

impl IndexParams {
    fn vamana(&self) -> VamanaParams {
        VamanaParams {
            r: self.r,
            l: self.l,
            alpha: self.alpha,
            passes: self.passes,
            seed: self.seed,
            ..VamanaParams::default()
        }
    }

    /// Parameters from JS numbers; `None` keeps the default.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` when a value is not an integer in range (R in 1..=4096, L ≥ 1,
    /// passes in 1..=8, bits in 1..=8, seed a safe integer) or α is not a finite number in [1, 4].
    pub fn from_f64(
        r: Option<f64>,
        l: Option<f64>,
        alpha: Option<f64>,
        passes: Option<f64>,
        bits: Option<f64>,
        seed: Option<f64>,
    ) -> Result<IndexParams> {
        let d = IndexParams::default();
        let int = |name: &str, v: Option<f64>, lo: f64, hi: f64, def: usize| -> Result<usize> {
            match v {
                None => Ok(def),
                Some(x) if x.is_finite() && x.fract() == 0.0 && x >= lo && x <= hi => {
                    Ok(x as usize)
                }
                Some(x) => Err(Error::invalid_argument(format!(
                    "{name} must be an integer in {lo}..={hi}, got {x}"
                ))),
            }
        };
        let alpha = match alpha {
            None => d.alpha,
            Some(a) if a.is_finite() && (1.0..=4.0).contains(&a) => a as f32,
            Some(a) => {
                return Err(Error::invalid_argument(format!(
                    "alpha must be a number in [1, 4], got {a}"
                )))
            }
        };
        let p = IndexParams {
            r: int("R", r, 1.0, 4096.0, d.r)?,
            l: int("L", l, 1.0, 100_000.0, d.l)?,
            alpha,
            passes: int("passes", passes, 1.0, 8.0, d.passes)?,
            bits: match bits {
                None => AUTO_BITS,
                b => int("bits", b, 1.0, 8.0, 0)? as u8,
            },
            seed: int("seed", seed, 0.0, crate::types::MAX_SAFE_INTEGER as f64, 0)? as u64,
        };
        let p = if seed.is_none() {
            IndexParams { seed: d.seed, ..p }
        } else {
            p
        };
        p.validate()?;
        Ok(p)
    }

    /// Checks the ranges (the same for options from JS and for parameters read back from a
    /// snapshot or segment file, which map the error to `HV_CORRUPT`).
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` when a parameter is out of range.
    pub fn validate(&self) -> Result<()> {
        self.vamana().validate().map_err(build_error)?;
        if self.bits != AUTO_BITS && !(1..=8).contains(&self.bits) {
            return Err(Error::invalid_argument(format!(
                "bits must be an integer in 1..=8, got {}",
                self.bits
            )));
        }
        if self.seed > crate::types::MAX_SAFE_INTEGER {
            return Err(Error::invalid_argument(format!(
                "seed must be a safe integer, got {}",
                self.seed
            )));
        }
        Ok(())
    }
}

/// Per-search options of the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnnSearch {
    /// ef: list size of the beam search (≥ k; larger is slower and more accurate).
    pub ef: usize,
    /// How many of the best estimated candidates get an exact distance (≥ k).
    pub rerank: usize,
}

fn build_error(e: BuildError) -> Error {
    match e {
        BuildError::Cancelled => Error::Cancelled,
        other => Error::invalid_argument(other.to_string()),
    }
}

/// The RaBitQ parameters of an index's codes: its code width, and a seed derived from the build
/// seed.
pub fn code_params(params: &IndexParams) -> RabitqParams {
    RabitqParams::new(params.bits).with_seed(params.seed ^ 0x9e37_79b9_7f4a_7c15)
}

/// The RaBitQ codes of every row of `view` (none under L1), seeded from the build seed.
fn encode_codes(view: &FlatView<'_>, params: &IndexParams) -> Result<Option<RabitqIndex>> {
    if view.metric == Metric::L1 {
        return Ok(None);
    }
    let n = view.seqs.len();
    let qp = code_params(params);
    RabitqIndex::encode_all(&view.vectors[..n * view.dim], view.dim, view.metric, qp).map(Some)
}

/// Per-thread search state, reused across queries (no allocation in the walk once warm).
struct Scratch {
    walk: SearchScratch,
    query: Option<PreparedQuery>,
}

/// A Vamana graph over the collection's rows, with RaBitQ codes for the walk.
pub struct AnnIndex {
    params: IndexParams,
    graph: Graph,
    /// None under L1 (the walk then uses exact distances).
    codes: Option<RabitqIndex>,
    deleted: Vec<bool>,
    n_deleted: usize,
    pool: Mutex<Vec<Scratch>>,
    /// Cold mode of the walks ([`AnnIndex::set_cold`]).
    cold: AtomicBool,
}

/// Exact distances to stored rows through the collection's [`FlatView`].
struct ExactQuery<'a> {
    view: &'a FlatView<'a>,
    q: &'a [f32],
}

impl QueryDistance for ExactQuery<'_> {
    #[inline]
    fn distance(&mut self, node: u32) -> f32 {
        self.view.distance(self.q, node as usize)
    }

    #[inline]
    fn will_need(&self, node: u32) {
        self.view.will_need(node as usize);
    }
}

// ExactQuery has no CPU prefetch: its rows are read straight after being listed.

/// RaBitQ estimates.
struct CodeQuery<'a> {
    codes: &'a RabitqIndex,
    pq: &'a PreparedQuery,
}

impl QueryDistance for CodeQuery<'_> {
    #[inline]
    fn distance(&mut self, node: u32) -> f32 {
        self.codes.estimate(self.pq, node)
    }

    #[inline]
    fn prefetch(&self, node: u32) {
        self.codes.prefetch(node);
    }

    #[inline]
    fn will_need(&self, node: u32) {
        self.codes.will_need(node);
    }
}

fn nodes<'a>(view: &FlatView<'a>) -> FlatNodes<'a> {
    let n = FlatNodes::new(view.vectors, view.dim, view.metric);
    if view.metric == Metric::Cosine {
        n.with_inv_norms(view.inv_norms)
    } else {
        n
    }
}

impl AnnIndex {
    /// Builds the index over every row of `view` (`n × dim`), calling `progress(done, total)`
    /// from the calling thread and stopping with `HV_CANCELLED` when `cancel` is set.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` (parameters), `HV_CANCELLED`.
    pub fn build(
        view: &FlatView<'_>,
        params: IndexParams,
        progress: &dyn Fn(usize, usize),
        cancel: &AtomicBool,
    ) -> Result<AnnIndex> {
        params.validate()?;
        let params = if params.bits == AUTO_BITS {
            IndexParams {
                bits: default_bits(view.dim),
                ..params
            }
        } else {
            params
        };
        let n = view.seqs.len();
        let codes = encode_codes(view, &params)?;
        let graph = Graph::build_with(&nodes(view), &params.vamana(), progress, cancel)
            .map_err(build_error)?;
        Ok(AnnIndex::assemble(params, graph, codes, n))
    }

    /// An index over every row of `view` from a graph built elsewhere (a snapshot, an import):
    /// the RaBitQ codes are computed here from the rows and `params.seed`, exactly as a build
    /// computes them. `graph` node `i` must be row `i`.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` (parameters, or a graph whose size is not the number of rows).
    pub fn from_graph(view: &FlatView<'_>, params: IndexParams, graph: Graph) -> Result<AnnIndex> {
        params.validate()?;
        let params = if params.bits == AUTO_BITS {
            IndexParams {
                bits: default_bits(view.dim),
                ..params
            }
        } else {
            params
        };
        let n = view.seqs.len();
        if graph.len() != n {
            return Err(Error::invalid_argument(format!(
                "the graph has {} nodes for {n} rows",
                graph.len()
            )));
        }
        let codes = encode_codes(view, &params)?;
        Ok(AnnIndex::assemble(params, graph, codes, n))
    }

    /// An index from parts read in place (a mapped segment file) or loaded (a snapshot): the
    /// graph and, except under L1, the RaBitQ codes, both over the same `n` rows, made with
    /// `params` (bits resolved). Nothing is rebuilt or re-encoded.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` (parameters), `HV_CORRUPT` (graph and codes disagree in size, or
    /// codes missing/present against the metric).
    pub fn from_mapped(
        metric: Metric,
        params: IndexParams,
        graph: Graph,
        codes: Option<RabitqIndex>,
    ) -> Result<AnnIndex> {
        params.validate()?;
        let n = graph.len();
        if codes.as_ref().is_some_and(|c| c.len() != n) || codes.is_some() == (metric == Metric::L1)
        {
            return Err(Error::Corrupt(
                "segment index: codes and graph do not match".into(),
            ));
        }
        Ok(AnnIndex::assemble(params, graph, codes, n))
    }

    /// An index of `n` nodes from its parts, without tombstones, not in cold mode.
    fn assemble(
        params: IndexParams,
        graph: Graph,
        codes: Option<RabitqIndex>,
        n: usize,
    ) -> AnnIndex {
        AnnIndex {
            params,
            graph,
            codes,
            deleted: vec![false; n],
            n_deleted: 0,
            pool: Mutex::new(Vec::new()),
            cold: AtomicBool::new(false),
        }
    }

    /// Cold mode: the graph and codes are read from a mapped file whose pages may not be in
    /// memory yet (a segment just opened), so searches ask for the pages of a node's neighbours
    /// together before reading them ([`SearchScratch::set_cold`]). Whoever mapped the file
    /// clears it once the pages have been read in.
    pub fn set_cold(&self, cold: bool) {
        self.cold.store(cold, Ordering::Relaxed);
    }

    /// True while in cold mode ([`AnnIndex::set_cold`]).
    pub fn is_cold(&self) -> bool {
        self.cold.load(Ordering::Relaxed)
    }

    /// The RaBitQ codes (none under L1).
    pub fn codes(&self) -> Option<&RabitqIndex> {
        self.codes.as_ref()
    }

    /// The graph (node `i` = row `i`).
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The build parameters.
    pub fn params(&self) -> IndexParams {
        self.params
    }

    /// Default number of candidates offered to the exact rerank for a top-`k` search with list
    /// size `ef`: all `ef` of them. The rerank scores candidates in estimate order and skips
    /// any whose lower bound (estimate − RaBitQ error bound at ε₀ = [`RERANK_EPSILON0`]) already
    /// exceeds the k-th exact distance found, so the count of exact distances adapts to the
    /// codes' accuracy per query instead of a fixed multiple of `k`.
    pub fn default_rerank(&self, k: usize, ef: usize) -> usize {
        ef.max(k)
    }

    /// Bytes per node of what grows with the index: codes, adjacency at R (and the build's
    /// slack), the tombstone flag, the search scratch's visit mark.
    fn node_bytes(&self) -> usize {
        let codes = self.codes.as_ref().map_or(0, |c| c.record_words() * 8);
        let r = self.graph.max_degree();
        codes + (r + r / 2 + 1) * 4 + 1 + 4
    }

    /// An upper bound of the bytes that inserting `n_new` nodes may allocate: every growing
    /// array reallocated once (old and new copies alive together), plus the insert's lists of L
    /// candidates ([`crate::mem::ensure_headroom`]).
    pub fn insert_headroom(&self, n_new: usize) -> usize {
        let nodes = self.len().saturating_add(n_new);
        let l = self.params.l.max(self.graph.max_degree());
        nodes
            .saturating_mul(self.node_bytes())
            .saturating_mul(3)
            .saturating_add(l.saturating_mul(self.graph.max_degree() + 8) * 16)
    }

    /// An upper bound of the bytes one search with list size `ef` for `k` results may allocate
    /// (scratch growth, candidates, the top-k).
    pub fn search_headroom(&self, k: usize, ef: usize) -> usize {
        let ef = ef.min(self.len().max(1));
        self.len()
            .saturating_mul(4)
            .saturating_add(ef.saturating_add(k.min(self.len())).saturating_mul(64))
    }

    /// An upper bound of the bytes building an index of `n` rows of `dim` values with `params`
    /// may allocate: codes, the adjacency at the build's slack (twice: the final copy), the
    /// search lists of L candidates.
    pub fn build_headroom(n: usize, dim: usize, params: &IndexParams) -> usize {
        let bits = if params.bits == AUTO_BITS {
            default_bits(dim)
        } else {
            params.bits
        };
        let per_node = (dim.div_ceil(64) * usize::from(bits) + 4) * 8
            + (params.r + params.r / 2 + 1) * 4 * 2
            + 16;
        n.saturating_mul(per_node)
            .saturating_add(params.l * params.r * 64)
    }

    /// An upper bound of the bytes a consolidation may allocate (the codes and graph rebuilt
    /// compactly, the remap, new tombstone flags).
    pub fn consolidate_headroom(&self) -> usize {
        self.len()
            .saturating_mul(self.node_bytes() + 8)
            .saturating_mul(2)
    }

    /// Nodes in the graph (live and deleted).
    pub fn len(&self) -> usize {
        self.graph.len()
    }

    /// True when the graph has no node.
    pub fn is_empty(&self) -> bool {
        self.graph.is_empty()
    }

    /// Tombstoned nodes not yet consolidated.
    pub fn deleted_count(&self) -> usize {
        self.n_deleted
    }

    /// True if `node` is a tombstone.
    pub fn is_deleted(&self, node: u32) -> bool {
        self.deleted.get(node as usize).copied().unwrap_or(false)
    }

    /// The tombstone flags, one per node.
    pub fn deleted(&self) -> &[bool] {
        &self.deleted
    }

    /// The search mode label used in stats and benchmark records, e.g. `vamana-rabitq4`.
    pub fn mode(&self) -> String {
        match &self.codes {
            Some(c) => format!("vamana-rabitq{}", c.params().bits),
            None => "vamana-exact".into(),
        }
    }

    /// Bytes the walk touches per vector: codes and factors plus graph adjacency (the fp32 rows
    /// used for the rerank are not counted).
    pub fn walk_bytes_per_vector(&self) -> f64 {
        let n = self.graph.len().max(1) as f64;
        let codes = self.codes.as_ref().map_or(0, |c| c.bytes_per_vector()) as f64;
        codes + self.graph.bytes() as f64 / n
    }

    /// Appends rows `from..view.len()` (already pushed to the view) to the codes and the graph.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` on an internal mismatch.
    pub fn insert_rows(&mut self, view: &FlatView<'_>, from: usize) -> Result<()> {
        let n = view.seqs.len();
        if from != self.graph.len() || n < from {
            return Err(Error::Internal(format!(
                "index holds {} nodes, rows start at {from}",
                self.graph.len()
            )));
        }
        if let Some(codes) = &mut self.codes {
            for i in from..n {
                codes.push(&view.vectors[i * view.dim..(i + 1) * view.dim])?;
            }
        }
        let ids: Vec<u32> = (from as u32..n as u32).collect();
        self.graph
            .insert_batch(
                &ids,
                &nodes(view),
                &self.params.vamana(),
                &|_, _| {},
                &AtomicBool::new(false),
            )
            .map_err(build_error)?;
        self.deleted.resize(n, false);
        Ok(())
    }

    /// Extends the tombstone flags to `rows` rows without adding them to the graph: rows from
    /// [`AnnIndex::len`] on are a tail the caller scans exactly (an interim index).
    pub fn extend_rows(&mut self, rows: usize) {
        if rows > self.deleted.len() {
            self.deleted.resize(rows, false);
        }
    }

    /// Marks `node` deleted (a tombstone): searches route through it but never return it.
    pub fn mark_deleted(&mut self, node: u32) {
        if let Some(d) = self.deleted.get_mut(node as usize) {
            if !*d {
                *d = true;
                self.n_deleted += 1;
            }
        }
    }

    /// Repairs the neighbourhoods of tombstoned nodes (FreshDiskANN consolidation) and removes
    /// them: `remap[old] = new id` or `u32::MAX` for removed nodes, as the caller compacts its
    /// rows with the same map.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` on an internal mismatch.
    pub fn consolidate(&mut self, view: &FlatView<'_>, remap: &[u32]) -> Result<()> {
        let deleted = &self.deleted;
        self.graph
            .consolidate(
                &|n: u32| deleted[n as usize],
                &nodes(view),
                &self.params.vamana(),
            )
            .map_err(build_error)?;
        self.graph.compact(remap).map_err(build_error)?;
        if let Some(codes) = &mut self.codes {
            let words = codes.record_words();
            let mut records = Vec::with_capacity((self.deleted.len() - self.n_deleted) * words);
            for (old, &new) in remap.iter().enumerate() {
                if new != u32::MAX {
                    records.extend_from_slice(&codes.records()[old * words..(old + 1) * words]);
                }
            }
            *codes = RabitqIndex::from_parts(
                codes.dim(),
                codes.metric(),
                codes.params(),
                codes.centroid().to_vec(),
                &records,
            )?;
        }
        let live = self.deleted.len() - self.n_deleted;
        self.deleted = vec![false; live];
        self.n_deleted = 0;
        Ok(())
    }

    /// The approximate `k` nearest live rows to raw query `q` (`dim` values) with prepared form
    /// `prepared` (unit-normalised under cosine), best first, with exact distances.
    ///
    /// # Errors
    /// `HV_INVALID_VECTOR` / `HV_DIM_MISMATCH` from the quantizer (callers validate first).
    pub fn search(
        &self,
        view: &FlatView<'_>,
        q: &[f32],
        prepared: &[f32],
        k: usize,
        opts: AnnSearch,
    ) -> Result<Vec<crate::flat::Hit>> {
        let mut scratch = self
            .pool
            .lock()
            .ok()
            .and_then(|mut p| p.pop())
            .unwrap_or_else(|| Scratch {
                walk: SearchScratch::new(),
                query: None,
            });
        // The beam never needs more slots than the graph has nodes: clamping here, before the
        // scratch is sized, keeps a caller's huge `k` or `ef` (say 2³²) from allocating
        // gigabytes. `k` above the node count returns every live node.
        let nodes = self.graph.len().max(1);
        let k = k.min(nodes);
        let ef = opts.ef.max(k).min(nodes);
        // Tombstones come from the view: the collection's own flags for its rows, or a sealed
        // segment's flags kept by the collection (the segment's file never changes).
        let deleted = view.deleted;
        let filter = |n: u32| !deleted.get(n as usize).copied().unwrap_or(false);
        let rerank = opts.rerank.max(k).min(ef);
        let mut top = TopK::new(k);
        let Scratch { walk, query } = &mut scratch;
        let cold = self.is_cold();
        walk.set_cold(cold);
        let _foreground = cold.then(ColdSearch::begin);
        let result = match &self.codes {
            Some(codes) => {
                let pq = query.get_or_insert_with(|| codes.new_query());
                match codes.prepare_into(q, pq) {
                    Ok(()) => {
                        pq.set_epsilon0(RERANK_EPSILON0);
                        let pq: &PreparedQuery = pq;
                        let mut qd = CodeQuery { codes, pq };
                        let cands = graph::search(&self.graph, &mut qd, ef, walk, filter);
                        let cands = &cands[..cands.len().min(rerank)];
                        rerank_into(view, prepared, cands, &mut top, |node| {
                            let (est, bound) = codes.estimate_with_bound(pq, node);
                            est - bound
                        });
                        Ok(())
                    }
                    Err(e) => Err(e),
                }
            }
            None => {
                let mut qd = ExactQuery { view, q: prepared };
                let cands = graph::search(&self.graph, &mut qd, ef, walk, filter);
                let cands = &cands[..cands.len().min(rerank)];
                rerank_into(view, prepared, cands, &mut top, |_| f32::NEG_INFINITY);
                Ok(())
            }
        };
        if let Ok(mut p) = self.pool.lock() {
            p.push(scratch);
        }
        result.map(|()| top.into_sorted())
    }
}

/// Searches in cold mode running now, in this process ([`cold_searches_in_flight`]).
static COLD_SEARCHES: AtomicUsize = AtomicUsize::new(0);

/// Searches in cold mode ([`AnnIndex::set_cold`]) running now in this process: a background
/// warm-up of mapped files gives way to them, so that their page reads do not queue behind its
/// own.
pub fn cold_searches_in_flight() -> usize {
    COLD_SEARCHES.load(Ordering::Relaxed)
}

/// Counts one search in [`COLD_SEARCHES`] for as long as it lives.
struct ColdSearch;

impl ColdSearch {
    fn begin() -> ColdSearch {
        COLD_SEARCHES.fetch_add(1, Ordering::Relaxed);
        ColdSearch
    }
}

impl Drop for ColdSearch {
    fn drop(&mut self) {
        COLD_SEARCHES.fetch_sub(1, Ordering::Relaxed);
    }
}

/// ε₀ of the error bound that lets the rerank skip a candidate (RaBitQ, Theorem 3.2: the exact
/// distance is at least `estimate − bound` for all but ≈ 0.1 % of pairs at ε₀ = 3.2).
pub const RERANK_EPSILON0: f32 = 3.2;

/// Rows prefetched ahead of the one being reranked.
const RERANK_PREFETCH: usize = 4;

/// Exact distances for `cands` (best estimate first) into `top`, skipping a candidate whose lower
/// bound `lower(node)` already exceeds the k-th exact distance found so far; the rows of the next
/// candidates are prefetched while one is scored.
fn rerank_into(
    view: &FlatView<'_>,
    q: &[f32],
    cands: &[(f32, u32)],
    top: &mut TopK,
    lower: impl Fn(u32) -> f32,
) {
    // rows of a mapped file not read before: ask for all of them at once, so that their page
    // faults overlap (some are then skipped by their bound: a few reads wasted, once)
    if let Some(pages) = view.pages {
        for &(_, node) in cands {
            pages.will_need(node as usize);
        }
    }
    for &(_, node) in cands.iter().take(RERANK_PREFETCH) {
        view.prefetch(node as usize);
    }
    for (j, &(_, node)) in cands.iter().enumerate() {
        if let Some(&(_, next)) = cands.get(j + RERANK_PREFETCH) {
            view.prefetch(next as usize);
        }
        if let Some(worst) = top.worst() {
            if lower(node) > worst {
                continue;
            }
        }
        let i = node as usize;
        top.push(view.distance(q, i), view.seqs[i], node);
    }
}
