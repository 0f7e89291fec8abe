//! Graph tests: recall against brute force on seeded data, invariants, determinism, updates.
//! Every data-dependent assertion prints its seed. This file holds the seeded data and the
//! recall helpers; `build.rs` tests builds and searches, `update.rs` pruning, inserts, deletes
//! and compaction.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::prune::{robust_prune, Occlusion, PruneScratch};
use super::*;
use crate::types::Metric;

mod build;
mod update;

/// `n × dim` points shaped like real embeddings (the design's synthetic sets, smaller): a seeded
/// mixture of 40 Gaussian clusters in a 12-d latent space, mapped to `dim` dimensions by a fixed
/// random linear map, plus isotropic noise. The same `seed` gives the same clusters and map;
/// `stream` selects the points drawn from them (0: base, 1: queries).
fn clustered(n: usize, dim: usize, seed: u64) -> Vec<f32> {
    clustered_stream(n, dim, seed, 0)
}

fn clustered_stream(n: usize, dim: usize, seed: u64, stream: u64) -> Vec<f32> {
    const LATENT: usize = 16;
    const CLUSTERS: usize = 10;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let centres: Vec<f32> = (0..CLUSTERS * LATENT).map(|_| gauss(&mut rng)).collect();
    let map: Vec<f32> = (0..LATENT * dim)
        .map(|_| gauss(&mut rng) / (LATENT as f32).sqrt())
        .collect();
    let mut rng =
        ChaCha8Rng::seed_from_u64(seed ^ (stream + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut v = Vec::with_capacity(n * dim);
    let mut z = [0f32; LATENT];
    for _ in 0..n {
        let c = rng.random_range(0..CLUSTERS);
        for (l, zl) in z.iter_mut().enumerate() {
            *zl = centres[c * LATENT + l] + 0.8 * gauss(&mut rng);
        }
        for j in 0..dim {
            let x: f32 = (0..LATENT).map(|l| z[l] * map[l * dim + j]).sum();
            v.push(x + 0.4 * gauss(&mut rng));
        }
    }
    v
}

/// Queries from the distribution of `clustered(_, dim, seed)` (other points than the base).
fn queries_for(n: usize, dim: usize, seed: u64) -> Vec<f32> {
    clustered_stream(n, dim, seed, 1)
}

fn gauss(rng: &mut ChaCha8Rng) -> f32 {
    // Box–Muller.
    let u1: f64 = rng.random_range(1e-12..1.0);
    let u2: f64 = rng.random();
    ((-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()) as f32
}

fn normalize(v: &mut [f32], dim: usize) {
    for r in v.chunks_exact_mut(dim) {
        let n = r.iter().map(|x| x * x).sum::<f32>().sqrt();
        r.iter_mut().for_each(|x| *x /= n);
    }
}

/// Exact top-k ids of `q` among the rows accepted by `keep`.
fn brute_force(nodes: &FlatNodes<'_>, q: &[f32], k: usize, keep: impl Fn(u32) -> bool) -> Vec<u32> {
    let mut fq = FlatQuery::new(*nodes, q);
    let mut all: Vec<(f32, u32)> = (0..nodes.len() as u32)
        .filter(|&i| keep(i))
        .map(|i| (fq.distance(i), i))
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    all.truncate(k);
    all.into_iter().map(|c| c.1).collect()
}

/// Mean recall@k of the graph at list size `ef` over `queries`, counting only `keep` rows.
fn recall(
    graph: &Graph,
    nodes: &FlatNodes<'_>,
    queries: &[f32],
    k: usize,
    ef: usize,
    keep: impl Fn(u32) -> bool + Copy,
) -> f64 {
    let mut scratch = SearchScratch::new();
    let mut hit = 0usize;
    let nq = queries.len() / nodes.dim;
    for q in queries.chunks_exact(nodes.dim) {
        let truth = brute_force(nodes, q, k, keep);
        let mut fq = FlatQuery::new(*nodes, q);
        let got = search(graph, &mut fq, ef, &mut scratch, keep);
        hit += got.iter().take(k).filter(|c| truth.contains(&c.1)).count();
    }
    hit as f64 / (nq * k) as f64
}

fn params(seed: u64) -> VamanaParams {
    VamanaParams {
        seed,
        ..VamanaParams::default()
    }
}
