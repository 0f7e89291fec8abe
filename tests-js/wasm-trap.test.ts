// A trap of the wasm instance (WebAssembly.RuntimeError) never leaves the package as it is: the
// wasm adapter (npm/lib/backends.js) makes it HV_OUT_OF_MEMORY when the binding's panic hook
// recorded no panic (an allocation failed past its headroom check), HV_INTERNAL when it did,
// and marks the collection in use lost (later calls HV_CLOSED) while the others keep working.
// The real module never traps in the tests (tests-js/wasm-heap.test.ts and
// tests-js/browser/memory.e2e.mjs fill the heap without one), so the traps are injected: the
// real raw module, with one method of one raw collection made to throw as a trap would.
import { describe, expect, it } from 'vitest';
import { loadWasm } from '../npm/lib/wasm-raw-node.js';
// @ts-expect-error plain JS module
import { makeApi } from '../npm/lib/collection.js';

type Raw = Record<string, unknown>;

function trappingModule() {
  const real = loadWasm() as unknown as Raw & { CoreCollection: { create: (d: number, m: string) => object; fromBytes: (b: Uint8Array) => object } };
  const state = { trapOn: null as string | null, panic: null as string | null, createTraps: false };
  const trap = () => {
    throw new WebAssembly.RuntimeError('unreachable');
  };
  const wrap = (c: object) =>
    new Proxy(c, {
      get(t, k) {
        if (k === 'size' && state.trapOn === 'size') return trap();
        const v = Reflect.get(t, k, t);
        if (typeof v !== 'function') return v;
        return (...a: unknown[]) => {
          if (state.trapOn === k) {
            state.trapOn = null;
            trap();
          }
          return v.apply(t, a);
        };
      },
    });
  const raw = {
    ...real,
    takePanic: () => {
      const p = state.panic;
      state.panic = null;
      return p;
    },
    CoreCollection: {
      prototype: {}, // no …Async methods: the wasm adapter
      create: (dim: number, metric: string) => (state.createTraps ? trap() : wrap(real.CoreCollection.create(dim, metric))),
      fromBytes: (b: Uint8Array) => wrap(real.CoreCollection.fromBytes(b)),
    },
  };
  return { api: makeApi(raw), state };
}

const codeOf = async (p: Promise<unknown> | (() => unknown)) => {
  try {
    await (typeof p === 'function' ? p() : p);
    return 'ok';
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
};

describe('wasm traps', () => {
  it('an allocation trap is HV_OUT_OF_MEMORY, the collection is lost, the others work', async () => {
    const { api, state } = trappingModule();
    const a = api.Collection.create({ dim: 2 });
    const b = api.Collection.create({ dim: 2 });
    await a.add(['x', 'y'], [[1, 0], [0, 1]]);
    await b.add(['x', 'y'], [[1, 0], [0, 1]]);
    state.trapOn = 'add';
    const e = await a.add(['z'], [[1, 1]]).catch((err: unknown) => err as Error & { code: string; cause: unknown });
    expect(e).toBeInstanceOf(api.HorosvecError);
    expect(e.code).toBe('HV_OUT_OF_MEMORY');
    expect(e.message).toMatch(/the wasm heap ran out inside add/);
    expect(e.cause).toBeInstanceOf(WebAssembly.RuntimeError);
    // lost: every later call is HV_CLOSED saying why; close() works
    expect(await codeOf(a.search([1, 0], { k: 1 }))).toBe('HV_CLOSED');
    expect(await codeOf(() => a.size)).toBe('HV_CLOSED');
    expect(await codeOf(() => a.searchSync([1, 0], { k: 1 }))).toBe('HV_CLOSED');
    await expect(a.count()).rejects.toThrow(/lost: the wasm module trapped inside add/);
    await a.close();
    // the other collection is unaffected
    expect((await b.search([0.9, 0.1], { k: 1 }))[0].id).toBe('x');
    expect(b.size).toBe(2);
    await b.close();
  });

  it('a panic is HV_INTERNAL with its message; a trap in a sync call or in create is coded too', async () => {
    const { api, state } = trappingModule();
    const a = api.Collection.create({ dim: 2 });
    await a.add(['x'], [[1, 0]]);
    state.trapOn = 'search';
    state.panic = 'index out of bounds: the len is 1 but the index is 7';
    const e = await a.search([1, 0], { k: 1 }).catch((err: unknown) => err as Error & { code: string });
    expect(e.code).toBe('HV_INTERNAL');
    expect(e.message).toMatch(/panicked in search .*index out of bounds/);
    const b = api.Collection.create({ dim: 2 });
    await b.add(['x'], [[1, 0]]);
    state.trapOn = 'size';
    expect(await codeOf(() => b.size)).toBe('HV_OUT_OF_MEMORY');
    expect(await codeOf(() => b.size)).toBe('HV_CLOSED');
    state.createTraps = true;
    expect(await codeOf(() => api.Collection.create({ dim: 2 }))).toBe('HV_OUT_OF_MEMORY');
  });
});
