// One closed-loop client on a worker thread, for engines whose search is synchronous: it opens its
// own copy of the saved index, reports ready, waits for `go`, searches for `seconds`, and posts
// its call count and latencies (ms).
import { parentPort, workerData } from 'node:worker_threads';
import { ENGINES } from './engines.mjs';

const { engine, open, queries, dim, nq, k, ef, seconds } = workerData;
const e = ENGINES[engine];
await e.load();
const h = await e.open(open);
const qs = new Float32Array(queries);
const views = Array.from({ length: nq }, (_, i) => qs.subarray(i * dim, (i + 1) * dim));
// warm-up (untimed): every query once, or 2 s at most for slow engines (engines that convert a
// query keep the conversion)
const warmEnd = performance.now() + 2000;
for (let i = 0; i < nq && (i < 20 || performance.now() < warmEnd); i++) h.search(views[i], k, ef);
parentPort.once('message', () => {
  const lat = [];
  let i = workerData.offset;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  while (performance.now() < end) {
    const s = performance.now();
    h.search(views[i++ % nq], k, ef);
    lat.push(performance.now() - s);
  }
  parentPort.postMessage({ calls: lat.length, elapsed: (performance.now() - t0) / 1000, lat });
  h.close();
});
parentPort.postMessage('ready');
