#!/usr/bin/env node
// The system calls of one durable single write, horosvec against sqlite-vec: what
// bench/single-writes.mjs times, counted instead (counts do not depend on the machine's load).
// For each engine, durability and medium, a child process runs `--count` awaited adds, then as
// many upserts, then the deletes (the same workload as single-writes.mjs) under
// `strace -f`; a marker write to /dev/null between the phases splits the trace. Per op it
// reports: syscalls by name, fsync + fdatasync, bytes written to the database's write-ahead log
// (÷ 4,120, a page plus its frame header: the WAL frames) and to the database file, and the
// futex / eventfd calls (thread hops). strace slows every call, so timings are not printed.
//
// Prints one JSONL record per (engine, op, durability, medium).
//
// Usage: node bench/write-syscalls.mjs [--count 500] [--durability full,normal,off]
//          [--media tmpfs,disk] [--disk-dir DIR] [--engines horosvec,sqlite-vec]
//          [--horosvec MODULE (default: the package; e.g. another build's npm/node.js, to compare)]
//          [--label TEXT (recorded as `build`: which build MODULE is; default "this checkout")]
import { mkdtempSync, rmSync, readFileSync, openSync, writeSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join, dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { provenance } from './lib/provenance.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SELF = fileURLToPath(import.meta.url);
const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '500' },
    durability: { type: 'string', default: 'full,normal,off' },
    media: { type: 'string', default: 'tmpfs,disk' },
    'disk-dir': { type: 'string' },
    engines: { type: 'string', default: 'horosvec,sqlite-vec' },
    horosvec: { type: 'string', default: 'horosvec' },
    label: { type: 'string', default: 'this checkout' },
    child: { type: 'string' },
    dir: { type: 'string' },
  },
});
const count = Number(values.count);
const OPS = ['add', 'upsert', 'delete'];
const MARK = 'HVMARK:';
const WAL_FRAME = 4096 + 24;

if (values.child) {
  // the traced child: one engine, one directory, the three phases with a marker before each
  const { readVecs } = await import('../npm/cli/vecs.js');
  const base = readVecs(join(ROOT, 'data', 'sample', 'base.f16vecs'));
  const dim = base.dim;
  const row = (i) => base.data.subarray((i % base.n) * dim, ((i % base.n) + 1) * dim);
  const durability = values.durability;
  const dir = values.dir;
  const mark = openSync('/dev/null', 'w');
  const { openHorosvec, openSqliteVec } = await import('./lib/single-write-engines.mjs');
  const w = values.child === 'horosvec'
    ? await openHorosvec(await import(values.horosvec), dir, durability, dim, row)
    : await openSqliteVec(dir, durability, dim, row);
  for (const op of OPS) {
    writeSync(mark, `${MARK}${op}`);
    for (let i = 0; i < count; i++) await w[op](i);
  }
  writeSync(mark, `${MARK}end`);
  await w.close();
  process.exit(0);
}

/** Per-phase counts from an `strace -f` log (lines `PID name(args) = ret`). */
function parse(log) {
  const fds = new Map(); // pid-independent: fd → path (the process shares one table)
  const phases = {};
  let phase = null;
  for (const line of log.split('\n')) {
    const m = /^\d+\s+(?:<\.\.\. )?(\w+)(?:\(| resumed>)(.*)$/.exec(line);
    if (!m) continue;
    const [, name, rest] = m;
    if (name === 'write' && rest.includes(MARK)) {
      phase = /HVMARK:(\w+)/.exec(rest)[1];
      if (phase !== 'end') phases[phase] ??= { calls: {}, wal_bytes: 0, db_bytes: 0 };
      continue;
    }
    if (name === 'openat' || name === 'open') {
      const p = /"([^"]+)"/.exec(rest)?.[1];
      const fd = Number(/= (\d+)$/.exec(rest)?.[1]);
      if (p && Number.isInteger(fd)) fds.set(fd, p);
      continue;
    }
    if (!phase || phase === 'end' || line.includes('unfinished')) continue;
    const ph = phases[phase];
    ph.calls[name] = (ph.calls[name] ?? 0) + 1;
    if (name === 'pwrite64' || name === 'write') {
      const fd = Number(/^(\d+),/.exec(rest)?.[1]);
      const n = Number(/= (\d+)$/.exec(rest)?.[1] ?? 0);
      const path = fds.get(fd) ?? '';
      if (path.endsWith('-wal')) ph.wal_bytes += n;
      else if (path.endsWith('.db')) ph.db_bytes += n;
    }
  }
  return phases;
}

const load = () => loadavg().map((x) => Number(x.toFixed(2)));
const per = (x) => Number((x / count).toFixed(2));
for (const medium of values.media.split(',')) {
  const root = medium === 'tmpfs' ? '/dev/shm' : (values['disk-dir'] ?? tmpdir());
  for (const durability of values.durability.split(',')) {
    for (const engine of values.engines.split(',')) {
      const dir = mkdtempSync(join(root, `hv-sys-${engine}-`));
      const logFile = join(tmpdir(), `hv-strace-${process.pid}.log`);
      try {
        const r = spawnSync('strace', ['-f', '-qq', '-o', logFile, process.execPath, SELF, '--child', engine, '--horosvec', values.horosvec, '--dir', dir, '--durability', durability, '--count', String(count)], { stdio: ['ignore', 'inherit', 'inherit'] });
        if (r.status !== 0) throw new Error(`traced child failed (${r.status})`);
        const phases = parse(readFileSync(logFile, 'utf8'));
        for (const op of OPS) {
          const ph = phases[op];
          const calls = Object.fromEntries(Object.entries(ph.calls).sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, per(v)]));
          const syncs = (ph.calls.fsync ?? 0) + (ph.calls.fdatasync ?? 0);
          const rec = { bench: 'write-syscalls', engine, build: engine === 'horosvec' ? values.label : null, op, durability, medium, count, syscalls_per_op: per(Object.values(ph.calls).reduce((a, b) => a + b, 0)), syncs_per_op: per(syncs), wal_frames_per_op: per(ph.wal_bytes / WAL_FRAME), wal_bytes_per_op: per(ph.wal_bytes), db_bytes_per_op: per(ph.db_bytes), hops_per_op: per((ph.calls.futex ?? 0) + (ph.calls.eventfd2 ?? 0)), calls_per_op: calls, load: load(), ...provenance() };
          process.stdout.write(`${JSON.stringify(rec)}\n`);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
        rmSync(logFile, { force: true });
      }
    }
  }
}
