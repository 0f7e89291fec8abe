#!/usr/bin/env bash
# Both builds (native addon and wasm).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build-native.sh
bash scripts/build-wasm.sh
