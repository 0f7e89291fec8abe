//! The file a [`super::LogStore`] writes: five synchronous calls ([`LogFile`]), the shape of the
//! browser's `FileSystemSyncAccessHandle` (`getSize`, `read`, `write`, `truncate`, `flush`), so
//! that the wasm binding implements it over the JS object and the store stays free of JS. The
//! in-memory [`MemFile`] backs the tests: it can tear a write after any number of bytes, refuse a
//! write (as a full quota does) or a flush, and "crash" (the process dies in the middle of a
//! write; the bytes written stay, as the operating system keeps them).

use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};

/// A random-access file with an explicit flush, as the log store needs it.
pub trait LogFile {
    /// Length in bytes.
    ///
    /// # Errors
    /// `HV_IO`.
    fn size(&mut self) -> Result<u64>;

    /// Reads `buf.len()` bytes at `at` (the caller never reads past [`size`](LogFile::size)).
    ///
    /// # Errors
    /// `HV_IO`, or `HV_CORRUPT` when fewer bytes than asked came back.
    fn read_at(&mut self, at: u64, buf: &mut [u8]) -> Result<()>;

    /// Writes all of `data` at `at`, growing the file as needed. On an error a prefix of `data`
    /// may have reached the file (the store cuts it off again).
    ///
    /// # Errors
    /// `HV_IO`, `HV_QUOTA` (the storage quota is exhausted).
    fn write_at(&mut self, at: u64, data: &[u8]) -> Result<()>;

    /// Sets the length to `len` bytes.
    ///
    /// # Errors
    /// `HV_IO`.
    fn truncate(&mut self, len: u64) -> Result<()>;

    /// Makes every write so far durable (OPFS: `flush()`, its only sync).
    ///
    /// # Errors
    /// `HV_IO`, `HV_QUOTA`.
    fn flush(&mut self) -> Result<()>;
}

/// What a [`MemFile`] holds and how it fails, shared by its clones (a test keeps one clone to
/// arm faults and to "crash" while the store owns the other).
#[derive(Debug, Default)]
struct MemState {
    /// The bytes as the program sees them.
    data: Vec<u8>,
    /// Bytes the next writes may still put down before one fails (a torn write); `None`: all.
    write_budget: Option<u64>,
    /// The failure of a write past the budget: `true` a quota error, `false` an I/O error.
    quota: bool,
    /// Fail every flush while set.
    fail_flush: bool,
    /// Writes attempted so far.
    writes: u64,
    /// When the budget runs out the process "dies": every later call fails, nothing more
    /// reaches the bytes (until [`MemFile::crash`]).
    die: bool,
    dead: bool,
}

/// An in-memory [`LogFile`] with fault injection (tests). Clones share the same file.
#[derive(Clone, Debug, Default)]
pub struct MemFile {
    state: Arc<Mutex<MemState>>,
}

impl MemFile {
    /// An empty file.
    pub fn new() -> MemFile {
        MemFile::default()
    }

    fn with<T>(&self, f: impl FnOnce(&mut MemState) -> T) -> T {
        f(&mut self.state.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// After `n` more bytes are written, every write fails (`quota`: with `HV_QUOTA`, else
    /// `HV_IO`) having put down only the bytes up to the budget: a torn write. `None` lifts it.
    pub fn limit_writes(&self, n: Option<u64>, quota: bool) {
        self.with(|s| {
            s.write_budget = n;
            s.quota = quota;
        });
    }

    /// After `n` more bytes are written the process dies: that write is torn after the budget
    /// and every later call fails without effect, until [`MemFile::crash`] (a reopen).
    pub fn die_after(&self, n: u64) {
        self.with(|s| {
            s.write_budget = Some(n);
            s.die = true;
        });
    }

    /// Fails every flush while `on`.
    pub fn fail_flush(&self, on: bool) {
        self.with(|s| s.fail_flush = on);
    }

    /// A process crash: the bytes stay as written (flushed or not: the operating system has
    /// them), every fault is lifted, the file can be opened again.
    pub fn crash(&self) {
        self.with(|s| {
            s.write_budget = None;
            s.fail_flush = false;
            s.die = false;
            s.dead = false;
        });
    }

    /// The current bytes.
    pub fn bytes(&self) -> Vec<u8> {
        self.with(|s| s.data.clone())
    }

    /// Replaces the bytes.
    pub fn set_bytes(&self, b: Vec<u8>) {
        self.with(|s| s.data = b);
    }

    /// Writes attempted so far.
    pub fn writes(&self) -> u64 {
        self.with(|s| s.writes)
    }
}

fn dead() -> Error {
    Error::Io("test process died".into())
}

impl LogFile for MemFile {
    fn size(&mut self) -> Result<u64> {
        self.with(|s| {
            if s.dead {
                return Err(dead());
            }
            Ok(s.data.len() as u64)
        })
    }

    fn read_at(&mut self, at: u64, buf: &mut [u8]) -> Result<()> {
        self.with(|s| {
            if s.dead {
                return Err(dead());
            }
            let at = at as usize;
            match s.data.get(at..at + buf.len()) {
                Some(src) => {
                    buf.copy_from_slice(src);
                    Ok(())
                }
                None => Err(Error::Corrupt("read past the end of the log".into())),
            }
        })
    }

    fn write_at(&mut self, at: u64, data: &[u8]) -> Result<()> {
        self.with(|s| {
            if s.dead {
                return Err(dead());
            }
            s.writes += 1;
            let (n, fail) = match s.write_budget {
                Some(b) if (data.len() as u64) > b => (b as usize, true),
                Some(b) => {
                    s.write_budget = Some(b - data.len() as u64);
                    (data.len(), false)
                }
                None => (data.len(), false),
            };
            if fail {
                s.write_budget = Some(0);
                s.dead = s.die;
            }
            let at = at as usize;
            if s.data.len() < at + n {
                s.data.resize(at + n, 0);
            }
            s.data[at..at + n].copy_from_slice(&data[..n]);
            match (fail, s.quota) {
                (false, _) => Ok(()),
                (true, _) if s.dead => Err(dead()),
                (true, true) => Err(Error::Quota("test quota exhausted".into())),
                (true, false) => Err(Error::Io("test write refused".into())),
            }
        })
    }

    fn truncate(&mut self, len: u64) -> Result<()> {
        self.with(|s| {
            if s.dead {
                return Err(dead());
            }
            s.data.resize(len as usize, 0);
            Ok(())
        })
    }

    fn flush(&mut self) -> Result<()> {
        self.with(|s| {
            if s.dead {
                return Err(dead());
            }
            if s.fail_flush {
                return Err(Error::Io("test flush refused".into()));
            }
            Ok(())
        })
    }
}
