#!/usr/bin/env node
// The cost of each framework adapter against the raw API, side by side in one process on the
// shipped sample (20,000 real 384-d sentence embeddings with their texts, 500 held-out queries,
// cosine): ingest every text with its metadata `{ source, rank }`, build the same index on the
// collection underneath, then single-query search (k = 10) unfiltered and with a 1 % filter
// (`rank` in [25,000, 26,000): 206 of 20,000 records). One JSONL record per engine and one
// summary, appended to bench-results/adapters/<rev>.jsonl and printed.
//
//   node bench/adapters.mjs [--backend native|wasm] [--rounds 5] [--passes 4] [--n 20000]
//
// Engines: `raw-flat` (Collection.add with one flat Float32Array: the API's bulk path), `raw`
// (Collection.add with number[] vectors and `{ text, source, rank }` metadata: the input the
// frameworks hand over), `langchain` (HorosvecStore.addVectors / similaritySearchVectorWithScore),
// `llamaindex` (HorosvecVectorStore.add of TextNodes / query), `mastra` (HorosvecVector.upsert /
// query over an in-memory database). Each wraps its own in-memory collection of the chosen backend
// (the adapters' `collection` / `database` options), so every engine runs the same core code path
// (`stats().mode` is recorded); the ratios are adapter / raw. Ingests and searches are timed in
// `--rounds` interleaved rounds (each round runs every engine once, in a rotated order); the
// figure reported is the median round. Each engine's hits are compared with raw's: `same_top10` is
// the fraction of queries whose 10 ids are the same set.
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Document } from '@langchain/core/documents';
import { TextNode } from '@llamaindex/core/schema';
import { VectorStoreQueryMode, FilterOperator, FilterCondition } from '@llamaindex/core/vector-store';
import { loadSample } from '../examples/lib/sample.mjs';
import { provenance, revLabel, binaryInfo, ROOT } from './lib/provenance.mjs';

const { values } = parseArgs({
  options: { backend: { type: 'string', default: 'native' }, rounds: { type: 'string', default: '5' }, passes: { type: 'string', default: '4' }, n: { type: 'string', default: '20000' } },
});
const backendName = values.backend;
if (backendName !== 'native' && backendName !== 'wasm') throw new Error('--backend is native or wasm');
const ROUNDS = Number(values.rounds);
const PASSES = Number(values.passes);
const hv = backendName === 'wasm' ? await import('horosvec/wasm') : await import('horosvec');
const { HorosvecStore } = await import('horosvec/langchain');
const { HorosvecVectorStore } = await import('horosvec/llamaindex');
const { HorosvecVector } = await import('horosvec/mastra');

const K = 10;
const BATCH = 1000;
const WARMUP = 20;
const LO = 25_000;
const HI = 26_000;
const INDEX = { seed: 1 };

const sample = loadSample();
const docs = sample.docs.slice(0, Number(values.n));
const n = docs.length;
const dim = docs[0].vector.length;
const queries = sample.queries;
const arrays = docs.map((d) => Array.from(d.vector));
const qArrays = queries.map((q) => Array.from(q.vector));
const matches = docs.filter((d) => d.rank >= LO && d.rank < HI).length;

// the vectors are given: LangChain's store must never be asked to embed
const noEmbeddings = {
  embedQuery: async () => {
    throw new Error('bench/adapters.mjs passes vectors');
  },
  embedDocuments: async () => {
    throw new Error('bench/adapters.mjs passes vectors');
  },
};

const batches = (f) => {
  const out = [];
  for (let s = 0; s < n; s += BATCH) out.push(f(s, Math.min(n, s + BATCH)));
  return out;
};

// Each engine: setup() → { collection }, add(s, e), search(j) and filtered(j) → ids (string[]).
const engines = {
  'raw-flat': () => {
    const col = hv.Collection.create({ dim, metric: 'cosine' });
    const flat = new Float32Array(n * dim);
    docs.forEach((d, i) => flat.set(d.vector, i * dim));
    return {
      col,
      add: (s, e) =>
        col.add(
          Array.from({ length: e - s }, (_, i) => s + i),
          flat.subarray(s * dim, e * dim),
          docs.slice(s, e).map((d) => ({ text: d.text, source: d.source, rank: d.rank })),
        ),
      search: async (j) => (await col.search(queries[j].vector, { k: K })).map((h) => String(h.id)),
      filtered: async (j) => (await col.search(queries[j].vector, { k: K, filter: { rank: { $gte: LO, $lt: HI } } })).map((h) => String(h.id)),
    };
  },
  raw: () => {
    const col = hv.Collection.create({ dim, metric: 'cosine' });
    return {
      col,
      add: (s, e) =>
        col.add(
          Array.from({ length: e - s }, (_, i) => String(s + i)),
          arrays.slice(s, e),
          docs.slice(s, e).map((d) => ({ text: d.text, source: d.source, rank: d.rank })),
        ),
      search: async (j) => (await col.search(qArrays[j], { k: K })).map((h) => String(h.id)),
      filtered: async (j) => (await col.search(qArrays[j], { k: K, filter: { rank: { $gte: LO, $lt: HI } } })).map((h) => String(h.id)),
    };
  },
  langchain: () => {
    const col = hv.Collection.create({ dim, metric: 'cosine' });
    const store = new HorosvecStore(noEmbeddings, { collection: col });
    return {
      col,
      add: (s, e) =>
        store.addVectors(
          arrays.slice(s, e),
          docs.slice(s, e).map((d) => new Document({ pageContent: d.text, metadata: { source: d.source, rank: d.rank } })),
          { ids: Array.from({ length: e - s }, (_, i) => String(s + i)) },
        ),
      search: async (j) => (await store.similaritySearchVectorWithScore(qArrays[j], K)).map(([d]) => d.id),
      filtered: async (j) => (await store.similaritySearchVectorWithScore(qArrays[j], K, { rank: { $gte: LO, $lt: HI } })).map(([d]) => d.id),
    };
  },
  llamaindex: () => {
    const col = hv.Collection.create({ dim, metric: 'cosine' });
    const store = new HorosvecVectorStore({ collection: col });
    const filters = {
      filters: [
        { key: 'rank', value: LO, operator: FilterOperator.GTE },
        { key: 'rank', value: HI, operator: FilterOperator.LT },
      ],
      condition: FilterCondition.AND,
    };
    return {
      col,
      add: (s, e) =>
        store.add(docs.slice(s, e).map((d, i) => new TextNode({ id_: String(s + i), text: d.text, metadata: { source: d.source, rank: d.rank }, embedding: arrays[s + i] }))),
      search: async (j) => (await store.query({ queryEmbedding: qArrays[j], similarityTopK: K, mode: VectorStoreQueryMode.DEFAULT })).ids,
      filtered: async (j) => (await store.query({ queryEmbedding: qArrays[j], similarityTopK: K, mode: VectorStoreQueryMode.DEFAULT, filters })).ids,
    };
  },
  mastra: async () => {
    const database = await hv.openDatabase();
    const store = new HorosvecVector({ database });
    await store.createIndex({ indexName: 'bench', dimension: dim, metric: 'cosine' });
    const col = await database.collection('bench');
    return {
      col,
      add: (s, e) =>
        store.upsert({
          indexName: 'bench',
          vectors: arrays.slice(s, e),
          metadata: docs.slice(s, e).map((d) => ({ text: d.text, source: d.source, rank: d.rank })),
          ids: Array.from({ length: e - s }, (_, i) => String(s + i)),
        }),
      search: async (j) => (await store.query({ indexName: 'bench', queryVector: qArrays[j], topK: K })).map((h) => h.id),
      filtered: async (j) => (await store.query({ indexName: 'bench', queryVector: qArrays[j], topK: K, filter: { rank: { $gte: LO, $lt: HI } } })).map((h) => h.id),
    };
  },
};

const names = Object.keys(engines);
const state = {};
// the ingest is timed in --rounds interleaved rounds too (a fresh collection each time, the order
// rotated); the last round's collection is indexed and searched
for (const name of names) state[name] = { addMs: [], qps: { search: [], filtered: [] }, ids: {} };
for (let r = 0; r < ROUNDS; r++) {
  for (const name of names.map((_, i) => names[(i + r) % names.length])) {
    const e = await engines[name]();
    const t0 = performance.now();
    for (const [s, end] of batches((s, end) => [s, end])) await e.add(s, end);
    state[name].addMs.push(performance.now() - t0);
    if (e.col.size !== n) throw new Error(`${name}: ${e.col.size} records after the ingest, expected ${n}`);
    state[name].e = e;
  }
}
for (const name of names) {
  const { e } = state[name];
  const t1 = performance.now();
  await e.col.buildIndex(INDEX);
  state[name].buildMs = performance.now() - t1;
  state[name].mode = e.col.stats().mode;
}

async function loop(name, kind) {
  const { e } = state[name];
  for (let j = 0; j < WARMUP; j++) await e[kind](j);
  const ids = new Array(queries.length);
  const t0 = performance.now();
  for (let p = 0; p < PASSES; p++) for (let j = 0; j < queries.length; j++) ids[j] = await e[kind](j);
  const qps = (PASSES * queries.length) / ((performance.now() - t0) / 1000);
  state[name].qps[kind].push(qps);
  state[name].ids[kind] = ids;
}

for (let r = 0; r < ROUNDS; r++) {
  const order = names.map((_, i) => names[(i + r) % names.length]);
  for (const kind of ['search', 'filtered']) for (const name of order) await loop(name, kind);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const same = (a, b) => a.filter((ids, j) => ids.length === b[j].length && ids.every((id) => b[j].includes(id))).length / a.length;

const prov = provenance();
const out = join(ROOT, 'bench-results', 'adapters');
mkdirSync(out, { recursive: true });
const file = join(out, `${revLabel(prov)}.jsonl`);
const base = state.raw;
const common = {
  bench: 'adapters',
  dataset: 'sample',
  n,
  dim,
  metric: 'cosine',
  k: K,
  queries: queries.length,
  filter: `rank in [${LO}, ${HI})`,
  filter_matches: matches,
  backend: hv.backend,
  kernel: hv.kernel,
  medium: 'memory',
  threads: 1,
  index: { ...INDEX, defaults: 'R 32, L 64, ef 64' },
  rounds: ROUNDS,
  passes: PASSES,
  ...binaryInfo(backendName),
  ...prov,
};
const rows = [];
for (const name of names) {
  const s = state[name];
  const rec = {
    ...common,
    engine: name,
    code_path: s.mode,
    add_ms: Math.round(median(s.addMs)),
    add_ms_rounds: s.addMs.map(Math.round),
    add_per_s: Math.round(n / (median(s.addMs) / 1000)),
    build_ms: Math.round(s.buildMs),
    qps: Math.round(median(s.qps.search)),
    qps_filtered: Math.round(median(s.qps.filtered)),
    qps_rounds: s.qps.search.map(Math.round),
    qps_filtered_rounds: s.qps.filtered.map(Math.round),
    add_vs_raw: Number((median(base.addMs) / median(s.addMs)).toFixed(3)),
    qps_vs_raw: Number((median(s.qps.search) / median(base.qps.search)).toFixed(3)),
    qps_filtered_vs_raw: Number((median(s.qps.filtered) / median(base.qps.filtered)).toFixed(3)),
    same_top10: Number(same(s.ids.search, base.ids.search).toFixed(3)),
    same_top10_filtered: Number(same(s.ids.filtered, base.ids.filtered).toFixed(3)),
  };
  rows.push(rec);
  appendFileSync(file, `${JSON.stringify(rec)}\n`);
}
console.log(`adapters on the shipped sample (${n} × ${dim}, cosine, ${hv.backend}/${hv.kernel}, 1 % filter = ${matches} records), ${ROUNDS} rounds; records in ${file}`);
console.log('engine       add/s   ×raw   QPS    ×raw   QPS 1%  ×raw   same top-10 (plain / 1 %)');
for (const r of rows) {
  console.log(
    `${r.engine.padEnd(11)} ${String(r.add_per_s).padStart(7)} ${r.add_vs_raw.toFixed(2).padStart(5)} ${String(r.qps).padStart(6)} ${r.qps_vs_raw.toFixed(2).padStart(5)} ${String(r.qps_filtered).padStart(7)} ${r.qps_filtered_vs_raw.toFixed(2).padStart(5)}   ${r.same_top10} / ${r.same_top10_filtered}`,
  );
}
