//! Collection behaviour through the public API: exactness against an independent float64 brute
//! force for every metric, single and batch; determinism; all-or-nothing batches; error codes.

use horosvec_core::args::{self, SearchArgs};
use horosvec_core::{Collection, IndexParams, Metric, SearchOptions, VectorId};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SEED: u64 = 0x5eed;

fn random(n: usize, dim: usize, seed: u64) -> Vec<f32> {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    (0..n * dim).map(|_| r.random_range(-1.0f32..1.0)).collect()
}

fn reference(metric: Metric, q: &[f32], x: &[f32]) -> f64 {
    let (mut s, mut qq, mut xx) = (0f64, 0f64, 0f64);
    for (&a, &b) in q.iter().zip(x) {
        let (a, b) = (a as f64, b as f64);
        match metric {
            Metric::L2 => s += (a - b) * (a - b),
            Metric::L1 => s += (a - b).abs(),
            _ => {
                s += a * b;
                qq += a * a;
                xx += b * b;
            }
        }
    }
    match metric {
        Metric::InnerProduct => -s,
        Metric::Cosine => 1.0 - s / (qq * xx).sqrt(),
        _ => s,
    }
}

#[test]
fn exact_search_matches_brute_force_for_every_metric() {
    for metric in [Metric::L2, Metric::Cosine, Metric::InnerProduct, Metric::L1] {
        for dim in [1, 7, 64, 100, 385] {
            let n = 600;
            let data = random(n, dim, SEED + dim as u64);
            let mut col = Collection::new(dim, metric).unwrap();
            col.add((0..n as u64).map(VectorId::Int).collect(), &data, None)
                .unwrap();
            let nq = 37;
            let queries = random(nq, dim, SEED ^ 0xabc);
            let opts = SearchOptions::new(10).unwrap();
            let batch = col.search_batch(&queries, &opts).unwrap();
            for (j, q) in queries.chunks_exact(dim).enumerate() {
                let mut want: Vec<(f64, u64)> = data
                    .chunks_exact(dim)
                    .enumerate()
                    .map(|(i, x)| (reference(metric, q, x), i as u64))
                    .collect();
                want.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                let got = col.search(q, &opts).unwrap();
                for (h, w) in got.iter().zip(&want) {
                    // f32 vs f64 rounding may swap near-equal neighbours; compare distances.
                    assert!(
                        (h.distance as f64 - w.0).abs() <= 1e-4 * (1.0 + w.0.abs()),
                        "seed {SEED} {metric} dim {dim} q {j}"
                    );
                }
                let ids: Vec<_> = got.iter().map(|h| h.id.clone()).collect();
                let bids: Vec<_> = batch[j].iter().map(|h| h.id.clone()).collect();
                assert_eq!(
                    ids, bids,
                    "batch and single differ: {metric} dim {dim} q {j}"
                );
            }
        }
    }
}

#[test]
fn ties_follow_insertion_order_after_deletes_and_upserts() {
    let mut col = Collection::new(2, Metric::L2).unwrap();
    let ids: Vec<VectorId> = (0..10u64).rev().map(VectorId::Int).collect();
    col.add(ids.clone(), &[1.0; 20], None).unwrap();
    let opts = SearchOptions::new(10).unwrap();
    let got: Vec<_> = col
        .search(&[0.0, 0.0], &opts)
        .unwrap()
        .into_iter()
        .map(|h| h.id)
        .collect();
    assert_eq!(got, ids);
    assert_eq!(
        col.delete(&[VectorId::Int(9), VectorId::Int(4), VectorId::Int(4)]),
        2
    );
    col.upsert(
        vec![VectorId::Int(8)],
        &[1.0, 1.0],
        Some(vec![Some("{\"a\":1}".into())]),
    )
    .unwrap();
    let got: Vec<_> = col
        .search(&[0.0, 0.0], &opts)
        .unwrap()
        .into_iter()
        .map(|h| h.id)
        .collect();
    let want: Vec<_> = [8u64, 7, 6, 5, 3, 2, 1, 0]
        .into_iter()
        .map(VectorId::Int)
        .collect();
    assert_eq!(got, want);
    assert_eq!(
        col.get(&VectorId::Int(8)).unwrap().unwrap().1.as_deref(),
        Some("{\"a\":1}")
    );
}

#[test]
fn failed_batches_change_nothing() {
    let mut col = Collection::new(3, Metric::Cosine).unwrap();
    col.add(vec!["keep".into()], &[1.0, 2.0, 3.0], None)
        .unwrap();
    let cases: Vec<(Vec<VectorId>, Vec<f32>, &str)> = vec![
        (
            vec!["a".into(), "keep".into()],
            vec![1.0; 6],
            "HV_DUPLICATE_ID",
        ),
        (
            vec!["a".into(), "a".into()],
            vec![1.0; 6],
            "HV_DUPLICATE_ID",
        ),
        (
            vec!["a".into(), "b".into()],
            vec![1.0, 1.0, 1.0, f32::NAN, 1.0, 1.0],
            "HV_INVALID_VECTOR",
        ),
        (
            vec!["a".into()],
            vec![0.0, f32::INFINITY, 0.0],
            "HV_INVALID_VECTOR",
        ),
        (vec!["a".into()], vec![1.0; 4], "HV_DIM_MISMATCH"),
        (
            vec!["a".into(), "b".into()],
            vec![1.0; 3],
            "HV_INVALID_ARGUMENT",
        ),
        (vec![], vec![], "HV_INVALID_ARGUMENT"),
    ];
    for (ids, v, code) in cases {
        let e = col.add(ids, &v, None).unwrap_err();
        assert_eq!(e.code().as_str(), code, "{e}");
        assert_eq!(col.len(), 1);
        assert!(!col.contains(&"a".into()));
    }
    let e = col
        .add(
            vec!["m".into()],
            &[1.0; 3],
            Some(vec![Some("{not json".into())]),
        )
        .unwrap_err();
    assert_eq!(e.code().as_str(), "HV_INVALID_ARGUMENT");
    assert_eq!(
        &*col.get(&"keep".into()).unwrap().unwrap().0,
        &[1.0, 2.0, 3.0]
    );
}

/// The options of a search for `k` as the bindings read them from JS.
fn search_options(k: f64) -> horosvec_core::Result<SearchOptions> {
    args::search_options(&SearchArgs {
        k: Some(k),
        ..SearchArgs::default()
    })
}

#[test]
fn search_argument_errors() {
    let mut col = Collection::new(2, Metric::L2).unwrap();
    col.add(vec![VectorId::Int(1)], &[0.0, 1.0], None).unwrap();
    for k in [0.0, -1.0, 0.5, f64::NAN, f64::INFINITY] {
        assert_eq!(
            search_options(k).unwrap_err().code().as_str(),
            "HV_INVALID_ARGUMENT"
        );
    }
    let opts = search_options(1e12).unwrap();
    assert_eq!(col.search(&[0.0, 0.0], &opts).unwrap().len(), 1);
    assert_eq!(
        col.search(&[0.0], &opts).unwrap_err().code().as_str(),
        "HV_DIM_MISMATCH"
    );
    assert_eq!(
        col.search(&[f32::INFINITY, 0.0], &opts)
            .unwrap_err()
            .code()
            .as_str(),
        "HV_INVALID_VECTOR"
    );
    assert_eq!(
        col.search_batch(&[], &opts).unwrap_err().code().as_str(),
        "HV_INVALID_ARGUMENT"
    );
    assert_eq!(
        col.search_batch(&[0.0, 0.0, 1.0], &opts)
            .unwrap_err()
            .code()
            .as_str(),
        "HV_DIM_MISMATCH"
    );
    assert_eq!(
        Collection::new(0, Metric::L2)
            .err()
            .unwrap()
            .code()
            .as_str(),
        "HV_INVALID_ARGUMENT"
    );
    let empty = Collection::new(2, Metric::L2).unwrap();
    assert!(empty.search(&[0.0, 0.0], &opts).unwrap().is_empty());
}

/// Zero vectors under cosine: accepted, at distance 1 from every query, in the exact scan and
/// after an index build (the issue-15 convention, as hnswlib's); a zero query is at distance 1
/// from every record.
#[test]
fn zero_vectors_under_cosine_are_at_distance_one() {
    let dim = 8;
    let n = 3000u64;
    let mut col = Collection::new(dim, Metric::Cosine).unwrap();
    let mut data = Vec::new();
    let mut state = 7u64;
    for i in 0..n {
        for _ in 0..dim {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let v = ((state >> 33) as f32 / (1u64 << 31) as f32) - 0.5;
            data.push(if i % 100 == 0 { 0.0 } else { v });
        }
    }
    let ids: Vec<VectorId> = (0..n).map(VectorId::Int).collect();
    col.add(ids, &data, None).unwrap();
    let zero = vec![0.0f32; dim];
    for exact in [true, false] {
        if !exact {
            let (ix, ver) = col
                .build_index(IndexParams::default(), &|_, _| {}, &Default::default())
                .unwrap();
            col.install_index(ix, ver).unwrap();
        }
        let mut opts = SearchOptions::new(5).unwrap();
        opts.exact = Some(exact);
        let hits = col.search(&zero, &opts).unwrap();
        assert_eq!(hits.len(), 5);
        assert!(hits.iter().all(|h| h.distance == 1.0), "{hits:?}");
        let q: Vec<f32> = data[dim..2 * dim].to_vec();
        let mut all_opts = SearchOptions::new(n as usize).unwrap();
        all_opts.exact = Some(true);
        let all = col.search(&q, &all_opts).unwrap();
        for h in &all {
            if let VectorId::Int(i) = h.id {
                if i % 100 == 0 {
                    assert_eq!(h.distance, 1.0, "zero row {i}");
                }
            }
        }
        assert!(all.iter().all(|h| h.distance.is_finite()));
        let top = col.search(&q, &opts).unwrap();
        assert_eq!(top[0].id, VectorId::Int(1), "exact={exact}");
    }
}
