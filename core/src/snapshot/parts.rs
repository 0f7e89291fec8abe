//! Snapshot format version 5: a container of parts laid out to be read in place ([`super`]
//! draws it). A part is a sealed segment image (the bytes of an `HVSEG002` file, 64-byte
//! aligned inside the snapshot, so a 64-byte aligned copy of the snapshot, or a memory map of
//! it, reads its sections with no copy) with the rows it tombstones, or a record stream (a
//! version-3 snapshot without an index: the records a collection holds outside any index).
//!
//! The whole snapshot is checked by one xxh3-64 hash ([`checksum`]): CRC-32 is fast natively
//! (carry-less multiply) but has no such instruction in wasm, where xxh3 runs several times
//! faster (figures: `bench/checksum.mjs`, `bench-results/checksum/`).

use super::{metric_from, MAGIC};
use crate::ann::AnnIndex;
use crate::error::{Error, Result};
use crate::segment::{write_segment, SegmentRows};
use crate::types::Metric;

/// The snapshot version whose parts are segment images.
pub const VERSION_PARTS: u32 = 5;
/// Bytes of the header (the part table starts after it).
pub(crate) const HEADER: usize = 64;
/// Bytes of one part table entry.
pub(crate) const ENTRY: usize = 32;
/// Parts start on multiples of this many bytes (segment sections are 64-byte aligned).
pub(crate) const ALIGN: usize = 64;
/// Bytes of the trailing checksum.
const TRAILER: usize = 8;
/// Most parts a snapshot may announce (a durable collection has at most a few dozen sealed
/// segments, plus its mutable records).
const MAX_PARTS: u32 = 4096;

/// What a part holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartKind {
    /// A sealed segment image (`HVSEG002`, or `HVSEG001`), node `i` of its graph = its row `i`.
    Segment,
    /// A record stream: a version-3 snapshot (version 4: `f16` rows) without an index.
    Records,
}

impl PartKind {
    fn code(self) -> u32 {
        match self {
            PartKind::Segment => 1,
            PartKind::Records => 2,
        }
    }
}

/// The bytes of a part to write.
pub enum PartBytes<'a> {
    /// Bytes made already (a sealed segment's file, a record stream).
    Bytes(&'a [u8]),
    /// A segment image written here, straight into the snapshot (no copy of it is made first):
    /// `rows` and their index, as [`write_segment`] takes them.
    Segment {
        /// The generation written in its header.
        generation: u64,
        /// The rows, node `i` = row `i`.
        rows: SegmentRows<'a>,
        /// Their index.
        index: &'a AnnIndex,
    },
}

impl PartBytes<'_> {
    /// About how many bytes the part takes (the output is reserved from these).
    fn estimate(&self) -> usize {
        match self {
            PartBytes::Bytes(b) => b.len(),
            PartBytes::Segment { rows, index, .. } => {
                let n = rows.ids.len();
                let meta: usize = rows.metadata.iter().flatten().map(String::len).sum();
                let codes = index.codes().map_or(0, |c| c.records().len() * 8);
                4096 + rows.vectors.len() * 4
                    + n * (8 + 4 + 8 + 18 + 4 + 8 + 4 * (index.graph().max_degree() + 1))
                    + 2 * meta
                    + codes
            }
        }
    }
}

/// A part to write: its kind, its bytes and (segments) the rows it tombstones, ascending.
pub struct PartOut<'a> {
    /// What the bytes are.
    pub kind: PartKind,
    /// The part's bytes.
    pub bytes: PartBytes<'a>,
    /// Tombstoned rows of a segment part (empty for records).
    pub tombstones: Vec<u32>,
}

/// The tail of a `Vec` from `base` on, as a file of its own (a segment image written into a
/// snapshot: [`write_segment`] seeks back to its start for the header).
struct Tail<'v> {
    out: &'v mut Vec<u8>,
    base: usize,
    pos: usize,
}

impl std::io::Write for Tail<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let at = self.base + self.pos;
        let end = at + buf.len();
        if end > self.out.len() {
            self.out
                .try_reserve(end - self.out.len())
                .map_err(|_| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
            self.out.resize(end, 0);
        }
        self.out[at..end].copy_from_slice(buf);
        self.pos += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl std::io::Seek for Tail<'_> {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        match to {
            std::io::SeekFrom::Start(p) => self.pos = p as usize,
            _ => return Err(std::io::Error::from(std::io::ErrorKind::Unsupported)),
        }
        Ok(self.pos as u64)
    }
}

/// A part as read: its kind, the byte range of its bytes and of its tombstone list (`u32`s).
#[derive(Clone, Debug)]
pub struct PartIn {
    /// What the bytes are.
    pub kind: PartKind,
    /// Offset of the part's bytes (a multiple of 64).
    pub offset: u64,
    /// Length of the part's bytes.
    pub len: u64,
    /// Offset of the tombstone list (a multiple of 4).
    pub tomb_offset: u64,
    /// Number of tombstoned rows.
    pub tombstones: u32,
}

/// The header of a version-5 snapshot: shape, live record count, parts.
#[derive(Clone, Debug)]
pub struct PartsHeader {
    /// Vector dimension.
    pub dim: usize,
    /// Metric.
    pub metric: Metric,
    /// Live records over every part.
    pub count: u64,
    /// The parts, in table order (sealed segments oldest first, then the records).
    pub parts: Vec<PartIn>,
}

/// The checksum of a version-5 snapshot: xxh3-64 of `bytes`.
pub fn checksum(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

fn align_to(out: &mut Vec<u8>, a: usize) {
    let pad = (a - out.len() % a) % a;
    out.resize(out.len() + pad, 0);
}

/// Writes a version-5 snapshot of `count` live records of `dim`-d vectors under `metric` from
/// `parts`.
///
/// # Errors
/// `HV_OUT_OF_MEMORY` when the output cannot be allocated; `HV_INTERNAL` with too many parts.
pub fn write_parts(
    dim: usize,
    metric: Metric,
    count: u64,
    parts: &[PartOut<'_>],
) -> Result<Vec<u8>> {
    if parts.len() > MAX_PARTS as usize {
        return Err(Error::Internal(format!(
            "snapshot: {} parts, at most {MAX_PARTS}",
            parts.len()
        )));
    }
    let table_end = HEADER + ENTRY * parts.len();
    let body: usize = parts
        .iter()
        .map(|p| p.bytes.estimate() + ALIGN + 4 * p.tombstones.len() + 4)
        .sum();
    // a segment written here allocates its id, metadata and adjacency columns besides the
    // output (wasm: at the heap's ceiling this is HV_OUT_OF_MEMORY, not an abort)
    crate::mem::ensure_headroom(|| 2 * body, "toBytes")?;
    let mut out: Vec<u8> = Vec::new();
    out.try_reserve_exact(table_end + ALIGN + body + TRAILER)
        .map_err(|_| Error::OutOfMemory("snapshot buffer".into()))?;
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION_PARTS.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes()); // flags: none defined
    out.extend_from_slice(&(dim as u32).to_le_bytes());
    out.extend_from_slice(&u32::from(metric.code()).to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&(parts.len() as u32).to_le_bytes());
    out.resize(table_end, 0);
    for (i, p) in parts.iter().enumerate() {
        align_to(&mut out, ALIGN);
        let offset = out.len() as u64;
        match &p.bytes {
            PartBytes::Bytes(b) => out.extend_from_slice(b),
            PartBytes::Segment {
                generation,
                rows,
                index,
            } => {
                let base = out.len();
                let mut tail = Tail {
                    out: &mut out,
                    base,
                    pos: 0,
                };
                write_segment(&mut tail, *generation, rows, index).map_err(|e| match e {
                    Error::Io(_) => Error::OutOfMemory("snapshot buffer".into()),
                    other => other,
                })?;
            }
        }
        let len = out.len() as u64 - offset;
        align_to(&mut out, 4);
        let tomb_offset = out.len() as u64;
        for &r in &p.tombstones {
            out.extend_from_slice(&r.to_le_bytes());
        }
        let e = HEADER + ENTRY * i;
        out[e..e + 4].copy_from_slice(&p.kind.code().to_le_bytes());
        out[e + 4..e + 8].copy_from_slice(&(p.tombstones.len() as u32).to_le_bytes());
        out[e + 8..e + 16].copy_from_slice(&offset.to_le_bytes());
        out[e + 16..e + 24].copy_from_slice(&len.to_le_bytes());
        out[e + 24..e + 32].copy_from_slice(&tomb_offset.to_le_bytes());
    }
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    Ok(out)
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn le_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

/// Reads the header and part table of a version-5 snapshot after checking its checksum, and
/// checks every part's range: inside the body, after the table, 64-byte aligned (segments),
/// not overlapping another part, tombstone lists 4-byte aligned and inside the body.
///
/// # Errors
/// `HV_CORRUPT` (truncation, checksum, unknown metric or part kind, a range out of bounds).
pub fn read_parts(bytes: &[u8]) -> Result<PartsHeader> {
    let corrupt = |m: String| Error::Corrupt(format!("snapshot: {m}"));
    if bytes.len() < HEADER + TRAILER {
        return Err(corrupt(format!(
            "{} bytes, shorter than a version-5 header",
            bytes.len()
        )));
    }
    let body_len = bytes.len() - TRAILER;
    let (body, tail) = bytes.split_at(body_len);
    if checksum(body) != le_u64(tail, 0) {
        return Err(corrupt("checksum mismatch (damaged or truncated)".into()));
    }
    let flags = le_u32(body, 12);
    if flags != 0 {
        return Err(corrupt(format!("unknown flags {flags:#x} of version 5")));
    }
    let dim = le_u32(body, 16) as usize;
    let metric = metric_from(le_u32(body, 20))?;
    let count = le_u64(body, 24);
    let n_parts = le_u32(body, 32);
    if n_parts > MAX_PARTS || HEADER + ENTRY * n_parts as usize > body_len {
        return Err(corrupt(format!("{n_parts} parts announced")));
    }
    let table_end = (HEADER + ENTRY * n_parts as usize) as u64;
    let mut parts: Vec<PartIn> = Vec::with_capacity(n_parts as usize);
    for i in 0..n_parts as usize {
        let e = HEADER + ENTRY * i;
        let kind = match le_u32(body, e) {
            1 => PartKind::Segment,
            2 => PartKind::Records,
            k => return Err(corrupt(format!("part {i} of unknown kind {k}"))),
        };
        let p = PartIn {
            kind,
            tombstones: le_u32(body, e + 4),
            offset: le_u64(body, e + 8),
            len: le_u64(body, e + 16),
            tomb_offset: le_u64(body, e + 24),
        };
        let end = p.offset.checked_add(p.len);
        let tomb_end = p.tomb_offset.checked_add(4 * u64::from(p.tombstones));
        let inside = |start: u64, end: Option<u64>| {
            start >= table_end && end.is_some_and(|x| x <= body_len as u64)
        };
        if !inside(p.offset, end)
            || !p.offset.is_multiple_of(ALIGN as u64)
            || !inside(p.tomb_offset, tomb_end)
            || !p.tomb_offset.is_multiple_of(4)
            || (kind == PartKind::Records && p.tombstones != 0)
        {
            return Err(corrupt(format!(
                "part {i} lies outside the snapshot or is misplaced"
            )));
        }
        // parts come in file order and do not overlap
        if let Some(prev) = parts.last() {
            if p.offset < prev.offset + prev.len {
                return Err(corrupt(format!("part {i} overlaps part {}", i - 1)));
            }
        }
        parts.push(p);
    }
    Ok(PartsHeader {
        dim,
        metric,
        count,
        parts,
    })
}

/// The tombstone list of `part`: rows, as stored (the caller checks them against the segment).
pub fn tombstones(bytes: &[u8], part: &PartIn) -> Vec<u32> {
    let at = part.tomb_offset as usize;
    bytes[at..at + 4 * part.tombstones as usize]
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}
