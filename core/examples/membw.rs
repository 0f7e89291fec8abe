//! Streaming read bandwidth of this machine: sums a large `f32` array (default 1 GiB) with one
//! thread, best of several passes. The exact-scan target ("≥ 70 % of streaming bandwidth") is
//! measured against this number.
//!
//! `cargo run --release -p horosvec-core --example membw [-- MiB]`
use std::time::Instant;

/// 16 independent accumulators so the adds are not latency-bound; the compiler vectorises.
fn sum_generic(data: &[f32]) -> f32 {
    let mut acc = [0.0f32; 16];
    for c in data.chunks_exact(16) {
        for j in 0..16 {
            acc[j] += c[j];
        }
    }
    acc.iter().sum()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sum_avx2(data: &[f32]) -> f32 {
    sum_generic(data)
}

fn sum(data: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 support was just detected on this CPU.
        return unsafe { sum_avx2(data) };
    }
    sum_generic(data)
}

fn main() {
    let mib: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1024);
    let n = mib * 1024 * 1024 / 4;
    let data: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let mut best = f64::MAX;
    let mut total = 0.0f32;
    for _ in 0..7 {
        let t = Instant::now();
        total += sum(&data);
        best = best.min(t.elapsed().as_secs_f64());
    }
    let gbps = (n * 4) as f64 / best / 1e9;
    println!("{{\"bench\":\"membw\",\"bytes\":{},\"best_s\":{:.4},\"gbps\":{:.2},\"threads\":1,\"checksum\":{}}}", n * 4, best, gbps, total);
}
