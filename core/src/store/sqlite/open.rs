//! [`SqliteStore::open`]: creating or opening a collection directory, its lock and its checks.

use std::fs::{self, OpenOptions};
use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use super::schema::{
    create_schema, read_meta, sql_err, table_count, SEGMENT_SCHEMA, WAL_SIZE_LIMIT,
};
use super::{SqliteStore, DB_FILE, LOCK_FILE};
use crate::error::{Error, Result};
use crate::rowdata::Precision;
use crate::store::Durability;
use crate::types::Metric;

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
        SqliteStore::open_with(dir, (dim, metric, None), durability, read_only)
    }

    /// [`SqliteStore::open`] with the row precision too (`vectors`): a new collection stores it
    /// in `meta.vectors` (`f32` when `None`); an existing one uses the stored precision, and a
    /// `vectors` naming the other one is `HV_INVALID_ARGUMENT` with nothing changed on disk.
    ///
    /// # Errors
    /// As [`SqliteStore::open`]; `HV_CORRUPT` for a `meta.vectors` other than `f32` and `f16`.
    pub fn open_with(
        dir: &Path,
        (dim, metric, vectors): (Option<usize>, Option<Metric>, Option<Precision>),
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
        let (dim, metric, precision) = if has_meta {
            let (sd, sm, sp) = read_meta(&conn, &ctx)?;
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
            if let Some(p) = vectors.filter(|&p| p != sp) {
                return Err(Error::invalid_argument(format!(
                    "{ctx}: the collection stores vectors: \"{}\", the options say vectors: \"{}\" (the precision is chosen at creation; omit vectors to use the stored one); nothing was changed",
                    sp.name(),
                    p.name()
                )));
            }
            (sd, sm, sp)
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
            let p = vectors.unwrap_or_default();
            create_schema(&conn, d, m, p).map_err(sql_err(&ctx))?;
            (d, m, p)
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
            ctx,
            conn,
            dim,
            metric,
            precision,
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
