//! Pruning, inserts, deletes (consolidation), compaction and the medoid.

use super::*;

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
