// The calling-thread side of `horosvec/worker`: `WorkerCollection` and `openDatabase` proxies
// whose every call is a request to one worker (a Web Worker, or a worker_thread under Node)
// that runs the real API (`worker-serve.js`). `spawn()` (from the entry) starts that worker and
// returns { post(msg, transfer), terminate() }, calling `onMessage(data)` and `onFailure(why)`.
// The worker starts on the first call and ends when the last collection or database is closed,
// or on `terminate()`; a worker that dies rejects every pending call with HV_WORKER_FAILED.

import { hvError, HorosvecError, isHorosvecError } from './errors.js';

/** Tests only: each worker API's `Collection` → { request(msg) (to send test hooks), alive() }. */
export const rawRequest = new WeakMap();

export function makeWorkerApi(spawn) {
  let worker = null;
  let nextId = 1;
  const pending = new Map();
  let live = 0;

  const onMessage = (data) => {
    const p = pending.get(data?.id);
    if (p === undefined) return;
    if (data.progress) {
      try {
        p.onProgress?.(data.progress[0], data.progress[1], data.progress[2]);
      } catch {
        // the caller's callback threw: the build goes on (the same as in-thread, which ignores it)
      }
      return;
    }
    pending.delete(data.id);
    if (pending.size === 0) worker?.unref?.();
    p.cleanup?.();
    if (data.ok) p.resolve(data.value);
    else p.reject(hvError(data.code, data.message));
  };

  const failAll = (why) => {
    worker = null;
    live = 0;
    const all = [...pending.values()];
    pending.clear();
    for (const p of all) {
      p.cleanup?.();
      p.reject(hvError('HV_WORKER_FAILED', `the horosvec worker ended before answering: ${why}`));
    }
    epoch++;
  };

  // handles of a worker that has ended are closed (a new worker does not know them)
  let epoch = 0;

  // a failure reported by a worker that has already been replaced (terminate() and then its
  // ending noticed) concerns nobody
  const ensure = () => {
    if (worker === null) {
      const me = spawn({ onMessage, onFailure: (why) => worker === me && failAll(why) });
      worker = me;
    }
    return worker;
  };

  function request(msg, { transfer = [], onProgress, signal } = {}) {
    let w;
    try {
      w = ensure();
    } catch (e) {
      return Promise.reject(isHorosvecError(e) ? e : hvError('HV_WORKER_FAILED', `the horosvec worker could not start: ${e?.message ?? e}`, e));
    }
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const p = { resolve, reject, onProgress };
      if (signal) {
        const onAbort = () => {
          try {
            w.post({ op: 'cancel', id });
          } catch {
            // the worker is gone: its failure rejects the call
          }
        };
        signal.addEventListener('abort', onAbort, { once: true });
        p.cleanup = () => signal.removeEventListener('abort', onAbort);
      }
      pending.set(id, p);
      w.ref?.();
      try {
        w.post({ ...msg, id }, transfer);
      } catch (e) {
        pending.delete(id);
        p.cleanup?.();
        // a value structured clone cannot copy (a function, a class instance's private state)
        reject(hvError('HV_INVALID_ARGUMENT', `an argument cannot be sent to the worker: ${e?.message ?? e}`, e));
      }
    });
  }

  // A Float32Array argument is copied into a new buffer, which is transferred (the caller's
  // array stays usable: never detached); other values are structured-cloned (copied).
  const own = (v) => (v instanceof Float32Array ? v.slice() : v);
  const buffersOf = (args) => args.filter((a) => a instanceof Float32Array).map((a) => a.buffer);

  const closedError = () => hvError('HV_CLOSED', 'the collection is closed');

  // `{ onProgress }` of fromBytes / add / upsert → the request's extra fields and options, or
  // the error to reject with
  const progressOption = (options) => {
    if (options === undefined) return [{}, {}];
    const onProgress = options === null || typeof options !== 'object' ? options : options.onProgress;
    if (options === null || typeof options !== 'object' || (onProgress !== undefined && typeof onProgress !== 'function')) {
      throw hvError('HV_INVALID_ARGUMENT', 'options must be { onProgress?: (done, total, phase) => void }');
    }
    return onProgress ? [{ progress: true }, { onProgress }] : [{}, {}];
  };

  // the last handle closed: the worker ends once no call is in flight (a create may be)
  const release = () => {
    live -= 1;
    if (live <= 0) {
      setTimeout(() => {
        if (live <= 0 && pending.size === 0) terminate();
      }, 0);
    }
  };

  class WorkerCollection {
    #h;
    #epoch;
    #dim;
    #metric;
    #closed = false;
    #closing = null;

    /** @internal use WorkerCollection.create, fromBytes or open */
    constructor(desc, token) {
      if (token !== MAKE) throw hvError('HV_INVALID_ARGUMENT', 'use Collection.create({ dim, metric })');
      this.#h = desc.$handle;
      this.#dim = desc.dim;
      this.#metric = desc.metric;
      this.#epoch = epoch;
      live += 1;
    }

    static create(options) {
      return request({ op: 'static', name: 'create', args: [options] }).then(wrap);
    }
    static fromBytes(bytes, options) {
      let extra, opts;
      try {
        [extra, opts] = progressOption(options);
      } catch (e) {
        return Promise.reject(e);
      }
      // the caller's bytes are copied and the copy transferred (the caller's stay usable)
      const copy = bytes instanceof Uint8Array ? bytes.slice() : bytes;
      return request({ op: 'static', name: 'fromBytes', args: [copy], ...extra }, { transfer: copy instanceof Uint8Array ? [copy.buffer] : [], ...opts }).then(wrap);
    }
    static fromFile(path) {
      return request({ op: 'static', name: 'fromFile', args: [path] }).then(wrap);
    }
    static open(path, options) {
      return request({ op: 'static', name: 'open', args: options === undefined ? [path] : [path, options] }).then(wrap);
    }

    get dim() {
      if (this.#closed) throw closedError();
      return this.#dim;
    }
    get metric() {
      if (this.#closed) throw closedError();
      return this.#metric;
    }

    #call(name, args = [], extra, fields) {
      if (this.#closed) return Promise.reject(closedError());
      if (this.#epoch !== epoch) return Promise.reject(hvError('HV_WORKER_FAILED', 'the horosvec worker that held this collection has ended'));
      const a = args.map(own);
      return request({ op: 'call', handle: this.#h, name, args: a, ...fields }, { transfer: buffersOf(a), ...extra });
    }

    // add / upsert, with the worker entry's fourth argument `{ onProgress }`
    #write(name, ids, vectors, metadata, options) {
      let fields, opts;
      try {
        [fields, opts] = progressOption(options);
      } catch (e) {
        return Promise.reject(e);
      }
      const args = metadata === undefined && options === undefined ? [ids, vectors] : [ids, vectors, metadata];
      return this.#call(name, args, opts, fields);
    }

    size() {
      return this.#call('size');
    }
    stats() {
      return this.#call('stats');
    }
    get(id) {
      return this.#call('get', [id]);
    }
    add(ids, vectors, metadata, options) {
      return this.#write('add', ids, vectors, metadata, options);
    }
    upsert(ids, vectors, metadata, options) {
      return this.#write('upsert', ids, vectors, metadata, options);
    }
    delete(ids) {
      return this.#call('delete', [ids]);
    }
    deleteWhere(filter) {
      return this.#call('deleteWhere', [filter]);
    }
    count(filter) {
      return this.#call('count', filter === undefined ? [] : [filter]);
    }
    list(options) {
      return this.#call('list', options === undefined ? [] : [options]);
    }
    search(query, options) {
      return this.#call('search', [query, options]);
    }
    searchBatch(queries, options) {
      return this.#call('searchBatch', [queries, options]);
    }
    importGraph(graph) {
      return this.#call('importGraph', [graph]);
    }
    exportGraph() {
      return this.#call('exportGraph');
    }
    seal() {
      return this.#call('seal');
    }
    compact() {
      return this.#call('compact');
    }
    refresh() {
      return this.#call('refresh');
    }
    toBytes() {
      return this.#call('toBytes');
    }
    buildIndex(options) {
      if (options === null || typeof options !== 'object') return this.#call('buildIndex', options === undefined ? [] : [options]);
      const { onProgress, signal, ...rest } = options;
      if (onProgress !== undefined && typeof onProgress !== 'function') return Promise.reject(hvError('HV_INVALID_ARGUMENT', 'onProgress must be a function'));
      if (signal !== undefined && (signal === null || typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function')) {
        return Promise.reject(hvError('HV_INVALID_ARGUMENT', 'signal must be an AbortSignal'));
      }
      if (signal?.aborted) return Promise.reject(hvError('HV_CANCELLED', 'the build was aborted before it started'));
      const o = { ...rest, ...(onProgress ? { onProgress: true } : {}), ...(signal ? { signal: true } : {}) };
      return this.#call('buildIndex', [o], { onProgress, signal });
    }
    close() {
      if (this.#closing) return this.#closing;
      this.#closed = true;
      if (this.#epoch !== epoch) {
        this.#closing = Promise.resolve();
        return this.#closing;
      }
      this.#closing = request({ op: 'call', handle: this.#h, name: 'close' }).then(
        () => release(),
        (e) => {
          release();
          if (!isHorosvecError(e, 'HV_WORKER_FAILED')) throw e;
        },
      );
      return this.#closing;
    }
  }
  const MAKE = Symbol('make');

  class WorkerDatabase {
    #h;
    #epoch;
    #closing = null;
    #closed = false;
    constructor(desc) {
      this.#h = desc.$handle;
      this.#epoch = epoch;
      this.path = desc.path;
      this.readOnly = desc.readOnly;
      live += 1;
    }
    #call(name, args) {
      if (this.#closed) return Promise.reject(hvError('HV_CLOSED', 'the database is closed'));
      if (this.#epoch !== epoch) return Promise.reject(hvError('HV_WORKER_FAILED', 'the horosvec worker that held this database has ended'));
      return request({ op: 'call', handle: this.#h, name, args }).then(wrap);
    }
    createCollection(name, options) {
      return this.#call('createCollection', [name, options]);
    }
    collection(name) {
      return this.#call('collection', [name]);
    }
    listCollections() {
      return this.#call('listCollections', []);
    }
    dropCollection(name) {
      return this.#call('dropCollection', [name]);
    }
    close() {
      if (this.#closing) return this.#closing;
      this.#closed = true;
      if (this.#epoch !== epoch) return (this.#closing = Promise.resolve());
      this.#closing = request({ op: 'call', handle: this.#h, name: 'close' }).then(() => release(), (e) => {
        release();
        if (!isHorosvecError(e, 'HV_WORKER_FAILED')) throw e;
      });
      return this.#closing;
    }
  }

  function wrap(v) {
    if (v !== null && typeof v === 'object' && typeof v.$handle === 'number') {
      return v.kind === 'database' ? new WorkerDatabase(v) : new WorkerCollection(v, MAKE);
    }
    return v;
  }

  function openDatabase(...args) {
    return request({ op: 'static', name: 'openDatabase', args }).then(wrap);
  }

  /** Ends the worker now: pending calls reject with HV_WORKER_FAILED, open handles become unusable. */
  function terminate() {
    const w = worker;
    if (w === null) return Promise.resolve();
    failAll('terminate() was called');
    return Promise.resolve(w.terminate()).then(() => undefined);
  }

  /** The backend, kernel and version of the build the worker runs. */
  function info() {
    return request({ op: 'static', name: 'info' });
  }

  rawRequest.set(WorkerCollection, { request, alive: () => worker !== null });
  const field = (k) => () => info().then((i) => i[k]);
  return {
    Collection: WorkerCollection,
    openDatabase,
    terminate,
    // the worker's build, as async functions (known once the worker has started; calling them
    // starts it)
    backend: field('backend'),
    kernel: field('kernel'),
    version: field('version'),
    HorosvecError,
    isHorosvecError,
  };
}
