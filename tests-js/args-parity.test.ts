// Both backends parse JS numbers and options with the same core module (core/src/args): each
// refused value below fails with the same code and the same message on the native and the wasm
// build.
import { describe, expect, it } from 'vitest';
import { backends, type Api } from './helpers/backends.js';

type Coded = Error & { code?: string };

async function failure(p: () => Promise<unknown> | unknown): Promise<{ code?: string; message: string }> {
  try {
    await p();
  } catch (e) {
    return { code: (e as Coded).code, message: (e as Coded).message };
  }
  return { code: 'none', message: 'the call succeeded' };
}

async function filled(api: Api) {
  const col = api.Collection.create({ dim: 2 });
  await col.add([1, 2, 3], [[0, 0], [1, 0], [0, 1]]);
  return col;
}

const cases: [string, (api: Api) => Promise<unknown> | unknown][] = [
  ['dim 0', (api) => api.Collection.create({ dim: 0 })],
  ['dim 1.5', (api) => api.Collection.create({ dim: 1.5 })],
  ['dim 65537', (api) => api.Collection.create({ dim: 65_537 })],
  ['id -1', async (api) => (await filled(api)).add([-1], [[0, 0]])],
  ['id 2^53', async (api) => (await filled(api)).add([2 ** 53], [[0, 0]])],
  ['k 0', async (api) => (await filled(api)).search([0, 0], { k: 0 })],
  ['k NaN', async (api) => (await filled(api)).search([0, 0], { k: NaN })],
  ['ef 0.5', async (api) => (await filled(api)).search([0, 0], { k: 1, ef: 0.5 })],
  ['rerank -1', async (api) => (await filled(api)).search([0, 0], { k: 1, rerank: -1 })],
  ['R 4097', async (api) => (await filled(api)).buildIndex({ R: 4097 })],
  ['L 0', async (api) => (await filled(api)).buildIndex({ L: 0 })],
  ['alpha 5', async (api) => (await filled(api)).buildIndex({ alpha: 5 })],
  ['bits 9', async (api) => (await filled(api)).buildIndex({ bits: 9 })],
  ['seed -1', async (api) => (await filled(api)).buildIndex({ seed: -1 })],
  ['passes 0', async (api) => (await filled(api)).buildIndex({ passes: 0 })],
  // the limit the two bindings used to disagree on: 2^32 - 1 passes the binding (both) and is
  // refused by the import's own range
  ['degree 2^32-1', async (api) => (await filled(api)).importGraph({ adjacency: new Uint32Array(3), degree: 2 ** 32 - 1 })],
  ['degree 2^32', async (api) => (await filled(api)).importGraph({ adjacency: new Uint32Array(3), degree: 2 ** 32 })],
  ['degree 1.5', async (api) => (await filled(api)).importGraph({ adjacency: new Uint32Array(3), degree: 1.5 })],
  ['entry 2^32-1', async (api) => (await filled(api)).importGraph({ adjacency: new Uint32Array(3), degree: 1, entry: 2 ** 32 - 1 })],
  ['entry -1', async (api) => (await filled(api)).importGraph({ adjacency: new Uint32Array(3), degree: 1, entry: -1 })],
  // filters, id allow-lists and list arguments: parsed by the core (core/src/filter, args)
  ['filter: unknown operator', async (api) => (await filled(api)).search([0, 0], { k: 1, filter: { a: { $gtee: 1 } } as never })],
  ['filter: $in operand', async (api) => (await filled(api)).count({ a: { $in: 1 } } as never)],
  ['filter: too deep', async (api) => (await filled(api)).count(Array.from({ length: 40 }).reduce<object>((f) => ({ $not: f }), { a: 1 }) as never)],
  ['filter: not an object', async (api) => (await filled(api)).deleteWhere(7 as never)],
  ['ids: -1', async (api) => (await filled(api)).search([0, 0], { k: 1, ids: [-1] })],
  ['ids: 2^53', async (api) => (await filled(api)).searchSync([0, 0], { k: 1, ids: [2 ** 53] })],
  ['list limit 0', async (api) => (await filled(api)).list({ limit: 0 })],
  ['list limit 10001', async (api) => (await filled(api)).list({ limit: 10_001 })],
  ['list cursor', async (api) => (await filled(api)).list({ cursor: 'x' })],
];

describe('the two backends refuse the same numbers with the same error', () => {
  it.each(cases)('%s', async (_name, call) => {
    const [[, native], [, wasm]] = backends;
    const a = await failure(() => call(native));
    const b = await failure(() => call(wasm));
    expect(a.code).toBe('HV_INVALID_ARGUMENT');
    expect(b).toEqual(a);
  });

  it('degree 2^32-1 reaches the import range check on both', async () => {
    for (const [, api] of backends) {
      const col = await filled(api);
      const e = await failure(() => col.importGraph({ adjacency: new Uint32Array(3), degree: 2 ** 32 - 1 }));
      expect(e.message).toContain('degree must be in 1..=4096, got 4294967295');
    }
  });
});
