// The public `Collection` class, shared by the native and the wasm backend. It normalises input
// shapes, supplies defaults and turns column-wise raw results into `{ id, distance, metadata }`
// objects; every check on values happens in the Rust core.

import { guard, hvError, toHvError } from './errors.js';
import { toBatch, toIds, toMetadata, toSearchOptions, toVector, checkId } from './input.js';

function hits(raw) {
  const out = new Array(raw.ids.length);
  for (let i = 0; i < out.length; i++) {
    const h = { id: raw.ids[i], distance: raw.distances[i] };
    const m = raw.metadata[i];
    if (m !== null && m !== undefined) h.metadata = JSON.parse(m);
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

  class Collection {
    #raw;
    #dim;
    #metric;
    #closed = false;

    /** @internal use Collection.create */
    constructor(rawCol, token) {
      if (token !== CREATE) throw hvError('HV_INVALID_ARGUMENT', 'use Collection.create({ dim, metric })');
      this.#raw = rawCol;
      const s = rawCol.stats();
      this.#dim = s.dim;
      this.#metric = s.metric;
    }

    static create(options) {
      if (options === null || typeof options !== 'object') {
        throw hvError('HV_INVALID_ARGUMENT', 'Collection.create needs an options object such as { dim: 384, metric: "cosine" }');
      }
      const { dim, metric = 'l2' } = options;
      if (typeof dim !== 'number') throw hvError('HV_INVALID_ARGUMENT', `dim must be a positive integer, got ${typeof dim}`);
      if (typeof metric !== 'string') throw hvError('HV_INVALID_ARGUMENT', `metric must be a string, got ${typeof metric}`);
      return guard(() => new Collection(raw.CoreCollection.create(dim, metric), CREATE));
    }

    #open() {
      if (this.#closed) throw hvError('HV_CLOSED', 'the collection is closed');
      return this.#raw;
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
      return guard(() => ({ ...this.#open().stats(), backend, threads: raw.threads() }));
    }

    #write(method, ids, vectors, metadata) {
      return run(() => {
        const r = this.#open();
        const single = !Array.isArray(ids);
        const idList = toIds(ids);
        const flat = toBatch(vectors, this.#dim);
        const meta = toMetadata(metadata, idList.length, single);
        return native ? r[`${method}Async`](idList, flat, meta) : r[method](idList, flat, meta);
      }).then(() => undefined);
    }

    add(ids, vectors, metadata) {
      return this.#write('add', ids, vectors, metadata);
    }

    upsert(ids, vectors, metadata) {
      return this.#write('upsert', ids, vectors, metadata);
    }

    delete(ids) {
      return run(() => {
        const r = this.#open();
        const idList = toIds(ids);
        return native ? r.deleteAsync(idList) : r.delete(idList);
      });
    }

    get(id) {
      return guard(() => {
        const r = this.#open();
        const rec = r.get(checkId(id));
        if (rec === undefined || rec === null) return undefined;
        return { vector: rec.vector, metadata: rec.metadata === null || rec.metadata === undefined ? undefined : JSON.parse(rec.metadata) };
      });
    }

    searchSync(query, options) {
      return guard(() => {
        const r = this.#open();
        const [k, meta] = toSearchOptions(options);
        return hits(r.search(toVector(query, 'query'), k, meta));
      });
    }

    search(query, options) {
      return run(() => {
        const r = this.#open();
        const [k, meta] = toSearchOptions(options);
        const q = toVector(query, 'query');
        return native ? r.searchAsync(q, k, meta) : r.search(q, k, meta);
      }).then(hits);
    }

    searchBatch(queries, options) {
      return run(() => {
        const r = this.#open();
        const [k, meta] = toSearchOptions(options);
        const flat = toBatch(queries, this.#dim, 'queries');
        return native ? r.searchBatchAsync(flat, k, meta) : r.searchBatch(flat, k, meta);
      }).then((all) => all.map(hits));
    }

    close() {
      if (!this.#closed) {
        this.#closed = true;
        try {
          this.#raw.close();
        } catch {
          // closing twice or after a failure is harmless
        }
      }
      return Promise.resolve();
    }
  }
  const CREATE = Symbol('create');

  return { Collection, backend, kernel: raw.kernel(), version: raw.version() };
}
