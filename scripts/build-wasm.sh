#!/usr/bin/env bash
# wasm build (SIMD128 from .cargo/config.toml) → npm/wasm/ via the xtask (wasm-bindgen library).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${RUSTFLAGS:-}" ]; then
  echo "build-wasm: RUSTFLAGS is set and would replace the +simd128 flag of .cargo/config.toml; unset it" >&2
  exit 1
fi
cargo build --release --target wasm32-unknown-unknown -p horosvec-wasm
cargo run -q -p xtask -- bindgen target/wasm32-unknown-unknown/release/horosvec_wasm.wasm npm/wasm web
node scripts/inline-wasm.mjs
