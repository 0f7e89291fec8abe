// Readers that follow the writer (issue 15): one writer process and two read-only reader
// processes on one collection directory. Every batch the writer acknowledged is visible to both
// readers after `refresh()`, and without it within the polling delay (polled with a generous
// timeout: no timing assertion); a reader only ever sees whole batches; readers keep answering
// searches across seals (maxMutableRecords 60), compactions, a SIGKILL of the writer and its
// restart.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Collection, openDatabase } from 'horosvec';
import { backends } from './helpers/backends.js';

const HELPERS = fileURLToPath(new URL('./helpers', import.meta.url));

type Msg = { op: string; [k: string]: unknown };

/** A forked helper with a request/response helper over its IPC channel. */
class Child {
  proc: ChildProcess;
  #waiting: { op: string; resolve: (m: Msg) => void; reject: (e: Error) => void }[] = [];
  #onMessage: (m: Msg) => void = () => {};
  exited: Promise<void>;

  constructor(script: string, dir: string, onMessage?: (m: Msg) => void) {
    this.proc = fork(join(HELPERS, script), [dir], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    if (onMessage) this.#onMessage = onMessage;
    this.proc.on('message', (m: Msg) => {
      if (m.op === 'error') {
        const w = this.#waiting.shift();
        const e = new Error(`${script}: ${m.code}: ${m.message}`);
        if (w) w.reject(e);
        else throw e;
        return;
      }
      const i = this.#waiting.findIndex((w) => w.op === m.op);
      if (i >= 0) this.#waiting.splice(i, 1)[0].resolve(m);
      else this.#onMessage(m);
    });
    this.exited = new Promise((resolve) => this.proc.on('exit', () => resolve()));
  }

  next(op: string): Promise<Msg> {
    return new Promise((resolve, reject) => this.#waiting.push({ op, resolve, reject }));
  }

  ask<T = Msg>(msg: Msg, reply: string): Promise<T> {
    const p = this.next(reply);
    this.proc.send(msg);
    return p as Promise<unknown> as Promise<T>;
  }

  kill() {
    this.proc.kill('SIGKILL');
    return this.exited;
  }
}

const dir = mkdtempSync(join(tmpdir(), 'horosvec-follow-'));
const children: Child[] = [];
afterAll(async () => {
  for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) await c.kill();
  rmSync(dir, { recursive: true, force: true });
});

/** Batches acknowledged by a writer (b → n), and submitted ones (b → n). */
const acked = new Map<number, number>();
const submitted = new Map<number, number>();
let nextBatch = 0;

function startWriter(): Promise<Child> {
  const ackWaiters = new Map<number, () => void>();
  const w = new Child('follow-writer.mjs', dir, (m) => {
    if (m.op === 'acked') {
      acked.set(m.b as number, m.n as number);
      ackWaiters.get(m.b as number)?.();
    }
  });
  (w as Child & { ackWaiters: typeof ackWaiters }).ackWaiters = ackWaiters;
  children.push(w);
  return w.next('ready').then(() => w);
}

/** Sends `count` batches of 1..12 records, `inFlight` at a time; resolves when all are acked. */
async function writeBatches(w: Child, count: number, inFlight = 4) {
  const waiters = (w as Child & { ackWaiters: Map<number, () => void> }).ackWaiters;
  const pending = new Set<Promise<void>>();
  for (let i = 0; i < count; i++) {
    const b = nextBatch++;
    const n = 1 + ((b * 7) % 12);
    submitted.set(b, n);
    const p = new Promise<void>((resolve) => waiters.set(b, resolve));
    pending.add(p);
    p.then(() => pending.delete(p));
    w.proc.send({ op: 'batch', b, n });
    if (pending.size >= inFlight) await Promise.race(pending);
  }
  await Promise.all(pending);
}

function startReader(): Promise<Child> {
  const r = new Child('follow-reader.mjs', dir);
  children.push(r);
  return r.next('ready').then(() => r);
}

/** The reader's visible ids, checked: whole batches only, nothing never submitted. */
async function snapshot(r: Child): Promise<Set<number>> {
  const { ids } = await r.ask<{ ids: number[] }>({ op: 'snapshot' }, 'snapshot');
  const perBatch = new Map<number, number>();
  for (const id of ids) perBatch.set(Math.floor(id / 1000), (perBatch.get(Math.floor(id / 1000)) ?? 0) + 1);
  for (const [b, k] of perBatch) {
    expect(submitted.has(b), `batch ${b} was never submitted`).toBe(true);
    expect(k, `batch ${b}: ${k} of its ${submitted.get(b)} records visible (a partial batch)`).toBe(submitted.get(b));
  }
  return new Set(ids);
}

const missingAcked = (ids: Set<number>) => [...acked].filter(([b]) => !ids.has(b * 1000)).map(([b]) => b);

async function expectAckedAfterRefresh(readers: Child[]) {
  for (const r of readers) {
    await r.ask({ op: 'refresh' }, 'refreshed');
    expect(missingAcked(await snapshot(r))).toEqual([]);
  }
}

/** Without refresh: the poller shows every acknowledged batch (generous timeout, no timing assert). */
async function expectAckedEventually(readers: Child[]) {
  for (const r of readers) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const missing = missingAcked(await snapshot(r));
      if (missing.length === 0) break;
      if (Date.now() > deadline) throw new Error(`batches ${missing.slice(0, 10).join(', ')} never became visible without refresh`);
      await new Promise((res) => setTimeout(res, 50));
    }
  }
}

describe('readers that follow the writer', () => {
  it('two reader processes see every acknowledged batch across seals, compactions, a writer SIGKILL and restart', async () => {
    let w = await startWriter();
    await writeBatches(w, 3);
    const readers = await Promise.all([startReader(), startReader()]);
    for (const r of readers) expect(missingAcked(await snapshot(r))).toEqual([]);

    // seals in the background (60 records per mutable segment)
    await writeBatches(w, 40);
    await expectAckedAfterRefresh(readers);
    // readers racing the writer (their pollers reloading meanwhile) see whole batches only
    let writing = true;
    const racing = readers.map(async (r) => {
      let views = 0;
      while (writing || views === 0) {
        await snapshot(r);
        views++;
      }
      return views;
    });
    await writeBatches(w, 60);
    writing = false;
    for (const views of await Promise.all(racing)) expect(views).toBeGreaterThan(0);
    await expectAckedEventually(readers);

    // a compaction removes the segment files the readers have mapped
    await w.ask({ op: 'compact' }, 'compacted');
    await writeBatches(w, 10);
    await expectAckedEventually(readers);
    await expectAckedAfterRefresh(readers);

    // SIGKILL with batches in flight: acknowledged ones are visible, the others whole or absent
    const before = acked.size;
    for (let i = 0; i < 300; i++) {
      const b = nextBatch++;
      submitted.set(b, 1 + ((b * 7) % 12));
      w.proc.send({ op: 'batch', b, n: submitted.get(b) });
    }
    while (acked.size < before + 10) await new Promise((res) => setTimeout(res, 1));
    await w.kill();
    await expectAckedAfterRefresh(readers);

    await expectAckedEventually(readers);

    // the writer restarts on the same directory (its lock died with it); readers keep following
    w = await startWriter();
    await writeBatches(w, 40);
    await w.ask({ op: 'compact' }, 'compacted');
    await writeBatches(w, 10);
    await expectAckedEventually(readers);
    await expectAckedAfterRefresh(readers);

    for (const r of readers) {
      const s = await r.ask<{ searches: number; errors: number; firstError: string | null; refreshes: number }>({ op: 'stats' }, 'stats');
      expect(s.firstError).toBeNull();
      expect(s.errors).toBe(0);
      expect(s.searches).toBeGreaterThan(0);
      expect(s.refreshes).toBeGreaterThan(0);
    }
    for (const c of [w, ...readers]) {
      c.proc.send({ op: 'close' });
      await c.exited;
      expect(c.proc.exitCode).toBe(0);
    }
  }, 90_000);

  for (const [name, api] of backends) {
    it(`${name}: refresh() of an in-memory collection resolves false; after close() it rejects HV_CLOSED`, async () => {
      const col = api.Collection.create({ dim: 2 });
      await col.add([1], [[1, 2]]);
      expect(await col.refresh()).toBe(false);
      await col.close();
      await expect(col.refresh()).rejects.toMatchObject({ code: 'HV_CLOSED' });
    });
  }

  it('a writer refresh() resolves false; a view in the same process follows it; refreshIntervalMs is checked', async () => {
    const d = mkdtempSync(join(tmpdir(), 'horosvec-follow-same-'));
    try {
      for (const bad of [-1, Number.NaN, Infinity, 86_400_001, '100', null]) {
        await expect(Collection.open(d, { dim: 2, readOnly: true, refreshIntervalMs: bad as number })).rejects.toMatchObject({ code: 'HV_INVALID_ARGUMENT' });
      }
      const w = await Collection.open(d, { dim: 2 });
      const manual = await Collection.open(d, { readOnly: true, refreshIntervalMs: 0 });
      const polled = await Collection.open(d, { readOnly: true, refreshIntervalMs: 5 });
      await w.add(['a', 'b'], [[1, 0], [0, 1]], [{ n: 1 }, { n: 2 }]);
      expect(await w.refresh()).toBe(false);
      expect(manual.size).toBe(0);
      expect(await manual.refresh()).toBe(true);
      expect(await manual.refresh()).toBe(false);
      expect(manual.size).toBe(2);
      expect(manual.get('b')?.metadata).toEqual({ n: 2 });
      expect(await manual.count({ n: { $gt: 1 } })).toBe(1);
      await w.deleteWhere({ n: 1 });
      const deadline = Date.now() + 30_000;
      while (polled.get('a') !== undefined || polled.get('b') === undefined) {
        if (Date.now() > deadline) throw new Error('the polling view never caught up');
        await new Promise((res) => setTimeout(res, 5));
      }
      const s = polled.stats();
      expect(s.refreshes).toBeGreaterThan(0);
      expect(s.lastRefreshMs).toBeGreaterThanOrEqual(0);
      expect(w.stats().refreshes).toBe(0);
      await expect(manual.add(['c'], [[1, 1]])).rejects.toMatchObject({ code: 'HV_READ_ONLY' });
      for (const c of [manual, polled]) {
        await c.close();
        await expect(c.refresh()).rejects.toMatchObject({ code: 'HV_CLOSED' });
      }
      await w.close();
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });

  it('a readOnly database passes refreshIntervalMs to the views it opens', async () => {
    const d = mkdtempSync(join(tmpdir(), 'horosvec-follow-db-'));
    try {
      const db = await openDatabase(d);
      const w = await db.createCollection('docs', { dim: 2 });
      const manual = await openDatabase(d, { readOnly: true, refreshIntervalMs: 0 });
      const polled = await openDatabase(d, { readOnly: true, refreshIntervalMs: 5 });
      const [m, p] = [await manual.collection('docs'), await polled.collection('docs')];
      await w.add(['a'], [[1, 0]]);
      const deadline = Date.now() + 30_000;
      while (p.get('a') === undefined) {
        if (Date.now() > deadline) throw new Error('the polling view never caught up');
        await new Promise((res) => setTimeout(res, 5));
      }
      expect(m.size).toBe(0); // no polling
      expect(await m.refresh()).toBe(true);
      expect(m.size).toBe(1);
      await expect(openDatabase(d, { readOnly: true, refreshIntervalMs: -1 }).then((x) => x.collection('docs'))).rejects.toMatchObject({ code: 'HV_INVALID_ARGUMENT' });
      await Promise.all([manual.close(), polled.close(), db.close()]);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});
