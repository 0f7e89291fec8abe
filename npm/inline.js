// `horosvec/inline`: the wasm build with its binary embedded in this JS (base64, ~0.96 MB) and
// instantiated synchronously at import: no .wasm file for a bundler to emit, no top-level await
// (so esbuild's default iife format works), and the same API as `horosvec` on the wasm backend.
// For bundlers that emit no `new URL(..., import.meta.url)` asset (esbuild, Rollup), and for any
// runtime without file or network access to the package.
import * as wasm from './wasm/horosvec_wasm.js';
import base64 from './wasm/horosvec_wasm_inline.js';
import { makeApi } from './lib/collection.js';

function decode(s) {
  if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(s);
  const bin = atob(s);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

wasm.initSync({ module: decode(base64) });

const api = makeApi(wasm, { reason: 'the horosvec/inline entry point always uses the wasm build' });
export const Collection = api.Collection;
export const backend = api.backend;
export const kernel = api.kernel;
export const version = api.version;
export const openDatabase = api.openDatabase;
export const HorosvecError = api.HorosvecError;
export const isHorosvecError = api.isHorosvecError;
export default api;
