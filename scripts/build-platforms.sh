#!/usr/bin/env bash
# Cross-builds the Node addon (bindings-node, release) for each platform key with zig through
# cargo-zigbuild (scripts/setup-cross.sh installs both) and writes
# npm/platforms/<key>/horosvec.<key>.node. Usage: scripts/build-platforms.sh [key ...] (default:
# all seven). Prints one line per key with its build time; docs/platforms.md says why each
# target is built the way it is.
#   gnu:     glibc symbol versions capped at 2.28 (cargo-zigbuild's `<triple>.2.28` suffix)
#   musl:    a cdylib needs `-C target-feature=-crt-static` (musl targets link statically by
#            default, which a shared object cannot)
#   darwin:  zig links against its own macOS libSystem stubs; no SDK needed. Minimum macOS
#            10.15 (x64, Node 20's own floor) and 11.0 (arm64); zig's default would be 13.0
#   windows: x86_64-pc-windows-gnu (MSVC needs Microsoft's CRT and SDK, which cannot be
#            downloaded here). napi-build insists on linking a libnode.dll on the GNU target,
#            although napi-rs 3 resolves every N-API function from the host process at load time
#            (napi-sys's default `dyn-symbols`): an empty archive stands in for it, and
#            `check-artifacts` confirms the DLL imports no node library.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export PATH="$root/target/cross/pip/ziglang:$root/target/cross/pip/bin:$PATH"
if ! command -v cargo-zigbuild >/dev/null || ! command -v zig >/dev/null; then
  echo "build-platforms: zig/cargo-zigbuild missing; run scripts/setup-cross.sh" >&2
  exit 1
fi
ALL=(linux-x64-gnu linux-x64-musl linux-arm64-gnu linux-arm64-musl darwin-x64 darwin-arm64 win32-x64-gnu)
keys=("$@")
[ "${#keys[@]}" -gt 0 ] || keys=("${ALL[@]}")

target_of() {
  case "$1" in
    linux-x64-gnu) echo x86_64-unknown-linux-gnu ;;
    linux-x64-musl) echo x86_64-unknown-linux-musl ;;
    linux-arm64-gnu) echo aarch64-unknown-linux-gnu ;;
    linux-arm64-musl) echo aarch64-unknown-linux-musl ;;
    darwin-x64) echo x86_64-apple-darwin ;;
    darwin-arm64) echo aarch64-apple-darwin ;;
    win32-x64-gnu) echo x86_64-pc-windows-gnu ;;
    *) return 1 ;;
  esac
}

fail=0
for key in "${keys[@]}"; do
  if ! triple=$(target_of "$key"); then
    echo "build-platforms: unknown key $key (known: ${ALL[*]})" >&2
    exit 2
  fi
  zt=$triple
  env=()
  case "$triple" in
    *-linux-gnu) zt=$triple.2.28 ;;
    *-linux-musl)
      v=CARGO_TARGET_$(echo "$triple" | tr 'a-z-' 'A-Z_')_RUSTFLAGS
      env+=("$v=-C target-feature=-crt-static")
      ;;
    x86_64-apple-darwin) env+=(MACOSX_DEPLOYMENT_TARGET=10.15) ;; # Node 20's own minimum
    aarch64-apple-darwin) env+=(MACOSX_DEPLOYMENT_TARGET=11.0) ;; # the first arm64 macOS
    *-windows-gnu)
      stub=$root/target/cross/libnode-stub
      mkdir -p "$stub"
      printf '!<arch>\n' >"$stub/libnode.a"
      : >"$stub/libnode.dll"
      env+=("LIBNODE_PATH=$stub")
      ;;
  esac
  case "$triple" in
    *-apple-darwin) lib=libhorosvec_node.dylib ;;
    *-windows-*) lib=horosvec_node.dll ;;
    *) lib=libhorosvec_node.so ;;
  esac
  s=$SECONDS
  if env "${env[@]}" nice cargo zigbuild --release --quiet -p horosvec-node --target "$zt"; then
    mkdir -p "npm/platforms/$key"
    cp "target/$triple/release/$lib" "npm/platforms/$key/horosvec.$key.node"
    echo "[build-platforms] $key ($zt): ok in $((SECONDS - s)) s -> npm/platforms/$key/horosvec.$key.node"
    # key, seconds, date: check-artifacts --times shows the last build's time per key
    times=target/cross/build-times.tsv
    touch "$times"
    { grep -v "^$key	" "$times" || true; printf '%s\t%s\t%s\n' "$key" "$((SECONDS - s))" "$(date -u +%FT%TZ)"; } >"$times.new"
    mv "$times.new" "$times"
  else
    echo "[build-platforms] $key ($zt): FAILED after $((SECONDS - s)) s"
    fail=1
  fi
done
exit $fail
