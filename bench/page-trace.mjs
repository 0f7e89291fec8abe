#!/usr/bin/env node
// Where the CPU of a first visit to the semantic-search page goes (examples/semantic-search,
// issue 17): page-open.mjs measures page open → first result; this script says what fills it.
// Each run is a first visit (a new browser, no HTTP or compiled-code cache) recorded with
// Chromium's tracing, the same page and query as page-open.mjs; the trace is then summed per
// thread: each worker's busy time (top-level tasks), and within it wasm lazy compilation
// (`wasm.CompileLazy`: a function's first call compiles it), JavaScript compilation and garbage
// collection; the renderer's background pool (where V8 compiles hot wasm functions again with
// its optimising tier, `wasm.TopTierCompilation`, and JS off the main thread); the renderer's
// main thread; the browser process. Tracing slows the page (its first result comes later than in
// page-open.mjs): read the shares, not the absolute times.
//
//   node bench/page-trace.mjs [--runs 3] [--keep DIR]   (one JSONL record on stdout:
//     bench-results/page-trace/<rev>.jsonl; --keep saves each raw trace as DIR/run-<i>.json)
//   (needs /usr/bin/chromium, or HOROSVEC_CHROMIUM)
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { provenance } from './lib/provenance.mjs';
import { servePage } from './lib/page-server.mjs';
import { waitIdle } from './lib/proc-cpu.mjs';
import { median } from './lib/median.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, keep: { type: 'string' } } });
const runs = Number(values.runs);
const log = (s) => process.stderr.write(`${s}\n`);
const CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'v8.wasm', 'disabled-by-default-v8.compile', 'toplevel', 'loading'];

const { url, query, server } = await servePage();

const ms = (us) => Math.round(us / 1000);

/** The per-thread sums of one trace (times in ms). */
function summarize(events) {
  const threadName = new Map();
  const processName = new Map();
  for (const e of events) {
    if (e.ph !== 'M') continue;
    if (e.name === 'thread_name') threadName.set(`${e.pid}:${e.tid}`, e.args.name);
    if (e.name === 'process_name') processName.set(e.pid, e.args.name);
  }
  // a process is known by its main thread too (a trace may lack a process's name)
  const MAIN = { CrRendererMain: 'Renderer', CrBrowserMain: 'Browser', CrGpuMain: 'GPU Process' };
  for (const [key, name] of threadName) {
    const pid = Number(key.split(':')[0]);
    if (MAIN[name] && !processName.has(pid)) processName.set(pid, MAIN[name]);
  }
  // a worker is named by the script it compiled first (its bundled file name)
  const workerOf = new Map();
  for (const e of events) {
    const u = e.args?.data?.url ?? e.args?.url;
    const key = `${e.pid}:${e.tid}`;
    if (typeof u === 'string' && threadName.get(key) === 'DedicatedWorker thread' && !workerOf.has(key)) {
      const m = /(embed|index)-worker/.exec(u);
      if (m) workerOf.set(key, `${m[1]}Worker`);
    }
  }
  const out = {};
  const slot = (name) => (out[name] ??= { busy: 0, wasmLazyCompile: 0, wasmTopTierCompile: 0, jsCompile: 0, gc: 0 });
  // per thread, the end of the top-level event in progress, and of the JS compilation one
  const topUntil = new Map();
  const jsUntil = new Map();
  const xs = events.filter((e) => e.ph === 'X' && typeof e.dur === 'number').sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  for (const e of xs) {
    const key = `${e.pid}:${e.tid}`;
    const proc = processName.get(e.pid) ?? '';
    const thread = threadName.get(key) ?? '';
    const name = workerOf.get(key) ??
      (proc === 'Renderer' && thread === 'CrRendererMain' ? 'rendererMain'
        : proc === 'Renderer' && thread.startsWith('ThreadPool') ? 'rendererPool'
          : proc === 'Renderer' ? 'rendererOther' : proc === 'WebUI Top Renderer' ? 'webuiRenderer' : proc === 'Browser' ? 'browser' : proc === 'GPU Process' ? 'gpu' : `other (${proc || 'pid ' + e.pid} / ${thread || 'tid ' + e.tid})`);
    const s = slot(name);
    if (!(topUntil.get(key) > e.ts)) {
      // not nested in an earlier event of this thread: a task of its own
      s.busy += e.dur;
      topUntil.set(key, e.ts + e.dur);
    }
    if (e.name === 'wasm.CompileLazy') s.wasmLazyCompile += e.dur;
    else if (e.name === 'wasm.TopTierCompilation') s.wasmTopTierCompile += e.dur;
    else if (/^(MinorGC|MajorGC)$/.test(e.name)) s.gc += e.dur;
    else if (/^(v8\.compile|v8\.compileModule|V8\.CompileCode)$/.test(e.name) && !(jsUntil.get(key) > e.ts)) {
      // JavaScript compilation, counted once where such events nest
      s.jsCompile += e.dur;
      jsUntil.set(key, e.ts + e.dur);
    }
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, Object.fromEntries(Object.entries(v).map(([f, x]) => [f, ms(x)]))]));
}

const results = [];
try {
  for (let i = 0; i < runs; i++) {
    const loadBefore = Number(loadavg()[0].toFixed(2));
    const browser = await chromium.launch({
      executablePath: process.env.HOROSVEC_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      const ctx = await browser.newContext({ viewport: { width: 1100, height: 900 } });
      await ctx.route('**/*', (route) => (['127.0.0.1', 'localhost'].includes(new URL(route.request().url()).hostname) ? route.continue() : route.abort()));
      const page = await ctx.newPage();
      // a browser in use: the page opens once the browser's own start-up work is done
      const idleWaitMs = await waitIdle(process.pid);
      await browser.startTracing(page, { categories: CATEGORIES });
      await page.goto(url, { waitUntil: 'commit' });
      await page.locator('#q').fill(query);
      await page.waitForFunction(() => window.__demo?.searches >= 1, null, { timeout: 120_000 });
      await page.waitForFunction(() => window.__demo.ready, null, { timeout: 120_000 });
      const d = await page.evaluate(() => ({ firstResultMs: window.__demo.firstResultMs, marks: window.__demo.marks }));
      const buf = await browser.stopTracing();
      if (values.keep) {
        mkdirSync(values.keep, { recursive: true });
        writeFileSync(join(values.keep, `run-${i + 1}.json`), buf);
      }
      const trace = JSON.parse(buf.toString('utf8'));
      const threads = summarize(trace.traceEvents ?? trace);
      const run = { run: i + 1, idle_wait_ms: idleWaitMs, first_result_ms_traced: Math.round(d.firstResultMs), marks: d.marks, threads, load_before: loadBefore, load_after: Number(loadavg()[0].toFixed(2)) };
      results.push(run);
      const t = (n) => threads[n] ?? {};
      log(`  run ${i + 1}: first result ${run.first_result_ms_traced} ms (traced); embed worker busy ${t('embedWorker').busy} ms (wasm lazy compile ${t('embedWorker').wasmLazyCompile}), index worker busy ${t('indexWorker').busy} ms, renderer pool ${t('rendererPool').busy} ms (wasm top tier ${t('rendererPool').wasmTopTierCompile}), renderer main ${t('rendererMain').busy} ms, browser ${t('browser').busy} ms; load ${run.load_before} → ${run.load_after}`);
    } finally {
      await browser.close();
    }
  }
} finally {
  await server.close();
}

// medians over the runs, per thread and field
const fields = ['busy', 'wasmLazyCompile', 'wasmTopTierCompile', 'jsCompile', 'gc'];
const names = [...new Set(results.flatMap((r) => Object.keys(r.threads)))];
const medians = Object.fromEntries(names.map((n) => [n, Object.fromEntries(fields.map((f) => [f, median(results.map((r) => r.threads[n]?.[f] ?? 0))]))]));
const record = {
  bench: 'page-trace',
  page: 'examples/semantic-search',
  query,
  runs,
  first_result_ms_traced_median: median(results.map((r) => r.first_result_ms_traced)),
  threads_ms_median: medians,
  categories: CATEGORIES,
  chromium: execFileSync(process.env.HOROSVEC_CHROMIUM ?? '/usr/bin/chromium', ['--version'], { encoding: 'utf8' }).trim(),
  results,
  ...provenance(),
};
log(`medians (ms): ${Object.entries(medians).map(([n, v]) => `${n} ${JSON.stringify(v)}`).join('; ')}`);
process.stdout.write(`${JSON.stringify(record)}\n`);
