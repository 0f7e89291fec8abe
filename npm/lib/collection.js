// The public `Collection` class, shared by the native and the wasm backend. It normalises input
// shapes, supplies defaults and turns column-wise raw results into `{ id, distance, metadata }`
// objects; every check on values happens in the Rust core.

import { guard, hvError, inputError, readInput, toHvError } from './errors.js';
import { toBatch, toIds, idsLength, toIndexOptions, toMetadata, toSearchOptions, toVector, checkId } from './input.js';

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
 * `version()`, `threads()`).
 */
export function makeApi(raw) {
  const native = typeof raw.CoreCollection.prototype.addAsync === 'function';
  const backend = raw.backend();

  // Runs a write or search: on a worker thread natively, synchronously under wasm; always a Promise.
  const run = native
    ? (f) => {
        let p;
        try {
          p = f();
        } catch (e) {
          return Promise.reject(toHvError(e));
        }
        return p.catch((e) => {
          throw toHvError(e);
        });
      }
    : (f) => {
        try {
          return Promise.resolve(f());
        } catch (e) {
          return Promise.reject(toHvError(e));
        }
      };

  const settle = () => undefined;

  class Collection {
    #raw;
    #dim;
    #metric;
    #closed = false;
    // Native only: calls run on worker threads, so their order is kept here. Writes run one
    // after another in call order; a search waits for the writes issued before it; close()
    // waits for every call in flight.
    #writeTail = Promise.resolve();
    #pendingWrites = 0;
    #inflight = new Set();
    // A collection opened from a directory: its writes go to the binding's committer, which
    // keeps their call order itself and commits concurrent ones together (group commit), so
    // they do not wait for one another here; they still wait for an index build issued before.
    #durable = false;
    #pendingBuilds = 0;
    // Durable writes are ticketed: the binding returns a ticket at once and later delivers the
    // answers of a whole committed group in one settler call. While any is pending, a ref'd
    // timer keeps the event loop alive (the settler itself does not).
    #tickets = new Map();
    #keepAlive = null;

    /** @internal use Collection.create */
    constructor(rawCol, token) {
      if (token !== CREATE) throw hvError('HV_INVALID_ARGUMENT', 'use Collection.create({ dim, metric })');
      this.#raw = rawCol;
      this.#durable = rawCol.durable === true;
      if (this.#durable && typeof rawCol.setSettler === 'function') rawCol.setSettler((batch) => this.#settle(batch));
      const s = rawCol.stats();
      this.#dim = s.dim;
      this.#metric = s.metric;
    }

    static create(options) {
      const [dim, metric] = readInput(() => {
        if (options === null || typeof options !== 'object') {
          throw inputError('HV_INVALID_ARGUMENT', 'Collection.create needs an options object such as { dim: 384, metric: "cosine" }');
        }
        const { dim, metric = 'l2' } = options;
        if (typeof dim !== 'number') throw inputError('HV_INVALID_ARGUMENT', `dim must be a positive integer, got ${typeof dim}`);
        if (typeof metric !== 'string') throw inputError('HV_INVALID_ARGUMENT', `metric must be a string, got ${typeof metric}`);
        return [dim, metric];
      });
      return guard(() => new Collection(raw.CoreCollection.create(dim, metric), CREATE));
    }

    static async fromBytes(bytes) {
      // a Proxy of a Uint8Array passes `instanceof` but is no view: neither backend can read it
      if (!readInput(() => ArrayBuffer.isView(bytes) && bytes instanceof Uint8Array)) {
        throw hvError('HV_INVALID_ARGUMENT', 'fromBytes needs a Uint8Array (or Buffer) made by toBytes()');
      }
      let rawCol;
      try {
        rawCol = native ? await raw.CoreCollection.fromBytesAsync(bytes) : raw.CoreCollection.fromBytes(bytes);
      } catch (e) {
        throw toHvError(e);
      }
      return new Collection(rawCol, CREATE);
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
      const start = (r) => (native ? r.importGraphAsync(adjacency, degree, entry, params) : r.importGraph(adjacency, degree, entry, params));
      return this.#call(true, start, () => {
        adjacency = adjacency.slice();
      }, true).then((rep) => ({ nodes: rep.nodes, edges: rep.edges, padding: rep.padding, selfLoops: rep.selfLoops, duplicates: rep.duplicates }));
    }

    exportGraph() {
      return this.#call(false, (r) => (native ? r.exportGraphAsync() : r.exportGraph()), () => {}).then((g) => ({
        adjacency: g.adjacency,
        degree: g.degree,
        entry: g.entry,
        ids: g.ids,
      }));
    }

    toBytes() {
      return this.#call(false, (r) => (native ? r.toBytesAsync() : r.toBytes()), () => {}).then((b) =>
        // a plain Uint8Array on both backends (a Buffer is one, but may share a pooled ArrayBuffer)
        b instanceof Uint8Array && b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? new Uint8Array(b.buffer) : Uint8Array.from(b),
      );
    }

    static async open(path, options = {}) {
      if (!native) {
        throw hvError('HV_UNSUPPORTED', 'Collection.open needs the native backend (Node.js); in browsers use Collection.create or Collection.fromBytes');
      }
      if (typeof path !== 'string' || path === '') throw hvError('HV_INVALID_ARGUMENT', 'path must be a non-empty string (a directory)');
      const { dim, metric, durability, readOnly, limits } = readInput(() => {
        if (options === null || typeof options !== 'object') throw inputError('HV_INVALID_ARGUMENT', 'open options must be an object');
        const known = ['dim', 'metric', 'durability', 'readOnly', 'maxMutableRecords', 'maxSealedSegments', 'maxTombstoneRatio', 'verify'];
        const unknown = Object.keys(options).filter((k) => !known.includes(k));
        if (unknown.length > 0) throw inputError('HV_INVALID_ARGUMENT', `unknown open option ${JSON.stringify(unknown[0])} (known: ${known.join(', ')})`);
        const { dim, metric, durability = 'full', readOnly = false, maxMutableRecords, maxSealedSegments, maxTombstoneRatio, verify = false } = options;
        for (const [name, v] of [['maxMutableRecords', maxMutableRecords], ['maxSealedSegments', maxSealedSegments], ['maxTombstoneRatio', maxTombstoneRatio]]) {
          if (v !== undefined && typeof v !== 'number') throw inputError('HV_INVALID_ARGUMENT', `${name} must be a number, got ${typeof v}`);
        }
        if (typeof verify !== 'boolean') throw inputError('HV_INVALID_ARGUMENT', 'verify must be a boolean');
        if (dim !== undefined && typeof dim !== 'number') throw inputError('HV_INVALID_ARGUMENT', `dim must be a positive integer, got ${typeof dim}`);
        if (metric !== undefined && typeof metric !== 'string') throw inputError('HV_INVALID_ARGUMENT', `metric must be a string, got ${typeof metric}`);
        if (typeof durability !== 'string') throw inputError('HV_INVALID_ARGUMENT', `durability must be "full", "normal" or "off"`);
        if (typeof readOnly !== 'boolean') throw inputError('HV_INVALID_ARGUMENT', 'readOnly must be a boolean');
        return { dim, metric, durability, readOnly, limits: { maxMutableRecords, maxSealedSegments, maxTombstoneRatio, verify } };
      });
      let rawCol;
      try {
        rawCol = await raw.CoreCollection.openAsync(path, dim, metric, durability, readOnly, limits);
      } catch (e) {
        throw toHvError(e);
      }
      return new Collection(rawCol, CREATE);
    }

    #open() {
      if (this.#closed) throw hvError('HV_CLOSED', 'the collection is closed');
      return this.#raw;
    }

    #track(p) {
      this.#inflight.add(p);
      const done = () => this.#inflight.delete(p);
      p.then(done, done);
      return p;
    }

    // Runs `start(raw)` (which returns the raw result or a Promise) as a write (`write` true) or
    // a read. `args` were normalised at call time; `snapshot` copies them when the call has to
    // wait, so the caller may change its buffers as soon as the call returns (ids and metadata
    // are already copies of our own; only a Float32Array used as is needs it).
    #call(write, start, snapshot, build = false) {
      let r;
      try {
        r = this.#open();
      } catch (e) {
        return Promise.reject(e);
      }
      if (!native) return run(() => start(r));
      let p;
      const unordered = write && !build && this.#durable && this.#pendingBuilds === 0;
      if (this.#pendingWrites === 0 || unordered) {
        // Nothing to wait for: start now (the binding copies the inputs before returning).
        p = run(() => start(r));
        if (!write) return this.#track(p);
      } else {
        try {
          snapshot();
        } catch (e) {
          // e.g. a detached ArrayBuffer: the copy cannot be made
          return Promise.reject(hvError('HV_INVALID_ARGUMENT', `an input buffer cannot be read: ${e?.message ?? e}`));
        }
        p = this.#writeTail.then(() => run(() => start(r)));
      }
      if (write) {
        this.#pendingWrites++;
        if (build) this.#pendingBuilds++;
        this.#writeTail = Promise.all([this.#writeTail, p.then(settle, settle)]).then(() => {
          this.#pendingWrites--;
          if (build) this.#pendingBuilds--;
        });
      }
      return this.#track(p);
    }

    #submit(kind, ids, flat, meta) {
      const ticket = this.#raw.submitTicket(kind, ids, flat, meta);
      return new Promise((resolve, reject) => {
        this.#tickets.set(ticket, { resolve, reject });
        if (this.#keepAlive === null) this.#keepAlive = setInterval(() => {}, 2 ** 30);
      });
    }

    #settle({ ok, failed, errors }) {
      for (let i = 0; i < ok.length; i += 2) {
        const t = this.#tickets.get(ok[i]);
        if (t !== undefined) {
          this.#tickets.delete(ok[i]);
          t.resolve(ok[i + 1]);
        }
      }
      for (let i = 0; i < failed.length; i++) {
        const t = this.#tickets.get(failed[i]);
        if (t !== undefined) {
          this.#tickets.delete(failed[i]);
          t.reject(toHvError(new Error(errors[i])));
        }
      }
      if (this.#tickets.size === 0 && this.#keepAlive !== null) {
        clearInterval(this.#keepAlive);
        this.#keepAlive = null;
      }
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
        const r = this.#open();
        return { ...r.stats(), backend, threads: raw.threads(), ...(this.#durable ? { commits: r.commits, mutableBound: r.mutableBound } : {}) };
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
      const snapshot = () => {
        flat = flat.slice();
      };
      const start = (r) => {
        if (this.#durable) return this.#submit(method, idList, flat, meta);
        return native ? r[`${method}Async`](idList, flat, meta) : r[method](idList, flat, meta);
      };
      return this.#call(true, start, snapshot).then(settle);
    }

    add(ids, vectors, metadata) {
      return this.#write('add', ids, vectors, metadata);
    }

    #segmentOp(name) {
      try {
        this.#open();
      } catch (e) {
        return Promise.reject(e);
      }
      if (!this.#durable) {
        return Promise.reject(hvError('HV_UNSUPPORTED', `${name}() works on collections opened with Collection.open(path); this one lives in memory`));
      }
      return this.#call(true, (r) => r[name](), () => {});
    }

    seal() {
      return this.#segmentOp('seal');
    }

    compact() {
      return this.#segmentOp('compact');
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
      const snapshot = () => {}; // the ids are a copy already
      const start = (r) => {
        if (this.#durable) return this.#submit('delete', idList, undefined, undefined);
        return native ? r.deleteAsync(idList) : r.delete(idList);
      };
      return this.#call(true, start, snapshot);
    }

    get(id) {
      return guard(() => {
        const r = this.#open();
        const rec = r.get(readInput(() => checkId(id)));
        if (rec === undefined || rec === null) return undefined;
        return { vector: rec.vector, metadata: rec.metadata === null || rec.metadata === undefined ? undefined : parseMetadata(rec.metadata, id) };
      });
    }

    searchSync(query, options) {
      const r = this.#open();
      const [q, o] = readInput(() => [toVector(query, this.#dim, 'query'), toSearchOptions(options)]);
      return guard(() => hits(r.search(q, o)));
    }

    search(query, options) {
      let q, o;
      try {
        this.#open();
        [o, q] = readInput(() => [toSearchOptions(options), toVector(query, this.#dim, 'query')]);
      } catch (e) {
        return Promise.reject(toHvError(e));
      }
      return this.#call(false, (r) => (native ? r.searchAsync(q, o) : r.search(q, o)), () => {
        q = q.slice();
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
      return this.#call(false, (r) => (native ? r.searchBatchAsync(flat, o) : r.searchBatch(flat, o)), () => {
        flat = flat.slice();
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
      const report = (d, t) => {
        if (onProgress) onProgress(d, t);
      };
      if (!native) {
        return this.#call(true, (r) => r.buildIndex(params, (d, t) => {
          report(d, t);
          return signal?.aborted === true;
        })).then(settle);
      }
      return this.#call(true, (r) => {
        if (isAborted(signal)) throw hvError('HV_CANCELLED', 'the build was aborted before it started');
        const p = r.buildIndexAsync(params);
        const onAbort = () => r.cancelBuild();
        signal?.addEventListener('abort', onAbort, { once: true });
        let last = -1;
        const poll = () => {
          const [d, t] = r.buildProgress();
          if (t > 0 && d !== last) {
            last = d;
            report(d, t);
          }
        };
        const timer = onProgress ? setInterval(poll, 50) : undefined;
        const cleanup = () => {
          if (timer) clearInterval(timer);
          signal?.removeEventListener('abort', onAbort);
        };
        return p.then(
          () => {
            cleanup();
            poll();
          },
          (e) => {
            cleanup();
            throw e;
          },
        );
      }, () => {}, true).then(settle);
    }

    async close() {
      if (this.#closed) return;
      this.#closed = true;
      // Calls already made finish first (their results or errors reach their callers).
      await Promise.allSettled([...this.#inflight]);
      try {
        this.#raw.close();
      } catch {
        // closing after a failure is harmless
      }
    }
  }
  const CREATE = Symbol('create');

  return { Collection, backend, kernel: raw.kernel(), version: raw.version() };
}
