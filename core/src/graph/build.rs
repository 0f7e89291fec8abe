//! The Vamana build (DiskANN paper, Algorithm 3) with ParlayANN's deterministic batches.
//!
//! One *batch* step, shared by the build passes and by [`Graph::insert_batch`]:
//!
//! 1. in parallel, for each point p of the batch and against the graph as it was at the start of
//!    the batch: greedy search for p from the entry point with list size L, keeping the expanded
//!    set V; N(p) ← RobustPrune(p, V ∪ N(p), α, R);
//! 2. write every new N(p);
//! 3. collect the reverse edges (q ← p for q ∈ N(p)) and group them by target q (a sort);
//! 4. in parallel, for each target q: N(q) ∪ {new sources}; if that exceeds the row capacity,
//!    RobustPrune(q, N(q) ∪ sources, α, R);
//! 5. write every new N(q).
//!
//! Every step reads only the state left by the previous step and writes disjoint rows, so the
//! graph depends on the seed only, not on the number of threads (nor on the `parallel` feature).
//! Batch sizes double from 1 up to 1 % of the graph (ParlayANN's "prefix doubling"), so early
//! points see each other's edges and later batches carry enough work for every thread.
//!
//! During the build, rows hold up to 2·R neighbours ("slack", as DiskANN's `GRAPH_SLACK_FACTOR`
//! of 1.3): a node that receives reverse edges is pruned back to R only when it overflows that
//! capacity, which amortises the reverse-edge prunes (a third of the build's distance
//! computations without it). A final step prunes every node still above R and shrinks rows to R.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use super::prune::{robust_prune, Occlusion, PruneScratch};
use super::scratch::SearchScratch;
use super::search::walk;
use super::vamana::MAX_NODES;
use super::{medoid, Graph, NodeDistance, NodeQuery};
use crate::rng::SplitMix64;

/// Parameters of the Vamana build and of inserts.
///
/// Defaults: R = 32, L = 64, α = 1.1, 1 pass from an empty start graph. Chosen on 100k × 384
/// MiniLM embeddings (cosine; `core/examples/vamana_eval.rs`): against the paper's schedule (random
/// start, 2 passes, α = 1 then α) the single pass builds about twice as fast at equal or better
/// recall per distance computation, and α = 1.1 beats α = 1.2 by about 20 % in queries per second
/// at recall@10 = 0.95 (α = 1.0 builds another 2–3× faster, 10 % fewer queries per second).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VamanaParams {
    /// R: maximum out-degree (1..=4096). The graph takes `4·(R + 1)` bytes per node. Typical
    /// 24–64; larger R raises recall at a given list size and costs build time and memory.
    pub r: usize,
    /// L: list size of the greedy search run for each inserted point (≥ 1; values below R are
    /// raised to R). Larger L builds more slowly and gives a better graph. Typical 50–128.
    pub l: usize,
    /// α ≥ 1, with the paper's meaning on Euclidean distances: applied as α² to squared L2 and
    /// cosine distances (see the module documentation). α > 1 keeps longer edges; α = 1 gives the
    /// sparsest graph. Typical 1.0–1.2. (DiskANN's code applies its α to *squared* L2, so its
    /// usual 1.2 is α ≈ 1.095 here.)
    pub alpha: f32,
    /// Passes over all points (≥ 1). With 2 or more, the first pass uses α = 1 and the others α
    /// (the paper's schedule); with 1, the only pass uses α.
    pub passes: usize,
    /// Seed of every random choice (start graph, visiting orders, sampled medoid). The default
    /// is below 2⁵³, so it survives a round trip through a JS number.
    pub seed: u64,
    /// The graph the first pass starts from.
    pub start: StartGraph,
}

/// The graph the first build pass starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartGraph {
    /// The DiskANN paper's start: every node gets min(R, n − 1) distinct random out-neighbours.
    Random,
    /// ParlayANN's start (the default): no edge at all; the entry point is the first node and the
    /// first pass inserts every other node (in prefix-doubling batches), searching only the graph
    /// built so far. Cheaper (early searches run on a small graph); same recall in our
    /// measurements.
    Empty,
}

impl Default for VamanaParams {
    fn default() -> Self {
        VamanaParams {
            r: 32,
            l: 64,
            alpha: 1.1,
            passes: 1,
            seed: 0x0005_EED0_FD15_CA77,
            start: StartGraph::Empty,
        }
    }
}

/// Largest L accepted (by the API, and in a snapshot or segment file read back).
pub const MAX_L: usize = 100_000;
/// Largest α accepted.
pub const MAX_ALPHA: f32 = 4.0;
/// Most build passes accepted.
pub const MAX_PASSES: usize = 8;

impl VamanaParams {
    /// Checks the parameter domains: R in 1..=4096, L in 1..=[`MAX_L`], α in [1, [`MAX_ALPHA`]],
    /// passes in 1..=[`MAX_PASSES`]. The one check behind the API's options and the parameters
    /// read from snapshot and segment files, so a file cannot carry what the API refuses.
    ///
    /// # Errors
    /// [`BuildError::InvalidParams`] naming the offending parameter.
    pub fn validate(&self) -> Result<(), BuildError> {
        if self.r == 0 || self.r > 4096 {
            return Err(BuildError::InvalidParams("R must be in 1..=4096"));
        }
        if self.l == 0 || self.l > MAX_L {
            return Err(BuildError::InvalidParams("L must be in 1..=100000"));
        }
        if !(self.alpha >= 1.0 && self.alpha <= MAX_ALPHA) {
            return Err(BuildError::InvalidParams(
                "alpha must be a number in [1, 4]",
            ));
        }
        if self.passes == 0 || self.passes > MAX_PASSES {
            return Err(BuildError::InvalidParams("passes must be in 1..=8"));
        }
        Ok(())
    }

    /// α of pass `pass` (0-based): 1 for the first of several passes, else α.
    pub fn alpha_of_pass(&self, pass: usize) -> f32 {
        if self.passes >= 2 && pass == 0 {
            1.0
        } else {
            self.alpha
        }
    }
}

/// Why a build or a graph operation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// The cancellation flag was raised; checked between batches.
    Cancelled,
    /// A parameter is out of its domain (the message names it).
    InvalidParams(&'static str),
    /// More nodes than a graph holds (2³¹ − 1).
    TooManyNodes {
        /// The number of nodes asked for.
        n: usize,
    },
    /// Graph parts or a remapping break an invariant (the message says which).
    InvalidGraph(&'static str),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Cancelled => f.write_str("graph build cancelled"),
            BuildError::InvalidParams(m) => write!(f, "invalid graph parameters: {m}"),
            BuildError::TooManyNodes { n } => {
                write!(f, "{n} nodes exceed the graph limit of {MAX_NODES}")
            }
            BuildError::InvalidGraph(m) => write!(f, "invalid graph: {m}"),
        }
    }
}

impl std::error::Error for BuildError {}

/// Capacity of a build row: 2·R. (DiskANN uses 1.3·R; on MiniLM 20k × 384 at α = 1.1, 1.3·R
/// cost 4,787 distance computations per node, 1.5·R 4,404 and 2·R 4,164, at equal recall;
/// without slack, 12,839.)
pub(crate) fn slack_capacity(r: usize) -> usize {
    2 * r
}

/// Largest batch: 1 % of the graph (at least 1 point).
fn max_batch(graph_len: usize) -> usize {
    graph_len.div_ceil(100).max(1)
}

/// Per-thread working memory of the build.
#[derive(Default)]
pub(crate) struct Worker {
    pub(crate) search: SearchScratch,
    pub(crate) prune: PruneScratch,
    pub(crate) out: Vec<u32>,
}

/// Workers shared by the tasks of a parallel step (one per running task; reused).
#[derive(Default)]
pub(crate) struct WorkerPool(Mutex<Vec<Worker>>);

impl WorkerPool {
    pub(crate) fn with<T>(&self, f: impl FnOnce(&mut Worker) -> T) -> T {
        let taken = self.0.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut w = taken.unwrap_or_default();
        let t = f(&mut w);
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(w);
        t
    }
}

/// Runs `f(chunk_index, items_chunk, rows_chunk)` over matching chunks of `items` (`ci` items
/// each) and `rows` (`cr` values each), in parallel with the `parallel` feature.
pub(crate) fn zip_chunks<A, B, F>(items: &[A], ci: usize, rows: &mut [B], cr: usize, f: F)
where
    A: Sync,
    B: Send,
    F: Fn(usize, &[A], &mut [B]) + Sync + Send,
{
    debug_assert_eq!(items.len().div_ceil(ci), rows.len().div_ceil(cr));
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        items
            .par_chunks(ci)
            .zip(rows.par_chunks_mut(cr))
            .enumerate()
            .for_each(|(k, (a, b))| f(k, a, b));
    }
    #[cfg(not(feature = "parallel"))]
    {
        items
            .chunks(ci)
            .zip(rows.chunks_mut(cr))
            .enumerate()
            .for_each(|(k, (a, b))| f(k, a, b));
    }
}

/// Sorts `v` (in parallel with the `parallel` feature).
fn sort_u64(v: &mut [u64]) {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        if v.len() > 1 << 14 {
            v.par_sort_unstable();
            return;
        }
    }
    v.sort_unstable();
}

/// Items per parallel task.
const TASK: usize = 4;

/// Buffers of the batch steps, reused across batches.
#[derive(Default)]
pub(crate) struct Batcher {
    pub(crate) pool: WorkerPool,
    /// Step 1 output: one `[degree, ids…]` row of `stride` values per batch point.
    out: Vec<u32>,
    /// Reverse edges `target << 32 | source`.
    pairs: Vec<u64>,
    /// Groups of `pairs` with one target: `(start, end)`.
    groups: Vec<(u32, u32)>,
    /// Step 4 output: one row per group.
    gout: Vec<u32>,
}

/// What a batch step needs besides the graph.
pub(crate) struct Step<'a, N: ?Sized> {
    pub(crate) nodes: &'a N,
    pub(crate) occ: Occlusion,
    /// Search list size.
    pub(crate) l: usize,
}

impl Batcher {
    /// One batch step for the points `batch` (ids < graph.len(), distinct).
    pub(crate) fn step<N: NodeDistance + ?Sized>(
        &mut self,
        graph: &mut Graph,
        batch: &[u32],
        st: &Step<'_, N>,
    ) {
        let stride = graph.stride;
        let r = graph.r;
        let cap = stride - 1;

        // 1. Search + prune against the graph of the batch start.
        self.out.clear();
        self.out.resize(batch.len() * stride, 0);
        {
            let g: &Graph = graph;
            let pool = &self.pool;
            zip_chunks(batch, TASK, &mut self.out, TASK * stride, |_, pts, rows| {
                pool.with(|w| {
                    for (k, &p) in pts.iter().enumerate() {
                        let mut q = NodeQuery {
                            nodes: st.nodes,
                            node: p,
                        };
                        walk::<_, _, false, true>(g, g.entry, &mut q, st.l, &mut w.search, &|_| {
                            true
                        });
                        let cand = &mut w.prune.cand;
                        cand.clear();
                        cand.extend_from_slice(&w.search.expanded);
                        for &v in g.neighbors(p) {
                            cand.push((st.nodes.distance(p, v), v));
                        }
                        robust_prune(st.nodes, p, &mut w.prune, st.occ, r, &mut w.out);
                        let row = &mut rows[k * stride..(k + 1) * stride];
                        row[0] = w.out.len() as u32;
                        row[1..1 + w.out.len()].copy_from_slice(&w.out);
                    }
                });
            });
        }

        // 2. New out-edges; 3. reverse edges grouped by target.
        self.pairs.clear();
        for (k, &p) in batch.iter().enumerate() {
            let row = &self.out[k * stride..(k + 1) * stride];
            let nb = &row[1..1 + row[0] as usize];
            graph.set_neighbors(p, nb);
            self.pairs
                .extend(nb.iter().map(|&v| (u64::from(v) << 32) | u64::from(p)));
        }
        sort_u64(&mut self.pairs);
        self.groups.clear();
        let mut s = 0;
        while s < self.pairs.len() {
            let t = self.pairs[s] >> 32;
            let mut e = s + 1;
            while e < self.pairs.len() && self.pairs[e] >> 32 == t {
                e += 1;
            }
            self.groups.push((s as u32, e as u32));
            s = e;
        }

        // 4. Merge the reverse edges; prune the rows that overflow.
        self.gout.clear();
        self.gout.resize(self.groups.len() * stride, 0);
        {
            let g: &Graph = graph;
            let pool = &self.pool;
            let pairs = &self.pairs;
            zip_chunks(
                &self.groups,
                TASK,
                &mut self.gout,
                TASK * stride,
                |_, grs, rows| {
                    pool.with(|w| {
                        for (k, &(s, e)) in grs.iter().enumerate() {
                            let t = (pairs[s as usize] >> 32) as u32;
                            let cur = g.neighbors(t);
                            let merged = &mut w.out;
                            merged.clear();
                            merged.extend_from_slice(cur);
                            for &pr in &pairs[s as usize..e as usize] {
                                let src = pr as u32;
                                if src != t && !cur.contains(&src) {
                                    merged.push(src);
                                }
                            }
                            if merged.len() > cap {
                                let cand = &mut w.prune.cand;
                                cand.clear();
                                cand.extend(merged.iter().map(|&v| (st.nodes.distance(t, v), v)));
                                robust_prune(st.nodes, t, &mut w.prune, st.occ, r, merged);
                            }
                            let row = &mut rows[k * stride..(k + 1) * stride];
                            row[0] = merged.len() as u32;
                            row[1..1 + merged.len()].copy_from_slice(merged);
                        }
                    });
                },
            );
        }

        // 5. Write them.
        for (k, &(s, _)) in self.groups.iter().enumerate() {
            let t = (self.pairs[s as usize] >> 32) as u32;
            let row = &self.gout[k * stride..(k + 1) * stride];
            graph.set_neighbors(t, &row[1..1 + row[0] as usize]);
        }
    }

    /// Runs batch steps over `order` with prefix-doubling batch sizes, checking `cancel` before
    /// each batch and reporting `done + points so far` to `progress` about every 1 % of `total`
    /// and at the end.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run<N: NodeDistance + ?Sized>(
        &mut self,
        graph: &mut Graph,
        order: &[u32],
        st: &Step<'_, N>,
        done: usize,
        total: usize,
        progress: &dyn Fn(usize, usize),
        cancel: &AtomicBool,
    ) -> Result<(), BuildError> {
        let cap = max_batch(graph.len());
        let tick = total.div_ceil(100).max(1);
        if order.is_empty() {
            progress(done, total);
            return Ok(());
        }
        let mut size = 1usize;
        let mut at = 0usize;
        while at < order.len() {
            if cancel.load(Ordering::Relaxed) {
                return Err(BuildError::Cancelled);
            }
            let end = (at + size).min(order.len());
            self.step(graph, &order[at..end], st);
            let before = (done + at) / tick;
            at = end;
            if (done + at) / tick != before || at == order.len() {
                progress(done + at, total);
            }
            size = (size * 2).min(cap);
        }
        Ok(())
    }
}

/// Prunes every row above R back to R (α of `occ`), in place, in parallel.
pub(crate) fn prune_overfull<N: NodeDistance + ?Sized>(
    graph: &mut Graph,
    nodes: &N,
    occ: Occlusion,
    pool: &WorkerPool,
) {
    let stride = graph.stride;
    let r = graph.r;
    let n = graph.len();
    let ids: Vec<u32> = (0..n as u32).collect();
    zip_chunks(&ids, 64, &mut graph.adj[..], 64 * stride, |_, pts, rows| {
        pool.with(|w| {
            for (k, &p) in pts.iter().enumerate() {
                let row = &mut rows[k * stride..(k + 1) * stride];
                let d = row[0] as usize;
                if d <= r {
                    continue;
                }
                let cand = &mut w.prune.cand;
                cand.clear();
                cand.extend(row[1..1 + d].iter().map(|&v| (nodes.distance(p, v), v)));
                robust_prune(nodes, p, &mut w.prune, occ, r, &mut w.out);
                row[0] = w.out.len() as u32;
                row[1..1 + w.out.len()].copy_from_slice(&w.out);
            }
        });
    });
}

impl Graph {
    /// Builds the Vamana graph of `nodes` (ids `0..nodes.len()`): see [`Graph::build_with`].
    ///
    /// # Errors
    /// [`BuildError::InvalidParams`], [`BuildError::TooManyNodes`].
    pub fn build<N: NodeDistance + ?Sized>(
        nodes: &N,
        params: &VamanaParams,
    ) -> Result<Graph, BuildError> {
        Graph::build_with(nodes, params, &|_, _| {}, &AtomicBool::new(false))
    }

    /// Builds the Vamana graph of `nodes` (ids `0..nodes.len()`), reporting progress and
    /// honouring a cancellation flag.
    ///
    /// Steps: the entry point is [`NodeDistance::medoid`] (or a sampled approximate medoid); the
    /// start graph is empty or random ([`StartGraph`]); then `params.passes` passes over a seeded
    /// random permutation of the nodes in batches (see the module documentation), the first with
    /// α = 1 when there are several; finally rows above R are pruned. Runs on the current rayon pool with the `parallel` feature (use
    /// `ThreadPool::install` to choose the threads); the result depends only on `nodes` and
    /// `params`, never on the number of threads.
    ///
    /// `progress(done, total)` is called from the calling thread only (so it need not be `Sync`),
    /// about every 1 % (`total = passes × n`; the first call has `done == 0`, the last
    /// `done == total`); `cancel` is checked between batches.
    ///
    /// # Errors
    /// [`BuildError::Cancelled`] if `cancel` was set; [`BuildError::InvalidParams`];
    /// [`BuildError::TooManyNodes`] above 2³¹ − 1 nodes.
    pub fn build_with<N: NodeDistance + ?Sized>(
        nodes: &N,
        params: &VamanaParams,
        progress: &dyn Fn(usize, usize),
        cancel: &AtomicBool,
    ) -> Result<Graph, BuildError> {
        params.validate()?;
        let n = nodes.len();
        if n > MAX_NODES {
            return Err(BuildError::TooManyNodes { n });
        }
        let r = params.r;
        let mut graph = Graph::with_capacity(r, slack_capacity(r));
        graph.grow(n);
        if n == 0 {
            graph.set_capacity(r);
            return Ok(graph);
        }
        let empty_start = params.start == StartGraph::Empty;
        if !empty_start {
            random_start(&mut graph, params.seed);
        }
        graph.entry = match nodes.medoid() {
            Some(m) if (m as usize) < n => m,
            _ => medoid::approximate(nodes, params.seed),
        };

        let total = params.passes * n;
        progress(0, total);
        let rule = nodes.alpha_rule();
        let mut batcher = Batcher::default();
        for pass in 0..params.passes {
            let mut order = SplitMix64::stream(params.seed, 1 + pass as u64).permutation(n);
            if empty_start && pass == 0 {
                // The entry point is the first node of the graph; everyone else is inserted.
                order.retain(|&x| x != graph.entry);
            }
            let st = Step {
                nodes,
                occ: Occlusion::new(rule, params.alpha_of_pass(pass)),
                l: params.l.max(r),
            };
            // (With an empty start the entry point counts as done in the first pass.)
            let done = pass * n + (n - order.len());
            batcher.run(&mut graph, &order, &st, done, total, progress, cancel)?;
        }
        if cancel.load(Ordering::Relaxed) {
            return Err(BuildError::Cancelled);
        }
        let occ = Occlusion::new(rule, params.alpha_of_pass(params.passes - 1));
        prune_overfull(&mut graph, nodes, occ, &batcher.pool);
        graph.set_capacity(r);
        Ok(graph)
    }
}

/// Gives every node min(R, n − 1) distinct random neighbours (not itself), from per-node streams
/// of `seed`.
fn random_start(graph: &mut Graph, seed: u64) {
    let n = graph.len();
    let stride = graph.stride;
    let deg = graph.r.min(n - 1);
    let ids: Vec<u32> = (0..n as u32).collect();
    zip_chunks(
        &ids,
        256,
        &mut graph.adj[..],
        256 * stride,
        |_, pts, rows| {
            for (k, &p) in pts.iter().enumerate() {
                let row = &mut rows[k * stride..(k + 1) * stride];
                if deg == n - 1 {
                    let mut d = 0;
                    for v in (0..n as u32).filter(|&v| v != p) {
                        row[1 + d] = v;
                        d += 1;
                    }
                    row[0] = d as u32;
                    continue;
                }
                let mut rng = SplitMix64::stream(seed, u64::from(p) | (1 << 40));
                let mut d = 0;
                while d < deg {
                    let v = rng.below(n as u64) as u32;
                    if v != p && !row[1..1 + d].contains(&v) {
                        row[1 + d] = v;
                        d += 1;
                    }
                }
                row[0] = d as u32;
            }
        },
    );
}
