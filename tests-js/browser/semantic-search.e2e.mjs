// End-to-end: the semantic-search page (examples/semantic-search) in headless Chromium (Debian's
// /usr/bin/chromium via playwright-core): its production build (vite build) served by `vite
// preview` on 127.0.0.1, with the locally prepared model (scripts/prepare-model.sh) and
// snapshot (build-snapshot.mjs); no other network.
// Checks: the browser's embedding of sample texts matches the sample's precomputed one
// (cosine ≥ 0.99: same model and tokenizer); three queries show the texts the exact Node search
// over the same vectors ranks first (with a source filter on the third): the first is entered
// (one input event, as a paste) as soon as the input can take it, while the page loads, the
// other two typed key by key; the page's main thread never busy for more than 50 ms in one task
// during load and search. Screenshot: target/semantic-search.png (taken after that check: a
// full-page capture is itself main-thread work). Prints the measured timings, page open → first
// result among them (speed is reported, not asserted).
//
// The 50 ms rule counts the main thread's own time (CPU time of each of its tasks, from a
// Chromium trace: "toplevel" RunTask events' tdur), not wall time. The Long Tasks API counts
// wall time, and on this 2-core machine shared with other builds (load average up to 10) a task
// lasts longer than its work whenever the OS runs other threads: measured here, frames blocked
// 72 ms with no script in them, a requestAnimationFrame callback that only calls setTimeout
// lasting 121 ms, and an 80 ms busy loop getting 24 ms of CPU. The Long Tasks API's entries are
// printed (E2E_VERBOSE=1: with the Long Animation Frames API's script attribution), not asserted.
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, preview } from 'vite';
import { Collection } from 'horosvec';
import { loadSample, DIM } from '../../examples/lib/sample.mjs';
import { buildSnapshot, SNAPSHOT } from '../../examples/semantic-search/build-snapshot.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));

// A Chromium trace of the page's renderer main threads ("toplevel": one RunTask event per task,
// with its wall time `dur` and its thread time `tdur`, in µs). stop() → [{ wallMs, cpuMs }].
async function startTracing(context, page) {
  const cdp = await context.newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  // devtools.timeline: what ran inside a task (for E2E_VERBOSE=1's list of the longest)
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: ['toplevel', 'devtools.timeline', '__metadata'], recordMode: 'recordAsMuchAsPossible' }, transferMode: 'ReportEvents' });
  return {
    async stop() {
      const complete = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
      await cdp.send('Tracing.end');
      await complete;
      const main = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
      const onMain = events.filter((e) => e.ph === 'X' && main.has(`${e.pid}:${e.tid}`));
      const what = (t) => onMain
        .filter((e) => e !== t && e.tid === t.tid && e.ts >= t.ts && e.ts + (e.dur ?? 0) <= t.ts + t.dur && (e.tdur ?? 0) > 2000)
        .map((e) => `${e.name}${e.args?.data?.url ? ` ${e.args.data.url.slice(-40)}` : ''}${e.args?.data?.functionName ? ` ${e.args.data.functionName}` : ''} ${(e.tdur / 1000).toFixed(1)}`);
      return onMain
        .filter((e) => e.name === 'ThreadControllerImpl::RunTask' && typeof e.tdur === 'number')
        .map((e) => ({ wallMs: e.dur / 1000, cpuMs: e.tdur / 1000, what: () => what(e) }));
    },
  };
}
execFileSync('bash', [join(root, 'scripts/prepare-model.sh')], { stdio: 'inherit' });
await buildSnapshot();

// Expected results: exact search in Node over the same snapshot, with the sample's embeddings.
const { queries } = loadSample();
const picked = queries.filter((q) => q.text.length >= 25 && q.text.length <= 70).slice(0, 3);
const { readFileSync } = await import('node:fs');
const nodeCol = await Collection.fromBytes(new Uint8Array(readFileSync(SNAPSHOT)));
const cases = [];
for (const [i, q] of picked.entries()) {
  let source = '';
  if (i === 2) source = (await nodeCol.search(q.vector, { k: 1 }))[0].metadata.source;
  const hits = await nodeCol.search(q.vector, { k: 10, ...(source ? { filter: { source } } : {}) });
  cases.push({ text: q.text, vector: Array.from(q.vector), source, expected: hits.map((h) => h.metadata.text) });
}

const configFile = join(root, 'examples/semantic-search/vite.config.mjs');
const builtAt = performance.now();
await build({ configFile, logLevel: 'warn' });
console.log(`  vite build ${((performance.now() - builtAt) / 1000).toFixed(1)} s`);
const server = await preview({ configFile, preview: { port: 0, strictPort: false }, logLevel: 'warn' });
const { port } = server.httpServer.address();
const profile = await mkdtemp(join(tmpdir(), 'horosvec-search-e2e-'));
let passed = 0, failed = 0;
const check = (ok, what, detail) => {
  if (ok) passed++;
  else { failed++; console.error(`semantic-search e2e: FAILED ${what}`, detail ?? ''); }
};
const ctx = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.HOROSVEC_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1100, height: 900 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await ctx.newPage();
  const errors = [];
  const offsite = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error' || process.env.E2E_VERBOSE) console.error(`  [page ${m.type()}] ${m.text()}`); });
  page.on('worker', (w) => w.on('console', (m) => { if (m.type() === 'error' || process.env.E2E_VERBOSE) console.error(`  [worker ${m.type()}] ${m.text()}`); }));
  await ctx.route('**/*', (route) => {
    const u = new URL(route.request().url());
    if (u.hostname === '127.0.0.1' || u.hostname === 'localhost') return route.continue();
    offsite.push(u.href);
    return route.abort();
  });
  await page.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration, name: e.name });
    }).observe({ type: 'longtask', buffered: true });
    // what ran in a long frame (Long Animation Frames API), printed with E2E_VERBOSE=1
    window.__longFrames = [];
    try {
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) {
          window.__longFrames.push({ start: e.startTime, duration: e.duration, blocking: e.blockingDuration,
            scripts: e.scripts.map((s) => ({ invoker: s.invoker, source: s.sourceURL, fn: s.sourceFunctionName, duration: s.duration })) });
        }
      }).observe({ type: 'long-animation-frame', buffered: true });
    } catch { /* not in this browser */ }
  });
  const tracing = await startTracing(ctx, page);
  // The first query goes in as soon as the input takes it (the page is still loading).
  await page.goto(`http://127.0.0.1:${port}/`, { waitUntil: 'commit' });
  const [first, ...typed] = cases;
  await page.locator('#q').fill(first.text);
  await page.waitForFunction(() => window.__demo?.searches >= 1, null, { timeout: 60_000 })
    .catch(async (e) => { throw new Error(`no first result: status ${JSON.stringify(await page.textContent('#status'))}`, { cause: e }); });
  const firstResultMs = await page.evaluate(() => window.__demo.firstResultMs);
  const firstLast = await page.evaluate(() => window.__demo.last);
  await page.waitForFunction(() => window.__demo.ready, null, { timeout: 60_000 });
  const { readyMs, marks, fetched } = await page.evaluate(() => window.__demo);
  if (process.env.E2E_VERBOSE) for (const f of fetched) console.log(`  worker fetched ${f.name} ${f.start}..${f.end} ms (${f.bytes} B)`);

  for (const c of cases) {
    const v = await page.evaluate((t) => window.__embed(t), c.text);
    let dot = 0, nv = 0;
    for (let i = 0; i < DIM; i++) { dot += v[i] * c.vector[i]; nv += v[i] * v[i]; }
    const cos = dot / Math.sqrt(nv);
    check(cos >= 0.99, `embedding of ${JSON.stringify(c.text)} (cosine ${cos.toFixed(4)})`);
    c.cosine = cos;
  }

  const timings = [];
  for (const c of cases) {
    if (c !== first) {
      if (c.source) await page.selectOption('#source', c.source);
      await page.fill('#q', '');
      await page.locator('#q').pressSequentially(c.text, { delay: 15 });
    }
    await page.waitForFunction((t) => window.__demo.last?.query === t, c.text, { timeout: 30_000 });
    const last = c === first ? firstLast : await page.evaluate(() => window.__demo.last);
    const shown = await page.locator('#hits li').allTextContents();
    const got = last.hits.map((h) => h.text);
    const overlap = c.expected.filter((t) => got.includes(t)).length;
    check(shown.some((s) => s.includes(c.expected[0])), `top text of ${JSON.stringify(c.text)} shown`, { expected: c.expected[0], shown });
    check(overlap >= 8, `top-10 overlap with Node for ${JSON.stringify(c.text)}: ${overlap}/10`);
    if (c.source) check(last.hits.every((h) => h.source === c.source), `filter source=${c.source}`);
    timings.push(last.keystrokeToResultsMs);
    const how = c === first ? 'entered while loading' : 'typed';
    console.log(`  query ${JSON.stringify(c.text)}${c.source ? ` [source ${c.source}]` : ''} (${how}): overlap ${overlap}/10, cosine ${c.cosine.toFixed(4)}, keystroke → results ${last.keystrokeToResultsMs.toFixed(0)} ms (embed ${last.embedMs.toFixed(0)} ms, waiting for the index ${last.waitMs.toFixed(0)} ms, search ${last.searchMs.toFixed(1)} ms)`);
  }
  // read before the screenshot, which is main-thread work of its own, not the page's
  const longTasks = await page.evaluate(() => window.__longTasks);
  const tasks = await tracing.stop();
  const busy = tasks.filter((t) => t.cpuMs > 50).map((t) => ({ wallMs: t.wallMs, cpuMs: t.cpuMs, what: t.what() }));
  if (process.env.E2E_VERBOSE) {
    for (const t of [...tasks].sort((a, b) => b.cpuMs - a.cpuMs).slice(0, 5)) console.log(`  main-thread task ${t.cpuMs.toFixed(1)} ms CPU (${t.wallMs.toFixed(0)} ms wall): ${t.what().join(', ')}`);
  }
  const maxCpu = Math.max(0, ...tasks.map((t) => t.cpuMs));
  if (process.env.E2E_VERBOSE) {
    console.log(await page.evaluate(() => JSON.stringify({ lt: window.__longTasks, loaf: window.__longFrames,
      res: performance.getEntriesByType('resource').map((r) => [r.name.slice(-40), Math.round(r.startTime), Math.round(r.responseEnd)]) }, null, 1)));
  }
  mkdirSync(join(root, 'target'), { recursive: true });
  await page.screenshot({ path: join(root, 'target', 'semantic-search.png'), fullPage: true });
  check(tasks.length > 0, 'the trace has the main thread\'s tasks');
  check(busy.length === 0, 'main thread busy > 50 ms in one task (CPU time)', busy);
  check(errors.length === 0, 'page errors', errors);
  check(offsite.length === 0, 'requests beyond localhost', offsite);
  // A repeat visit (the same profile: the HTTP cache has the hashed assets, the snapshot and the
  // model; Chromium may reuse compiled wasm): reported only.
  await page.goto(`http://127.0.0.1:${port}/`, { waitUntil: 'commit' });
  await page.locator('#q').fill(first.text);
  await page.waitForFunction(() => window.__demo?.searches >= 1, null, { timeout: 60_000 });
  const again = await page.evaluate(() => ({ firstResultMs: window.__demo.firstResultMs, ok: window.__demo.last.hits[0]?.text }));
  check(again.ok === first.expected[0], 'repeat visit: the same top text', again);
  const m = Object.entries(marks).map(([k, v]) => `${k} ${v}`).join(', ');
  console.log(`  page open → first result ${firstResultMs.toFixed(0)} ms (repeat visit ${again.firstResultMs.toFixed(0)} ms), ready ${readyMs.toFixed(0)} ms (worker, ms after page open: ${m}); main thread: ${tasks.length} tasks, the longest ${maxCpu.toFixed(1)} ms of CPU; Long Tasks API (wall time): ${longTasks.length}${longTasks.length ? ` (max ${Math.max(...longTasks.map((t) => t.duration)).toFixed(0)} ms)` : ''}`);
} catch (e) {
  failed++;
  console.error('semantic-search e2e:', e);
} finally {
  await ctx.close();
  await server.close();
  await rm(profile, { recursive: true, force: true });
}
console.log(`semantic-search e2e: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
