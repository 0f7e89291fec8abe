// Where the native backend runs a Promise `search` (issue 18, the async tax). A search handed to
// a worker thread pays two cross-thread wake-ups (the libuv pool picks it up, the event loop
// settles it): 40–160 µs on the machines measured, as much as the search itself. So:
//
// - A search predicted to be cheap runs on the calling thread, inside `search()` itself, when no
//   other search is on the pool: one client awaiting one search after another pays no hop.
// - It stays bounded: a search predicted (from the same kind of search before) to take more than
//   `inlineMs` never runs inline, nor one made while another search runs on the pool or after an
//   inline search in the same microtask checkpoint (concurrent callers: they go to the pool,
//   where both cores serve them). One that would take the inline time of this event-loop turn
//   past `turnMs` is deferred: it runs on the calling thread after the event loop's next turn
//   (`setImmediate`), so a loop of awaited searches yields to timers and I/O at least that often
//   without a thread hop.
// - Everything else goes to the pool, one worker-thread call per search, as before. (Batching
//   the searches made while the pool is busy into one `searchBatch` call, settled in one
//   callback, was measured with `bench/async-tax.mjs all`: no gain at 4 or 8 clients on 2 cores,
//   a loss with at most 2 calls in flight; not kept.)
//
// `placeSearch` is the policy (a pure function, table-tested in tests-js/search-dispatch.test.ts);
// `SearchDispatcher` applies it over the three raw calls and keeps the cost estimates.

/** A search predicted slower than this (ms) never runs on the calling thread. */
export const INLINE_MS = 1;
/** Inline searches stop for the rest of an event-loop turn once they have taken this long (ms). */
export const TURN_MS = 2;

/**
 * Where one search runs: `'inline'` (the calling thread, now), `'defer'` (the calling thread,
 * after the event loop's next turn) or `'pool'` (a worker thread).
 * @param {{ estimateMs: number | undefined, poolPending: number, inlineThisTick: boolean, turnMs: number }} state
 *   `estimateMs`: the predicted time of this kind of search (undefined before one has been timed);
 *   `poolPending`: searches on the pool or waiting for it; `inlineThisTick`: a search ran inline
 *   in this microtask checkpoint; `turnMs`: time spent inline in this event-loop turn
 * @param {{ inlineMs?: number, turnMs?: number }} [budgets]
 * @returns {'inline' | 'defer' | 'pool'}
 */
export function placeSearch({ estimateMs, poolPending, inlineThisTick, turnMs }, budgets = {}) {
  const inlineMs = budgets.inlineMs ?? INLINE_MS;
  const turnBudget = budgets.turnMs ?? TURN_MS;
  if (estimateMs === undefined || estimateMs > inlineMs) return 'pool';
  if (poolPending > 0 || inlineThisTick) return 'pool';
  if (turnMs + estimateMs > turnBudget) return 'defer';
  return 'inline';
}

// The kind of a search, for its cost estimate: everything in its options but the query, and the
// collection's size to a factor of 2 (an exact search's cost grows with it: a kind timed on a
// small collection is timed again, on the pool, once the collection has doubled). A search
// restricted to given ids is keyed by their count only.
const kindOf = (o, size) =>
  `${Math.floor(Math.log2(size + 1))}|${o.k}|${o.ef}|${o.rerank}|${o.exact}|${o.includeMetadata}|${o.ids === undefined ? '' : o.ids.length}|${o.filter ?? ''}`;

// Estimates kept per kind (oldest forgotten first beyond this many).
const MAX_KINDS = 64;
// Weight of a new timing in its kind's estimate.
const ALPHA = 0.25;

export class SearchDispatcher {
  #runSync;
  #runAsync;
  #size;
  #now;
  #onTurnEnd;
  #budgets;
  #estimates = new Map();
  #inFlight = 0;
  #deferred = 0;
  #inlineThisTick = false;
  #turnMs = 0;
  #turnScheduled = false;
  #counts = { inline: 0, deferred: 0, pool: 0 };

  /**
   * @param {{ runSync: (q: Float32Array, o: object) => unknown,
   *   runAsync: (q: Float32Array, o: object) => Promise<unknown>, size: () => number,
   *   budgets?: { inlineMs?: number, turnMs?: number },
   *   now?: () => number, onTurnEnd?: (f: () => void) => void }} calls
   *   `runSync` throws on failure, `runAsync` rejects; `size`: the collection's records;
   *   `onTurnEnd` runs `f` after this event-loop turn (default `setImmediate`)
   */
  constructor({ runSync, runAsync, size, budgets = {}, now = () => performance.now(), onTurnEnd = setImmediate }) {
    this.#runSync = runSync;
    this.#runAsync = runAsync;
    this.#size = size;
    this.#budgets = budgets;
    this.#now = now;
    this.#onTurnEnd = onTurnEnd;
  }

  /** Searches made so far by where they ran: `{ inline, deferred, pool }` (a copy). */
  get counts() {
    return { ...this.#counts };
  }

  /** Searches pending on the pool or deferred. */
  get pending() {
    return this.#inFlight + this.#deferred;
  }

  /**
   * Runs one search: its hits when it ran inline (a throw on failure), else a Promise of them.
   * The query is copied before this returns when the search is deferred (the pool call copies
   * it itself).
   */
  search(query, options) {
    const kind = kindOf(options, this.#size());
    const estimateMs = this.#estimates.get(kind);
    const place = placeSearch({ estimateMs, poolPending: this.pending, inlineThisTick: this.#inlineThisTick, turnMs: this.#turnMs }, this.#budgets);
    if (place === 'inline') {
      this.#counts.inline++;
      return this.#inline(kind, query, options);
    }
    if (place === 'defer') {
      this.#counts.deferred++;
      const q = query.slice();
      this.#deferred++;
      return new Promise((resolve, reject) => {
        this.#onTurnEnd(() => {
          this.#deferred--;
          try {
            resolve(this.#inline(kind, q, options));
          } catch (e) {
            reject(e);
          }
        });
      });
    }
    this.#counts.pool++;
    return this.#pool(kind, query, options);
  }

  #inline(kind, query, options) {
    this.#inlineThisTick = true;
    queueMicrotask(() => {
      this.#inlineThisTick = false;
    });
    if (!this.#turnScheduled) {
      this.#turnScheduled = true;
      this.#onTurnEnd(() => {
        this.#turnScheduled = false;
        this.#turnMs = 0;
      });
    }
    const t0 = this.#now();
    try {
      return this.#runSync(query, options);
    } finally {
      const ms = this.#now() - t0;
      this.#turnMs += ms;
      this.#learn(kind, ms);
    }
  }

  // One pool call; its round trip is timed (an over-estimate of the search, which only keeps a
  // kind on the pool longer) when it ran alone.
  #pool(kind, query, options) {
    const alone = this.#inFlight === 0;
    const p = this.#runAsync(query, options);
    this.#inFlight++;
    const t0 = this.#now();
    const done = () => {
      this.#inFlight--;
    };
    return p.then(
      (r) => {
        if (alone) this.#learn(kind, this.#now() - t0);
        done();
        return r;
      },
      (e) => {
        done();
        throw e;
      },
    );
  }

  #learn(kind, ms) {
    const old = this.#estimates.get(kind);
    if (old === undefined) {
      if (this.#estimates.size >= MAX_KINDS) this.#estimates.delete(this.#estimates.keys().next().value);
      this.#estimates.set(kind, ms);
    } else {
      this.#estimates.set(kind, old + ALPHA * (ms - old));
    }
  }
}
