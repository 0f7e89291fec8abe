// Runs in headless Chromium: `horosvec/worker` resolves through the `browser` condition to
// npm/worker.js, whose collections live in a module Web Worker (the wasm build); the page only
// sends messages.
import { expect, it } from 'vitest';
import { Collection, backend, isHorosvecError, terminate } from 'horosvec/worker';

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
