//! # horosvec-core
//!
//! All behaviour of horosvec, an embedded vector database for JavaScript: distance kernels,
//! collections searched exactly or through a Vamana + RaBitQ index, sealed segments, durable
//! storage and snapshots. The Node (napi-rs) and WebAssembly (wasm-bindgen) bindings only
//! convert arguments, call this crate and convert results back.
//!
//! ```
//! use horosvec_core::{Collection, Metric, SearchOptions, VectorId};
//! let mut col = Collection::new(2, Metric::L2).unwrap();
//! col.add(vec![VectorId::Int(1), "b".into()], &[0.0, 0.0, 1.0, 1.0], None).unwrap();
//! let hits = col.search(&[0.9, 0.8], &SearchOptions::new(1).unwrap()).unwrap();
//! assert_eq!(hits[0].id, VectorId::from("b"));
//! assert!((hits[0].distance - 0.05).abs() < 1e-6); // squared L2: 0.1² + 0.2²
//! ```
//!
//! Conventions: vectors are `f32`; batches are flat `n × dim` row-major slices; every distance is
//! reported so that lower is closer; every error carries a stable code ([`ErrorCode`]).
#![warn(missing_docs)]

pub mod ann;
pub mod args;
pub mod collection;
pub mod distance;
pub mod durable;
pub mod error;
pub mod filter;
pub mod flat;
pub mod graph;
pub mod mem;
mod metadata;
pub mod quant;
pub(crate) mod region;
mod rng;
pub mod rowdata;
pub mod segment;
pub(crate) mod snapshot;
pub mod store;
pub mod types;
pub(crate) mod vector;

pub use ann::{default_bits, AnnIndex, IndexParams, AUTO_BITS, RERANK_EPSILON0};
pub use collection::{
    Collection, FilterCounts, ListPage, ListQuery, ListedRecord, PreparedWrite, SearchHit,
    SearchOptions, Stats, WriteKind, DEFAULT_EF, FLAT_THRESHOLD, MAX_DIM, MAX_LIST_LIMIT,
};
pub use distance::{kernels, Kernels};
pub use error::{Error, ErrorCode, Result};
pub use filter::Filter;
pub use region::{AlignedBuf, Backing};
pub use rowdata::Precision;
pub use types::{Metric, VectorId, MAX_SAFE_INTEGER};
pub use vector::MIN_COSINE_NORM;

/// Threads used by batch search: the rayon pool's size natively, 1 without the `parallel` feature.
pub fn parallelism() -> usize {
    #[cfg(feature = "parallel")]
    {
        rayon::current_num_threads()
    }
    #[cfg(not(feature = "parallel"))]
    {
        1
    }
}

/// The crate version (also the npm package version).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A snapshot checksum of `bytes`, for `bench/checksum.mjs` through the bindings' `hashBench`:
/// CRC-32 (`crc32`: versions 1–4 and segment sections) or xxh3-64 (version 5). Not part of the
/// API.
#[doc(hidden)]
pub fn checksum_for_bench(bytes: &[u8], crc32: bool) -> u64 {
    if crc32 {
        u64::from(crc32fast::hash(bytes))
    } else {
        snapshot::checksum(bytes)
    }
}
