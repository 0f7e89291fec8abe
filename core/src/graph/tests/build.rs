//! Builds and searches: recall, invariants, parameter checks, determinism, progress,
//! cancellation, filters.

use super::*;

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
fn search_scratch_is_reset_between_searches() {
    let data = clustered(500, 8, 71);
    let nodes = FlatNodes::new(&data, 8, Metric::L2);
    let g = Graph::build(&nodes, &params(71)).unwrap();
    let mut s = SearchScratch::new();
    let mut q = NodeQuery {
        nodes: &nodes,
        node: 5,
    };
    let want: Vec<(f32, u32)> = search_unfiltered(&g, &mut q, 20, &mut s).to_vec();
    // a scratch that visited more (a larger ef: the whole-set clear) or less (the touched-word
    // clear) before gives the same answer
    for ef in [20, 400, 3, 20, 500, 20] {
        search_unfiltered(&g, &mut q, ef, &mut s);
        assert_eq!(search_unfiltered(&g, &mut q, 20, &mut s), &want[..]);
    }
    // ef = 0 behaves as 1; the empty graph gives nothing.
    assert_eq!(search_unfiltered(&g, &mut q, 0, &mut s).len(), 1);
    assert!(search_unfiltered(&Graph::empty(8), &mut q, 10, &mut s).is_empty());
}
