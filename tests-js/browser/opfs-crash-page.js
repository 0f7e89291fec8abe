// The page of tests-js/browser/opfs-crash.mjs: opens the OPFS collection "crash" through
// horosvec/worker and either writes batches in a loop (`?mode=write&seed=N`), logging each
// operation before it starts and each acknowledged one through the test's exposed functions
// (`__start(op, batch)`, `__ack(op, batch)`: awaited, so the test knows the one in flight), until the test kills the page or the browser, or
// reports what is stored (`?mode=verify`): the record count of every batch id.
import { Collection } from '../../npm/worker.js';

const params = new URL(location.href).searchParams;
const DIM = 16;
const BATCH = 10;

// mulberry32: the page's seeded randomness
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function open() {
  // after a renderer crash the browser may take a moment to release the old handles
  for (let i = 0; ; i++) {
    try {
      return await Collection.open('crash', { storage: 'opfs', dim: DIM, metric: 'cosine', maxMutableRecords: 300 });
    } catch (e) {
      if (e?.code !== 'HV_LOCKED' || i >= 50) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function countsByBatch(col) {
  const counts = {};
  let cursor;
  for (;;) {
    const page = await col.list({ limit: 1000, cursor });
    for (const r of page.records ?? []) counts[r.metadata.b] = (counts[r.metadata.b] ?? 0) + 1;
    if (page.cursor === null || page.cursor === undefined) break;
    cursor = page.cursor;
  }
  return counts;
}

async function main() {
  const col = await open();
  const counts = await countsByBatch(col);
  if (params.get('mode') === 'verify') {
    const st = await col.stats();
    window.__verify = { counts, size: st.size, sealedSegments: st.sealedSegments };
    await col.close();
    return;
  }
  const random = rng(Number(params.get('seed')));
  const live = Object.keys(counts).map(Number).filter((b) => counts[b] > 0);
  let next = Math.max(-1, ...Object.keys(counts).map(Number), Number(params.get('from') ?? 0) - 1) + 1;
  const rows = (b) => {
    const ids = [], meta = [], v = new Float32Array(BATCH * DIM);
    for (let i = 0; i < BATCH; i++) {
      ids.push(b * BATCH + i);
      meta.push({ b });
      for (let j = 0; j < DIM; j++) v[i * DIM + j] = random() * 2 - 1;
    }
    return [ids, v, meta];
  };
  await window.__ready();
  for (;;) {
    const r = random();
    if (r < 0.15 && live.length > 0) {
      const b = live[Math.floor(random() * live.length)];
      await window.__start('upsert', b);
      await col.upsert(...rows(b));
      await window.__ack('upsert', b);
    } else if (r < 0.25 && live.length > 0) {
      const b = live.splice(Math.floor(random() * live.length), 1)[0];
      await window.__start('delete', b);
      await col.delete(rows(b)[0]);
      await window.__ack('delete', b);
    } else {
      const b = next++;
      await window.__start('add', b);
      await col.add(...rows(b));
      live.push(b);
      await window.__ack('add', b);
    }
  }
}

main().catch((e) => console.log(`error ${e?.code} ${e?.message}`));
