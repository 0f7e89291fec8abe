// The in-page half of tests-js/browser/memory.e2e.mjs (served from the repository root, loaded
// by tests-js/browser/memory.html). Each export is one step the Node side calls with
// page.evaluate and returns plain data; the collections stay in the page between steps.
// The wasm heap is read from the module's exported Memory (the glue's init() returns the
// exports of the instance browser.js already made).
import { Collection, isHorosvecError } from '/npm/browser.js';
import init from '/npm/wasm/horosvec_wasm.js';

const wasm = await init();
const heap = () => wasm.memory.buffer.byteLength;
const MiB = 1 << 20;
const cols = []; // the collections under test: [0] built here, the rest loaded from a snapshot
const fillers = [];
let victim = null; // one more copy of the snapshot, for the writes at the full heap
let snapshot = null;
let rows = null; // the first 5,000 rows of collection 0, for the writes

async function fetchBytes(path) {
  const r = await fetch(path);
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

// What an operation ended with: 'ok', an HV_ code, TRAP(code) for a trap the JS layer caught
// (an abort that a headroom check should have prevented: the collection in use is lost), or the
// class and message of anything else.
function outcome(e) {
  if (isHorosvecError(e)) return e.cause?.name === 'RuntimeError' ? `TRAP(${e.code}: ${e.message.slice(0, 160)})` : e.code;
  return `NOT A HorosvecError: ${e?.constructor?.name ?? typeof e}: ${String(e?.message ?? e).slice(0, 200)}`;
}
async function attempt(f) {
  try {
    await f();
    return 'ok';
  } catch (e) {
    return outcome(e);
  }
}

/** Builds collection 0 in the page: `n` rows of /mem/a.f32, then its index with `params`. */
export async function buildHere(n, dim, params) {
  const v = new Float32Array((await fetchBytes('/mem/a.f32')).buffer);
  rows = v.slice(0, Math.min(n, 5000) * dim);
  const h0 = heap();
  const t = performance.now();
  const c = Collection.create({ dim, metric: 'cosine' });
  await c.add(Array.from({ length: n }, (_, i) => i), v.subarray(0, n * dim));
  const addMs = performance.now() - t;
  await c.buildIndex(params);
  cols.push(c);
  return { addMs, buildMs: performance.now() - t - addMs, heapBefore: h0, heapAfter: heap(), stats: c.stats() };
}

/** Loads /mem/b.hvsnap `count` times (collections 1..count); the heap after each load. */
export async function loadSnapshots(count) {
  snapshot = await fetchBytes('/mem/b.hvsnap');
  const heaps = [heap()];
  const ms = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    cols.push(await Collection.fromBytes(snapshot));
    ms.push(performance.now() - t);
    heaps.push(heap());
  }
  victim = await Collection.fromBytes(snapshot);
  return { snapshotBytes: snapshot.length, heaps, ms, sizes: cols.map((c) => c.size) };
}

/** Every collection's top-k of each query (`nq × dim` floats): ids and distances; the victim's last. */
export async function searchAll(queries, nq, dim, k) {
  const q = new Float32Array(queries);
  const out = [];
  for (const c of [...cols, victim]) {
    const per = [];
    for (let i = 0; i < nq; i++) {
      const hits = await c.search(q.subarray(i * dim, (i + 1) * dim), { k });
      per.push({ ids: hits.map((h) => h.id), distances: hits.map((h) => h.distance) });
    }
    out.push(per);
  }
  return out;
}

/**
 * Fills the heap to its ceiling: more collections from the snapshot until a load fails, then
 * writes into small collections, halving the batch at each failure down to one record, then
 * empty collections until creating one fails. Every failure must be HV_OUT_OF_MEMORY.
 */
export async function fill(dim) {
  const t = performance.now();
  const failures = {};
  const note = (step, e) => {
    const k = `${step}: ${outcome(e)}`;
    failures[k] = (failures[k] ?? 0) + 1;
  };
  let loaded = 0;
  for (;;) {
    try {
      fillers.push(await Collection.fromBytes(snapshot));
      loaded++;
    } catch (e) {
      note('fromBytes', e);
      break;
    }
  }
  const heapAfterLoads = heap();
  let batch = 2048;
  let next = 0;
  let target = Collection.create({ dim, metric: 'cosine' });
  fillers.push(target);
  while (batch >= 1) {
    try {
      await target.add(Array.from({ length: batch }, (_, i) => next + i), rows.subarray(0, batch * dim));
      next += batch;
      if (target.size >= 2048) {
        target = Collection.create({ dim, metric: 'cosine' });
        fillers.push(target);
      }
    } catch (e) {
      note('add', e);
      batch = Math.floor(batch / 2);
    }
  }
  let empties = 0;
  for (;;) {
    try {
      fillers.push(Collection.create({ dim, metric: 'cosine' }));
      empties++;
      if (empties >= 1_000_000) break;
    } catch (e) {
      note('create', e);
      break;
    }
  }
  return { loaded, rowsAdded: next, empties, heapAfterLoads, heap: heap(), failures, ms: performance.now() - t };
}

/**
 * At the full heap: every read on each collection under test, every write on the victim, and
 * the module's constructors. Each call must end 'ok' or HV_OUT_OF_MEMORY.
 */
export async function probe(queries, dim) {
  const q = new Float32Array(queries).subarray(0, dim);
  const two = new Float32Array(queries).subarray(0, 2 * dim);
  const out = {};
  const run = async (name, f) => {
    const o = await attempt(f);
    out[name] = out[name] === undefined || out[name] === o ? o : `${out[name]} / ${o}`;
  };
  for (const c of [...cols, victim]) {
    await run('size', () => c.size);
    await run('stats', () => c.stats());
    await run('search', () => c.search(q, { k: 10 }));
    await run('searchSync', () => c.searchSync(q, { k: 10 }));
    await run('search k 100 ef 400', () => c.search(q, { k: 100, ef: 400 }));
    await run('search exact', () => c.search(q, { k: 10, exact: true }));
    await run('search filter', () => c.search(q, { k: 10, filter: { tag: 'x' } }));
    await run('search ids', () => c.search(q, { k: 10, ids: [1, 2, 3] }));
    await run('searchBatch', () => c.searchBatch(two, { k: 10 }));
    await run('get', () => c.get(3));
    await run('count', () => c.count());
    await run('count filter', () => c.count({ tag: 'x' }));
    await run('list', () => c.list({ limit: 100, includeVectors: true }));
  }
  const v = victim;
  await run('exportGraph', () => v.exportGraph());
  await run('toBytes', () => v.toBytes());
  await run('add', () => v.add([1e9], q, [{ tag: 'x' }]));
  await run('upsert', () => v.upsert([5], q, [{ tag: 'y' }]));
  await run('delete', () => v.delete([7]));
  await run('deleteWhere', () => v.deleteWhere({ tag: 'nothing' }));
  await run('buildIndex', () => v.buildIndex());
  await run('create', () => fillers.push(Collection.create({ dim, metric: 'cosine' })));
  await run('fromBytes', async () => fillers.push(await Collection.fromBytes(snapshot)));
  out.victimSize = v.size;
  return out;
}

/** Closes the fillers, then checks the memory is usable again: a load and a build. */
export async function freeAndReuse(dim) {
  const h0 = heap();
  for (const f of fillers.splice(0)) await f.close();
  const out = { heapBefore: h0 };
  out.fromBytes = await attempt(async () => (await Collection.fromBytes(snapshot)).close());
  out.build = await attempt(async () => {
    const c = Collection.create({ dim, metric: 'cosine' });
    await c.add(Array.from({ length: rows.length / dim }, (_, i) => i), rows);
    await c.buildIndex();
    await c.close();
  });
  out.heapAfter = heap();
  out.collections = cols.length;
  return out;
}

/**
 * The same through horosvec/worker (its own wasm instance in a module Web Worker): an indexed
 * collection of the first 5,000 rows, then the worker's heap filled with one write per new
 * collection, halving the batch at each failure; every failure must reach the page as an
 * HV_OUT_OF_MEMORY HorosvecError, and the indexed collection must answer as before.
 */
export async function viaWorker(n, dim) {
  const v = new Float32Array((await fetchBytes('/mem/a.f32')).buffer);
  const W = await import('/npm/worker.js');
  const t = performance.now();
  const mine = v.slice(0, 5000 * dim);
  const c = await W.Collection.create({ dim, metric: 'cosine' });
  await c.add(Array.from({ length: 5000 }, (_, i) => i), mine);
  await c.buildIndex();
  const q = v.subarray(0, dim);
  const ids = async () => (await c.search(q, { k: 10 })).map((h) => h.id);
  const before = await ids();
  const failures = {};
  const fillers = [];
  let batch = 32_768;
  let rowsAdded = 0;
  const chunk = new Float32Array(batch * dim);
  for (let i = 0; i < batch; i++) chunk.set(v.subarray((i % n) * dim, (i % n + 1) * dim), i * dim);
  while (batch >= 64) {
    const f = await W.Collection.create({ dim, metric: 'cosine' }).catch((e) => e);
    if (!(f instanceof Error)) {
      try {
        await f.add(Array.from({ length: batch }, (_, i) => i), chunk.subarray(0, batch * dim));
        fillers.push(f);
        rowsAdded += batch;
        continue;
      } catch (e) {
        await f.close();
        const k = `add: ${outcome(e)}`;
        failures[k] = (failures[k] ?? 0) + 1;
      }
    } else {
      const k = `create: ${outcome(f)}`;
      failures[k] = (failures[k] ?? 0) + 1;
    }
    batch = Math.floor(batch / 2);
  }
  const atFull = await ids();
  const searchAtFull = JSON.stringify(atFull) === JSON.stringify(before);
  for (const f of fillers) await f.close();
  const addAfter = await attempt(() => c.add([1e9], q.map((x) => -x))); // the farthest from q: not in its top 10
  const out = { rowsAdded, failures, searchAtFull, addAfter, after: JSON.stringify(await ids()) === JSON.stringify(before), ms: performance.now() - t };
  await W.terminate();
  return out;
}

export const heapMiB = () => heap() / MiB;
