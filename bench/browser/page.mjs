// The browser sweep's page side (bench/browser/job.mjs drives it through Playwright): one engine
// per page, in steps the driver calls as `window.bench.<step>(…)`. The timing loop is the matrix's
// own (bench/lib/timing.mjs); recall is computed by the driver from the ids returned here.
//
// Memory: the page's WebAssembly memories are tracked from the moment this module runs (every
// instance's exported Memory and every Memory made in JS), and `memory()` returns their total
// byte length (a wasm memory never shrinks: it holds the engine's peak), the JS memory of the page
// from performance.measureUserAgentSpecificMemory() (needs cross-origin isolation, which the
// driver's COOP/COEP headers give; it counts no wasm memory, checked on Chromium 156) and
// performance.memory's used JS heap, each after two full GCs (gc(), from --js-flags=--expose-gc).
import { timeLoop } from '/bench/lib/timing.mjs';
import { BROWSER_ENGINES } from './engines.mjs';

const memories = new Set();
const track = (exports) => {
  for (const v of Object.values(exports ?? {})) if (v instanceof WebAssembly.Memory) memories.add(v);
};
const W = WebAssembly;
const instantiate = W.instantiate;
W.instantiate = async function (...args) {
  const r = await instantiate.apply(this, args);
  track((r.instance ?? r).exports);
  return r;
};
const streaming = W.instantiateStreaming;
W.instantiateStreaming = async function (...args) {
  const r = await streaming.apply(this, args);
  track(r.instance.exports);
  return r;
};
W.Instance = new Proxy(W.Instance, { construct(t, args, nt) {
  const i = Reflect.construct(t, args, nt);
  track(i.exports);
  return i;
} });
W.Memory = new Proxy(W.Memory, { construct(t, args, nt) {
  const m = Reflect.construct(t, args, nt);
  memories.add(m);
  return m;
} });

const st = { engine: null, data: null, views: null, h: null };
const status = (s) => {
  document.getElementById('status').textContent = s;
};

async function floats(path) {
  const r = await fetch(path);
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
  return new Float32Array(await r.arrayBuffer());
}

window.bench = {
  async load(key) {
    st.engine = BROWSER_ENGINES[key];
    if (!st.engine) throw new Error(`unknown browser engine ${key}`);
    status(`loading ${key}`);
    const info = await st.engine.load();
    return { ...info, crossOriginIsolated: globalThis.crossOriginIsolated === true, userAgent: navigator.userAgent };
  },
  async data({ n, nq, dim }) {
    const base = await floats('/__bench/base.f32');
    const queries = await floats('/__bench/queries.f32');
    if (base.length !== n * dim || queries.length !== nq * dim) throw new Error(`data sizes ${base.length}, ${queries.length} are not ${n} × ${dim}, ${nq} × ${dim}`);
    st.data = { base, n, dim };
    st.views = Array.from({ length: nq }, (_, i) => queries.subarray(i * dim, (i + 1) * dim));
    return true;
  },
  async memory() {
    globalThis.gc?.();
    globalThis.gc?.();
    let wasm = 0;
    for (const m of memories) wasm += m.buffer.byteLength;
    let js = null;
    if (globalThis.crossOriginIsolated && performance.measureUserAgentSpecificMemory) js = (await performance.measureUserAgentSpecificMemory()).bytes;
    return { wasm, js, heap: performance.memory?.usedJSHeapSize ?? null, memories: memories.size };
  },
  async build(params) {
    status('building');
    st.h = await st.engine.build(st.data, params ?? {});
    const { build_s, kernel, threads, engineBytes } = st.h;
    status(`built in ${build_s.toFixed(1)} s`);
    return { build_s, params: st.h.params, kernel: kernel ?? null, threads: threads ?? 1, engineBytes, modes: st.h.modes.map(({ mode, api, knob }) => ({ mode, api, knob })) };
  },
  async afterBuild() {
    return st.h.afterBuild ? st.h.afterBuild() : null;
  },
  /** The ids of the first `nq` queries' top `k`, one query after another (row-major, −1 where short). */
  async ids({ mode, x, k, nq }) {
    const m = st.h.modes[mode];
    const out = new Array(nq * k).fill(-1);
    for (let i = 0; i < nq; i++) {
      const r = await m.search(st.views[i], k, x);
      for (let j = 0; j < Math.min(k, r.length); j++) out[i * k + j] = r[j];
    }
    return out;
  },
  async time({ mode, x, k, nq, seconds, warmup }) {
    const m = st.h.modes[mode];
    status(`timing mode ${m.mode} ${m.knob ?? ''} ${x ?? ''}`);
    return timeLoop((i) => m.search(st.views[i], k, x), { nq, seconds, warmup });
  },
};
window.__ready = true;
status('ready');
