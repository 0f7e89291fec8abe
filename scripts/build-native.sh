#!/usr/bin/env bash
# Native addon → npm/native/{horosvec.linux-x64-gnu.node, index.d.ts} (npm/node.js loads the
# .node itself: no napi-generated JS loader)
set -euo pipefail
cd "$(dirname "$0")/../npm"
npx napi build --manifest-path ../bindings-node/Cargo.toml --package-json-path package.json \
  --platform --release --output-dir native --no-js --dts index.d.ts
rm -f native/index.cjs
