// The two backend adapters behind the public `Collection`: one over the native addon (napi-rs:
// calls run on worker threads and return Promises; durable collections), one over the wasm
// build (calls run synchronously on the calling thread). Both have the same method set, so the
// `Collection` never asks which backend it runs on; `backendFor(raw)` picks one, once.
//
// Module level: `name`, `kernel`, `version`, `threads()`, `assertCanOpen()` (and, wasm only,
// `unsupportedMessage(what)`: what a call needing files throws, by entry point), `create(dim,
// metric)`, `fromBytes(bytes)`, `open(path, dim, metric, durability, readOnly, limits,
// refreshIntervalMs, vectors)`, `openOpfs(name, dim, metric, limits, vectors)` (wasm in a Web Worker: a durable
// collection in the Origin Private File System, `opfs.js`); the last
// four return a handle (Promise of one for the async three).
// A handle (one raw collection): `durable`, `queue` (its `CallQueue`), `size`, `commits`,
// `mutableBound`, `stats()`, `get(id)`, `searchSync(query, options)`, `close()`, and the calls
// the queue orders, each returning a Promise whose rejection is an `HvError` (a durable write
// committed at once returns its count itself, a search run inline its hits, for the queue to
// wrap): `write(method,
// ids, flat, metadata)` (method "add" | "upsert"), `delete(ids)`, `search(query, options)`,
// `deleteWhere(filterJson)`, `searchBatch(flat, options)`, `count(filterJson)`, `list(filterJson,
// limit, cursor, includeVectors)`, `importGraph(adjacency, degree, entry, params)`,
// `exportGraph()`, `toBytes()`, `buildIndex(params, onProgress, signal)`, `seal()`, `compact()`,
// `refresh()` (→ boolean; a read-only view's reload), with `refreshes` / `lastRefreshMs`.
// `count` and `list` are synchronous on both backends (the raw calls read the collection under
// its read lock on the calling thread) but are ordered by the queue like any read.

import { hvError, readInput, toHvError } from './errors.js';
import { openCollectionDir, opfsError, removeOrphans, removeSegmentFile, writeSegmentFile } from './opfs.js';
import { CallQueue, TicketBook } from './queue.js';
import { SearchDispatcher } from './search-dispatch.js';

// `signal.aborted` is the caller's value: a getter that throws is the caller's error.
const isAborted = (signal) => readInput(() => signal?.aborted === true);

/** The adapter for `raw`: native when its collections have the `…Async` methods, else wasm. */
export function backendFor(raw, unsupported, readSnapshotFile) {
  return typeof raw.CoreCollection.prototype.addAsync === 'function' ? nativeBackend(raw) : wasmBackend(raw, unsupported, readSnapshotFile);
}

// Members both adapters' handles share: the calls that are synchronous on both backends.
class Handle {
  raw;
  durable = false;
  constructor(raw) {
    this.raw = raw;
  }
  get size() {
    return this.raw.size;
  }
  stats() {
    return this.raw.stats();
  }
  get(id) {
    return this.raw.get(id);
  }
  searchSync(query, options) {
    return this.raw.search(query, options);
  }
  close() {
    this.raw.close();
  }
}

// Runs a synchronous call now; its result or HvError as a Promise.
const invokeSync = (f) => {
  try {
    return Promise.resolve(f());
  } catch (e) {
    return Promise.reject(toHvError(e));
  }
};

function nativeBackend(raw) {
  // Starts a worker-thread call; every failure, synchronous or not, becomes a rejected HvError.
  // A call that finished on this thread (a durable write committed at once, `submitNow`; a
  // search run inline, `SearchDispatcher`) returns its result itself, passed on as is: the queue
  // wraps it without tracking it (nothing is pending).
  const invoke = (f) => {
    let p;
    try {
      p = f();
    } catch (e) {
      return Promise.reject(toHvError(e));
    }
    return typeof p?.then !== 'function' ? p : p.catch((e) => {
      throw toHvError(e);
    });
  };

  class NativeHandle extends Handle {
    // Durable writes are ticketed: the binding returns a ticket at once and later delivers the
    // answers of a whole committed group in one settler call.
    #tickets = new TicketBook((message) => toHvError(new Error(message)));

    constructor(r) {
      super(r);
      this.durable = r.durable === true;
      // A collection opened from a directory: its writes go to the binding's committer, which
      // keeps their call order itself and commits concurrent ones together (group commit).
      this.queue = new CallQueue({ groupCommit: this.durable });
      if (this.durable && typeof r.setSettler === 'function') r.setSettler((batch) => this.#tickets.settle(batch));
      this.#searches = new SearchDispatcher({
        runSync: (q, o) => r.search(q, o),
        runAsync: (q, o) => r.searchAsync(q, o),
        size: () => r.size,
      });
    }

    // Promise searches: on this thread when cheap and alone, else on the pool (`search-dispatch.js`).
    #searches;

    get commits() {
      return this.raw.commits;
    }
    get searches() {
      return this.#searches.counts;
    }
    get mutableBound() {
      return this.raw.mutableBound;
    }
    get refreshes() {
      return this.raw.refreshes;
    }
    get lastRefreshMs() {
      return this.raw.lastRefreshMs;
    }
    refresh() {
      return invoke(() => this.raw.refreshAsync());
    }

    // Set from a write committed at once until the microtasks of its turn have run: the other
    // writes of that turn (concurrent callers) are queued, to be committed as one group.
    #committedThisTurn = false;

    #submit(kind, ids, flat, meta, filter) {
      // With no ticket pending (so answers keep their call order) and no write committed at once
      // in this turn, the binding commits on this thread when its committer is idle and the
      // store's commits are fast (the core's `submit_now`): no thread hop to the committer and
      // back. It returns -n (n records) then, else the write's ticket. A write committed now is
      // answered with its count itself (no Promise: the queue wraps it once).
      if (this.#tickets.size === 0 && !this.#committedThisTurn && typeof this.raw.submitNow === 'function') {
        const r = this.raw.submitNow(kind, ids, flat, meta, filter);
        if (r > 0) return this.#tickets.wait(r);
        this.#committedThisTurn = true;
        queueMicrotask(() => {
          this.#committedThisTurn = false;
        });
        return r === 0 ? 0 : -r;
      }
      return this.#tickets.wait(this.raw.submitTicket(kind, ids, flat, meta, filter));
    }

    write(method, ids, flat, meta) {
      return invoke(() => (this.durable ? this.#submit(method, ids, flat, meta) : this.raw[`${method}Async`](ids, flat, meta)));
    }
    delete(ids) {
      return invoke(() => (this.durable ? this.#submit('delete', ids, undefined, undefined) : this.raw.deleteAsync(ids)));
    }
    deleteWhere(filter) {
      return invoke(() => (this.durable ? this.#submit('deleteWhere', [], undefined, undefined, filter) : this.raw.deleteWhereAsync(filter)));
    }
    count(filter) {
      return invokeSync(() => this.raw.count(filter));
    }
    list(filter, limit, cursor, includeVectors) {
      return invokeSync(() => this.raw.list(filter, limit, cursor, includeVectors));
    }
    search(query, options) {
      return invoke(() => this.#searches.search(query, options));
    }
    searchBatch(flat, options) {
      return invoke(() => this.raw.searchBatchAsync(flat, options));
    }
    importGraph(adjacency, degree, entry, params) {
      return invoke(() => this.raw.importGraphAsync(adjacency, degree, entry, params));
    }
    exportGraph() {
      return invoke(() => this.raw.exportGraphAsync());
    }
    toBytes() {
      return invoke(() => this.raw.toBytesAsync());
    }
    seal() {
      return invoke(() => this.raw.seal());
    }
    compact() {
      return invoke(() => this.raw.compact());
    }

    // The build runs on a worker thread: progress is polled every 50 ms, an abort asks the
    // binding to cancel.
    buildIndex(params, onProgress, signal) {
      const r = this.raw;
      return invoke(() => {
        if (isAborted(signal)) throw hvError('HV_CANCELLED', 'the build was aborted before it started');
        const p = r.buildIndexAsync(params);
        const onAbort = () => r.cancelBuild();
        signal?.addEventListener('abort', onAbort, { once: true });
        let last = -1;
        const poll = () => {
          const [d, t] = r.buildProgress();
          if (t > 0 && d !== last) {
            last = d;
            if (onProgress) onProgress(d, t);
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
      });
    }
  }

  const wrap = (r) => new NativeHandle(r);
  return {
    name: raw.backend(),
    kernel: raw.kernel(),
    version: raw.version(),
    threads: () => raw.threads(),
    assertCanOpen() {},
    create: (dim, metric, vectors) => wrap(raw.CoreCollection.create(dim, metric, vectors)),
    fromBytes: async (bytes) => wrap(await raw.CoreCollection.fromBytesAsync(bytes)),
    fromFile: async (path) => wrap(await raw.CoreCollection.fromFileAsync(path)),
    open: async (path, dim, metric, durability, readOnly, limits, refreshIntervalMs, vectors) =>
      wrap(await raw.CoreCollection.openAsync(path, dim, metric, durability, readOnly, { ...limits, vectors }, refreshIntervalMs)),
    openOpfs: async () => {
      throw hvError('HV_UNSUPPORTED', "storage: 'opfs' is the browser's Origin Private File System; this is the native backend (Node.js): use Collection.open(path) on disk");
    },
  };
}

// `message(what)`: the HV_UNSUPPORTED text for `what` (a call needing files) under this entry point.
const browserMessage = (what) => `${what} needs the native backend (Node.js); in browsers use Collection.create or Collection.fromBytes`;

// A trap of the wasm instance (WebAssembly.RuntimeError; by name too, for one from another realm).
const isTrap = (e) => (typeof WebAssembly === 'object' && e instanceof WebAssembly.RuntimeError) || (e instanceof Error && e.name === 'RuntimeError');

// `readSnapshotFile(path, fill)` (Node: lib/snapshot-file-node.js): reads a file through
// `fill(length, read)`, a raw SnapshotBuffer in wasm memory filled by `read(view)`, and returns it; absent in browsers.
function wasmBackend(raw, message = browserMessage, readSnapshotFile = undefined) {
  // Runs a call to completion now; its result or HvError as a Promise.
  const invoke = invokeSync;
  const unsupported = () => hvError('HV_UNSUPPORTED', message('Collection.open'));
  // Traps never leave as they are. The core checks its headroom before it allocates (so a full
  // heap is HV_OUT_OF_MEMORY and changes nothing), but an allocation no check foresaw, or a
  // panic (a bug), still aborts the instance. The binding's panic hook tells the two apart:
  // no panic recorded means an allocation failed.
  const trapped = (e, call) => {
    let panic = null;
    try {
      panic = typeof raw.takePanic === 'function' ? raw.takePanic() : null;
    } catch {
      // the hook's record cannot be read: treat it as no panic
    }
    if (panic != null) return hvError('HV_INTERNAL', `the wasm module panicked in ${call} (a bug in horosvec; please report it): ${panic || 'no message'}`, e);
    if (/unreachable/i.test(String(e.message))) return hvError('HV_OUT_OF_MEMORY', `the wasm heap ran out inside ${call}, past its headroom check`, e);
    return hvError('HV_INTERNAL', `the wasm module trapped in ${call}: ${e.message}`, e);
  };
  const guardTrap = (call, f) => {
    try {
      return f();
    } catch (e) {
      throw isTrap(e) ? trapped(e, call) : e;
    }
  };

  class WasmHandle extends Handle {
    // every call has finished when it returns: nothing to order
    queue = new CallQueue({ immediate: true });
    // Set when a call trapped: the instance lives on and the other collections are unaffected,
    // but this one's Rust object may be half-changed and stays borrowed, so it is never called
    // again (its memory is not returned until the page or process ends).
    #lost = null;

    // Runs raw call `f` (named `call`); a trap marks this handle lost.
    #run(call, f) {
      if (this.#lost !== null) throw hvError('HV_CLOSED', this.#lost);
      try {
        return f();
      } catch (e) {
        if (!isTrap(e)) throw e;
        const err = trapped(e, call);
        this.#lost = `this collection was lost: the wasm module trapped inside ${call} (${err.message}); load or build it again`;
        throw err;
      }
    }
    get size() {
      return this.#run('size', () => this.raw.size);
    }
    stats() {
      return this.#run('stats', () => this.raw.stats());
    }
    get(id) {
      return this.#run('get', () => this.raw.get(id));
    }
    searchSync(query, options) {
      return this.#run('searchSync', () => this.raw.search(query, options));
    }
    close() {
      if (this.#lost === null) this.raw.close();
    }

    get commits() {
      return 0;
    }
    get mutableBound() {
      return 0;
    }
    // in memory: nothing else writes it
    refresh() {
      return Promise.resolve(false);
    }
    write(method, ids, flat, meta) {
      return invoke(() => this.#run(method, () => this.raw[method](ids, flat, meta)));
    }
    delete(ids) {
      return invoke(() => this.#run('delete', () => this.raw.delete(ids)));
    }
    deleteWhere(filter) {
      return invoke(() => this.#run('deleteWhere', () => this.raw.deleteWhere(filter)));
    }
    count(filter) {
      return invoke(() => this.#run('count', () => this.raw.count(filter)));
    }
    list(filter, limit, cursor, includeVectors) {
      return invoke(() => this.#run('list', () => this.raw.list(filter, limit, cursor, includeVectors)));
    }
    search(query, options) {
      return invoke(() => this.#run('search', () => this.raw.search(query, options)));
    }
    searchBatch(flat, options) {
      return invoke(() => this.#run('searchBatch', () => this.raw.searchBatch(flat, options)));
    }
    importGraph(adjacency, degree, entry, params) {
      return invoke(() => this.#run('importGraph', () => this.raw.importGraph(adjacency, degree, entry, params)));
    }
    exportGraph() {
      return invoke(() => this.#run('exportGraph', () => this.raw.exportGraph()));
    }
    toBytes() {
      return invoke(() => this.#run('toBytes', () => this.raw.toBytes()));
    }
    // Collections of this backend live in memory (the JS layer refuses seal/compact before).
    seal() {
      return Promise.reject(unsupported());
    }
    compact() {
      return Promise.reject(unsupported());
    }
    // The build runs on this thread: progress comes through the callback, whose return value
    // (the signal's state) stops the build.
    buildIndex(params, onProgress, signal) {
      return invoke(() =>
        this.#run('buildIndex', () =>
          this.raw.buildIndex(params, (d, t) => {
            if (onProgress) onProgress(d, t);
            return signal?.aborted === true;
          }),
        ),
      );
    }
  }

  // A durable collection in the Origin Private File System (`opfs.js`), over the core's
  // single-threaded driver (`CoreDurable`). A write is applied, committed (one flush) and
  // answered in one synchronous call; the segment jobs the policy asks for run after it, as a
  // write of the queue of their own (so acknowledgements do not wait for a build): the core
  // builds the segment, this writes and flushes its file, then the core installs it.
  class OpfsHandle extends Handle {
    durable = true;
    queue = new CallQueue();
    #store;

    constructor(r, store) {
      super(r);
      this.#store = store;
    }
    get commits() {
      return this.raw.commits;
    }
    get mutableBound() {
      return this.raw.mutableBound;
    }
    get refreshes() {
      return 0;
    }
    get lastRefreshMs() {
      return 0;
    }
    // the only writer of its files
    refresh() {
      return Promise.resolve(false);
    }
    #written(f) {
      return invoke(f).then((n) => {
        this.queue.run(() => this.#maintain(undefined), { kind: 'write' }).catch(() => undefined);
        return n;
      });
    }
    // Runs the jobs the policy asks for; the count of the one `want` ('seal' | 'compact') asked.
    async #maintain(want) {
      const { dir } = this.#store;
      let answer = 0;
      for (;;) {
        const job = this.raw.startJob();
        if (job === undefined) return answer;
        if (job.generation !== null) {
          try {
            await writeSegmentFile(dir, job.generation, job.bytes);
          } catch (e) {
            this.raw.abortJob();
            await removeSegmentFile(dir, job.generation);
            throw e;
          }
        }
        let done;
        try {
          done = this.raw.installJob();
        } catch (e) {
          if (job.generation !== null) await removeSegmentFile(dir, job.generation);
          throw toHvError(e);
        }
        for (const g of done.removed) await removeSegmentFile(dir, g);
        if (want !== undefined && done.seal === (want === 'seal')) answer = done.count;
      }
    }
    write(method, ids, flat, meta) {
      return this.#written(() => this.raw[method](ids, flat, meta));
    }
    delete(ids) {
      return this.#written(() => this.raw.delete(ids));
    }
    deleteWhere(filter) {
      return this.#written(() => this.raw.deleteWhere(filter));
    }
    count(filter) {
      return invoke(() => this.raw.count(filter));
    }
    list(filter, limit, cursor, includeVectors) {
      return invoke(() => this.raw.list(filter, limit, cursor, includeVectors));
    }
    search(query, options) {
      return invoke(() => this.raw.search(query, options));
    }
    searchBatch(flat, options) {
      return invoke(() => this.raw.searchBatch(flat, options));
    }
    seal() {
      return invoke(() => this.raw.ask(true)).then(() => this.#maintain('seal'));
    }
    compact() {
      return invoke(() => this.raw.ask(false)).then(() => this.#maintain('compact'));
    }
    #unsupported(what) {
      return Promise.reject(hvError('HV_UNSUPPORTED', `${what} is not available on a collection opened with storage: 'opfs' (its sealed segments are indexed as they are sealed; use seal())`));
    }
    importGraph() {
      return this.#unsupported('importGraph');
    }
    exportGraph() {
      return this.#unsupported('exportGraph');
    }
    toBytes() {
      return this.#unsupported('toBytes');
    }
    buildIndex() {
      return this.#unsupported('buildIndex');
    }
    close() {
      try {
        this.raw.close();
      } finally {
        this.#store.close();
      }
    }
  }

  async function openOpfs(name, dim, metric, limits, vectors) {
    const store = await openCollectionDir(name);
    let r;
    try {
      r = raw.CoreDurable.open(store.logs[0], store.logs[1], dim, metric, vectors, limits, (g) => store.segments.get(g));
    } catch (e) {
      store.close();
      throw toHvError(e);
    }
    const found = [...store.segments.keys()];
    store.segments.clear();
    try {
      await removeOrphans(store.dir, found, r.liveSegments());
    } catch (e) {
      r.close();
      store.close();
      throw opfsError(e, 'remove orphans in', name);
    }
    return new OpfsHandle(r, store);
  }

  return {
    name: raw.backend(),
    kernel: raw.kernel(),
    version: raw.version(),
    threads: () => raw.threads(),
    openOpfs,
    unsupportedMessage: message === browserMessage ? undefined : message,
    assertCanOpen() {
      throw unsupported();
    },
    create: (dim, metric, vectors) => new WasmHandle(guardTrap('Collection.create', () => raw.CoreCollection.create(dim, metric, vectors))),
    fromBytes: async (bytes) => new WasmHandle(guardTrap('Collection.fromBytes', () => raw.CoreCollection.fromBytes(bytes))),
    fromFile: async (path) => {
      if (readSnapshotFile === undefined) throw hvError('HV_UNSUPPORTED', 'Collection.fromFile reads a file (Node.js); in browsers fetch the snapshot and use Collection.fromBytes');
      return new WasmHandle(
        guardTrap('Collection.fromFile', () => {
          const buf = readSnapshotFile(path, (n, read) => raw.SnapshotBuffer.fill(n, read));
          return raw.CoreCollection.fromBuffer(buf);
        }),
      );
    },
    open: async () => {
      throw unsupported();
    },
  };
}
