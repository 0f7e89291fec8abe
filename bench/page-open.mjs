#!/usr/bin/env node
// Page open → first result of the semantic-search page (examples/semantic-search, issue 17), over
// repeated first visits. One JSONL record on stdout (bench-results/page-open/<rev>.jsonl); the
// per-run lines and the summary on stderr.
//
//   node bench/page-open.mjs [--runs 10] [--repeat] [--cold-browser] [--variant 'NAME|QUERY|PATH=FILE' ...]
//   (needs /usr/bin/chromium, or HOROSVEC_CHROMIUM)
//
// The page's production build (vite build) is served by `vite preview` on 127.0.0.1 with the
// locally prepared model (scripts/prepare-model.sh) and snapshot (build-snapshot.mjs), as in the
// e2e (tests-js/browser/semantic-search.e2e.mjs). Each run is a first visit: a new Chromium with a
// new, empty profile (no HTTP cache, no compiled-wasm cache), opened once the browser is idle
// after its start-up (a just-launched Chromium spends 1.5–2 s of CPU building its own user
// interface in a renderer of its own, `chrome://omnibox-popup.top-chrome`, found with
// bench/page-trace.mjs; a person's browser has done that long before; --cold-browser opens the
// page at once, as earlier records did). The query (the sample's first query
// text of 25 to 70 characters, as the e2e's first one) goes into the input as soon as the page
// can take it (one input event, as a paste), while the page loads. The figure is the page's own:
// `firstResultMs`, from navigation start (performance.timeOrigin) to the first results list
// painted for that query (its 300 ms debounce pause included). With --repeat, each run also
// opens the page again in the same profile once the browser is idle (a repeat visit: the HTTP
// cache warm, and V8's compiled code of what it cached) and records that.
// The machine's load average (1 min) is recorded before and after every run: figures measured
// while it is high say so. So is the CPU time a visit took until its first result (the browser's
// processes from /proc, and this process: the page's server and the driver), which depends far
// less on the other jobs of the machine than the wall time does.
//
// --variant (repeatable) compares variants of the page side by side: each round of a run visits
// the page as built ("base") and then each variant, one first visit each, so every variant gets
// --runs first visits interleaved with the others' (the machine's load shared alike). A variant
// is `NAME|QUERY|PATH=FILE|$VAR=VALUE`: QUERY (e.g. `?model=local`, may be empty) is appended to
// the page's URL; PATH=FILE (optional, repeatable with more `|`) serves FILE instead of the built
// page's dist/PATH during that variant's visits; $VAR=VALUE sets an environment variable of this
// process (where the page's server runs, e.g. `$SEMANTIC_SEARCH_BINARY_CACHE=no-cache`) during
// them. The record then has one summary per variant.
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { copyFile, mkdtemp, rename, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, provenance } from './lib/provenance.mjs';
import { servePage } from './lib/page-server.mjs';
import { treeCpuSeconds, waitIdle } from './lib/proc-cpu.mjs';
import { median } from './lib/median.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' }, repeat: { type: 'boolean', default: false }, 'cold-browser': { type: 'boolean', default: false }, variant: { type: 'string', multiple: true, default: [] } } });
const runs = Number(values.runs);
const DIST = join(ROOT, 'examples/semantic-search/dist');
const variants = [{ name: 'base', query: '', files: [], env: [] }, ...values.variant.map((v) => {
  const [name, query = '', ...files] = v.split('|');
  const parts = files.filter(Boolean).map((f) => f.split('='));
  return {
    name, query,
    files: parts.filter(([p]) => !p.startsWith('$')).map(([path, file]) => ({ path: join(DIST, path), file })),
    env: parts.filter(([p]) => p.startsWith('$')).map(([k, v]) => [k.slice(1), v]),
  };
})];
const log = (s) => process.stderr.write(`${s}\n`);

const { url, query, server } = await servePage();

const load1 = () => Number(loadavg()[0].toFixed(2));

/** One visit of `page`: the page's firstResultMs, readyMs and marks. */
async function visit(page, query_ = '') {
  const cpu0 = treeCpuSeconds(process.pid);
  const own0 = process.cpuUsage();
  await page.goto(url + query_, { waitUntil: 'commit' });
  await page.locator('#q').fill(query);
  await page.waitForFunction(() => window.__demo?.searches >= 1, null, { timeout: 60_000 });
  const cpu1 = treeCpuSeconds(process.pid);
  const own = process.cpuUsage(own0);
  await page.waitForFunction(() => window.__demo.ready, null, { timeout: 60_000 });
  const d = await page.evaluate(() => ({ firstResultMs: window.__demo.firstResultMs, readyMs: window.__demo.readyMs, marks: window.__demo.marks, top: window.__demo.last.hits[0]?.text }));
  return {
    first_result_ms: Math.round(d.firstResultMs), ready_ms: Math.round(d.readyMs),
    // CPU time until the first result was seen here: the browser's processes (from /proc) and this
    // process (the page's server and the driver)
    browser_cpu_ms: cpu0 === null ? null : Math.round((cpu1 - cpu0) * 1000), server_cpu_ms: Math.round((own.user + own.system) / 1000),
    marks: d.marks, top: d.top,
  };
}

const results = [];
// a variant's files swapped in (the built ones kept under .base) and back
const swap = async (v, on) => {
  for (const [k, value] of v.env) {
    if (on) process.env[k] = value;
    else delete process.env[k];
  }
  for (const f of v.files) {
    if (on) {
      await copyFile(f.path, `${f.path}.base`);
      await copyFile(f.file, f.path);
    } else await rename(`${f.path}.base`, f.path);
  }
};
try {
  for (let i = 0; i < runs; i++) for (const variant of variants) {
    const loadBefore = load1();
    await swap(variant, true);
    const profile = await mkdtemp(join(tmpdir(), 'horosvec-page-open-'));
    const ctx = await chromium.launchPersistentContext(profile, {
      executablePath: process.env.HOROSVEC_CHROMIUM ?? '/usr/bin/chromium',
      headless: true,
      viewport: { width: 1100, height: 900 },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      await ctx.route('**/*', (route) => (['127.0.0.1', 'localhost'].includes(new URL(route.request().url()).hostname) ? route.continue() : route.abort()));
      const page = await ctx.newPage();
      // the page opens in a browser that is up: once its own start-up work is done (unless
      // --cold-browser), as in a browser in use
      const idleWaitMs = values['cold-browser'] ? 0 : await waitIdle(process.pid);
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      const first = await visit(page, variant.query);
      const run = { run: i + 1, ...(variants.length > 1 ? { variant: variant.name } : {}), ...first, idle_wait_ms: idleWaitMs, load_before: loadBefore };
      if (values.repeat) {
        // a repeat visit once the browser is idle again (V8 writes a streamed wasm module's
        // compiled code to the HTTP cache after its hot functions reach the optimising tier)
        await waitIdle(process.pid);
        const again = await visit(page, variant.query);
        run.repeat_first_result_ms = again.first_result_ms;
        run.repeat_browser_cpu_ms = again.browser_cpu_ms;
        run.repeat_marks = again.marks;
      }
      run.load_after = load1();
      if (errors.length) run.errors = errors;
      results.push(run);
      const m = Object.entries(first.marks).map(([k, v]) => `${k} ${v}`).join(', ');
      log(`  run ${i + 1}${variants.length > 1 ? ` ${variant.name}` : ''}: page open → first result ${first.first_result_ms} ms${values.repeat ? ` (repeat visit ${run.repeat_first_result_ms} ms, CPU ${run.repeat_browser_cpu_ms} ms)` : ''}, ready ${first.ready_ms} ms, CPU browser ${first.browser_cpu_ms} ms + server ${first.server_cpu_ms} ms; load ${loadBefore} → ${run.load_after}; ${m}`);
    } finally {
      await ctx.close();
      await rm(profile, { recursive: true, force: true });
      await swap(variant, false);
    }
  }
} finally {
  await server.close();
}

const summarize = (rs) => {
  const firsts = rs.map((r) => r.first_result_ms);
  return {
    runs: rs.length,
    first_result_ms_median: median(firsts),
    first_result_ms_min: Math.min(...firsts),
    first_result_ms_max: Math.max(...firsts),
    ready_ms_median: median(rs.map((r) => r.ready_ms)),
    browser_cpu_ms_median: median(rs.map((r) => r.browser_cpu_ms)),
    server_cpu_ms_median: median(rs.map((r) => r.server_cpu_ms)),
    ...(values.repeat ? { repeat_first_result_ms_median: median(rs.map((r) => r.repeat_first_result_ms)), repeat_browser_cpu_ms_median: median(rs.map((r) => r.repeat_browser_cpu_ms)) } : {}),
    load_avg_median: median(rs.flatMap((r) => [r.load_before, r.load_after])),
  };
};
const line = (name, s) => `page open → first result${name ? ` [${name}]` : ''}: median ${s.first_result_ms_median} ms (min ${s.first_result_ms_min}, max ${s.first_result_ms_max}) over ${s.runs} first visits` +
  `, ready median ${s.ready_ms_median} ms, CPU median browser ${s.browser_cpu_ms_median} ms + server ${s.server_cpu_ms_median} ms${values.repeat ? `; repeat visits median ${s.repeat_first_result_ms_median} ms (CPU ${s.repeat_browser_cpu_ms_median} ms)` : ''}; load average (1 min) median ${s.load_avg_median}`;
const summary = {
  bench: 'page-open',
  page: 'examples/semantic-search',
  query,
  browser: values['cold-browser'] ? 'cold: the page opened as soon as the browser was launched' : 'up: the page opened once the browser was idle after its start-up',
  ...summarize(results.filter((r) => (r.variant ?? 'base') === 'base')),
  ...(variants.length > 1 ? {
    variants: variants.map((v) => ({ name: v.name, query: v.query, files: v.files.map((f) => `${f.path.slice(DIST.length + 1)}=${f.file}`), env: Object.fromEntries(v.env), ...summarize(results.filter((r) => r.variant === v.name)) })),
  } : {}),
  chromium: execFileSync(process.env.HOROSVEC_CHROMIUM ?? '/usr/bin/chromium', ['--version'], { encoding: 'utf8' }).trim(),
  results,
  ...provenance(),
};
if (summary.variants) for (const v of summary.variants) log(line(v.name, v));
else log(line('', summary));
process.stdout.write(`${JSON.stringify(summary)}\n`);
