#!/usr/bin/env bash
# Native addon → npm/native/{horosvec.linux-x64-gnu.node, index.d.ts} (npm/node.js loads the
# .node itself: no napi-generated JS loader)
# When scripts/setup-cross.sh has installed zig and cargo-zigbuild (target/cross/pip), the addon
# is built through them with glibc symbols capped at 2.28 (napi's --cross-compile), so the
# binary the tests load is the one linux-x64-gnu ships; without them (or with
# HOROSVEC_NATIVE_HOST=1) it is linked against this machine's glibc.
set -euo pipefail
cd "$(dirname "$0")/../npm"
cross=(--platform)
zigdir=$PWD/../target/cross/pip
if [ "${HOROSVEC_NATIVE_HOST:-0}" != 1 ] && [ "$(uname -m)" = x86_64 ] &&
  [ -x "$zigdir/ziglang/zig" ] && [ -x "$zigdir/bin/cargo-zigbuild" ]; then
  export PATH="$zigdir/ziglang:$zigdir/bin:$PATH"
  cross=(--platform --target x86_64-unknown-linux-gnu.2.28 --cross-compile)
fi
npx napi build --manifest-path ../bindings-node/Cargo.toml --package-json-path package.json \
  "${cross[@]}" --release --output-dir native --no-js --dts index.d.ts
rm -f native/index.cjs
