//! Core errors → napi errors. The message starts with the stable code so the JS layer can set
//! `err.code`; a caught panic arrives without a code and becomes `HV_INTERNAL` there.

/// Converts a core error into a napi error `"<CODE>: <message>"`.
pub fn to_napi(e: horosvec_core::Error) -> napi::Error {
    napi::Error::from_reason(format!("{}: {}", e.code().as_str(), e))
}

/// Runs `f`, turning a panic into `HV_INTERNAL` (used inside worker-thread tasks, where napi's
/// `catch_unwind` attribute does not reach).
pub fn guard<T>(f: impl FnOnce() -> horosvec_core::Result<T>) -> napi::Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r.map_err(to_napi),
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".into());
            Err(to_napi(horosvec_core::Error::Internal(msg)))
        }
    }
}
