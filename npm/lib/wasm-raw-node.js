// The raw wasm module under Node: bytes read from disk and instantiated synchronously (Node
// cannot fetch file:// URLs, so the web target's `init()` would fail there). `loadWasm()` does it
// once, on first use, so the Node entry imports this module statically (server bundles include
// it) and pays for the wasm only when it falls back to it.
import { readFileSync } from 'node:fs';
import * as wasm from '../wasm/horosvec_wasm.js';
import { hvError } from './errors.js';

const FILE = 'horosvec_wasm_bg.wasm';

// Where the binary is: beside this module in the installed package; inside a server bundle
// (esbuild, webpack), where this module's URL is the bundle's or none, the installed package's
// export `horosvec/wasm/horosvec_wasm_bg.wasm`, resolved from the bundle's location, then from
// the working directory. `process.getBuiltinModule` keeps bundlers from tracing the resolution.
function locations() {
  const here = import.meta.url;
  const out = [];
  if (typeof here === 'string' && here !== '') out.push(() => new URL(`../wasm/${FILE}`, here));
  const bases = [here, typeof __filename === 'string' ? __filename : undefined, `${process.cwd()}/`];
  const mod = typeof process.getBuiltinModule === 'function' ? process.getBuiltinModule('node:module') : undefined;
  for (const base of bases) {
    if (mod && typeof base === 'string' && base !== '') out.push(() => mod.createRequire(base).resolve(`horosvec/wasm/${FILE}`));
  }
  return out;
}

function readWasm() {
  const tried = new Set();
  for (const where of locations()) {
    let path;
    try {
      path = where();
      return readFileSync(path);
    } catch (e) {
      tried.add(`${path ?? 'horosvec/wasm/' + FILE}: ${String(e?.message ?? e).split('\n')[0]}`);
    }
  }
  throw hvError(
    'HV_IO',
    `horosvec could not find its WebAssembly binary ${FILE} (tried ${[...tried].join('; ')}). A server bundle ` +
      'reads the native addon and this file from the installed package at run time: deploy it with horosvec ' +
      'installed in a node_modules directory beside or above it (marking it external, esbuild --external:horosvec, ' +
      'makes that explicit).',
  );
}

let ready = false;

/** The raw wasm module, instantiated on the first call. */
export function loadWasm() {
  if (!ready) {
    wasm.initSync({ module: readWasm() });
    ready = true;
  }
  return wasm;
}
