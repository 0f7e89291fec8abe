// `Collection.fromFile` for the wasm build under Node: the snapshot file is read straight into a
// buffer in wasm memory (`alloc(length)`: a raw SnapshotBuffer), with no JS copy of its bytes.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { hvError } from './errors.js';

export function readSnapshotFile(path, alloc) {
  let fd;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw hvError('HV_IO', `cannot open ${path}: ${e.message}`, e);
  }
  try {
    const size = fstatSync(fd).size;
    const buf = alloc(size);
    let done = 0;
    try {
      // a view of wasm memory: valid until the memory grows, and nothing allocates in wasm
      // while the file is read into it
      const view = buf.view();
      while (done < size) {
        const n = readSync(fd, view, done, size - done, done);
        if (n === 0) break;
        done += n;
      }
    } catch (e) {
      buf.free();
      throw hvError('HV_IO', `cannot read ${path}: ${e.message}`, e);
    }
    if (done !== size) {
      buf.free();
      throw hvError('HV_IO', `${path} shrank while it was read (${done} of ${size} bytes)`);
    }
    return buf;
  } finally {
    closeSync(fd);
  }
}
