// `horosvec/wasm` under Node: the public API over the wasm build (for comparisons and tests).
import { loadWasm } from './lib/wasm-raw-node.js';
import { makeApi } from './lib/collection.js';
import { readSnapshotFile } from './lib/snapshot-file-node.js';

const api = makeApi(loadWasm(), {
  reason: 'the horosvec/wasm entry point always uses the wasm build',
  unsupported: (what) => `${what} needs the native addon, and horosvec/wasm is the in-memory wasm build: import 'horosvec' for durable collections`,
  readSnapshotFile,
});
export const Collection = api.Collection;
export const backend = api.backend;
export const kernel = api.kernel;
export const version = api.version;
export const openDatabase = api.openDatabase;
export const HorosvecError = api.HorosvecError;
export const isHorosvecError = api.isHorosvecError;
export default api;
