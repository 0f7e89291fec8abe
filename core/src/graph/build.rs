//! The Vamana build (DiskANN paper, Algorithm 3): entry point, start graph, then passes of
//! ParlayANN's deterministic batch steps (`batch.rs`) over a seeded permutation, and a final prune
//! of the rows above R. The graph depends on the seed only, not on the number of threads (nor on
//! the `parallel` feature).

use std::sync::atomic::{AtomicBool, Ordering};

use super::batch::{prune_overfull, slack_capacity, zip_chunks, Batcher, Step};
use super::prune::Occlusion;
use super::{medoid, BuildError, Graph, NodeDistance, StartGraph, VamanaParams, MAX_NODES};
use crate::rng::SplitMix64;

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
