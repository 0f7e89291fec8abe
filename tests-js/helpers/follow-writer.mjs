// Child process of tests-js/follow.test.ts (forked, IPC channel): the single writer of the
// durable collection in argv[2]. Small segments, so seals and compactions happen often:
// maxMutableRecords 60, maxSealedSegments 2. Messages from the parent:
//   { op: 'batch', b, n }  → add ids `b * 1000 + j` (j < n) in ONE call, replies
//                            { op: 'acked', b, n } once the Promise resolved (durable)
//   { op: 'compact' }      → replies { op: 'compacted', merged }
//   { op: 'close' }        → closes and exits
// Sends { op: 'ready' } once open. Batches may be sent without waiting (several in flight).
import { Collection } from 'horosvec';
import { vectorOf } from './follow-data.mjs';

const dir = process.argv[2];
const col = await Collection.open(dir, { dim: 8, metric: 'l2', durability: 'normal', maxMutableRecords: 60, maxSealedSegments: 2 });
const send = (m) => process.send(m);
process.on('message', async (m) => {
  try {
    if (m.op === 'batch') {
      const ids = Array.from({ length: m.n }, (_, j) => m.b * 1000 + j);
      const vecs = ids.map((id) => vectorOf(id));
      await col.add(ids, vecs, ids.map((id) => ({ b: m.b, id })));
      send({ op: 'acked', b: m.b, n: m.n });
    } else if (m.op === 'compact') {
      send({ op: 'compacted', merged: await col.compact() });
    } else if (m.op === 'close') {
      await col.close();
      process.exit(0);
    }
  } catch (e) {
    send({ op: 'error', code: e.code, message: e.message });
  }
});
send({ op: 'ready' });
