// The public `Collection` class, the same over the native and the wasm backend. It normalises
// input shapes, supplies defaults and turns column-wise raw results into `{ id, distance,
// metadata }` objects; every check on values happens in the Rust core. It forwards each call to
// one backend adapter (`backends.js`), through the collection's `CallQueue` (`queue.js`), which
// decides when the call starts.

import { backendFor } from './backends.js';
import { makeDatabase } from './database.js';
import { guard, hvError, inputError, isHorosvecError, HorosvecError, readInput, toHvError } from './errors.js';
import { toBatch, toIds, idsLength, toFilter, toIndexOptions, toListOptions, toMetadata, toSearchOptions, toVector, checkId } from './input.js';

// Metadata is validated as JSON when written; text that no longer parses was damaged on disk.
function parseMetadata(m, id) {
  try {
    return JSON.parse(m);
  } catch {
    throw hvError('HV_CORRUPT', `stored metadata of record ${JSON.stringify(id)} is not JSON (damaged on disk)`);
  }
}

// `signal.aborted` is the caller's value: a getter that throws is the caller's error.
const isAborted = (signal) => readInput(() => signal?.aborted === true);

const settle = () => undefined;

function hits(raw) {
  const out = new Array(raw.ids.length);
  for (let i = 0; i < out.length; i++) {
    const h = { id: raw.ids[i], distance: raw.distances[i] };
    const m = raw.metadata[i];
    if (m !== null && m !== undefined) h.metadata = parseMetadata(m, raw.ids[i]);
    out[i] = h;
  }
  return out;
}

/**
 * Builds the public API over one raw backend module (`CoreCollection`, `backend()`, `kernel()`,
 * `version()`, `threads()`). `info.reason`: why this backend (null for native; `stats()`'s
 * `backendReason`); `info.unsupported(what)`: the HV_UNSUPPORTED text for calls needing files
 * under wasm (the entry point knows why it runs wasm; the default speaks to browsers).
 */
export function makeApi(raw, info = {}) {
  const backend = backendFor(raw, info.unsupported, info.readSnapshotFile);
  const backendReason = info.reason ?? (backend.name === 'native' ? null : 'the browser entry point always uses the wasm build');

  class Collection {
    // the backend adapter's handle of this collection, and the order of its calls
    #h;
    #queue;
    #dim;
    #metric;
    #closed = false;

    /** @internal use Collection.create */
    constructor(handle, token) {
      if (token !== CREATE) throw hvError('HV_INVALID_ARGUMENT', 'use Collection.create({ dim, metric })');
      this.#h = handle;
      this.#queue = handle.queue;
      const s = handle.stats();
      this.#dim = s.dim;
      this.#metric = s.metric;
    }

    static create(options) {
      const [dim, metric, vectors] = readInput(() => {
        if (options === null || typeof options !== 'object') {
          throw inputError('HV_INVALID_ARGUMENT', 'Collection.create needs an options object such as { dim: 384, metric: "cosine" }');
        }
        const { dim, metric = 'l2', vectors = 'f32' } = options;
        if (typeof dim !== 'number') throw inputError('HV_INVALID_ARGUMENT', `dim must be a positive integer, got ${typeof dim}`);
        if (typeof metric !== 'string') throw inputError('HV_INVALID_ARGUMENT', `metric must be a string, got ${typeof metric}`);
        if (typeof vectors !== 'string') throw inputError('HV_INVALID_ARGUMENT', `vectors must be "f32" or "f16", got ${typeof vectors}`);
        return [dim, metric, vectors];
      });
      return guard(() => new Collection(backend.create(dim, metric, vectors), CREATE));
    }

    static async fromBytes(bytes) {
      // a Proxy of a Uint8Array passes `instanceof` but is no view: neither backend can read it
      if (!readInput(() => ArrayBuffer.isView(bytes) && bytes instanceof Uint8Array)) {
        throw hvError('HV_INVALID_ARGUMENT', 'fromBytes needs a Uint8Array (or Buffer) made by toBytes()');
      }
      return Collection.#loaded(() => backend.fromBytes(bytes));
    }

    static async fromFile(path) {
      if (!readInput(() => typeof path === 'string' && path !== '')) {
        throw hvError('HV_INVALID_ARGUMENT', 'fromFile needs a non-empty file path (a snapshot written from toBytes())');
      }
      return Collection.#loaded(() => backend.fromFile(path));
    }

    /** A collection around the handle `load()` resolves to (a snapshot loaded by the backend). */
    static async #loaded(load) {
      let handle;
      try {
        handle = await load();
      } catch (e) {
        throw toHvError(e);
      }
      return new Collection(handle, CREATE);
    }

    importGraph(graph) {
      let adjacency, degree, entry, params;
      try {
        this.#open();
        [adjacency, degree, entry, params] = readInput(() => {
          if (graph === null || typeof graph !== 'object') throw inputError('HV_INVALID_ARGUMENT', 'importGraph needs { adjacency: Uint32Array, degree, entry? }');
          const { adjacency: a, degree: d, entry: e, ...rest } = graph;
          // a real Uint32Array: a Proxy of one passes `instanceof` but the backends cannot read it
          if (!(ArrayBuffer.isView(a) && a instanceof Uint32Array)) {
            throw inputError('HV_INVALID_ARGUMENT', 'adjacency must be a Uint32Array of n × degree neighbour ids (0xFFFFFFFF = padding)');
          }
          if (typeof d !== 'number') throw inputError('HV_INVALID_ARGUMENT', `degree must be a positive integer, got ${typeof d}`);
          if (e !== undefined && typeof e !== 'number') throw inputError('HV_INVALID_ARGUMENT', `entry must be a node number, got ${typeof e}`);
          for (const k of ['R', 'r', 'onProgress', 'signal']) {
            if (rest[k] !== undefined) throw inputError('HV_INVALID_ARGUMENT', `importGraph does not take ${k} (R is the degree; the import is not a build)`);
          }
          return [a, d, e, toIndexOptions(rest)[0]];
        });
      } catch (e) {
        return Promise.reject(toHvError(e));
      }
      return this.#call((h) => h.importGraph(adjacency, degree, entry, params), {
        kind: 'build',
        copyInputs: () => {
          adjacency = adjacency.slice();
        },
      }).then((rep) => ({ nodes: rep.nodes, edges: rep.edges, padding: rep.padding, selfLoops: rep.selfLoops, duplicates: rep.duplicates }));
    }

    exportGraph() {
      return this.#call((h) => h.exportGraph()).then((g) => ({
        adjacency: g.adjacency,
        degree: g.degree,
        entry: g.entry,
        ids: g.ids,
      }));
    }

    toBytes() {
      return this.#call((h) => h.toBytes()).then((b) =>
        // a plain Uint8Array on both backends (a Buffer is one, but may share a pooled ArrayBuffer)
        b instanceof Uint8Array && b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? new Uint8Array(b.buffer) : Uint8Array.from(b),
      );
    }

    static async open(path, options = {}) {
      // storage: 'opfs' (a name in the browser's Origin Private File System, in a Web Worker)
      const opfs = options !== null && typeof options === 'object' && readInput(() => options.storage) === 'opfs';
      if (!opfs) backend.assertCanOpen();
      if (typeof path !== 'string' || path === '') throw hvError('HV_INVALID_ARGUMENT', opfs ? 'name must be a non-empty string' : 'path must be a non-empty string (a directory)');
      const { dim, metric, durability, readOnly, limits, refreshIntervalMs, vectors } = readInput(() => {
        if (options === null || typeof options !== 'object') throw inputError('HV_INVALID_ARGUMENT', 'open options must be an object');
        const known = ['dim', 'metric', 'durability', 'readOnly', 'maxMutableRecords', 'maxSealedSegments', 'maxTombstoneRatio', 'verify', 'refreshIntervalMs', 'storage', 'vectors'];
        if (options.vectors !== undefined && options.vectors !== 'f32' && options.vectors !== 'f16') {
          throw inputError('HV_INVALID_ARGUMENT', `vectors must be "f32" or "f16", got ${JSON.stringify(String(options.vectors))}`);
        }
        if (options.storage !== undefined && options.storage !== 'disk' && options.storage !== 'opfs') {
          throw inputError('HV_INVALID_ARGUMENT', `storage must be "disk" or "opfs", got ${JSON.stringify(String(options.storage))}`);
        }
        const unknown = Object.keys(options).filter((k) => !known.includes(k));
        if (unknown.length > 0) throw inputError('HV_INVALID_ARGUMENT', `unknown open option ${JSON.stringify(unknown[0])} (known: ${known.join(', ')})`);
        const { dim, metric, durability = 'full', readOnly = false, maxMutableRecords, maxSealedSegments, maxTombstoneRatio, verify = false } = options;
        for (const [name, v] of [['maxMutableRecords', maxMutableRecords], ['maxSealedSegments', maxSealedSegments], ['maxTombstoneRatio', maxTombstoneRatio]]) {
          if (v !== undefined && typeof v !== 'number') throw inputError('HV_INVALID_ARGUMENT', `${name} must be a number, got ${typeof v}`);
        }
        if (typeof verify !== 'boolean') throw inputError('HV_INVALID_ARGUMENT', 'verify must be a boolean');
        if (dim !== undefined && typeof dim !== 'number') throw inputError('HV_INVALID_ARGUMENT', `dim must be a positive integer, got ${typeof dim}`);
        if (metric !== undefined && typeof metric !== 'string') throw inputError('HV_INVALID_ARGUMENT', `metric must be a string, got ${typeof metric}`);
        if (typeof durability !== 'string' || (opfs && !['full', 'normal', 'off'].includes(durability))) throw inputError('HV_INVALID_ARGUMENT', `durability must be "full", "normal" or "off"`);
        if (typeof readOnly !== 'boolean') throw inputError('HV_INVALID_ARGUMENT', 'readOnly must be a boolean');
        // a read-only view's polling interval (ms; 0 = off); a writer sees its own writes and ignores it
        const { refreshIntervalMs = 100 } = options;
        if (typeof refreshIntervalMs !== 'number' || !Number.isFinite(refreshIntervalMs) || refreshIntervalMs < 0 || refreshIntervalMs > 86_400_000) {
          throw inputError('HV_INVALID_ARGUMENT', `refreshIntervalMs must be a number of milliseconds in 0..86400000 (0 = no polling), got ${typeof refreshIntervalMs === 'number' ? refreshIntervalMs : typeof refreshIntervalMs}`);
        }
        return { dim, metric, durability, readOnly, limits: { maxMutableRecords, maxSealedSegments, maxTombstoneRatio, verify }, refreshIntervalMs, vectors: options.vectors };
      });
      if (opfs && readOnly) throw hvError('HV_UNSUPPORTED', "readOnly views do not exist for storage: 'opfs' (one open handle per collection in the origin)");
      let handle;
      try {
        handle = opfs ? await backend.openOpfs(path, dim, metric, limits, vectors) : await backend.open(path, dim, metric, durability, readOnly, limits, refreshIntervalMs, vectors);
      } catch (e) {
        throw toHvError(e);
      }
      return new Collection(handle, CREATE);
    }

    #open() {
      if (this.#closed) throw hvError('HV_CLOSED', 'the collection is closed');
      return this.#h;
    }

    // Runs `operation(handle)` through the queue (`kind`: 'read' | 'write' | 'build'). Inputs
    // were normalised at call time; `copyInputs` copies them if the call has to wait, so the
    // caller may change its buffers as soon as the call returns (ids and metadata are already
    // copies of our own; only a Float32Array used as is needs it).
    #call(operation, { kind = 'read', copyInputs } = {}) {
      let h;
      try {
        h = this.#open();
      } catch (e) {
        return Promise.reject(e);
      }
      return this.#queue.run(() => operation(h), { kind, copyInputs });
    }

    get size() {
      return guard(() => this.#open().size);
    }
    get dim() {
      this.#open();
      return this.#dim;
    }
    get metric() {
      this.#open();
      return this.#metric;
    }

    stats() {
      return guard(() => {
        const h = this.#open();
        return { ...h.stats(), backend: backend.name, backendReason, threads: backend.threads(), ...(h.searches ? { searches: h.searches } : {}), ...(h.durable ? { commits: h.commits, mutableBound: h.mutableBound, refreshes: h.refreshes, lastRefreshMs: h.lastRefreshMs } : {}) };
      });
    }

    #write(method, ids, vectors, metadata) {
      let idList, flat, meta;
      try {
        this.#open();
        [idList, flat, meta] = readInput(() => {
          const single = !Array.isArray(ids);
          const n = idsLength(ids);
          // vectors before ids: their shape and count are checked against the ids count before
          // an id or a value is read (bounds before work)
          const f = toBatch(vectors, this.#dim, n);
          return [toIds(ids, n), f, toMetadata(metadata, n, single)];
        });
      } catch (e) {
        return Promise.reject(toHvError(e));
      }
      return this.#call((h) => h.write(method, idList, flat, meta), {
        kind: 'write',
        copyInputs: () => {
          flat = flat.slice();
        },
      }).then(settle);
    }

    add(ids, vectors, metadata) {
      return this.#write('add', ids, vectors, metadata);
    }

    #segmentOp(name) {
      let h;
      try {
        h = this.#open();
      } catch (e) {
        return Promise.reject(e);
      }
      if (!h.durable) {
        return Promise.reject(hvError('HV_UNSUPPORTED', `${name}() works on collections opened with Collection.open(path); this one lives in memory`));
      }
      return this.#call((handle) => handle[name](), { kind: 'write' });
    }

    seal() {
      return this.#segmentOp('seal');
    }

    compact() {
      return this.#segmentOp('compact');
    }

    // A read-only view: reload now if the writer committed since the last load (true when it
    // loaded something new); false on a writer or an in-memory collection.
    refresh() {
      return this.#call((h) => h.refresh());
    }

    upsert(ids, vectors, metadata) {
      return this.#write('upsert', ids, vectors, metadata);
    }

    delete(ids) {
      let idList;
      try {
        this.#open();
        idList = readInput(() => toIds(ids));
      } catch (e) {
        return Promise.reject(toHvError(e));
      }
      // the ids are a copy already: nothing to copy when the call waits
      return this.#call((h) => h.delete(idList), { kind: 'write' });
    }

    deleteWhere(filter) {
      let f;
      try {
        this.#open();
        f = readInput(() => {
          // no default: a forgotten argument must not delete every record
          if (filter === undefined) throw inputError('HV_INVALID_ARGUMENT', 'deleteWhere needs a filter ({} deletes every record)');
          return toFilter(filter);
        });
      } catch (e) {
        return Promise.reject(toHvError(e));
      }
      // the filter is JSON text of our own: nothing to copy when the call waits
      return this.#call((h) => h.deleteWhere(f), { kind: 'write' });
    }

    count(filter) {
      let f;
      try {
        this.#open();
        f = readInput(() => (filter === undefined ? undefined : toFilter(filter)));
      } catch (e) {
        return Promise.reject(toHvError(e));
      }
      return this.#call((h) => h.count(f));
    }

    list(options) {
      let filter, limit, cursor, includeVectors;
      try {
        this.#open();
        [filter, limit, cursor, includeVectors] = readInput(() => toListOptions(options));
      } catch (e) {
        return Promise.reject(toHvError(e));
      }
      const dim = this.#dim;
      return this.#call((h) => h.list(filter, limit, cursor, includeVectors)).then((raw) => {
        const records = new Array(raw.ids.length);
        for (let i = 0; i < records.length; i++) {
          const id = raw.ids[i];
          const r = { id };
          const m = raw.metadata[i];
          if (m !== null && m !== undefined) r.metadata = parseMetadata(m, id);
          // views into the page's one buffer (no copy per record)
          if (raw.vectors) r.vector = raw.vectors.subarray(i * dim, (i + 1) * dim);
          records[i] = r;
        }
        return { records, cursor: raw.cursor ?? null };
      });
    }

    get(id) {
      return guard(() => {
        const h = this.#open();
        const rec = h.get(readInput(() => checkId(id)));
        if (rec === undefined || rec === null) return undefined;
        return { vector: rec.vector, metadata: rec.metadata === null || rec.metadata === undefined ? undefined : parseMetadata(rec.metadata, id) };
      });
    }

    searchSync(query, options) {
      const h = this.#open();
      const [q, o] = readInput(() => [toVector(query, this.#dim, 'query'), toSearchOptions(options)]);
      return guard(() => hits(h.searchSync(q, o)));
    }

    search(query, options) {
      let q, o;
      try {
        this.#open();
        [o, q] = readInput(() => [toSearchOptions(options), toVector(query, this.#dim, 'query')]);
      } catch (e) {
        return Promise.reject(toHvError(e));
      }
      return this.#call((h) => h.search(q, o), {
        copyInputs: () => {
          q = q.slice();
        },
      }).then(hits);
    }

    searchBatch(queries, options) {
      let flat, o;
      try {
        this.#open();
        [o, flat] = readInput(() => [toSearchOptions(options), toBatch(queries, this.#dim, undefined, 'queries')]);
      } catch (e) {
        return Promise.reject(toHvError(e));
      }
      return this.#call((h) => h.searchBatch(flat, o), {
        copyInputs: () => {
          flat = flat.slice();
        },
      }).then((all) => all.map(hits));
    }

    buildIndex(options) {
      let params, onProgress, signal;
      try {
        this.#open();
        [params, onProgress, signal] = readInput(() => toIndexOptions(options));
        if (isAborted(signal)) throw hvError('HV_CANCELLED', 'the build was aborted before it started');
      } catch (e) {
        return Promise.reject(toHvError(e));
      }
      return this.#call((h) => h.buildIndex(params, onProgress, signal), { kind: 'build' }).then(settle);
    }

    async close() {
      if (this.#closed) return;
      this.#closed = true;
      // Calls already made finish first (their results or errors reach their callers).
      await this.#queue.drain();
      try {
        this.#h.close();
      } catch {
        // closing after a failure is harmless
      }
    }
  }
  const CREATE = Symbol('create');

  return { Collection, backend: backend.name, kernel: backend.kernel, version: backend.version, openDatabase: makeDatabase(Collection, backend.name, backend.unsupportedMessage), HorosvecError, isHorosvecError };
}
