// Node-specific behaviour of the native backend: the event loop stays free during heavy work,
// and the addon survives worker threads being spawned and torn down.
import { describe, expect, it } from 'vitest';
import { Worker } from 'node:worker_threads';
import * as hv from 'horosvec';
import { randomVectors } from './helpers/backends.js';

describe('native backend in Node', () => {
  it('does not block the event loop during a 100k insert + search burst', async () => {
    expect(hv.backend).toBe('native');
    const dim = 64;
    const n = 100_000;
    const data = randomVectors(n, dim, 11);
    const ids = Array.from({ length: n }, (_, i) => i);
    const col = hv.Collection.create({ dim });
    let last = performance.now();
    let maxGap = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 5);
    try {
      await col.add(ids, data);
      const queries = randomVectors(256, dim, 12);
      await Promise.all([col.searchBatch(queries, { k: 10 }), ...Array.from({ length: 16 }, (_, i) => col.search(queries.subarray(i * dim, (i + 1) * dim), { k: 10 }))]);
    } finally {
      clearInterval(timer);
    }
    expect(col.size).toBe(n);
    // The heavy work runs on worker threads; only argument conversion touches the JS thread.
    console.log(`event-loop max gap: ${maxGap.toFixed(1)} ms`);
    expect(maxGap).toBeLessThan(250);
    await col.close();
  });

  it('loads and works in worker threads that come and go', async () => {
    const code = `
      const { parentPort } = require('node:worker_threads');
      import('horosvec').then(async ({ Collection, backend }) => {
        const c = Collection.create({ dim: 2 });
        await c.add([1, 2], [[0, 0], [1, 1]]);
        const h = await c.search([1, 1], { k: 1 });
        parentPort.postMessage(backend + ':' + h[0].id);
      });`;
    for (let round = 0; round < 10; round++) {
      const workers = Array.from({ length: 3 }, () => new Worker(code, { eval: true }));
      const msgs = await Promise.all(workers.map((w) => new Promise((res, rej) => { w.once('message', res); w.once('error', rej); })));
      expect(msgs).toEqual(['native:2', 'native:2', 'native:2']);
      await Promise.all(workers.map((w) => w.terminate()));
    }
  });

  it('survives the caller detaching its buffers while calls are in flight', async () => {
    const dim = 4;
    const n = 200_000;
    const col = hv.Collection.create({ dim });
    const v = new Float32Array(n * dim).fill(1);
    const ids = Array.from({ length: n }, (_, i) => i);
    const p = col.add(ids, v);
    structuredClone(v.buffer, { transfer: [v.buffer] }); // detaches v
    expect(v.length).toBe(0);
    for (let i = 0; i < 50; i++) new Float32Array(800_000).fill(7); // let the GC run
    await p;
    expect(col.size).toBe(n);
    expect(col.get(n - 1)?.vector).toEqual(new Float32Array([1, 1, 1, 1]));
    const q = new Float32Array([1, 1, 1, 1]);
    const s = col.search(q, { k: 1 });
    structuredClone(q.buffer, { transfer: [q.buffer] });
    expect((await s)[0].distance).toBe(0);
    await col.close();
  });
});
