//! The database's schema and `meta` rows, the record CRC, and the mapping of SQLite errors to
//! stable codes.

use rusqlite::{params, Connection, OptionalExtension};

use super::{F16_FORMAT_VERSION, FORMAT_NAME, FORMAT_VERSION};
use crate::error::{Error, Result};
use crate::rowdata::Precision;
use crate::types::Metric;

/// Maps a SQLite error to a stable code: a file that is not a database or fails SQLite's own
/// checks is `HV_CORRUPT`, everything else (cannot open, disk full, permission) `HV_IO`.
pub(super) fn sql_err(context: &str) -> impl Fn(rusqlite::Error) -> Error + '_ {
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

/// How many of the tables `names` the database has.
pub(super) fn table_count(conn: &Connection, names: &[&str]) -> rusqlite::Result<i64> {
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
pub(super) const RECLAIM_MIN_PAGES: i64 = 256;

/// Free pages below which [`RecordStore::reclaim`] under `Reclaim::DuringWrites` leaves the
/// database file as it is (64 MiB at 4 KiB pages).
pub(super) const RECLAIM_DURING_WRITES_MIN_PAGES: i64 = 16_384;

/// Size the write-ahead log is truncated to after a checkpoint (SQLite's `journal_size_limit`).
pub(super) const WAL_SIZE_LIMIT: i64 = 16 << 20;

/// The manifest: one row per sealed segment, and the tombstoned rows of each.
pub(super) const SEGMENT_SCHEMA: &str = "CREATE TABLE IF NOT EXISTS segments (generation INTEGER PRIMARY KEY, rows INTEGER NOT NULL);
     CREATE TABLE IF NOT EXISTS tombstones (generation INTEGER NOT NULL, row INTEGER NOT NULL, PRIMARY KEY (generation, row)) WITHOUT ROWID;";

pub(super) fn create_schema(
    conn: &Connection,
    dim: usize,
    metric: Metric,
    vectors: Precision,
) -> rusqlite::Result<()> {
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
    let version = match vectors {
        Precision::F32 => FORMAT_VERSION,
        Precision::F16 => F16_FORMAT_VERSION,
    };
    put.execute(params!["format_version", version.to_string()])?;
    put.execute(params!["dim", dim.to_string()])?;
    put.execute(params!["metric", metric.as_str()])?;
    put.execute(params!["vectors", vectors.name()])?;
    drop(put);
    conn.execute_batch("COMMIT;")
}

/// CRC-32 of a record's stored fields: id key, seq (8 bytes LE), vector bytes, then a 0 byte for
/// no metadata or a 1 byte and the metadata text. SQLite checks its pages' structure, not their
/// content, so this is what detects a flipped bit inside a record.
pub(super) fn record_crc(key: &[u8], seq: i64, vector: &[u8], metadata: Option<&str>) -> u32 {
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

pub(super) fn read_meta(conn: &Connection, ctx: &str) -> Result<(usize, Metric, Precision)> {
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
    let version = [FORMAT_VERSION, F16_FORMAT_VERSION]
        .into_iter()
        .find(|v| version == v.to_string())
        .ok_or_else(|| {
            Error::Version(format!(
                "{ctx}: format version {version}; this build reads {FORMAT_VERSION} and {F16_FORMAT_VERSION}"
            ))
        })?;
    let dim = get("dim")?
        .and_then(|d| d.parse::<usize>().ok())
        .filter(|d| (1..=crate::MAX_DIM).contains(d))
        .ok_or_else(|| Error::Corrupt(format!("{ctx}: meta.dim missing or out of range")))?;
    let metric = get("metric")?
        .and_then(|m| Metric::parse(&m).ok())
        .ok_or_else(|| Error::Corrupt(format!("{ctx}: meta.metric missing or unknown")))?;
    // absent in collections created before f16 rows: f32
    let precision = match get("vectors")? {
        None => Precision::F32,
        Some(p) => Precision::parse(&p)
            .map_err(|_| Error::Corrupt(format!("{ctx}: meta.vectors is {p:?}")))?,
    };
    if version == F16_FORMAT_VERSION && precision != Precision::F16 {
        return Err(Error::Corrupt(format!(
            "{ctx}: format version {F16_FORMAT_VERSION} is for f16 rows, meta.vectors says {}",
            precision.name()
        )));
    }
    Ok((dim, metric, precision))
}
