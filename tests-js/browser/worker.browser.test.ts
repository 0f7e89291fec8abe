// Runs in headless Chromium: `horosvec/worker` resolves through the `browser` condition to
// npm/worker.js, whose collections live in a module Web Worker (the wasm build); the page only
// sends messages.
import { expect, it } from 'vitest';
import { Collection, backend, isHorosvecError, terminate } from 'horosvec/worker';
import { rawRequest } from '../../npm/lib/worker-client.js';

const outcome = (p: Promise<unknown>) => p.then(() => 'ok', (e: unknown) => (isHorosvecError(e) ? e.code : `uncoded: ${String(e)}`));

it('searches through a Web Worker, with coded errors and a usable caller buffer', async () => {
  expect(await backend()).toBe('wasm');
  const col = await Collection.create({ dim: 3, metric: 'cosine' });
  const vectors = new Float32Array([1, 0, 0, 0, 1, 0, 0.7, 0.7, 0]);
  await col.add(['x', 'y', 'z'], vectors, [{ t: 'x' }, { t: 'y' }, { t: 'z' }]);
  expect(vectors.length).toBe(9); // copied, then the copy transferred: not detached
  const hits = await col.search(new Float32Array([1, 0.1, 0]), { k: 2 });
  expect(hits.map((h) => h.id)).toEqual(['x', 'z']);
  expect(hits[0].metadata).toEqual({ t: 'x' });
  expect(await col.search([0, 1, 0], { k: 1, filter: { t: 'z' } })).toMatchObject([{ id: 'z' }]);
  const seen: number[] = [];
  await col.buildIndex({ onProgress: (d) => seen.push(d) });
  expect(seen.length).toBeGreaterThan(0);
  const bytes = await col.toBytes();
  const back = await Collection.fromBytes(bytes);
  expect(await back.size()).toBe(3);
  const e = await col.add(['w'], [[1, 2]]).catch((err: unknown) => err);
  expect(isHorosvecError(e, 'HV_DIM_MISMATCH')).toBe(true);
  await col.close();
  const closed = await col.count().catch((err: unknown) => err);
  expect(isHorosvecError(closed, 'HV_CLOSED')).toBe(true);
  const pending = back.count();
  await terminate();
  expect(isHorosvecError(await pending.then(() => null, (err: unknown) => err), 'HV_WORKER_FAILED')).toBe(true);
});

it('progress events from the worker: fromBytes (decode), add and upsert (write), buildIndex (build)', async () => {
  const dim = 8;
  const n = 1500;
  const v = new Float32Array(n * dim).map((_, i) => Math.sin(i * 0.37));
  const col = await Collection.create({ dim });
  const events: [number, number, string][] = [];
  const onProgress = (done: number, total: number, phase: string) => events.push([done, total, phase]);
  await col.add([...Array(n).keys()], v, undefined, { onProgress });
  expect(events).toEqual([[0, n, 'write'], [n, n, 'write']]);
  events.length = 0;
  await col.upsert(7, v.subarray(0, dim), { tag: 'seven' }, { onProgress });
  expect(events).toEqual([[0, 1, 'write'], [1, 1, 'write']]);
  events.length = 0;
  await col.buildIndex({ seed: 3, onProgress });
  expect(events.length).toBeGreaterThan(1);
  expect(events.every(([d, t, phase]) => phase === 'build' && d <= t)).toBe(true);
  expect(events.at(-1)![0]).toBe(events.at(-1)![1]);
  const bytes = await col.toBytes();
  events.length = 0;
  const back = await Collection.fromBytes(bytes, { onProgress });
  expect(events).toEqual([[0, bytes.byteLength, 'decode'], [bytes.byteLength, bytes.byteLength, 'decode']]);
  expect(await back.size()).toBe(n);
  // a bad option is a coded error; a failed write sends its start, never its end
  expect(await outcome(Collection.fromBytes(bytes, { onProgress: 1 as never }))).toBe('HV_INVALID_ARGUMENT');
  events.length = 0;
  expect(await outcome(col.add(7, v.subarray(0, dim), undefined, { onProgress }))).toBe('HV_DUPLICATE_ID');
  expect(events).toEqual([[0, 1, 'write']]);
  await terminate();
});

it('a worker that ends mid-call (self.close() inside it): pending calls reject HV_WORKER_FAILED, the page runs on, a new worker starts', async () => {
  await terminate();
  (globalThis as { __HOROSVEC_WORKER_TEST_HOOKS__?: boolean }).__HOROSVEC_WORKER_TEST_HOOKS__ = true;
  try {
    const dim = 8;
    const n = 3000;
    const v = new Float32Array(n * dim).map((_, i) => Math.cos(i * 0.11));
    const col = await Collection.create({ dim });
    await col.add([...Array(n).keys()], v);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    // answered before the worker ends (the worker serves its messages in order)...
    const before = [col.count(), col.buildIndex({ seed: 1 }), col.search(v.subarray(0, dim), { k: 3 })];
    const exit = rawRequest.get(Collection)!.request({ op: 'static', name: 'exit' });
    // ...and in flight when it ends: never answered, the watched port's close rejects them
    const after = [col.search(v.subarray(dim, 2 * dim), { k: 3 }), col.add([n], v.subarray(0, dim)), col.toBytes()];
    const t0 = performance.now();
    expect(await Promise.all(before.map(outcome))).toEqual(['ok', 'ok', 'ok']);
    expect(['ok', 'HV_WORKER_FAILED']).toContain(await outcome(exit));
    expect(await Promise.all(after.map(outcome))).toEqual(['HV_WORKER_FAILED', 'HV_WORKER_FAILED', 'HV_WORKER_FAILED']);
    expect(await outcome(col.count())).toBe('HV_WORKER_FAILED');
    const waited = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 20));
    clearInterval(timer);
    expect(ticks, `timer ticks in ${waited.toFixed(0)} ms`).toBeGreaterThan(0); // the page's thread ran on
    // the next call starts a new worker
    const again = await Collection.create({ dim: 2 });
    await again.add([1], [[1, 0]]);
    expect(await again.search([1, 0], { k: 1 })).toMatchObject([{ id: 1 }]);
    await again.close();
  } finally {
    delete (globalThis as { __HOROSVEC_WORKER_TEST_HOOKS__?: boolean }).__HOROSVEC_WORKER_TEST_HOOKS__;
    await terminate();
  }
});
