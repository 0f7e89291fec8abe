// Node entry (also Bun's and Deno's): the native addon when one loads, else the wasm build, with
// the reason recorded (stats().backendReason, Collection.open's HV_UNSUPPORTED) and printed as
// one line under HOROSVEC_DEBUG=1. The addon is the checkout's npm/native/horosvec.<key>.node
// (development), else the optional package @horosvec/<key>, required by a computed name
// (lib/platform.js). No top-level await, so `require('horosvec')` works from CommonJS too.
// HOROSVEC_FORCE_WASM=1 (or true) forces wasm. Reading the environment never throws (Deno
// without --allow-env reads nothing).
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeApi } from './lib/collection.js';
import { hvError } from './lib/errors.js';
import { binaryName, explainFailure, granted, hostInfo, hostKey, isTruthy, loadNative, readEnv, truncatedElf, unsupportedMessage } from './lib/platform.js';
import { readSnapshotFile } from './lib/snapshot-file-node.js';
import { loadWasm } from './lib/wasm-raw-node.js';

// Server bundles: `createRequire` comes from process.getBuiltinModule, not an import, so webpack
// and Turbopack do not trace the addon's computed require; in a CommonJS bundle (esbuild
// --platform=node) import.meta is empty, and the require resolves from the bundle's file.
const here = import.meta.url;
const { createRequire } = process.getBuiltinModule('node:module');
const require = createRequire(here ?? __filename);

function load() {
  const debug = isTruthy(readEnv('HOROSVEC_DEBUG'));
  const force = readEnv('HOROSVEC_FORCE_WASM');
  const readFile = (p) => readFileSync(p, 'utf8');
  const host = hostInfo(process, readFile, granted, { quick: true });
  const key = hostKey(host);
  let fallback;
  if (isTruthy(force)) {
    fallback = { kind: 'forced', key, reason: `HOROSVEC_FORCE_WASM=${force} is set` };
  } else {
    // a path join, not new URL(..., import.meta.url), which bundlers read as an asset to emit
    const devPath = here ? join(dirname(fileURLToPath(here)), 'native', binaryName(key)) : null;
    const exists = (p) => {
      try {
        return granted({ name: 'read', path: p }) && existsSync(p);
      } catch {
        return false;
      }
    };
    // a truncated addon would kill the process in dlopen (SIGBUS): refused with its reason
    const check = (p) => {
      try {
        if (!granted({ name: 'read', path: p })) return null;
        const fd = openSync(p, 'r');
        try {
          const header = new Uint8Array(64);
          return truncatedElf(header.subarray(0, readSync(fd, header, 0, 64, 0)), fstatSync(fd).size);
        } finally {
          closeSync(fd);
        }
      } catch {
        return null;
      }
    };
    let r = loadNative(host, devPath, { exists, require, resolve: require.resolve, check });
    if (r.binding) {
      if (debug) console.warn(`horosvec: using the native addon (${r.from})`);
      return makeApi(r.binding, { reason: null });
    }
    // the glibc version (the diagnostic report) only now, to explain a failed load
    if (r.kind === 'load-error' && host.libc === 'glibc') r = explainFailure(r, hostInfo(process, readFile));
    fallback = { kind: r.kind, key, reason: r.reason };
  }
  // A refused permission (Deno without --allow-ffi) is the user's to fix: said even without
  // HOROSVEC_DEBUG. Every other reason is printed under HOROSVEC_DEBUG=1 only.
  if (debug || fallback.kind === 'permission') console.warn(`horosvec: using the wasm build (in memory only): ${fallback.reason}`);
  let raw;
  try {
    raw = loadWasm();
  } catch (e) {
    // Deno without --allow-read cannot read the .wasm file either: say what to grant
    // (a path join, not new URL(..., import.meta.url): bundlers would read that as an asset)
    if (!here || granted({ name: 'read', path: join(dirname(fileURLToPath(here)), 'wasm') })) throw e;
    throw hvError('HV_UNSUPPORTED', 'horosvec cannot load: Deno denied reading its files (run with --allow-ffi for the native addon, or --allow-read for the wasm build)', e);
  }
  return makeApi(raw, { reason: fallback.reason, unsupported: (what) => unsupportedMessage(what, fallback), readSnapshotFile });
}

const api = load();
export const Collection = api.Collection;
export const backend = api.backend;
export const kernel = api.kernel;
export const version = api.version;
export const openDatabase = api.openDatabase;
export const HorosvecError = api.HorosvecError;
export const isHorosvecError = api.isHorosvecError;
export default api;
