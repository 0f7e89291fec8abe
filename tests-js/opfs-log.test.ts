// The wasm build's OPFS store over file objects of our own (the methods of a
// FileSystemSyncAccessHandle over a byte array), so that a full quota can be forced: a
// QuotaExceededError DOMException from write() is HV_QUOTA, the refused batch leaves no trace,
// what was acknowledged stays, the collection keeps answering and takes writes again once
// space is back. The real handles are exercised in Chromium (tests-js/browser/opfs*).
import { describe, expect, it } from 'vitest';
import { loadWasm } from '../npm/lib/wasm-raw-node.js';

// A sync-access-handle look-alike; `room`: bytes the next writes may still add (quota).
class MemHandle {
  bytes = new Uint8Array(0);
  room = Infinity;
  flushes = 0;
  getSize() {
    return this.bytes.length;
  }
  read(buf: Uint8Array, { at }: { at: number }) {
    const part = this.bytes.subarray(at, at + buf.length);
    buf.set(part);
    return part.length;
  }
  write(buf: Uint8Array, { at }: { at: number }) {
    const end = at + buf.length;
    if (end > this.bytes.length && end - this.bytes.length > this.room) throw new DOMException('quota exhausted', 'QuotaExceededError');
    if (end > this.bytes.length) {
      this.room -= end - this.bytes.length;
      const grown = new Uint8Array(end);
      grown.set(this.bytes);
      this.bytes = grown;
    }
    this.bytes.set(buf, at);
    return buf.length;
  }
  truncate(n: number) {
    const b = new Uint8Array(n);
    b.set(this.bytes.subarray(0, n));
    this.bytes = b;
  }
  flush() {
    this.flushes++;
  }
}

const DIM = 4;
const batch = (from: number, n: number) => ({
  ids: Array.from({ length: n }, (_, i) => from + i),
  vectors: new Float32Array(Array.from({ length: n * DIM }, (_, i) => Math.cos(from + i))),
  meta: Array.from({ length: n }, (_, i) => JSON.stringify({ b: Math.floor((from + i) / 10) })),
});

describe('OPFS log store (wasm, file objects of our own)', () => {
  const raw = loadWasm() as unknown as { CoreDurable: { open(...a: unknown[]): any } };
  const open = (a: MemHandle, b: MemHandle, dim?: number) => raw.CoreDurable.open(a, b, dim, 'cosine', undefined, {}, () => undefined);

  it('maps QuotaExceededError to HV_QUOTA and loses nothing acknowledged', () => {
    const [a, b] = [new MemHandle(), new MemHandle()];
    const col = open(a, b, DIM);
    const first = batch(0, 10);
    expect(col.add(first.ids, first.vectors, first.meta)).toBe(10);
    const flushes = a.flushes + b.flushes;
    a.room = b.room = 50;
    const refused = batch(10, 10);
    let err: any;
    try {
      col.add(refused.ids, refused.vectors, refused.meta);
    } catch (e) {
      err = e;
    }
    expect(err?.code).toBe('HV_QUOTA');
    expect(col.size).toBe(10);
    expect(col.get(20)).toBeUndefined();
    expect(col.get(3)).toBeDefined();
    expect(col.search(first.vectors.subarray(0, DIM), { k: 1, includeMetadata: true, exact: true }).ids[0]).toBe(0);
    a.room = b.room = Infinity;
    expect(col.add(refused.ids, refused.vectors, refused.meta)).toBe(10);
    expect(a.flushes + b.flushes).toBeGreaterThan(flushes);
    col.close();
    const back = open(a, b);
    expect(back.size).toBe(20);
    expect(back.count(JSON.stringify({ b: 1 }))).toBe(10);
    back.close();
  });

  it('an I/O failure is HV_IO; a missing dim to create is HV_INVALID_ARGUMENT', () => {
    let err: any;
    try {
      open(new MemHandle(), new MemHandle());
    } catch (e) {
      err = e;
    }
    expect(err?.code).toBe('HV_INVALID_ARGUMENT');
    const bad = new MemHandle();
    bad.write = () => {
      throw new DOMException('gone', 'NotFoundError');
    };
    try {
      open(bad, new MemHandle(), DIM);
    } catch (e) {
      err = e;
    }
    expect(err?.code).toBe('HV_IO');
    expect(String(err?.message)).toMatch(/NotFoundError/);
  });
});
