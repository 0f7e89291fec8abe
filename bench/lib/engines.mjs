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
import { fileURLToPath } from 'node:url';
import { cpus } from 'node:os';
import { statSync, readdirSync, writeFileSync, readFileSync, existsSync, mkdirSync } from 'node:fs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkgVersion = (name) => JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
const ids = (n, at = 0) => Array.from({ length: n }, (_, i) => at + i);
const fileSize = (p) => statSync(p).size;
const dirSize = (d, keep = () => true) => readdirSync(d).filter(keep).reduce((s, f) => s + statSync(join(d, f)).size, 0);

// ---- horosvec (native and wasm) ----------------------------------------------------------------

const VAMANA = { R: 32, L: 64, alpha: 1.1, passes: 1, seed: 42 };

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
    modes: backend === 'native' ? ['exact', 'vamana', 'vamana-rabitq1', 'vamana-rabitq1-f16', 'vamana-rabitq4', 'vamana-rabitq4-f16', 'vamana-exact', 'segmented-vamana-rabitq1'] : ['exact', 'vamana', 'vamana-rabitq1', 'vamana-rabitq1-f16'],
    async load() {
      hv = backend === 'native' ? await import('horosvec') : await import('horosvec/wasm');
      // `backend`: the one loaded (HOROSVEC_FORCE_WASM=1 makes 'horosvec' the wasm build)
      return { version: hv.version, kernel: hv.kernel, backend: hv.backend };
    },
    unsupported: () => null,
    filters: () => null,
    openMethod: 'Collection.fromBytes: reads and decodes the whole snapshot',
    api: backend === 'native' ? 'searchSync; clients: search (Promise)' : 'searchSync',
    efs: (mode) => mode !== 'exact',
    async build(data, metric, fullMode, params, ctx) {
      const f16 = fullMode.endsWith('-f16');
      const mode = f16 ? fullMode.slice(0, -'-f16'.length) : fullMode;
      // vamana: the code width horosvec picks by dimension (the record carries the resolved mode);
      // vamana-exact: the graph walked with exact distances (l1, which RaBitQ does not serve)
      const bits = { 'vamana-rabitq1': 1, 'vamana-rabitq4': 4, 'segmented-vamana-rabitq1': 1 }[mode];
      const p = mode === 'exact' ? {} : { ...VAMANA, ...(bits ? { bits } : {}), ...params };
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
        mode: f16 ? `${s.mode}-f16` : s.mode,
        // on disk: the segment files and the database (its WAL left out: checkpointed at close);
        // in memory: the rows plus what the walk reads (codes, factors, adjacency)
        bytesPerVector: mode === 'segmented-vamana-rabitq1' ? dirSize(ctx.dir, (f) => !/-(wal|shm)$/.test(f)) / data.n : s.vectorBytes / data.n + s.indexBytesPerVector,
        // one client: searchSync, on the caller's thread like the competitors' calls; concurrent
        // clients (native): the Promise search, which runs on worker threads
        async: native,
        api: native ? 'searchSync; clients: search (Promise)' : 'searchSync',
        search: (q, k, ef) => col.searchSync(q, exact ? { k, exact: true } : { k, ef }).map((x) => x.id),
        searchAsync: native ? (q, k, ef) => col.search(q, exact ? { k, exact: true } : { k, ef }).then((h) => h.map((x) => x.id)) : undefined,
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
      const col = await hv.Collection.fromBytes(new Uint8Array(readFileSync(file)));
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

export const ENGINES = {
  horosvec: horosvec('native'),
  'horosvec-wasm': horosvec('wasm'),
  hnswlib,
  usearch,
  'sqlite-vec': sqliteVec,
  orama,
};

/** `dir` made if missing. */
export function ensureDir(dir) {
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  return dir;
}
