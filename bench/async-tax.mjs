// Issue 18 (the async tax), profile only: searchSync against the Promise search and the raw
// binding layers (raw.search, raw.searchAsync, a trivial k=1 ef=1 search to isolate the worker-thread
// round trip) on 20,000 seeded random 384-d cosine vectors with the default index, closed-loop,
// T ms per point (env T, default 1500). Checkout build only (npm/native; HV_NODE names another
// .node file). `node bench/async-tax.mjs all` adds 2, 4, 8 Promise clients; `raw` the raw layers.
// Not part of the matrix; figures are per-machine and noisy on a shared 2-core host.
import { createRequire } from 'node:module'; import { makeApi } from '../npm/lib/collection.js';
const raw = createRequire(import.meta.url)(process.env.HV_NODE ?? '../npm/native/horosvec.linux-x64-gnu.node');
const { Collection } = makeApi(raw, { reason: null });
const n = 20000, dim = 384;
let s = 42; const rnd = () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 2 ** 32 - 0.5; };
const flat = new Float32Array(n * dim); for (let i = 0; i < flat.length; i++) flat[i] = rnd();
const c = Collection.create({ dim, metric: 'cosine' });
await c.add(Array.from({ length: n }, (_, i) => i), flat);
await c.buildIndex({});
const qs = Array.from({ length: 200 }, () => { const q = new Float32Array(dim); for (let i = 0; i < dim; i++) q[i] = rnd(); return q; });
const opts = { k: 10, ef: 64 };
const T = +(process.env.T ?? 1500);
async function loop(name, f, clients = 1) {
  for (let i = 0; i < 300; i++) await f(qs[i % 200]);
  let cnt = 0; const t0 = performance.now();
  await Promise.all(Array.from({ length: clients }, async () => { while (performance.now() - t0 < T) { await f(qs[cnt % 200]); cnt++; } }));
  const dt = (performance.now() - t0) / 1000; const us = dt * 1e6 / cnt * clients;
  console.log(`${name.padEnd(28)} c=${clients} ${(cnt / dt).toFixed(0).padStart(6)} QPS  ${(1e6 * dt / cnt).toFixed(1)} us/op`);
}
await loop('searchSync', (q) => c.searchSync(q, opts));
await loop('search', (q) => c.search(q, opts));
const mode = process.argv[2];
if (mode === 'raw') {
  const r = raw.CoreCollection.create(dim, 'cosine');
  r.addAsync && await r.addAsync(new Float64Array(Array.from({length:n},(_, i)=>i)), flat, undefined);
  await r.buildIndexAsync({});
  const ro = { k: 10, includeMetadata: true, ef: 64 };
  await loop('raw.search (sync)', (q) => r.search(q, ro));
  await loop('raw.searchAsync', (q) => r.searchAsync(q, ro));
  await loop('raw.searchAsync k=1 ef=1', (q) => r.searchAsync(q, { k: 1, includeMetadata: false, ef: 1 }));
  await loop('raw.search k=1 ef=1', (q) => r.search(q, { k: 1, includeMetadata: false, ef: 1 }));
  await loop('raw.searchBatchAsync(1)', (q) => r.searchBatchAsync(q, ro));
}
if (mode === 'all') {
  await loop('search', (q) => c.search(q, opts), 2);
  await loop('search', (q) => c.search(q, opts), 4);
  await loop('search', (q) => c.search(q, opts), 8);
}
await c.close();
