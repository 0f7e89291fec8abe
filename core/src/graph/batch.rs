//! The batch step of the Vamana build (DiskANN paper, Algorithm 3) with ParlayANN's
//! deterministic batches, shared by the build passes (`build.rs`) and by
//! [`Graph::insert_batch`] (`update.rs`).
//!
//! One *batch* step:
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

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use super::prune::{robust_prune, Occlusion, PruneScratch};
use super::scratch::SearchScratch;
use super::search::walk;
use super::{BuildError, Graph, NodeDistance, NodeQuery};

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
    /// Runs `f` with a worker taken from the pool (a fresh one if none is free), then returns it.
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
