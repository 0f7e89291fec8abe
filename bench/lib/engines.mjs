// The engines of the benchmark matrix behind one interface. Each entry:
//
//   name, backend        the record's `engine` and `backend`
//   modes                the code paths it can be measured in (the record's `mode`)
//   load()               → { version, kernel } or throws (then every record of it is `skipped`)
//   unsupported(metric, mode) → a reason string, or null
//   build(data, metric, mode, params, ctx) → a handle:
//     search(q, k, ef)   → ids (number[]), or a Promise of them (orama)
//     searchAsync        (optional) the Promise form concurrent clients call, when `async`
//     async              true when concurrent clients can share the handle in one process
//     threads, kernel, bytesPerVector, params (the parameters actually used)
//     save(dir)          → a file a worker thread opens with open({ file, metric, mode, dim, params, ef })
//     close()
//   efs                  whether `ef` means anything (exact engines: no)
//   filters(mode)        null when the engine searches with a metadata filter, else why not; then
//                        build(…, { …ctx, metadata }) stores `metadata[i]` (`{ source, rank }`) with row i
//                        and the handle has searchFiltered(q, k, ef, f) → ids, `f` one filter of
//                        bench/lib/filters.mjs (`where` in horosvec's filter language, null for none;
//                        `test(row)` the harness's own membership test, for callback engines),
//                        `filterApi` (what the filter goes through) and optionally
//                        strategyCounts() (cumulative counts of the filter strategies the engine
//                        took, `{ name: count }`, or null)
//
// Vectors come in as `n × dim` row-major Float32Array; ids are the row numbers. `ctx.dir` is a
// scratch folder (the matrix always gives one). What bench/ef-sweep.mjs (one engine, one dataset)
// uses beyond the matrix, on horosvec and hnswlib only:
//   ctx.chunk            horosvec: rows per add call (default all in one); an add error names the
//                        row of `data.base` ("vector <row>"), not the row within the chunk
//   ctx.onProgress(stage, done, total)  progress of the build, stage 'add' or 'index'
//   ctx.dir              hnswlib: optional (without it the index is not saved; bytesPerVector null)
//   ctx.rowByRow         hnswlib: rows converted to number[] one at a time inside the timed build
//                        (no converted copy of the base held: the RSS growth is the index's)
//   handle.searchHits(q, k, ef)   → `{ id, distance }[]`, distances in horosvec's convention
//                                   (lower is closer; ip: −q·x), for the tie-tolerant recall
//   handle.searchBatch(queries, k, ef) → Promise of one hit list per query (horosvec only)
//   handle.add_s, index_s, stats  horosvec: add and buildIndex seconds, the collection's stats()
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BROWSER_ENGINES } from '../browser/engines.mjs';
import { cpus } from 'node:os';
import { statSync, readdirSync, writeFileSync, readFileSync, existsSync, mkdirSync } from 'node:fs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkgVersion = (name) => JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
const ids = (n, at = 0) => Array.from({ length: n }, (_, i) => at + i);
const fileSize = (p) => statSync(p).size;
const dirSize = (d, keep = () => true) => readdirSync(d).filter(keep).reduce((s, f) => s + statSync(join(d, f)).size, 0);

// ---- horosvec (native and wasm) ----------------------------------------------------------------

const VAMANA = { R: 32, L: 64, alpha: 1.1, passes: 1, seed: 42 };
// the high-recall setting of README.md ("High recall") and IndexOptions.R: recall 0.998 at ef 256 on minilm384 100k
const HIGH_RECALL = { R: 48, L: 128 };

/** An add error about "vector i" of a chunk starting at row `at`, renumbered to row at + i. */
function rowError(e, at) {
  const m = /^(HV_[A-Z_]+): vector (\d+) (.*)$/s.exec(e?.message ?? '');
  if (m === null) return e;
  const r = new Error(`${m[1]}: vector ${at + Number(m[2])} ${m[3]}`);
  r.code = e.code ?? m[1];
  return r;
}

function horosvec(backend) {
  let hv = null;
  return {
    name: 'horosvec',
    backend,
    // `-f16` modes: the same index over `vectors: 'f16'` rows (half-precision storage and rerank)
    // `-hr`: the README's high-recall setting (R 48, L 128) of the same mode
    modes: backend === 'native' ? ['exact', 'vamana', 'vamana-rabitq1', 'vamana-rabitq1-hr', 'vamana-rabitq1-f16', 'vamana-rabitq4', 'vamana-rabitq4-f16', 'vamana-exact', 'segmented-vamana-rabitq1'] : ['exact', 'vamana', 'vamana-rabitq1', 'vamana-rabitq1-f16'],
    async load() {
      hv = backend === 'native' ? await import('horosvec') : await import('horosvec/wasm');
      // `backend`: the one loaded (HOROSVEC_FORCE_WASM=1 makes 'horosvec' the wasm build)
      return { version: hv.version, kernel: hv.kernel, backend: hv.backend };
    },
    unsupported: () => null,
    filters: () => null,
    // the fastest public path (bench/snapshot-load.mjs measures fromBytes and fromFile side by side)
    openMethod: 'Collection.fromFile: reads the snapshot file once into an aligned buffer (wasm: into wasm memory); its segment images are used in place',
    api: backend === 'native' ? 'searchSync; clients: search (Promise)' : 'searchSync',
    efs: (mode) => mode !== 'exact',
    async build(data, metric, fullMode, params, ctx) {
      // a variant's suffix (`-f16`, `-hr`) on top of the mode it varies
      const suffix = ['-f16', '-hr'].find((x) => fullMode.endsWith(x)) ?? '';
      const mode = fullMode.slice(0, fullMode.length - suffix.length);
      const f16 = suffix === '-f16';
      const hr = suffix === '-hr';
      // vamana: the code width horosvec picks by dimension (the record carries the resolved mode);
      // vamana-exact: the graph walked with exact distances (l1, which RaBitQ does not serve)
      const bits = { 'vamana-rabitq1': 1, 'vamana-rabitq4': 4, 'segmented-vamana-rabitq1': 1 }[mode];
      const p = mode === 'exact' ? {} : { ...VAMANA, ...(bits ? { bits } : {}), ...(hr ? HIGH_RECALL : {}), ...params };
      const t0 = performance.now();
      let t1 = null;
      let col;
      if (mode === 'segmented-vamana-rabitq1') {
        col = await hv.Collection.open(ctx.dir, { dim: data.dim, metric, maxMutableRecords: 10_000_000, durability: 'normal' });
        for (let at = 0; at < data.n; at += 50_000) {
          const m = Math.min(50_000, data.n - at);
          await col.add(ids(m, at), data.base.subarray(at * data.dim, (at + m) * data.dim), ctx.metadata?.slice(at, at + m));
        }
        await col.seal();
      } else {
        col = hv.Collection.create({ dim: data.dim, metric, ...(f16 ? { vectors: 'f16' } : {}) });
        const chunk = ctx.chunk ?? data.n;
        for (let at = 0; at < data.n; at += chunk) {
          const m = Math.min(chunk, data.n - at);
          const meta = ctx.metadata === undefined ? undefined : chunk >= data.n ? ctx.metadata : ctx.metadata.slice(at, at + m);
          await col.add(ids(m, at), chunk >= data.n ? data.base : data.base.subarray(at * data.dim, (at + m) * data.dim), meta).catch((e) => {
            throw at === 0 ? e : rowError(e, at);
          });
          ctx.onProgress?.('add', at + m, data.n);
        }
        t1 = performance.now();
        const onProgress = ctx.onProgress ? { onProgress: (done, total) => ctx.onProgress('index', done, total) } : {};
        if (mode !== 'exact') await col.buildIndex({ R: p.R, L: p.L, alpha: p.alpha, passes: p.passes, bits: p.bits, seed: p.seed, ...onProgress });
      }
      const t2 = performance.now();
      const build_s = (t2 - t0) / 1000;
      const s = col.stats();
      const expect = mode === 'exact' ? 'exact' : mode.replace('segmented-', '');
      if (!s.mode.endsWith(expect) && !(mode === 'vamana' && s.mode.startsWith('vamana-'))) throw new Error(`asked for mode ${mode}, the collection reports ${s.mode}`);
      const exact = mode === 'exact';
      const native = backend === 'native';
      return {
        build_s,
        params: mode === 'vamana' ? { ...p, bits: 'auto' } : p,
        threads: s.threads,
        kernel: s.kernel,
        mode: `${s.mode}${suffix}`,
        // on disk: the segment files and the database (its WAL left out: checkpointed at close);
        // in memory: the rows plus what the walk reads (codes, factors, adjacency)
        bytesPerVector: mode === 'segmented-vamana-rabitq1' ? dirSize(ctx.dir, (f) => !/-(wal|shm)$/.test(f)) / data.n : s.vectorBytes / data.n + s.indexBytesPerVector,
        // one client: searchSync, on the caller's thread like the competitors' calls; concurrent
        // clients (native): the Promise search, which runs on worker threads
        async: native,
        api: native ? 'searchSync; clients: search (Promise)' : 'searchSync',
        search: (q, k, ef) => col.searchSync(q, exact ? { k, exact: true } : { k, ef }).map((x) => x.id),
        searchAsync: native ? (q, k, ef) => col.search(q, exact ? { k, exact: true } : { k, ef }).then((h) => h.map((x) => x.id)) : undefined,
        // where the Promise searches ran so far (`stats().searches`: inline, deferred, pool)
        searchPlacement: native ? () => col.stats().searches : undefined,
        searchHits: (q, k, ef) => col.searchSync(q, exact ? { k, exact: true, includeMetadata: false } : { k, ef, includeMetadata: false }),
        searchBatch: (qs, k, ef) => col.searchBatch(qs, exact ? { k, exact: true, includeMetadata: false } : { k, ef, includeMetadata: false }),
        ...filteredHandle(col, exact),
        add_s: t1 === null ? null : (t1 - t0) / 1000,
        index_s: t1 === null || exact ? null : (t2 - t1) / 1000,
        stats: s,
        async save(dir) {
          const f = join(dir, 'horosvec.snapshot');
          writeFileSync(f, await col.toBytes());
          return f;
        },
        close: () => col.close(),
      };
    },
    async open({ file }) {
      const col = await hv.Collection.fromFile(file);
      const exact = col.stats().mode === 'exact';
      return { async: false, search: (q, k, ef) => col.searchSync(q, exact ? { k, exact: true } : { k, ef }).map((x) => x.id), ...filteredHandle(col, exact), close: () => col.close() };
    },
  };
}

/**
 * horosvec's filtered search (searchSync with `filter`; `ef` null: the default, left out; no
 * metadata parsed into the hits, as the competitors return ids only) and the strategy its
 * stats() reports for the last search, when it reports one.
 */
function filteredHandle(col, exact) {
  const opts = (k, ef, f) => ({ k, includeMetadata: false, ...(exact ? { exact: true } : ef === null || ef === undefined ? {} : { ef }), ...(f.where === null ? {} : { filter: f.where }) });
  return {
    filterApi: 'searchSync(q, { k, ef, filter, includeMetadata: false })',
    searchFiltered: (q, k, ef, f) => col.searchSync(q, opts(k, ef, f)).map((x) => x.id),
    // how many segment searches took each filter strategy since the collection was made or
    // opened, when stats() reports it (the worker takes the change over a recall pass)
    strategyCounts() {
      const s = col.stats();
      const c = s.filtered ?? s.filterCounts ?? s.filterStrategies ?? s.filterSearches ?? null;
      return c !== null && typeof c === 'object' ? { ...c } : null;
    },
  };
}

// ---- hnswlib-node --------------------------------------------------------------------------------

const HNSW_SPACE = { l2: 'l2', cosine: 'cosine', ip: 'ip' };

const hnswlib = {
  name: 'hnswlib',
  backend: 'native',
  modes: ['hnsw'],
  lib: null,
  async load() {
    this.lib = (await import('hnswlib-node')).default;
    return { version: pkgVersion('hnswlib-node'), kernel: 'hnswlib-simd (node-gyp default flags: SSE)' };
  },
  unsupported: (metric) => (HNSW_SPACE[metric] ? null : `hnswlib has no ${metric} space`),
  filters: () => null,
  openMethod: 'readIndexSync: reads the whole index file',
  api: 'searchKnn (sync)',
  efs: () => true,
  async build(data, metric, _mode, params, ctx) {
    const p = { M: 16, efConstruction: 200, seed: 42, ...params };
    // hnswlib-node takes number[] only: converted before the clock starts; with ctx.rowByRow
    // (bench/ef-sweep.mjs, which measures the build's RSS growth) each row is copied into one
    // reused number[] just before its addPoint instead, inside the clock, so that no converted
    // copy of the base is held
    const { dim, base } = data;
    const rows = ctx.rowByRow ? null : Array.from({ length: data.n }, (_, i) => Array.from(base.subarray(i * dim, (i + 1) * dim)));
    const row = rows === null ? new Array(dim).fill(0) : null;
    const t0 = performance.now();
    const index = new this.lib.HierarchicalNSW(HNSW_SPACE[metric], dim);
    index.initIndex(data.n, p.M, p.efConstruction, p.seed);
    const { onProgress } = ctx;
    for (let i = 0; i < data.n; i++) {
      if (rows !== null) index.addPoint(rows[i], i);
      else {
        for (let j = 0, o = i * dim; j < dim; j++) row[j] = base[o + j];
        index.addPoint(row, i);
      }
      if (onProgress && ((i & 1023) === 1023 || i === data.n - 1)) onProgress('add', i + 1, data.n);
    }
    const build_s = (performance.now() - t0) / 1000;
    const h = hnswHandle(index, { build_s, params: p, threads: 1, bytesPerVector: null }, metric);
    if (ctx.dir) h.file = h.save(ctx.dir);
    return h;
  },
  /**
   * hnswlib's memory per element from its layout (hnswalg.h), bytes: level-0 block (vector, 2M
   * links and their count, 8-byte label), upper-level links (M links + count on an expected
   * 1/(M−1) levels), the linkLists_ pointer, element_levels_ entry, one std::mutex (40 bytes on
   * Linux x86-64) and one label_lookup_ hash node with its bucket (≈ 32 bytes). Fixed-size parts
   * (65,536 label locks, visited lists) are left out. `{ total, parts }`.
   */
  layoutBytesPerVector(dim, M) {
    const r2 = (x) => Math.round(x * 100) / 100;
    const parts = { vector: dim * 4, level0_links: 2 * M * 4 + 4, label: 8, upper_links: r2((M * 4 + 4) / (M - 1)), link_list_pointer: 8, element_level: 4, mutex: 40, label_map: 32 };
    return { total: r2(Object.values(parts).reduce((s, x) => s + x, 0)), parts };
  },
  async open({ file, metric, dim }) {
    const index = new this.lib.HierarchicalNSW(HNSW_SPACE[metric], dim);
    index.readIndexSync(file);
    return hnswHandle(index, {}, metric);
  },
};

/** hnswlib-node takes number[] only: each query vector is converted once (the first call, the untimed recall pass) and reused. */
const asArray = new WeakMap();

function hnswHandle(index, extra, metric) {
  let curEf = -1;
  // hnswlib's ip distance is 1 − q·x, horosvec's −q·x
  const shift = metric === 'ip' ? -1 : 0;
  const knn = (q, k, ef) => {
    if (ef !== curEf) index.setEf((curEf = ef));
    let a = asArray.get(q);
    if (a === undefined) asArray.set(q, (a = Array.from(q)));
    return index.searchKnn(a, k);
  };
  return {
    ...extra,
    async: false,
    search: (q, k, ef) => knn(q, k, ef).neighbors,
    // hnswlib keeps no metadata: the caller's predicate on the label, called by the walk for each
    // candidate (here the harness's membership test over a precomputed mask, the cheapest a
    // caller can give it); without a filter, the plain search
    filterApi: 'searchKnn(query, k, filterFn): a JS callback per candidate label (a precomputed Uint8Array membership test)',
    searchFiltered(q, k, ef, f) {
      if (f.where === null) return knn(q, k, ef).neighbors;
      if (ef !== curEf) index.setEf((curEf = ef));
      let a = asArray.get(q);
      if (a === undefined) asArray.set(q, (a = Array.from(q)));
      return index.searchKnn(a, k, f.test).neighbors;
    },
    searchHits(q, k, ef) {
      const r = knn(q, k, ef);
      return r.neighbors.map((id, j) => ({ id, distance: r.distances[j] + shift }));
    },
    save(dir) {
      if (this.file) return this.file;
      const f = join(dir, 'hnswlib.bin');
      index.writeIndexSync(f);
      // the saved index: rows, level-0 links, labels and upper levels (hnswlib's own layout)
      this.bytesPerVector = fileSize(f) / index.getCurrentCount();
      return f;
    },
    close() {},
  };
}

// ---- usearch -------------------------------------------------------------------------------------

const USEARCH_METRIC = { l2: 'l2sq', cosine: 'cos', ip: 'ip' };

/** An empty usearch index (f32) with build parameters `p` and search list size `ef`. */
function usearchIndex(lib, dim, metric, p, ef) {
  return new lib.Index({ dimensions: dim, metric: USEARCH_METRIC[metric], quantization: 'f32', connectivity: p.connectivity, expansion_add: p.expansion_add, expansion_search: ef });
}

const usearch = {
  name: 'usearch',
  backend: 'native',
  modes: ['hnsw'],
  lib: null,
  async load() {
    this.lib = (await import('usearch')).default;
    return { version: pkgVersion('usearch'), kernel: 'usearch prebuilt (SimSIMD/NumKong dispatch)' };
  },
  unsupported: (metric) => (USEARCH_METRIC[metric] ? null : `usearch's JS binding has no ${metric} metric`),
  filters: () => 'usearch\'s JS binding has no filtered search (the C++ predicate is not exposed: unum-cloud/USearch#348)',
  openMethod: 'Index.load: reads the whole index file',
  api: 'Index.search (sync, 1 thread)',
  efs: () => true,
  async build(data, metric, _mode, params, ctx) {
    const p = { connectivity: 16, expansion_add: 128, ...params };
    // the build's threads: RAYON_NUM_THREADS when set (as for horosvec), else usearch's default (all cores)
    const threads = Number(process.env.RAYON_NUM_THREADS ?? 0) || 0;
    const t0 = performance.now();
    const index = usearchIndex(this.lib, data.dim, metric, p, 64);
    const keys = new BigUint64Array(data.n);
    for (let i = 0; i < data.n; i++) keys[i] = BigInt(i);
    index.add(keys, data.base, threads);
    const build_s = (performance.now() - t0) / 1000;
    // expansion_search is fixed when an index is made: one index per ef, loaded from the saved file
    const file = join(ctx.dir, 'usearch.bin');
    index.save(file);
    const self = this;
    const byEf = new Map();
    const at = (ef) => {
      let ix = byEf.get(ef);
      if (ix === undefined) {
        ix = usearchIndex(self.lib, data.dim, metric, p, ef);
        ix.load(file);
        byEf.clear();
        byEf.set(ef, ix);
      }
      return ix;
    };
    return {
      build_s,
      params: p,
      threads: threads || cpus().length,
      bytesPerVector: fileSize(file) / data.n,
      async: false,
      search: (q, k, ef) => Array.from(at(ef).search(q, k, 1).keys, Number),
      save: () => file,
      close() {},
    };
  },
  async open({ file, metric, dim, params, ef }) {
    const ix = usearchIndex(this.lib, dim, metric, params, ef);
    ix.load(file);
    return { async: false, search: (q, k) => Array.from(ix.search(q, k, 1).keys, Number), close() {} };
  },
};

// ---- sqlite-vec (better-sqlite3): the exact-scan recall control and the durable competitor -------

const VEC0_METRIC = { l2: 'l2', cosine: 'cosine', l1: 'l1' };

const sqliteVec = {
  name: 'sqlite-vec',
  backend: 'native',
  modes: ['vec0-scan'],
  lib: null,
  async load() {
    const Database = (await import('better-sqlite3')).default;
    const vec = await import('sqlite-vec');
    this.lib = { Database, vec };
    const db = new Database(':memory:');
    vec.load(db);
    const v = db.prepare('select vec_version() v, sqlite_version() s').get();
    db.close();
    return { version: `sqlite-vec ${pkgVersion('sqlite-vec')} (${v.v}), better-sqlite3 ${pkgVersion('better-sqlite3')}, SQLite ${v.s}`, kernel: 'sqlite-vec scalar/auto-vectorised C' };
  },
  unsupported: (metric) => (VEC0_METRIC[metric] ? null : `vec0 has no ${metric} distance (l2, cosine, l1)`),
  filters: () => null,
  openMethod: 'opens the SQLite database (rows read by the first scan)',
  api: 'prepared statement (sync)',
  efs: () => false,
  /**
   * A database at `file` with table v (rowid, embedding, and with `meta` the metadata columns
   * source text, rank integer); `sync` the PRAGMA synchronous level.
   */
  openDb(file, dim, metric, sync = 'NORMAL', meta = false) {
    const db = new this.lib.Database(file);
    this.lib.vec.load(db);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${sync}`);
    db.exec(`create virtual table if not exists v using vec0(embedding float[${dim}] distance_metric=${VEC0_METRIC[metric]}${meta ? ', source text, rank integer' : ''})`);
    return db;
  },
  async build(data, metric, _mode, _params, ctx) {
    const file = join(ctx.dir, 'sqlite-vec.db');
    const t0 = performance.now();
    const meta = ctx.metadata;
    const db = this.openDb(file, data.dim, metric, 'NORMAL', meta !== undefined);
    const ins = db.prepare(meta ? 'insert into v(rowid, embedding, source, rank) values (?, ?, ?, ?)' : 'insert into v(rowid, embedding) values (?, ?)');
    const tx = db.transaction((a, b) => {
      for (let i = a; i < b; i++) {
        const v = data.base.subarray(i * data.dim, (i + 1) * data.dim);
        if (meta) ins.run(BigInt(i), v, meta[i].source, BigInt(meta[i].rank));
        else ins.run(BigInt(i), v);
      }
    });
    for (let at = 0; at < data.n; at += 10_000) tx(at, Math.min(data.n, at + 10_000));
    db.pragma('wal_checkpoint(TRUNCATE)');
    const build_s = (performance.now() - t0) / 1000;
    return { build_s, params: {}, threads: 1, bytesPerVector: fileSize(file) / data.n, ...this.handle(db), save: () => file };
  },
  handle(db) {
    const q = db.prepare('select rowid from v where embedding match ? and k = ? order by distance');
    // one prepared statement per filter: the filter's fields as constraints on the metadata
    // columns, which vec0 applies during its KNN scan
    const byFilter = new Map();
    const statement = (where) => {
      let st = byFilter.get(where);
      if (st === undefined) {
        const { sql, args } = vec0Where(where);
        st = { q: db.prepare(`select rowid from v where embedding match ? and k = ?${sql} order by distance`), args };
        byFilter.set(where, st);
      }
      return st;
    };
    return {
      async: false,
      search: (v, k) => q.all(v, k).map((r) => Number(r.rowid)),
      filterApi: 'vec0 KNN (match, k = ?) with the filter as constraints on metadata columns (prepared statement)',
      searchFiltered(v, k, _ef, f) {
        if (f.where === null) return q.all(v, k).map((r) => Number(r.rowid));
        const st = statement(f.where);
        return st.q.all(v, k, ...st.args).map((r) => Number(r.rowid));
      },
      close: () => db.close(),
    };
  },
  async open({ file }) {
    const db = new this.lib.Database(file, { readonly: true });
    this.lib.vec.load(db);
    return this.handle(db);
  },
};

const SQL_OPS = { $gte: '>=', $gt: '>', $lt: '<', $lte: '<=' };

/** A filter of the sweep (implicit $eq, numeric comparisons) as ` and …` SQL with its arguments (integers as BigInt). */
function vec0Where(where) {
  const parts = [];
  const args = [];
  const arg = (x) => (Number.isInteger(x) ? BigInt(x) : x);
  for (const [field, cond] of Object.entries(where)) {
    if (!/^[a-z_]+$/.test(field)) throw new Error(`no vec0 column for filter field ${field}`);
    if (cond === null || typeof cond !== 'object') {
      parts.push(`${field} = ?`);
      args.push(arg(cond));
      continue;
    }
    for (const [op, x] of Object.entries(cond)) {
      if (!SQL_OPS[op]) throw new Error(`no SQL for filter operator ${op}`);
      parts.push(`${field} ${SQL_OPS[op]} ?`);
      args.push(arg(x));
    }
  }
  return { sql: parts.map((p) => ` and ${p}`).join(''), args };
}

/**
 * A filter of the sweep as an orama `where` (one operation per property: an integer range
 * [a, b) is `between: [a, b − 1]`, inclusive; implicit $eq on an enum is `eq`).
 */
function oramaWhere(where) {
  const out = {};
  for (const [field, cond] of Object.entries(where)) {
    if (cond === null || typeof cond !== 'object') {
      out[field] = { eq: cond };
      continue;
    }
    const { $gte, $lt, ...rest } = cond;
    if (Object.keys(rest).length) throw new Error(`no orama filter for ${Object.keys(rest).join(', ')}`);
    if ($gte !== undefined && $lt !== undefined) {
      if (!Number.isInteger($gte) || !Number.isInteger($lt)) throw new Error('orama ranges here are integer ranges');
      out[field] = { between: [$gte, $lt - 1] };
    } else if ($gte !== undefined) out[field] = { gte: $gte };
    else out[field] = { lt: $lt };
  }
  return out;
}

// ---- @orama/orama: a pure-JS brute-force vector search ---------------------------------------------

const orama = {
  name: 'orama',
  backend: 'js',
  modes: ['brute-force'],
  lib: null,
  async load() {
    this.lib = await import('@orama/orama');
    return { version: pkgVersion('@orama/orama'), kernel: 'JavaScript (V8)' };
  },
  unsupported: (metric) => (metric === 'cosine' ? null : `orama's vector search is cosine similarity only`),
  filters: () => null,
  api: 'search (Promise, runs on the calling thread)',
  efs: () => false,
  async build(data, _metric, _mode, _params, ctx = {}) {
    const { create, insertMultiple, search } = this.lib;
    const meta = ctx.metadata;
    const t0 = performance.now();
    const db = create({ schema: { row: 'number', e: `vector[${data.dim}]`, ...(meta ? { source: 'enum', rank: 'number' } : {}) } });
    for (let at = 0; at < data.n; at += 5_000) {
      const docs = [];
      for (let i = at; i < Math.min(data.n, at + 5_000); i++) docs.push({ id: String(i), row: i, e: Array.from(data.base.subarray(i * data.dim, (i + 1) * data.dim)), ...(meta ? meta[i] : {}) });
      await insertMultiple(db, docs, 5_000);
    }
    const build_s = (performance.now() - t0) / 1000;
    const wheres = new Map();
    const whereOf = (w) => {
      let x = wheres.get(w);
      if (x === undefined) wheres.set(w, (x = oramaWhere(w)));
      return x;
    };
    return {
      filterApi: 'search({ mode: vector, where }): the where clause pre-filters the documents scanned',
      searchFiltered: async (q, k, _ef, f) => (await search(db, { mode: 'vector', vector: { value: Array.from(q), property: 'e' }, similarity: -1, limit: k, includeVectors: false, ...(f.where === null ? {} : { where: whereOf(f.where) }) })).hits.map((h) => Number(h.id)),
      build_s,
      params: {},
      threads: 1,
      bytesPerVector: null,
      // async in name only: the scan runs on the caller's thread
      async: true,
      search: async (q, k) => (await search(db, { mode: 'vector', vector: { value: Array.from(q), property: 'e' }, similarity: -1, limit: k, includeVectors: false })).hits.map((h) => Number(h.id)),
      save: null,
      close() {},
    };
  },
};

// ---- on-disk folders -----------------------------------------------------------------------------

/** Bytes of every file under `d` (recursively). */
export function treeSize(d) {
  let s = 0;
  for (const e of readdirSync(d, { withFileTypes: true })) {
    const p = join(d, e.name);
    s += e.isDirectory() ? treeSize(p) : statSync(p).size;
  }
  return s;
}

/** The knob values of a search point as record params: a number is `ef`, an object its own fields, null none. */
export const knobParams = (p) => (p === null || p === undefined ? {} : typeof p === 'object' ? { ...p } : { ef: p });

// ---- @zvec/zvec: Alibaba's in-process vector database (HNSW, HNSW + int8 codes, HNSW-RaBitQ) -------

const ZVEC_MODES = {
  // zvec's defaults (m 50, efConstruction 500), f32 vectors walked as they are
  hnsw: { index: 'HNSW', quantize: null, refiner: false },
  // the same graph over int8 codes, the top candidates re-scored on the f32 vectors (isUsingRefiner)
  'hnsw-int8-refine': { index: 'HNSW', quantize: 'INT8', refiner: true },
  // HNSW over RaBitQ codes (its defaults: totalBits 7, numClusters 16)
  'hnsw-rabitq': { index: 'HNSW_RABITQ', quantize: null, refiner: false },
};
const ZVEC_METRIC = { l2: 'L2', cosine: 'COSINE', ip: 'IP' };

const zvec = {
  name: 'zvec',
  backend: 'native',
  modes: Object.keys(ZVEC_MODES),
  lib: null,
  async load() {
    this.lib = await import('@zvec/zvec');
    return { version: `${pkgVersion('@zvec/zvec')} (@zvec/bindings-linux-x64 ${pkgVersion('@zvec/bindings-linux-x64')})`, kernel: 'zvec prebuilt binding (its own SIMD dispatch)' };
  },
  unsupported: (metric) => (ZVEC_METRIC[metric] ? null : `zvec has no ${metric} metric (l2, ip, cosine)`),
  filters: () => 'not measured in the filtered sweep yet (zvec filters by a string expression on scalar fields)',
  openMethod: 'ZVecOpen readOnly: opens the collection folder (memory-mapped segments)',
  api: 'querySync; clients: query (Promise)',
  efs: () => true,
  indexParams(metric, mode, p) {
    const z = this.lib;
    const m = ZVEC_MODES[mode];
    return {
      indexType: z.ZVecIndexType[m.index],
      metricType: z.ZVecMetricType[ZVEC_METRIC[metric]],
      m: p.m,
      efConstruction: p.efConstruction,
      ...(m.quantize ? { quantizeType: z.ZVecQuantizeType[m.quantize] } : {}),
    };
  },
  handle(col, mode) {
    const z = this.lib;
    const m = ZVEC_MODES[mode];
    const indexType = z.ZVecIndexType[m.index];
    const query = (q, k, ef) => ({ fieldName: 'embedding', vector: q, topk: k, outputFields: [], params: { indexType, ef: Math.max(k, ef), ...(m.refiner ? { isUsingRefiner: true } : {}) } });
    return {
      async: true,
      search: (q, k, ef) => col.querySync(query(q, k, ef)).map((d) => Number(d.id)),
      searchAsync: (q, k, ef) => col.query(query(q, k, ef)).then((r) => r.map((d) => Number(d.id))),
      close: () => col.closeSync(),
    };
  },
  async build(data, metric, mode, params, ctx) {
    const z = this.lib;
    const p = { m: 50, efConstruction: 500, ...params };
    const threads = Number(process.env.RAYON_NUM_THREADS ?? 0) || 0;
    const path = join(ctx.dir, 'zvec');
    const t0 = performance.now();
    const schema = new z.ZVecCollectionSchema({ name: 'bench', vectors: { name: 'embedding', dataType: z.ZVecDataType.VECTOR_FP32, dimension: data.dim, indexParams: this.indexParams(metric, mode, p) } });
    const col = z.ZVecCreateAndOpen(path, schema);
    for (let at = 0; at < data.n; at += 1000) {
      const docs = [];
      for (let i = at; i < Math.min(data.n, at + 1000); i++) docs.push({ id: String(i), vectors: { embedding: data.base.subarray(i * data.dim, (i + 1) * data.dim) } });
      const bad = col.insertSync(docs).find((s) => !s.ok);
      if (bad) throw new Error(`zvec insert: ${bad.code} ${bad.message}`);
    }
    // the index is built by optimize (inserts land in a growing segment first)
    col.optimizeSync({ concurrency: threads });
    const build_s = (performance.now() - t0) / 1000;
    const done = col.stats.indexCompleteness.embedding;
    if (done !== 1) throw new Error(`zvec index completeness ${done} after optimize`);
    const m = ZVEC_MODES[mode];
    return {
      ...this.handle(col, mode),
      build_s,
      params: { ...p, index: m.index, quantize: m.quantize ?? 'none', refiner: m.refiner, ...(m.index === 'HNSW_RABITQ' ? { totalBits: 7, numClusters: 16 } : {}) },
      threads: threads || cpus().length,
      storageDir: path,
      // the collection folder: vectors, graph, codes and its WAL
      bytesPerVector: treeSize(path) / data.n,
      save: () => path,
    };
  },
  async open({ file, mode }) {
    return this.handle(this.lib.ZVecOpen(file, { readOnly: true }), mode);
  },
};

// ---- @lancedb/lancedb: LanceDB on disk (IVF_PQ, IVF_RQ; nprobes × refine_factor) -------------------

const LANCE_METRIC = { l2: 'l2', cosine: 'cosine', ip: 'dot' };

const lancedb = {
  name: 'lancedb',
  backend: 'native',
  modes: ['ivf-pq', 'ivf-rq'],
  lib: null,
  async load() {
    this.lib = await import('@lancedb/lancedb');
    return { version: `${pkgVersion('@lancedb/lancedb')} (@lancedb/lancedb-linux-x64-gnu ${pkgVersion('@lancedb/lancedb-linux-x64-gnu')})`, kernel: 'lance prebuilt (Rust; its own SIMD dispatch)' };
  },
  unsupported: (metric) => (LANCE_METRIC[metric] ? null : `LanceDB has no ${metric} distance (l2, cosine, dot)`),
  filters: () => 'not measured in the filtered sweep yet (LanceDB filters by an SQL where clause)',
  openMethod: 'connect + openTable: opens the dataset folder (index read by the first query)',
  api: 'vectorSearch(q).nprobes().refineFactor().limit().toArray() (Promise)',
  efs: () => true,
  /** The search points: nprobes × refine_factor (null: no refine step), cheapest first. */
  points(_mode, job) {
    const np = job.quick ? [10, 40] : [5, 10, 20, 40, 80];
    const rf = job.quick ? [null, 10] : [null, 5, 10, 20, 50];
    return np.flatMap((nprobes) => rf.map((refine_factor) => ({ nprobes, refine_factor })));
  },
  openPoint: () => ({ nprobes: 20, refine_factor: 10 }),
  handle(tbl, metric) {
    const dt = LANCE_METRIC[metric];
    const one = (q, k, p) => {
      let v = tbl.vectorSearch(q).distanceType(dt).nprobes(p.nprobes);
      if (p.refine_factor !== null) v = v.refineFactor(p.refine_factor);
      return v.limit(k).select(['id', '_distance']).toArray().then((rs) => rs.map((r) => Number(r.id)));
    };
    return { async: true, search: one, close: () => tbl.close() };
  },
  async build(data, metric, mode, params, ctx) {
    const L = this.lib;
    const path = join(ctx.dir, 'lancedb');
    const nparts = Math.max(1, Math.round(Math.sqrt(data.n)));
    const p = mode === 'ivf-pq'
      ? { numPartitions: nparts, numSubVectors: data.dim % 16 === 0 ? data.dim / 16 : data.dim / 8, numBits: 8, ...params }
      : { numPartitions: nparts, numBits: 1, ...params };
    const t0 = performance.now();
    const db = await L.connect(path);
    let tbl = null;
    for (let at = 0; at < data.n; at += 10_000) {
      const rows = [];
      for (let i = at; i < Math.min(data.n, at + 10_000); i++) rows.push({ id: i, vector: Array.from(data.base.subarray(i * data.dim, (i + 1) * data.dim)) });
      if (tbl === null) tbl = await db.createTable('v', rows);
      else await tbl.add(rows);
    }
    const config = mode === 'ivf-pq' ? L.Index.ivfPq({ ...p, distanceType: LANCE_METRIC[metric] }) : L.Index.ivfRq({ ...p, distanceType: LANCE_METRIC[metric] });
    await tbl.createIndex('vector', { config });
    const build_s = (performance.now() - t0) / 1000;
    const st = await tbl.indexStats('vector_idx');
    if (!st || st.numUnindexedRows !== 0) throw new Error(`lancedb index left rows unindexed: ${JSON.stringify(st)}`);
    return {
      ...this.handle(tbl, metric),
      build_s,
      params: { index: mode === 'ivf-pq' ? 'IVF_PQ' : 'IVF_RQ', ...p },
      threads: cpus().length,
      storageDir: path,
      // the dataset folder: the rows (f32, Lance format), the index and the manifests
      bytesPerVector: treeSize(path) / data.n,
      save: () => path,
    };
  },
  async open({ file, metric }) {
    const db = await this.lib.connect(file);
    return this.handle(await db.openTable('v'), metric);
  },
};

// ---- faiss-node: not installable here ----------------------------------------------------------------

const faiss = {
  name: 'faiss',
  backend: 'native',
  modes: ['hnsw', 'ivf-flat'],
  async load() {
    try {
      await import('faiss-node');
    } catch {
      // faiss-node 0.5.1's install step (prebuild-install) downloads its binary from GitHub
      // releases, or else clones faiss from GitHub and compiles it: neither host is reachable
      // here, so npm cannot install it and it is not a devDependency
      throw new Error('faiss-node 0.5.1 cannot be installed here: its install script downloads a prebuilt binary from GitHub releases (or clones and compiles faiss), and GitHub is not reachable from this machine');
    }
    throw new Error('faiss-node loaded, but the harness has no faiss build yet (it never installed on the machine this was written on)');
  },
  unsupported: () => null,
  filters: () => 'faiss-node is not installed',
  efs: () => true,
};

// ---- the browser sweep's wasm engines, run under Node -----------------------------------------------

/**
 * How each of bench/browser/engines.mjs's wasm engines loads under Node (the page's loaders fetch
 * their .wasm by URL): `{ kernel }` after instantiating it from the package's file, or a throw
 * saying why it does not run here.
 */
const NODE_WASM_LOADERS = {
  async 'hnswlib-wasm'(b) {
    try {
      await b.load();
    } catch (e) {
      throw new Error(`hnswlib-wasm 0.8.2 is built for the web only (Emscripten ENVIRONMENT=web): under Node its loader throws "${String(e.message ?? e).split('\n')[0]}"`);
    }
    return { kernel: 'hnswlib scalar C++ (Emscripten -O3, no simd128)' };
  },
  async edgevec(b) {
    const lib = await import('edgevec');
    await lib.default({ module_or_path: readFileSync(join(ROOT, 'node_modules', 'edgevec', 'edgevec_bg.wasm')) });
    b.lib = lib;
    return { kernel: `EdgeVec ${lib.getSimdBackend()} (getSimdBackend(); no v128 instruction in its .wasm)` };
  },
  async voy(b) {
    const dir = join(ROOT, 'node_modules', 'voy-search');
    const glue = await import(pathToFileURL(join(dir, 'voy_search_bg.js')).href);
    const { instance } = await WebAssembly.instantiate(readFileSync(join(dir, 'voy_search_bg.wasm')), { './voy_search_bg.js': glue });
    glue.__wbg_set_wasm(instance.exports);
    b.lib = glue;
    return { kernel: 'voy scalar Rust k-d tree (no v128 instruction in its .wasm)' };
  },
};

/**
 * A browser-sweep engine (`key` of BROWSER_ENGINES) measured in the Node matrix: the page's own
 * build (same parameters, same metric: EdgeVec and voy l2 on the unit vectors), searched on the
 * Node thread. Search points: `ef` (job.efs) or EdgeVec's rescore factors (`{ rescore_factor }`).
 */
function wasmInNode(key) {
  const b = BROWSER_ENGINES[key];
  let kernel = null;
  const knobOf = { 'hnswlib-wasm': { hnsw: 'ef' }, edgevec: { hnsw: 'ef', 'hnsw-bq-rescore': 'rescore_factor' }, voy: { 'kd-tree': null } }[key];
  return {
    name: b.name,
    backend: 'wasm',
    modes: b.modes,
    async load() {
      ({ kernel } = await NODE_WASM_LOADERS[key](b));
      return { version: pkgVersion(b.pkg), kernel };
    },
    // the page builds them for the dataset's cosine (hnswlib-wasm) or l2 on unit vectors (EdgeVec, voy)
    unsupported: (metric) => (metric === 'cosine' ? null : `the browser sweep's ${b.name} build is for cosine data only`),
    filters: () => `${b.name} is not in the filtered sweep`,
    efs: (mode) => knobOf[mode] !== null,
    points(mode, job) {
      const knob = knobOf[mode];
      if (knob === 'ef') return job.efs;
      if (knob === 'rescore_factor') return (job.quick ? [1, 5] : [1, 2, 3, 5, 8, 12, 20, 30]).map((f) => ({ rescore_factor: f }));
      return [null];
    },
    async build(data, metric, mode, params) {
      const built = await b.build(data, params);
      const m = built.modes.find((x) => x.mode === mode);
      if (!m) throw new Error(`${b.name} has no mode ${mode}`);
      return {
        build_s: built.build_s,
        params: { ...built.params, metric: b.metric },
        threads: 1,
        kernel,
        api: m.api,
        bytesPerVector: built.engineBytes === null ? null : built.engineBytes / data.n,
        async: false,
        search: (q, k, x) => m.search(q, k, x !== null && typeof x === 'object' ? x.rescore_factor : x),
        save: null,
        close() {},
      };
    },
  };
}

export const ENGINES = {
  horosvec: horosvec('native'),
  'horosvec-wasm': horosvec('wasm'),
  hnswlib,
  usearch,
  'sqlite-vec': sqliteVec,
  orama,
  zvec,
  lancedb,
  faiss,
  'hnswlib-wasm': wasmInNode('hnswlib-wasm'),
  edgevec: wasmInNode('edgevec'),
  voy: wasmInNode('voy'),
};

/** `dir` made if missing. */
export function ensureDir(dir) {
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  return dir;
}
