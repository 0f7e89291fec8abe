// Runs in headless Chromium: the package resolves to its wasm build via the `browser` condition.
import { expect, it } from 'vitest';
import { Collection, backend, kernel } from 'horosvec';

it('loads the wasm build through the browser condition and searches', async () => {
  expect(backend).toBe('wasm');
  expect(kernel).toBe('wasm-simd128');
  const col = Collection.create({ dim: 3, metric: 'cosine' });
  await col.add(['x', 'y', 'z'], [[1, 0, 0], [0, 1, 0], [0.7, 0.7, 0]], [{ t: 'x' }, { t: 'y' }, { t: 'z' }]);
  const hits = await col.search(new Float32Array([1, 0.1, 0]), { k: 2 });
  expect(hits.map((h) => h.id)).toEqual(['x', 'z']);
  expect(hits[0].metadata).toEqual({ t: 'x' });
  const batch = await col.searchBatch([[0, 1, 0], [1, 0, 0]], { k: 1 });
  expect(batch.map((r) => r[0].id)).toEqual(['y', 'x']);
  let code: string | undefined;
  try {
    await col.add(['w'], [[1, 2]]);
  } catch (e) {
    code = (e as { code?: string }).code;
  }
  expect(code).toBe('HV_DIM_MISMATCH');
  await col.close();
});

it('refuses Collection.fromFile in a browser with HV_UNSUPPORTED (fetch + fromBytes instead)', async () => {
  let code: string | undefined;
  try {
    await Collection.fromFile('/sample.hvsnap');
  } catch (e) {
    code = (e as { code?: string }).code;
  }
  expect(code).toBe('HV_UNSUPPORTED');
});
