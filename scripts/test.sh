#!/usr/bin/env bash
# The whole test suite (what `npm test` and .ci/run run): set-up; the enforced habits (rustfmt;
# core/src's structure rules, scripts/check-structure.mjs: no module cycle, no file above 400
# lines but kernels; clippy with -D warnings natively and for wasm32, the lints of
# [workspace.lints]; rustdoc without warnings); the Rust tests; both builds; the typings; the JS
# contract tests on both backends; the linux-arm64-gnu cross build and its contract tests under
# qemu (HOROSVEC_NO_CROSS=1 skips it); the browser tests in headless Chromium (vitest browser
# mode, the example page, the semantic-search page, the OPFS crash test, the wasm heap test); the ecosystem
# matrix (tests-js/ecosystem/run.mjs: the packed tarballs in fresh projects).
# Each runner prints a closing line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
t() { local s=$SECONDS; "$@"; local rc=$?; echo "[test] $* took $((SECONDS - s))s (exit $rc)"; return $rc; }
fail=0
t bash scripts/setup.sh || exit 1
t cargo fmt --all --check || fail=1
t node scripts/check-structure.mjs || fail=1
t cargo clippy --all-targets --features horosvec-core/durable -- -D warnings || fail=1
t cargo clippy -p horosvec-core -p horosvec-wasm --no-default-features --target wasm32-unknown-unknown -- -D warnings || fail=1
RUSTDOCFLAGS='-D warnings' t cargo doc -p horosvec-core --features durable --no-deps || fail=1
t cargo test -p horosvec-core --release --features durable || fail=1
t bash scripts/build-native.sh || exit 1
t bash scripts/build-wasm.sh || exit 1
if [ "${HOROSVEC_NO_CROSS:-0}" != 1 ]; then
  # linux-arm64-gnu cross-built with zig (glibc 2.28 floor), checked, and its contract and durable
  # tests run on an arm64 Node under qemu-user (docs/platforms.md; the other keys:
  # npm run test:platforms)
  t bash scripts/build-platforms.sh linux-arm64-gnu || fail=1
  t cargo test -q -p xtask || fail=1
  t cargo run -q -p xtask -- check-artifacts npm/platforms linux-arm64-gnu || fail=1
  t bash scripts/test-platforms.sh --arm64-only || fail=1
fi
t npx tsc -p tsconfig.json || fail=1
t npx tsc -p tsconfig.llamaindex.json || fail=1
mkdir -p target
t npx vitest run --reporter=default --reporter=json --outputFile.json=target/vitest-node.json
node scripts/vitest-summary.mjs target/vitest-node.json js-node || fail=1
t npx vitest run -c vitest.browser.config.ts --reporter=default --reporter=json --outputFile.json=target/vitest-browser.json
node scripts/vitest-summary.mjs target/vitest-browser.json js-browser || fail=1
t node tests-js/browser/e2e.mjs || fail=1
# the semantic-search page (examples/semantic-search): its production build in headless Chromium,
# results against the Node search, no main-thread task over 50 ms (~30 s)
t node tests-js/browser/semantic-search.e2e.mjs || fail=1
# OPFS durable collections: renderer crashes and browser SIGKILLs mid-write (~45 s)
t node tests-js/browser/opfs-crash.mjs || fail=1
# eight 50,000 x 384 collections in one Chromium page, then its wasm heap filled to 4 GiB
t node tests-js/browser/memory.e2e.mjs || fail=1
# the ecosystem matrix: the packed tarballs in fresh projects (bundlers, frameworks, runtimes)
t node tests-js/ecosystem/run.mjs || fail=1
if [ "$fail" = 0 ]; then echo "[test] all suites passed"; else echo "[test] FAILED"; fi
exit $fail
