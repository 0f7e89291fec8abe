// Child process of tests-js/follow.test.ts (forked, IPC channel): a read-only view of the
// durable collection in argv[2] (default refreshIntervalMs, so it follows the writer by itself),
// searching in the background every few milliseconds the whole time. Messages from the parent:
//   { op: 'refresh' }  → { op: 'refreshed', changed }
//   { op: 'snapshot' } → { op: 'snapshot', ids } (every id visible now, from one `list` call, so
//                        one state of the view) after checking each record's vector and metadata
//   { op: 'stats' }    → { op: 'stats', searches, errors, firstError, size, refreshes }
//   { op: 'close' }    → closes and exits
// Sends { op: 'ready' } once open.
import { Collection } from 'horosvec';
import { vectorOf } from './follow-data.mjs';

const dir = process.argv[2];
const col = await Collection.open(dir, { readOnly: true });
const send = (m) => process.send(m);
let searches = 0;
let errors = 0;
let firstError = null;
let stopped = false;
const searchLoop = async () => {
  while (!stopped) {
    try {
      const hits = await col.search(vectorOf(searches), { k: 5 });
      if (col.size >= 5 && hits.length !== 5) throw new Error(`${hits.length} hits of ${col.size}`);
      searches++;
    } catch (e) {
      errors++;
      firstError ??= `${e.code}: ${e.message}`;
    }
    await new Promise((r) => setTimeout(r, 3));
  }
};
const loop = searchLoop();
const same = (a, b) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) < 1e-6);
process.on('message', async (m) => {
  try {
    if (m.op === 'refresh') {
      send({ op: 'refreshed', changed: await col.refresh() });
    } else if (m.op === 'snapshot') {
      const page = await col.list({ limit: 10_000, includeVectors: true });
      if (page.cursor !== null) throw new Error('more than one page');
      for (const r of page.records) {
        if (!same(Array.from(r.vector), vectorOf(r.id)) || r.metadata?.id !== r.id) throw new Error(`record ${r.id} reads back wrong`);
      }
      send({ op: 'snapshot', ids: page.records.map((r) => r.id) });
    } else if (m.op === 'stats') {
      const s = col.stats();
      send({ op: 'stats', searches, errors, firstError, size: col.size, refreshes: s.refreshes, sealed: s.sealedSegments });
    } else if (m.op === 'close') {
      stopped = true;
      await loop;
      await col.close();
      process.exit(0);
    }
  } catch (e) {
    send({ op: 'error', code: e.code, message: e.message });
  }
});
send({ op: 'ready' });
