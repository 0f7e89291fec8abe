//! [`LogStore`]: a [`RecordStore`] over two plain files ([`LogFile`]), for storage that has no
//! database, no rename and no directory sync: the browser's Origin Private File System (its
//! `FileSystemSyncAccessHandle`s, wrapped by the wasm binding). It needs no thread and no
//! `std::fs`, so it compiles for wasm32. Layout: `docs/format.md` ("Log store").
//!
//! - **One frame = one group.** [`commit`](RecordStore::commit) appends one checksummed frame
//!   holding the whole group and flushes before it returns. At open the first frame that is
//!   short or fails its checksum ends the log and is cut off, so a write torn by a crash loses
//!   exactly the group that was never acknowledged, and no part of a group is ever visible. A
//!   failed write or flush is cut off at once (the file is truncated back), so a failed commit
//!   leaves the store as before; should that truncation fail too, the store refuses every later
//!   commit until it is reopened (which cuts the tail by its checksum, or keeps a group whose
//!   bytes all reached the file: never part of one).
//! - **Checkpoints.** The log would grow with every write; after a seal or a compaction
//!   ([`reclaim`](RecordStore::reclaim)), and when it has grown past a few times its starting
//!   state, the live state (records and manifest) is written into the *other* file as one base
//!   frame behind a header carrying the next checkpoint number, flushed, and only then is the
//!   old file truncated. At open the file with the larger number whose base frame is whole wins
//!   and the other is truncated, so a crash at any point of a checkpoint loses nothing.
//! - **Replay.** [`load`](RecordStore::load) and [`segments`](RecordStore::segments) replay the
//!   frames into a transient [`MemoryStore`] (the one definition of what a mutation does); the
//!   store keeps no copy of the records between calls.

mod codec;
mod file;
#[cfg(test)]
mod tests;

pub use codec::{FRAME_HEAD, HEADER_LEN, LOG_MAGIC, LOG_VERSION, LOG_VERSION_F16};
pub use file::{LogFile, MemFile};

use codec::{decode_payload, encode_frame, Header, KIND_BASE};

use super::{ManifestEntry, MemoryStore, Mutation, Reclaim, RecordStore, StoredRecord};
use crate::error::{Error, Result};
use crate::rowdata::Precision;
use crate::types::Metric;

/// Log bytes past the base frame below which no size-triggered checkpoint is made.
const CHECKPOINT_MIN_GROWTH: u64 = 8 << 20;

/// A record store in two log files (see the module documentation).
pub struct LogStore<F: LogFile> {
    files: [F; 2],
    /// The current file.
    active: usize,
    header: Header,
    /// End of the last whole frame of the current file (where the next commit goes).
    end: u64,
    /// End of the current file's base frame.
    base_end: u64,
    /// A failed commit could not be cut off: refuse commits until reopened.
    broken: bool,
}

/// A whole file's header and where its base frame ends; `None` when it is not whole.
fn whole<F: LogFile>(f: &mut F) -> Result<Option<(Header, u64)>> {
    let size = f.size()?;
    if size < HEADER_LEN {
        return Ok(None);
    }
    let mut h = [0u8; HEADER_LEN as usize];
    f.read_at(0, &mut h)?;
    let Some(header) = Header::decode(&h)? else {
        return Ok(None);
    };
    match read_frame(f, HEADER_LEN, size)? {
        Some(p) if p.first() == Some(&KIND_BASE) => {
            Ok(Some((header, HEADER_LEN + FRAME_HEAD + p.len() as u64)))
        }
        _ => Ok(None),
    }
}

/// The payload of the frame at `at` when it is whole and its checksum holds; `None` otherwise
/// (the torn tail of a crash, or the end of the file).
fn read_frame<F: LogFile>(f: &mut F, at: u64, size: u64) -> Result<Option<Vec<u8>>> {
    if size.saturating_sub(at) < FRAME_HEAD {
        return Ok(None);
    }
    let mut head = [0u8; FRAME_HEAD as usize];
    f.read_at(at, &mut head)?;
    let len = u64::from(u32::from_le_bytes([head[0], head[1], head[2], head[3]]));
    let crc = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
    if len == 0 || size - at - FRAME_HEAD < len {
        return Ok(None);
    }
    let mut p = Vec::new();
    p.try_reserve_exact(len as usize)
        .map_err(|_| Error::OutOfMemory(format!("a log frame of {len} bytes")))?;
    p.resize(len as usize, 0);
    f.read_at(at + FRAME_HEAD, &mut p)?;
    Ok((crc32fast::hash(&p) == crc).then_some(p))
}

impl<F: LogFile> LogStore<F> {
    /// Opens the store kept in `files` (two files, either may be empty), or creates it there
    /// when both hold nothing that was ever complete. `dim` is required to create (`metric`
    /// defaults to L2, `vectors` to `f32`); when given, each must match the stored one. Cuts a
    /// torn tail off the current file and empties the stale one.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` (options differ from the stored ones, `dim` missing to create),
    /// `HV_CORRUPT` (files that hold data but no whole header and base frame, a damaged frame),
    /// `HV_VERSION`, the files' errors (`HV_IO`, `HV_QUOTA`).
    pub fn open(
        mut files: [F; 2],
        dim: Option<usize>,
        metric: Option<Metric>,
        vectors: Option<Precision>,
    ) -> Result<Self> {
        let found = [whole(&mut files[0])?, whole(&mut files[1])?];
        let pick = match (found[0], found[1]) {
            (Some(a), Some(b)) => Some(usize::from(b.0.checkpoint > a.0.checkpoint)),
            (Some(_), None) => Some(0),
            (None, Some(_)) => Some(1),
            (None, None) => None,
        };
        let Some(active) = pick else {
            return Self::create(files, dim, metric, vectors);
        };
        let (header, base_end) = found[active].unwrap_or((
            Header {
                dim: 0,
                metric: Metric::L2,
                precision: Precision::F32,
                checkpoint: 0,
            },
            0,
        ));
        if let Some(d) = dim.filter(|&d| d != header.dim) {
            return Err(Error::invalid_argument(format!(
                "stored dim is {}, the options say {d}",
                header.dim
            )));
        }
        if let Some(m) = metric.filter(|&m| m != header.metric) {
            return Err(Error::invalid_argument(format!(
                "stored metric is {}, the options say {}",
                header.metric.as_str(),
                m.as_str()
            )));
        }
        if let Some(p) = vectors.filter(|&p| p != header.precision) {
            return Err(Error::invalid_argument(format!(
                "stored vectors are {}, the options say {}",
                header.precision.name(),
                p.name()
            )));
        }
        let mut store = LogStore {
            files,
            active,
            header,
            end: base_end,
            base_end,
            broken: false,
        };
        store.end = store.scan()?;
        let f = &mut store.files[active];
        if f.size()? > store.end {
            f.truncate(store.end)?;
            f.flush()?;
        }
        let other = &mut store.files[1 - active];
        if other.size()? > 0 {
            other.truncate(0)?;
            other.flush()?;
        }
        Ok(store)
    }

    /// A new store: both files hold less than a whole header and empty base frame (never
    /// created, or a creation torn by a crash: nothing was acknowledged yet).
    fn create(
        mut files: [F; 2],
        dim: Option<usize>,
        metric: Option<Metric>,
        vectors: Option<Precision>,
    ) -> Result<Self> {
        let empty_len = HEADER_LEN + FRAME_HEAD + 5;
        for f in &mut files {
            if f.size()? >= empty_len {
                return Err(Error::Corrupt(
                    "the log files hold data but no whole header and base frame (damaged, or not a horosvec collection); nothing was changed".into(),
                ));
            }
        }
        let dim = dim.ok_or_else(|| {
            Error::invalid_argument("no collection here; give dim (and metric) to create one")
        })?;
        let header = Header {
            dim,
            metric: metric.unwrap_or(Metric::L2),
            precision: vectors.unwrap_or(Precision::F32),
            checkpoint: 1,
        };
        let mut store = LogStore {
            files,
            active: 1,
            header,
            end: 0,
            base_end: 0,
            broken: false,
        };
        store.write_base(0, header, &[])?;
        Ok(store)
    }

    /// Ends of the current file's frames after the base one: the end of the last whole frame.
    fn scan(&mut self) -> Result<u64> {
        let f = &mut self.files[self.active];
        let size = f.size()?;
        let mut at = self.base_end;
        while let Some(p) = read_frame(f, at, size)? {
            at += FRAME_HEAD + p.len() as u64;
        }
        Ok(at)
    }

    /// Replays the current file into a fresh [`MemoryStore`].
    fn replay(&mut self) -> Result<MemoryStore> {
        let mut mem = MemoryStore::new(self.header.dim, self.header.metric);
        let (dim, end) = (self.header.dim, self.end);
        let f = &mut self.files[self.active];
        let mut at = HEADER_LEN;
        while at < end {
            let p = read_frame(f, at, end)?.ok_or_else(|| {
                Error::Corrupt("a log frame checked at open no longer reads back".into())
            })?;
            decode_payload(&p, dim, &mut |m| mem.commit(&[m]))?;
            at += FRAME_HEAD + p.len() as u64;
        }
        Ok(mem)
    }

    /// Writes `header` and a base frame of `muts` into file `target` (emptied first) and flushes
    /// it; on success it becomes the current file. On an error `target` is emptied again (best
    /// effort) and the store is unchanged.
    fn write_base(&mut self, target: usize, header: Header, muts: &[Mutation<'_>]) -> Result<()> {
        let mut bytes = header.encode().to_vec();
        bytes.extend_from_slice(&encode_frame(KIND_BASE, muts, header.dim)?);
        let f = &mut self.files[target];
        let written = f
            .truncate(0)
            .and_then(|()| f.write_at(0, &bytes))
            .and_then(|()| f.flush());
        if let Err(e) = written {
            let _ = f.truncate(0).and_then(|()| f.flush());
            return Err(e);
        }
        let old = std::mem::replace(&mut self.active, target);
        self.header = header;
        self.end = bytes.len() as u64;
        self.base_end = self.end;
        if old != target {
            // best effort: at open the larger checkpoint number wins anyway
            let f = &mut self.files[old];
            let _ = f.truncate(0).and_then(|()| f.flush());
        }
        Ok(())
    }

    /// Writes the live state into the other file as its base (see the module documentation).
    ///
    /// # Errors
    /// `HV_IO`, `HV_QUOTA`, `HV_OUT_OF_MEMORY`; the store is then unchanged.
    pub fn checkpoint(&mut self) -> Result<()> {
        if self.broken {
            return Err(broken());
        }
        let mem = self.replay()?;
        let manifest = mem.manifest();
        let records = mem.records_by_seq();
        let mut muts = Vec::new();
        for e in &manifest {
            muts.push(Mutation::AddSegment {
                generation: e.generation,
                rows: e.rows,
            });
            muts.extend(e.tombstones.iter().map(|&row| Mutation::Tombstone {
                generation: e.generation,
                row,
            }));
        }
        muts.extend(records.iter().map(|r| Mutation::Put {
            id: &r.id,
            seq: r.seq,
            vector: &r.vector,
            metadata: r.metadata.as_deref(),
        }));
        let header = Header {
            checkpoint: self.header.checkpoint + 1,
            ..self.header
        };
        self.write_base(1 - self.active, header, &muts)
    }

    /// Bytes of the current file (header, base frame and the groups after it).
    pub fn log_bytes(&self) -> u64 {
        self.end
    }

    /// The current checkpoint number (1 for a new store).
    pub fn checkpoint_number(&self) -> u64 {
        self.header.checkpoint
    }
}

fn broken() -> Error {
    Error::Io(
        "an earlier failed write to the log could not be undone; close and reopen the collection"
            .into(),
    )
}

impl<F: LogFile> RecordStore for LogStore<F> {
    fn shape(&self) -> (usize, Metric) {
        (self.header.dim, self.header.metric)
    }

    fn precision(&self) -> Precision {
        self.header.precision
    }

    fn segments(&mut self) -> Result<Vec<ManifestEntry>> {
        Ok(self.replay()?.manifest())
    }

    fn load(&mut self, sink: &mut dyn FnMut(StoredRecord) -> Result<()>) -> Result<()> {
        self.replay()?.load(sink)
    }

    /// [`Reclaim::Always`] (after a swap): a checkpoint. [`Reclaim::WhenWorthwhile`] and
    /// [`Reclaim::DuringWrites`]: one when the groups after the base frame have grown past three
    /// times its size (and 8 MiB).
    fn reclaim(&mut self, when: Reclaim) -> Result<()> {
        let grown = self.end - self.base_end;
        let worth = grown >= CHECKPOINT_MIN_GROWTH && grown >= 3 * self.base_end;
        if when == Reclaim::Always || worth {
            self.checkpoint()?;
        }
        Ok(())
    }

    fn commit(&mut self, muts: &[Mutation<'_>]) -> Result<()> {
        if self.broken {
            return Err(broken());
        }
        if muts.is_empty() {
            return Ok(());
        }
        let frame = encode_frame(codec::KIND_GROUP, muts, self.header.dim)?;
        let (end, f) = (self.end, &mut self.files[self.active]);
        match f.write_at(end, &frame).and_then(|()| f.flush()) {
            Ok(()) => {
                self.end += frame.len() as u64;
                Ok(())
            }
            Err(e) => {
                // cut the group off again, so that it never reappears at the next open
                if f.truncate(end).and_then(|()| f.flush()).is_err() {
                    self.broken = true;
                }
                Err(e)
            }
        }
    }
}
