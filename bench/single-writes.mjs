#!/usr/bin/env node
// Durable single writes awaited one by one, horosvec against sqlite-vec side by side: for each
// medium (tmpfs: /dev/shm; disk: --disk-dir) and durability, `--rounds` rounds, each running
// both engines (their order alternating by round) on a fresh directory: `--count` single-record
// adds, then as many upserts of those records, then their deletes, each awaited before the next.
// Vectors are rows of the shipped sample (384-d, cosine).
//
// sqlite-vec runs as the matrix's `writes` sweep runs it (bench/worker.mjs): better-sqlite3, WAL,
// `synchronous` = FULL / NORMAL / OFF for durability full / normal / off (horosvec's own SQLite
// store maps its durability to the same pragma), one vec0 table, one transaction per call (an
// update is a delete plus an insert in one transaction). Like with like: one fsync per commit
// under FULL on both sides (WAL), none under NORMAL / OFF (until a checkpoint).
//
// Prints one JSONL record per (engine, op, durability, medium, round) and one summary record
// per (op, durability, medium): the median writes/s of each engine over the rounds and their
// ratio. Each record carries the load average, since the machine may be shared.
//
// Usage: node bench/single-writes.mjs [--count 3000] [--rounds 3] [--durability full,normal,off]
//          [--media tmpfs,disk] [--disk-dir DIR (default: the OS tmpdir)]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, cpus, loadavg } from 'node:os';
import { join, dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { readVecs } from '../npm/cli/vecs.js';
import { provenance } from './lib/provenance.mjs';
import { storageOf } from './lib/protocol.mjs';
import * as hv from 'horosvec';
import { openHorosvec, openSqliteVec } from './lib/single-write-engines.mjs';
import { median } from './lib/median.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '3' },
    durability: { type: 'string', default: 'full,normal,off' },
    media: { type: 'string', default: 'tmpfs,disk' },
    'disk-dir': { type: 'string' },
  },
});
const count = Number(values.count);
const rounds = Number(values.rounds);
const base = readVecs(join(ROOT, 'data', 'sample', 'base.f16vecs'));
const dim = base.dim;
const row = (i) => base.data.subarray((i % base.n) * dim, ((i % base.n) + 1) * dim);
const load = () => loadavg().map((x) => Number(x.toFixed(2)));

/** `op(i)` for i in 0..count, each awaited: writes/s and latency percentiles (ms). */
async function timed(op) {
  const lat = new Float64Array(count);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    const t = process.hrtime.bigint();
    await op(i);
    lat[i] = Number(process.hrtime.bigint() - t) / 1e6;
  }
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  lat.sort();
  const pct = (p) => Number(lat[Math.min(count - 1, Math.floor(p * count))].toFixed(4));
  return { writes_per_s: Math.round(count / s), p50_ms: pct(0.5), p99_ms: pct(0.99) };
}

const ENGINES = {
  horosvec: (dir, durability) => openHorosvec(hv, dir, durability, dim, row),
  'sqlite-vec': (dir, durability) => openSqliteVec(dir, durability, dim, row),
};
const names = Object.keys(ENGINES);
const OPS = ['add', 'upsert', 'delete'];

const results = [];
for (const medium of values.media.split(',')) {
  const root = medium === 'tmpfs' ? '/dev/shm' : (values['disk-dir'] ?? tmpdir());
  const st = storageOf(root);
  if (medium === 'tmpfs' && st.storage !== 'tmpfs') {
    process.stderr.write(`single-writes: /dev/shm is not a tmpfs here (${st.storage_detail}); skipped\n`);
    continue;
  }
  for (const durability of values.durability.split(',')) {
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? names : [...names].reverse();
      for (const engine of order) {
        const dir = mkdtempSync(join(root, `hv-single-${engine}-`));
        try {
          const load_before = load();
          const w = await ENGINES[engine](dir, durability);
          const per = {};
          for (const op of OPS) per[op] = await timed(w[op]);
          const { commits } = await w.close();
          for (const op of OPS) {
            const rec = { bench: 'single-writes', engine, engine_version: engine === 'horosvec' ? hv.version : null, backend: engine === 'horosvec' ? hv.backend : 'native', api: w.api, op, durability, medium, ...st, round, count, dim, ...per[op], commits, load_before, load_after: load(), ...provenance(), cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length };
            results.push(rec);
            process.stdout.write(`${JSON.stringify(rec)}\n`);
          }
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    }
  }
}
const keys = new Set(results.map((r) => `${r.op}|${r.durability}|${r.medium}`));
for (const k of keys) {
  const [op, durability, medium] = k.split('|');
  const of = (e) => results.filter((r) => r.engine === e && r.op === op && r.durability === durability && r.medium === medium);
  const h = median(of('horosvec').map((r) => r.writes_per_s));
  const s = median(of('sqlite-vec').map((r) => r.writes_per_s));
  const rs = of('horosvec').map((r, i) => Number((r.writes_per_s / of('sqlite-vec')[i].writes_per_s).toFixed(2)));
  process.stdout.write(`${JSON.stringify({ bench: 'single-writes-summary', op, durability, medium, rounds, horosvec_per_s: h, sqlite_vec_per_s: s, ratio: Number((h / s).toFixed(2)), ratios_by_round: rs, horosvec_p50_ms: median(of('horosvec').map((r) => r.p50_ms)), sqlite_vec_p50_ms: median(of('sqlite-vec').map((r) => r.p50_ms)), horosvec_p99_ms: median(of('horosvec').map((r) => r.p99_ms)), sqlite_vec_p99_ms: median(of('sqlite-vec').map((r) => r.p99_ms)), load: load() })}\n`);
}
