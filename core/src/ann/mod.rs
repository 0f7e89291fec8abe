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

//!
//! | file | concept |
//! | --- | --- |
//! | `params.rs` | [`IndexParams`]: build parameters, defaults, range checks |
//! | `mod.rs` | [`AnnIndex`]: build, assembly from parts, tombstones, inserts, consolidation |
//! | `search.rs` | [`AnnIndex::search`]: walk, then bound-driven exact rerank |
//! | `memory.rs` | upper bounds of what inserts, searches, builds and consolidations allocate (`crate::mem::ensure_headroom`) |

mod memory;
mod params;
mod search;

pub use params::{code_params, default_bits, IndexParams, AUTO_BITS};
pub use search::{AnnSearch, Restrict, RERANK_EPSILON0};

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use params::build_error;

use crate::error::{Error, Result};
use crate::flat::FlatView;
use crate::graph::{FlatNodes, Graph, SearchScratch};
use crate::quant::{PreparedQuery, RabitqIndex};
use crate::rowdata::RowSlice;
use crate::types::Metric;

/// The RaBitQ codes of every row of `view` (none under L1), seeded from the build seed.
fn encode_codes(view: &FlatView<'_>, params: &IndexParams) -> Result<Option<RabitqIndex>> {
    if view.metric == Metric::L1 {
        return Ok(None);
    }
    let n = view.seqs.len();
    let qp = code_params(params);
    let rows = view.vectors.range(0, n * view.dim).to_f32();
    RabitqIndex::encode_all(&rows, view.dim, view.metric, qp).map(Some)
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
    /// Where searches in cold mode count themselves ([`AnnIndex::count_cold_searches_in`]).
    cold_gauge: Option<&'static AtomicUsize>,
}

fn nodes<'a>(view: &FlatView<'a>) -> FlatNodes<'a> {
    let n = FlatNodes::from_rows(view.vectors, view.dim, view.metric);
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
        let params = params.resolved(view.dim);
        let n = view.seqs.len();
        let codes = encode_codes(view, &params)?;
        // half-precision rows: the build walks a widened copy (exact values, f32 kernels),
        // dropped when the graph is done
        let wide = match view.vectors {
            RowSlice::F32(_) => None,
            RowSlice::F16(_) => Some(view.vectors.to_f32().into_owned()),
        };
        let wide_view = wide.as_deref().map(|w| FlatView {
            vectors: RowSlice::F32(w),
            ..*view
        });
        let graph = Graph::build_with(
            &nodes(wide_view.as_ref().unwrap_or(view)),
            &params.vamana(),
            progress,
            cancel,
        )
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
        let params = params.resolved(view.dim);
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
            cold_gauge: None,
        }
    }

    /// Cold mode: the graph and codes are read from a mapped file whose pages may not be in
    /// memory yet (a segment just opened), so searches ask for the pages of a node's neighbours
    /// together before reading them ([`SearchScratch::set_cold`]). Whoever mapped the file
    /// clears it once the pages have been read in.
    pub fn set_cold(&self, cold: bool) {
        self.cold.store(cold, Ordering::Relaxed);
    }

    /// Makes every search that runs in cold mode ([`AnnIndex::set_cold`]) count itself in
    /// `gauge` for as long as it runs. The owner of the mapping installs it: a segment's
    /// warm-up reads the gauge to give way to those searches
    /// ([`crate::segment::cold_searches_in_flight`]). Without a gauge nothing is counted.
    pub fn count_cold_searches_in(&mut self, gauge: &'static AtomicUsize) {
        self.cold_gauge = Some(gauge);
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

    /// The tombstone flags, one per node; empty while no node is deleted (as
    /// [`FlatView::deleted`](crate::flat::FlatView) expects), which lets a search walk with one
    /// list instead of a routing list and a result list.
    pub fn deleted(&self) -> &[bool] {
        if self.n_deleted == 0 {
            &[]
        } else {
            &self.deleted
        }
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
    /// `HV_INTERNAL` when `from` is not the graph's node count (or lies past the view's rows);
    /// as [`RabitqIndex::push`] for the codes (`HV_INVALID_ARGUMENT` past `u32::MAX` vectors);
    /// `HV_INVALID_ARGUMENT` when the graph refuses the rows (a graph error).
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
                codes.push(&view.vectors.row(i, view.dim).to_f32())?;
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
    /// `HV_INVALID_ARGUMENT` on an internal mismatch (a graph error); as
    /// [`RabitqIndex::from_parts`] when the codes are rebuilt.
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
}
