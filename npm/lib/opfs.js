// The Origin Private File System side of `Collection.open(name, { storage: 'opfs' })` (wasm
// backend, in a dedicated Web Worker: sync access handles exist nowhere else). A collection is
// the directory `horosvec/<name>/` of the origin's file system:
//
//   log-a.hvlog, log-b.hvlog   the record store's two log files (core/src/store/log), each held
//                              through a FileSystemSyncAccessHandle for as long as the collection
//                              is open: the handle is exclusive, so a second open anywhere in the
//                              origin (another tab, worker or handle) is HV_LOCKED
//   seg-<16 digits>.hvseg      sealed segments (HVSEG002), written whole and flushed before the
//                              manifest names them, read whole at open
//
// This module only moves bytes: the core decides what they mean (which segments are live, what
// is an orphan). Errors: a DOMException named QuotaExceededError → HV_QUOTA, the lock → HV_LOCKED,
// anything else → HV_IO.

import { hvError } from './errors.js';
import { NAME } from './database.js';

const ROOT = 'horosvec';
const LOGS = ['log-a.hvlog', 'log-b.hvlog'];
const SEGMENT = /^seg-(\d{16})\.hvseg(\.tmp)?$/;

export const segmentFileName = (generation) => `seg-${String(generation).padStart(16, '0')}.hvseg`;

/** The HV_UNSUPPORTED text when this environment cannot hold OPFS collections, else null. */
export function opfsUnsupported() {
  const storage = globalThis.navigator?.storage;
  if (typeof storage?.getDirectory !== 'function') {
    return "storage: 'opfs' needs the browser's Origin Private File System (navigator.storage.getDirectory), which this environment does not have (Node.js, or an older browser); under Node use Collection.open(path) on disk";
  }
  if (typeof globalThis.FileSystemSyncAccessHandle !== 'function' || typeof globalThis.FileSystemFileHandle?.prototype?.createSyncAccessHandle !== 'function') {
    return "storage: 'opfs' needs sync access handles (FileSystemSyncAccessHandle), which browsers provide only in dedicated Web Workers: open the collection through horosvec/worker (its Collection.open runs in a Worker), not on the page's main thread";
  }
  return null;
}

/** A thrown DOMException (or anything) of `what` on `file` → HvError. */
export function opfsError(e, what, file) {
  if (e?.code?.startsWith?.('HV_')) return e;
  const name = e?.name ?? 'Error';
  const message = `${what} ${file}: ${name}: ${e?.message ?? String(e)}`;
  if (name === 'QuotaExceededError') return hvError('HV_QUOTA', `the origin's storage quota is exhausted (${message}); nothing acknowledged was lost`, e);
  return hvError('HV_IO', message, e);
}

const closeQuietly = (h) => {
  try {
    h?.close();
  } catch {
    // already closed
  }
};

/**
 * Opens collection `name`'s directory: its two log files' sync access handles, and the bytes of
 * every segment file in it (orphans included: the core says which are live).
 * @returns {Promise<{ dir: FileSystemDirectoryHandle, logs: FileSystemSyncAccessHandle[], segments: Map<number, Uint8Array>, close(): void }>}
 */
export async function openCollectionDir(name) {
  const why = opfsUnsupported();
  if (why !== null) throw hvError('HV_UNSUPPORTED', why);
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw hvError('HV_INVALID_ARGUMENT', `an OPFS collection name must match ${NAME} (letters, digits, '_' and '-', 1 to 128 characters, not starting with '-'), got ${JSON.stringify(name)}`);
  }
  let dir;
  try {
    const root = await globalThis.navigator.storage.getDirectory();
    dir = await (await root.getDirectoryHandle(ROOT, { create: true })).getDirectoryHandle(name, { create: true });
  } catch (e) {
    throw opfsError(e, 'open directory', `${ROOT}/${name}`);
  }
  const logs = [];
  try {
    for (const file of LOGS) {
      const fh = await dir.getFileHandle(file, { create: true }).catch((e) => {
        throw opfsError(e, 'open', file);
      });
      try {
        logs.push(await fh.createSyncAccessHandle());
      } catch (e) {
        if (e?.name === 'NoModificationAllowedError' || e?.name === 'InvalidStateError') {
          throw hvError('HV_LOCKED', `OPFS collection "${name}" is open in another tab, worker or handle (one writer per collection): close it there first`, e);
        }
        throw opfsError(e, 'open', file);
      }
    }
    const segments = new Map();
    for await (const [file, h] of dir.entries()) {
      const m = SEGMENT.exec(file);
      if (m === null || h.kind !== 'file') continue;
      if (m[2] !== undefined) {
        await dir.removeEntry(file).catch(() => undefined);
        continue;
      }
      try {
        segments.set(Number(m[1]), new Uint8Array(await (await h.getFile()).arrayBuffer()));
      } catch (e) {
        throw opfsError(e, 'read', file);
      }
    }
    return { dir, logs, segments, close: () => logs.forEach(closeQuietly) };
  } catch (e) {
    logs.forEach(closeQuietly);
    throw e;
  }
}

/** Writes segment `generation`'s file whole and flushes it. */
export async function writeSegmentFile(dir, generation, bytes) {
  const file = segmentFileName(generation);
  let h;
  try {
    h = await (await dir.getFileHandle(file, { create: true })).createSyncAccessHandle();
    h.truncate(0);
    const n = h.write(bytes, { at: 0 });
    if (n !== bytes.length) throw Object.assign(new Error(`${n} of ${bytes.length} bytes written`), { name: 'QuotaExceededError' });
    h.flush();
  } catch (e) {
    throw opfsError(e, 'write', file);
  } finally {
    closeQuietly(h);
  }
}

/** Removes segment `generation`'s file, best effort (a file left is an orphan, removed at the next open). */
export async function removeSegmentFile(dir, generation) {
  await dir.removeEntry(segmentFileName(generation)).catch(() => undefined);
}

/** Removes every segment file whose generation is not in `live`. */
export async function removeOrphans(dir, found, live) {
  const keep = new Set(live);
  for (const g of found) if (!keep.has(g)) await removeSegmentFile(dir, g);
}
