#!/usr/bin/env node
// Readers that follow the writer (issue 15), two measurements (JSONL records on stdout, to be
// appended to bench-results/follow/<rev>.jsonl):
//
//   delay    A writer process (this script forked with --role writer) holds --preload records of
//            the shipped sample (384-d, all-MiniLM-L6-v2) and commits --commits single-record adds,
//            one at a time on its own schedule (a random 0–--max-pause ms pause between them,
//            default 200), independent of the reader, so commits land at random phases of the
//            polls. This process holds a
//            read-only view and measures, per commit, the time from the writer's acknowledgement
//            (its clock: performance.timeOrigin + now(), shared by both processes) until `get(id)`
//            returns the record: (a) with the default polling (refreshIntervalMs 100; the reader
//            polls `get` on 1 ms timers), (b) with polling off and an explicit
//            `await refresh()` as soon as the acknowledgement arrives (a record an earlier refresh
//            already showed is not refreshed for again). p50 / p99 / max.
//   cost     Refresh cost against the mutable segment's size: a writer (this process) holds N
//            records of the sample in its mutable segment (no seal), a read-only view (polling
//            off) refreshes after each of --reps single-record commits: wall time of
//            `await refresh()` and the core's reload time (`stats().lastRefreshMs`), against the
//            time of opening the same view (with the writer open, whose background interim index
//            builds compete for the CPU, and with the writer closed: `open_writer_idle`, the
//            load a reload repeats). Also 20,000 sealed + 1,000 mutable: the sealed
//            segment is reused by a refresh (mapped once), so only the mutable records count.
//
// Usage: node bench/follow.mjs [--phase delay|cost|all] [--commits 200] [--preload 1000]
//          [--max-pause 200] [--sizes 1000,10000,20000] [--reps 15]
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Collection } from 'horosvec';
import { loadSample } from '../examples/lib/sample.mjs';
import { provenance } from './lib/provenance.mjs';

const { values } = parseArgs({
  options: {
    role: { type: 'string', default: 'main' },
    dir: { type: 'string' },
    phase: { type: 'string', default: 'all' },
    commits: { type: 'string', default: '200' },
    preload: { type: 'string', default: '1000' },
    sizes: { type: 'string', default: '1000,10000,20000' },
    reps: { type: 'string', default: '15' },
    'max-pause': { type: 'string', default: '200' },
  },
});
const SELF = fileURLToPath(import.meta.url);
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const emit = (r) => process.stdout.write(`${JSON.stringify({ bench: 'follow', ...r, ...provenance() })}\n`);
const docs = loadSample().docs;
const vec = (i) => docs[i % docs.length].vector;
const meta = (i) => ({ text: docs[i % docs.length].text, source: docs[i % docs.length].source });

async function load(col, from, n) {
  for (let s = from; s < from + n; s += 1000) {
    const ids = [];
    for (let i = s; i < Math.min(from + n, s + 1000); i++) ids.push(i);
    await col.add(ids, ids.map(vec), ids.map(meta));
  }
}

/**
 * Waits until the writer's background interim index stops changing for a second (it covers the
 * mutable segment, or the segment is too small to get one), so that it does not compete for CPU.
 */
async function settle(col) {
  let last = -1;
  let stable = 0;
  for (let t = 0; t < 600 && stable < 10; t++) {
    const s = col.stats();
    stable = s.mutableIndexed === last ? stable + 1 : 0;
    last = s.mutableIndexed;
    await sleep(100);
  }
}

if (values.role === 'writer') {
  const col = await Collection.open(values.dir, { dim: 384, metric: 'cosine', durability: 'normal', maxMutableRecords: 100_000 });
  await load(col, 0, Number(values.preload));
  await settle(col);
  process.on('message', async (m) => {
    if (m.op === 'run') {
      for (const id of m.ids) {
        await col.add([id], [vec(id)], [meta(id)]);
        process.send({ op: 'acked', id, t: now() });
        await sleep(Math.random() * m.maxPauseMs);
      }
    } else if (m.op === 'close') {
      await col.close();
      process.exit(0);
    }
  });
  process.send({ op: 'ready' });
} else {
  const phases = values.phase === 'all' ? ['delay', 'cost'] : [values.phase];
  if (phases.includes('delay')) await delay();
  if (phases.includes('cost')) await cost();
}

function summary(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  const r = (x) => Math.round(x * 100) / 100;
  return { n: s.length, p50_ms: r(q(0.5)), p99_ms: r(q(0.99)), max_ms: r(s.at(-1)), mean_ms: r(s.reduce((a, b) => a + b, 0) / s.length) };
}

async function delay() {
  const dir = mkdtempSync(join(tmpdir(), 'hv-follow-bench-'));
  const preload = Number(values.preload);
  const w = fork(SELF, ['--role', 'writer', '--dir', dir, '--preload', String(preload)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const acks = new Map();
  let onAck = () => {};
  await new Promise((resolve) =>
    w.on('message', (m) => {
      if (m.op === 'ready') resolve();
      if (m.op === 'acked') {
        acks.set(m.id, m.t);
        onAck();
      }
    }),
  );
  const waitAck = async (id) => {
    while (!acks.has(id)) await new Promise((r) => (onAck = r));
    return acks.get(id);
  };
  let next = 1_000_000;
  for (const mode of ['poll', 'refresh']) {
    const r = await Collection.open(dir, mode === 'poll' ? { readOnly: true } : { readOnly: true, refreshIntervalMs: 0 });
    const commits = Number(values.commits);
    const ids = Array.from({ length: commits }, () => next++);
    const seen = new Map();
    // the writer commits on its own schedule (independent of this reader, so each commit lands
    // at a random phase of the polls)
    w.send({ op: 'run', ids, maxPauseMs: Number(values['max-pause']) });
    if (mode === 'poll') {
      // commits become visible in order: watch the oldest unseen; 1 ms timers, not a busy
      // loop (the view's poller thread needs the CPU too)
      let i = 0;
      while (i < ids.length) {
        while (i < ids.length && r.get(ids[i]) !== undefined) seen.set(ids[i++], now());
        await sleep(1);
      }
    } else {
      // refresh as soon as each acknowledgement arrives (one refresh at a time)
      for (const id of ids) {
        await waitAck(id);
        if (r.get(id) === undefined) await r.refresh();
        if (r.get(id) === undefined) throw new Error(`record ${id} not visible after refresh()`);
        seen.set(id, now());
      }
    }
    for (const id of ids) await waitAck(id);
    const delays = ids.map((id) => seen.get(id) - acks.get(id));
    const s = r.stats();
    emit({
      phase: 'delay',
      mode,
      refresh_interval_ms: mode === 'poll' ? 100 : 0,
      mutable_records: s.mutableRecords,
      dim: 384,
      data: 'sample (all-MiniLM-L6-v2)',
      refreshes: s.refreshes,
      last_refresh_ms: s.lastRefreshMs,
      ...summary(delays),
    });
    await r.close();
  }
  w.send({ op: 'close' });
  await new Promise((r) => w.on('exit', r));
  rmSync(dir, { recursive: true, force: true });
}

async function cost() {
  const reps = Number(values.reps);
  const cases = values.sizes.split(',').map((n) => ({ mutable: Number(n), sealed: 0 }));
  cases.push({ mutable: 1000, sealed: 20_000 });
  for (const { mutable, sealed } of cases) {
    const dir = mkdtempSync(join(tmpdir(), 'hv-follow-cost-'));
    const w = await Collection.open(dir, { dim: 384, metric: 'cosine', durability: 'normal', maxMutableRecords: 100_000 });
    if (sealed > 0) {
      await load(w, 0, sealed);
      await w.seal();
    }
    await load(w, sealed, mutable);
    await settle(w);
    let t = now();
    const r = await Collection.open(dir, { readOnly: true, refreshIntervalMs: 0 });
    const openMs = now() - t;
    const wall = [];
    const core = [];
    for (let i = 0; i < reps; i++) {
      await w.add([5_000_000 + i], [vec(i)], [meta(i)]);
      t = now();
      if (!(await r.refresh())) throw new Error('refresh found nothing new');
      wall.push(now() - t);
      core.push(r.stats().lastRefreshMs);
    }
    const noChange = [];
    for (let i = 0; i < reps; i++) {
      t = now();
      await r.refresh();
      noChange.push(now() - t);
    }
    const st = r.stats();
    await r.close();
    await w.close();
    // the same load with the writer closed (no background index build competing for the CPU):
    // what a reload costs on a quiet machine; a refresh is this load minus the segment mapping
    const idle = [];
    for (let i = 0; i < 5; i++) {
      t = now();
      const v = await Collection.open(dir, { readOnly: true, refreshIntervalMs: 0 });
      idle.push(now() - t);
      await v.close();
    }
    emit({
      phase: 'cost',
      mutable_records: st.mutableRecords,
      sealed_records: sealed,
      sealed_segments: st.sealedSegments,
      dim: 384,
      data: 'sample (all-MiniLM-L6-v2)',
      open_ms: Math.round(openMs * 100) / 100,
      refresh_wall: summary(wall),
      refresh_core: summary(core),
      refresh_unchanged: summary(noChange),
      open_writer_idle: summary(idle),
    });
    rmSync(dir, { recursive: true, force: true });
  }
}
