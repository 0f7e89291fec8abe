#!/usr/bin/env bash
# Native addon → npm/native/{horosvec.linux-x64-gnu.node, index.cjs, index.d.ts}
set -euo pipefail
cd "$(dirname "$0")/../npm"
npx napi build --manifest-path ../bindings-node/Cargo.toml --package-json-path package.json \
  --platform --release --output-dir native --js index.cjs --dts index.d.ts
