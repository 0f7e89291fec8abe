// The page's embedding worker: loads all-MiniLM-L6-v2 (int8 ONNX) with transformers.js on
// onnxruntime-web's wasm backend and answers { text } messages with the text's embedding
// (mean-pooled, L2-normalised, 384 floats, transferred). Everything starts when the worker does:
// the library's import and (unless `?model=hub`) every file the offline model needs, fetched in
// parallel and handed to transformers.js through env.fetch when it asks (it would fetch them one
// after another, the runtime's wasm last); offline, the model's session is created from the
// prefetched bytes as soon as they and the runtime are in, beside the library's import, and
// handed to transformers.js's pipeline (measured on this 2-core machine while busy, load average
// 8-12, 5 interleaved first visits each against the previous worker: ready 0.3 s earlier in one
// series, page open → first result median 3.70 s against 4.11 s in one series and 3.14 s against
// 3.04 s in the other: not a proven gain; the first inference after the session dominates). A text that arrives meanwhile is embedded as soon as the
// model is ready; with none waiting, the model is warmed with one dummy embedding (an ONNX
// session's first run is its slowest). The worker's name is the page's `?model=` value ('hub',
// 'local' or ''). Times are epoch ms (timeOrigin + now), which the page turns into its clock.
import ortWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.wasm?url';

const at = () => performance.timeOrigin + performance.now();
const marks = {};
const mark = (name) => (v) => {
  marks[name] = at();
  return v;
};
const NAME = self.name;

// set now, before any library has loaded: a module worker drops messages that arrive before its
// handler exists (the library is imported dynamically for this)
self.onmessage = ({ data }) => serve(data);

const MODEL_ID = 'Xenova/all-MiniLM-L6-v2';
const MODEL_DIR = `/models/${MODEL_ID}/`;
// Offline mode: the files of scripts/prepare-model.sh, served by the page's server. The runtime
// is onnxruntime-web's plain wasm build (vite.config.mjs aliases the WebGPU bundle away), its
// .wasm a hashed asset of the page in both modes.
const MODEL_FILE = MODEL_DIR + 'onnx/model_quantized.onnx';
const MODEL_FILES = [MODEL_DIR + 'config.json', MODEL_DIR + 'tokenizer.json', MODEL_DIR + 'tokenizer_config.json', MODEL_FILE];
const ORT_WASM = new URL(ortWasmUrl, self.location.href).pathname;
// The session options, the same for the session started here and the one transformers.js asks
// for. No graph optimisation when the session starts. Measured in the e2e on this 2-core machine
// (busy, load average 4-10): the session was ready in 1.5-2.5 s after its files instead of
// 2.3-3.3 s with onnxruntime's default ('all'), its first run slower (0.6-1.3 s against
// 0.2-0.4 s), page open → first result 4.0-6.3 s (median 4.7 s, 16 runs) against 4.3-6.1 s
// (median 5.2 s, 5 runs); a short query's embedding 30-250 ms instead of 30-100 ms.
const SESSION_OPTIONS = { graphOptimizationLevel: 'disabled' };

const prefetched = new Map();
if (NAME !== 'hub') for (const f of MODEL_FILES) prefetched.set(f, fetch(f));

// The runtime's wasm (14 MB), fetched from this first line on. onnxruntime-web takes its bytes
// (env.wasm.wasmBinary) and instantiates them when its first session is created. (Compiling them
// here while they download, WebAssembly.compileStreaming, and handing that module over was tried
// and measured no faster: V8 compiles a wasm module's functions lazily, so instantiating the
// bytes costs about 0.1 s, while the streaming compilation competed with the model's and the
// snapshot's downloads.)
const ortBytes = fetch(ORT_WASM).then((r) => {
  if (!r.ok) throw new Error(`${ORT_WASM}: HTTP ${r.status}`);
  return r.arrayBuffer();
});

const localModel = (async () => {
  if (NAME === 'hub') return false;
  try {
    const r = await prefetched.get(MODEL_FILES[0]);
    return (r.ok && (r.headers.get('content-type') ?? '').includes('json')) || NAME === 'local';
  } catch {
    return NAME === 'local';
  }
})();

// onnxruntime-web, imported before transformers.js and configured: the runtime's bytes, one
// thread, its .wasm from the page's server in both modes (its glue is bundled in the page).
const ort = import('onnxruntime-web/wasm').then(mark('ortImported'));
const ortReady = Promise.all([ort, ortBytes]).then(([o, bytes]) => {
  o.env.wasm.wasmBinary = bytes;
  o.env.wasm.wasmPaths = { wasm: new URL(ORT_WASM, self.location.origin).href };
  o.env.wasm.numThreads = 1;
  return o;
});
// transformers.js, imported at once, beside all that.
const transformers = import('@huggingface/transformers').then(mark('transformersImported'));
// Offline mode: the model's session is created here, as soon as onnxruntime's bytes and the
// model's are in (beside the import of transformers.js, its config and its tokenizer), from those
// bytes with SESSION_OPTIONS; transformers.js's own InferenceSession.create of that model file
// (the same onnxruntime-web module: its import of the WebGPU bundle is aliased to this one, and it
// binds the class, not its method) is answered with it, once. Everything else (config,
// tokenizer, the pipeline, its runs, pooling) is transformers.js's own path. Resolves once that
// hook is in place (`{ session }`, not the session: the pipeline need not wait for it).
const earlySession = Promise.all([ort, localModel]).then(([o, local]) => {
  if (!local) return {};
  const { InferenceSession } = o;
  const create = InferenceSession.create;
  const session = Promise.all([ortReady, prefetched.get(MODEL_FILE)])
    .then(([, r]) => {
      if (!r.ok) throw new Error(`${MODEL_FILE}: HTTP ${r.status}`);
      return r.arrayBuffer();
    })
    .then((bytes) => {
      marks.sessionStart = at();
      return create.call(InferenceSession, new Uint8Array(bytes), { logSeverityLevel: 3, executionProviders: ['wasm'], ...SESSION_OPTIONS });
    })
    .then(mark('sessionCreated'));
  session.catch(() => {}); // transformers.js's own call reports a failure
  prefetched.delete(MODEL_FILE);
  InferenceSession.create = function (source, options) {
    if (!(source instanceof Uint8Array)) return create.call(this, source, options);
    InferenceSession.create = create;
    return session;
  };
  return { session };
});

// a prefetched response, once (a second request for the same file goes to the server); the
// model file itself, which the session above reads, is answered by an empty body (transformers.js
// only hands it to InferenceSession.create)
const fetchPrefetched = (url, init) => {
  const path = new URL(url, self.location.origin).pathname;
  if (path === MODEL_FILE && (init?.method ?? 'GET') === 'GET') return Promise.resolve(new Response(new Uint8Array(0)));
  const r = prefetched.get(path);
  if (r === undefined || (init?.method ?? 'GET') !== 'GET' || new Headers(init?.headers).has('range')) return fetch(url, init);
  prefetched.delete(path);
  return r;
};

// (the pipeline waits for the hook, not for the session: config and tokenizer load meanwhile)
const embed = Promise.all([transformers, localModel, earlySession, ortReady])
  .then(async ([{ pipeline, env }, local]) => {
    if (local) {
      // nothing fetched beyond the page's server, nor copied into the Cache API (the HTTP cache
      // has them)
      env.allowRemoteModels = false;
      env.allowLocalModels = true;
      env.useBrowserCache = false;
      env.localModelPath = '/models/'; // a path, not a URL: transformers.js only probes local files by path
      env.fetch = fetchPrefetched;
    } else {
      prefetched.clear();
    }
    marks.pipelineStart = at();
    return pipeline('feature-extraction', MODEL_ID, { dtype: 'q8', device: 'wasm', session_options: SESSION_OPTIONS });
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
