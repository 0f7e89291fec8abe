// One job of the browser sweep (bench/worker.mjs runs it as kind `browser`; bench/run.mjs starts
// one per engine, one at a time): serves the repository root with COOP/COEP headers (cross-origin
// isolation, for performance.measureUserAgentSpecificMemory) and the job's vectors from memory,
// launches a fresh headless Chromium (Debian's /usr/bin/chromium through playwright-core, as
// tests-js/browser/e2e.mjs does; HOROSVEC_CHROMIUM overrides the path), opens
// bench/browser/index.html and drives bench/browser/page.mjs: load the engine, build over the
// base, then per code path and knob value the ids of every query (recall computed here, against
// the harness's ground truth) and a timing window in the page. Records go to `emit` (sweep
// `browser`, the fields of bench/README.md's record plus the browser's), one per point.
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../../tests-js/browser/serve.mjs';
import { ROOT, loadDataset, groundTruth, recall, common } from '../lib/protocol.mjs';
import { binaryInfo } from '../lib/provenance.mjs';
import { treeCpuSeconds } from '../lib/proc-cpu.mjs';
import { BROWSER_ENGINES } from './engines.mjs';

export const CHROMIUM = process.env.HOROSVEC_CHROMIUM ?? '/usr/bin/chromium';
const ISOLATION = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' };
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-renderer-backgrounding', '--disable-background-timer-throttling',
  // gc() for the memory readings; measureUserAgentSpecificMemory answering at once instead of at the next GC
  '--js-flags=--expose-gc', '--enable-blink-features=ForceEagerMeasureMemory'];
const r4 = (x) => (x === null || x === undefined ? null : Number(Number(x).toFixed(4)));
const r1 = (x) => (x === null || x === undefined ? null : Number(Number(x).toFixed(1)));
const pkgVersion = (name) => JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
const bytes = (f) => Buffer.from(f.buffer, f.byteOffset, f.byteLength);
/**
 * Runs `job` ({ engine, dataset, n, nq, k, efs, factors, seconds, warmup, params }) and emits its
 * records; an engine that cannot run (no browser, no package, a load or build that throws in the
 * page) gets one `skipped` record with the reason.
 */
export async function browserJob(job, { emit, log }) {
  const eng = BROWSER_ENGINES[job.engine];
  if (!eng) throw new Error(`unknown browser engine ${job.engine}`);
  const metric = job.metric;
  const head = { sweep: 'browser', engine: eng.name, backend: eng.backend, dataset: job.dataset, metric };
  let version = null;
  const skip = (reason, extra = {}) => emit({ ...head, status: 'skipped', skip_reason: reason, engine_version: version, mode: null, ...extra, ...common() });
  try {
    version = eng.pkg ? pkgVersion(eng.pkg) : null;
  } catch (e) {
    return skip(`package ${eng.pkg} is not installed: ${e.message}`);
  }
  if (!existsSync(CHROMIUM)) return skip(`no Chromium at ${CHROMIUM} (HOROSVEC_CHROMIUM)`);
  const data = loadDataset(job.dataset, { n: job.n, nq: job.nq });
  const t0 = performance.now();
  const gt = groundTruth(data, metric, job.k);
  log(`ground truth: ${gt.source} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  const base = Float32Array.from(data.base);
  const queries = Float32Array.from(data.queries);
  const server = await serve(ROOT, { headers: ISOLATION, routes: new Map([['/__bench/base.f32', () => bytes(base)], ['/__bench/queries.f32', () => bytes(queries)]]) });
  let b = null;
  try {
    b = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
    const browser = `Chromium ${b.version()}`;
    const page = await b.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e.message ?? e).split('\n')[0]));
    page.on('console', (m) => {
      if (m.type() === 'error') log(`page console: ${m.text().slice(0, 300)}`);
    });
    await page.goto(`http://127.0.0.1:${server.address().port}/bench/browser/index.html`);
    await page.waitForFunction(() => window.__ready === true, null, { timeout: 60_000 });
    const call = (step, arg) => page.evaluate(([s, a]) => window.bench[s](a), [step, arg]);
    let info;
    try {
      info = await call('load', job.engine);
    } catch (e) {
      return skip(`does not load in ${browser}: ${firstLine(e)}`, { browser });
    }
    version ??= info.version ?? null;
    await call('data', { n: data.n, nq: data.nq, dim: data.dim });
    const m0 = await call('memory');
    log(`building over ${data.n} × ${data.dim} in ${browser} …`);
    let built;
    try {
      built = await call('build', job.params ?? {});
    } catch (e) {
      return skip(`its build over ${data.n} × ${data.dim} fails in ${browser}: ${firstLine(e)}`, { browser, n: data.n });
    }
    const m1 = await call('memory');
    log(`built in ${built.build_s.toFixed(1)} s`);
    const extra = await call('afterBuild');
    const perVector = (a, b) => (a === null || b === null ? null : r1((b - a) / data.n));
    const js0 = m0.js ?? m0.heap;
    const js1 = m1.js ?? m1.heap;
    const memory = {
      // what the engine holds in the page after the build: all of the page's wasm memory (the
      // engine is the only wasm there; its initial heap included, a build's peak kept) and the JS
      // memory the build added
      bytes_per_vector: js0 === null || js1 === null ? null : r1((m1.wasm + js1 - js0) / data.n),
      wasm_bytes_per_vector: r1(m1.wasm / data.n),
      wasm_growth_bytes_per_vector: perVector(m0.wasm, m1.wasm),
      js_bytes_per_vector: perVector(m0.js, m1.js),
      js_heap_bytes_per_vector: perVector(m0.heap, m1.heap),
      engine_bytes_per_vector: built.engineBytes === null ? null : r1(built.engineBytes / data.n),
      memory_method: `after the build and two gc(): the page's WebAssembly memories (${m1.memories} tracked; byte length, which keeps the engine's initial heap and the build's peak) + the JS memory the build added (${m0.js !== null ? 'performance.measureUserAgentSpecificMemory(), cross-origin isolated; it counts no wasm memory' : 'performance.memory.usedJSHeapSize: not cross-origin isolated'})`,
    };
    const kernel = built.kernel ?? info.kernel;
    const fixed = {
      ...head,
      status: 'ok',
      engine_version: version,
      kernel,
      storage: 'memory',
      storage_detail: 'in memory (the page)',
      n: data.n,
      nq: data.nq,
      dim: data.dim,
      k: job.k,
      engine_metric: eng.metric,
      ...(eng.metricNote ? { metric_note: eng.metricNote } : {}),
      concurrency: 1,
      concurrency_model: 'sequential',
      threads: built.threads,
      build_s: r4(built.build_s),
      insert_qps: Math.round(data.n / built.build_s),
      load_s: r4(extra?.load_s ?? null),
      snapshot_bytes_per_vector: r1(extra?.snapshot_bytes_per_vector ?? null),
      ...memory,
      browser,
      browser_executable: CHROMIUM,
      headless: true,
      cross_origin_isolated: info.crossOriginIsolated,
      ...(eng.name === 'horosvec' ? binaryInfo('wasm') : {}),
      rss_mb: null,
    };
    for (const [mode, m] of built.modes.entries()) {
      const points = m.knob === 'ef' ? job.efs : m.knob === 'rescore_factor' ? job.factors : [null];
      for (const x of points) {
        const ids = await call('ids', { mode, x, k: job.k, nq: data.nq });
        const results = Array.from({ length: data.nq }, (_, i) => ids.slice(i * job.k, (i + 1) * job.k).filter((id) => id >= 0));
        const rec = recall(results, gt, job.k, data.n);
        const cpu0 = treeCpuSeconds(process.pid);
        const t = await call('time', { mode, x, k: job.k, nq: data.nq, seconds: job.seconds, warmup: job.warmup });
        const cpu_s = cpu0 === null ? null : treeCpuSeconds(process.pid) - cpu0;
        log(`${m.mode} ${m.knob ?? ''}${x === null ? '' : ` ${x}`}: recall ${rec.mean}, ${t.qps} QPS`);
        emit({
          ...fixed,
          mode: m.mode,
          api: m.api,
          params: { ...built.params, ...(m.knob ? { [m.knob]: x } : {}) },
          knob: m.knob,
          recall_mean: rec.mean,
          recall_min: rec.min,
          ...t,
          // the step's calls (warm-up included) per CPU second of the browser's processes
          cpu_s: r4(cpu_s),
          qps_per_cpu_s: cpu_s ? Math.round((t.calls + job.warmup) / cpu_s) : null,
          load_avg_1m: r4(loadavg()[0]),
          page_errors: errors.length,
          ...common(),
        });
      }
    }
  } finally {
    await b?.close().catch(() => {});
    server.close();
  }
}

const firstLine = (e) => String(e?.message ?? e).replace(/^page\.evaluate: /, '').split('\n')[0];

