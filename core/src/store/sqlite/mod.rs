//! [`SqliteStore`]: a collection directory holding one SQLite database (rusqlite, bundled
//! SQLite) in WAL mode, plus a `LOCK` file that one writer holds with an exclusive advisory lock.
//! Layout and pragmas: `docs/format.md`.
//!
//! | file | concept |
//! | --- | --- |
//! | `mod.rs` | [`SqliteStore`] and its [`RecordStore`] implementation: load, manifest, commit, reclaim |
//! | `open.rs` | [`SqliteStore::open`]: create or open, the writer's lock, the checks of an existing directory |
//! | `schema.rs` | the tables, the `meta` rows, the record CRC, SQLite errors → stable codes |

mod open;
mod schema;

use std::fs::File;
use std::path::PathBuf;

use rusqlite::{params, Connection};

use super::{decode_id, encode_id, ManifestEntry, Mutation, Reclaim, RecordStore, StoredRecord};
use crate::error::{Error, Result};
use crate::types::Metric;
use schema::{
    record_crc, sql_err, table_count, RECLAIM_DURING_WRITES_MIN_PAGES, RECLAIM_MIN_PAGES,
};

/// The database file inside a collection directory.
pub const DB_FILE: &str = "collection.db";
/// The writer's lock file inside a collection directory.
pub const LOCK_FILE: &str = "LOCK";
/// The format version written to `meta.format_version` by `f32` collections; values other than
/// it and [`F16_FORMAT_VERSION`] give `HV_VERSION`.
pub const FORMAT_VERSION: u32 = 1;
/// The format version of `f16` collections (`meta.vectors = f16`): the same layout, stamped
/// apart so that a build from before f16 rows (which reads only version 1) refuses the
/// collection with `HV_VERSION` instead of writing `f32` segment files into it.
pub const F16_FORMAT_VERSION: u32 = 2;
/// `meta.format` of a horosvec collection database.
const FORMAT_NAME: &str = "horosvec-collection";

/// One collection directory's database.
pub struct SqliteStore {
    dir: PathBuf,
    /// The database file's path as error messages name it (made once, not per commit).
    ctx: String,
    conn: Connection,
    dim: usize,
    metric: Metric,
    /// How the collection keeps its rows (`meta.vectors`; `f32` when absent).
    precision: crate::rowdata::Precision,
    read_only: bool,
    /// Held (exclusively locked) for the store's lifetime by a writer; released on drop.
    _lock: Option<File>,
}

impl RecordStore for SqliteStore {
    fn shape(&self) -> (usize, Metric) {
        (self.dim, self.metric)
    }

    fn precision(&self) -> crate::rowdata::Precision {
        self.precision
    }

    fn segments(&mut self) -> Result<Vec<ManifestEntry>> {
        let ctx = self.ctx.as_str();
        if table_count(&self.conn, &["segments", "tombstones"]).map_err(sql_err(ctx))? < 2 {
            return Ok(Vec::new());
        }
        let mut out: Vec<ManifestEntry> = Vec::new();
        {
            let mut stmt = self
                .conn
                .prepare("SELECT generation, rows FROM segments ORDER BY generation")
                .map_err(sql_err(ctx))?;
            let mut rows = stmt.query([]).map_err(sql_err(ctx))?;
            while let Some(r) = rows.next().map_err(sql_err(ctx))? {
                let g: i64 = r.get(0).map_err(sql_err(ctx))?;
                let n: i64 = r.get(1).map_err(sql_err(ctx))?;
                if g < 0 || n <= 0 {
                    return Err(Error::Corrupt(format!(
                        "{ctx}: manifest row (generation {g}, rows {n})"
                    )));
                }
                out.push(ManifestEntry {
                    generation: g as u64,
                    rows: n as u64,
                    tombstones: Vec::new(),
                });
            }
        }
        let mut stmt = self
            .conn
            .prepare("SELECT generation, row FROM tombstones ORDER BY generation, row")
            .map_err(sql_err(ctx))?;
        let mut rows = stmt.query([]).map_err(sql_err(ctx))?;
        while let Some(r) = rows.next().map_err(sql_err(ctx))? {
            let g: i64 = r.get(0).map_err(sql_err(ctx))?;
            let row: i64 = r.get(1).map_err(sql_err(ctx))?;
            let e = out
                .iter_mut()
                .find(|e| e.generation as i64 == g)
                .filter(|e| row >= 0 && (row as u64) < e.rows)
                .ok_or_else(|| {
                    Error::Corrupt(format!(
                        "{ctx}: tombstone ({g}, {row}) names no segment row"
                    ))
                })?;
            e.tombstones.push(row as u32);
        }
        Ok(out)
    }

    fn load(&mut self, sink: &mut dyn FnMut(StoredRecord) -> Result<()>) -> Result<()> {
        let ctx = self.ctx.as_str();
        let mut stmt = self
            .conn
            .prepare("SELECT id, seq, vector, metadata, crc FROM records ORDER BY seq")
            .map_err(sql_err(ctx))?;
        let mut rows = stmt.query([]).map_err(sql_err(ctx))?;
        let dim = self.dim;
        while let Some(row) = rows.next().map_err(sql_err(ctx))? {
            let key: Vec<u8> = row
                .get(0)
                .map_err(|e| Error::Corrupt(format!("{ctx}: record id: {e}")))?;
            let id = decode_id(&key).ok_or_else(|| {
                Error::Corrupt(format!("{ctx}: undecodable record id {key:02x?}"))
            })?;
            let seq: i64 = row
                .get(1)
                .map_err(|e| Error::Corrupt(format!("{ctx}: record seq: {e}")))?;
            let blob = row
                .get_ref(2)
                .map_err(sql_err(ctx))?
                .as_blob()
                .map_err(|e| Error::Corrupt(format!("{ctx}: vector of {id}: {e}")))?;
            if blob.len() != dim * 4 || seq < 0 {
                return Err(Error::Corrupt(format!(
                    "{ctx}: record {id} has {} vector bytes (want {}) or seq {seq}",
                    blob.len(),
                    dim * 4
                )));
            }
            let vector: Vec<f32> = blob
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            let metadata: Option<String> = row
                .get(3)
                .map_err(|e| Error::Corrupt(format!("{ctx}: metadata of {id}: {e}")))?;
            let crc: i64 = row
                .get(4)
                .map_err(|e| Error::Corrupt(format!("{ctx}: checksum of {id}: {e}")))?;
            if crc != i64::from(record_crc(&key, seq, blob, metadata.as_deref())) {
                return Err(Error::Corrupt(format!(
                    "{ctx}: record {id} fails its checksum (damaged on disk)"
                )));
            }
            sink(StoredRecord {
                id,
                seq: seq as u64,
                vector,
                metadata,
            })?;
        }
        Ok(())
    }

    fn begin_read(&mut self) -> Result<()> {
        let ctx = self.ctx.as_str();
        // In WAL mode a read transaction reads one snapshot: the one current at its first read,
        // kept until it ends, whatever the writer commits meanwhile.
        self.conn
            .execute_batch("BEGIN DEFERRED")
            .map_err(sql_err(ctx))
    }

    fn end_read(&mut self) {
        if !self.conn.is_autocommit() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }

    /// `PRAGMA data_version` of this handle's connection. Chosen over a commit counter in
    /// `meta`: it costs the writer nothing (no extra row written in each commit transaction, no
    /// format change, and it also sees commits of older writers), and reading it costs the
    /// reader no I/O beyond the WAL index in shared memory that every read checks anyway. SQLite
    /// changes it whenever another connection (in any process) committed since the previous
    /// call on this connection; a checkpoint may change it too, which only costs a reload.
    fn change_token(&mut self) -> Result<u64> {
        let ctx = self.ctx.as_str();
        let v: i64 = self
            .conn
            .query_row("PRAGMA data_version", [], |r| r.get(0))
            .map_err(sql_err(ctx))?;
        Ok(v as u64)
    }

    fn reclaim(&mut self, when: Reclaim) -> Result<()> {
        let force = when == Reclaim::Always;
        let ctx = self.ctx.as_str();
        let conn = &self.conn;
        let pragma = |name: &str| -> Result<i64> {
            conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get(0))
                .map_err(sql_err(ctx))
        };
        let (free, pages) = (pragma("freelist_count")?, pragma("page_count")?);
        // worth a vacuum when a quarter of the file (and at least 1 MiB at 4 KiB pages; 64 MiB
        // while writes stream) is free
        let floor = if when == Reclaim::DuringWrites {
            RECLAIM_DURING_WRITES_MIN_PAGES
        } else {
            RECLAIM_MIN_PAGES
        };
        let vacuum = free > 0 && (force || (free >= floor && free * 4 >= pages));
        if vacuum {
            // the pragma frees one page per step (one result row each): step it to the end
            let mut stmt = conn
                .prepare("PRAGMA incremental_vacuum")
                .map_err(sql_err(ctx))?;
            let mut rows = stmt.query([]).map_err(sql_err(ctx))?;
            while rows.next().map_err(sql_err(ctx))?.is_some() {}
        } else if !force {
            // nothing given back: the log is left to SQLite's own checkpoints (bounded by
            // `journal_size_limit`), so that a run of deletes in a large collection does not
            // force a full checkpoint and a regrown log every 1,024 of them (the committer's
            // `RECLAIM_AFTER_DELETES`)
            return Ok(());
        }
        // copy the log into the database and truncate it to zero bytes; a reader's snapshot may
        // keep part of it, in which case the log is reused from its start later
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .map_err(sql_err(ctx))
    }

    fn commit(&mut self, muts: &[Mutation<'_>]) -> Result<()> {
        if self.read_only {
            return Err(Error::ReadOnly);
        }
        let (conn, ctx) = (&self.conn, self.ctx.as_str());
        // BEGIN and COMMIT through the statement cache too: parsed once per connection, not
        // once per write group (rusqlite's `transaction()` runs them as fresh SQL text)
        run_cached(conn, "BEGIN").map_err(sql_err(ctx))?;
        let done = write_group(conn, muts, ctx)
            .and_then(|()| run_cached(conn, "COMMIT").map_err(sql_err(ctx)));
        if done.is_err() && !conn.is_autocommit() {
            // the whole group is rolled back: none of it is stored
            let _ = conn.execute_batch("ROLLBACK");
        }
        done
    }
}

/// The statement in `slot`, taken from the connection's cache on its first use.
fn cached<'c, 's>(
    conn: &'c Connection,
    slot: &'s mut Option<rusqlite::CachedStatement<'c>>,
    ctx: &str,
    sql: &str,
) -> Result<&'s mut rusqlite::CachedStatement<'c>> {
    if slot.is_none() {
        *slot = Some(conn.prepare_cached(sql).map_err(sql_err(ctx))?);
    }
    slot.as_mut()
        .ok_or_else(|| Error::Internal("statement cache slot empty".into()))
}

/// Runs a cached statement that returns no rows.
fn run_cached(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(drop)
}

/// The statements of one write group, each prepared (from the connection's cache) on its first
/// use in the group: a delete does not prepare the insert, nor an insert the delete.
fn write_group(conn: &Connection, muts: &[Mutation<'_>], ctx: &str) -> Result<()> {
    let mut put: Option<rusqlite::CachedStatement<'_>> = None;
    let mut del: Option<rusqlite::CachedStatement<'_>> = None;
    let mut tomb: Option<rusqlite::CachedStatement<'_>> = None;
    let mut bytes = Vec::new();
    for m in muts {
        match *m {
            Mutation::Put {
                id,
                seq,
                vector,
                metadata,
            } => {
                bytes.clear();
                bytes.extend(vector.iter().flat_map(|x| x.to_le_bytes()));
                let seq = i64::try_from(seq)
                    .map_err(|_| Error::Internal(format!("seq {seq} out of range")))?;
                let key = encode_id(id);
                let crc = record_crc(&key, seq, &bytes, metadata);
                cached(conn, &mut put, ctx, "INSERT OR REPLACE INTO records (id, seq, vector, metadata, crc) VALUES (?1, ?2, ?3, ?4, ?5)")?
                    .execute(params![key, seq, bytes, metadata, crc])
                    .map_err(sql_err(ctx))?;
            }
            Mutation::Delete { id } => {
                cached(conn, &mut del, ctx, "DELETE FROM records WHERE id = ?1")?
                    .execute(params![encode_id(id)])
                    .map_err(sql_err(ctx))?;
            }
            Mutation::Tombstone { generation, row } => {
                cached(
                    conn,
                    &mut tomb,
                    ctx,
                    "INSERT OR IGNORE INTO tombstones (generation, row) VALUES (?1, ?2)",
                )?
                .execute(params![generation as i64, row])
                .map_err(sql_err(ctx))?;
            }
            Mutation::AddSegment { generation, rows } => {
                conn.execute(
                    "INSERT INTO segments (generation, rows) VALUES (?1, ?2)",
                    params![generation as i64, rows as i64],
                )
                .map_err(sql_err(ctx))?;
            }
            Mutation::RemoveSegment { generation } => {
                conn.execute(
                    "DELETE FROM segments WHERE generation = ?1",
                    params![generation as i64],
                )
                .map_err(sql_err(ctx))?;
                conn.execute(
                    "DELETE FROM tombstones WHERE generation = ?1",
                    params![generation as i64],
                )
                .map_err(sql_err(ctx))?;
            }
        }
    }
    Ok(())
}
