//! Micro-benchmark of the RaBitQ estimator per bit-kernel set: ns per estimate for several
//! (bits, query bits), codes in cache, best of N interleaved rounds, one thread.
//!
//! `cargo run --release -p horosvec-core --example rabitq_kbench -- [DIM] [ROUNDS]` (defaults 384, 15).
use horosvec_core::quant::{available_bit_kernels, RabitqIndex, RabitqParams};
use horosvec_core::Metric;
use std::time::Instant;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dim: usize = args.get(1).map_or(384, |s| s.parse().unwrap());
    let rounds: usize = args.get(2).map_or(15, |s| s.parse().unwrap());
    let n = 4096; // codes stay in L2: measures compute, not memory
    let data: Vec<f32> = (0..n * dim)
        .map(|i| ((((i as u64).wrapping_mul(2654435761)) % 1000) as f32 / 500.0) - 1.0)
        .collect();
    let combos: &[(u8, u8)] = &[
        (1, 4),
        (1, 8),
        (2, 5),
        (2, 8),
        (3, 6),
        (4, 4),
        (4, 7),
        (4, 8),
        (5, 8),
        (8, 7),
        (8, 8),
    ];
    let sets = available_bit_kernels();
    println!("dim {dim}, {n} codes, best of {rounds} interleaved rounds, ns per estimate");
    println!(
        "| bits | qbits | {} |",
        sets.iter().map(|s| s.name).collect::<Vec<_>>().join(" | ")
    );
    for &(bits, qbits) in combos {
        let idx = RabitqIndex::encode_all(
            &data,
            dim,
            Metric::L2,
            RabitqParams::new(bits).with_query_bits(qbits),
        )
        .unwrap();
        let mut pq = idx.prepare(&data[..dim]).unwrap();
        let mut best = vec![f64::INFINITY; sets.len()];
        let mut sink = 0.0f32;
        for _ in 0..rounds {
            for (k, set) in sets.iter().enumerate() {
                pq.set_kernels(set);
                let t = Instant::now();
                for _ in 0..4 {
                    for i in 0..n as u32 {
                        sink += idx.estimate(&pq, i);
                    }
                }
                best[k] = best[k].min(t.elapsed().as_secs_f64() / (4 * n) as f64);
            }
        }
        std::hint::black_box(sink);
        println!(
            "| {bits} | {qbits} | {} |",
            best.iter()
                .map(|b| format!("{:.1}", b * 1e9))
                .collect::<Vec<_>>()
                .join(" | ")
        );
    }
}
