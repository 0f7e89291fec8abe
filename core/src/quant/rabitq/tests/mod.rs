//! Tests of the codes and the estimator on seeded synthetic data (Gaussian clusters). This
//! file: the data, and the estimator (bias, error, bound, kernel agreement); `codes.rs`: the
//! codes (sign plane, reconstruction, determinism), input checks and query reuse.

use super::*;
use crate::quant::available_bit_kernels;
use crate::quant::codes::{code_norm_y, pack_planes};
use crate::quant::encode::EncodeScratch;
use crate::quant::{RabitqParams, EPSILON0};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

mod codes;

/// One standard normal sample (Box–Muller).
fn gauss(rng: &mut ChaCha8Rng) -> f32 {
    let (a, b): (f32, f32) = (rng.random_range(1e-7..1.0), rng.random_range(0.0..1.0));
    (-2.0 * a.ln()).sqrt() * (std::f32::consts::TAU * b).cos()
}

/// `n × dim` points around 8 Gaussian centres (spread 1, noise 0.6), offset by 0.5 so the
/// centroid is not the origin.
fn clustered(n: usize, dim: usize, seed: u64) -> Vec<f32> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let centres: Vec<Vec<f32>> = (0..8)
        .map(|_| (0..dim).map(|_| gauss(&mut rng) + 0.5).collect())
        .collect();
    let mut out = Vec::with_capacity(n * dim);
    for i in 0..n {
        let c = &centres[i % 8];
        out.extend(c.iter().map(|&m| m + 0.6 * gauss(&mut rng)));
    }
    out
}

/// Exact distance in `f64` (squared L2; 1 − cos; −dot).
fn exact(metric: Metric, q: &[f32], x: &[f32]) -> f64 {
    let (mut dot, mut l2, mut nq, mut nx) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for (&a, &b) in q.iter().zip(x) {
        let (a, b) = (f64::from(a), f64::from(b));
        dot += a * b;
        l2 += (a - b) * (a - b);
        nq += a * a;
        nx += b * b;
    }
    match metric {
        Metric::L2 => l2,
        Metric::InnerProduct => -dot,
        Metric::Cosine => 1.0 - dot / (nq * nx).sqrt(),
        Metric::L1 => unreachable!(),
    }
}

/// Exact distances of every (query, vector) pair, query-major.
fn exact_all(metric: Metric, data: &[f32], queries: &[f32], dim: usize) -> Vec<f64> {
    queries
        .chunks_exact(dim)
        .flat_map(|q| data.chunks_exact(dim).map(move |x| exact(metric, q, x)))
        .collect()
}

/// Error statistics of the estimator over all (query, vector) pairs (`exact` from [`exact_all`]):
/// `(mean error, rms error, std of exact distances, fraction within the bound at ε₀ = 1.9,
/// fraction within the bound at ε₀ = 3)`.
fn error_stats(index: &RabitqIndex, queries: &[f32], exact: &[f64]) -> (f64, f64, f64, f64, f64) {
    let dim = index.dim();
    let n_data = index.len();
    let (mut n, mut sum_e, mut sum_e2, mut sum_x, mut sum_x2) = (0.0f64, 0.0, 0.0, 0.0, 0.0);
    let (mut inside, mut inside3) = (0.0f64, 0.0f64);
    let mut pq = index.new_query();
    for (qi, q) in queries.chunks_exact(dim).enumerate() {
        index.prepare_into(q, &mut pq).unwrap();
        for i in 0..n_data {
            let (est, bound) = index.estimate_with_bound(&pq, i as u32);
            let ex = exact[qi * n_data + i];
            let e = f64::from(est) - ex;
            n += 1.0;
            sum_e += e;
            sum_e2 += e * e;
            sum_x += ex;
            sum_x2 += ex * ex;
            let slack = 1e-5 * (1.0 + ex.abs());
            if e.abs() <= f64::from(bound) + slack {
                inside += 1.0;
            }
            if e.abs() <= f64::from(bound) * 3.0 / f64::from(EPSILON0) + slack {
                inside3 += 1.0;
            }
        }
    }
    let spread = (sum_x2 / n - (sum_x / n).powi(2)).max(0.0).sqrt();
    (
        sum_e / n,
        (sum_e2 / n).sqrt(),
        spread,
        inside / n,
        inside3 / n,
    )
}

/// The estimator is unbiased over random rotations (the mean error of 6 seeds is within noise
/// of 0) for every metric and width; its relative error shrinks as bits grow; the bound holds
/// for ≥ 90 % of pairs at ε₀ = 1.9 (≈ 97 % typically) and ≥ 99 % at ε₀ = 3.
#[test]
fn unbiased_and_sharpening_with_bits() {
    const SEEDS: u64 = 6;
    for (metric, dim) in [
        (Metric::L2, 128usize),
        (Metric::Cosine, 200),
        (Metric::InnerProduct, 96),
    ] {
        let data = clustered(200, dim, 1);
        let queries = clustered(16, dim, 2);
        let exact = exact_all(metric, &data, &queries, dim);
        let mut prev_rel = f64::INFINITY;
        for bits in 1..=8u8 {
            let (mut means, mut rel, mut rms_sum, mut inside, mut inside3) =
                (Vec::new(), 0.0, 0.0, 0.0f64, 0.0f64);
            for seed in 0..SEEDS {
                let params = RabitqParams::new(bits).with_query_bits(8).with_seed(seed);
                let index = RabitqIndex::encode_all(&data, dim, metric, params).unwrap();
                let (mean, rms, spread, ins, ins3) = error_stats(&index, &queries, &exact);
                means.push(mean);
                rel += rms / spread / SEEDS as f64;
                rms_sum += rms / SEEDS as f64;
                inside += ins / SEEDS as f64;
                inside3 += ins3 / SEEDS as f64;
            }
            let m = means.iter().sum::<f64>() / SEEDS as f64;
            let sd =
                (means.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (SEEDS - 1) as f64).sqrt();
            let se = sd / (SEEDS as f64).sqrt();
            eprintln!(
                "{metric:?} d{dim} bits {bits}: mean {m:+.5} (se {se:.5}) rms {rms_sum:.5} rel {rel:.4} \
                 in-bound@1.9 {inside:.4} @3 {inside3:.4}"
            );
            assert!(
                m.abs() <= 4.0 * se + 0.002 * rms_sum,
                "{metric:?} bits {bits}: bias {m} (se {se})"
            );
            assert!(
                rel < prev_rel,
                "{metric:?} bits {bits}: rel error {rel} >= {prev_rel}"
            );
            assert!(
                inside >= 0.90,
                "{metric:?} bits {bits}: only {inside} within the bound at 1.9"
            );
            assert!(
                inside3 >= 0.99,
                "{metric:?} bits {bits}: only {inside3} within the bound at 3"
            );
            prev_rel = rel;
        }
        assert!(
            prev_rel < 0.01,
            "{metric:?}: 8-bit relative error {prev_rel}"
        );
    }
}

/// The default query bits keep the relative error decreasing with bits too.
#[test]
fn default_query_bits_sharpen() {
    let dim = 128;
    let data = clustered(400, dim, 3);
    let queries = clustered(20, dim, 4);
    let exact = exact_all(Metric::L2, &data, &queries, dim);
    let mut prev = f64::INFINITY;
    for bits in 1..=8u8 {
        let index =
            RabitqIndex::encode_all(&data, dim, Metric::L2, RabitqParams::new(bits)).unwrap();
        let (mean, rms, spread, inside, inside3) = error_stats(&index, &queries, &exact);
        eprintln!(
            "default qbits, bits {bits}: mean {mean:+.5} rel {:.4} in-bound {inside:.4} / {inside3:.4}",
            rms / spread
        );
        assert!(rms / spread < prev * 1.02, "bits {bits}");
        assert!(inside >= 0.90 && inside3 >= 0.99);
        prev = prev.min(rms / spread);
    }
}

/// Every kernel set gives bit-identical estimates, for dims 1..=1100 (a spread with every
/// tail length mod 64 and every word count up to 18).
#[test]
fn kernel_sets_agree_on_estimates() {
    let sets = available_bit_kernels();
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let mut dims: Vec<usize> = (1..=130).collect();
    dims.extend((131..=1100).step_by(13));
    dims.extend([383, 384, 385, 1023, 1024, 1025, 1100]);
    for dim in dims {
        let bits = (dim % 8 + 1) as u8;
        let qbits = ((dim / 8) % 8 + 1) as u8;
        let data: Vec<f32> = (0..8 * dim).map(|_| gauss(&mut rng)).collect();
        let index = RabitqIndex::encode_all(
            &data,
            dim,
            Metric::L2,
            RabitqParams::new(bits).with_query_bits(qbits),
        )
        .unwrap();
        let q: Vec<f32> = (0..dim).map(|_| gauss(&mut rng)).collect();
        let mut pq = index.prepare(&q).unwrap();
        let want: Vec<u32> = (0..8).map(|i| index.estimate(&pq, i).to_bits()).collect();
        for set in &sets {
            pq.set_kernels(set);
            let got: Vec<u32> = (0..8).map(|i| index.estimate(&pq, i).to_bits()).collect();
            assert_eq!(
                got, want,
                "set {} dim {dim} bits {bits} qbits {qbits}",
                set.name
            );
        }
    }
}

/// A vector equal to the centroid has an exact estimate; a query equal to a data vector is
/// estimated at (near) distance 0 within the bound.
#[test]
fn exact_cases() {
    let dim = 64;
    let mut data = clustered(9, dim, 9);
    // make row 0 equal to the mean of all rows: append its mirror so the mean is known
    let mean: Vec<f32> = (0..dim)
        .map(|j| data.chunks_exact(dim).map(|r| r[j]).sum::<f32>() / 9.0)
        .collect();
    data.extend_from_slice(&mean);
    let index = RabitqIndex::encode_all(&data, dim, Metric::L2, RabitqParams::new(2)).unwrap();
    let q: Vec<f32> = (0..dim).map(|j| 0.1 * j as f32).collect();
    let pq = index.prepare(&q).unwrap();
    let ex = exact(Metric::L2, &q, &data[9 * dim..]);
    let est = f64::from(index.estimate(&pq, 9));
    assert!((est - ex).abs() <= 1e-3 * ex.max(1.0), "{est} vs {ex}");
    for bits in 1..=8 {
        let index =
            RabitqIndex::encode_all(&data, dim, Metric::L2, RabitqParams::new(bits)).unwrap();
        for i in 0..9u32 {
            let pq = index
                .prepare(&data[i as usize * dim..(i as usize + 1) * dim])
                .unwrap();
            let (e, b) = index.estimate_with_bound(&pq, i);
            assert!(e.abs() <= b + 1e-4, "bits {bits} vector {i}: {e} ± {b}");
        }
    }
}
