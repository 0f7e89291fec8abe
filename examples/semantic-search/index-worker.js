// The page's index worker: fetches the snapshot (built in Node by build-snapshot.mjs) and loads
// it with Collection.fromBytes (no rebuild in the browser), then answers { vector, source }
// messages with the 10 nearest texts. A thread of its own, beside the embedding worker's: the
// snapshot loads while the model compiles and starts. Times are epoch ms (timeOrigin + now).
const at = () => performance.timeOrigin + performance.now();
// the worker's start (its own time origin) and its module's first statement
const marks = { indexWorkerStart: performance.timeOrigin, indexWorkerRun: at() };
const mark = (name) => (v) => {
  marks[name] = at();
  return v;
};

// set now, before horosvec has loaded: a module worker drops messages that arrive before its
// handler exists (horosvec's browser entry awaits its wasm at top level: imported dynamically)
self.onmessage = ({ data }) => serve(data);

const snapshot = fetch('/sample.hvsnap')
  .then((r) => {
    if (!r.ok) throw new Error(`snapshot: HTTP ${r.status}`);
    return r.arrayBuffer();
  })
  .then(mark('snapshotFetched'));
const col = Promise.all([import('horosvec').then(mark('horosvecImported')), snapshot])
  .then(([{ Collection }, bytes]) => Collection.fromBytes(new Uint8Array(bytes)))
  .then(mark('indexLoaded'));

col.then(
  (c) => self.postMessage({ type: 'ready', size: c.size, marks }),
  (e) => self.postMessage({ type: 'error', message: `loading the index failed: ${e?.message ?? e}`, code: e?.code }),
);

async function serve(msg) {
  try {
    const t0 = performance.now();
    const c = await col;
    const t1 = performance.now();
    const opts = { k: 10 };
    if (msg.source) opts.filter = { source: msg.source };
    const hits = await c.search(msg.vector, opts);
    self.postMessage({
      type: 'results', seq: msg.seq, waitMs: t1 - t0, searchMs: performance.now() - t1,
      hits: hits.map((h) => ({ id: h.id, similarity: 1 - h.distance, text: h.metadata.text, source: h.metadata.source })),
    });
  } catch (e) {
    self.postMessage({ type: 'error', seq: msg.seq, message: String(e?.message ?? e), code: e?.code });
  }
}
