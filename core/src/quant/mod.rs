//! RaBitQ quantization: compact codes that estimate distances for graph traversal.
//!
//! Sources:
//! * J. Gao and C. Long, "RaBitQ: Quantizing High-Dimensional Vectors with a Theoretical Error
//!   Bound for Approximate Nearest Neighbor Search", SIGMOD 2024 (arXiv 2405.12497): the 1-bit
//!   code, the unbiased estimator and its error bound, the B_q-bit query bit-plane kernel.
//! * J. Gao, Y. Gou, Y. Xu, Y. Yang, C. Long and R. C.-W. Wong, "Practical and Asymptotically
//!   Optimal Quantization of High-Dimensional Vectors in Euclidean Space for Approximate Nearest
//!   Neighbor Search" (Extended RaBitQ), SIGMOD 2025 (arXiv 2409.09913): B-bit codes with a
//!   per-vector rescaling factor.
//! * VectorDB-NTU/RaBitQ-Library: the "FHT + Kac's walk" rotation, the folding of the correction
//!   factors (`F_add`, `F_rescale`, `F_error`), ε₀ = 1.9, the tight start of the rescaling search.
//!
//! # Pieces
//!
//! | file | concept |
//! | --- | --- |
//! | `rotation.rs` | [`Rotation`]: seeded, exactly orthogonal randomized Hadamard rotation over `dim` rounded up to 64 |
//! | `extended.rs` | one rotated residual → B-bit code (sign code at 1 bit, Extended RaBitQ rescaled grid above) |
//! | `kernels/` | [`BitKernels`]: `Σ uᵢ·qᵢ` of a bit-plane code and a quantised query (portable, POPCNT, AVX2, wasm SIMD128) |
//! | `query.rs` | [`PreparedQuery`]: the query rotated once, quantised to `query_bits`, per-query terms |
//! | `params.rs` | [`RabitqParams`]: code bits, query bits, rotation seed and rounds |
//! | `codes.rs` | the record layout (bit planes + [`Factors`]) in 64-byte-aligned storage |
//! | `rabitq.rs` | [`RabitqIndex`]: the codes of n vectors with their centroid and rotation |
//! | `encode.rs` | encoding and the constructors of [`RabitqIndex`] |
//! | `estimate.rs` | the estimator and its error bound |
//!
//! Codes are bit planes, most significant first, so the first `padded_dim/8` bytes of every code
//! are exactly its 1-bit RaBitQ code. Estimates are in the units of the exact distance (squared
//! L2, `1 − cos`, `−dot`), lower is closer; L1 is not supported (it walks with exact distances).
//! Everything is deterministic from the seed; encoding is parallel with the `parallel` feature and
//! gives the same bytes without it; every kernel set returns bit-identical estimates.
//!
//! ```
//! # use horosvec_core::quant::{RabitqIndex, RabitqParams};
//! # use horosvec_core::Metric;
//! let data: Vec<f32> = (0..64 * 100).map(|i| ((i * 7919) % 1000) as f32 / 1000.0).collect();
//! let index = RabitqIndex::encode_all(&data, 64, Metric::L2, RabitqParams::new(4)).unwrap();
//! let mut pq = index.new_query(); // reusable: prepare_into allocates nothing
//! index.prepare_into(&data[..64], &mut pq).unwrap();
//! let (est, bound) = index.estimate_with_bound(&pq, 0);
//! assert!(est.abs() <= bound + 1e-3); // vector 0 against itself: exact distance 0
//! ```
//!
//! # Measurements (`examples/rabitq_eval.rs`, reference machine, shared and noisy: ±30 % on times)
//!
//! Flat-scan recall@10: every base vector is ranked by its estimate, the best C are reranked
//! exactly, and the top 10 compared with the brute-force top 10 (C = 10 is no rerank). "rel. err"
//! is RMS(estimate − exact) / std(exact distances) per query, averaged. Default query bits
//! ([`RabitqParams::default_query_bits`]: 4, 5, 6, 7, then 8).
//!
//! **MiniLM 100k × 384, cosine, 1,000 queries** (the 20k × 384 sample in `data/sample` gives the
//! same errors, and recalls within 0.035):
//!
//! | bits | B/vector | rel. err | corr | C=10 | C=20 | C=50 | C=100 | C=200 |
//! | --- | --- | --- | --- | --- | --- | --- | --- | --- |
//! | 1 | 64 | 0.447 | 0.913 | 0.716 | 0.901 | 0.979 | 0.995 | 0.999 |
//! | 2 | 112 | 0.216 | 0.977 | 0.855 | 0.986 | 0.999 | 1.000 | 1.000 |
//! | 3 | 160 | 0.115 | 0.993 | 0.916 | 0.999 | 1.000 | 1.000 | 1.000 |
//! | 4 | 208 | 0.062 | 0.998 | 0.952 | 1.000 | 1.000 | 1.000 | 1.000 |
//! | 5 | 256 | 0.033 | 1.000 | 0.971 | 1.000 | 1.000 | 1.000 | 1.000 |
//! | 8 | 400 | 0.006 | 1.000 | 0.994 | 1.000 | 1.000 | 1.000 | 1.000 |
//!
//! **SIFT 85,888 × 128, squared L2, 1,000 queries** (where the predecessor's 1-bit codes failed):
//!
//! | bits | B/vector | rel. err | corr | C=10 | C=20 | C=50 | C=100 | C=200 |
//! | --- | --- | --- | --- | --- | --- | --- | --- | --- |
//! | 1 | 32 | 0.306 | 0.956 | 0.466 | 0.660 | 0.874 | 0.958 | 0.991 |
//! | 2 | 48 | 0.146 | 0.989 | 0.699 | 0.910 | 0.994 | 1.000 | 1.000 |
//! | 3 | 64 | 0.077 | 0.997 | 0.831 | 0.987 | 1.000 | 1.000 | 1.000 |
//! | 4 | 80 | 0.040 | 0.999 | 0.905 | 0.999 | 1.000 | 1.000 | 1.000 |
//! | 5 | 96 | 0.020 | 1.000 | 0.947 | 1.000 | 1.000 | 1.000 | 1.000 |
//! | 8 | 144 | 0.003 | 1.000 | 0.991 | 1.000 | 1.000 | 1.000 | 1.000 |
//!
//! **GloVe 200k × 50 (padded to 64), cosine, 1,000 queries**:
//!
//! | bits | B/vector | rel. err | corr | C=10 | C=20 | C=50 | C=100 | C=200 |
//! | --- | --- | --- | --- | --- | --- | --- | --- | --- |
//! | 1 | 24 | 0.537 | 0.881 | 0.286 | 0.418 | 0.608 | 0.744 | 0.855 |
//! | 2 | 32 | 0.255 | 0.969 | 0.595 | 0.795 | 0.947 | 0.988 | 0.999 |
//! | 3 | 40 | 0.132 | 0.991 | 0.767 | 0.956 | 0.999 | 1.000 | 1.000 |
//! | 4 | 48 | 0.067 | 0.998 | 0.872 | 0.995 | 1.000 | 1.000 | 1.000 |
//! | 5 | 56 | 0.033 | 0.999 | 0.933 | 1.000 | 1.000 | 1.000 | 1.000 |
//! | 8 | 80 | 0.005 | 1.000 | 0.987 | 1.000 | 1.000 | 1.000 | 1.000 |
//!
//! The error halves with every extra bit (Extended RaBitQ's `2^−B` law) and shrinks as `1/√D`.
//! The estimator is unbiased (tests: the mean error over 8 rotation seeds is within noise of 0).
//! The bound at ε₀ = 1.9 holds for 95–99 % of pairs (97 % at the default query bits), at ε₀ = 3
//! for ≥ 99.8 %: it behaves as ε₀ standard deviations of a near-Gaussian error.
//!
//! **Query bits** (sample, rel. err; 4-bit codes): 3 → 0.155, 4 → 0.091, 5 → 0.069, 6 → 0.063,
//! 7 → 0.062, 8 → 0.061. A B-bit code needs about B + 3 query bits before the data code, not the
//! query, limits the accuracy; at 1 bit 4 query bits suffice (0.447 vs 0.439 at 8). They are a
//! query-time choice ([`RabitqIndex::new_query_with_bits`]); the stored codes do not depend on them.
//!
//! **Time per estimate**, ns, codes in cache, one thread (`examples/rabitq_kbench.rs`, best of 25
//! interleaved rounds; encode ≈ 10 / 25 / 50 / 120 µs per 384-d vector per thread at 1 / 2 / 4 /
//! 8 bits; prepare ≈ 5–7 µs per 384-d query):
//!
//! | dim | bits × query bits | portable | popcnt | avx2 (chosen) | wasm32 in Node 20: portable (chosen) / simd128 |
//! | --- | --- | --- | --- | --- | --- |
//! | 384 | 1 × 4 | 29 | 16 | 16 | 30 / 36 |
//! | 384 | 2 × 5 | 64 | 36 | 33 | 59 / 83 |
//! | 384 | 4 × 7 | 211 | 92 | 59 | 121 / 225 |
//! | 384 | 5 × 8 | 298 | 126 | 72 | 362 / 464 |
//! | 128 | 1 × 4 | 14 | 10 | 10 | 17 / 25 |
//! | 128 | 4 × 7 | 105 | 38 | 24 | 72 / 177 |
//!
//! In a shuffled (graph-like) order over 100k vectors the 384-d 1-bit path costs ≈ 30 ns and the
//! 4-bit one ≈ 90–260 ns: memory, not arithmetic, then dominates (208 B = 4 cache lines;
//! [`RabitqIndex::prefetch`] helps the walk hide it).
//!
//! # Defaults and recommendations
//!
//! * [`RabitqParams::default`] is **4 bits** (query bits 7): with an exact rerank of the best
//!   **C = 2k** candidates (k = 10 → 20) the flat scan finds ≥ 99.5 % of the true top 10 on all
//!   three datasets, at 384, 128 and 50 dimensions.
//! * Smallest C for flat recall@10 ≥ 0.99, by dimension (k = 10):
//!
//!   | bits | 384-d | 128-d | 50-d |
//!   | --- | --- | --- | --- |
//!   | 1 | 100 (×10) | 200 (×20) | > 200 (unusable) |
//!   | 2 | 50 (×5) | 50 (×5) | 200 (×20) |
//!   | 3 | 20 (×2) | 50 (×5) | 50 (×5) |
//!   | 4 | 20 (×2) | 20 (×2) | 20 (×2) |
//!   | 5 | 20 (×2) | 20 (×2) | 20 (×2) |
//!
//! * Memory-bound high-dimensional sets (≥ 384-d) can use 2 bits (112 B at 384-d) with C = 5k,
//!   or 1 bit with C ≥ 10k. The graph index ([`crate::ann`]) uses 1 bit from 320 dimensions:
//!   its rerank walks all `ef` candidates and skips those whose bound rules them out, so the
//!   coarse codes cost few extra exact distances, and the walk stays under 200 B per vector.
//! * The graph walk should keep at least C candidates in its beam (ef ≥ C); bound-driven rerank
//!   can use [`RabitqIndex::estimate_with_bound`] with ε₀ = 3 for ≈ 99.9 % per-pair coverage.

mod codes;
mod encode;
mod estimate;
mod extended;
pub mod kernels;
mod params;
mod query;
mod rabitq;
mod rotation;

pub use codes::Factors;
pub use kernels::{available_bit_kernels, bit_kernels, BitKernels};
pub use params::RabitqParams;
pub use query::PreparedQuery;
pub use rabitq::RabitqIndex;
pub use rotation::{padded_dim_for, Rotation, DEFAULT_ROUNDS, MAX_ROUNDS};

/// Default ε₀ of the RaBitQ error bound (RaBitQ-Library's `kConstEpsilon`). The bound is ε₀
/// standard deviations of an error that is close to Gaussian, so ε₀ = 1.9 covers ≈ 94 % of pairs
/// and ε₀ = 3 ≈ 99.7 % (measured on real data: see the module documentation above). Set it per
/// query with [`PreparedQuery::set_epsilon0`].
pub const EPSILON0: f32 = 1.9;

/// Default seed of the rotation (any fixed value; persisted with the index).
pub const DEFAULT_SEED: u64 = 0x686f_726f_7376_6563; // "horosvec"
