//! horosvec's WebAssembly binding (wasm-bindgen, SIMD128). Thin by rule: each method unpacks its
//! arguments, calls one `horosvec-core` method and converts the result. Errors are JS `Error`s
//! with `code` set to the core's stable code (and the code also leads the message, as in the
//! Node binding). Everything runs synchronously on the calling thread; the package's JS layer
//! wraps the same calls in Promises.

mod collection;
mod convert;
mod durable;
mod opfs;
mod reads;

use wasm_bindgen::prelude::*;

/// Which build this is: always `"wasm"` here.
#[wasm_bindgen]
pub fn backend() -> String {
    "wasm".into()
}

/// Name of the distance kernel set (`"wasm-simd128"` when built with SIMD128).
#[wasm_bindgen]
pub fn kernel() -> String {
    horosvec_core::kernels().name.into()
}

/// The core's version.
#[wasm_bindgen]
pub fn version() -> String {
    horosvec_core::VERSION.into()
}

/// Threads used by batch search: 1 (no threads in this build).
#[wasm_bindgen]
pub fn threads() -> u32 {
    horosvec_core::parallelism() as u32
}

/// True when this module was compiled with the SIMD128 proposal enabled.
#[wasm_bindgen(js_name = simd128Enabled)]
pub fn simd128_enabled() -> bool {
    cfg!(target_feature = "simd128")
}
