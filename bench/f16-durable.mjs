#!/usr/bin/env node
// Issue 18 (fp16 rows) for durable collections: the first 100,000 minilm384 rows (cosine) in two
// durable collections on disk, one `vectors: 'f32'` and one `vectors: 'f16'`, each sealed into
// one segment file (its Vamana index built over its own rows). Measured:
// - segment file bytes per vector (the .hvseg files of each directory, after the seal);
// - resident bytes after open: each collection opened alone in a fresh child process, RSS before
//   and after the open and the warm-up of its codes and graph (`stats().warmingSegments` 0), then
//   again after one pass of the queries at ef 64 (the rerank pages rows in: the mapped rows count
//   in RSS once read); the collection's own `stats().vectorBytes` beside it;
// - recall@10 and QPS at equal ef: both opened in this process, searchSync one query at a time,
//   timed in alternating windows (--rounds, order swapped every round), medians.
// One JSONL record per ef on stdout (bench-results/f16-durable/<rev>.jsonl).
//
//   node bench/f16-durable.mjs [--dir /tmp/hv-f16-durable] [--ef 32,64,128] [--rounds 5] [--seconds 1] [--keep]
import { parseArgs } from 'node:util';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as hv from 'horosvec';
import { loadDataset, DATASETS } from './datasets.mjs';
import { readVecs } from '../npm/cli/vecs.js';
import { readGroundTruth } from './lib/groundtruth.mjs';
import { sideBySide } from './lib/side-by-side.mjs';
import { provenance } from './lib/provenance.mjs';

const { values } = parseArgs({
  options: {
    dir: { type: 'string', default: '/tmp/hv-f16-durable' },
    ef: { type: 'string', default: '32,64,128' },
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '1' },
    keep: { type: 'boolean', default: false },
    child: { type: 'string' },
  },
});
const k = 10;
const dirOf = (p) => join(values.dir, p);
const waitWarm = async (c) => {
  while (c.stats().warmingSegments > 0) await new Promise((r) => setTimeout(r, 20));
};

if (values.child) {
  // one collection alone in this process: resident bytes of its open (the queries only are
  // read, before the first RSS reading: no base rows in this process to be freed meanwhile)
  const queries = readVecs(join(DATASETS.minilm384.dir, DATASETS.minilm384.queries));
  const dim = queries.dim;
  globalThis.gc?.();
  await new Promise((r) => setTimeout(r, 200));
  const rss0 = process.memoryUsage().rss;
  const c = await hv.Collection.open(dirOf(values.child));
  await waitWarm(c);
  globalThis.gc?.();
  const rss1 = process.memoryUsage().rss;
  for (let i = 0; i < queries.n; i++) c.searchSync(queries.data.subarray(i * dim, (i + 1) * dim), { k, ef: 64, includeMetadata: false });
  globalThis.gc?.();
  const rss2 = process.memoryUsage().rss;
  const s = c.stats();
  process.stdout.write(JSON.stringify({ size: c.size, vectors: s.vectors, vectorBytes: s.vectorBytes, rssOpen: rss1 - rss0, rssAfterQueries: rss2 - rss0 }) + '\n');
  await c.close();
  process.exit(0);
}

const { base, queries } = loadDataset('minilm384');
const dim = base.dim;
const n = base.n; // the shipped ground truth covers the whole base (100,000 rows)
const nq = queries.n;
const qs = Array.from({ length: nq }, (_, i) => queries.data.subarray(i * dim, (i + 1) * dim));
const precisions = ['f32', 'f16'];
const buildS = {};
for (const p of precisions) {
  const d = dirOf(p);
  if (existsSync(d)) rmSync(d, { recursive: true, force: true });
  const t0 = performance.now();
  const c = await hv.Collection.open(d, { dim, metric: 'cosine', vectors: p, maxMutableRecords: 1_000_000, durability: 'normal' });
  const B = 5_000;
  for (let i = 0; i < n; i += B) {
    const m = Math.min(B, n - i);
    await c.add(Array.from({ length: m }, (_, j) => i + j), base.data.subarray(i * dim, (i + m) * dim));
  }
  const sealed = await c.seal();
  if (sealed !== n) throw new Error(`sealed ${sealed} of ${n}`);
  await c.close();
  buildS[p] = (performance.now() - t0) / 1000;
}
const fileBytes = Object.fromEntries(precisions.map((p) => [p, readdirSync(dirOf(p)).filter((f) => f.endsWith('.hvseg')).reduce((a, f) => a + statSync(join(dirOf(p), f)).size, 0)]));
const self = fileURLToPath(import.meta.url);
const resident = Object.fromEntries(precisions.map((p) => [p, JSON.parse(execFileSync(process.execPath, ['--expose-gc', self, '--dir', values.dir, '--child', p], { encoding: 'utf8' }))]));

const cols = {};
for (const p of precisions) {
  cols[p] = await hv.Collection.open(dirOf(p));
  await waitWarm(cols[p]);
}
const gt = readGroundTruth(join(DATASETS.minilm384.dir, DATASETS.minilm384.gt), { nq, k, n, metric: 'cosine' });
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
for (const ef of values.ef.split(',').map(Number)) {
  const { recall, qps, ratio, load } = await sideBySide({ f32: cols.f32, f16: cols.f16 }, { qs, k, ef, gt, n, nq, rounds, seconds });
  const rec = {
    bench: 'f16-durable',
    dataset: 'minilm384',
    n,
    nq,
    dim,
    metric: 'cosine',
    k,
    ef,
    code_path: `durable Collection.open, one sealed segment each (index built over its own rows), searchSync, ${cols.f32.stats().mode}`,
    kernel: cols.f32.stats().kernel,
    threads: 1,
    rounds,
    seconds_per_window: seconds,
    recall_f32: recall.f32,
    recall_f16: recall.f16,
    qps_f32: qps.f32,
    qps_f16: qps.f16,
    ratio_f16_f32: ratio,
    segment_file_bytes_per_vector_f32: fileBytes.f32 / n,
    segment_file_bytes_per_vector_f16: fileBytes.f16 / n,
    rss_open_bytes_per_vector_f32: resident.f32.rssOpen / n,
    rss_open_bytes_per_vector_f16: resident.f16.rssOpen / n,
    rss_after_queries_bytes_per_vector_f32: resident.f32.rssAfterQueries / n,
    rss_after_queries_bytes_per_vector_f16: resident.f16.rssAfterQueries / n,
    rss_method: 'process.memoryUsage().rss delta in a fresh child: before open → after open and warm-up (codes + graph read in); → after one pass of the queries at ef 64',
    stats_vector_bytes_per_vector_f32: resident.f32.vectorBytes / n,
    stats_vector_bytes_per_vector_f16: resident.f16.vectorBytes / n,
    seal_build_s_f32: buildS.f32,
    seal_build_s_f16: buildS.f16,
    load_avg: load,
    ...provenance(),
  };
  process.stdout.write(JSON.stringify(rec) + '\n');
}
for (const p of precisions) await cols[p].close();
if (!values.keep) rmSync(values.dir, { recursive: true, force: true });
