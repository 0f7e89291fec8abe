//! horosvec's WebAssembly binding (wasm-bindgen, SIMD128). Thin by rule: each method unpacks its
//! arguments, calls one `horosvec-core` method and converts the result. Errors are JS `Error`s
//! with `code` set to the core's stable code (and the code also leads the message, as in the
//! Node binding). Everything runs synchronously on the calling thread; the package's JS layer
//! wraps the same calls in Promises.
//!
//! A trap (`RuntimeError: unreachable`) has two sources here: a panic (a bug; the build aborts
//! on panic) and an allocation that failed where no headroom check ran first. The panic hook
//! records that a panic happened, so the JS layer tells the two apart ([`take_panic`]: `None`
//! after a trap means the heap ran out) and raises `HV_INTERNAL` or `HV_OUT_OF_MEMORY`.

mod collection;
mod convert;
mod durable;
mod opfs;
mod reads;
mod snapshot;

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

thread_local! {
    // wasm32 without threads: one instance of this, ever
    static PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs the panic hook (wasm-bindgen runs this when the module is instantiated).
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        // the mark first: formatting the message needs memory, which may be what ran out
        PANIC.with(|p| *p.borrow_mut() = Some(String::new()));
        let message = info.to_string();
        PANIC.with(|p| *p.borrow_mut() = Some(message));
    }));
}

/// After a trap: the message of the panic that caused it (taken: the next call returns `None`),
/// or `None` when no panic ran, i.e. an allocation failed.
#[wasm_bindgen(js_name = takePanic)]
pub fn take_panic() -> Option<String> {
    PANIC.with(|p| p.borrow_mut().take())
}

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
