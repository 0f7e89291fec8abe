//! Changes after the build: inserts (DiskANN/FreshDiskANN "Insert") and delete consolidation
//! (FreshDiskANN, Singh et al., arXiv 2105.09613, Algorithm 4).

use std::sync::atomic::AtomicBool;

use super::batch::{prune_overfull, slack_capacity, zip_chunks, Batcher, Step, WorkerPool};
use super::prune::{robust_prune, Occlusion};
use super::search::walk;
use super::{BuildError, Graph, NodeDistance, NodeQuery, VamanaParams, MAX_NODES};

/// Inserts per call from which rows temporarily get the build's slack (2·R).
const SLACK_MIN_BATCH: usize = 64;

impl Graph {
    /// Inserts node `node` (its vector already readable through `nodes`): greedy search from the
    /// entry point with list size L, N(node) ← RobustPrune(node, V, α, R), then reverse edges,
    /// re-pruning any neighbour that would exceed R.
    ///
    /// `node` is either `len()` (the graph grows by one) or an existing node without edges (a
    /// slot freed by [`Graph::consolidate`], to reuse). Nodes still marked deleted but not yet
    /// consolidated may be linked to; the next consolidation repairs that. An insert into an
    /// empty graph makes the node the entry point.
    ///
    /// # Errors
    /// [`BuildError::InvalidParams`] if the parameters are invalid, `node > len()`, `node` is not
    /// readable through `nodes`, or an existing `node` has edges.
    pub fn insert<N: NodeDistance + ?Sized>(
        &mut self,
        node: u32,
        nodes: &N,
        params: &VamanaParams,
    ) -> Result<(), BuildError> {
        self.insert_batch(&[node], nodes, params, &|_, _| {}, &AtomicBool::new(false))
    }

    /// Inserts the nodes `ids` (distinct; each is `≥ len()` or an existing node without edges;
    /// the graph grows to `max(ids) + 1` nodes, and grown nodes not in `ids` stay without edges)
    /// in the deterministic batches of the build (see [`Graph::build_with`]), in the given order,
    /// in parallel with the `parallel` feature. α is `params.alpha`; `params.r` is ignored (the
    /// graph keeps its R). `progress(done, ids.len())` is called about every 1 %, `cancel` is
    /// checked between batches (nodes inserted so far stay inserted).
    ///
    /// # Errors
    /// [`BuildError::Cancelled`]; [`BuildError::InvalidParams`] as for [`Graph::insert`] or if an
    /// id repeats; [`BuildError::TooManyNodes`].
    pub fn insert_batch<N: NodeDistance + ?Sized>(
        &mut self,
        ids: &[u32],
        nodes: &N,
        params: &VamanaParams,
        progress: &dyn Fn(usize, usize),
        cancel: &AtomicBool,
    ) -> Result<(), BuildError> {
        params.validate()?;
        if ids.is_empty() {
            return Ok(());
        }
        let max = *ids.iter().max().unwrap_or(&0) as usize;
        if max >= MAX_NODES {
            return Err(BuildError::TooManyNodes { n: max + 1 });
        }
        if max >= nodes.len() {
            return Err(BuildError::InvalidParams(
                "inserted node is not readable through `nodes`",
            ));
        }
        let n_old = self.len();
        let mut seen = vec![false; max + 1];
        for &id in ids {
            if seen[id as usize] {
                return Err(BuildError::InvalidParams("an inserted id repeats"));
            }
            seen[id as usize] = true;
            if (id as usize) < n_old && self.degree(id) != 0 {
                return Err(BuildError::InvalidParams("inserted node already has edges"));
            }
        }
        drop(seen);
        let was_empty = self.is_empty();
        self.grow(max + 1);
        let mut rest = ids;
        if was_empty {
            // The first node becomes the entry point; it has nobody to link to yet.
            self.entry = ids[0];
            rest = &ids[1..];
        }
        let st = Step {
            nodes,
            occ: Occlusion::new(nodes.alpha_rule(), params.alpha),
            l: params.l.max(self.r),
        };
        progress(0, ids.len());
        let mut batcher = Batcher::default();
        // Many inserts: give rows the build's slack, so that reverse edges are pruned in bulk.
        let slack = rest.len() >= SLACK_MIN_BATCH;
        if slack {
            self.set_capacity(slack_capacity(self.r));
        }
        let res = batcher.run(
            self,
            rest,
            &st,
            ids.len() - rest.len(),
            ids.len(),
            progress,
            cancel,
        );
        if slack {
            prune_overfull(self, nodes, st.occ, &batcher.pool);
            self.set_capacity(self.r);
        }
        res
    }

    /// FreshDiskANN consolidation of deleted nodes (`deleted(id)` true), reading vectors of live
    /// *and* deleted nodes through `nodes`.
    ///
    /// For every live node p with a deleted out-neighbour: C = its live out-neighbours ∪ the live
    /// out-neighbours of its deleted out-neighbours (minus p); if |C| ≤ R, N(p) ← C, else
    /// N(p) ← RobustPrune(p, C, α, R) with `params.alpha`. Then every deleted node loses its
    /// out-edges, so no edge touches a deleted node any more. If the entry point is deleted, the
    /// closest live node to it found by a search (list size L) becomes the entry point (if no
    /// node is live, the entry point stays). Deleted slots can then be reused by
    /// [`Graph::insert`] or removed with [`Graph::compact`].
    ///
    /// Parallel with the `parallel` feature; deterministic. Returns the number of live nodes
    /// whose neighbour list changed.
    ///
    /// # Errors
    /// [`BuildError::InvalidParams`] if the parameters are invalid or `nodes.len() < len()`.
    pub fn consolidate<N, D>(
        &mut self,
        deleted: &D,
        nodes: &N,
        params: &VamanaParams,
    ) -> Result<usize, BuildError>
    where
        N: NodeDistance + ?Sized,
        D: Fn(u32) -> bool + Sync,
    {
        params.validate()?;
        let n = self.len();
        if nodes.len() < n {
            return Err(BuildError::InvalidParams(
                "`nodes` has fewer nodes than the graph",
            ));
        }
        if n == 0 {
            return Ok(0);
        }
        let pool = WorkerPool::default();

        // A live entry point, found while the deleted nodes still route.
        if deleted(self.entry) {
            let mut q = NodeQuery {
                nodes,
                node: self.entry,
            };
            let live = |v: u32| !deleted(v);
            let best = pool.with(|w| {
                walk::<_, _, true, false>(
                    self,
                    self.entry,
                    &mut q,
                    params.l.max(1),
                    &mut w.search,
                    &live,
                );
                w.search.results.first().map(|c| c.1)
            });
            if let Some(e) = best.or_else(|| (0..n as u32).find(|&v| !deleted(v))) {
                self.entry = e;
            }
        }

        // New rows of affected live nodes, block by block. Only rows of live nodes change and
        // only rows of deleted nodes (unchanged until the end) and of the node itself are read,
        // so processing blocks in sequence equals reading the original graph.
        let occ = Occlusion::new(nodes.alpha_rule(), params.alpha);
        let stride = self.stride;
        let r = self.r;
        let mut changed = 0;
        const BLOCK: usize = 8192;
        let mut out = vec![0u32; BLOCK * stride];
        for b0 in (0..n).step_by(BLOCK) {
            let b1 = (b0 + BLOCK).min(n);
            let ids: Vec<u32> = (b0 as u32..b1 as u32).collect();
            let out = &mut out[..(b1 - b0) * stride];
            {
                let g: &Graph = self;
                let pool = &pool;
                zip_chunks(&ids, 64, out, 64 * stride, |_, pts, rows| {
                    pool.with(|w| {
                        for (k, &p) in pts.iter().enumerate() {
                            let row = &mut rows[k * stride..(k + 1) * stride];
                            row[0] = u32::MAX; // unchanged
                            if deleted(p) {
                                continue;
                            }
                            let nb = g.neighbors(p);
                            if !nb.iter().any(|&v| deleted(v)) {
                                continue;
                            }
                            let c = &mut w.out;
                            c.clear();
                            for &v in nb {
                                if !deleted(v) {
                                    c.push(v);
                                } else {
                                    c.extend(
                                        g.neighbors(v).iter().filter(|&&x| x != p && !deleted(x)),
                                    );
                                }
                            }
                            c.sort_unstable();
                            c.dedup();
                            if c.len() > r {
                                let cand = &mut w.prune.cand;
                                cand.clear();
                                cand.extend(c.iter().map(|&v| (nodes.distance(p, v), v)));
                                robust_prune(nodes, p, &mut w.prune, occ, r, c);
                            }
                            row[0] = c.len() as u32;
                            row[1..1 + c.len()].copy_from_slice(c);
                        }
                    });
                });
            }
            for k in 0..b1 - b0 {
                let row = &out[k * stride..(k + 1) * stride];
                if row[0] != u32::MAX {
                    self.set_neighbors((b0 + k) as u32, &row[1..1 + row[0] as usize]);
                    changed += 1;
                }
            }
        }
        for p in 0..n as u32 {
            if deleted(p) {
                self.set_neighbors(p, &[]);
            }
        }
        Ok(changed)
    }
}
