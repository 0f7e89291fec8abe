#!/usr/bin/env node
// One job of the benchmark matrix, in its own process (bench/run.mjs starts one at a time):
//
//   node --expose-gc bench/worker.mjs --job '<json>'
//
// A job names a sweep kind, an engine, a mode, the data and the parameters; the records go to
// stdout as JSON lines (each with its `sweep`), progress to stderr. Kinds:
//
//   search     build, then per ef: recall@k (sequential, every query), warm-up, a timing window
//              (records `search`, plus one `build`); with `concurrency`, then the clients sweep at
//              the smallest ef reaching recall 0.95 (records `concurrency`); with `open`, the open
//              and first-query times of the saved index in fresh processes (records `open`).
//              `as` relabels the search records (`dims`, `sizes`, `metrics`).
//   build      build only (records `build`), e.g. with RAYON_NUM_THREADS=1.
//   writes     single and batch inserts, updates and deletes per durability (records `writes`).
//   wasm       the same horosvec index (native build, snapshot) searched by both backends.
//   filtered   build with the rows' metadata, then per filter of bench/lib/filters.mjs and ef:
//              recall@k against the filtered ground truth and hits returned (sequential, every
//              query), warm-up, a timing window (records `filtered`). horosvec-wasm searches a
//              snapshot of the native build, as `wasm` does.
//   browser    one engine in a page of headless Chromium (bench/browser/job.mjs): build, then per
//              code path and ef (or EdgeVec's rescore factor) recall@k and a timing window in the
//              page (records `browser`).
//   open-child (internal) one open + first query, timed, printed as JSON.
import { execFileSync, execSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ENGINES, ensureDir, treeSize, knobParams } from './lib/engines.mjs';
import { BROWSER_ENGINES } from './browser/engines.mjs';
import { ROOT, loadDataset, groundTruth, recall, timeLoop, summarize, storageOf, common, rssMb } from './lib/protocol.mjs';
import { hasMetadata, loadMetadata, filterSet, maskOf, filteredGroundTruth, filteredMeasures } from './lib/filters.mjs';

const SELF = fileURLToPath(import.meta.url);
const { values } = parseArgs({ options: { job: { type: 'string' } } });
const job = JSON.parse(values.job);
const log = (m) => process.stderr.write(`[${job.kind} ${job.engine ?? ''} ${job.mode ?? ''}] ${m}\n`);
const emit = (r) => process.stdout.write(`${JSON.stringify(r)}\n`);
const r4 = (x) => (x === null || x === undefined ? null : Number(Number(x).toFixed(4)));

/** The fields every record of this job starts with. */
function head(sweep, engine, info, extra = {}) {
  return {
    sweep,
    status: 'ok',
    engine: engine.name,
    engine_version: info.version,
    backend: engine.backend,
    // the code path the engine reports (horosvec's `vamana` resolves to `vamana-rabitq<bits>`)
    mode: info.mode ?? job.mode,
    api: info.api ?? engine.api ?? null,
    kernel: info.kernel,
    ...extra,
  };
}

function skipped(sweep, engine, reason, extra = {}) {
  emit({ sweep, status: 'skipped', skip_reason: reason, engine: engine?.name ?? job.engine, engine_version: null, backend: engine?.backend ?? null, mode: job.mode ?? null, dataset: job.dataset, metric: job.metric, ...extra, ...common() });
}

async function loadEngine(sweeps) {
  const engine = ENGINES[job.engine];
  if (engine === undefined) throw new Error(`unknown engine ${job.engine}`);
  try {
    const info = await engine.load();
    return { engine, info };
  } catch (e) {
    for (const s of sweeps) skipped(s, engine, `does not load here: ${String(e.message ?? e).split('\n')[0]}`);
    return null;
  }
}

/** Recall over every query, one after another; `{ mean, min }`. */
async function measureRecall(h, data, gt, k, ef) {
  const res = [];
  for (let i = 0; i < data.nq; i++) res.push(await h.search(data.views[i], k, ef));
  return recall(res, gt, k, data.n);
}

/** `c` worker-thread clients, each with its own copy of the index from `file`. */
async function threadClients(engine, open, data, k, ef, c, seconds) {
  const shared = new SharedArrayBuffer(data.queries.byteLength);
  new Float32Array(shared).set(data.queries);
  const workers = [];
  for (let i = 0; i < c; i++) {
    const w = new Worker(join(ROOT, 'bench', 'lib', 'client.mjs'), {
      workerData: { engine: job.engine, open, queries: shared, dim: data.dim, nq: data.nq, k, ef, seconds, offset: Math.floor((i * data.nq) / c) },
    });
    await new Promise((res, rej) => {
      w.once('message', res);
      w.once('error', rej);
    });
    workers.push(w);
  }
  const done = workers.map((w) => new Promise((res, rej) => {
    w.once('message', res);
    w.once('error', rej);
  }));
  for (const w of workers) w.postMessage('go');
  const out = await Promise.all(done);
  await Promise.all(workers.map((w) => w.terminate()));
  return summarize(out.flatMap((o) => o.lat), Math.max(...out.map((o) => o.elapsed)));
}

function prepare(dataset, n, nq, metric, k) {
  const data = loadDataset(dataset, { n, nq });
  data.views = Array.from({ length: data.nq }, (_, i) => data.queries.subarray(i * data.dim, (i + 1) * data.dim));
  const t0 = performance.now();
  const gt = groundTruth(data, metric, k);
  log(`ground truth: ${gt.source} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  return { data, gt };
}

const dataFields = (data, metric, k) => ({ dataset: data.name, n: data.n, nq: data.nq, dim: data.dim, metric, k });

// ---- search (and concurrency, open) ------------------------------------------------------------

async function search() {
  const sweeps = [job.as ?? 'search', ...(job.concurrency ? ['concurrency'] : []), ...(job.as ? [] : ['build'])];
  const le = await loadEngine(sweeps);
  if (le === null) return;
  const { engine, info } = le;
  const why = engine.unsupported(job.metric, job.mode);
  if (why) {
    for (const s of sweeps) skipped(s, engine, why);
    return;
  }
  const { data, gt } = prepare(job.dataset, job.n, job.nq, job.metric, job.k);
  const dir = mkdtempSync(join(ensureDir(job.diskDir), `${job.engine}-`));
  try {
    log(`building over ${data.n} × ${data.dim} …`);
    const rss0 = rssMb();
    const h = await engine.build(data, job.metric, job.mode, job.params ?? {}, { dir });
    const rssBuilt = rssMb();
    const kernel = h.kernel ?? info.kernel;
    const storage = job.mode.startsWith('segmented') || job.engine === 'sqlite-vec' || h.storageDir ? storageOf(h.storageDir ?? dir) : { storage: 'memory', storage_detail: 'in memory' };
    const base = (sweep) => ({ ...head(sweep, engine, { ...info, kernel, mode: h.mode, api: h.api }), ...storage, ...dataFields(data, job.metric, job.k), threads: h.threads, build_s: r4(h.build_s), insert_qps: Math.round(data.n / h.build_s), bytes_per_vector: h.bytesPerVector === null ? null : Number(h.bytesPerVector.toFixed(1)) });
    log(`built in ${h.build_s.toFixed(1)} s`);
    if (!job.as) emit({ ...base('build'), concurrency: 1, concurrency_model: 'sequential', params: h.params, rss_mb: rssBuilt, rss_build_delta_mb: r4(rssBuilt - rss0), ...common() });
    // the search points: the ef values, or the engine's own knob points (LanceDB: nprobes ×
    // refine_factor objects), or one point for exact engines
    const efs = engine.points ? engine.points(job.mode, job) : engine.efs(job.mode) ? job.efs : [null];
    const curve = [];
    for (const ef of efs) {
      const rec = await measureRecall(h, data, gt, job.k, ef);
      const t = await timeLoop((i) => h.search(data.views[i], job.k, ef), { nq: data.nq, seconds: job.seconds, warmup: job.warmup });
      const r = { ...base(job.as ?? 'search'), concurrency: 1, concurrency_model: 'sequential', params: { ...h.params, ...knobParams(ef) }, recall_mean: rec.mean, recall_min: rec.min, ...t, rss_mb: rssMb(), ...common() };
      curve.push({ ef, rec, qps: t.qps });
      log(`${JSON.stringify(knobParams(ef))}: recall ${rec.mean}, ${t.qps} QPS`);
      emit(r);
    }
    if (job.concurrency) {
      // the smallest ef reaching recall 0.95 (the largest if none does); with knob points, the
      // fastest point reaching it (else the one of highest recall)
      const byEf = [...curve].sort((a, b) => (a.ef ?? 0) - (b.ef ?? 0));
      const reach = curve.filter((c) => c.rec.mean >= 0.95).sort((a, b) => b.qps - a.qps);
      const { ef, rec } = engine.points ? reach[0] ?? [...curve].sort((a, b) => b.rec.mean - a.rec.mean)[0] : byEf.find((c) => c.rec.mean >= 0.95) ?? byEf[byEf.length - 1];
      // worker-thread clients open the saved index (async engines share this one)
      const file = !h.async && h.save ? await h.save(dir) : null;
      for (const c of job.concurrency) {
        let t;
        let model;
        if (h.async) {
          model = 'async';
          const call = h.searchAsync ?? h.search;
          const before = h.searchPlacement?.();
          t = await timeLoop((i) => call(data.views[i], job.k, ef), { nq: data.nq, clients: c, seconds: job.seconds, warmup: job.warmup });
          const after = h.searchPlacement?.();
          // horosvec: where this window's Promise searches ran (warm-up included)
          if (before && after) t = { ...t, search_placement: Object.fromEntries(Object.keys(after).map((key) => [key, after[key] - before[key]])) };
        } else if (file !== null && engine.open) {
          model = 'worker_threads';
          t = await threadClients(engine, { file, metric: job.metric, mode: job.mode, dim: data.dim, params: h.params, ef }, data, job.k, ef, c, job.seconds);
        } else {
          skipped('concurrency', engine, 'synchronous search and no saved index for worker threads', { concurrency: c });
          continue;
        }
        log(`clients ${c} (${model}): ${t.qps} QPS`);
        emit({ ...base('concurrency'), concurrency: c, concurrency_model: model, params: { ...h.params, ...knobParams(ef) }, recall_mean: rec.mean, recall_min: rec.min, ...t, rss_mb: rssMb(), ...common() });
      }
    }
    if (job.open && engine.open) {
      const file = job.mode.startsWith('segmented') ? dir : h.save ? await h.save(dir) : null;
      await h.close();
      if (file !== null) await openTimes(engine, info, data, file, storageOf(dir), h);
    } else {
      await h.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Open and first-query times of a saved index, each in a fresh process; cold runs drop the page cache first (root only). */
async function openTimes(engine, info, data, file, storage, h) {
  const q = Array.from(data.views[0]);
  const runs = [];
  const diskBytes = statSync(file).isDirectory() ? treeSize(file) : statSync(file).size;
  // the point the opened index is searched at: ef 64, or the engine's own (LanceDB: nprobes, refine_factor)
  const point = engine.openPoint?.(job.mode) ?? 64;
  for (const cold of job.cold ? [true, false] : [false]) {
    for (let i = 0; i < job.opens; i++) {
      if (cold) {
        try {
          execSync('sync; echo 3 > /proc/sys/vm/drop_caches', { stdio: 'ignore' });
        } catch {
          if (i === 0) skipped('open', engine, 'cannot drop the page cache (not root): no cold runs', { cold: true });
          break;
        }
      }
      const child = { kind: 'open-child', engine: job.engine, mode: job.mode, open: { file, metric: job.metric, mode: job.mode, dim: data.dim, params: h.params, ef: 64 }, point, q, k: job.k };
      const out = execFileSync(process.execPath, ['--expose-gc', SELF, '--job', JSON.stringify(child)], { encoding: 'utf8' });
      runs.push({ cold, ...JSON.parse(out) });
    }
  }
  for (const cold of [true, false]) {
    const rs = runs.filter((r) => r.cold === cold);
    if (rs.length === 0) continue;
    const med = (key) => {
      const xs = rs.map((r) => r[key]).sort((a, b) => a - b);
      return r4(xs[Math.floor(xs.length / 2)]);
    };
    emit({
      ...head('open', engine, info),
      ...storage,
      ...dataFields(data, job.metric, job.k),
      concurrency: 1,
      concurrency_model: 'sequential',
      threads: 1,
      params: { ...h.params, ...knobParams(point) },
      cold,
      open_method: job.mode.startsWith('segmented') ? 'Collection.open readOnly: maps the sealed segment files' : engine.openMethod,
      runs: rs.length,
      open_ms: med('open_ms'),
      first_query_ms: med('first_query_ms'),
      second_query_ms: med('second_query_ms'),
      resident_bytes_per_vector: Number(((med('rss_delta_mb') * 2 ** 20) / data.n).toFixed(1)),
      disk_bytes_per_vector: Number((diskBytes / data.n).toFixed(1)),
      rss_mb: med('rss_mb'),
      ...common(),
    });
  }
}

async function openChild() {
  const engine = ENGINES[job.engine];
  await engine.load();
  const rss0 = rssMb();
  const q = new Float32Array(job.q);
  const t0 = performance.now();
  let h;
  if (job.mode.startsWith('segmented')) {
    const hv = await import('horosvec');
    const col = await hv.Collection.open(job.open.file, { readOnly: true });
    h = { search: (v, k) => col.searchSync(v, { k, ef: 64 }), close: () => col.close() };
  } else {
    h = await engine.open(job.open);
  }
  const t1 = performance.now();
  const point = job.point ?? 64;
  await h.search(q, job.k, point);
  const t2 = performance.now();
  await h.search(q, job.k, point);
  const t3 = performance.now();
  const rss = rssMb();
  process.stdout.write(JSON.stringify({ open_ms: t1 - t0, first_query_ms: t2 - t1, second_query_ms: t3 - t2, rss_mb: rss, rss_delta_mb: rss - rss0 }));
  await h.close();
}

// ---- build only --------------------------------------------------------------------------------

async function buildOnly() {
  const le = await loadEngine(['build']);
  if (le === null) return;
  const { engine, info } = le;
  const data = loadDataset(job.dataset, { n: job.n, nq: 1 });
  const dir = mkdtempSync(join(ensureDir(job.diskDir), `${job.engine}-`));
  try {
    const rss0 = rssMb();
    const h = await engine.build(data, job.metric, job.mode, job.params ?? {}, { dir });
    const rss = rssMb();
    log(`built in ${h.build_s.toFixed(1)} s with ${h.threads} threads`);
    emit({ ...head('build', engine, { ...info, kernel: h.kernel ?? info.kernel }), storage: 'memory', storage_detail: 'in memory', ...dataFields(data, job.metric, job.k), concurrency: 1, concurrency_model: 'sequential', threads: h.threads, params: h.params, build_s: r4(h.build_s), insert_qps: Math.round(data.n / h.build_s), bytes_per_vector: h.bytesPerVector === null ? null : Number(h.bytesPerVector.toFixed(1)), rss_mb: rss, rss_build_delta_mb: r4(rss - rss0), ...common() });
    await h.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- writes ------------------------------------------------------------------------------------

async function writes() {
  const le = await loadEngine(['writes']);
  if (le === null) return;
  const { engine, info } = le;
  const data = loadDataset(job.dataset, { n: job.n, nq: 1 });
  const dim = data.dim;
  const row = (i) => data.base.subarray((i % data.n) * dim, ((i % data.n) + 1) * dim);
  const batch = job.batch;
  for (const medium of job.media) {
    const root = medium === 'tmpfs' ? '/dev/shm' : job.diskDir;
    ensureDir(root);
    const st = storageOf(root);
    if (medium === 'tmpfs' && st.storage !== 'tmpfs') {
      skipped('writes', engine, `/dev/shm is not a tmpfs here (${st.storage_detail})`);
      continue;
    }
    for (const durability of job.durabilities) {
      const dir = mkdtempSync(join(root, `hv-writes-${job.engine}-`));
      try {
        const w = await writer(engine, dir, dim, job.metric, durability);
        const rec = (op, writers, b, t) => emit({ ...head('writes', engine, { ...info, mode: w.mode, api: w.api }), ...st, ...dataFields(data, job.metric, job.k), concurrency: writers, concurrency_model: writers === 1 ? 'sequential' : w.concurrentModel, threads: 1, params: {}, op, durability, writers, batch: b, ops_per_s: Number(((t.calls * b) / t.seconds).toFixed(1)), calls: t.calls, p50_ms: t.p50_ms, p99_ms: t.p99_ms, bytes_per_vector: null, rss_mb: rssMb(), ...common() });
        let nextId = 0;
        // single-record inserts, awaited one by one
        let t = await timeLoop(() => w.insert([nextId++], 1), { seconds: job.seconds, max: job.maxOps });
        rec('insert-single', 1, 1, t);
        // the same with concurrent writers (group commit)
        if (w.concurrentModel) {
          t = await timeLoop(() => w.insert([nextId++], 1), { clients: job.writers, seconds: job.seconds, max: job.maxOps * 4 });
          rec('insert-single', job.writers, 1, t);
        } else {
          skipped('writes', engine, w.noConcurrency, { op: 'insert-single', durability, writers: job.writers, ...st });
        }
        t = await timeLoop(() => {
          const a = nextId;
          nextId += batch;
          return w.insert(Array.from({ length: batch }, (_, j) => a + j), batch);
        }, { seconds: job.seconds, max: Math.ceil(job.maxOps / 10) });
        rec('insert-batch', 1, batch, t);
        const live = nextId;
        t = await timeLoop((i) => w.update(i % live), { seconds: job.seconds, max: Math.min(job.maxOps, live) });
        rec('update', 1, 1, t);
        t = await timeLoop((i) => w.remove(i), { seconds: job.seconds, max: Math.min(job.maxOps, live) });
        rec('delete', 1, 1, t);
        await w.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }

  async function writer(e, dir, d, metric, durability) {
    if (e.name === 'horosvec') {
      const hv = await import('horosvec');
      const col = await hv.Collection.open(join(dir, 'col'), { dim: d, metric, durability });
      const vecs = (ids) => {
        const v = new Float32Array(ids.length * d);
        ids.forEach((id, j) => v.set(row(id), j * d));
        return v;
      };
      return {
        mode: 'durable-sqlite-wal',
        api: 'Collection.add / upsert / delete (Promise; ticketed, group commit)',
        concurrentModel: 'async',
        insert: (ids) => col.add(ids, vecs(ids)),
        update: (id) => col.upsert([id], row(id + 7)),
        remove: (id) => col.delete([id]),
        close: () => col.close(),
      };
    }
    const sync = { full: 'FULL', normal: 'NORMAL', off: 'OFF' }[durability];
    const db = e.openDb(join(dir, 'v.db'), d, metric, sync);
    const ins = db.prepare('insert into v(rowid, embedding) values (?, ?)');
    const del = db.prepare('delete from v where rowid = ?');
    const insMany = db.transaction((ids) => {
      for (const id of ids) ins.run(BigInt(id), row(id));
    });
    // vec0 updates: delete + insert in one transaction
    const upd = db.transaction((id) => {
      del.run(BigInt(id));
      ins.run(BigInt(id), row(id + 7));
    });
    return {
      mode: 'vec0-wal',
      api: 'better-sqlite3 statements (sync), one transaction per call',
      concurrentModel: null,
      noConcurrency: 'better-sqlite3 is synchronous: one connection runs one write at a time (no group commit)',
      insert: (ids) => insMany(ids),
      update: (id) => upd(id),
      remove: (id) => del.run(BigInt(id)),
      close: () => db.close(),
    };
  }
}

// ---- wasm versus native ------------------------------------------------------------------------

async function wasmVsNative() {
  const native = ENGINES.horosvec;
  const wasm = ENGINES['horosvec-wasm'];
  let infoN;
  let infoW;
  try {
    infoN = await native.load();
    infoW = await wasm.load();
  } catch (e) {
    skipped('wasm', wasm, `does not load: ${e.message}`);
    return;
  }
  const { data, gt } = prepare(job.dataset, job.n, job.nq, job.metric, job.k);
  const dir = mkdtempSync(join(tmpdir(), 'hv-wasm-'));
  try {
    const h = await native.build(data, job.metric, job.mode, job.params ?? {}, { dir });
    const file = await h.save(dir);
    const hn = await native.open({ file });
    const hw = await wasm.open({ file });
    const efs = job.mode === 'exact' ? [null] : job.efs;
    for (const [engine, info, hh] of [[native, infoN, hn], [wasm, infoW, hw]]) {
      for (const ef of efs) {
        const rec = await measureRecall(hh, data, gt, job.k, ef);
        const t = await timeLoop((i) => hh.search(data.views[i], job.k, ef), { nq: data.nq, seconds: job.seconds, warmup: job.warmup });
        log(`${engine.backend} ef ${ef}: recall ${rec.mean}, ${t.qps} QPS`);
        emit({ ...head('wasm', engine, info), storage: 'memory', storage_detail: 'in memory (the same snapshot loaded by both backends)', ...dataFields(data, job.metric, job.k), concurrency: 1, concurrency_model: 'sequential', threads: 1, params: { ...h.params, ...(ef === null ? {} : { ef }) }, build_s: null, insert_qps: null, recall_mean: rec.mean, recall_min: rec.min, ...t, bytes_per_vector: Number((statSync(file).size / data.n).toFixed(1)), rss_mb: rssMb(), ...common() });
      }
      await hh.close();
    }
    await h.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- filtered search ---------------------------------------------------------------------------

async function filtered() {
  const le = await loadEngine(['filtered']);
  if (le === null) return;
  const { engine, info } = le;
  const why = engine.unsupported(job.metric, job.mode) ?? engine.filters?.(job.mode) ?? (engine.filters ? null : 'no filtered search in the harness');
  if (why) return skipped('filtered', engine, why);
  if (!hasMetadata(job.dataset)) return skipped('filtered', engine, `dataset ${job.dataset} has no texts file to take the metadata from`);
  const data = loadDataset(job.dataset, { n: job.n, nq: job.nq });
  const views = Array.from({ length: data.nq }, (_, i) => data.queries.subarray(i * data.dim, (i + 1) * data.dim));
  const metadata = loadMetadata(job.dataset, data.n);
  const t0 = performance.now();
  const filters = filterSet().map((f) => {
    const { mask, count } = maskOf(metadata, f.where);
    const gt = filteredGroundTruth(data, job.metric, job.k, mask, count);
    return { ...f, mask, count, gt: gt.ids, test: (label) => mask[label] === 1 };
  });
  log(`filters and their ground truth: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const wasm = job.engine === 'horosvec-wasm';
  const dir = mkdtempSync(join(ensureDir(job.diskDir), `${job.engine}-filtered-`));
  try {
    log(`building over ${data.n} × ${data.dim} with metadata …`);
    let h;
    let build;
    if (wasm) {
      // the native build's snapshot, loaded by the wasm backend (the same index, as in `wasm`)
      const native = ENGINES.horosvec;
      await native.load();
      build = await native.build(data, job.metric, job.mode, job.params ?? {}, { dir, metadata });
      const file = await build.save(dir);
      await build.close();
      h = await engine.open({ file });
      h.mode = build.mode;
    } else {
      h = build = await engine.build(data, job.metric, job.mode, job.params ?? {}, { dir, metadata });
    }
    log(`built in ${build.build_s.toFixed(1)} s`);
    const storage = job.mode.startsWith('segmented') || job.engine === 'sqlite-vec' ? storageOf(dir)
      : { storage: 'memory', storage_detail: wasm ? 'in memory (a snapshot of the native build, loaded by the wasm backend)' : 'in memory' };
    // does this revision filter at all? A search that ignores `filter` returns rows outside it
    const probe = filters.filter((f) => f.where !== null && f.count > 0).sort((a, b) => a.count - b.count)[0];
    try {
      const ids = await h.searchFiltered(views[0], job.k, engine.efs(job.mode) ? job.efs.find((e) => e !== null) ?? null : null, probe);
      const outside = ids.filter((id) => !probe.mask[id]).length;
      if (outside > 0) {
        await h.close();
        return skipped('filtered', engine, `its search ignores the filter at this revision (${outside} of ${ids.length} hits outside ${JSON.stringify(probe.where)}): not measured`);
      }
    } catch (e) {
      await h.close();
      return skipped('filtered', engine, `its search refuses the filter at this revision: ${String(e.message ?? e).split('\n')[0]}`);
    }
    const efs = engine.efs(job.mode) ? job.efs : [null];
    for (const f of filters) {
      for (const ef of efs) {
        let errors = 0;
        let lastError = null;
        const failed = (e) => {
          errors++;
          lastError = String(e?.message ?? e).split('\n')[0];
          return [];
        };
        // a search that throws (e.g. fewer matches than k) counts as no hits, never as a crash
        const one = (i) => {
          try {
            const r = h.searchFiltered(views[i], job.k, ef, f);
            return r instanceof Promise ? r.catch(failed) : r;
          } catch (e) {
            return failed(e);
          }
        };
        const res = [];
        // the strategies the engine counts (horosvec: per segment search, in stats()), over the recall pass
        const before = h.strategyCounts?.() ?? null;
        for (let i = 0; i < data.nq; i++) res.push(await one(i));
        const after = h.strategyCounts?.() ?? null;
        const strategies = {};
        if (before && after) {
          for (const [key, x] of Object.entries(after)) if (isFinite(x) && x - (before[key] ?? 0) > 0) strategies[key] = x - (before[key] ?? 0);
        }
        const m = filteredMeasures(res, f.gt, job.k, f.mask, f.count);
        const recallErrors = errors;
        const t = await timeLoop(one, { nq: data.nq, seconds: job.seconds, warmup: job.warmup });
        // the strategy most segment searches took (a fallback counts beside the walk it redid)
        const top = Object.entries(strategies).filter(([key]) => key !== 'fallbacks').sort((a, b) => b[1] - a[1])[0];
        log(`${f.name} (${f.count} rows) ef ${ef ?? 'default'}: recall ${m.recall_mean}, hits ${m.hits_mean} (min ${m.hits_min}), ${t.qps} QPS${errors ? `, ${errors} errors` : ''}`);
        emit({
          ...head('filtered', engine, { ...info, kernel: wasm ? info.kernel : build.kernel ?? info.kernel, mode: h.mode ?? build.mode, api: h.filterApi }),
          ...storage,
          ...dataFields(data, job.metric, job.k),
          concurrency: 1,
          concurrency_model: 'sequential',
          threads: wasm ? 1 : build.threads,
          params: { ...build.params, ...(engine.efs(job.mode) ? { ef } : {}) },
          ef,
          ef_default: engine.efs(job.mode) && ef === null,
          filter: f.name,
          filter_kind: f.kind,
          filter_json: f.where === null ? null : JSON.stringify(f.where),
          matches: f.count,
          selectivity: Number((f.count / data.n).toFixed(6)),
          selectivity_target: f.target,
          strategy: top ? top[0] : null,
          strategies: Object.keys(strategies).length ? strategies : null,
          strategy_queries: Object.keys(strategies).length ? data.nq : null,
          ...m,
          errors: recallErrors,
          error_sample: lastError,
          ...t,
          build_s: r4(build.build_s),
          bytes_per_vector: build.bytesPerVector === null ? null : Number(build.bytesPerVector.toFixed(1)),
          rss_mb: rssMb(),
          ...common(),
        });
      }
    }
    await h.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// the browser sweep: a page in headless Chromium (bench/browser/job.mjs)
const browser = async () => (await import('./browser/job.mjs')).browserJob(job, { emit, log });

const kinds = { search, build: buildOnly, writes, wasm: wasmVsNative, filtered, browser, 'open-child': openChild };
try {
  if (!kinds[job.kind]) throw new Error(`unknown job kind ${job.kind}`);
  await kinds[job.kind]();
} catch (e) {
  // one line, and a failed record that says why (the orchestrator keeps it)
  const msg = String(e?.message ?? e).split('\n')[0];
  process.stderr.write(`[${job.kind} ${job.engine ?? ''} ${job.mode ?? ''}] failed: ${msg}${e?.code ? ` (${e.code})` : ''}\n`);
  if (job.kind !== 'open-child') {
    const engine = ENGINES[job.engine] ?? BROWSER_ENGINES[job.engine];
    emit({ sweep: job.as ?? (job.kind === 'search' ? 'search' : job.kind), status: 'failed', skip_reason: `${msg}${e?.code ? ` (${e.code})` : ''}`, engine: engine?.name ?? job.engine, backend: engine?.backend ?? null, mode: job.mode, dataset: job.dataset, ...common() });
  }
  process.exit(1);
}
process.exit(0);
