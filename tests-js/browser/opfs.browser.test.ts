// Runs in headless Chromium: durable collections in the Origin Private File System, opened
// through `horosvec/worker` (sync access handles exist only in dedicated Workers). The contract
// of Collection.open on disk: acknowledged writes survive a reopen, a batch is all or nothing,
// a reopen after a seal reads the sealed segment (no rebuild), one open handle per collection
// (HV_LOCKED), `vectors: 'f16'` kept through a seal and a reopen, HV_UNSUPPORTED on the main thread. The crash test is tests-js/browser/opfs-crash.mjs.
import { expect, it } from 'vitest';
import * as page from 'horosvec';
import { Collection, isHorosvecError } from 'horosvec/worker';

const DIM = 8;
const vec = (i: number) => Array.from({ length: DIM }, (_, j) => Math.sin(i * 7.1 + j * 1.3));
const flat = (ids: number[]) => new Float32Array(ids.flatMap(vec));
const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);

async function fresh(name: string) {
  const root = await navigator.storage.getDirectory();
  await root.getDirectoryHandle('horosvec', { create: true }).then((d) => d.removeEntry(name, { recursive: true })).catch(() => undefined);
}

it('keeps writes across a reopen, all or nothing, with one handle per collection', async () => {
  await fresh('contract');
  const col = await Collection.open('contract', { storage: 'opfs', dim: DIM, metric: 'cosine' });
  await col.add(range(0, 10), flat(range(0, 10)), range(0, 10).map((i) => ({ i })));
  await col.upsert([3], flat([103]), [{ i: 103 }]);
  expect(await col.delete([4, 999])).toBe(1);
  // a batch with a duplicate id is refused whole
  const dup = await col.add([20, 21, 20], flat([20, 21, 20])).catch((e: unknown) => e);
  expect(isHorosvecError(dup, 'HV_DUPLICATE_ID')).toBe(true);
  expect(await col.size()).toBe(9);
  const second = await Collection.open('contract', { storage: 'opfs' }).catch((e: unknown) => e);
  expect(isHorosvecError(second, 'HV_LOCKED')).toBe(true);
  const want = await col.search(vec(5), { k: 3 });
  await col.close();

  const back = await Collection.open('contract', { storage: 'opfs' });
  expect(await back.size()).toBe(9);
  expect(await back.get(3)).toMatchObject({ metadata: { i: 103 } });
  expect(await back.get(4)).toBeUndefined();
  expect(await back.get(20)).toBeUndefined();
  expect(await back.search(vec(5), { k: 3 })).toEqual(want);
  const st = await back.stats();
  expect(st.dim).toBe(DIM);
  expect(st.metric).toBe('cosine');
  const wrongDim = await Collection.open('other-dim', { storage: 'opfs' }).catch((e: unknown) => e);
  expect(isHorosvecError(wrongDim, 'HV_INVALID_ARGUMENT')).toBe(true);
  await back.close();
});

it('reopens after a seal without rebuilding the sealed segment', async () => {
  await fresh('sealed');
  const col = await Collection.open('sealed', { storage: 'opfs', dim: DIM, maxMutableRecords: 500 });
  for (let b = 0; b < 12; b++) await col.add(range(b * 100, b * 100 + 100), flat(range(b * 100, b * 100 + 100)));
  await col.delete([7]);
  expect(await col.seal()).toBeGreaterThan(0);
  const st = await col.stats();
  expect(st.sealedSegments).toBeGreaterThanOrEqual(2);
  expect(st.size).toBe(1199);
  const q = vec(1234);
  const want = await col.search(q, { k: 10, exact: true });
  await col.close();

  const t0 = performance.now();
  const back = await Collection.open('sealed', { storage: 'opfs' });
  const openMs = performance.now() - t0;
  const s2 = await back.stats();
  expect(s2.sealedSegments).toBe(st.sealedSegments);
  expect(s2.size).toBe(1199);
  expect(await back.search(q, { k: 10, exact: true })).toEqual(want);
  expect((await back.search(q, { k: 10 })).length).toBe(10);
  expect(await back.get(7)).toBeUndefined();
  // the segment files are there and nothing else but the two logs
  const dir = await (await (await navigator.storage.getDirectory()).getDirectoryHandle('horosvec')).getDirectoryHandle('sealed');
  const names: string[] = [];
  for await (const k of (dir as unknown as { keys(): AsyncIterable<string> }).keys()) names.push(k);
  expect(names.filter((n) => n.endsWith('.hvseg')).length).toBe(s2.sealedSegments);
  expect(openMs).toBeGreaterThan(0);
  await back.compact();
  expect((await back.stats()).sealedSegments).toBe(1);
  await back.close();
});

it("keeps vectors: 'f16' rows through a seal and a reopen", async () => {
  await fresh('half');
  const col = await Collection.open('half', { storage: 'opfs', dim: DIM, metric: 'cosine', vectors: 'f16', maxMutableRecords: 300 });
  for (let b = 0; b < 4; b++) await col.add(range(b * 100, b * 100 + 100), flat(range(b * 100, b * 100 + 100)));
  await col.seal();
  const st = await col.stats();
  expect(st.vectors).toBe('f16');
  expect(st.sealedSegments).toBeGreaterThanOrEqual(1);
  // the values come back rounded to half precision (Chromium has Float16Array)
  const F16 = (globalThis as unknown as { Float16Array: new (a: number[]) => ArrayLike<number> }).Float16Array;
  const got = (await col.get(5))!.vector;
  expect(Array.from(got)).toEqual(Array.from(new F16(vec(5))));
  expect(Array.from(got)).not.toEqual(Array.from(new Float32Array(vec(5))));
  const q = vec(777);
  const want = await col.search(q, { k: 10, exact: true });
  await col.close();

  const wrong = await Collection.open('half', { storage: 'opfs', vectors: 'f32' }).catch((e: unknown) => e);
  expect(isHorosvecError(wrong, 'HV_INVALID_ARGUMENT')).toBe(true);
  const back = await Collection.open('half', { storage: 'opfs' });
  expect((await back.stats()).vectors).toBe('f16');
  expect((await back.stats()).sealedSegments).toBe(st.sealedSegments);
  expect(await back.search(q, { k: 10, exact: true })).toEqual(want);
  expect(Array.from((await back.get(5))!.vector)).toEqual(Array.from(got));
  await back.close();
});

it('is HV_UNSUPPORTED on the main thread, with the reason', async () => {
  const e = await page.Collection.open('main', { storage: 'opfs', dim: 3 }).catch((err: unknown) => err);
  expect(page.isHorosvecError(e, 'HV_UNSUPPORTED')).toBe(true);
  expect(String((e as Error).message)).toMatch(/Web Worker/);
  const ro = await Collection.open('ro', { storage: 'opfs', dim: 3, readOnly: true }).catch((err: unknown) => err);
  expect(isHorosvecError(ro, 'HV_UNSUPPORTED')).toBe(true);
});
