//! Filtered search, count, list and delete_where: every search returns exactly
//! `min(k, matches)` hits, filtered searches with `exact: true` equal a brute-force filter, and
//! approximate ones keep a recall floor at every selectivity, in memory and across sealed +
//! mutable segments.

use std::sync::Arc;

use horosvec_core::filter::strategy::Strategy;
use horosvec_core::{
    args, Collection, Filter, IndexParams, ListQuery, Metric, SearchOptions, VectorId,
};
use rand::{Rng, SeedableRng};

const DIM: usize = 24;

/// `n` seeded records in 40 clusters; metadata `{ "g": i % 5, "r": rank, "tags": [...] }`.
fn data(n: usize, seed: u64) -> (Vec<f32>, Vec<String>) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let centres: Vec<f32> = (0..40 * DIM).map(|_| rng.random_range(-1.0..1.0)).collect();
    let mut v = Vec::with_capacity(n * DIM);
    let mut meta = Vec::with_capacity(n);
    for i in 0..n {
        let c = rng.random_range(0..40);
        for d in 0..DIM {
            v.push(centres[c * DIM + d] + rng.random_range(-0.3..0.3));
        }
        meta.push(format!(
            r#"{{"g":{},"r":{},"tags":["t{}","u"],"user":{{"id":{}}}}}"#,
            i % 5,
            rng.random_range(0..100_000),
            i % 7,
            i % 1000
        ));
    }
    (v, meta)
}

fn filters() -> Vec<&'static str> {
    vec![
        r#"{"user.id":3}"#,                            // 0.1 %
        r#"{"r":{"$lt":1000}}"#,                       // 1 %
        r#"{"r":{"$gte":10000,"$lt":20000}}"#,         // 10 %
        r#"{"r":{"$gte":10000,"$lt":30000}}"#,         // 20 %: the two-hop walk
        r#"{"g":{"$in":[1,2]}}"#,                      // 40 %
        r#"{"r":{"$lt":50000}}"#,                      // 50 %
        r#"{"$or":[{"tags":"t3"},{"g":4}]}"#,          // ≈ 31 %
        r#"{"g":{"$ne":0},"tags":{"$contains":"u"}}"#, // 80 %
        r#"{"r":{"$gte":0}}"#,                         // everything
        r#"{"g":9}"#,                                  // nothing
    ]
}

fn brute(col_meta: &[String], v: &[f32], q: &[f32], f: &Filter, k: usize) -> Vec<u64> {
    let mut d: Vec<(f32, u64)> = (0..col_meta.len())
        .filter(|&i| f.matches(Some(&col_meta[i])))
        .map(|i| {
            let x = &v[i * DIM..(i + 1) * DIM];
            (
                x.iter().zip(q).map(|(a, b)| (a - b) * (a - b)).sum(),
                i as u64,
            )
        })
        .collect();
    d.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    d.into_iter().take(k).map(|x| x.1).collect()
}

fn opts(k: usize, f: &Filter, exact: Option<bool>) -> SearchOptions {
    let mut o = SearchOptions::new(k).unwrap();
    o.filter = Some(Arc::new(f.clone()));
    o.exact = exact;
    o
}

fn ids(h: &[horosvec_core::SearchHit]) -> Vec<u64> {
    h.iter()
        .map(|h| match h.id {
            VectorId::Int(i) => i,
            _ => unreachable!(),
        })
        .collect()
}

#[test]
fn k_guarantee_exactness_and_recall_in_memory() {
    let n = 20_000;
    let (v, meta) = data(n, 1);
    let mut col = Collection::new(DIM, Metric::L2).unwrap();
    col.add(
        (0..n as u64).map(VectorId::Int).collect(),
        &v,
        Some(meta.iter().cloned().map(Some).collect()),
    )
    .unwrap();
    let (ix, ver) = col
        .build_index(IndexParams::default(), &|_, _| {}, &Default::default())
        .unwrap();
    col.install_index(ix, ver).unwrap();
    let (qs, _) = data(50, 2);
    let k = 10;
    // the unfiltered recall at the same ef: the floor a filtered walk is held to
    let everything = Filter::parse("{}").unwrap();
    let mut plain = 0;
    for q in qs.chunks_exact(DIM) {
        let truth = brute(&meta, &v, q, &everything, k);
        let h = col.search(q, &SearchOptions::new(k).unwrap()).unwrap();
        plain += ids(&h).iter().filter(|i| truth.contains(i)).count();
    }
    let floor = (plain as f64 / (k * 50) as f64).min(0.9) - 0.05;
    for f in filters() {
        let f = Filter::parse(f).unwrap();
        let matches = meta.iter().filter(|m| f.matches(Some(m))).count();
        assert_eq!(col.count(Some(&f)), matches, "{}", f.text());
        let mut found = 0;
        let mut total = 0;
        let (mut forced_found, mut forced_total) = (0, 0);
        for q in qs.chunks_exact(DIM) {
            let truth = brute(&meta, &v, q, &f, k);
            let exact = col.search(q, &opts(k, &f, Some(true))).unwrap();
            assert_eq!(ids(&exact), truth, "exact {}", f.text());
            let approx = col.search(q, &opts(k, &f, None)).unwrap();
            assert_eq!(approx.len(), k.min(matches), "hits {}", f.text());
            found += ids(&approx).iter().filter(|i| truth.contains(i)).count();
            total += truth.len();
            // every strategy, forced, keeps the k guarantee and the floor
            for forced in [
                Strategy::CodeScan { ef: 0 },
                Strategy::TwoHop { ef: 0 },
                Strategy::Walk { ef: 0 },
            ] {
                let mut o = opts(k, &f, None);
                o.strategy = Some(forced);
                let h = col.search(q, &o).unwrap();
                assert_eq!(h.len(), k.min(matches), "hits {} {forced:?}", f.text());
                forced_found += ids(&h).iter().filter(|i| truth.contains(i)).count();
                forced_total += truth.len();
            }
        }
        let recall = if total == 0 {
            1.0
        } else {
            found as f64 / total as f64
        };
        assert!(
            recall >= floor,
            "recall {recall} below {floor} for {}",
            f.text()
        );
        if forced_total > 0 {
            let r = forced_found as f64 / forced_total as f64;
            assert!(
                r >= floor,
                "forced recall {r} below {floor} for {}",
                f.text()
            );
        }
    }
    let s = col.stats().filtered;
    assert!(
        s.code_scans > 0 && s.two_hop > 0 && s.walks > 0 && s.scans > 0,
        "{s:?}"
    );
}

#[test]
fn tiny_selectivities_and_ids() {
    let n = 5_000;
    let (v, meta) = data(n, 3);
    let mut col = Collection::new(DIM, Metric::L2).unwrap();
    col.add(
        (0..n as u64).map(VectorId::Int).collect(),
        &v,
        Some(meta.iter().cloned().map(Some).collect()),
    )
    .unwrap();
    let (ix, ver) = col
        .build_index(IndexParams::default(), &|_, _| {}, &Default::default())
        .unwrap();
    col.install_index(ix, ver).unwrap();
    let q = &v[..DIM];
    // 1 match, 0 matches, k − 1 matches, forced through the walk
    for (f, want) in [
        (r#"{"user.id":7,"g":2}"#, 5),
        (r#"{"g":7}"#, 0),
        (
            r#"{"user.id":{"$in":[1,2,3,4,5,6,7,8,9]},"g":{"$in":[1,2]}}"#,
            0,
        ),
    ] {
        let f = Filter::parse(f).unwrap();
        let m = col.count(Some(&f));
        let _ = want;
        for exact in [None, Some(false), Some(true)] {
            let h = col.search(q, &opts(10, &f, exact)).unwrap();
            assert_eq!(h.len(), m.min(10), "{} {exact:?}", f.text());
        }
    }
    let mut o = SearchOptions::new(10).unwrap();
    o.ids = Some(Arc::new(vec![
        VectorId::Int(4),
        VectorId::Int(9),
        VectorId::Int(77_777),
    ]));
    let h = col.search(q, &o).unwrap();
    assert_eq!(h.len(), 2);
    o.filter = Some(Arc::new(Filter::parse(r#"{"g":4}"#).unwrap()));
    let h = col.search(q, &o).unwrap();
    assert_eq!(ids(&h), vec![4, 9]);
}

#[test]
fn list_pages_and_delete_where() {
    let n = 1_000;
    let (v, meta) = data(n, 5);
    let mut col = Collection::new(DIM, Metric::L2).unwrap();
    col.add(
        (0..n as u64).map(VectorId::Int).collect(),
        &v,
        Some(meta.iter().cloned().map(Some).collect()),
    )
    .unwrap();
    let f = Filter::parse(r#"{"g":1}"#).unwrap();
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let q: ListQuery =
            args::list_query(Some(f.text()), Some(37.0), cursor.as_deref(), Some(true)).unwrap();
        let page = col.list(&q).unwrap();
        for r in &page.records {
            assert_eq!(r.vector.as_ref().unwrap().len(), DIM);
            seen.push(r.id.clone());
        }
        match page.cursor {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    let want: Vec<VectorId> = (0..n as u64)
        .filter(|i| i % 5 == 1)
        .map(VectorId::Int)
        .collect();
    assert_eq!(seen, want);
    assert_eq!(col.delete_where(&f).unwrap(), 200);
    assert_eq!(col.count(Some(&f)), 0);
    assert_eq!(col.len(), 800);
    // upsert: the last of two entries with one id wins
    col.upsert(
        vec![VectorId::Int(2), VectorId::Int(2)],
        &[vec![0.0; DIM], vec![1.0; DIM]].concat(),
        Some(vec![
            Some(r#"{"g":"a"}"#.into()),
            Some(r#"{"g":"b"}"#.into()),
        ]),
    )
    .unwrap();
    assert_eq!(col.get(&VectorId::Int(2)).unwrap().unwrap().0[0], 1.0);
    assert_eq!(col.count(Some(&Filter::parse(r#"{"g":"b"}"#).unwrap())), 1);
    assert_eq!(col.count(Some(&Filter::parse(r#"{"g":"a"}"#).unwrap())), 0);
    assert!(col
        .add(
            vec![VectorId::Int(5000), VectorId::Int(5000)],
            &[vec![0.0; DIM], vec![1.0; DIM]].concat(),
            None
        )
        .is_err());
}
