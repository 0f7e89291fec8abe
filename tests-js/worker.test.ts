// horosvec/worker under Node: the Collection API served by a worker_thread, over the native and
// the wasm build (HOROSVEC_FORCE_WASM=1 when the worker starts). Contract-style checks, snapshots,
// transferables, progress, error codes, and a worker that dies with calls pending.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import * as hv from 'horosvec/worker';
import * as native from 'horosvec';
import * as wasm from 'horosvec/wasm';
import { rawRequest } from '../npm/lib/worker-client.js';
import { randomVectors } from './helpers/backends.js';

const DIM = 16;
const N = 600;
const base = randomVectors(N, DIM, 17);

async function expectCode(p: Promise<unknown>, code: string) {
  const e = await p.then(() => null, (err: unknown) => err);
  expect(e, `expected ${code}`).toBeInstanceOf(hv.HorosvecError);
  expect(e).toBeInstanceOf(Error);
  expect((e as { code: string }).code).toBe(code);
  expect((e as Error).message.startsWith(`${code}: `)).toBe(true);
  return e as Error & { code: string };
}

// the worker starts on the first call: the environment then decides its build
async function useBackend(name: 'native' | 'wasm') {
  await hv.terminate();
  if (name === 'wasm') process.env.HOROSVEC_FORCE_WASM = '1';
  else delete process.env.HOROSVEC_FORCE_WASM;
  process.env.HOROSVEC_WORKER_TEST_HOOKS = '1';
}

afterAll(async () => {
  await hv.terminate();
  delete process.env.HOROSVEC_FORCE_WASM;
  delete process.env.HOROSVEC_WORKER_TEST_HOOKS;
});

describe.each(['native', 'wasm'] as const)('horosvec/worker over the %s build', (name) => {
  // the same build in-thread: the reference for results (the kernels' rounding differs between builds)
  const inThread = (name === 'wasm' ? wasm : native) as typeof native;
  it('runs in the worker with that build', async () => {
    await useBackend(name);
    expect(await hv.backend()).toBe(name);
    expect(await hv.version()).toBe(native.version);
    expect(typeof (await hv.kernel())).toBe('string');
  });

  it('add, search, filter, delete, list, count, get, stats: the same results as in-thread', async () => {
    const col = await hv.Collection.create({ dim: DIM, metric: 'cosine' });
    const ref = inThread.Collection.create({ dim: DIM, metric: 'cosine' });
    expect(col.dim).toBe(DIM);
    expect(col.metric).toBe('cosine');
    const ids = [...Array(N).keys()];
    const meta = ids.map((i) => ({ tag: i % 3 === 0 ? 'a' : 'b', i }));
    await col.add(ids, base, meta);
    await ref.add(ids, base, meta);
    expect(await col.size()).toBe(N);
    expect(await col.count({ tag: 'a' })).toBe(200);
    const q = base.subarray(5 * DIM, 6 * DIM);
    const hits = await col.search(q, { k: 10 });
    expect(hits).toEqual(await ref.search(q, { k: 10 }));
    expect(hits[0]).toMatchObject({ id: 5, metadata: { tag: 'b', i: 5 } });
    const filtered = await col.search(Array.from(q), { k: 5, filter: { tag: 'a' } });
    expect(filtered.length).toBe(5);
    for (const h of filtered) expect((h.metadata as { tag: string }).tag).toBe('a');
    const batch = await col.searchBatch([base.subarray(0, DIM), base.subarray(DIM, 2 * DIM)], { k: 3 });
    expect(batch.map((b) => b[0].id)).toEqual([0, 1]);
    expect(await col.delete([0, 1, 2])).toBe(3);
    expect(await col.deleteWhere({ i: { $lt: 10 } })).toBe(7);
    expect(await col.count()).toBe(N - 10);
    const page = await col.list({ limit: 4, includeVectors: true });
    expect(page.records.length).toBe(4);
    expect(page.records[0].vector).toBeInstanceOf(Float32Array);
    expect(Array.from(page.records[0].vector!)).toEqual(Array.from(base.subarray(10 * DIM, 11 * DIM)));
    const rec = await col.get(20);
    expect(rec?.metadata).toEqual({ tag: 'b', i: 20 });
    expect(Array.from(rec!.vector)).toEqual(Array.from(base.subarray(20 * DIM, 21 * DIM)));
    expect(await col.get(0)).toBeUndefined();
    const st = await col.stats();
    expect(st.backend).toBe(name);
    expect(st.dim).toBe(DIM);
    await col.upsert(20, base.subarray(0, DIM), { tag: 'c' });
    expect((await col.get(20))?.metadata).toEqual({ tag: 'c' });
    await col.close();
    await ref.close();
  });

  it('snapshot: toBytes in the worker, fromBytes in-thread and back', async () => {
    const col = await hv.Collection.create({ dim: DIM, metric: 'l2' });
    await col.add([...Array(N).keys()], base, undefined);
    await col.buildIndex({ seed: 3 });
    const bytes = await col.toBytes();
    expect(bytes).toBeInstanceOf(Uint8Array);
    const here = await inThread.Collection.fromBytes(bytes);
    expect(here.size).toBe(N);
    const q = base.subarray(7 * DIM, 8 * DIM);
    const back = await hv.Collection.fromBytes(bytes);
    expect(bytes.byteLength).toBeGreaterThan(0); // the caller's bytes are copied, not detached
    expect(await back.size()).toBe(N);
    expect(await back.search(q, { k: 10 })).toEqual(here.searchSync(q, { k: 10 }));
    await Promise.all([col.close(), back.close(), here.close()]);
  });

  it('transferables: the caller keeps a usable Float32Array (a copy is transferred)', async () => {
    const col = await hv.Collection.create({ dim: DIM });
    const own = base.slice(0, 4 * DIM);
    const view = base.subarray(DIM, 3 * DIM);
    const p = col.add([1, 2, 3, 4], own);
    own.fill(0); // changing it right after the call does not change what was added
    await p;
    expect(own.buffer.byteLength).toBe(4 * DIM * 4);
    await col.upsert([2, 3], view);
    expect(view.length).toBe(2 * DIM);
    expect(base.buffer.byteLength).toBe(N * DIM * 4);
    expect(Array.from((await col.get(1))!.vector)).toEqual(Array.from(base.subarray(0, DIM)));
    const q = base.slice(0, DIM);
    await col.search(q, { k: 1 });
    expect(q.length).toBe(DIM);
    await col.close();
  });

  it('buildIndex progress arrives on the calling thread; an aborted signal is HV_CANCELLED', async () => {
    const col = await hv.Collection.create({ dim: DIM });
    await col.add([...Array(N).keys()], base);
    const seen: [number, number][] = [];
    await col.buildIndex({ seed: 1, onProgress: (d, t) => seen.push([d, t]) });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.at(-1)![0]).toBe(seen.at(-1)![1]);
    const ac = new AbortController();
    ac.abort();
    await expectCode(col.buildIndex({ signal: ac.signal }), 'HV_CANCELLED');
    await col.close();
  });

  it('progress events from the worker: fromBytes (decode, bytes), add and upsert (write, records), buildIndex (build)', async () => {
    const col = await hv.Collection.create({ dim: DIM });
    const events: [number, number, string][] = [];
    const onProgress = (done: number, total: number, phase: string) => events.push([done, total, phase]);
    await col.add([...Array(N).keys()], base, undefined, { onProgress });
    expect(events).toEqual([[0, N, 'write'], [N, N, 'write']]);
    events.length = 0;
    await col.upsert(3, base.subarray(0, DIM), { t: 3 }, { onProgress });
    expect(events).toEqual([[0, 1, 'write'], [1, 1, 'write']]);
    events.length = 0;
    await col.buildIndex({ seed: 2, onProgress });
    expect(events.length).toBeGreaterThan(0);
    expect(events.every(([d, t, phase]) => phase === 'build' && d <= t)).toBe(true);
    expect(events.at(-1)![0]).toBe(events.at(-1)![1]);
    const bytes = await col.toBytes();
    events.length = 0;
    const back = await hv.Collection.fromBytes(bytes, { onProgress });
    expect(events).toEqual([[0, bytes.byteLength, 'decode'], [bytes.byteLength, bytes.byteLength, 'decode']]);
    expect(await back.size()).toBe(N);
    // without onProgress: no events, the same results
    events.length = 0;
    await col.add([N], base.subarray(0, DIM), undefined, {});
    expect(events).toEqual([]);
    // a failed write sends its start only; bad options are coded, before anything is sent
    await expectCode(col.add(1, base.subarray(0, DIM), undefined, { onProgress }), 'HV_DUPLICATE_ID');
    expect(events).toEqual([[0, 1, 'write']]);
    await expectCode(col.add([N + 1], base.subarray(0, DIM), undefined, { onProgress: 'x' as never }), 'HV_INVALID_ARGUMENT');
    await expectCode(hv.Collection.fromBytes(bytes, null as never), 'HV_INVALID_ARGUMENT');
    expect(await col.size()).toBe(N + 1);
    await col.close();
    await back.close();
  });

  it('aborting the signal mid-build is forwarded: the native build stops with HV_CANCELLED', async () => {
    const col = await hv.Collection.create({ dim: DIM });
    const n = name === 'native' ? 40_000 : 3000;
    await col.add([...Array(n).keys()], randomVectors(n, DIM, 5));
    const ac = new AbortController();
    let progressed = 0;
    const r = await col.buildIndex({ signal: ac.signal, onProgress: () => { progressed++; ac.abort(); } }).then(() => 'done', (e: { code: string }) => e.code);
    expect(progressed).toBeGreaterThan(0);
    // wasm builds on the worker's one thread: the cancel message is read only once it has finished
    if (name === 'native') expect(r).toBe('HV_CANCELLED');
    else expect(['done', 'HV_CANCELLED']).toContain(r);
    await col.close();
  });

  it('errors keep their codes: bad dim, NaN, duplicate id, closed handle', async () => {
    await expectCode(hv.Collection.create({ dim: 0 }), 'HV_INVALID_ARGUMENT');
    const col = await hv.Collection.create({ dim: DIM });
    const e = await expectCode(col.add(1, [1, 2, 3]), 'HV_DIM_MISMATCH');
    const here = inThread.Collection.create({ dim: DIM });
    const same = await here.add(1, [1, 2, 3]).catch((err: Error) => err);
    expect(e.message).toBe((same as Error).message); // the same text as in-thread
    await here.close();
    const nan = new Float32Array(DIM);
    nan[3] = NaN;
    await expectCode(col.add(1, nan), 'HV_INVALID_VECTOR');
    await col.add(1, base.subarray(0, DIM));
    await expectCode(col.add(1, base.subarray(0, DIM)), 'HV_DUPLICATE_ID');
    await expectCode(col.search(nan, { k: 1 }), 'HV_INVALID_VECTOR');
    await expectCode(col.add(2, base.subarray(0, DIM), { f: () => 1 }), 'HV_INVALID_ARGUMENT');
    await expectCode(hv.Collection.fromBytes(new Uint8Array([1, 2, 3])), 'HV_CORRUPT').catch(async () => {
      // a too-short snapshot may also be reported as a bad argument by one build
      await expectCode(hv.Collection.fromBytes(new Uint8Array([1, 2, 3])), 'HV_INVALID_ARGUMENT');
    });
    await col.close();
    await expectCode(col.count(), 'HV_CLOSED');
    await expectCode(col.search(base.subarray(0, DIM), { k: 1 }), 'HV_CLOSED');
    expect(() => col.dim).toThrow(/HV_CLOSED/);
  });

  it('a worker that dies rejects every pending call with HV_WORKER_FAILED', async () => {
    const col = await hv.Collection.create({ dim: DIM });
    await col.add([...Array(N).keys()], base);
    const pending = [col.count(), col.search(base.subarray(0, DIM), { k: 3 }), col.buildIndex()];
    const exit = rawRequest.get(hv.Collection)!.request({ op: 'static', name: 'exit' });
    for (const p of [...pending, exit]) {
      const r = await p.then(() => 'ok', (e: { code: string }) => e.code);
      // calls the worker answered before it exited resolve; the rest are coded
      expect(['ok', 'HV_WORKER_FAILED']).toContain(r);
    }
    await expectCode(exit, 'HV_WORKER_FAILED');
    await expectCode(col.count(), 'HV_WORKER_FAILED');
    // a new call starts a new worker
    const again = await hv.Collection.create({ dim: 2 });
    expect(await again.size()).toBe(0);
    await again.close();
  });

  it('terminate() rejects pending calls coded; closing the last collection ends the worker', async () => {
    const col = await hv.Collection.create({ dim: DIM });
    const p = expectCode(col.add([...Array(N).keys()], base), 'HV_WORKER_FAILED');
    await hv.terminate();
    await p;
    await expectCode(col.count(), 'HV_WORKER_FAILED');
    await col.close(); // harmless
    const a = await hv.Collection.create({ dim: 2 });
    const b = await hv.Collection.create({ dim: 2 });
    const { alive } = rawRequest.get(hv.Collection)!;
    await a.close();
    await new Promise((r) => setTimeout(r, 20));
    expect(alive()).toBe(true);
    await b.close();
    await expect.poll(() => alive()).toBe(false);
  });
});

describe('horosvec/worker typings', () => {
  const dts = readFileSync(new URL('../npm/worker.d.ts', import.meta.url), 'utf8');
  it('the entry exports exactly what worker.d.ts declares', () => {
    const declared = [...dts.matchAll(/^export declare (?:const|class|function) (\w+)/gm)].map((m) => m[1]).filter((n) => n !== 'WorkerCollection');
    const all = [...declared, 'HorosvecError', 'isHorosvecError'].sort();
    expect(Object.keys(hv).filter((k) => k !== 'default').sort()).toEqual(all);
    expect(Object.keys((hv as unknown as { default: object }).default).sort()).toEqual(all);
  });
  it('WorkerCollection has every declared member and no undeclared public one', () => {
    const start = dts.indexOf('export declare class WorkerCollection');
    const body = dts.slice(start, dts.indexOf('\n}\n', start));
    const members = [...body.matchAll(/^ {2}(?:static |readonly )?(\w+)[<(:]/gm)].map((m) => m[1]).filter((m) => m !== 'constructor');
    const statics = [...body.matchAll(/^ {2}static (\w+)/gm)].map((m) => m[1]);
    const proto = Object.getOwnPropertyNames(hv.Collection.prototype).filter((m) => m !== 'constructor').sort();
    expect(proto).toEqual(members.filter((m) => !statics.includes(m)).sort());
    const own = Object.getOwnPropertyNames(hv.Collection).filter((m) => !['length', 'name', 'prototype'].includes(m));
    expect(own.sort()).toEqual(statics.sort());
    expect(proto).not.toContain('searchSync');
  });
});

describe('horosvec/worker databases', () => {
  it('openDatabase in the worker: named collections', async () => {
    await useBackend('native');
    const db = await hv.openDatabase();
    const c = await db.createCollection('docs', { dim: DIM });
    await c.add([1, 2], base.subarray(0, 2 * DIM));
    expect((await db.listCollections()).map((x) => x.name)).toEqual(['docs']);
    expect(await (await db.collection('docs')).count()).toBe(2);
    await db.close();
  });
});
