// The page's embedding worker: loads all-MiniLM-L6-v2 (int8 ONNX) with transformers.js on
// onnxruntime-web's wasm backend and answers { text } messages with the text's embedding
// (mean-pooled, L2-normalised, 384 floats, transferred). Everything starts when the worker does:
// the library's import and (unless `?model=hub`) every file the offline model needs, fetched in
// parallel and handed to transformers.js through env.fetch when it asks (it would fetch them one
// after another, the runtime's wasm last). A text that arrives meanwhile is embedded as soon as the
// model is ready; with none waiting, the model is warmed with one dummy embedding (an ONNX
// session's first run is its slowest). The worker's name is the page's query string: its `model` ('hub',
// 'local' or ''). Times are epoch ms (timeOrigin + now), which the page turns into its clock.
//
// Tried and measured no faster (bench/page-open.mjs, 8-10 first visits per variant, run side by
// side on this 2-core machine at load average 2-9; see git history of this file): the runtime's
// wasm compiled while it downloads (WebAssembly.compileStreaming, handed to onnxruntime through
// WebAssembly.instantiate): V8 compiles a wasm module's functions lazily, instantiating the
// bytes costs about 0.1 s, and the streaming compilation competed with the other downloads; the
// model's session created from the prefetched bytes beside transformers.js's import and handed to
// its InferenceSession.create call; the snapshot's download held back until the model's bytes
// were in. Where the time goes on a first visit (load average about 4): the big files in at about
// 0.8 s, the session's creation 0.4 s, the first inference and the paint 0.25 s.
// Since then: the model's embedding tables are dequantized after the lookup
// (scripts/rewrite-model.mjs: an inference dequantized the whole 30,522 × 384 word table before,
// 63-70 ms of the 70 ms of a short text natively); the snapshot holds f16 rows (21.7 MB); the
// snapshot and the model are not written to the HTTP cache (vite.config.mjs). Also tried and
// slower: onnxruntime's wasm threads (`numThreads` 2, the page cross-origin isolated): page open
// → first result median 4.3 s against 3.5 s, 8 first visits each at load average 9-10.
import ortWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.wasm?url';

const at = () => performance.timeOrigin + performance.now();
// the worker's start (its own time origin) and its module's first statement
const marks = { embedWorkerStart: performance.timeOrigin, embedWorkerRun: at() };
const mark = (name) => (v) => {
  marks[name] = at();
  return v;
};
// the worker's name is the page's query string (its `model`: hub / local / none)
const NAME = new URLSearchParams(self.name).get('model') ?? '';

// set now, before any library has loaded: a module worker drops messages that arrive before its
// handler exists (the library is imported dynamically for this)
self.onmessage = ({ data }) => serve(data);

const MODEL_ID = 'Xenova/all-MiniLM-L6-v2';
const MODEL_DIR = `/models/${MODEL_ID}/`;
// Offline mode: the files of scripts/prepare-model.sh, served by the page's server. The runtime
// is onnxruntime-web's plain wasm build (vite.config.mjs aliases the WebGPU bundle away), its
// .wasm a hashed asset of the page in both modes.
const MODEL_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx'].map((f) => MODEL_DIR + f);
const ORT_WASM = new URL(ortWasmUrl, self.location.href).pathname;
const prefetched = new Map();
if (NAME !== 'hub') for (const f of [...MODEL_FILES, ORT_WASM]) prefetched.set(f, fetch(f));

const localModel = (async () => {
  if (NAME === 'hub') return false;
  try {
    const r = await prefetched.get(MODEL_FILES[0]);
    return (r.ok && (r.headers.get('content-type') ?? '').includes('json')) || NAME === 'local';
  } catch {
    return NAME === 'local';
  }
})();
const transformers = import('@huggingface/transformers').then(mark('transformersImported'));

// a prefetched response, once (a second request for the same file goes to the server)
const fetchPrefetched = (url, init) => {
  const path = new URL(url, self.location.origin).pathname;
  const r = prefetched.get(path);
  if (r === undefined || (init?.method ?? 'GET') !== 'GET' || new Headers(init?.headers).has('range')) return fetch(url, init);
  prefetched.delete(path);
  return r;
};

const embed = Promise.all([transformers, localModel])
  .then(async ([{ pipeline, env }, local]) => {
    if (local) {
      // nothing fetched beyond the page's server, nor copied into the Cache API (the HTTP cache
      // has them)
      env.allowRemoteModels = false;
      env.allowLocalModels = true;
      env.useBrowserCache = false;
      env.localModelPath = '/models/'; // a path, not a URL: transformers.js only probes local files by path
      env.fetch = fetchPrefetched;
      const wasm = await prefetched.get(ORT_WASM);
      prefetched.delete(ORT_WASM);
      if (!wasm.ok) throw new Error(`${ORT_WASM}: HTTP ${wasm.status}`);
      env.backends.onnx.wasm.wasmBinary = await wasm.arrayBuffer();
    } else {
      prefetched.clear();
    }
    // the runtime's wasm from the page's server in both modes (its glue is bundled in the page)
    env.backends.onnx.wasm.wasmPaths = { wasm: new URL(ORT_WASM, self.location.origin).href };
    env.backends.onnx.wasm.numThreads = 1;
    marks.pipelineStart = at();
    // No graph optimisation when the session starts. Measured in the e2e on this 2-core machine
    // (busy, load average 4-10): the session was ready in 1.5-2.5 s after its files instead of
    // 2.3-3.3 s with onnxruntime's default ('all'), its first run slower (0.6-1.3 s against
    // 0.2-0.4 s), page open → first result 4.0-6.3 s (median 4.7 s, 16 runs) against 4.3-6.1 s
    // (median 5.2 s, 5 runs); a short query's embedding 30-250 ms instead of 30-100 ms.
    const session_options = { graphOptimizationLevel: 'disabled' };
    return pipeline('feature-extraction', MODEL_ID, { dtype: 'q8', device: 'wasm', session_options });
  })
  .then(mark('modelLoaded'));

let queries = 0;
async function vector(text) {
  const e = await embed;
  const out = await e(text, { pooling: 'mean', normalize: true });
  return new Float32Array(out.data);
}
// warm-up, only when no text is waiting: a waiting one warms the session itself
embed
  .then(() => (queries === 0 ? vector('warm up').then(mark('modelWarmed')) : undefined))
  .then(
    () => {
      // what the worker fetched, when (epoch ms): for the e2e's report
      const fetched = performance.getEntriesByType('resource').map((r) => ({
        name: new URL(r.name).pathname, start: performance.timeOrigin + r.startTime, end: performance.timeOrigin + r.responseEnd, bytes: r.encodedBodySize,
      }));
      self.postMessage({ type: 'ready', marks, fetched });
    },
    (e) => self.postMessage({ type: 'error', message: `loading the model failed: ${e?.message ?? e}`, code: e?.code }),
  );

async function serve(msg) {
  try {
    queries++;
    const t0 = performance.now();
    const v = await vector(msg.text);
    self.postMessage({ type: 'vector', seq: msg.seq, vector: v, embedMs: performance.now() - t0 }, [v.buffer]);
  } catch (e) {
    self.postMessage({ type: 'error', seq: msg.seq, message: String(e?.message ?? e), code: e?.code });
  }
}
