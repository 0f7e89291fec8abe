// Browser and bundler entry: the wasm build. The .wasm file is located with
// `new URL(..., import.meta.url)`, which Vite, webpack and Rollup understand.
import init, * as wasm from './wasm/horosvec_wasm.js';
import { makeApi } from './lib/collection.js';

await init({ module_or_path: new URL('./wasm/horosvec_wasm_bg.wasm', import.meta.url) });

const api = makeApi(wasm);
export const Collection = api.Collection;
export const backend = api.backend;
export const kernel = api.kernel;
export const version = api.version;
export const openDatabase = api.openDatabase;
export const HorosvecError = api.HorosvecError;
export const isHorosvecError = api.isHorosvecError;
export default api;
