// The raw wasm module under Node: bytes read from disk and instantiated synchronously (Node
// cannot fetch file:// URLs, so the web target's `init()` would fail there).
import { readFileSync } from 'node:fs';
import * as wasm from '../wasm/horosvec_wasm.js';

wasm.initSync({ module: readFileSync(new URL('../wasm/horosvec_wasm_bg.wasm', import.meta.url)) });

export * from '../wasm/horosvec_wasm.js';
