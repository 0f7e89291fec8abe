// Types of the raw wasm loader under Node (internal to the package; used by its tests).

/** The wasm-bindgen module, initialised on first use (its classes are untyped here). */
export declare function loadWasm(): Record<string, unknown>;
