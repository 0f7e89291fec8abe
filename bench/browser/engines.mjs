// The engines of the browser sweep, as a page loads them (bench/browser/index.html maps the bare
// names to the packages' browser files, as a user's bundle resolves them). This module is imported
// by the page (bench/browser/page.mjs), where load() and build() run, and by the Node side
// (bench/browser/job.mjs, bench/run.mjs), which reads only the descriptions: nothing here touches a
// browser global before load() is called.
//
// Each entry (keyed by the name `--engines` takes):
//   name, backend, pkg    the record's `engine` and `backend`; the npm package whose version the
//                         record carries (null: the engine reports its own)
//   modes                 the code paths its build is searched by (the records' `mode`)
//   metric                the metric the engine is built with (the ground truth is the dataset's)
//   metricNote            why it differs from the dataset's, when it does
//   load()                → { version?, kernel } (kernel: what runs the distances)
//   build(data, params)   → { build_s, params, engineBytes (its own accounting, bytes, or null),
//                           modes: [{ mode, api, knob, search(q, k, x) → row ids }], afterBuild() }
//                           `knob` names the search-width parameter (`ef`, `rescore_factor`) swept
//                           over the values the job gives, or null for one point (exact engines)
//
// `data` is `{ base, n, dim }`: `n × dim` row-major Float32Array; ids are the row numbers. The
// kernels were read from each package's .wasm with wasm-objdump (wabt 1.0.32): hnswlib-wasm
// 0.8.2, edgevec 0.9.0 and voy-search 0.6.3 contain no SIMD (v128) instruction; horosvec's has
// thousands, and it reports the kernel it picked.

const ids = (n) => Array.from({ length: n }, (_, i) => i);
const since = (t0) => (performance.now() - t0) / 1000;

/** horosvec, the package's browser entry (`horosvec` → npm/browser.js, which fetches its .wasm). */
const horosvec = {
  name: 'horosvec',
  modes: ['vamana-rabitq1'],
  backend: 'wasm',
  pkg: null,
  metric: 'cosine',
  hv: null,
  async load() {
    this.hv = await import('horosvec');
    return { version: this.hv.version, kernel: this.hv.kernel, backend: this.hv.backend };
  },
  async build(data, params) {
    const p = { R: 32, L: 64, alpha: 1.1, passes: 1, bits: 1, seed: 42, ...params };
    const t0 = performance.now();
    const col = this.hv.Collection.create({ dim: data.dim, metric: 'cosine' });
    await col.add(ids(data.n), data.base);
    await col.buildIndex({ R: p.R, L: p.L, alpha: p.alpha, passes: p.passes, bits: p.bits, seed: p.seed });
    const build_s = since(t0);
    const s = col.stats();
    const Collection = this.hv.Collection;
    return {
      build_s,
      params: p,
      kernel: s.kernel,
      threads: s.threads,
      engineBytes: s.vectorBytes + s.indexBytesPerVector * data.n,
      modes: [{ mode: s.mode, api: 'searchSync', knob: 'ef', search: (q, k, ef) => col.searchSync(q, { k, ef }).map((h) => h.id) }],
      // what a page that ships the index does instead of building it: the snapshot's size and the
      // time Collection.fromBytes takes to load it (after the memory was measured: it adds a copy)
      async afterBuild() {
        const bytes = await col.toBytes();
        const t1 = performance.now();
        const loaded = await Collection.fromBytes(bytes);
        const load_s = since(t1);
        loaded.close();
        return { load_s, snapshot_bytes_per_vector: bytes.byteLength / data.n };
      },
    };
  },
};

/** hnswlib-wasm: hnswlib (C++) through Emscripten, its own loader. */
const hnswlibWasm = {
  name: 'hnswlib-wasm',
  modes: ['hnsw'],
  backend: 'wasm',
  pkg: 'hnswlib-wasm',
  metric: 'cosine',
  lib: null,
  async load() {
    const { loadHnswlib } = await import('hnswlib-wasm');
    this.lib = await loadHnswlib();
    return { kernel: 'hnswlib scalar C++ (Emscripten -O3, no simd128: no v128 instruction in its .wasm)' };
  },
  async build(data, params) {
    const p = { M: 16, efConstruction: 200, seed: 42, ...params };
    const t0 = performance.now();
    const index = new this.lib.HierarchicalNSW('cosine', data.dim, '');
    index.initIndex(data.n, p.M, p.efConstruction, p.seed);
    for (let i = 0; i < data.n; i++) index.addPoint(data.base.subarray(i * data.dim, (i + 1) * data.dim), i, false);
    const build_s = since(t0);
    let cur = -1;
    return {
      build_s,
      params: p,
      threads: 1,
      engineBytes: null,
      modes: [{
        mode: 'hnsw',
        api: 'searchKnn (sync)',
        knob: 'ef',
        search(q, k, ef) {
          if (ef !== cur) index.setEfSearch((cur = ef));
          return index.searchKnn(q, k, undefined).neighbors;
        },
      }],
    };
  },
};

/**
 * EdgeVec (Rust, wasm-bindgen `web` target), the low-level `EdgeVec` class. Built with l2: in the
 * Node try of issue 17 its cosine and dot modes returned the farthest vectors; on unit vectors l2
 * ranks like cosine. Two code paths on one build: the f32 HNSW walk (`search`; its ef_search is
 * fixed when the index is made and the walk's list is max(k', ef_search), so ef_search is set to
 * 10, the sweep's k, and the knob is k' = max(k, ef), cut to the first k) and the binary codes
 * with f32 rescoring (`searchBQRescored`: a walk over the codes with a list of max(ef_search,
 * k × rescore_factor), then the best k of them by f32 distance).
 */
const edgevec = {
  name: 'edgevec',
  modes: ['hnsw', 'hnsw-bq-rescore'],
  backend: 'wasm',
  pkg: 'edgevec',
  metric: 'l2',
  metricNote: 'built with l2 on the unit vectors (ranks like cosine): its cosine and dot modes returned the farthest vectors in the Node try of issue 17',
  lib: null,
  async load() {
    this.lib = await import('edgevec');
    await this.lib.default();
    return { kernel: `EdgeVec ${this.lib.getSimdBackend()} (getSimdBackend(); no v128 instruction in its .wasm)` };
  },
  async build(data, params) {
    const lib = this.lib;
    const t0 = performance.now();
    // EdgeVecConfig's defaults (HnswConfig::new): M 12, M0 24, ef_construction 100; ef_search (50)
    // set to 10 so that the search's list is the knob
    const p = { M: 12, M0: 24, efConstruction: 100, ef_search: 10, metric: 'l2', ...params };
    const cfg = new lib.EdgeVecConfig(data.dim);
    cfg.metric = p.metric;
    cfg.m = p.M;
    cfg.m0 = p.M0;
    cfg.ef_construction = p.efConstruction;
    cfg.ef_search = p.ef_search;
    const db = new lib.EdgeVec(cfg);
    // its ids are its own (1, 2, … in 0.9.0): row numbers by id
    const rowOf = new Int32Array(data.n + 1).fill(-1);
    const chunk = 10_000;
    for (let at = 0; at < data.n; at += chunk) {
      const m = Math.min(chunk, data.n - at);
      const got = db.insertBatchFlat(data.base.subarray(at * data.dim, (at + m) * data.dim), m);
      got.forEach((id, j) => {
        if (id >= rowOf.length) throw new Error(`edgevec gave id ${id} to row ${at + j}, beyond ${rowOf.length}`);
        rowOf[id] = at + j;
      });
    }
    if (!db.hasBQ()) db.enableBQ();
    const build_s = since(t0);
    const rows = (hits, k) => hits.slice(0, k).map((h) => rowOf[h.id]);
    return {
      build_s,
      params: { ...p, insert: `insertBatchFlat, ${chunk} rows a call` },
      threads: 1,
      engineBytes: db.memoryUsage(),
      modes: [
        { mode: 'hnsw', api: 'search(q, max(k, ef)) (sync), first k', knob: 'ef', search: (q, k, ef) => rows(db.search(q, Math.max(k, ef)), k) },
        { mode: 'hnsw-bq-rescore', api: 'searchBQRescored(q, k, rescore_factor) (sync)', knob: 'rescore_factor', search: (q, k, f) => rows(db.searchBQRescored(q, k, f), k) },
      ],
    };
  },
};

/**
 * voy (Rust k-d tree, wasm-pack `bundler` target: its JS imports the .wasm as a module, which a
 * browser does not do without a bundler). Loaded as a bundler's wasm integration does it: the
 * glue's imports given to the instance, then `__wbg_set_wasm`. Rows go in through `add` in chunks
 * (a single 100k-row load fails: issue 17's Node try).
 */
const voy = {
  name: 'voy',
  modes: ['kd-tree'],
  backend: 'wasm',
  pkg: 'voy-search',
  metric: 'l2',
  metricNote: 'a Euclidean k-d tree, on the unit vectors (ranks like cosine)',
  lib: null,
  async load() {
    const glue = await import('/node_modules/voy-search/voy_search_bg.js');
    const { instance } = await WebAssembly.instantiateStreaming(fetch('/node_modules/voy-search/voy_search_bg.wasm'), { './voy_search_bg.js': glue });
    glue.__wbg_set_wasm(instance.exports);
    this.lib = glue;
    return { kernel: 'voy scalar Rust k-d tree (no v128 instruction in its .wasm)' };
  },
  async build(data, params) {
    const p = { chunk: 10_000, ...params };
    const t0 = performance.now();
    const index = new this.lib.Voy();
    for (let at = 0; at < data.n; at += p.chunk) {
      const embeddings = [];
      for (let i = at; i < Math.min(data.n, at + p.chunk); i++) embeddings.push({ id: String(i), title: '', url: '', embeddings: Array.from(data.base.subarray(i * data.dim, (i + 1) * data.dim)) });
      index.add({ embeddings });
    }
    const build_s = since(t0);
    return {
      build_s,
      params: { ...p, insert: `add({ embeddings }) in chunks of ${p.chunk} rows` },
      threads: 1,
      engineBytes: null,
      modes: [{ mode: 'kd-tree', api: 'search (sync)', knob: null, search: (q, k) => index.search(q, k).neighbors.map((h) => Number(h.id)) }],
    };
  },
};

/** @orama/orama, pure JavaScript: its vector search scans every document. */
const orama = {
  name: 'orama',
  modes: ['brute-force'],
  backend: 'js',
  pkg: '@orama/orama',
  metric: 'cosine',
  lib: null,
  async load() {
    this.lib = await import('@orama/orama');
    return { kernel: 'JavaScript (V8)' };
  },
  async build(data, params) {
    const { create, insertMultiple, search } = this.lib;
    const t0 = performance.now();
    const db = create({ schema: { e: `vector[${data.dim}]` } });
    for (let at = 0; at < data.n; at += 5_000) {
      const docs = [];
      for (let i = at; i < Math.min(data.n, at + 5_000); i++) docs.push({ id: String(i), e: Array.from(data.base.subarray(i * data.dim, (i + 1) * data.dim)) });
      await insertMultiple(db, docs, 5_000);
    }
    const build_s = since(t0);
    return {
      build_s,
      params: { ...params },
      threads: 1,
      engineBytes: null,
      modes: [{
        mode: 'brute-force',
        api: 'search (Promise, runs on the calling thread)',
        knob: null,
        search: async (q, k) => (await search(db, { mode: 'vector', vector: { value: Array.from(q), property: 'e' }, similarity: -1, limit: k, includeVectors: false })).hits.map((h) => Number(h.id)),
      }],
    };
  },
};

export const BROWSER_ENGINES = {
  'horosvec-wasm': horosvec,
  'hnswlib-wasm': hnswlibWasm,
  edgevec,
  voy,
  orama,
};
