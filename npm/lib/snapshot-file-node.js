// `Collection.fromFile` for the wasm build under Node: the snapshot file is read straight into a
// buffer in wasm memory (`fill(length, read)`: a raw `SnapshotBuffer.fill`, which calls `read`
// once with a view of the buffer's bytes, not zeroed first), with no JS copy of its bytes.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { hvError } from './errors.js';

export function readSnapshotFile(path, fill) {
  let fd;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw hvError('HV_IO', `cannot open ${path}: ${e.message}`, e);
  }
  try {
    const size = fstatSync(fd).size;
    // `view` is a view of wasm memory: valid until the memory grows, and nothing allocates in
    // wasm while the file is read into it
    return fill(size, (view) => {
      let done = 0;
      try {
        while (done < size) {
          const n = readSync(fd, view, done, size - done, done);
          if (n === 0) break;
          done += n;
        }
      } catch (e) {
        throw hvError('HV_IO', `cannot read ${path}: ${e.message}`, e);
      }
      if (done !== size) throw hvError('HV_IO', `${path} shrank while it was read (${done} of ${size} bytes)`);
      return done;
    });
  } finally {
    closeSync(fd);
  }
}
