// The ordering rules of one collection's calls (npm/lib/queue.js), tested with fake operations
// whose completion each test controls: no backend involved.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CallQueue, TicketBook } from '../npm/lib/queue.js';

type Kind = 'read' | 'write' | 'build';

/** A fake call: records when it starts; settles when the test says so. */
function fake(log: string[], name: string) {
  let resolve!: (v: string) => void;
  let reject!: (e: Error) => void;
  const done = new Promise<string>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return {
    operation: () => {
      log.push(name);
      return done;
    },
    resolve: () => resolve(name),
    reject: () => reject(new Error(`${name} failed`)),
  };
}

/** Lets every queued continuation run. */
const flush = () => new Promise((r) => setTimeout(r, 0));

/** Makes calls on `q` and returns their fakes and promises by name. */
function calls(q: CallQueue, log: string[], copies: string[], plan: [string, Kind][]) {
  const out: Record<string, ReturnType<typeof fake> & { result: Promise<string> }> = {};
  for (const [name, kind] of plan) {
    const f = fake(log, name);
    const result = q.run(f.operation, { kind, copyInputs: () => copies.push(name) });
    result.catch(() => {}); // observed by the tests that care
    out[name] = { ...f, result };
  }
  return out;
}

describe('CallQueue (native backend: calls on worker threads)', () => {
  it('runs writes one after another in call order, each after the previous settled (even a failure)', async () => {
    const q = new CallQueue();
    const log: string[] = [], copies: string[] = [];
    const c = calls(q, log, copies, [['w1', 'write'], ['w2', 'write'], ['b3', 'build'], ['w4', 'write']]);
    expect(log).toEqual(['w1']); // the first starts at once
    expect(copies).toEqual(['w2', 'b3', 'w4']); // those that wait copy their inputs first
    await flush();
    expect(log).toEqual(['w1']);
    c.w1.reject();
    await flush();
    expect(log).toEqual(['w1', 'w2']);
    await expect(c.w1.result).rejects.toThrow('w1 failed');
    c.w2.resolve();
    await flush();
    expect(log).toEqual(['w1', 'w2', 'b3']);
    c.b3.resolve();
    await flush();
    expect(log).toEqual(['w1', 'w2', 'b3', 'w4']);
    c.w4.resolve();
    expect(await c.w4.result).toBe('w4');
  });

  it('starts a read at once when no write is pending, and a read holds up no write', async () => {
    const q = new CallQueue();
    const log: string[] = [], copies: string[] = [];
    const c = calls(q, log, copies, [['r1', 'read'], ['r2', 'read'], ['w3', 'write'], ['r4', 'read']]);
    expect(log).toEqual(['r1', 'r2', 'w3']); // r4 waits for w3
    expect(copies).toEqual(['r4']);
    c.w3.resolve();
    await flush();
    expect(log).toEqual(['r1', 'r2', 'w3', 'r4']);
    c.r4.resolve();
    expect(await c.r4.result).toBe('r4');
    // r1 and r2 are still running: they never blocked anything
    c.r1.resolve();
    c.r2.resolve();
    expect(await Promise.all([c.r1.result, c.r2.result])).toEqual(['r1', 'r2']);
  });

  it('makes a read wait for the writes made before it, not for those made after it', async () => {
    const q = new CallQueue();
    const log: string[] = [], copies: string[] = [];
    const c = calls(q, log, copies, [['w1', 'write'], ['r2', 'read'], ['w3', 'write']]);
    expect(log).toEqual(['w1']);
    c.w1.resolve();
    await flush();
    expect(log).toEqual(['w1', 'r2', 'w3']); // both were waiting for w1 only
    c.r2.resolve();
    expect(await c.r2.result).toBe('r2'); // while w3 is still pending
    c.w3.resolve();
    await c.w3.result;
  });

  it('a read waits behind a failed write too, then runs', async () => {
    const q = new CallQueue();
    const log: string[] = [], copies: string[] = [];
    const c = calls(q, log, copies, [['w1', 'write'], ['r2', 'read']]);
    c.w1.reject();
    await flush();
    expect(log).toEqual(['w1', 'r2']);
    c.r2.resolve();
    expect(await c.r2.result).toBe('r2');
  });

  it('starts anything at once again once the writes have settled (no copies)', async () => {
    const q = new CallQueue();
    const log: string[] = [], copies: string[] = [];
    const first = calls(q, log, copies, [['w1', 'write']]);
    first.w1.resolve();
    await first.w1.result;
    await flush();
    calls(q, log, copies, [['r2', 'read'], ['w3', 'write']]);
    expect(log).toEqual(['w1', 'r2', 'w3']);
    expect(copies).toEqual([]);
  });

  it('rejects a waiting call whose inputs cannot be copied, without starting it', async () => {
    const q = new CallQueue();
    const log: string[] = [];
    const w1 = fake(log, 'w1');
    q.run(w1.operation, { kind: 'write' });
    const r2 = fake(log, 'r2');
    const p = q.run(r2.operation, {
      copyInputs: () => {
        throw new TypeError('detached');
      },
    });
    await expect(p).rejects.toMatchObject({ code: 'HV_INVALID_ARGUMENT', message: expect.stringContaining('an input buffer cannot be read: detached') });
    w1.resolve();
    await flush();
    expect(log).toEqual(['w1']);
  });

  it('turns a synchronous throw of an operation into a rejection', async () => {
    const q = new CallQueue();
    const boom = new Error('boom');
    await expect(q.run(() => { throw boom; }, { kind: 'write' })).rejects.toBe(boom);
    await expect(q.run(() => { throw boom; })).rejects.toBe(boom);
  });

  it('drain() settles once every call made so far has settled, and never rejects', async () => {
    const q = new CallQueue();
    const log: string[] = [], copies: string[] = [];
    const c = calls(q, log, copies, [['r1', 'read'], ['w2', 'write'], ['w3', 'write']]);
    let drained = false;
    const d = q.drain().then(() => {
      drained = true;
    });
    c.w2.reject();
    await flush();
    c.w3.resolve();
    await flush();
    expect(drained).toBe(false); // r1 still runs
    c.r1.resolve();
    await d;
    expect(drained).toBe(true);
  });
});

describe('CallQueue with groupCommit (a durable collection: its committer orders plain writes)', () => {
  it('starts plain writes at once; reads made after them still wait for them', async () => {
    const q = new CallQueue({ groupCommit: true });
    const log: string[] = [], copies: string[] = [];
    const c = calls(q, log, copies, [['w1', 'write'], ['w2', 'write'], ['r3', 'read'], ['w4', 'write']]);
    expect(log).toEqual(['w1', 'w2', 'w4']);
    expect(copies).toEqual(['r3']);
    c.w1.resolve();
    await flush();
    expect(log).toEqual(['w1', 'w2', 'w4']);
    c.w2.resolve();
    await flush();
    expect(log).toEqual(['w1', 'w2', 'w4', 'r3']); // after w1 and w2, not w4 (made after it)
    c.w4.resolve();
    c.r3.resolve();
    await Promise.all([c.r3.result, c.w4.result]);
  });

  it('makes a build wait for the writes before it, and plain writes wait while a build is pending', async () => {
    const q = new CallQueue({ groupCommit: true });
    const log: string[] = [], copies: string[] = [];
    const c = calls(q, log, copies, [['w1', 'write'], ['b2', 'build'], ['w3', 'write'], ['w4', 'write']]);
    expect(log).toEqual(['w1']);
    expect(copies).toEqual(['b2', 'w3', 'w4']);
    c.w1.resolve();
    await flush();
    expect(log).toEqual(['w1', 'b2']);
    c.b2.resolve();
    await flush();
    expect(log).toEqual(['w1', 'b2', 'w3']); // the write tail: one after another again
    c.w3.resolve();
    await flush();
    expect(log).toEqual(['w1', 'b2', 'w3', 'w4']);
    c.w4.resolve();
    await c.w4.result;
    await flush();
    // nothing pending: plain writes start at once again
    calls(q, log, copies, [['w5', 'write'], ['w6', 'write']]);
    expect(log.slice(-2)).toEqual(['w5', 'w6']);
  });

  it('passes on a result an operation returned itself (a write committed at once): nothing waits for it', async () => {
    const q = new CallQueue({ groupCommit: true });
    const log: string[] = [], copies: string[] = [];
    const done = q.run(() => {
      log.push('w1');
      return 3;
    }, { kind: 'write', copyInputs: () => copies.push('w1') });
    expect(done).toBeInstanceOf(Promise);
    const c = calls(q, log, copies, [['r2', 'read'], ['b3', 'build']]);
    expect(log).toEqual(['w1', 'r2', 'b3']); // neither the read nor the build waits for w1
    expect(copies).toEqual([]);
    let drained = false;
    const d = q.drain().then(() => {
      drained = true;
    });
    c.r2.resolve();
    c.b3.resolve();
    await d;
    expect(drained).toBe(true);
    expect(await done).toBe(3);
    // behind a pending write, the same operation waits its turn as any other
    const w4 = fake(log, 'w4');
    const q2 = new CallQueue();
    q2.run(w4.operation, { kind: 'write' });
    const later = q2.run(() => {
      log.push('w5');
      return 0;
    }, { kind: 'write', copyInputs: () => copies.push('w5') });
    expect(log.slice(-1)).toEqual(['w4']);
    expect(copies).toEqual(['w5']);
    w4.resolve();
    expect(await later).toBe(0);
    expect(log.slice(-2)).toEqual(['w4', 'w5']);
  });

  it('starts a build at once when nothing is pending', () => {
    const q = new CallQueue({ groupCommit: true });
    const log: string[] = [], copies: string[] = [];
    calls(q, log, copies, [['b1', 'build'], ['r2', 'read']]);
    expect(log).toEqual(['b1']);
    expect(copies).toEqual(['r2']);
  });
});

describe('CallQueue immediate (wasm backend: a call has finished when it returns)', () => {
  it('starts every call at once, copies nothing, tracks nothing', async () => {
    const q = new CallQueue({ immediate: true });
    const log: string[] = [], copies: string[] = [];
    const c = calls(q, log, copies, [['w1', 'write'], ['b2', 'build'], ['r3', 'read'], ['w4', 'write']]);
    expect(log).toEqual(['w1', 'b2', 'r3', 'w4']);
    expect(copies).toEqual([]);
    await q.drain(); // even with every call pending
    c.r3.resolve();
    expect(await c.r3.result).toBe('r3');
    const boom = new Error('boom');
    await expect(q.run(() => { throw boom; })).rejects.toBe(boom);
  });
});

describe('TicketBook (answers of ticketed durable writes)', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('resolves and rejects the tickets of a group, ignores unknown ones, and keeps the loop alive only while any is pending', async () => {
    const set = vi.spyOn(globalThis, 'setInterval');
    const clear = vi.spyOn(globalThis, 'clearInterval');
    const book = new TicketBook((m) => Object.assign(new Error(m), { code: m.split(':')[0] }));
    const a = book.wait(1), b = book.wait(2), c = book.wait(3);
    expect(book.size).toBe(3);
    expect(set).toHaveBeenCalledTimes(1); // one timer for all
    book.settle({ ok: [1, 5, 99, 1], failed: [2, 98], errors: ['HV_DIM_MISMATCH: bad', 'HV_X: y'] });
    expect(await a).toBe(5);
    await expect(b).rejects.toMatchObject({ code: 'HV_DIM_MISMATCH', message: 'HV_DIM_MISMATCH: bad' });
    expect(book.size).toBe(1);
    expect(clear).not.toHaveBeenCalled();
    book.settle({ ok: [3, 0], failed: [], errors: [] });
    expect(await c).toBe(0);
    expect(book.size).toBe(0);
    expect(clear).toHaveBeenCalledTimes(1);
    const d = book.wait(4); // a new timer for the next pending ticket
    expect(set).toHaveBeenCalledTimes(2);
    book.settle({ ok: [4, 2], failed: [], errors: [] });
    expect(await d).toBe(2);
    expect(clear).toHaveBeenCalledTimes(2);
  });
});
