// The page's own module worker: loads the snapshot (Collection.fromBytes) and the embedding model
// (transformers.js, all-MiniLM-L6-v2 int8 ONNX on onnxruntime-web's wasm backend), then answers
// { query, source } messages with the 10 nearest texts. Both the embedding and the search run
// here, so the page's main thread only draws.
// Imported dynamically, after onmessage is set: horosvec's browser entry awaits its wasm at top
// level, and a module worker's messages that arrive before the handler exists are dropped.
const libs = Promise.all([import('horosvec'), import('@huggingface/transformers')]);

const MODEL_ID = 'Xenova/all-MiniLM-L6-v2';
let ready;

async function init({ local }) {
  const [{ Collection }, { pipeline, env }] = await libs;
  if (local) {
    // Offline mode: model files and onnxruntime-web's wasm are served by this page's server
    // (prepared by scripts/prepare-model.sh); nothing is fetched beyond it.
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = '/models/'; // a path, not a URL: transformers.js only probes local files by path
    env.backends.onnx.wasm.wasmPaths = new URL('/ort/', self.location.origin).href;
  }
  env.backends.onnx.wasm.numThreads = 1;
  const t0 = performance.now();
  const [col, embed] = await Promise.all([
    fetch('/sample.hvsnap').then((r) => {
      if (!r.ok) throw new Error(`snapshot: HTTP ${r.status}`);
      return r.arrayBuffer();
    }).then((b) => Collection.fromBytes(new Uint8Array(b))),
    pipeline('feature-extraction', MODEL_ID, { dtype: 'q8', device: 'wasm' }),
  ]);
  return { col, embed, loadMs: performance.now() - t0 };
}

async function vector(embed, text) {
  const out = await embed(text, { pooling: 'mean', normalize: true });
  return new Float32Array(out.data);
}

self.onmessage = async ({ data: msg }) => {
  try {
    if (msg.type === 'init') {
      ready = init(msg);
      const { col, loadMs } = await ready;
      self.postMessage({ type: 'ready', size: col.size, loadMs });
    } else if (msg.type === 'search') {
      const { col, embed } = await ready;
      const t0 = performance.now();
      const v = await vector(embed, msg.query);
      const t1 = performance.now();
      const opts = { k: 10 };
      if (msg.source) opts.filter = { source: msg.source };
      const hits = await col.search(v, opts);
      const t2 = performance.now();
      self.postMessage({
        type: 'results', seq: msg.seq, embedMs: t1 - t0, searchMs: t2 - t1,
        hits: hits.map((h) => ({ id: h.id, similarity: 1 - h.distance, text: h.metadata.text, source: h.metadata.source })),
      });
    } else if (msg.type === 'embed') {
      const { embed } = await ready;
      const v = await vector(embed, msg.text);
      self.postMessage({ type: 'vector', seq: msg.seq, vector: v }, [v.buffer]);
    }
  } catch (e) {
    self.postMessage({ type: 'error', seq: msg.seq, message: String(e?.message ?? e), code: e?.code });
  }
};
