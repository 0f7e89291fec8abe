// Node entry: the native addon (napi-rs) when it loads, else the wasm build. No top-level await,
// so `require('horosvec')` works from CommonJS too. HOROSVEC_FORCE_WASM=1 forces wasm;
// HOROSVEC_DEBUG=1 prints one line saying why the native addon was not used.
import { createRequire } from 'node:module';
import { makeApi } from './lib/collection.js';

const require = createRequire(import.meta.url);

function load() {
  if (process.env.HOROSVEC_FORCE_WASM === '1') {
    if (process.env.HOROSVEC_DEBUG) console.warn('horosvec: HOROSVEC_FORCE_WASM=1, using the wasm backend');
  } else {
    try {
      return require('./native/index.cjs');
    } catch (e) {
      if (process.env.HOROSVEC_DEBUG) {
        console.warn(`horosvec: native addon unavailable, using wasm: ${String(e && e.message).split('\n')[0]}`);
      }
    }
  }
  return require('./lib/wasm-raw-node.js');
}

const api = makeApi(load());
export const Collection = api.Collection;
export const backend = api.backend;
export const kernel = api.kernel;
export const version = api.version;
export const openDatabase = api.openDatabase;
export const HorosvecError = api.HorosvecError;
export const isHorosvecError = api.isHorosvecError;
export default api;
