#!/usr/bin/env bash
# `npm run demo`: set-up (without Chromium), both builds, then the demo on the shipped sample.
set -euo pipefail
cd "$(dirname "$0")/.."
HOROSVEC_NO_BROWSER=1 bash scripts/setup.sh
bash scripts/build-native.sh
bash scripts/build-wasm.sh
node examples/demo.mjs
