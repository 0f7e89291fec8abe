// Child process of the crash test (tests-js/durable.test.ts, scripts/crash-test.mjs): opens the
// durable collection in argv[2] and writes batches forever, several in flight at once (so group
// commit is exercised), printing "sub <batch> <count>" before submitting a batch and
// "ack <batch> <count>" on stdout once each batch's
// Promise resolved, i.e. once it is durable. Batch b holds ids `${tag}-${b}-${j}`; argv[3] is the
// tag of this run; argv[5] "segments" turns on frequent sealing and compaction. The parent kills
// it with SIGKILL at a random moment.
import { writeSync } from 'node:fs';
import { Collection } from 'horosvec';

const [dir, tag, seedArg, mode] = process.argv.slice(2);
const DIM = 8;
let seed = Number(seedArg ?? 1) >>> 0;
const rand = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

// "segments" mode: seal every 150 records and merge past 3 sealed segments, so that kills also
// land during background seals and compactions
const segmentOptions = mode === 'segments' ? { maxMutableRecords: 150, maxSealedSegments: 3, maxTombstoneRatio: 0.05 } : {};
const col = await Collection.open(dir, { dim: DIM, metric: 'l2', durability: 'full', ...segmentOptions });
writeSync(1, 'open\n');
let batch = 0;
const inflight = new Set();
for (;;) {
  const b = batch++;
  const n = 1 + Math.floor(rand() * 20);
  const ids = Array.from({ length: n }, (_, j) => `${tag}-${b}-${j}`);
  const vecs = new Float32Array(n * DIM).map(() => rand());
  const meta = ids.map((id) => ({ id }));
  writeSync(1, `sub ${b} ${n}\n`);
  const p = col.add(ids, vecs, meta).then(() => {
    writeSync(1, `ack ${b} ${n}\n`);
  });
  inflight.add(p);
  p.finally(() => inflight.delete(p));
  if (inflight.size >= 8) await Promise.race(inflight);
  // now and then a delete of an acknowledged earlier batch's first record, durable too: every
  // other one by filter (deleteWhere on its metadata), which must be just as durable
  if (b % 7 === 6) {
    const victim = `${tag}-${b - 6}-0`;
    writeSync(1, `dsub ${b - 6}\n`);
    const del = b % 14 === 6 ? col.deleteWhere({ id: victim }) : col.delete([victim]);
    const d = del.then((k) => writeSync(1, `del ${b - 6} ${k}\n`));
    inflight.add(d);
    d.finally(() => inflight.delete(d));
  }
}
