// The page's main thread: input, debounce, drawing and timings. Two workers do the work, both
// started at once: embed-worker.js (the model: text → vector) and index-worker.js (the
// snapshot: vector → the 10 nearest texts). `?model=hub` loads the model from the model hub;
// otherwise the locally served files (scripts/prepare-model.sh) are used when present, the hub
// when not. The input is enabled as soon as this script runs: a query typed while the workers
// load is answered as soon as both are ready.
//
// "page open → first result": from navigation start (performance.timeOrigin) to the first
// results list painted, for the first query typed (typing and the debounce pause included);
// "ready": when the index and the model had both loaded.
const $ = (id) => document.getElementById(id);
const DEBOUNCE_MS = 300;
const params = new URLSearchParams(location.search);
const state = (window.__demo = { ready: false, searches: 0, firstResultMs: undefined, readyMs: undefined, marks: {}, fetched: [], last: undefined });
state.marks.mainRun = performance.timeOrigin + performance.now(); // this script's first statement (epoch ms)

// worker times are epoch ms: the page's clock counts from its own timeOrigin
const pageMs = (epochMs) => Math.round(epochMs - performance.timeOrigin);
const showError = (e) => { $('status').textContent = `error ${e.code ?? ''}: ${e.message}`; };

// A worker answering { seq, ... } requests; `onReady(data)` gets its one 'ready' message.
function start(w, onReady) {
  const pending = new Map();
  let seq = 0;
  w.onerror = (e) => showError({ message: `worker: ${e.message ?? 'failed to load'}` });
  w.onmessage = ({ data }) => {
    if (data.type === 'ready') return onReady(data);
    if (data.type === 'error' && data.seq === undefined) return showError(data);
    const p = pending.get(data.seq);
    if (!p) return;
    pending.delete(data.seq);
    if (data.type === 'error') p.reject(Object.assign(new Error(data.message), { code: data.code }));
    else p.resolve(data);
  };
  return (msg, transfer = []) => {
    msg.seq = ++seq;
    w.postMessage(msg, transfer);
    return new Promise((resolve, reject) => pending.set(msg.seq, { resolve, reject }));
  };
}

let modelReady, indexReady, size;
// (each `new Worker(new URL(...))` written out: the form Vite finds and bundles)
const embedWorker = new Worker(new URL('./embed-worker.js', import.meta.url), { type: 'module', name: params.toString() });
const indexWorker = new Worker(new URL('./index-worker.js', import.meta.url), { type: 'module' });
const embed = start(embedWorker, (r) => {
  modelReady = true;
  Object.assign(state.marks, r.marks);
  state.fetched = r.fetched;
  onReady();
});
const index = start(indexWorker, (r) => {
  indexReady = true;
  size = r.size;
  Object.assign(state.marks, r.marks);
  onReady();
});

// For tests: the browser's embedding of a text (a Float32Array as a plain array).
window.__embed = async (text) => Array.from((await embed({ text })).vector);

let latest = 0, shown = 0, keystrokeAt = 0, firstResultMs, timer;
async function search() {
  const query = $('q').value.trim();
  const source = $('source').value;
  const startedAt = keystrokeAt;
  if (!query) return;
  const n = ++latest;
  try {
    const e = await embed({ text: query });
    const r = await index({ vector: e.vector, source }, [e.vector.buffer]);
    if (n < shown) return; // an older answer arriving late
    shown = n;
    $('hits').replaceChildren(...r.hits.map((h) => {
      const li = document.createElement('li');
      const sim = document.createElement('span'); sim.className = 'sim'; sim.textContent = h.similarity.toFixed(3);
      const src = document.createElement('span'); src.className = 'src'; src.textContent = h.source;
      li.append(sim, src, h.text);
      return li;
    }));
    // Shown = after the next frame is painted.
    requestAnimationFrame(() => setTimeout(() => {
      const now = performance.now();
      if (firstResultMs === undefined) firstResultMs = now;
      const keyMs = now - startedAt;
      const wait = r.waitMs >= 1 ? `, waiting for the index ${r.waitMs.toFixed(0)} ms` : '';
      $('timings').textContent = `page open → first result ${firstResultMs.toFixed(0)} ms · ` +
        `keystroke → results ${keyMs.toFixed(0)} ms (of which ${DEBOUNCE_MS} ms pause, embed ${e.embedMs.toFixed(0)} ms${wait}, search ${r.searchMs.toFixed(1)} ms)`;
      state.searches++;
      state.firstResultMs = firstResultMs;
      state.last = { query, source, keystrokeToResultsMs: keyMs, embedMs: e.embedMs, waitMs: r.waitMs, searchMs: r.searchMs, hits: r.hits };
    }, 0));
  } catch (e) {
    showError(e);
  }
}

function schedule() {
  keystrokeAt = performance.now();
  clearTimeout(timer);
  timer = setTimeout(search, DEBOUNCE_MS);
}

function onReady() {
  if (!modelReady || !indexReady) return;
  state.ready = true;
  state.readyMs = performance.now();
  state.marks = Object.fromEntries(Object.entries(state.marks).map(([k, v]) => [k, pageMs(v)]));
  state.fetched = state.fetched.map((f) => ({ ...f, start: pageMs(f.start), end: pageMs(f.end) }));
  const m = state.marks;
  $('status').textContent = `${String(size).replace(/\B(?=(\d{3})+$)/g, ',')} texts · ready ${state.readyMs.toFixed(0)} ms after page open ` +
    `(index ${m.indexLoaded} ms, model ${m.modelLoaded} ms)`;
}

$('q').addEventListener('input', schedule);
$('source').addEventListener('change', () => { keystrokeAt = performance.now(); clearTimeout(timer); timer = setTimeout(search, 0); });
// enabled once its handler is listening (the HTML has it disabled): typing works from here on,
// while the workers are still loading
$('q').disabled = false;
