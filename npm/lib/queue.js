// The order in which one collection's calls run, and the answers of ticketed durable writes.
// Pure scheduling: no backend, no input checks. `operation()` starts a call and returns its
// Promise; the queue decides when to start it. The rules (tested in tests-js/queue.test.ts):
//
// - `immediate` (the wasm backend): every call runs to completion when made, so each one starts
//   at once and nothing is tracked.
// - otherwise (the native backend, whose calls run on worker threads):
//   - a write (`kind: 'write'` or `'build'`) starts after every write made before it has settled
//     (resolved or rejected): writes run one after another, in call order;
//   - a read (`kind: 'read'`) waits for the writes made before it, and holds up nothing;
//   - a call that starts at once needs no copy of its inputs; one that waits first calls
//     `copyInputs()`, so the caller may change its buffers as soon as the call returns;
//   - `groupCommit` (a collection opened from a directory): its committer keeps the call order
//     of plain writes itself and commits concurrent ones together, so a plain write starts at
//     once, unless a build made before it is still pending; it still counts as a write for the
//     reads and builds made after it;
//   - `drain()` settles once every call made so far has settled (what `close()` waits for);
//   - an operation that started at once may return its result itself instead of a Promise (a
//     durable write committed on the caller's thread): it has finished, so it holds up no later
//     call and `drain()` does not wait for it; the caller still gets a Promise of the result.

import { hvError } from './errors.js';

const ignore = () => undefined;

// `operation()`, with a synchronous throw turned into a rejection.
function start(operation) {
  try {
    return operation();
  } catch (e) {
    return Promise.reject(e);
  }
}

export class CallQueue {
  #immediate;
  #groupCommit;
  // Settles when every write made so far has settled; never rejects.
  #writeTail = Promise.resolve();
  #pendingWrites = 0;
  #pendingBuilds = 0;
  #inflight = new Set();

  /**
   * @param {{ immediate?: boolean, groupCommit?: boolean }} options `immediate`: calls run to
   *   completion when made (no ordering needed); `groupCommit`: plain writes are ordered by the
   *   backend's committer, not here.
   */
  constructor({ immediate = false, groupCommit = false } = {}) {
    this.#immediate = immediate;
    this.#groupCommit = groupCommit;
  }

  /**
   * Runs `operation` under the rules above and returns its Promise.
   * @param {() => unknown} operation starts the call: its Promise, or its result when it
   *   finished synchronously
   * @param {{ kind?: 'read' | 'write' | 'build', copyInputs?: () => void }} options `kind`
   *   (default `'read'`): a build is a write that plain group-committed writes wait for;
   *   `copyInputs`: called before the call has to wait (a throw rejects the call with
   *   `HV_INVALID_ARGUMENT`: an input buffer cannot be read, e.g. a detached ArrayBuffer).
   */
  run(operation, { kind = 'read', copyInputs = ignore } = {}) {
    if (this.#immediate) return start(operation);
    const write = kind !== 'read';
    const build = kind === 'build';
    const unordered = write && !build && this.#groupCommit && this.#pendingBuilds === 0;
    let p;
    if (this.#pendingWrites === 0 || unordered) {
      // Nothing to wait for: start now (the backend copies the inputs before returning).
      p = start(operation);
      // finished already (not a thenable): nothing to order after it or to drain
      if (typeof p?.then !== 'function') return Promise.resolve(p);
      if (!write) return this.#track(p);
    } else {
      try {
        copyInputs();
      } catch (e) {
        return Promise.reject(hvError('HV_INVALID_ARGUMENT', `an input buffer cannot be read: ${e?.message ?? e}`));
      }
      p = this.#writeTail.then(() => start(operation));
    }
    if (write) {
      this.#pendingWrites++;
      if (build) this.#pendingBuilds++;
      this.#writeTail = Promise.all([this.#writeTail, p.then(ignore, ignore)]).then(() => {
        this.#pendingWrites--;
        if (build) this.#pendingBuilds--;
      });
    }
    return this.#track(p);
  }

  /** Settles (never rejects) once every call made so far has settled. */
  drain() {
    return Promise.allSettled([...this.#inflight]);
  }

  #track(p) {
    this.#inflight.add(p);
    const done = () => this.#inflight.delete(p);
    p.then(done, done);
    return p;
  }
}

/**
 * The pending answers of ticketed writes. The backend returns a ticket (a number) when a write is
 * queued and later delivers the answers of a whole committed group in one `settle` call. While
 * any ticket is pending, a ref'd timer keeps the event loop alive (the backend's settler does
 * not).
 */
export class TicketBook {
  #pending = new Map();
  #keepAlive = null;
  #toError;

  /** @param {(message: string) => Error} toError turns a failed write's "HV_CODE: message" into its error */
  constructor(toError) {
    this.#toError = toError;
  }

  /** Tickets not answered yet. */
  get size() {
    return this.#pending.size;
  }

  /** A Promise of the answer of `ticket`. */
  wait(ticket) {
    return new Promise((resolve, reject) => {
      this.#pending.set(ticket, { resolve, reject });
      if (this.#keepAlive === null) this.#keepAlive = setInterval(ignore, 2 ** 30);
    });
  }

  /**
   * Delivers the answers of one group: `ok` holds (ticket, result) pairs, `failed[i]` failed with
   * `errors[i]`. Unknown tickets are ignored.
   */
  settle({ ok, failed, errors }) {
    for (let i = 0; i < ok.length; i += 2) {
      const t = this.#pending.get(ok[i]);
      if (t !== undefined) {
        this.#pending.delete(ok[i]);
        t.resolve(ok[i + 1]);
      }
    }
    for (let i = 0; i < failed.length; i++) {
      const t = this.#pending.get(failed[i]);
      if (t !== undefined) {
        this.#pending.delete(failed[i]);
        t.reject(this.#toError(errors[i]));
      }
    }
    if (this.#pending.size === 0 && this.#keepAlive !== null) {
      clearInterval(this.#keepAlive);
      this.#keepAlive = null;
    }
  }
}
