// The OPFS crash test (issue 17): a page writes batches of 10 records (adds, whole-batch upserts
// and deletes) in a loop through horosvec/worker into an OPFS collection and logs each
// acknowledged one; the test kills it at seeded random moments, either the page's renderer
// (CDP Page.crash: the page and its Worker die mid-write) or the whole browser (SIGKILL of
// Debian's Chromium, launched here with a persistent profile so that OPFS outlives it), then
// reopens the collection and checks: every batch holds 0 or 10 records (never part of one),
// every acknowledged add or upsert is there, every acknowledged delete is not, nothing that was
// never written is. HOROSVEC_OPFS_KILLS (default 10) and HOROSVEC_OPFS_SEED (default 17).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from './serve.mjs';

const KILLS = Number(process.env.HOROSVEC_OPFS_KILLS ?? 10);
const SEED = Number(process.env.HOROSVEC_OPFS_SEED ?? 17);
const root = fileURLToPath(new URL('../../', import.meta.url));
const server = await serve(root);
const base = `http://127.0.0.1:${server.address().port}/tests-js/browser/opfs-crash.html`;
const profile = await mkdtemp(join(tmpdir(), 'horosvec-opfs-crash-'));

function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = rng(SEED);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Debian's Chromium, started by us (so that we hold its process id), driven over CDP.
async function launch() {
  const child = spawn(process.env.HOROSVEC_CHROMIUM ?? '/usr/bin/chromium', [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`, '--remote-debugging-port=0', 'about:blank',
  ], { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  const ws = await new Promise((resolve, reject) => {
    let err = '';
    const t = setTimeout(() => reject(new Error(`chromium did not start: ${err}`)), 30_000);
    child.stderr.on('data', (d) => {
      err += d;
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(t);
        resolve(m[1]);
      }
    });
    child.on('exit', (c) => reject(new Error(`chromium exited (${c}): ${err}`)));
  });
  child.stderr.resume();
  const browser = await chromium.connectOverCDP(ws);
  const exited = new Promise((r) => child.once('exit', r));
  return { child, browser, ctx: browser.contexts()[0], exited };
}

// Batch states the test knows: 'present' | 'absent' per batch id; `inflight`: the batch of the
// one operation started and not acknowledged when the kill came (either state is allowed).
const known = new Map();
const results = [];
let failures = 0;

async function verify(ctx, round, inflight, kind, acks) {
  const page = await ctx.newPage();
  try {
    await page.goto(`${base}?mode=verify`);
    await page.waitForFunction(() => window.__verify !== undefined, null, { timeout: 30_000 });
    const v = await page.evaluate(() => window.__verify);
    const bad = [];
    for (const [b, c] of Object.entries(v.counts)) if (c !== 10) bad.push(`batch ${b} holds ${c} records`);
    for (const [b, s] of known) {
      if (b === inflight) continue;
      const c = v.counts[b] ?? 0;
      if (s === 'present' && c !== 10) bad.push(`acknowledged batch ${b} holds ${c}`);
      if (s === 'absent' && c !== 0) bad.push(`deleted batch ${b} holds ${c}`);
    }
    for (const b of Object.keys(v.counts).map(Number)) if (!known.has(b) && b !== inflight) bad.push(`batch ${b} was never written`);
    // the in-flight batch is whatever the store says
    if (inflight !== undefined) known.set(inflight, (v.counts[inflight] ?? 0) === 10 ? 'present' : 'absent');
    const present = [...known.values()].filter((s) => s === 'present').length;
    results.push({ round, kind, size: v.size, sealed: v.sealedSegments, batches: present, ok: bad.length === 0 });
    console.log(`opfs-crash: kill ${round} (${kind}) after ${acks} acknowledged writes${inflight === undefined ? '' : ', one in flight'}: ${v.size} records in ${present} batches, ${v.sealedSegments} sealed segments, ${bad.length === 0 ? 'all acknowledged batches whole, none partial' : bad.slice(0, 5).join('; ')}`);
    if (bad.length > 0) failures++;
  } finally {
    await page.close();
  }
}

const debug = (...a) => process.env.HOROSVEC_OPFS_DEBUG && console.log("opfs-crash debug:", ...a);
let b = await launch();
debug("launched");
try {
  const sigkills = new Set([1, KILLS]);
  for (let i = 2; i < KILLS; i++) if (random() < 0.3) sigkills.add(i);
  for (let round = 1; round <= KILLS; round++) {
    const kind = sigkills.has(round) ? 'browser SIGKILL' : 'renderer crash';
    const page = await b.ctx.newPage();
    let inflight;
    let ready;
    const isReady = new Promise((r) => (ready = r));
    let acks = 0;
    await page.exposeFunction('__ready', () => ready());
    await page.exposeFunction('__start', (op, batch) => {
      inflight = batch;
    });
    await page.exposeFunction('__ack', (op, batch) => {
      known.set(batch, op === 'delete' ? 'absent' : 'present');
      inflight = undefined;
      acks++;
    });
    page.on('console', (m) => {
      if (m.text().startsWith('error')) console.error(`opfs-crash: page: ${m.text()}`);
    });
    await page.goto(`${base}?mode=write&seed=${SEED * 1000 + round}`);
    debug("page loaded", round);
    await Promise.race([isReady, sleep(30_000)]);
    await sleep(200 + Math.floor(random() * 1300));
    if (kind === 'renderer crash') {
      // the crashed renderer never answers the command: wait for the page's crash event
      const crashed = new Promise((r) => page.once('crash', r));
      const cdp = await b.ctx.newCDPSession(page);
      cdp.send('Page.crash').catch(() => undefined);
      await Promise.race([crashed, sleep(10_000)]);
      await Promise.race([page.close().catch(() => undefined), sleep(5_000)]);
    } else {
      process.kill(-b.child.pid, 'SIGKILL');
      await b.exited;
      await b.browser.close().catch(() => undefined);
      b = await launch();
    }
    await verify(b.ctx, round, inflight, kind, acks);
  }
} catch (e) {
  failures++;
  console.error('opfs-crash:', e);
} finally {
  await b.browser.close().catch(() => undefined);
  try {
    process.kill(-b.child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
  server.close();
  await rm(profile, { recursive: true, force: true });
}
const kills = results.length;
console.log(`opfs-crash: ${kills} kills (${results.filter((r) => r.kind === 'browser SIGKILL').length} browser SIGKILL, ${results.filter((r) => r.kind === 'renderer crash').length} renderer crash), seed ${SEED}: ${failures === 0 && kills === KILLS ? 'passed' : `FAILED (${failures})`}`);
process.exit(failures === 0 && kills === KILLS ? 0 : 1);
