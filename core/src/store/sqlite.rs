//! [`SqliteStore`]: a collection directory holding one SQLite database (rusqlite, bundled
//! SQLite) in WAL mode, plus a `LOCK` file that one writer holds with an exclusive advisory lock.
//! Layout and pragmas: `docs/format.md`.

use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OpenFlags, OptionalExtension};

use super::{decode_id, encode_id, Durability, ManifestEntry, Mutation, RecordStore, StoredRecord};
use crate::error::{Error, Result};
use crate::types::Metric;

/// The database file inside a collection directory.
pub const DB_FILE: &str = "collection.db";
/// The writer's lock file inside a collection directory.
pub const LOCK_FILE: &str = "LOCK";
/// The format version written to `meta.format_version`; other values give `HV_VERSION`.
pub const FORMAT_VERSION: u32 = 1;
/// `meta.format` of a horosvec collection database.
const FORMAT_NAME: &str = "horosvec-collection";

/// Maps a SQLite error to a stable code: a file that is not a database or fails SQLite's own
/// checks is `HV_CORRUPT`, everything else (cannot open, disk full, permission) `HV_IO`.
fn sql_err(context: &str) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |e| {
        use rusqlite::ErrorCode as C;
        // the schema is ours and fixed: a value of the wrong type, or a table or column that is
        // not there, can only be damage to the file (flipped bytes, a dropped table)
        let damaged = match &e {
            rusqlite::Error::InvalidColumnType(..)
            | rusqlite::Error::FromSqlConversionFailure(..)
            | rusqlite::Error::IntegralValueOutOfRange(..)
            | rusqlite::Error::Utf8Error(..) => true,
            rusqlite::Error::SqliteFailure(f, Some(msg)) if f.code == C::Unknown => {
                msg.starts_with("no such table")
                    || msg.starts_with("no such column")
                    || msg.contains("malformed")
            }
            _ => false,
        };
        if damaged {
            return Error::Corrupt(format!("{context}: {e} (damaged)"));
        }
        match e.sqlite_error_code() {
            Some(C::DatabaseCorrupt | C::NotADatabase) => Error::Corrupt(format!("{context}: {e}")),
            Some(C::ReadOnly) => Error::ReadOnly,
            _ => Error::Io(format!("{context}: {e}")),
        }
    }
}

/// One collection directory's database.
pub struct SqliteStore {
    dir: PathBuf,
    conn: Connection,
    dim: usize,
    metric: Metric,
    read_only: bool,
    /// Held (exclusively locked) for the store's lifetime by a writer; released on drop.
    _lock: Option<File>,
}

impl SqliteStore {
    /// Opens the collection in directory `dir`, creating it (directory and database) when it does
    /// not exist and `read_only` is false. `dim` and `metric` are required to create; when given
    /// for an existing collection they must match the stored ones.
    ///
    /// # Errors
    /// `HV_LOCKED` (another writer holds the directory), `HV_IO` (cannot create or open),
    /// `HV_CORRUPT` (not a horosvec database, or damaged), `HV_VERSION` (another format version),
    /// `HV_INVALID_ARGUMENT` (options differ from the stored ones, or `dim` missing to create).
    pub fn open(
        dir: &Path,
        dim: Option<usize>,
        metric: Option<Metric>,
        durability: Durability,
        read_only: bool,
    ) -> Result<SqliteStore> {
        if dir.exists() && !dir.is_dir() {
            return Err(Error::Io(format!(
                "{}: not a directory (a collection is a directory)",
                dir.display()
            )));
        }
        let db_path = dir.join(DB_FILE);
        let exists = db_path.exists();
        // a non-empty write-ahead log next to a database without our schema means committed data
        // that SQLite could not replay: never create a fresh collection over it
        let wal_len = fs::metadata(dir.join(format!("{DB_FILE}-wal"))).map_or(0, |m| m.len());
        // segment files in the directory: a database without our schema beside them (missing,
        // empty, truncated) means the manifest was lost; creating a fresh collection there would
        // treat them as orphans and remove them, so it is refused whatever the database holds
        // (listed only on the paths that need it, not on every open)
        let segment_files = || {
            fs::read_dir(dir)
                .map(|it| {
                    it.flatten()
                        .filter(|e| e.file_name().to_string_lossy().starts_with("seg-"))
                        .count()
                })
                .unwrap_or(0)
        };
        if !exists && !read_only {
            let segs = segment_files();
            if segs > 0 {
                return Err(Error::Corrupt(format!(
                    "{}: {segs} segment file(s) but no {DB_FILE} (the manifest is lost); nothing was changed",
                    dir.display()
                )));
            }
        }
        let segs = if exists && fs::metadata(&db_path).is_ok_and(|m| m.len() == 0) {
            segment_files()
        } else {
            0
        };
        if segs > 0 {
            // refused before SQLite touches the file (setting WAL mode would write a header)
            return Err(Error::Corrupt(format!(
                "{}: {DB_FILE} is empty beside {segs} segment file(s) (the manifest is lost); nothing was changed or removed",
                dir.display()
            )));
        }
        if !exists && read_only {
            return Err(Error::Io(format!(
                "{}: no collection here (opened read-only, so none is created)",
                dir.display()
            )));
        }
        if !exists && dim.is_none() {
            return Err(Error::invalid_argument(format!(
                "{}: no collection here; give dim (and metric) to create one",
                dir.display()
            )));
        }
        let lock = if read_only {
            None
        } else {
            fs::create_dir_all(dir)
                .map_err(|e| Error::Io(format!("cannot create {}: {e}", dir.display())))?;
            let f = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(dir.join(LOCK_FILE))
                .map_err(|e| {
                    Error::Io(format!(
                        "cannot open {}: {e}",
                        dir.join(LOCK_FILE).display()
                    ))
                })?;
            match f.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(Error::Locked(dir.display().to_string()))
                }
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(Error::Io(format!("cannot lock {}: {e}", dir.display())))
                }
            }
            Some(f)
        };
        let flags = if read_only {
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX
        } else {
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX
        };
        let ctx = db_path.display().to_string();
        let conn = Connection::open_with_flags(&db_path, flags).map_err(sql_err(&ctx))?;
        // A non-database file fails here, at the first read.
        if !read_only {
            if !exists {
                // incremental auto-vacuum, so that the pages freed when a seal moves records out
                // can be returned to the file system (`reclaim`); it must be chosen before
                // anything, the switch to WAL included, is written to a new database
                conn.execute_batch("PRAGMA auto_vacuum = INCREMENTAL;")
                    .map_err(sql_err(&ctx))?;
            }
            conn.pragma_update(None, "journal_mode", "WAL")
                .map_err(sql_err(&ctx))?;
            let sync = match durability {
                Durability::Full => "FULL",
                Durability::Normal => "NORMAL",
                Durability::Off => "OFF",
            };
            conn.pragma_update(None, "synchronous", sync)
                .map_err(sql_err(&ctx))?;
            conn.pragma_update(None, "journal_size_limit", WAL_SIZE_LIMIT)
                .map_err(sql_err(&ctx))?;
        }
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(sql_err(&ctx))?;
        let has_meta = table_count(&conn, &["meta"]).map_err(sql_err(&ctx))? > 0;
        let tables: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
            .map_err(sql_err(&ctx))?;
        // an existing but blank database (creation interrupted before its first commit) may be
        // initialised; anything else without our schema may not
        let blank = !has_meta && (!exists || (tables == 0 && wal_len == 0)) && segment_files() == 0;
        let (dim, metric) = if has_meta {
            let (sd, sm) = read_meta(&conn, &ctx)?;
            if let Some(d) = dim {
                if d != sd {
                    return Err(Error::invalid_argument(format!(
                        "{ctx}: stored dim is {sd}, the options say {d}"
                    )));
                }
            }
            if let Some(m) = metric {
                if m != sm {
                    return Err(Error::invalid_argument(format!(
                        "{ctx}: stored metric is {}, the options say {}",
                        sm.as_str(),
                        m.as_str()
                    )));
                }
            }
            (sd, sm)
        } else if read_only || !blank {
            // an existing file without our schema: never create over it (it may be a collection
            // whose log was damaged, or another program's database)
            let segs = segment_files();
            let beside = if segs > 0 {
                format!(" beside {segs} segment file(s); nothing was changed or removed")
            } else {
                String::new()
            };
            return Err(Error::Corrupt(format!(
                "{ctx}: no meta table (not a horosvec collection, or damaged){beside}"
            )));
        } else {
            let d = dim
                .ok_or_else(|| Error::invalid_argument("dim is required to create a collection"))?;
            let m = metric.unwrap_or(Metric::L2);
            create_schema(&conn, d, m).map_err(sql_err(&ctx))?;
            (d, m)
        };
        // the manifest tables (added to format 1 with sealed segments; created on first open for
        // writing by this build, absent tables read as "no segment"). `meta.manifest` records
        // that they were created: from then on, missing tables are damage, not an old database
        // (recreating them empty would make every segment file an orphan, removed at open)
        let tables_present =
            table_count(&conn, &["segments", "tombstones"]).map_err(sql_err(&ctx))?;
        let manifest_made = conn
            .query_row(
                "SELECT count(*) FROM meta WHERE key = 'manifest'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map_err(sql_err(&ctx))?
            > 0;
        if manifest_made && tables_present < 2 {
            return Err(Error::Corrupt(format!(
                "{ctx}: the segment manifest tables are missing (damaged); nothing was changed"
            )));
        }
        if !read_only && !manifest_made {
            conn.execute_batch(&format!("BEGIN; {SEGMENT_SCHEMA} INSERT OR IGNORE INTO meta (key, value) VALUES ('manifest', '1'); COMMIT;"))
                .map_err(sql_err(&ctx))?;
        }
        if table_count(&conn, &["records"]).map_err(sql_err(&ctx))? == 0 {
            return Err(Error::Corrupt(format!(
                "{ctx}: the records table is missing (damaged); nothing was changed"
            )));
        }
        Ok(SqliteStore {
            dir: dir.to_path_buf(),
            conn,
            dim,
            metric,
            read_only,
            _lock: lock,
        })
    }

    /// The collection directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// True when opened read-only.
    pub fn read_only(&self) -> bool {
        self.read_only
    }
}

/// How many of the tables `names` the database has.
fn table_count(conn: &Connection, names: &[&str]) -> rusqlite::Result<i64> {
    let list = names
        .iter()
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(", ");
    conn.query_row(
        &format!("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ({list})"),
        [],
        |r| r.get(0),
    )
}

/// Free pages below which [`RecordStore::reclaim`] leaves the database file as it is.
const RECLAIM_MIN_PAGES: i64 = 256;

/// Size the write-ahead log is truncated to after a checkpoint (SQLite's `journal_size_limit`).
const WAL_SIZE_LIMIT: i64 = 16 << 20;

/// The manifest: one row per sealed segment, and the tombstoned rows of each.
const SEGMENT_SCHEMA: &str = "CREATE TABLE IF NOT EXISTS segments (generation INTEGER PRIMARY KEY, rows INTEGER NOT NULL);
     CREATE TABLE IF NOT EXISTS tombstones (generation INTEGER NOT NULL, row INTEGER NOT NULL, PRIMARY KEY (generation, row)) WITHOUT ROWID;";

fn create_schema(conn: &Connection, dim: usize, metric: Metric) -> rusqlite::Result<()> {
    conn.execute_batch(
        "BEGIN;
         CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
         CREATE TABLE records (
           seq INTEGER PRIMARY KEY,
           id BLOB NOT NULL UNIQUE,
           vector BLOB NOT NULL,
           metadata TEXT,
           crc INTEGER NOT NULL
         );",
    )?;
    let mut put = conn.prepare("INSERT INTO meta (key, value) VALUES (?1, ?2)")?;
    put.execute(params!["format", FORMAT_NAME])?;
    put.execute(params!["format_version", FORMAT_VERSION.to_string()])?;
    put.execute(params!["dim", dim.to_string()])?;
    put.execute(params!["metric", metric.as_str()])?;
    drop(put);
    conn.execute_batch("COMMIT;")
}

/// CRC-32 of a record's stored fields: id key, seq (8 bytes LE), vector bytes, then a 0 byte for
/// no metadata or a 1 byte and the metadata text. SQLite checks its pages' structure, not their
/// content, so this is what detects a flipped bit inside a record.
fn record_crc(key: &[u8], seq: i64, vector: &[u8], metadata: Option<&str>) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(key);
    h.update(&seq.to_le_bytes());
    h.update(vector);
    match metadata {
        None => h.update(&[0]),
        Some(m) => {
            h.update(&[1]);
            h.update(m.as_bytes());
        }
    }
    h.finalize()
}

fn read_meta(conn: &Connection, ctx: &str) -> Result<(usize, Metric)> {
    let get = |k: &str| -> Result<Option<String>> {
        conn.query_row("SELECT value FROM meta WHERE key = ?1", [k], |r| {
            r.get::<_, String>(0)
        })
        .optional()
        .map_err(sql_err(ctx))
    };
    match get("format")?.as_deref() {
        Some(FORMAT_NAME) => {}
        other => {
            return Err(Error::Corrupt(format!(
                "{ctx}: meta.format is {other:?}, not {FORMAT_NAME:?}"
            )))
        }
    }
    let version = get("format_version")?
        .ok_or_else(|| Error::Corrupt(format!("{ctx}: no meta.format_version")))?;
    if version != FORMAT_VERSION.to_string() {
        return Err(Error::Version(format!(
            "{ctx}: format version {version}; this build reads {FORMAT_VERSION}"
        )));
    }
    let dim = get("dim")?
        .and_then(|d| d.parse::<usize>().ok())
        .filter(|d| (1..=crate::MAX_DIM).contains(d))
        .ok_or_else(|| Error::Corrupt(format!("{ctx}: meta.dim missing or out of range")))?;
    let metric = get("metric")?
        .and_then(|m| Metric::parse(&m).ok())
        .ok_or_else(|| Error::Corrupt(format!("{ctx}: meta.metric missing or unknown")))?;
    Ok((dim, metric))
}

impl RecordStore for SqliteStore {
    fn shape(&self) -> (usize, Metric) {
        (self.dim, self.metric)
    }

    fn segments(&mut self) -> Result<Vec<ManifestEntry>> {
        let ctx = self.dir.join(DB_FILE).display().to_string();
        if table_count(&self.conn, &["segments", "tombstones"]).map_err(sql_err(&ctx))? < 2 {
            return Ok(Vec::new());
        }
        let mut out: Vec<ManifestEntry> = Vec::new();
        {
            let mut stmt = self
                .conn
                .prepare("SELECT generation, rows FROM segments ORDER BY generation")
                .map_err(sql_err(&ctx))?;
            let mut rows = stmt.query([]).map_err(sql_err(&ctx))?;
            while let Some(r) = rows.next().map_err(sql_err(&ctx))? {
                let g: i64 = r.get(0).map_err(sql_err(&ctx))?;
                let n: i64 = r.get(1).map_err(sql_err(&ctx))?;
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
            .map_err(sql_err(&ctx))?;
        let mut rows = stmt.query([]).map_err(sql_err(&ctx))?;
        while let Some(r) = rows.next().map_err(sql_err(&ctx))? {
            let g: i64 = r.get(0).map_err(sql_err(&ctx))?;
            let row: i64 = r.get(1).map_err(sql_err(&ctx))?;
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
        let ctx = self.dir.join(DB_FILE).display().to_string();
        let mut stmt = self
            .conn
            .prepare("SELECT id, seq, vector, metadata, crc FROM records ORDER BY seq")
            .map_err(sql_err(&ctx))?;
        let mut rows = stmt.query([]).map_err(sql_err(&ctx))?;
        let dim = self.dim;
        while let Some(row) = rows.next().map_err(sql_err(&ctx))? {
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
                .map_err(sql_err(&ctx))?
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
        let ctx = self.dir.join(DB_FILE).display().to_string();
        // In WAL mode a read transaction reads one snapshot: the one current at its first read,
        // kept until it ends, whatever the writer commits meanwhile.
        self.conn
            .execute_batch("BEGIN DEFERRED")
            .map_err(sql_err(&ctx))
    }

    fn end_read(&mut self) {
        if !self.conn.is_autocommit() {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }

    fn reclaim(&mut self, force: bool) -> Result<()> {
        let ctx = self.dir.join(DB_FILE).display().to_string();
        let pragma = |name: &str| -> Result<i64> {
            self.conn
                .query_row(&format!("PRAGMA {name}"), [], |r| r.get(0))
                .map_err(sql_err(&ctx))
        };
        let (free, pages) = (pragma("freelist_count")?, pragma("page_count")?);
        // worth a vacuum when a quarter of the file (and at least 1 MiB at 4 KiB pages) is free
        if free > 0 && (force || (free >= RECLAIM_MIN_PAGES && free * 4 >= pages)) {
            // the pragma frees one page per step (one result row each): step it to the end
            let mut stmt = self
                .conn
                .prepare("PRAGMA incremental_vacuum")
                .map_err(sql_err(&ctx))?;
            let mut rows = stmt.query([]).map_err(sql_err(&ctx))?;
            while rows.next().map_err(sql_err(&ctx))?.is_some() {}
        }
        // copy the log into the database and truncate it to zero bytes; a reader's snapshot may
        // keep part of it, in which case the log is reused from its start later
        self.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .map_err(sql_err(&ctx))
    }

    fn commit(&mut self, muts: &[Mutation<'_>]) -> Result<()> {
        if self.read_only {
            return Err(Error::ReadOnly);
        }
        let ctx = self.dir.join(DB_FILE).display().to_string();
        let tx = self.conn.transaction().map_err(sql_err(&ctx))?;
        {
            let mut put = tx
                .prepare_cached("INSERT OR REPLACE INTO records (id, seq, vector, metadata, crc) VALUES (?1, ?2, ?3, ?4, ?5)")
                .map_err(sql_err(&ctx))?;
            let mut del = tx
                .prepare_cached("DELETE FROM records WHERE id = ?1")
                .map_err(sql_err(&ctx))?;
            let mut tomb = tx
                .prepare_cached(
                    "INSERT OR IGNORE INTO tombstones (generation, row) VALUES (?1, ?2)",
                )
                .map_err(sql_err(&ctx))?;
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
                        put.execute(params![key, seq, bytes, metadata, crc])
                            .map_err(sql_err(&ctx))?;
                    }
                    Mutation::Delete { id } => {
                        del.execute(params![encode_id(id)]).map_err(sql_err(&ctx))?;
                    }
                    Mutation::Tombstone { generation, row } => {
                        tomb.execute(params![generation as i64, row])
                            .map_err(sql_err(&ctx))?;
                    }
                    Mutation::AddSegment { generation, rows } => {
                        tx.execute(
                            "INSERT INTO segments (generation, rows) VALUES (?1, ?2)",
                            params![generation as i64, rows as i64],
                        )
                        .map_err(sql_err(&ctx))?;
                    }
                    Mutation::RemoveSegment { generation } => {
                        tx.execute(
                            "DELETE FROM segments WHERE generation = ?1",
                            params![generation as i64],
                        )
                        .map_err(sql_err(&ctx))?;
                        tx.execute(
                            "DELETE FROM tombstones WHERE generation = ?1",
                            params![generation as i64],
                        )
                        .map_err(sql_err(&ctx))?;
                    }
                }
            }
        }
        // Dropping `tx` on an error path above rolls the whole group back.
        tx.commit().map_err(sql_err(&ctx))
    }
}
