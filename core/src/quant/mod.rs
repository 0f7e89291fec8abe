//! RaBitQ quantization: compact codes that estimate distances for graph traversal.
//!
//! Sources:
//! * J. Gao and C. Long, "RaBitQ: Quantizing High-Dimensional Vectors with a Theoretical Error
//!   Bound for Approximate Nearest Neighbor Search", SIGMOD 2024 (arXiv 2405.12497): the 1-bit
//!   code, the unbiased estimator and its error bound, the 4-bit query bit-plane kernel.
//! * J. Gao, Y. Gou, Y. Xu, Y. Yang, C. Long and R. C.-W. Wong, "Practical and Asymptotically
//!   Optimal Quantization of High-Dimensional Vectors in Euclidean Space for Approximate Nearest
//!   Neighbor Search" (Extended RaBitQ), SIGMOD 2025 (arXiv 2409.09913): B-bit codes with a
//!   per-vector rescaling factor.
//! * VectorDB-NTU/RaBitQ-Library: the "FHT + Kac's walk" rotation, the folding of the factors
//!   and the tight start of the rescaling search.
//!
//! Files: `rotation.rs` (the seeded orthogonal rotation), `extended.rs` (one residual → B-bit
//! code), `kernels/` (bit-plane integer kernels with per-ISA variants), `query.rs` (the prepared
//! query), `rabitq.rs` (the index of codes and the estimator).
//!
//! # Quick use
//!
//! ```
//! # use horosvec_core::quant::{RabitqIndex, RabitqParams};
//! # use horosvec_core::Metric;
//! let data: Vec<f32> = (0..64 * 100).map(|i| ((i * 7919) % 1000) as f32 / 1000.0).collect();
//! let index = RabitqIndex::encode_all(&data, 64, Metric::L2, RabitqParams::new(4)).unwrap();
//! let pq = index.prepare(&data[..64]).unwrap();
//! let (est, bound) = index.estimate_with_bound(&pq, 0);
//! assert!(est.abs() <= bound + 1e-3); // vector 0 against itself: exact distance 0
//! ```
//!
//! # Measurements and defaults
//!
//! See `MEASUREMENTS` below (filled from `examples/rabitq_eval.rs`).

mod extended;
pub mod kernels;
mod query;
mod rabitq;
mod rotation;

pub use kernels::{available_bit_kernels, bit_kernels, BitKernels};
pub use query::PreparedQuery;
pub use rabitq::{Factors, RabitqIndex, RabitqParams, DEFAULT_SEED, EPSILON0};
pub use rotation::{padded_dim_for, Rotation, DEFAULT_ROUNDS, MAX_ROUNDS};
