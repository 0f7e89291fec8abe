// The two engines of the single-write benchmarks (bench/single-writes.mjs, which times them, and
// bench/write-syscalls.mjs, which counts their system calls), opened the same way for both: a
// durable horosvec collection, and sqlite-vec as the matrix's `writes` sweep runs it
// (better-sqlite3, WAL, `synchronous` = FULL / NORMAL / OFF for durability full / normal / off,
// one vec0 table, one transaction per call; an upsert is a delete plus an insert in one
// transaction). Each opener returns { api, add(i), upsert(i), delete(i), close() → { commits } }
// over rows `row(i)` (dim floats, cosine).
import { join } from 'node:path';

/** A durable horosvec collection in `dir`/col through module `hv` (the package's entry). */
export async function openHorosvec(hv, dir, durability, dim, row) {
  const col = await hv.Collection.open(join(dir, 'col'), { dim, metric: 'cosine', durability });
  return {
    api: 'Collection.add / upsert / delete (Promise)',
    add: (i) => col.add(i, row(i)),
    upsert: (i) => col.upsert([i], row(i + 7)),
    delete: (i) => col.delete([i]),
    close: async () => {
      const commits = col.stats().commits;
      await col.close();
      return { commits };
    },
  };
}

/** sqlite-vec's vec0 table in `dir`/v.db. */
export async function openSqliteVec(dir, durability, dim, row) {
  const Database = (await import('better-sqlite3')).default;
  const vec = await import('sqlite-vec');
  const db = new Database(join(dir, 'v.db'));
  vec.load(db);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${{ full: 'FULL', normal: 'NORMAL', off: 'OFF' }[durability]}`);
  db.exec(`create virtual table v using vec0(embedding float[${dim}] distance_metric=cosine)`);
  const ins = db.prepare('insert into v(rowid, embedding) values (?, ?)');
  const del = db.prepare('delete from v where rowid = ?');
  const add = db.transaction((id) => ins.run(BigInt(id), row(id)));
  const upd = db.transaction((id) => {
    del.run(BigInt(id));
    ins.run(BigInt(id), row(id + 7));
  });
  return {
    api: 'better-sqlite3 statements (sync), one transaction per call',
    add: (i) => add(i),
    upsert: (i) => upd(i),
    delete: (i) => del.run(BigInt(i)),
    close: async () => {
      db.close();
      return { commits: null };
    },
  };
}
