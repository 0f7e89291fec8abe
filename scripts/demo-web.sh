#!/usr/bin/env bash
# npm run demo:web: prepares what is missing (model files, onnxruntime-web wasm, the snapshot),
# then serves examples/semantic-search with Vite and prints its URL. Extra arguments go to Vite
# (e.g. --port 5174).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/prepare-model.sh
node examples/semantic-search/build-snapshot.mjs
exec npx vite --config examples/semantic-search/vite.config.mjs --strictPort=false "$@"
