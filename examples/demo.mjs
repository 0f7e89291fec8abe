// horosvec demo: semantic search over the shipped sample (data/sample: 20,000 real sentence
// embeddings from all-MiniLM-L6-v2, 500 held-out queries with exact ground truth).
//
//   node examples/demo.mjs            (native addon)
//   HOROSVEC_FORCE_WASM=1 node examples/demo.mjs
//
// Builds a cosine collection with each sentence as metadata, checks recall@10 of exact search
// against the shipped ground truth, measures single-query and batch throughput, then shows the
// nearest sentences for three held-out queries.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { Collection, backend, kernel, version } from 'horosvec';
import { readVecs } from '../npm/cli/vecs.js';

const SAMPLE = join(dirname(fileURLToPath(import.meta.url)), '..', 'data', 'sample');
const K = 10;
const WARMUP = 20;
const BATCH = 64;
const TIE_EPS = 1e-5;

const now = () => process.hrtime.bigint();
const ms = (t0, t1) => Number(t1 - t0) / 1e6;

function readTexts(file) {
  const lines = gunzipSync(readFileSync(join(SAMPLE, file))).toString('utf8').split('\n');
  const out = [];
  for (const line of lines) if (line !== '') out.push(JSON.parse(line).text);
  return out;
}

function short(text, max = 100) {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length <= max ? t : `${t.slice(0, max - 1)}…`;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

// ---- load -------------------------------------------------------------------------------------
const base = readVecs(join(SAMPLE, 'base.f16vecs')); // float16 on disk, decoded to Float32Array
const queries = readVecs(join(SAMPLE, 'queries.fvecs'));
const gt = readVecs(join(SAMPLE, 'groundtruth.ivecs'));
const gtDist = readVecs(join(SAMPLE, 'groundtruth_dist.fvecs')); // cosine distances 1 − cos
const texts = readTexts('texts_base.jsonl.gz');
const queryTexts = readTexts('texts_query.jsonl.gz');
const { n, dim } = base;
const nq = queries.n;

// ---- build ------------------------------------------------------------------------------------
const col = Collection.create({ dim, metric: 'cosine' });
const tb = now();
for (let s = 0; s < n; s += 5000) {
  const e = Math.min(n, s + 5000);
  const ids = [];
  const meta = [];
  for (let i = s; i < e; i++) {
    ids.push(i);
    meta.push({ text: texts[i] });
  }
  await col.add(ids, base.data.subarray(s * dim, e * dim), meta);
}
const buildMs = ms(tb, now());
const stats = col.stats();

// ---- single queries: warm-up, then every query once, timed one by one --------------------------
const q = (i) => queries.data.subarray(i * dim, (i + 1) * dim);
const opts = { k: K, includeMetadata: false };
for (let i = 0; i < WARMUP; i++) col.searchSync(q(i % nq), opts);
const lat = new Float64Array(nq);
const results = new Array(nq);
const ts = now();
for (let i = 0; i < nq; i++) {
  const t0 = now();
  results[i] = col.searchSync(q(i), opts);
  lat[i] = ms(t0, now());
}
const singleQps = nq / (ms(ts, now()) / 1e3);
lat.sort();

// recall@10: strict id match against the shipped top-10, and tie-tolerant (a returned row also
// counts when its distance is within TIE_EPS of the 10th ground-truth distance)
let strict = 0;
let tolerant = 0;
for (let i = 0; i < nq; i++) {
  const truth = new Set(gt.data.subarray(i * gt.dim, i * gt.dim + K));
  const thr = gtDist.data[i * gtDist.dim + K - 1] + TIE_EPS;
  let a = 0;
  let b = 0;
  for (const hit of results[i]) {
    const inTruth = truth.has(hit.id);
    if (inTruth) a++;
    if (inTruth || hit.distance <= thr) b++;
  }
  strict += a / K;
  tolerant += Math.min(b, K) / K;
}
strict /= nq;
tolerant /= nq;

// ---- batches of 64 ----------------------------------------------------------------------------
const tq = now();
for (let s = 0; s < nq; s += BATCH) {
  await col.searchBatch(queries.data.subarray(s * dim, Math.min(nq, s + BATCH) * dim), opts);
}
const batchQps = nq / (ms(tq, now()) / 1e3);

// ---- report -----------------------------------------------------------------------------------
const out = [];
out.push(`horosvec ${version} demo: semantic search over data/sample (all-MiniLM-L6-v2 sentence embeddings)`);
out.push(`backend ${backend}  kernel ${kernel}  threads ${stats.threads}`);
out.push(`collection   n ${n}  dim ${dim}  cosine  built in ${(buildMs / 1e3).toFixed(2)} s (vectors + { text } metadata)`);
if (strict.toFixed(3) === tolerant.toFixed(3)) {
  out.push(`recall@10 = ${strict.toFixed(3)}  (${nq} queries vs shipped ground truth, strict id match; tie-tolerant ${tolerant.toFixed(3)})`);
} else {
  out.push(`recall@10 = ${tolerant.toFixed(3)}  (${nq} queries, tie-tolerant: distance ≤ 10th true distance + ${TIE_EPS}; strict id match ${strict.toFixed(3)})`);
}
out.push(`single query ${singleQps.toFixed(1)} QPS  p50 ${percentile(lat, 0.5).toFixed(2)} ms  p99 ${percentile(lat, 0.99).toFixed(2)} ms  (searchSync, one at a time, after ${WARMUP} warm-up)`);
out.push(`batch of ${BATCH}  ${batchQps.toFixed(1)} QPS  (searchBatch, ${(batchQps / singleQps).toFixed(2)}× single)`);
for (const i of [0, 1, 2]) {
  out.push('');
  out.push(`query ${i}: ${short(queryTexts[i])}`);
  const hits = col.searchSync(q(i), { k: 3 });
  hits.forEach((h, r) => out.push(`  ${r + 1}. ${h.distance.toFixed(3)}  ${short(h.metadata.text)}`));
}
out.push('');
out.push('(distance = 1 − cosine similarity; lower is closer)');
console.log(out.join('\n'));
await col.close();
