#!/usr/bin/env node
// Issue 18 (fp16 rows): the same index searched over `f32` rows and over `f16` rows, side by side
// in one process. One collection of each precision holds the same records (minilm384 prefix,
// cosine); the f32 collection builds the index and the f16 one imports its graph (importGraph), so
// both walk the same graph with the same RaBitQ codes and differ only in the rows the rerank reads.
// For each ef the two are timed in alternating windows (--rounds, order swapped every round):
// searchSync, one query at a time, medians of the rounds. One JSONL record per ef on stdout.
//
//   node bench/f16-vs-f32.mjs [--n 100000 (the base's size: the shipped ground truth covers the whole base)] [--ef 32,64,128] [--rounds 5] [--seconds 1]
import { parseArgs } from 'node:util';
import * as hv from 'horosvec';
import { loadDataset } from './datasets.mjs';
import { readGroundTruth } from './lib/groundtruth.mjs';
import { sideBySide } from './lib/side-by-side.mjs';
import { provenance } from './lib/provenance.mjs';
import { DATASETS } from './datasets.mjs';
import { join } from 'node:path';

const { values } = parseArgs({
  options: { n: { type: 'string', default: '100000' }, ef: { type: 'string', default: '32,64,128' }, rounds: { type: 'string', default: '5' }, seconds: { type: 'string', default: '1' } },
});
const { base, queries } = loadDataset('minilm384');
const dim = base.dim;
const n = Math.min(Number(values.n), base.n);
if (n !== base.n) throw new Error(`--n must be the base's ${base.n} rows: the ground truth file covers the whole base`);
const efs = values.ef.split(',').map(Number);
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const k = 10;
const nq = queries.n;
const qs = Array.from({ length: nq }, (_, i) => queries.data.subarray(i * dim, (i + 1) * dim));
const ids = Array.from({ length: n }, (_, i) => i);
const rows = base.data.subarray(0, n * dim);

const f32 = hv.Collection.create({ dim, metric: 'cosine' });
await f32.add(ids, rows);
await f32.buildIndex();
const g = await f32.exportGraph();
const bits = Number(/rabitq(\d)/.exec(f32.stats().mode)?.[1] ?? 0);
const f16 = hv.Collection.create({ dim, metric: 'cosine', vectors: 'f16' });
await f16.add(ids, rows);
await f16.importGraph({ adjacency: g.adjacency, degree: g.degree, entry: g.entry, ...(bits ? { bits } : {}) });
const gtFile = join(DATASETS.minilm384.dir, DATASETS.minilm384.gt);
const gt = readGroundTruth(gtFile, { nq, k, n, metric: 'cosine' });
const cols = { f32, f16 };
for (const ef of efs) {
  const { recall, qps, ratio, load } = await sideBySide({ f32: cols.f32, f16: cols.f16 }, { qs, k, ef, gt, n, nq, rounds, seconds });
  const rec = {
    bench: 'f16-vs-f32',
    dataset: 'minilm384',
    n,
    nq,
    dim,
    metric: 'cosine',
    k,
    ef,
    code_path: `searchSync, ${f32.stats().mode} (one graph: built over f32 rows, imported into the f16 collection)`,
    kernel: f32.stats().kernel,
    threads: 1,
    rounds,
    seconds_per_window: seconds,
    recall_f32: recall.f32,
    recall_f16: recall.f16,
    qps_f32: qps.f32,
    qps_f16: qps.f16,
    ratio_f16_f32: ratio,
    vector_bytes_f32: f32.stats().vectorBytes / n,
    vector_bytes_f16: f16.stats().vectorBytes / n,
    load_avg: load,
    ...provenance(),
  };
  process.stdout.write(JSON.stringify(rec) + '\n');
}
