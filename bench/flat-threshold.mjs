#!/usr/bin/env node
// Where does the graph start to beat a flat scan? For each collection size n (a prefix of the
// dataset), builds the default index and times single queries (searchSync, one at a time, after
// a warm-up, for at least --seconds) with `exact: true` (flat scan of the float32 rows) and with
// `exact: false` (the graph walk + rerank, forced even below the library's threshold), plus the
// graph's recall@k against the flat scan. The printed crossover is the smallest measured n from
// which the graph is faster at every larger measured n; the library's FLAT_THRESHOLD (2,000)
// should sit at or below it, as a flat scan below it is exact and no slower.
//
// Usage: node bench/flat-threshold.mjs [--dataset sample|minilm384] [--sizes 250,500,...]
//          [--ef 64] [--k 10] [--nq 200] [--seconds 1] [--json]
import { parseArgs } from 'node:util';
import os from 'node:os';
import * as hv from 'horosvec';
import { loadDataset } from './datasets.mjs';
import { timeLoop } from './lib/protocol.mjs';
import { provenance } from './lib/provenance.mjs';
const { values } = parseArgs({
  options: {
    dataset: { type: 'string', default: 'sample' },
    sizes: { type: 'string', default: '250,500,1000,2000,4000,8000,16000' },
    ef: { type: 'string', default: '64' },
    k: { type: 'string', default: '10' },
    nq: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '1' },
    json: { type: 'boolean', default: false },
  },
});
const ds = loadDataset(values.dataset);
const base = ds.base;
const qs = ds.queries;
const { dim } = base;
const k = Number(values.k);
const ef = Number(values.ef);
const nq = Math.min(Number(values.nq), qs.n);
const qrows = [...Array(nq).keys()].map((i) => qs.data.slice(i * dim, (i + 1) * dim));

/** Single-query QPS of `search` (bench/lib/protocol.mjs's timing loop: 50 warm-up calls, then ≥ --seconds). */
async function timed(search) {
  return (await timeLoop((i) => search(qrows[i]), { nq, seconds: Number(values.seconds), warmup: 50 })).qps;
}

const rows = [];
for (const n of values.sizes.split(',').map(Number).filter((x) => x <= base.n)) {
  const col = hv.Collection.create({ dim, metric: ds.metric });
  await col.add([...Array(n).keys()], base.data.subarray(0, n * dim));
  await col.buildIndex({ kind: 'vamana', seed: 42 });
  const flatOpts = { k, exact: true, includeMetadata: false };
  const graphOpts = { k, ef, exact: false, includeMetadata: false };
  let hit = 0;
  for (const q of qrows) {
    const want = new Set(col.searchSync(q, flatOpts).map((h) => h.id));
    for (const h of col.searchSync(q, graphOpts)) if (want.has(h.id)) hit++;
  }
  const flatQps = await timed((q) => col.searchSync(q, flatOpts));
  const graphQps = await timed((q) => col.searchSync(q, graphOpts));
  const rec = {
    bench: 'flat-threshold',
    engine: 'horosvec',
    backend: hv.backend,
    kernel: col.stats().kernel,
    mode: col.stats().mode,
    storage: 'memory',
    dataset: values.dataset,
    n,
    dim,
    k,
    ef,
    flat_qps: Math.round(flatQps),
    graph_qps: Math.round(graphQps),
    graph_over_flat: Number((graphQps / flatQps).toFixed(3)),
    graph_recall: Number((hit / (nq * k)).toFixed(4)),
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    ...provenance(),
  };
  rows.push(rec);
  if (values.json) process.stdout.write(`${JSON.stringify(rec)}\n`);
  else process.stderr.write(`n ${n}: flat ${rec.flat_qps} QPS, graph ${rec.graph_qps} QPS (×${rec.graph_over_flat}), graph recall ${rec.graph_recall}\n`);
  col.close();
}
let cross = null;
for (let i = rows.length - 1; i >= 0 && rows[i].graph_over_flat > 1; i--) cross = rows[i].n;
if (!values.json) {
  process.stderr.write(`${hv.backend}: graph faster than a flat scan from n = ${cross ?? 'never (in the sizes measured)'} on (${values.dataset}, ${dim}-d, ef ${ef})\n`);
}
