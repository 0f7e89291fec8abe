//! The one error type of horosvec. Every failure that can reach a user carries a stable string
//! code ([`ErrorCode::as_str`], e.g. `HV_DIM_MISMATCH`) that the Node and wasm bindings put on the
//! JS `Error`'s `code` property. Codes never change meaning; `docs/errors.md` is rendered from
//! [`ErrorCode::ALL`] by a test, so the table cannot drift from the code.

use std::fmt;

/// Result alias used across the core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Stable error codes. The string form ([`ErrorCode::as_str`]) is the public contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// `HV_DIM_MISMATCH`: a vector's length is not the collection's `dim` (or a flat batch's
    /// length is not a multiple of `dim`).
    DimMismatch,
    /// `HV_INVALID_VECTOR`: a vector holds NaN or ±Infinity.
    InvalidVector,
    /// `HV_INVALID_ARGUMENT`: an argument is out of its domain (k ≤ 0, unknown metric, empty batch,
    /// ids and vectors of different counts, an id that is neither a string nor a safe non-negative integer…).
    InvalidArgument,
    /// `HV_DUPLICATE_ID`: `add` was given an id that already exists, or one batch names an id twice.
    DuplicateId,
    /// `HV_NOT_FOUND`: the named record does not exist (only where absence is an error).
    NotFound,
    /// `HV_CLOSED`: the collection was closed; every later call fails with this code.
    Closed,
    /// `HV_IO`: the operating system refused a read or write (unwritable path, missing file…).
    Io,
    /// `HV_CORRUPT`: stored bytes fail a check (bad magic, checksum, truncated file, impossible sizes).
    Corrupt,
    /// `HV_OUT_OF_MEMORY`: memory for the operation could not be allocated; nothing changed.
    OutOfMemory,
    /// `HV_CANCELLED`: the operation was cancelled (an `AbortSignal`); nothing changed.
    Cancelled,
    /// `HV_INTERNAL`: a bug in horosvec (a caught panic); the operation had no effect on stored data.
    Internal,
    /// `HV_LOCKED`: another process (or handle) has the collection open for writing.
    Locked,
    /// `HV_VERSION`: stored data has a format version this build cannot read.
    Version,
    /// `HV_READ_ONLY`: a write on a collection opened with `readOnly: true`.
    ReadOnly,
    /// `HV_UNSUPPORTED`: the operation does not exist on this backend (e.g. files under wasm).
    Unsupported,
    /// `HV_QUOTA`: the storage quota is exhausted (the browser's origin storage); the write was
    /// refused and nothing acknowledged is lost.
    Quota,
}

impl ErrorCode {
    /// Every code, in documentation order.
    pub const ALL: &'static [ErrorCode] = &[
        ErrorCode::DimMismatch,
        ErrorCode::InvalidVector,
        ErrorCode::InvalidArgument,
        ErrorCode::DuplicateId,
        ErrorCode::NotFound,
        ErrorCode::Closed,
        ErrorCode::Io,
        ErrorCode::Corrupt,
        ErrorCode::OutOfMemory,
        ErrorCode::Cancelled,
        ErrorCode::Internal,
        ErrorCode::Locked,
        ErrorCode::Version,
        ErrorCode::ReadOnly,
        ErrorCode::Unsupported,
        ErrorCode::Quota,
    ];

    /// The stable string form, e.g. `"HV_DIM_MISMATCH"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::DimMismatch => "HV_DIM_MISMATCH",
            ErrorCode::InvalidVector => "HV_INVALID_VECTOR",
            ErrorCode::InvalidArgument => "HV_INVALID_ARGUMENT",
            ErrorCode::DuplicateId => "HV_DUPLICATE_ID",
            ErrorCode::NotFound => "HV_NOT_FOUND",
            ErrorCode::Closed => "HV_CLOSED",
            ErrorCode::Io => "HV_IO",
            ErrorCode::Corrupt => "HV_CORRUPT",
            ErrorCode::OutOfMemory => "HV_OUT_OF_MEMORY",
            ErrorCode::Cancelled => "HV_CANCELLED",
            ErrorCode::Internal => "HV_INTERNAL",
            ErrorCode::Locked => "HV_LOCKED",
            ErrorCode::Version => "HV_VERSION",
            ErrorCode::ReadOnly => "HV_READ_ONLY",
            ErrorCode::Unsupported => "HV_UNSUPPORTED",
            ErrorCode::Quota => "HV_QUOTA",
        }
    }

    /// One sentence on when the code is raised (rendered into `docs/errors.md`).
    pub const fn description(self) -> &'static str {
        match self {
            ErrorCode::DimMismatch => "A vector's length differs from the collection's `dim`, or a flat `n × dim` batch has a length that is not a multiple of `dim`.",
            ErrorCode::InvalidVector => "A vector holds NaN or ±Infinity (a zero vector is accepted under `cosine`, at distance 1 from every query).",
            ErrorCode::InvalidArgument => "An argument is outside its domain: `k` not a positive integer, unknown metric, `dim` not in 1..=65536, empty batch, ids/vectors/metadata counts that differ, an id that is neither a string nor a non-negative safe integer, metadata that is not JSON-serialisable, a bad filter (unknown operator, wrong operand type, past a bound, a value JSON cannot carry; the message names the offending part, e.g. `filter.year.$gte`), an unknown option name, a `list` limit or cursor outside its domain; an exception thrown by the caller's own getter, Proxy or `toJSON` while an argument is read (the original is the `cause`).",
            ErrorCode::DuplicateId => "`add` named an id that is already stored, or one `add` names the same id twice (an `upsert` keeps the last). Nothing of the batch is applied.",
            ErrorCode::NotFound => "The named record does not exist, where absence is an error (`get` returns `undefined` instead).",
            ErrorCode::Closed => "The collection was closed with `close()`; every later call fails with this code.",
            ErrorCode::Io => "The operating system refused a read or a write (unwritable path, missing file, disk full).",
            ErrorCode::Corrupt => "Stored or supplied bytes fail a check: bad magic, checksum, truncated file, impossible sizes, a parameter outside the range the API accepts, a value of the wrong type or a missing table in a collection database, an empty database beside segment files.",
            ErrorCode::OutOfMemory => "Memory for the operation could not be allocated (e.g. the 4 GiB ceiling of a wasm32 heap); nothing was changed and the collection stays usable. (Should the wasm instance trap on an allocation no check foresaw, the call also fails with this code, but the collection it used is lost: its later calls fail `HV_CLOSED`.)",
            ErrorCode::Cancelled => "The operation was cancelled through its `AbortSignal` (e.g. an index build); the collection is as it was before the call.",
            ErrorCode::Internal => "A bug inside horosvec was caught (a Rust panic) before it crossed into JS; the call had no effect. Please report it.",
            ErrorCode::Locked => "The collection directory is open for writing by another process or handle (one writer per collection); open it with `readOnly: true` to read alongside.",
            ErrorCode::Version => "A stored file (database, segment, snapshot) has a format version this build cannot read; nothing was changed.",
            ErrorCode::ReadOnly => "A write (`add`, `upsert`, `delete`, `deleteWhere`, `seal`, `compact`) on a collection opened with `readOnly: true` (an in-memory `buildIndex` on the view is allowed: it writes nothing).",
            ErrorCode::Unsupported => "The operation does not exist on this backend, e.g. `Collection.open` (files) under the wasm build outside a Web Worker, or where the browser has no Origin Private File System or sync access handles.",
            ErrorCode::Quota => "The browser's storage quota for the origin is exhausted (a `QuotaExceededError` while writing a collection opened with `storage: 'opfs'`): the write was refused, nothing acknowledged before it is lost, and the collection stays usable (reads, deletes, and writes once space is freed).",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A horosvec error: a stable [`ErrorCode`] plus a human message. Match on [`Error::code`],
/// never on the message text.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// A flat `n × dim` batch whose length `len` is not a multiple of `dim`.
    BatchShape {
        /// The collection's dimension.
        dim: usize,
        /// The flat batch's length.
        len: usize,
    },
    /// An allocation failed; nothing was changed.
    OutOfMemory(String),
    /// The operation was cancelled.
    Cancelled,
    /// A vector of `got` values where `expected` (the collection's `dim`) were required.
    DimMismatch {
        /// The collection's dimension.
        expected: usize,
        /// The length that was supplied.
        got: usize,
    },
    /// Vector number `index` of the call (0-based) is not usable: `reason` says why.
    InvalidVector {
        /// Position of the vector in the call's batch (0 for single vectors).
        index: usize,
        /// What is wrong, e.g. "NaN at component 3".
        reason: String,
    },
    /// An argument outside its domain.
    InvalidArgument(String),
    /// An id that already exists (or appears twice in one batch), rendered for the message.
    DuplicateId(String),
    /// A record that does not exist.
    NotFound(String),
    /// The collection is closed.
    Closed,
    /// An operating-system I/O failure, with its context.
    Io(String),
    /// Bytes that fail a format check, with what failed.
    Corrupt(String),
    /// A caught internal failure (panic), with its message.
    Internal(String),
    /// The collection is locked by another writer, with the path.
    Locked(String),
    /// An unreadable format version, with what was found.
    Version(String),
    /// A write on a read-only collection.
    ReadOnly,
    /// An operation this backend does not have, with its name.
    Unsupported(String),
    /// The storage quota is exhausted, with the context.
    Quota(String),
}

impl Error {
    /// The stable code of this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::DimMismatch { .. } | Error::BatchShape { .. } => ErrorCode::DimMismatch,
            Error::OutOfMemory(_) => ErrorCode::OutOfMemory,
            Error::Cancelled => ErrorCode::Cancelled,
            Error::InvalidVector { .. } => ErrorCode::InvalidVector,
            Error::InvalidArgument(_) => ErrorCode::InvalidArgument,
            Error::DuplicateId(_) => ErrorCode::DuplicateId,
            Error::NotFound(_) => ErrorCode::NotFound,
            Error::Closed => ErrorCode::Closed,
            Error::Io(_) => ErrorCode::Io,
            Error::Corrupt(_) => ErrorCode::Corrupt,
            Error::Internal(_) => ErrorCode::Internal,
            Error::Locked(_) => ErrorCode::Locked,
            Error::Version(_) => ErrorCode::Version,
            Error::ReadOnly => ErrorCode::ReadOnly,
            Error::Unsupported(_) => ErrorCode::Unsupported,
            Error::Quota(_) => ErrorCode::Quota,
        }
    }

    /// Shorthand for [`Error::InvalidArgument`].
    pub fn invalid_argument(msg: impl Into<String>) -> Self {
        Error::InvalidArgument(msg.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::DimMismatch { expected, got } => {
                write!(
                    f,
                    "vector has {got} components but the collection's dim is {expected}"
                )
            }
            Error::BatchShape { dim, len } => {
                write!(
                    f,
                    "a flat batch of {len} values is not a whole number of vectors of dim {dim}"
                )
            }
            Error::OutOfMemory(m) => write!(f, "out of memory: {m}"),
            Error::Cancelled => f.write_str("cancelled"),
            Error::InvalidVector { index, reason } => {
                write!(f, "vector {index} is invalid: {reason}")
            }
            Error::InvalidArgument(m) => f.write_str(m),
            Error::DuplicateId(id) => write!(f, "duplicate id {id}"),
            Error::NotFound(id) => write!(f, "not found: {id}"),
            Error::Closed => f.write_str("the collection is closed"),
            Error::Io(m) => write!(f, "I/O error: {m}"),
            Error::Corrupt(m) => write!(f, "corrupt data: {m}"),
            Error::Internal(m) => write!(f, "internal error (please report): {m}"),
            Error::Locked(p) => write!(f, "{p} is open for writing by another process or handle"),
            Error::Version(m) => write!(f, "unsupported format version: {m}"),
            Error::ReadOnly => f.write_str("the collection was opened read-only"),
            Error::Unsupported(m) => write!(f, "not supported: {m}"),
            Error::Quota(m) => write!(f, "storage quota exhausted: {m}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e.to_string())
    }
}

/// Renders the error-code table of `docs/errors.md` (a test keeps the file equal to this).
pub fn render_error_table() -> String {
    let mut s = String::from(
        "# Error codes\n\nEvery error horosvec raises is a JS `Error` whose `code` property is one of these stable strings \
         (in Rust: `horosvec_core::Error::code()`). Match on `code`, never on the message. A failed call leaves stored \
         data as it was. This file is generated from `core/src/error.rs` by the test `error::tests::docs_table_is_current`; \
         run `HOROSVEC_BLESS=1 cargo test -p horosvec-core docs_table` after changing a code.\n\n\
         | code | raised when |\n|---|---|\n",
    );
    for c in ErrorCode::ALL {
        s.push_str(&format!("| `{}` | {} |\n", c.as_str(), c.description()));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_prefixed() {
        let mut seen = std::collections::HashSet::new();
        for c in ErrorCode::ALL {
            assert!(c.as_str().starts_with("HV_"));
            assert!(seen.insert(c.as_str()));
        }
    }

    #[test]
    fn docs_table_is_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/errors.md");
        let want = render_error_table();
        if std::env::var_os("HOROSVEC_BLESS").is_some() {
            std::fs::write(path, &want).unwrap();
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert_eq!(
            have, want,
            "docs/errors.md is stale: run HOROSVEC_BLESS=1 cargo test -p horosvec-core docs_table"
        );
    }
}
