// Browser and bundler entry: the wasm build. The .wasm file is located with
// `new URL(..., import.meta.url)`, which Vite and webpack understand (they emit it as an asset).
// esbuild and Rollup leave that URL alone and emit no .wasm: the fetch then fails with an HV_IO
// error that says what to do (`horosvec/inline`, the same API with the binary inside the JS).
import init, * as wasm from './wasm/horosvec_wasm.js';
import { makeApi } from './lib/collection.js';
import { hvError } from './lib/errors.js';

const url = new URL('./wasm/horosvec_wasm_bg.wasm', import.meta.url);

const loadError = (why, cause) =>
  hvError(
    'HV_IO',
    `horosvec could not load its WebAssembly binary from ${url} (${why}). If your bundler did not emit ` +
      'horosvec_wasm_bg.wasm (esbuild and Rollup do not copy files named by new URL(..., import.meta.url)), ' +
      "import 'horosvec/inline' instead (the binary embedded in the JS), or serve " +
      'node_modules/horosvec/wasm/horosvec_wasm_bg.wasm at that URL.',
    cause,
  );

async function load() {
  let response;
  try {
    response = await fetch(url);
  } catch (e) {
    throw loadError(String(e?.message ?? e), e);
  }
  if (!response.ok) throw loadError(`HTTP ${response.status}`);
  try {
    await init({ module_or_path: response });
  } catch (e) {
    throw loadError(String(e?.message ?? e).split('\n')[0], e);
  }
}

await load();

const api = makeApi(wasm);
export const Collection = api.Collection;
export const backend = api.backend;
export const kernel = api.kernel;
export const version = api.version;
export const openDatabase = api.openDatabase;
export const HorosvecError = api.HorosvecError;
export const isHorosvecError = api.isHorosvecError;
export default api;
