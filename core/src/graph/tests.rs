//! Graph tests: recall against brute force on seeded data, invariants, determinism, updates.
//! Every data-dependent assertion prints its seed.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::prune::{robust_prune, Occlusion, PruneScratch};
use super::*;
use crate::types::Metric;

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

#[test]
fn recall_l2_and_cosine() {
    for (metric, seed, start) in [
        (Metric::L2, 11u64, StartGraph::Random),
        (Metric::Cosine, 12, StartGraph::Random),
        (Metric::L2, 13, StartGraph::Empty),
    ] {
        let dim = 32;
        let data = clustered(5_000, dim, seed);
        let queries = queries_for(200, dim, seed);
        let inv = inverse_norms(&data, dim);
        let mut nodes = FlatNodes::new(&data, dim, metric);
        if metric == Metric::Cosine {
            nodes = nodes.with_inv_norms(&inv);
        }
        let g = Graph::build(
            &nodes,
            &VamanaParams {
                start,
                ..params(seed)
            },
        )
        .unwrap();
        g.validate().unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let r = recall(&g, &nodes, &queries, 10, 64, |_| true);
        println!("{metric} {start:?}: recall@10 at ef 64 = {r:.4}");
        assert!(
            r >= 0.95,
            "seed {seed} {metric} {start:?}: recall@10 {r:.4} < 0.95"
        );
    }
}

/// Harder data: 40 overlapping isotropic Gaussian clusters in 32 dimensions (intrinsic dimension
/// 32, unlike real embeddings).
#[test]
fn recall_on_isotropic_clusters() {
    let (dim, seed) = (32, 17u64);
    let gen = |n: usize, s: u64| {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let centres: Vec<f32> = (0..40 * dim).map(|_| gauss(&mut rng)).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(s);
        let mut v = Vec::with_capacity(n * dim);
        for _ in 0..n {
            let c = rng.random_range(0..40);
            v.extend((0..dim).map(|j| centres[c * dim + j] + 1.0 * gauss(&mut rng)));
        }
        v
    };
    let data = gen(5_000, seed + 1);
    let queries = gen(200, seed + 2);
    let nodes = FlatNodes::new(&data, dim, Metric::L2);
    let g = Graph::build(&nodes, &params(seed)).unwrap();
    let r = recall(&g, &nodes, &queries, 10, 64, |_| true);
    println!("isotropic: recall@10 at ef 64 = {r:.4}");
    assert!(r >= 0.95, "seed {seed}: recall@10 {r:.4} < 0.95");
}

#[test]
fn recall_inner_product_and_l1() {
    let dim = 24;
    let seed = 21;
    let mut data = clustered(3_000, dim, seed);
    let mut queries = queries_for(100, dim, seed);
    normalize(&mut data, dim);
    normalize(&mut queries, dim);
    for metric in [Metric::InnerProduct, Metric::L1] {
        let nodes = FlatNodes::new(&data, dim, metric);
        let g = Graph::build(&nodes, &params(seed)).unwrap();
        g.validate().unwrap();
        let r = recall(&g, &nodes, &queries, 10, 64, |_| true);
        println!("{metric}: recall@10 at ef 64 = {r:.4}");
        assert!(r >= 0.95, "seed {seed} {metric}: recall@10 {r:.4} < 0.95");
    }
}

#[test]
fn invariants_hold_for_small_and_degenerate_inputs() {
    for n in [0usize, 1, 2, 3, 10, 33, 40, 200] {
        let seed = 31 + n as u64;
        let data = clustered(n, 8, seed);
        let nodes = FlatNodes::new(&data, 8, Metric::L2);
        let g = Graph::build(&nodes, &params(seed)).unwrap();
        assert_eq!(g.len(), n);
        g.validate()
            .unwrap_or_else(|e| panic!("n {n} seed {seed}: {e}"));
        if n > 0 {
            // Every node is found by searching for itself with a wide list.
            let mut s = SearchScratch::new();
            for i in 0..n as u32 {
                let mut q = NodeQuery {
                    nodes: &nodes,
                    node: i,
                };
                let res = search_unfiltered(&g, &mut q, n.min(64), &mut s);
                assert!(
                    res.iter().any(|c| c.1 == i),
                    "n {n} seed {seed}: node {i} not found"
                );
            }
        }
    }
    // All points identical: distances are all 0.
    let data = vec![1.0f32; 100 * 4];
    let nodes = FlatNodes::new(&data, 4, Metric::L2);
    let g = Graph::build(&nodes, &params(1)).unwrap();
    g.validate().unwrap();
}

#[test]
fn invalid_params_are_rejected() {
    let data = clustered(10, 4, 1);
    let nodes = FlatNodes::new(&data, 4, Metric::L2);
    for p in [
        VamanaParams { r: 0, ..params(1) },
        VamanaParams { l: 0, ..params(1) },
        VamanaParams {
            alpha: 0.9,
            ..params(1)
        },
        VamanaParams {
            alpha: f32::NAN,
            ..params(1)
        },
        VamanaParams {
            passes: 0,
            ..params(1)
        },
    ] {
        assert!(
            matches!(Graph::build(&nodes, &p), Err(BuildError::InvalidParams(_))),
            "{p:?}"
        );
    }
}

#[test]
fn build_is_deterministic() {
    let seed = 41;
    let data = clustered(2_000, 16, seed);
    let nodes = FlatNodes::new(&data, 16, Metric::L2);
    let a = Graph::build(&nodes, &params(seed)).unwrap();
    let b = Graph::build(&nodes, &params(seed)).unwrap();
    assert!(a == b, "seed {seed}: two builds differ");
    let c = Graph::build(&nodes, &params(seed + 1)).unwrap();
    assert!(a != c, "seed {seed}: another seed gave the same graph");
    #[cfg(feature = "parallel")]
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let t = pool.install(|| Graph::build(&nodes, &params(seed)).unwrap());
        assert!(a == t, "seed {seed}: build with {threads} threads differs");
    }
    // The empty start too.
    let e = VamanaParams {
        start: StartGraph::Empty,
        passes: 1,
        ..params(seed)
    };
    let a = Graph::build(&nodes, &e).unwrap();
    #[cfg(feature = "parallel")]
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let t = pool.install(|| Graph::build(&nodes, &e).unwrap());
        assert!(
            a == t,
            "seed {seed}: empty-start build with {threads} threads differs"
        );
    }
}

#[test]
fn progress_and_cancellation() {
    let data = clustered(2_000, 8, 51);
    let nodes = FlatNodes::new(&data, 8, Metric::L2);
    let calls = std::sync::Mutex::new(Vec::new());
    let p = VamanaParams {
        passes: 2,
        ..params(51)
    };
    Graph::build_with(
        &nodes,
        &p,
        &|d, t| calls.lock().unwrap().push((d, t)),
        &AtomicBool::new(false),
    )
    .unwrap();
    let calls = calls.into_inner().unwrap();
    assert_eq!(calls.first(), Some(&(0, 4_000)));
    assert_eq!(calls.last(), Some(&(4_000, 4_000)));
    let last = std::sync::Mutex::new((0, 0));
    let e = VamanaParams {
        start: StartGraph::Empty,
        passes: 1,
        ..params(51)
    };
    Graph::build_with(
        &nodes,
        &e,
        &|d, t| *last.lock().unwrap() = (d, t),
        &AtomicBool::new(false),
    )
    .unwrap();
    assert_eq!(*last.lock().unwrap(), (2_000, 2_000));
    let one = FlatNodes::new(&data[..8], 8, Metric::L2);
    Graph::build_with(
        &one,
        &e,
        &|d, t| *last.lock().unwrap() = (d, t),
        &AtomicBool::new(false),
    )
    .unwrap();
    assert_eq!(*last.lock().unwrap(), (1, 1));
    let mut g = Graph::empty(8);
    g.insert_batch(
        &[0],
        &one,
        &e,
        &|d, t| *last.lock().unwrap() = (d, t),
        &AtomicBool::new(false),
    )
    .unwrap();
    assert_eq!(*last.lock().unwrap(), (1, 1));
    assert!(calls.windows(2).all(|w| w[0].0 <= w[1].0));
    assert!(
        calls.len() >= 50 && calls.len() <= 102,
        "{} progress calls",
        calls.len()
    );

    let cancel = AtomicBool::new(false);
    let seen = AtomicUsize::new(0);
    let r = Graph::build_with(
        &nodes,
        &p,
        &|d, _| {
            seen.store(d, Ordering::Relaxed);
            if d > 1_000 {
                cancel.store(true, Ordering::Relaxed);
            }
        },
        &cancel,
    );
    assert_eq!(r, Err(BuildError::Cancelled));
    assert!(seen.load(Ordering::Relaxed) < 1_200);
}

#[test]
fn filter_is_never_violated() {
    let seed = 61;
    let dim = 16;
    let data = clustered(3_000, dim, seed);
    let queries = queries_for(50, dim, seed);
    let nodes = FlatNodes::new(&data, dim, Metric::L2);
    let g = Graph::build(&nodes, &params(seed)).unwrap();
    let mut s = SearchScratch::new();
    for (i, q) in queries.chunks_exact(dim).enumerate() {
        let mut fq = FlatQuery::new(nodes, q);
        let res = search(&g, &mut fq, 40, &mut s, |v| v % 3 != 0);
        assert_eq!(res.len(), 40, "seed {seed} query {i}");
        assert!(
            res.iter().all(|c| c.1 % 3 != 0),
            "seed {seed} query {i}: filtered node returned"
        );
        assert!(
            res.windows(2).all(|w| w[0].0 <= w[1].0),
            "seed {seed} query {i}: not sorted"
        );
        assert_eq!(s.stats().distances, fq.count);
    }
    // With the filter, recall among accepted nodes stays high.
    let r = recall(&g, &nodes, &queries, 10, 64, |v| v % 3 != 0);
    assert!(r >= 0.95, "seed {seed}: filtered recall {r:.4}");
    // A filter that rejects everything returns nothing.
    let mut fq = FlatQuery::new(nodes, &queries[..dim]);
    assert!(search(&g, &mut fq, 10, &mut s, |_| false).is_empty());
}

#[test]
fn search_scratch_survives_epoch_wraparound() {
    let data = clustered(500, 8, 71);
    let nodes = FlatNodes::new(&data, 8, Metric::L2);
    let g = Graph::build(&nodes, &params(71)).unwrap();
    let mut s = SearchScratch::new();
    let mut q = NodeQuery {
        nodes: &nodes,
        node: 5,
    };
    let want: Vec<(f32, u32)> = search_unfiltered(&g, &mut q, 20, &mut s).to_vec();
    for _ in 0..3 {
        s.epoch_for_tests(u32::MAX - 1);
        for _ in 0..4 {
            assert_eq!(search_unfiltered(&g, &mut q, 20, &mut s), &want[..]);
        }
    }
    // ef = 0 behaves as 1; the empty graph gives nothing.
    assert_eq!(search_unfiltered(&g, &mut q, 0, &mut s).len(), 1);
    assert!(search_unfiltered(&Graph::empty(8), &mut q, 10, &mut s).is_empty());
}

#[test]
fn robust_prune_applies_alpha_on_euclidean_distance() {
    // Points on a line: p = 0, c = 1, v = 2.1. d(p,v) = 2.1, d(c,v) = 1.1.
    // Paper rule α·d(c,v) ≤ d(p,v): α = 1.2 → 1.32 ≤ 2.1, dropped; α = 2 → 2.2 > 2.1, kept.
    let data = [0.0f32, 1.0, 2.1];
    for (metric, alpha, kept) in [
        (Metric::L2, 1.2, false),
        (Metric::L2, 2.0, true),
        (Metric::L1, 1.2, false),
        (Metric::L1, 2.0, true),
        // Squared distances with α instead of α² would drop v at α = 1.9 (1.9·1.21 ≤ 4.41):
        (Metric::L2, 1.9, false),
    ] {
        let nodes = FlatNodes::new(&data, 1, metric);
        let mut s = PruneScratch::default();
        s.cand = vec![
            (nodes.distance(0, 1), 1),
            (nodes.distance(0, 2), 2),
            (0.0, 0),
        ];
        let mut out = Vec::new();
        robust_prune(
            &nodes,
            0,
            &mut s,
            Occlusion::new(nodes.alpha_rule(), alpha),
            8,
            &mut out,
        );
        assert_eq!(out.contains(&2), kept, "{metric} α={alpha}: {out:?}");
        assert_eq!(out[0], 1);
    }
    // Boundary: with α² on squared L2, α = 2.1/1.1 + ε keeps v, α = 2.1/1.1 − ε drops it.
    let nodes = FlatNodes::new(&data, 1, Metric::L2);
    for (alpha, kept) in [(1.92f32, true), (1.90, false)] {
        let mut s = PruneScratch::default();
        s.cand = vec![(nodes.distance(0, 1), 1), (nodes.distance(0, 2), 2)];
        let mut out = Vec::new();
        robust_prune(
            &nodes,
            0,
            &mut s,
            Occlusion::new(AlphaRule::Squared, alpha),
            8,
            &mut out,
        );
        assert_eq!(out.contains(&2), kept, "α={alpha}: {out:?}");
    }
    // R caps the output; duplicates and p are removed.
    let data: Vec<f32> = (0..10).map(|i| (i * i) as f32).collect();
    let nodes = FlatNodes::new(&data, 1, Metric::L2);
    let mut s = PruneScratch::default();
    s.cand = (0..10)
        .chain(3..6)
        .map(|i| (nodes.distance(0, i), i))
        .collect();
    let mut out = Vec::new();
    robust_prune(
        &nodes,
        0,
        &mut s,
        Occlusion::new(AlphaRule::Squared, 100.0),
        4,
        &mut out,
    );
    assert_eq!(out, vec![1, 2, 3, 4]);
}

#[test]
fn inserts_after_build_keep_recall() {
    let seed = 81;
    let dim = 32;
    let data = clustered(5_000, dim, seed);
    let queries = queries_for(200, dim, seed);
    let all = FlatNodes::new(&data, dim, Metric::L2);
    let p = params(seed);
    // Build on the first 4,000, insert 500 one at a time and 500 in one batch.
    let first = FlatNodes::new(&data[..4_000 * dim], dim, Metric::L2);
    let mut g = Graph::build(&first, &p).unwrap();
    for i in 4_000..4_500u32 {
        g.insert(i, &all, &p).unwrap();
    }
    let ids: Vec<u32> = (4_500..5_000).collect();
    g.insert_batch(&ids, &all, &p, &|_, _| {}, &AtomicBool::new(false))
        .unwrap();
    assert_eq!(g.len(), 5_000);
    g.validate().unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    let r = recall(&g, &all, &queries, 10, 64, |_| true);
    let fresh = Graph::build(&all, &p).unwrap();
    let rf = recall(&fresh, &all, &queries, 10, 64, |_| true);
    println!("after inserts {r:.4}, fresh build {rf:.4}");
    assert!(
        r >= 0.95 && r >= rf - 0.01,
        "seed {seed}: recall {r:.4} (fresh {rf:.4})"
    );
    // Errors: a node with edges, a repeated id, a node beyond `nodes`.
    assert!(g.insert(3, &all, &p).is_err());
    assert!(g
        .insert_batch(
            &[5_000, 5_000],
            &all,
            &p,
            &|_, _| {},
            &AtomicBool::new(false)
        )
        .is_err());
    assert!(g.insert(5_000, &all, &p).is_err());
    // Inserting into an empty graph.
    let mut e = Graph::empty(p.r);
    for i in 0..300u32 {
        e.insert(i, &all, &p).unwrap();
    }
    e.validate().unwrap();
    assert_eq!(e.entry_point(), 0);
}

/// Delete 10 %, consolidate, insert 10 % new points; 10 rounds, alternating slot reuse and
/// compaction. Recall must stay within 1 point of a fresh build on the final data.
#[test]
fn churn_keeps_recall() {
    let seed = 91u64;
    let dim = 32;
    let n = 3_000;
    let p = params(seed);
    let queries = queries_for(200, dim, seed);
    let pool = clustered(n * 3, dim, seed); // rows to draw from; row i of the store = pool row
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut store: Vec<f32> = pool[..n * dim].to_vec();
    let mut next = n; // next unused pool row
    let mut g = Graph::build(&FlatNodes::new(&store, dim, Metric::L2), &p).unwrap();
    let mut dead = vec![false; n];
    for round in 0..10 {
        let len = g.len();
        // Delete 10 % of the live nodes.
        let live: Vec<u32> = (0..len as u32).filter(|&i| !dead[i as usize]).collect();
        let k = live.len() / 10;
        let mut victims = live.clone();
        for i in 0..k {
            let j = rng.random_range(i..victims.len());
            victims.swap(i, j);
        }
        for &v in &victims[..k] {
            dead[v as usize] = true;
        }
        let nodes = FlatNodes::new(&store, dim, Metric::L2);
        g.consolidate(&|v| dead[v as usize], &nodes, &p).unwrap();
        g.validate()
            .unwrap_or_else(|e| panic!("seed {seed} round {round}: {e}"));
        assert!(
            !dead[g.entry_point() as usize],
            "seed {seed} round {round}: dead entry point"
        );
        for v in 0..len as u32 {
            if dead[v as usize] {
                assert_eq!(g.degree(v), 0);
            } else {
                assert!(
                    g.neighbors(v).iter().all(|&x| !dead[x as usize]),
                    "edge to a dead node"
                );
            }
        }
        // Re-insert as many new points: even rounds reuse the freed slots, odd rounds compact.
        let freed: Vec<u32> = (0..len as u32).filter(|&i| dead[i as usize]).collect();
        let ids: Vec<u32> = if round % 2 == 0 {
            for &slot in &freed {
                let s = slot as usize * dim;
                store[s..s + dim].copy_from_slice(&pool[next * dim..(next + 1) * dim]);
                next += 1;
                dead[slot as usize] = false;
            }
            freed
        } else {
            let mut remap = vec![u32::MAX; len];
            let mut m = 0u32;
            let mut kept = Vec::with_capacity(store.len());
            for i in 0..len {
                if !dead[i] {
                    remap[i] = m;
                    m += 1;
                    kept.extend_from_slice(&store[i * dim..(i + 1) * dim]);
                }
            }
            g.compact(&remap).unwrap();
            g.validate().unwrap();
            store = kept;
            dead = vec![false; m as usize];
            let add = freed.len();
            store.extend_from_slice(&pool[next * dim..(next + add) * dim]);
            next += add;
            dead.resize(m as usize + add, false);
            (m..m + add as u32).collect()
        };
        let nodes = FlatNodes::new(&store, dim, Metric::L2);
        g.insert_batch(&ids, &nodes, &p, &|_, _| {}, &AtomicBool::new(false))
            .unwrap();
        g.validate()
            .unwrap_or_else(|e| panic!("seed {seed} round {round}: {e}"));
    }
    let nodes = FlatNodes::new(&store, dim, Metric::L2);
    let fresh = Graph::build(&nodes, &p).unwrap();
    for ef in [16, 32, 64] {
        let r = recall(&g, &nodes, &queries, 10, ef, |_| true);
        let rf = recall(&fresh, &nodes, &queries, 10, ef, |_| true);
        println!("ef {ef}: after churn {r:.4}, fresh {rf:.4}");
        assert!(
            r >= rf - 0.01,
            "seed {seed} ef {ef}: churned recall {r:.4} vs fresh {rf:.4}"
        );
    }
}

#[test]
fn compact_and_parts_round_trip() {
    let seed = 101;
    let data = clustered(500, 8, seed);
    let nodes = FlatNodes::new(&data, 8, Metric::L2);
    let g = Graph::build(&nodes, &params(seed)).unwrap();
    // from_parts(parts of g) == g.
    let degrees: Vec<u32> = (0..500).map(|i| g.degree(i) as u32).collect();
    let nbrs: Vec<u32> = (0..500).flat_map(|i| g.neighbors(i).to_vec()).collect();
    let h = Graph::from_parts(g.max_degree(), &degrees, &nbrs, g.entry_point()).unwrap();
    assert!(g == h);
    assert_eq!(g.edge_count(), nbrs.len());
    assert_eq!(g.bytes(), 500 * (g.max_degree() + 1) * 4);
    // Corrupt parts are refused.
    let mut bad = nbrs.clone();
    bad[0] = 0; // node 0's first neighbour becomes itself
    assert!(Graph::from_parts(g.max_degree(), &degrees, &bad, 0).is_err());
    assert!(Graph::from_parts(g.max_degree(), &degrees, &nbrs[1..], 0).is_err());
    assert!(Graph::from_parts(g.max_degree(), &degrees, &nbrs, 500).is_err());
    // Identity remap changes nothing; bad remaps are refused.
    let mut c = g.clone();
    c.compact(&(0..500).collect::<Vec<u32>>()).unwrap();
    assert!(c == g);
    assert!(c.compact(&[0, 1]).is_err());
    assert!(c.compact(&vec![0u32; 500]).is_err());
    // Reversal: neighbour sets map through.
    let rev: Vec<u32> = (0..500u32).rev().collect();
    c.compact(&rev).unwrap();
    c.validate().unwrap();
    for i in 0..500u32 {
        let mut a: Vec<u32> = g.neighbors(i).iter().map(|&v| 499 - v).collect();
        let mut b = c.neighbors(499 - i).to_vec();
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
    }
    assert_eq!(c.entry_point(), 499 - g.entry_point());
}

#[test]
fn approximate_medoid_is_central() {
    // A NodeDistance without an exact medoid: the sampled one must be near the centre.
    struct NoMedoid<'a>(FlatNodes<'a>);
    impl NodeDistance for NoMedoid<'_> {
        fn len(&self) -> usize {
            self.0.len()
        }
        fn distance(&self, a: u32, b: u32) -> f32 {
            self.0.distance(a, b)
        }
    }
    let data: Vec<f32> = (0..1_001).map(|i| i as f32).collect();
    let m = medoid::approximate(&NoMedoid(FlatNodes::new(&data, 1, Metric::L2)), 3);
    assert!((400..=600).contains(&m), "approximate medoid {m}");
    let exact = FlatNodes::new(&data, 1, Metric::L2).medoid();
    assert_eq!(exact, Some(500));
    let g = Graph::build(&NoMedoid(FlatNodes::new(&data, 1, Metric::L2)), &params(3)).unwrap();
    g.validate().unwrap();
}
