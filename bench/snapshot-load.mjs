#!/usr/bin/env node
// Opening a saved index, side by side in one run: hnswlib-node's `readIndexSync(file)` against
// horosvec's `Collection.fromBytes(readFileSync(file))` and `Collection.fromFile(file)`, on the
// native addon and on the wasm build (under Node), over the same minilm384 vectors. Each open runs
// in a fresh child process (warm page cache: the files were just written or read), which reports
// the open time, the first and second query's time (k 10, ef 64), the RSS before and after the
// open (after a gc(): a JS copy of the bytes that is garbage by then is not counted), and the
// top-10 ids of one query. The methods alternate, round after round; medians over --opens rounds.
// One JSONL record per method on stdout (with the ratio of hnswlib's open time to its own), then
// one with the built-in-place reference (--built: a child that builds the same collection in
// memory and reports its RSS growth).
//
//   node bench/snapshot-load.mjs [--n 100000] [--opens 5] [--built] [--rebuild] [--vectors f16]
//     >> bench-results/snapshot-load/<rev>.jsonl
//
// --vectors f16: horosvec's collection (the snapshot's and the built-in-place one) stores half
// rows (`vectors: 'f16'`; its snapshot is version 5 with f16 segment images); hnswlib unchanged.
//
// The index files are cached in target/snapshot-load/ (hnswlib's build of 100k takes ~80 s):
// horosvec-<n>.hvsnap (toBytes of the default build, seed 1) and hnswlib-<n>.bin (M 16, efC 200,
// seed 42); --rebuild makes them again (and a cached snapshot of another format version is
// rebuilt anyway).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { loadDataset } from './datasets.mjs';
import { ROOT, binaryInfo, provenance } from './lib/provenance.mjs';

const SELF = fileURLToPath(import.meta.url);
const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '100000' },
    opens: { type: 'string', default: '5' },
    built: { type: 'boolean', default: false },
    rebuild: { type: 'boolean', default: false },
    child: { type: 'string' },
    vectors: { type: 'string', default: 'f32' },
  },
});

const rssBytes = () => process.memoryUsage().rss;
/** Collects garbage and lets the frees land (large buffers are given back after the collection). */
async function settle() {
  globalThis.gc();
  await new Promise((r) => setTimeout(r, 200));
  globalThis.gc();
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const r1 = (x) => Math.round(x * 10) / 10;

/** The methods: how a child opens the index and searches it. */
const METHODS = {
  'hnswlib-readIndexSync': { engine: 'hnswlib', backend: 'native' },
  'horosvec-native-fromBytes': { engine: 'horosvec', backend: 'native', call: 'Collection.fromBytes(new Uint8Array(readFileSync(file)))' },
  'horosvec-native-fromFile': { engine: 'horosvec', backend: 'native', call: 'Collection.fromFile(file)' },
  'horosvec-wasm-fromBytes': { engine: 'horosvec', backend: 'wasm', call: 'Collection.fromBytes(new Uint8Array(readFileSync(file))) (horosvec/wasm)' },
  'horosvec-wasm-fromFile': { engine: 'horosvec', backend: 'wasm', call: 'Collection.fromFile(file) (horosvec/wasm)' },
};

async function child(job) {
  const { method, file, dim, q, n, vectors } = job;
  const query = Float32Array.from(q);
  const gc = globalThis.gc;
  let open;
  let search;
  let close = () => {};
  if (method === 'built-in-place') {
    const hv = await import('horosvec');
    const { base } = loadDataset('minilm384');
    const data = base.data.subarray(0, n * dim);
    const ids = Array.from({ length: n }, (_, i) => i);
    await settle();
    const rss0 = rssBytes();
    const col = hv.Collection.create({ dim, metric: 'cosine', vectors });
    await col.add(ids, data);
    await col.buildIndex({ seed: 1 });
    await settle();
    const s = col.stats();
    const rss = rssBytes();
    // the input stays alive until after the reading (else its collection would count as a saving)
    return { rss0, rss, stats_bytes_per_vector: s.vectorBytes / n + s.indexBytesPerVector, mode: s.mode, kept: data[0] + ids.length };
  }
  if (METHODS[method].engine === 'hnswlib') {
    const lib = (await import('hnswlib-node')).default;
    const qa = Array.from(query);
    await settle();
    const rss0 = rssBytes();
    const t0 = performance.now();
    const index = new lib.HierarchicalNSW('cosine', dim);
    index.readIndexSync(file);
    index.setEf(64);
    open = performance.now() - t0;
    search = () => index.searchKnn(qa, 10).neighbors;
    return measure(rss0, open, search, close, gc);
  }
  const hv = METHODS[method].backend === 'native' ? await import('horosvec') : await import('horosvec/wasm');
  // the wasm instance is made on first use: before the baseline
  (await hv.Collection.create({ dim: 1 })).close();
  await settle();
  const rss0 = rssBytes();
  const t0 = performance.now();
  let call = t0;
  let col;
  if (method.endsWith('fromFile')) col = await hv.Collection.fromFile(file);
  else ({ col, call } = await viaBytes(hv, file));
  open = performance.now() - t0;
  const callMs = performance.now() - call;
  search = () => col.searchSync(query, { k: 10, ef: 64 }).map((h) => h.id);
  close = () => col.close();
  const mode = col.stats().mode;
  const out = await measure(rss0, open, search, close, gc);
  return { ...out, call_ms: callMs, mode, backend: hv.backend, kernel: hv.kernel };
}

/**
 * The matrix's call (bench/lib/engines.mjs before fromFile): the file read into a Buffer and
 * copied into a Uint8Array by JS, then fromBytes; `call` is when the fromBytes call began. In a
 * function of its own, so that the JS copies are garbage once it returns, as they are in a
 * user's `await Collection.fromBytes(readFileSync(file))`: an async function suspended at a
 * later `await` keeps its earlier locals alive, which made the resident bytes count the caller's
 * copy of the file.
 */
async function viaBytes(hv, file) {
  const bytes = new Uint8Array(readFileSync(file));
  const call = performance.now();
  return { col: await hv.Collection.fromBytes(bytes), call };
}

async function measure(rss0, open, search, close, gc) {
  const rssOpen = rssBytes();
  const t1 = performance.now();
  const ids = search();
  const first = performance.now() - t1;
  const t2 = performance.now();
  search();
  const second = performance.now() - t2;
  // garbage (a JS copy of the bytes) is given back once collected
  await settle();
  const rss = rssBytes();
  await close();
  return { open_ms: open, first_query_ms: first, second_query_ms: second, rss0, rss_open: rssOpen, rss, top10: ids.map(Number) };
}

if (values.child !== undefined) {
  const out = await child(JSON.parse(values.child));
  process.stdout.write(JSON.stringify(out));
  process.exit(0);
}

// ---- the parent --------------------------------------------------------------------------------

const n = Number(values.n);
const opens = Number(values.opens);
const { base, queries } = loadDataset('minilm384');
const dim = base.dim;
if (!(n > 0 && n <= base.n)) throw new Error(`--n must be in 1..${base.n}`);
const dir = join(ROOT, 'target', 'snapshot-load');
mkdirSync(dir, { recursive: true });
const vectors = values.vectors;
if (!['f32', 'f16'].includes(vectors)) throw new Error('--vectors must be f32 or f16');
const snapFile = join(dir, `horosvec-${n}${vectors === 'f16' ? '-f16' : ''}.hvsnap`);
const hnswFile = join(dir, `hnswlib-${n}.bin`);
const log = (m) => process.stderr.write(`[snapshot-load] ${m}\n`);
const data = base.data.subarray(0, n * dim);
const q = Array.from(queries.data.subarray(0, dim));

const snapVersion = (f) => (existsSync(f) ? new DataView(readFileSync(f).buffer).getUint32(8, true) : null);
if (values.rebuild || snapVersion(snapFile) !== 5) {
  const hv = await import('horosvec');
  log(`building horosvec over ${n} × ${dim}`);
  const col = hv.Collection.create({ dim, metric: 'cosine', vectors });
  await col.add(Array.from({ length: n }, (_, i) => i), data);
  await col.buildIndex({ seed: 1 });
  writeFileSync(snapFile, await col.toBytes());
  await col.close();
}
if (values.rebuild || !existsSync(hnswFile)) {
  const lib = (await import('hnswlib-node')).default;
  log(`building hnswlib over ${n} × ${dim} (M 16, efC 200)`);
  const index = new lib.HierarchicalNSW('cosine', dim);
  index.initIndex(n, 16, 200, 42);
  const row = new Array(dim).fill(0);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < dim; j++) row[j] = data[i * dim + j];
    index.addPoint(row, i);
  }
  index.writeIndexSync(hnswFile);
}
// warm the page cache: every file read once before the first open
for (const f of [snapFile, hnswFile]) readFileSync(f);

const run = (job) => JSON.parse(execFileSync(process.execPath, ['--expose-gc', SELF, '--child', JSON.stringify(job)], { encoding: 'utf8', maxBuffer: 1 << 24 }));
const runs = Object.fromEntries(Object.keys(METHODS).map((m) => [m, []]));
for (let round = 0; round < opens; round++) {
  for (const m of Object.keys(METHODS)) {
    const file = METHODS[m].engine === 'hnswlib' ? hnswFile : snapFile;
    runs[m].push(run({ method: m, file, dim, q, n, vectors }));
  }
  log(`round ${round + 1}/${opens}: ${Object.entries(runs).map(([m, rs]) => `${m} ${rs.at(-1).open_ms.toFixed(0)} ms`).join(', ')}`);
}

const saved = runs['horosvec-native-fromFile'][0].top10;
const hnswOpen = median(runs['hnswlib-readIndexSync'].map((r) => r.open_ms));
const mb = (b) => r1(b / 2 ** 20);
for (const [m, rs] of Object.entries(runs)) {
  const spec = METHODS[m];
  const open = median(rs.map((r) => r.open_ms));
  const delta = median(rs.map((r) => r.rss - r.rss0));
  const deltaOpen = median(rs.map((r) => r.rss_open - r.rss0));
  const file = spec.engine === 'hnswlib' ? hnswFile : snapFile;
  const record = {
    bench: 'snapshot-load',
    method: m,
    engine: spec.engine,
    backend: rs[0].backend ?? spec.backend,
    kernel: rs[0].kernel ?? null,
    call: spec.call ?? 'new HierarchicalNSW("cosine", dim).readIndexSync(file); setEf(64)',
    dataset: 'minilm384',
    n,
    dim,
    metric: 'cosine',
    vectors: spec.engine === 'horosvec' ? vectors : 'f32',
    mode: rs[0].mode ?? 'hnsw M 16 efC 200',
    file_bytes: statSync(file).size,
    format_version: spec.engine === 'horosvec' ? snapVersion(snapFile) : null,
    cache: 'warm',
    opens: rs.length,
    open_ms: r1(open),
    open_ms_all: rs.map((r) => r1(r.open_ms)),
    // fromBytes: the call alone, without the JS read and copy of the file
    call_ms: rs[0].call_ms === undefined ? null : r1(median(rs.map((r) => r.call_ms))),
    first_query_ms: r1(median(rs.map((r) => r.first_query_ms))),
    second_query_ms: r1(median(rs.map((r) => r.second_query_ms))),
    rss_delta_mb: mb(delta),
    rss_delta_before_gc_mb: mb(deltaOpen),
    rss_bytes_per_vector: Math.round(delta / n),
    ratio_open_vs_hnswlib: Number((hnswOpen / open).toFixed(2)),
    top10_equal_to_native: spec.engine === 'horosvec' ? JSON.stringify(rs[0].top10) === JSON.stringify(saved) : null,
    ...binaryInfo(spec.backend),
    ...provenance(),
  };
  process.stdout.write(`${JSON.stringify(record)}\n`);
}
if (values.built) {
  const r = run({ method: 'built-in-place', dim, q, n, vectors });
  process.stdout.write(
    `${JSON.stringify({
      bench: 'snapshot-load',
      method: 'built-in-place',
      engine: 'horosvec',
      backend: 'native',
      call: 'Collection.create + add + buildIndex({ seed: 1 }), then gc()',
      dataset: 'minilm384',
      n,
      dim,
      metric: 'cosine',
      vectors,
      mode: r.mode,
      rss_delta_mb: mb(r.rss - r.rss0),
      rss_bytes_per_vector: Math.round((r.rss - r.rss0) / n),
      stats_bytes_per_vector: Math.round(r.stats_bytes_per_vector),
      ...binaryInfo('native'),
      ...provenance(),
    })}\n`,
  );
}
