#!/usr/bin/env node
// Collection.fromBytes of an indexed snapshot, snapshot format version 2 (RaBitQ codes stored)
// against the same snapshot rewritten as version 1 (no codes section: the loader re-encodes every
// vector), on the native addon and on the wasm build. One JSONL record on stdout.
//
//   node bench/snapshot-load.mjs [--n 100000] [--runs 3]   (minilm384, cosine, default build)
//
// The version-1 bytes are the version-2 bytes without the codes section (found from its record
// width), with the version field set to 1 and the CRC-32 recomputed. Times are medians of --runs
// loads; each load is closed before the next.
import { crc32 } from 'node:zlib';
import { parseArgs } from 'node:util';
import * as hv from 'horosvec';
import * as wasm from 'horosvec/wasm';
import { loadDataset } from './datasets.mjs';
import { provenance } from './lib/provenance.mjs';

const { values } = parseArgs({ options: { n: { type: 'string' }, runs: { type: 'string', default: '3' } } });
const { base } = loadDataset('minilm384');
const dim = base.dim;
const n = Math.min(Number(values.n ?? base.n), base.n);
const runs = Number(values.runs);
const col = hv.Collection.create({ dim, metric: 'cosine' });
await col.add(Array.from({ length: n }, (_, i) => i), base.data.subarray(0, n * dim));
await col.buildIndex();
const v2 = await col.toBytes();

/** The version-1 form of `v2`: its codes section (centroid, record width W, n × W words) removed. */
function asVersion1(v2) {
  const view = new DataView(v2.buffer, v2.byteOffset, v2.byteLength);
  const body = v2.length - 4;
  for (let words = 1; words <= 256; words++) {
    const at = body - (n * words * 8 + 4 + 4 * dim);
    if (at > 0 && view.getUint32(at + 4 * dim, true) === words) {
      const v1 = new Uint8Array(at + 4);
      v1.set(v2.subarray(0, at));
      const out = new DataView(v1.buffer);
      out.setUint32(8, 1, true);
      out.setUint32(at, crc32(v1.subarray(0, at)) >>> 0, true);
      return v1;
    }
  }
  throw new Error('no codes section found');
}
const v1 = asVersion1(v2);

async function loadMs(lib, bytes) {
  const ts = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const c = await lib.Collection.fromBytes(bytes);
    ts.push(performance.now() - t0);
    await c.close();
  }
  return Number(ts.sort((a, b) => a - b)[Math.floor(ts.length / 2)].toFixed(1));
}

// the loaded index answers as the saved one (version 2: the same codes), version 1 its own way
const q = base.data.subarray(0, dim);
const ids = (c) => JSON.stringify(c.searchSync(q, { k: 10 }).map((h) => h.id));
const [l2, l1] = [await hv.Collection.fromBytes(v2), await hv.Collection.fromBytes(v1)];
const record = {
  bench: 'snapshot-load',
  dataset: 'minilm384',
  n,
  dim,
  metric: 'cosine',
  mode: col.stats().mode,
  threads: col.stats().threads,
  bytes_v2: v2.length,
  bytes_v1: v1.length,
  native_v2_ms: await loadMs(hv, v2),
  native_v1_ms: await loadMs(hv, v1),
  wasm_v2_ms: await loadMs(wasm, v2),
  wasm_v1_ms: await loadMs(wasm, v1),
  v2_top10_equal_to_saved: ids(l2) === ids(col),
  v1_top10_equal_to_saved: ids(l1) === ids(col),
  runs,
  ...provenance(),
};
process.stdout.write(`${JSON.stringify(record)}\n`);
