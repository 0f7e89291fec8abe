//! horosvec's Node.js binding (napi-rs). Thin by rule: each method unpacks its arguments, calls
//! one `horosvec-core` method and converts the result. Errors cross as `Error`s whose message
//! starts with the stable code (`HV_DIM_MISMATCH: …`); the package's JS layer (`npm/lib/`) moves
//! it onto `err.code`. Panics are caught (`catch_unwind`) and never cross into JS.
#![deny(clippy::all)]

mod collection;
mod convert;
mod error;
mod query;

use napi_derive::napi;

/// Which build this is: always `"native"` here (`"wasm"` in the WebAssembly build).
#[napi]
pub fn backend() -> &'static str {
    "native"
}

/// A snapshot checksum of `bytes` (`crc32`: CRC-32, else xxh3-64), as a number: for
/// `bench/checksum.mjs`, which times this call (no copy of the bytes is made).
#[napi(js_name = "hashBench")]
pub fn hash_bench(bytes: napi::bindgen_prelude::Uint8Array, crc32: bool) -> f64 {
    let h = horosvec_core::checksum_for_bench(&bytes, crc32);
    (h & ((1 << 52) - 1)) as f64
}

/// Name of the distance kernel set picked for this CPU (e.g. `"avx2-fma-f16c"`).
#[napi]
pub fn kernel() -> &'static str {
    horosvec_core::kernels().name
}

/// The core's version.
#[napi]
pub fn version() -> &'static str {
    horosvec_core::VERSION
}

/// Threads in the pool that runs batch searches (rayon's global pool).
#[napi]
pub fn threads() -> u32 {
    horosvec_core::parallelism() as u32
}
