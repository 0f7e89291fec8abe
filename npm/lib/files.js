// File writes that a crash cannot leave half done, shared by the durable database (database.js)
// and the adapters' save/persist (adapters/langchain.js, adapters/llamaindex.js). The caller
// passes `node:fs/promises`, so this module imports nothing of Node's and stays safe in the
// browser entry's bundle.

/**
 * Writes `data` to `file` through a temporary file beside it, synced, then renamed over `file`:
 * a reader sees the old content or the new, never part of it. The temporary file is removed
 * when a step fails.
 */
export async function writeAtomic(fs, file, data) {
  const tmp = `${file}.tmp-${globalThis.crypto.randomUUID()}`;
  try {
    const fh = await fs.open(tmp, 'w');
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.rename(tmp, file);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw e;
  }
}

/** Makes a rename in `dir` durable (POSIX); a no-op where directories cannot be synced. */
export async function syncDir(fs, dir) {
  let h;
  try {
    h = await fs.open(dir, 'r');
    await h.sync();
  } catch {
    // Windows cannot open a directory; its renames are journaled by NTFS
  } finally {
    await h?.close().catch(() => undefined);
  }
}
