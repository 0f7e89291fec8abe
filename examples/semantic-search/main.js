// The page's main thread: input, debounce, drawing and timings. The index and the model live in
// worker.js. `?model=hub` loads the model from the model hub; otherwise the locally served
// files (scripts/prepare-model.sh) are used when present, the hub when not.
const $ = (id) => document.getElementById(id);
const DEBOUNCE_MS = 300;
const params = new URLSearchParams(location.search);

async function localModelServed() {
  if (params.get('model') === 'hub') return false;
  if (params.get('model') === 'local') return true;
  try {
    const r = await fetch('/models/Xenova/all-MiniLM-L6-v2/config.json', { method: 'HEAD' });
    return r.ok && (r.headers.get('content-type') ?? '').includes('json');
  } catch { return false; }
}

const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
worker.onerror = (e) => { $('status').textContent = `worker error: ${e.message ?? 'failed to load'}`; };
let seq = 0, shown = 0, keystrokeAt = performance.now(), firstResultMs, timer;
const pending = new Map();
const state = (window.__demo = { ready: false, searches: 0, firstResultMs: undefined, last: undefined });

function send(msg) {
  msg.seq = ++seq;
  worker.postMessage(msg);
  return new Promise((resolve, reject) => pending.set(msg.seq, { resolve, reject }));
}
// For tests: the browser's embedding of a text (a Float32Array as a plain array).
window.__embed = async (text) => Array.from((await send({ type: 'embed', text })).vector);

worker.onmessage = ({ data }) => {
  if (data.type === 'ready') return onReady(data);
  const p = pending.get(data.seq);
  if (!p) return;
  pending.delete(data.seq);
  if (data.type === 'error') {
    const e = new Error(data.message);
    e.code = data.code;
    p.reject(e);
  } else p.resolve(data);
};

function search() {
  const query = $('q').value.trim();
  const source = $('source').value;
  const startedAt = keystrokeAt;
  if (!query) return;
  send({ type: 'search', query, source }).then((r) => {
    if (r.seq < shown) return; // an older answer arriving late
    shown = r.seq;
    const ol = $('hits');
    ol.replaceChildren(...r.hits.map((h) => {
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
      $('timings').textContent = `page open → first result ${firstResultMs.toFixed(0)} ms · ` +
        `keystroke → results ${keyMs.toFixed(0)} ms (of which ${DEBOUNCE_MS} ms pause, embed ${r.embedMs.toFixed(0)} ms, search ${r.searchMs.toFixed(1)} ms)`;
      state.searches++;
      state.firstResultMs = firstResultMs;
      state.last = { query, source, keystrokeToResultsMs: keyMs, embedMs: r.embedMs, searchMs: r.searchMs, hits: r.hits };
    }, 0));
  }, (e) => { $('status').textContent = `error ${e.code ?? ''}: ${e.message}`; });
}

function schedule() {
  keystrokeAt = performance.now();
  clearTimeout(timer);
  timer = setTimeout(search, DEBOUNCE_MS);
}

function onReady(r) {
  state.ready = true;
  $('status').textContent = `${String(r.size).replace(/\B(?=(\d{3})+$)/g, ',')} texts, index and model loaded in ${r.loadMs.toFixed(0)} ms`;
  $('q').addEventListener('input', schedule);
  $('source').addEventListener('change', () => { keystrokeAt = performance.now(); clearTimeout(timer); timer = setTimeout(search, 0); });
  keystrokeAt = 0; // the first result is timed from page open
  search();
}

localModelServed().then((local) => worker.postMessage({ type: 'init', local }));
