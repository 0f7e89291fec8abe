#!/usr/bin/env node
// Sealed segments of durable collections, two measurements (JSONL records on stdout):
//
//   --phase open   Builds a collection of --n vectors (default 1,000,000: the minilm384 base
//                  repeated with seeded noise, σ = 0.02 per component) in --dir, sealing every
//                  --seal records in the background while inserting (durability 'off' for the
//                  load), then measures, each in a fresh process, the time of Collection.open and
//                  of the first search after it, of the same query again and of another query
//                  (--opens times), and when the background read of the segments' walk data
//                  ends (`warmingSegments` back to 0). Page cache: warm (the files were just
//                  written) unless dropping caches works (`cold` in the record).
//   --phase mixed  --n records (default 100,000: minilm384 itself; more repeat it with seeded
//                  noise as above): n − 10k sealed + 10k (--mutable) in the mutable segment,
//                  against the same n records fully sealed (one compacted segment); the mutable
//                  segment is measured once its interim index is built. Search QPS (sequential
//                  searchSync, ≥ 3 s window) and recall@10 against an exact search, k = 10, for
//                  ef 24…128; the mixed layout's QPS is also interpolated at the fully sealed
//                  layout's recall at ef 64 (equal recall).
//
// Usage: node bench/segments.mjs --phase open|mixed [--dir PATH] [--n N] [--seal 100000] [--mutable 10000]
//          [--opens 5] [--skip-load (open: measure what --dir holds)] [--keep]
import { mkdtempSync, rmSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { execSync, execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as hv from 'horosvec';
import { loadDataset } from './datasets.mjs';
import { provenance } from './lib/provenance.mjs';
import { qpsAtRecall } from './lib/qps-at-recall.mjs';

const { values } = parseArgs({
  options: {
    phase: { type: 'string', default: 'open' },
    dir: { type: 'string' },
    n: { type: 'string' },
    mutable: { type: 'string', default: '10000' },
    seal: { type: 'string', default: '100000' },
    opens: { type: 'string', default: '5' },
    keep: { type: 'boolean', default: false },
    'skip-load': { type: 'boolean', default: false },
  },
});
const SELF = fileURLToPath(import.meta.url);
const emit = (r) => process.stdout.write(`${JSON.stringify({ ...r, ...provenance() })}\n`);

function medium(path) {
  try {
    const [src, fstype] = execSync(`df --output=source,fstype ${JSON.stringify(path)} | tail -1`, { encoding: 'utf8' }).trim().split(/\s+/);
    return fstype === 'tmpfs' ? 'tmpfs' : `${fstype} on ${src}`;
  } catch {
    return 'unknown';
  }
}

function dirBytes(dir) {
  return readdirSync(dir).reduce((s, f) => s + statSync(join(dir, f)).size, 0);
}

/** Seeded normal noise (Box–Muller over a xorshift). */
function noise(seed) {
  let s = seed >>> 0 || 1;
  const u = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return (s + 0.5) / 2 ** 32;
  };
  return () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
}

if (values.phase === 'measure-open') {
  // child: one open + first search, timed
  const t0 = performance.now();
  const col = await hv.Collection.open(values.dir, { readOnly: true });
  const t1 = performance.now();
  const [q, q2] = JSON.parse(process.env.HV_QUERY).map((x) => new Float32Array(x));
  const warming = col.stats().warmingSegments;
  const hits = col.searchSync(q, { k: 10 });
  const t2 = performance.now();
  col.searchSync(q, { k: 10 });
  const t3 = performance.now();
  col.searchSync(q2, { k: 10 });
  const t4 = performance.now();
  // the background read of the segments' walk data (codes, graph) after open
  while (col.stats().warmingSegments > 0 && performance.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 2));
  const t5 = performance.now();
  const s = col.stats();
  process.stdout.write(JSON.stringify({ open_ms: t1 - t0, first_search_ms: t2 - t1, second_search_ms: t3 - t2, other_query_ms: t4 - t3, warming_at_first_search: warming, warm_up_done_ms: t5 - t1, hits: hits.length, size: s.size, sealed_segments: s.sealedSegments, mode: s.mode }));
  await col.close();
  process.exit(0);
}

const { base, queries } = loadDataset('minilm384');
const dim = base.dim;

/** Rows `at..at + m` of the minilm384 base repeated: copy r ≥ 1 of a row adds noise (σ = 0.02 per component, drawn from `rnd` in row order). */
function rowsAt(at, m, rnd) {
  const v = new Float32Array(m * dim);
  for (let i = 0; i < m; i++) {
    const src = (at + i) % base.n;
    const rep = Math.floor((at + i) / base.n);
    for (let j = 0; j < dim; j++) v[i * dim + j] = base.data[src * dim + j] + (rep === 0 ? 0 : 0.02 * rnd());
  }
  return v;
}

if (values.phase === 'open') {
  const n = Number(values.n ?? 1_000_000);
  const dir = values.dir ?? mkdtempSync(join(tmpdir(), 'horosvec-open-'));
  const col = await hv.Collection.open(dir, { dim, metric: 'cosine', durability: 'off', maxMutableRecords: Number(values.seal), maxSealedSegments: 1000 });
  const batch = 10_000;
  const t0 = performance.now();
  const rnd = noise(12345);
  // --skip-load: measure a collection a previous run left in --dir
  for (let at = values['skip-load'] ? n : col.size; at < n; at += batch) {
    const m = Math.min(batch, n - at);
    const v = rowsAt(at, m, rnd);
    await col.add(Array.from({ length: m }, (_, i) => at + i), v);
    if ((at / batch) % 10 === 0) process.stderr.write(`loaded ${at + m} / ${n} (${((performance.now() - t0) / 1000).toFixed(0)} s, ${col.stats().sealedSegments} sealed)\n`);
  }
  await col.seal();
  await col.seal(); // the first may have waited for a running background seal
  const build_s = (performance.now() - t0) / 1000;
  const st = col.stats();
  await col.close();
  const bytes = dirBytes(dir);
  // the first search after open, the same query again, then another query
  const q = [Array.from(queries.data.subarray(0, dim)), Array.from(queries.data.subarray(dim, 2 * dim))];
  const runs = [];
  // --opens runs with the page cache dropped before each open (when this process may), then as
  // many with it warm (the files cached by the previous runs)
  for (let i = 0; i < 2 * Number(values.opens); i++) {
    let cold = false;
    if (i < Number(values.opens)) {
      try {
        execSync('sync; echo 3 > /proc/sys/vm/drop_caches', { stdio: 'ignore' });
        cold = true;
      } catch {
        cold = false;
      }
    }
    const out = execFileSync(process.execPath, [SELF, '--phase', 'measure-open', '--dir', dir], { encoding: 'utf8', env: { ...process.env, HV_QUERY: JSON.stringify(q) } });
    runs.push({ ...JSON.parse(out), cold });
    process.stderr.write(`open ${i + 1}: ${out}\n`);
  }
  const med = (k, cold) => {
    const xs = runs.filter((r) => r.cold === cold).map((r) => r[k]).sort((a, b) => a - b);
    return xs.length === 0 ? null : Number(xs[Math.floor(xs.length / 2)].toFixed(2));
  };
  const segBytes = readdirSync(dir).filter((f) => f.endsWith('.hvseg')).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
  emit({
    bench: 'segments-open',
    mode: st.mode,
    storage: medium(dir),
    n: st.size,
    dim,
    sealed_segments: st.sealedSegments,
    seal_every: Number(values.seal),
    load_and_seal_s: values['skip-load'] ? null : Number(build_s.toFixed(1)),
    cold_runs: runs.filter((r) => r.cold).length,
    cold_open_ms_median: med('open_ms', true),
    cold_first_search_ms_median: med('first_search_ms', true),
    cold_second_search_ms_median: med('second_search_ms', true),
    warm_open_ms_median: med('open_ms', false),
    warm_first_search_ms_median: med('first_search_ms', false),
    warm_second_search_ms_median: med('second_search_ms', false),
    cold_other_query_ms_median: med('other_query_ms', true),
    cold_warm_up_done_ms_median: med('warm_up_done_ms', true),
    runs,
    disk_bytes: bytes,
    disk_bytes_per_vector: Number((bytes / st.size).toFixed(1)),
    segment_bytes_per_vector: Number((segBytes / st.size).toFixed(1)),
    database_bytes: bytes - segBytes,
    raw_f32_bytes_per_vector: dim * 4,
    threads: hv.Collection.create({ dim: 1 }).stats().threads,
  });
  if (values.dir === undefined && !values.keep) rmSync(dir, { recursive: true, force: true });
} else if (values.phase === 'mixed') {
  const dir = values.dir ?? mkdtempSync(join(tmpdir(), 'horosvec-mixed-'));
  const n = Number(values.n ?? base.n);
  const mutableN = Number(values.mutable);
  const sealedN = n - mutableN;
  const nq = Math.min(queries.n, 1_000);
  const col = await hv.Collection.open(dir, { dim, metric: 'cosine', durability: 'off', maxMutableRecords: 10_000_000 });
  const ids = (a, b) => Array.from({ length: b - a }, (_, i) => a + i);
  const rnd = noise(12345);
  for (let at = 0; at < sealedN; at += 50_000) {
    const m = Math.min(50_000, sealedN - at);
    await col.add(ids(at, at + m), rowsAt(at, m, rnd));
  }
  await col.seal();
  await col.add(ids(sealedN, n), rowsAt(sealedN, mutableN, rnd));
  // the mutable segment's interim index is built in the background after the write
  const t0 = performance.now();
  while (col.stats().mutableIndexed < col.stats().mutableRecords && performance.now() - t0 < 120_000) await new Promise((r) => setTimeout(r, 100));
  const qs = queries.data.subarray(0, nq * dim);
  const truth = (await col.searchBatch(qs, { k: 10, exact: true })).map((h) => h.map((x) => x.id));
  const EFS = [24, 32, 48, 64, 96, 128];
  const measure = (label) => {
    const curve = [];
    for (const ef of EFS) {
      const o = { k: 10, ef };
      let found = 0;
      for (let i = 0; i < nq; i++) {
        const hits = col.searchSync(qs.subarray(i * dim, (i + 1) * dim), o);
        found += hits.filter((h) => truth[i].includes(h.id)).length;
      }
      let done = 0;
      const t0 = performance.now();
      while (performance.now() - t0 < 3000) {
        const i = done % nq;
        col.searchSync(qs.subarray(i * dim, (i + 1) * dim), o);
        done++;
      }
      curve.push({ ef, qps: Math.round(done / ((performance.now() - t0) / 1000)), recall_mean: Number((found / (10 * nq)).toFixed(4)) });
    }
    const s = col.stats();
    const at64 = curve.find((c) => c.ef === 64);
    const r = { layout: label, mode: s.mode, sealed_segments: s.sealedSegments, mutable_records: s.mutableRecords, mutable_indexed: s.mutableIndexed, qps: at64.qps, recall_mean: at64.recall_mean, curve };
    process.stderr.write(`${JSON.stringify(r)}\n`);
    return r;
  };
  /** QPS of `curve` at recall `target` (bench/lib/qps-at-recall.mjs), null outside the measured range. */
  const qpsAt = (curve, target) => {
    const v = qpsAtRecall(curve.map((c) => ({ recall: c.recall_mean, qps: c.qps })), target);
    return v.kind === 'exact' ? Math.round(v.qps) : null;
  };
  const k = (x) => `${Math.round(x / 1000)}k`;
  const mixed = measure(`${k(sealedN)} sealed + ${k(mutableN)} mutable`);
  await col.seal();
  await col.compact();
  const sealed = measure(`${k(n)} sealed (one segment)`);
  await col.close();
  const target = sealed.recall_mean; // the fully sealed layout's recall at ef 64
  const mixedAt = qpsAt(mixed.curve, target);
  emit({
    bench: 'segments-mixed',
    dataset: n > base.n ? `minilm384 repeated with noise to ${n}` : 'minilm384',
    n,
    mutable_records: mutableN,
    dim,
    metric: 'cosine',
    k: 10,
    ef: 64,
    threads: 1,
    storage: medium(dir),
    mixed,
    sealed,
    qps_ratio: Number((mixed.qps / sealed.qps).toFixed(3)),
    equal_recall: target,
    mixed_qps_at_equal_recall: mixedAt,
    qps_ratio_at_equal_recall: mixedAt === null ? null : Number((mixedAt / sealed.qps).toFixed(3)),
  });
  if (values.dir === undefined && !values.keep) rmSync(dir, { recursive: true, force: true });
} else {
  throw new Error(`unknown --phase ${values.phase}`);
}
