#!/usr/bin/env bash
# npm run demo:web: prepares what is missing (model files, the snapshot), builds the page for
# production (vite build → examples/semantic-search/dist) and serves it with `vite preview`,
# which prints its URL. Extra arguments go to `vite preview` (e.g. --port 5174). For editing the
# page, the dev server: npx vite --config examples/semantic-search/vite.config.mjs
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/prepare-model.sh
node examples/semantic-search/build-snapshot.mjs
npx vite build --config examples/semantic-search/vite.config.mjs --logLevel warn
exec npx vite preview --config examples/semantic-search/vite.config.mjs --strictPort=false "$@"
