//! Measures the filtered-search strategies side by side on real embeddings, to set the
//! thresholds of `filter::strategy` (`SCAN_MAX`, `WALK_MIN`): for a grid of selectivities
//! (range filters over a seeded integer attribute), each strategy forced in turn, recall@10
//! against a brute-force filtered truth and single-thread QPS.
//!
//! `cargo run -p horosvec-core --release --example filter_threshold -- <base.fvecs> <query.fvecs> [n] [nq] [ef]`
//! (one JSON record per line on stdout, kept in `bench-results/filter-threshold/<rev>.jsonl`;
//! `HV_GRID=0.01,0.1` measures other selectivities).

use std::sync::Arc;
use std::time::Instant;

use horosvec_core::filter::strategy::Strategy;
use horosvec_core::{Collection, Filter, IndexParams, Metric, SearchOptions, VectorId};

fn fvecs(path: &str, limit: usize) -> (usize, Vec<f32>) {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let dim = u32::from_le_bytes(b[..4].try_into().unwrap()) as usize;
    let row = 4 + dim * 4;
    let n = (b.len() / row).min(limit);
    let mut v = Vec::with_capacity(n * dim);
    for r in 0..n {
        let s = &b[r * row + 4..(r + 1) * row];
        v.extend(
            s.chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap())),
        );
    }
    (dim, v)
}

/// SplitMix64: the seeded attribute.
fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: usize = a.get(3).map_or(20_000, |s| s.parse().unwrap());
    let nq: usize = a.get(4).map_or(200, |s| s.parse().unwrap());
    let ef: usize = a.get(5).map_or(64, |s| s.parse().unwrap());
    let (dim, base) = fvecs(&a[1], n);
    let (_, queries) = fvecs(&a[2], nq);
    let n = base.len() / dim;
    let mut seed = 14u64;
    let ranks: Vec<u64> = (0..n).map(|_| splitmix(&mut seed) % 1_000_000).collect();
    let mut col = Collection::new(dim, Metric::Cosine).unwrap();
    col.add(
        (0..n as u64).map(VectorId::Int).collect(),
        &base,
        Some(
            ranks
                .iter()
                .map(|r| Some(format!(r#"{{"rank":{r}}}"#)))
                .collect(),
        ),
    )
    .unwrap();
    let t = Instant::now();
    let (ix, ver) = col
        .build_index(IndexParams::default(), &|_, _| {}, &Default::default())
        .unwrap();
    col.install_index(ix, ver).unwrap();
    eprintln!("built {n} in {:.1} s", t.elapsed().as_secs_f64());
    let k = 10;
    let grid: Vec<f64> = std::env::var("HV_GRID")
        .ok()
        .map(|g| g.split(',').map(|x| x.parse().unwrap()).collect())
        .unwrap_or(vec![
            0.001, 0.003, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 1.0,
        ]);
    for s in grid {
        let cut = (s * 1_000_000.0) as u64;
        let f = Arc::new(Filter::parse(&format!(r#"{{"rank":{{"$lt":{cut}}}}}"#)).unwrap());
        let matches = ranks.iter().filter(|&&r| r < cut).count();
        // the truth: an exact scan of the matches
        let mut truth = Vec::new();
        let mut o = SearchOptions::new(k).unwrap();
        o.filter = Some(f.clone());
        o.exact = Some(true);
        for q in queries.chunks_exact(dim) {
            truth.push(
                col.search(q, &o)
                    .unwrap()
                    .into_iter()
                    .map(|h| h.id)
                    .collect::<Vec<_>>(),
            );
        }
        for (name, forced) in [
            ("scan", Strategy::Scan),
            ("code-scan", Strategy::CodeScan { ef: 0 }),
            ("two-hop", Strategy::TwoHop { ef: 0 }),
            ("walk", Strategy::Walk { ef: 0 }),
        ] {
            let mut o = SearchOptions::new(k).unwrap();
            o.filter = Some(f.clone());
            o.strategy = Some(forced);
            o.include_metadata = false;
            o.ef = Some(ef);
            let before = col.stats().filtered.fallbacks;
            let (mut found, mut hits) = (0usize, 0usize);
            let t = Instant::now();
            let mut runs = 0usize;
            while runs == 0 || (t.elapsed().as_secs_f64() < 1.0 && runs < 20) {
                for (q, want) in queries.chunks_exact(dim).zip(&truth) {
                    let h = col.search(q, &o).unwrap();
                    if runs == 0 {
                        hits += h.len();
                        found += h.iter().filter(|h| want.contains(&h.id)).count();
                    }
                }
                runs += 1;
            }
            let secs = t.elapsed().as_secs_f64();
            let total: usize = truth.iter().map(Vec::len).sum();
            println!(
                r#"{{"selectivity":{s},"matches":{matches},"strategy":"{name}","recall_at_10":{:.4},"mean_hits":{:.2},"qps":{:.1},"fallbacks_per_query":{:.3},"n":{n},"nq":{nq},"k":{k},"ef":{ef},"threads":1,"dataset":"minilm384","metric":"cosine","kernel":"{}"}}"#,
                if total == 0 {
                    1.0
                } else {
                    found as f64 / total as f64
                },
                hits as f64 / nq as f64,
                (runs * nq) as f64 / secs,
                (col.stats().filtered.fallbacks - before) as f64 / (runs * nq) as f64,
                col.kernel_name(),
            );
        }
    }
}
