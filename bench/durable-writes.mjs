#!/usr/bin/env node
// Durable write throughput: single-record `add` calls on a collection opened from a directory,
// (a) awaited one by one, (b) `--concurrency` closed-loop clients (each awaits its write before
// issuing the next, so that many calls are in flight at once: group commit), for each
// durability level. Vectors are rows of the shipped sample (384-d). Prints one JSONL record per
// (durability, mode) and a summary line with the concurrent / sequential ratio.
//
// Usage: node bench/durable-writes.mjs [--dir PATH (default: a temp dir under the OS tmpdir)]
//          [--count 2000] [--concurrency 64] [--durability full,normal,off]
import { mkdtempSync, rmSync, readdirSync, statSync, openSync, writeSync, fsyncSync, closeSync, unlinkSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { join, dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { execSync } from 'node:child_process';
import { readVecs } from '../npm/cli/vecs.js';
import { provenance } from './lib/provenance.mjs';
import * as hv from 'horosvec';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    count: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '64' },
    durability: { type: 'string', default: 'full,normal,off' },
  },
});
const parent = values.dir ?? mkdtempSync(join(tmpdir(), 'horosvec-writes-'));
const count = Number(values.count);
const conc = Number(values.concurrency);
const base = readVecs(join(ROOT, 'data', 'sample', 'base.f16vecs'));
const dim = base.dim;
const row = (i) => base.data.subarray((i % base.n) * dim, ((i % base.n) + 1) * dim);

/** Storage medium of `path`: filesystem type, and for a block device whether it says rotational. */
function medium(path) {
  try {
    const [src, fstype] = execSync(`df --output=source,fstype ${JSON.stringify(path)} | tail -1`, { encoding: 'utf8' }).trim().split(/\s+/);
    if (fstype === 'tmpfs' || fstype === 'ramfs') return { medium: 'tmpfs', fstype, device: src };
    const dev = src.replace(/^\/dev\//, '').replace(/p?\d+$/, '');
    let rota = null;
    try {
      rota = execSync(`cat /sys/block/${dev}/queue/rotational`, { encoding: 'utf8' }).trim() === '1';
    } catch {
      // not a plain block device
    }
    return { medium: rota === null ? 'disk' : rota ? 'rotational (as reported by the device)' : 'ssd', fstype, device: src };
  } catch {
    return { medium: 'unknown' };
  }
}

/** Median time of a 4 KiB write + fsync on `dir` (ms): what one durable commit costs at least. */
function fsyncMs(dir) {
  const f = join(dir, 'fsync-probe');
  const fd = openSync(f, 'w');
  const buf = Buffer.alloc(4096, 1);
  const times = [];
  for (let i = 0; i < 50; i++) {
    const t = process.hrtime.bigint();
    writeSync(fd, buf, 0, buf.length, 0);
    fsyncSync(fd);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  closeSync(fd);
  unlinkSync(f);
  times.sort((a, b) => a - b);
  return Number(times[25].toFixed(3));
}

const where = { ...medium(parent), fsync_ms_median: fsyncMs(parent) };
const results = [];
let dirN = 0;
for (const durability of values.durability.split(',')) {
  for (const mode of ['sequential', 'concurrent']) {
    const dir = join(parent, `c${dirN++}`);
    rmSync(dir, { recursive: true, force: true }); // a fresh collection each time, also in a reused --dir
    const col = await hv.Collection.open(dir, { dim, metric: 'cosine', durability });
    const t0 = process.hrtime.bigint();
    if (mode === 'sequential') {
      for (let i = 0; i < count; i++) await col.add(i, row(i));
    } else {
      // closed loop: `conc` clients, each awaiting its write before issuing the next
      let next = 0;
      const client = async () => {
        while (next < count) {
          const i = next++;
          await col.add(i, row(i));
        }
      };
      await Promise.all(Array.from({ length: conc }, client));
    }
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    if (col.size !== count) throw new Error(`${col.size} records after ${count} adds`);
    const commits = col.stats().commits;
    await col.close();
    // bytes on disk after close (SQLite checkpoints the WAL into the database at close)
    const diskBytes = readdirSync(dir).reduce((t, f) => t + statSync(join(dir, f)).size, 0);
    const rec = {
      bench: 'durable-writes',
      engine: 'horosvec',
      engine_version: hv.version,
      backend: hv.backend,
      mode: `add-${mode}`,
      durability,
      concurrency: mode === 'sequential' ? 1 : conc,
      count,
      dim,
      seconds: Number(s.toFixed(4)),
      writes_per_s: Math.round(count / s),
      commits,
      writes_per_commit: Number((count / commits).toFixed(2)),
      disk_bytes_per_vector: Math.round(diskBytes / count),
      raw_f32_bytes_per_vector: dim * 4,
      ...where,
      ...provenance(),
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
    };
    results.push(rec);
    process.stdout.write(`${JSON.stringify(rec)}\n`);
  }
}
for (const durability of values.durability.split(',')) {
  const seq = results.find((r) => r.durability === durability && r.mode === 'add-sequential');
  const con = results.find((r) => r.durability === durability && r.mode === 'add-concurrent');
  process.stdout.write(`${JSON.stringify({ bench: 'durable-writes-summary', durability, medium: where.medium, sequential_per_s: seq.writes_per_s, concurrent_per_s: con.writes_per_s, ratio: Number((con.writes_per_s / seq.writes_per_s).toFixed(2)), sequential_commits: seq.commits, concurrent_commits: con.commits, fsync_ms_median: where.fsync_ms_median })}\n`);
}
if (values.dir === undefined) rmSync(parent, { recursive: true, force: true });
