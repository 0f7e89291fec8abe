//! Accuracy and speed of the RaBitQ estimator on a real dataset: the numbers behind the defaults
//! of `horosvec_core::quant`.
//!
//! ```text
//! cargo run --release --example rabitq_eval -- BASE QUERIES METRIC [options]
//!   BASE, QUERIES   .fvecs (int32 dim, then dim × f32 per row) or .f16vecs (int32 dim, then
//!                   dim × IEEE half per row), little-endian
//!   METRIC          l2 | cosine | ip
//!   --n N           use the first N base rows (default: all)
//!   --nq Q          use the first Q queries (default: all, at most 1000)
//!   --bits 1,2,4    code widths to evaluate (default 1,2,3,4,5,8)
//!   --qbits Q       query bits for every width (default: RabitqParams::default_query_bits)
//!   --rounds R      rotation rounds (default 4)
//!   --pad-to P      zero-pad every vector to P dims first (e.g. 512: a power-of-two rotation)
//!   --threads T     threads for the accuracy pass (default: available parallelism)
//!   --seed S        rotation seed
//! ```
//!
//! For each width it prints one Markdown row: bytes per vector, encode time, the relative RMS
//! error of the estimate (RMS(estimate − exact) / standard deviation of the exact distances,
//! per query, averaged), the Pearson correlation of estimate and exact distance, the fraction of
//! pairs within the error bound at ε₀ = 1.9 and 3, "flat-scan recall@10 after an exact rerank of
//! the top C by estimate" for C = 10, 20, 50, 100, 200 (C = 10 is no rerank), and the time per
//! estimate in a sequential scan and in a shuffled-order scan (graph-like random access), one
//! thread, best of 3. The exact top-10 is computed by brute force here.
//!
//! Example (repository root):
//! `cargo run --release -p horosvec-core --example rabitq_eval -- data/sample/base.f16vecs data/sample/queries.fvecs cosine`

use std::io::Read;
use std::time::Instant;

use horosvec_core::quant::{RabitqIndex, RabitqParams};
use horosvec_core::Metric;

const CS: [usize; 5] = [10, 20, 50, 100, 200];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: rabitq_eval BASE QUERIES l2|cosine|ip [--n N] [--nq Q] [--bits 1,2,4] [--qbits Q] [--rounds R] [--pad-to P] [--threads T] [--seed S]");
        std::process::exit(2);
    }
    let metric = Metric::parse(&args[2]).expect("metric");
    let opt = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .map(|i| args[i + 1].clone())
    };
    let n_limit: usize = opt("--n").map_or(usize::MAX, |s| s.parse().unwrap());
    let nq_limit: usize = opt("--nq").map_or(1000, |s| s.parse().unwrap());
    let bits_list: Vec<u8> = opt("--bits").map_or(vec![1, 2, 3, 4, 5, 8], |s| {
        s.split(',').map(|b| b.parse().unwrap()).collect()
    });
    let qbits: Option<u8> = opt("--qbits").map(|s| s.parse().unwrap());
    let rounds: u8 = opt("--rounds").map_or(4, |s| s.parse().unwrap());
    let pad_to: Option<usize> = opt("--pad-to").map(|s| s.parse().unwrap());
    let seed: Option<u64> = opt("--seed").map(|s| s.parse().unwrap());
    let threads: usize = opt("--threads").map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |s| s.parse().unwrap(),
    );

    let (mut base, mut dim) = read_vecs(&args[0], n_limit);
    let (mut queries, qdim) = read_vecs(&args[1], nq_limit);
    assert_eq!(dim, qdim, "base and query dimensions differ");
    if let Some(p) = pad_to {
        base = pad(&base, dim, p);
        queries = pad(&queries, dim, p);
        dim = p;
    }
    let n = base.len() / dim;
    let nq = queries.len() / dim;
    eprintln!(
        "{}: {n} × {dim}, {nq} queries, metric {metric}, kernel {}",
        args[0],
        horosvec_core::distance::kernels().name
    );

    // Exact distances use the same definitions as the estimator (1 − cos on normalised copies).
    let (ebase, equeries) = if metric == Metric::Cosine {
        (normalised(&base, dim), normalised(&queries, dim))
    } else {
        (base.clone(), queries.clone())
    };
    let t = Instant::now();
    let truth: Vec<Vec<u32>> = parallel_map(nq, threads, |qi| {
        let ex = exact_all(metric, &equeries[qi * dim..(qi + 1) * dim], &ebase, dim);
        top_k(&ex, 10)
    });
    eprintln!(
        "exact top-10 by brute force: {:.1} s",
        t.elapsed().as_secs_f64()
    );

    println!("| bits | qbits | B/vec | encode µs/vec | rel. RMS err | corr | in bound 1.9 / 3 | R@10 C=10 | C=20 | C=50 | C=100 | C=200 | ns/est seq | ns/est shuffled | prepare µs |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for &bits in &bits_list {
        let mut params = RabitqParams::new(bits);
        if let Some(q) = qbits {
            params = params.with_query_bits(q);
        }
        if let Some(s) = seed {
            params = params.with_seed(s);
        }
        params.rotation_rounds = rounds;
        let t = Instant::now();
        let index = RabitqIndex::encode_all(&base, dim, metric, params).expect("encode");
        let enc_us = t.elapsed().as_secs_f64() * 1e6 / n as f64;

        // Accuracy, in parallel over queries.
        let per_query: Vec<QueryStats> = parallel_map(nq, threads, |qi| {
            let q = &queries[qi * dim..(qi + 1) * dim];
            let ex = exact_all(metric, &equeries[qi * dim..(qi + 1) * dim], &ebase, dim);
            let pq = index.prepare(q).unwrap();
            let mut est = vec![0.0f32; n];
            let mut bound = vec![0.0f32; n];
            for i in 0..n {
                let (e, b) = index.estimate_with_bound(&pq, i as u32);
                est[i] = e;
                bound[i] = b;
            }
            query_stats(&est, &bound, &ex, &truth[qi], pq.epsilon0())
        });
        let m = |f: &dyn Fn(&QueryStats) -> f64| per_query.iter().map(f).sum::<f64>() / nq as f64;
        let rel = m(&|s| s.rel_rms);
        let corr = m(&|s| s.corr);
        let (in19, in3) = (m(&|s| s.in_bound), m(&|s| s.in_bound3));
        let recalls: Vec<f64> = (0..CS.len()).map(|c| m(&|s| s.recall[c])).collect();

        // Speed, one thread, best of 3 over up to 50 queries.
        let qs = nq.min(50);
        let pqs: Vec<_> = (0..qs)
            .map(|qi| index.prepare(&queries[qi * dim..(qi + 1) * dim]).unwrap())
            .collect();
        let mut order: Vec<u32> = (0..n as u32).collect();
        shuffle(&mut order, 12345);
        let seq_ids: Vec<u32> = (0..n as u32).collect();
        let time_scan = |ids: &[u32]| {
            let mut best = f64::INFINITY;
            let mut sink = 0.0f32;
            for _ in 0..3 {
                let t = Instant::now();
                for pq in &pqs {
                    for &i in ids {
                        sink += index.estimate(pq, i);
                    }
                }
                best = best.min(t.elapsed().as_secs_f64());
            }
            std::hint::black_box(sink);
            best * 1e9 / (qs * ids.len()) as f64
        };
        let ns_seq = time_scan(&seq_ids);
        let ns_shuf = time_scan(&order);
        let mut pq = index.new_query();
        let t = Instant::now();
        let reps = 2000;
        for r in 0..reps {
            let qi = r % nq;
            index
                .prepare_into(&queries[qi * dim..(qi + 1) * dim], &mut pq)
                .unwrap();
        }
        let prep_us = t.elapsed().as_secs_f64() * 1e6 / reps as f64;

        println!(
            "| {bits} | {} | {} | {enc_us:.1} | {rel:.4} | {corr:.4} | {in19:.3} / {in3:.4} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {ns_seq:.1} | {ns_shuf:.1} | {prep_us:.2} |",
            index.params().query_bits,
            index.bytes_per_vector(),
            recalls[0],
            recalls[1],
            recalls[2],
            recalls[3],
            recalls[4],
        );
    }
}

/// Per-query accuracy figures.
struct QueryStats {
    rel_rms: f64,
    corr: f64,
    in_bound: f64,
    in_bound3: f64,
    recall: [f64; CS.len()],
}

fn query_stats(est: &[f32], bound: &[f32], ex: &[f32], truth: &[u32], eps: f32) -> QueryStats {
    let n = est.len() as f64;
    let (mut se, mut sx, mut sxx, mut sy, mut syy, mut sxy, mut inside, mut inside3) =
        (0.0f64, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    for ((&e, &b), &x) in est.iter().zip(bound).zip(ex) {
        let (e, x, b) = (f64::from(e), f64::from(x), f64::from(b));
        se += (e - x) * (e - x);
        sx += x;
        sxx += x * x;
        sy += e;
        syy += e * e;
        sxy += e * x;
        let slack = 1e-5 * (1.0 + x.abs());
        if (e - x).abs() <= b + slack {
            inside += 1.0;
        }
        if (e - x).abs() <= b * 3.0 / f64::from(eps) + slack {
            inside3 += 1.0;
        }
    }
    let vx = sxx / n - (sx / n).powi(2);
    let vy = syy / n - (sy / n).powi(2);
    let cov = sxy / n - (sx / n) * (sy / n);
    // flat-scan recall: rerank the top C by estimate exactly
    let order = top_k(est, CS[CS.len() - 1]);
    let mut recall = [0.0; CS.len()];
    for (ci, &c) in CS.iter().enumerate() {
        let mut cand: Vec<u32> = order[..c.min(order.len())].to_vec();
        cand.sort_by(|&a, &b| ex[a as usize].total_cmp(&ex[b as usize]).then(a.cmp(&b)));
        cand.truncate(10);
        recall[ci] = cand.iter().filter(|i| truth.contains(i)).count() as f64 / truth.len() as f64;
    }
    QueryStats {
        rel_rms: (se / n).sqrt() / vx.sqrt(),
        corr: cov / (vx * vy).sqrt(),
        in_bound: inside / n,
        in_bound3: inside3 / n,
        recall,
    }
}

/// Exact distances of one query to every base row (squared L2; 1 − cos on normalised rows; −dot).
fn exact_all(metric: Metric, q: &[f32], base: &[f32], dim: usize) -> Vec<f32> {
    let k = horosvec_core::distance::kernels();
    base.chunks_exact(dim)
        .map(|x| match metric {
            Metric::L2 => (k.l2sq_f32)(q, x),
            Metric::Cosine => 1.0 - (k.dot_f32)(q, x),
            Metric::InnerProduct => -(k.dot_f32)(q, x),
            Metric::L1 => unreachable!(),
        })
        .collect()
}

/// Indices of the `k` smallest values, ascending (ties by index).
fn top_k(v: &[f32], k: usize) -> Vec<u32> {
    let mut idx: Vec<u32> = (0..v.len() as u32).collect();
    let cmp = |a: &u32, b: &u32| v[*a as usize].total_cmp(&v[*b as usize]).then(a.cmp(b));
    let k = k.min(idx.len());
    if k < idx.len() {
        idx.select_nth_unstable_by(k, cmp);
        idx.truncate(k);
    }
    idx.sort_by(cmp);
    idx
}

fn normalised(v: &[f32], dim: usize) -> Vec<f32> {
    let mut out = v.to_vec();
    for row in out.chunks_exact_mut(dim) {
        let n = row
            .iter()
            .map(|&x| f64::from(x) * f64::from(x))
            .sum::<f64>()
            .sqrt() as f32;
        row.iter_mut().for_each(|x| *x /= n);
    }
    out
}

fn pad(v: &[f32], dim: usize, to: usize) -> Vec<f32> {
    assert!(to >= dim);
    v.chunks_exact(dim)
        .flat_map(|r| r.iter().copied().chain(std::iter::repeat_n(0.0, to - dim)))
        .collect()
}

/// Reads `.fvecs` (f32) or `.f16vecs` (IEEE half) rows: int32 dim, then dim values, little-endian.
fn read_vecs(path: &str, limit: usize) -> (Vec<f32>, usize) {
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .read_to_end(&mut bytes)
        .unwrap();
    let dim = i32::from_le_bytes(bytes[0..4].try_into().unwrap()) as usize;
    let half = path.ends_with(".f16vecs");
    let width = if half { 2 } else { 4 };
    let rec = 4 + width * dim;
    assert_eq!(
        bytes.len() % rec,
        0,
        "{path}: not a whole number of {dim}-d records"
    );
    let n = (bytes.len() / rec).min(limit);
    let mut out = Vec::with_capacity(n * dim);
    for r in bytes.chunks_exact(rec).take(n) {
        assert_eq!(
            i32::from_le_bytes(r[0..4].try_into().unwrap()) as usize,
            dim
        );
        for c in r[4..].chunks_exact(width) {
            out.push(if half {
                half::f16::from_le_bytes([c[0], c[1]]).to_f32()
            } else {
                f32::from_le_bytes(c.try_into().unwrap())
            });
        }
    }
    (out, dim)
}

/// `f(0..n)` on `threads` scoped threads, results in order.
fn parallel_map<T: Send>(n: usize, threads: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = threads.max(1).min(n.max(1));
    let chunk = n.div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let f = &f;
                s.spawn(move || {
                    (t * chunk..((t + 1) * chunk).min(n))
                        .map(f)
                        .collect::<Vec<T>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    })
}

/// Deterministic Fisher–Yates shuffle (SplitMix64).
fn shuffle(v: &mut [u32], seed: u64) {
    let mut s = seed;
    for i in (1..v.len()).rev() {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        v.swap(i, (z % (i as u64 + 1)) as usize);
    }
}
