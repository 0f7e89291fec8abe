#!/usr/bin/env node
// Churn benchmark: does the Vamana index keep its recall through deletes and inserts?
//
// Protocol (issue 3): build the index over the first (1 − frac)·n rows of a dataset; the other
// rows form a pool. Each round deletes frac·n live records chosen with a seeded RNG (tombstones,
// consolidated by the library once they pass its ratio) and inserts as many vectors from the pool
// under new ids; the deleted vectors go back to the pool. After every round recall@k at a fixed
// ef is measured against an exact search over the same live records (`exact: true`). Finally a
// fresh index is built over exactly the final records with the same parameters and measured the
// same way: the drop is churned recall − fresh recall.
//
// Usage: node bench/churn.mjs [--dataset minilm384|sample|glove50|sift128] [--n N] [--nq 1000]
//          [--rounds 10] [--frac 0.1] [--ef 64] [--k 10] [--seed 7] [--json]
// HOROSVEC_FORCE_WASM=1 measures the wasm backend.
import { parseArgs } from 'node:util';
import os from 'node:os';
import * as hv from 'horosvec';
import { loadDataset } from './datasets.mjs';
import { provenance } from './lib/provenance.mjs';

const { values } = parseArgs({
  options: {
    dataset: { type: 'string', default: 'minilm384' },
    n: { type: 'string' },
    nq: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '10' },
    frac: { type: 'string', default: '0.1' },
    ef: { type: 'string', default: '64' },
    k: { type: 'string', default: '10' },
    seed: { type: 'string', default: '7' },
    json: { type: 'boolean', default: false },
  },
});
const ds = loadDataset(values.dataset);
const base = ds.base;
const qs = ds.queries;
const dim = base.dim;
const n = Math.min(values.n === undefined ? base.n : Number(values.n), base.n);
const nq = Math.min(Number(values.nq), qs.n);
const rounds = Number(values.rounds);
const frac = Number(values.frac);
const ef = Number(values.ef);
const k = Number(values.k);
const step = Math.round(n * frac);
const n0 = n - step;
const row = (r) => base.data.subarray(r * dim, (r + 1) * dim);
const queries = qs.data.subarray(0, nq * dim);

// SplitMix64-like seeded generator (32-bit arithmetic), for the choice of victims
let state = Number(values.seed) >>> 0;
const rand = () => {
  state = (state + 0x9e3779b9) >>> 0;
  let z = state;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return ((z ^ (z >>> 16)) >>> 0) / 2 ** 32;
};

const log = (msg) => {
  if (!values.json) process.stderr.write(`${msg}\n`);
};

async function recallOf(col) {
  const exact = await col.searchBatch(queries, { k, exact: true, includeMetadata: false });
  const approx = await col.searchBatch(queries, { k, ef, includeMetadata: false });
  let hit = 0;
  approx.forEach((hits, q) => {
    const want = new Set(exact[q].map((h) => h.id));
    for (const h of hits) if (want.has(h.id)) hit++;
  });
  return hit / (nq * k);
}

function rowsOf(rowIds) {
  const out = new Float32Array(rowIds.length * dim);
  rowIds.forEach((r, i) => out.set(row(r), i * dim));
  return out;
}

const col = hv.Collection.create({ dim, metric: ds.metric });
// id → base row of its vector
const rowOf = new Map();
const initial = [...Array(n0).keys()];
await col.add(initial, rowsOf(initial));
initial.forEach((id) => rowOf.set(id, id));
const pool = [...Array(step).keys()].map((i) => n0 + i);
let nextId = n;
const t0 = performance.now();
await col.buildIndex({ kind: 'vamana', seed: 42 });
const buildS = (performance.now() - t0) / 1000;
const stats0 = col.stats();
const head = {
  bench: 'churn',
  engine: 'horosvec',
  engine_version: hv.version,
  backend: hv.backend,
  mode: stats0.mode,
  kernel: stats0.kernel,
  storage: 'memory',
  dataset: values.dataset,
  n: n0,
  dim,
  metric: ds.metric,
  k,
  ef,
  nq,
  frac,
  params: { R: 32, L: 64, alpha: 1.1, passes: 1, bits: Number(/rabitq(\d)$/.exec(stats0.mode)?.[1] ?? 0) || null, seed: 42 },
  ...provenance(),
  cpu: os.cpus()[0]?.model ?? 'unknown',
  cores: os.cpus().length,
};
const emit = (rec) => {
  if (values.json) process.stdout.write(`${JSON.stringify({ ...head, ...rec })}\n`);
};
const r0 = await recallOf(col);
log(`${values.dataset} n ${n0} dim ${dim} ${hv.backend} ${stats0.mode}: build ${buildS.toFixed(1)} s, recall@${k} at ef ${ef} = ${r0.toFixed(4)}`);
emit({ round: 0, recall: r0, build_s: buildS, tombstones: 0 });

for (let round = 1; round <= rounds; round++) {
  const live = [...rowOf.keys()];
  // partial Fisher–Yates: the first `step` entries become a seeded random sample
  for (let i = 0; i < step; i++) {
    const j = i + Math.floor(rand() * (live.length - i));
    [live[i], live[j]] = [live[j], live[i]];
  }
  const victims = live.slice(0, step);
  const td = performance.now();
  const deleted = await col.delete(victims);
  const deleteS = (performance.now() - td) / 1000;
  if (deleted !== step) throw new Error(`round ${round}: deleted ${deleted} of ${step}`);
  const takeRows = pool.splice(0, step);
  for (const v of victims) {
    pool.push(rowOf.get(v));
    rowOf.delete(v);
  }
  const ids = takeRows.map(() => nextId++);
  const ti = performance.now();
  await col.add(ids, rowsOf(takeRows));
  const insertS = (performance.now() - ti) / 1000;
  ids.forEach((id, i) => rowOf.set(id, takeRows[i]));
  const r = await recallOf(col);
  const st = col.stats();
  log(
    `round ${round}: delete ${step} in ${deleteS.toFixed(2)} s, insert ${step} in ${insertS.toFixed(2)} s ` +
      `(${Math.round(step / insertS)} /s), tombstones ${st.tombstones}, recall ${r.toFixed(4)}`,
  );
  emit({ round, recall: r, delete_s: deleteS, insert_s: insertS, insert_qps: step / insertS, tombstones: st.tombstones });
}
const churned = await recallOf(col);

const fresh = hv.Collection.create({ dim, metric: ds.metric });
const finalIds = [...rowOf.keys()].sort((a, b) => a - b);
await fresh.add(finalIds, rowsOf(finalIds.map((id) => rowOf.get(id))));
const tf = performance.now();
await fresh.buildIndex({ kind: 'vamana', seed: 42 });
const freshBuildS = (performance.now() - tf) / 1000;
const freshRecall = await recallOf(fresh);
const drop = freshRecall - churned;
log(`fresh build over the final ${finalIds.length} records: recall ${freshRecall.toFixed(4)}; churned ${churned.toFixed(4)}; drop ${(drop * 100).toFixed(2)} points`);
emit({ round: 'final', recall: churned, fresh_recall: freshRecall, drop_points: drop * 100, fresh_build_s: freshBuildS });
col.close();
fresh.close();
