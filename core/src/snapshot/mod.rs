//! Versioned binary snapshots of a collection (`toBytes` / `fromBytes`): the same bytes load in
//! the native and the wasm build, so an index built natively can be shipped to a browser.
//!
//! Two layouts share the magic and the version field (all integers little-endian; drawn in
//! `docs/format.md`). **Version 5** (`parts.rs`), written by every collection that has an index
//! or sealed segments (`f32` or `f16` rows), is read in place: its parts are sealed segment images, 64-byte
//! aligned, so loading copies the bytes once into an aligned buffer (`fromFile`: the file read
//! straight into one, not mapped) and
//! installs each image as a sealed segment of the collection, with no per-record work:
//!
//! ```text
//! 0   magic "HVSNAP01" (8) | version u32 = 5 | flags u32 = 0
//! 16  dim u32 | metric u32 (0 l2, 1 cosine, 2 ip, 3 l1) | count u64 (live records)
//! 32  parts u32 | zero padding to 64
//! 64  part table: parts × (kind u32 (1 segment image, 2 records) | tombstones u32 |
//!       offset u64 | length u64 | tombstone list offset u64)
//!     parts: each at a multiple of 64 bytes (zero padding between): a segment image is the
//!       bytes of an `HVSEG002` file (`crate::segment`), followed by its tombstoned rows
//!       (tombstones × u32); a records part is a version-3 stream (below; version 4 for
//!       `f16` rows) without an index. Every part holds rows of one precision (a segment
//!       image's header byte 22): the first part's is the collection's
//! end xxh3-64 of every byte before it: u64
//! ```
//!
//! **Versions 1–4** are a record stream, written by collections without an index (version 3,
//! or version 4 for `f16` rows):
//!
//! ```text
//! magic "HVSNAP01" (8) | version u32 = 3 (f32 rows) or 4 (f16 rows)
//! flags u32 (bit 0: index present; bit 1: metadata index present, version 3; bit 2: f16 rows,
//!   version 4)
//! dim u32 | metric u32 (0 l2, 1 cosine, 2 ip, 3 l1) | count u64
//! count × record:
//!   id kind u8 (1 integer, 2 string) | integer: u64 | string: len u32 + UTF-8 bytes
//!   seq u64 | metadata len u32 (0xFFFFFFFF = none) + UTF-8 JSON bytes | dim × f32
//!   (flag bit 2: dim × f16, IEEE-754 binary16)
//! metadata index (flag bit 1): len u64 | len bytes (`crate::filter::codec`, over the count
//!   records: row i = record i, every record a member)
//! index (flag bit 0):
//!   R u32 | L u32 | alpha f32 | passes u32 | bits u32 | seed u64 | entry u32
//!   count × degree u32 | Σ degree × neighbour u32
//!   codes (version 2, metric other than L1): centroid dim × f32 | record words u32 |
//!     count × record words × u64 (RaBitQ records: code and factors, as in a segment file)
//! crc32 (IEEE) of every byte before it: u32
//! ```
//!
//! Version 2 stores the RaBitQ codes, so loading installs them instead of encoding every vector
//! again (a random rotation per vector: most of a version-1 load, and single-threaded in the
//! browser). Version 1 snapshots (no codes) still load: their codes are recomputed from the
//! vectors and the stored seed, as a build computes them. Version 3 adds the metadata index of
//! the records, which loading installs instead of parsing every record's metadata again;
//! versions 1 and 2 (no metadata index) still load, their index built from the metadata. Version 4
//! is written only by collections with `vectors: "f16"` without an index (flag bit 2:
//! half-precision rows, loaded as such, the stored halves kept without a round trip through
//! `f32`). Loading a stream checks the magic, the version (`HV_VERSION`), the checksum and
//! every length against the bytes left before it allocates (`HV_CORRUPT`), every record as
//! `restore_row` does, and that the codes match the parameters and the record count. Loading
//! version 5 checks the checksum, every part's range and alignment, each segment image as a
//! segment open does (header, section bounds and checksums of the small sections), plus every
//! graph edge, the id order and a sample of the codes: structural checks over the sections,
//! not per-row decoding.

use crate::ann::IndexParams;
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::quant::RabitqIndex;
use crate::rowdata::Precision;
use crate::types::{Metric, VectorId};
use std::borrow::Cow;

mod decode;
mod parts;

pub use decode::{Decoder, LoadedIndex};
pub use parts::{
    checksum, read_parts, tombstones, write_parts, PartBytes, PartKind, PartOut, VERSION_PARTS,
};

/// The 8-byte magic at the start of a snapshot.
pub const MAGIC: &[u8; 8] = b"HVSNAP01";
/// The newest snapshot format version this build reads and writes (5: segment images, see
/// above; collections without an index write [`VERSION_F32`], or [`VERSION_F16`] for `f16` rows).
pub const VERSION: u32 = VERSION_PARTS;
/// The version of a record stream of `f16` rows.
pub const VERSION_F16: u32 = 4;
/// The version written for `f32` rows (unchanged bytes for readers of version 3).
pub const VERSION_F32: u32 = 3;
/// The oldest snapshot version this build reads.
pub const MIN_READ_VERSION: u32 = 1;
/// Flag bit: the snapshot has an index part.
const FLAG_INDEX: u32 = 1;
/// Flag bit: the snapshot has a metadata index (version 3).
const FLAG_META_INDEX: u32 = 2;
/// Flag bit: the records' vectors are IEEE half floats (version 4).
const FLAG_F16: u32 = 4;
/// Metadata length of a record without metadata.
const NO_METADATA: u32 = u32::MAX;

/// The metric of a header word ([`Metric::from_code`], the code shared with segment files).
fn metric_from(c: u32) -> Result<Metric> {
    u8::try_from(c)
        .ok()
        .and_then(Metric::from_code)
        .ok_or_else(|| Error::Corrupt(format!("snapshot: unknown metric code {c}")))
}

/// One record as the snapshot writer reads it: id, seq, vector, metadata.
pub type RecordRef<'a> = (&'a VectorId, u64, Cow<'a, [f32]>, Option<&'a str>);

/// The index part of a snapshot: build parameters and graph.
pub struct IndexPart<'a> {
    /// Build parameters (bits resolved).
    pub params: IndexParams,
    /// The graph over the records, node `i` = record `i` of the snapshot.
    pub graph: &'a Graph,
    /// The RaBitQ codes of the records (none under L1), record `i` = record `i`.
    pub codes: Option<&'a RabitqIndex>,
}

/// Writes a snapshot of `count` records (from `records`, in row order), their metadata index
/// (`meta_index`: its `crate::filter::codec` encoding, over exactly these records) and
/// optionally the index.
///
/// # Errors
/// `HV_OUT_OF_MEMORY` when the output buffer cannot grow; `HV_INTERNAL` when `records` yields
/// other than `count` records, or the index's codes hold other than `count` records.
pub fn write<'a>(
    dim: usize,
    metric: Metric,
    precision: Precision,
    count: usize,
    records: impl Iterator<Item = RecordRef<'a>>,
    meta_index: &[u8],
    index: Option<IndexPart<'_>>,
) -> Result<Vec<u8>> {
    let mut out: Vec<u8> = Vec::new();
    let half = precision == Precision::F16;
    let value_bytes = precision.bytes();
    out.try_reserve(64 + count * (dim * value_bytes + 32))
        .map_err(|_| Error::OutOfMemory("snapshot buffer".into()))?;
    out.extend_from_slice(MAGIC);
    put_u32(&mut out, if half { VERSION_F16 } else { VERSION_F32 });
    let flags = FLAG_META_INDEX
        | if index.is_some() { FLAG_INDEX } else { 0 }
        | if half { FLAG_F16 } else { 0 };
    put_u32(&mut out, flags);
    put_u32(&mut out, dim as u32);
    put_u32(&mut out, u32::from(metric.code()));
    put_u64(&mut out, count as u64);
    let oom = |_| Error::OutOfMemory("snapshot buffer".into());
    let mut written = 0usize;
    for (id, seq, v, meta) in records {
        // every growth of the buffer is fallible (a wasm heap at its ceiling gives
        // HV_OUT_OF_MEMORY, not an abort); within the first estimate this only checks
        let id_len = match id {
            VectorId::Int(_) => 8,
            VectorId::Str(s) => 4 + s.len(),
        };
        out.try_reserve(1 + id_len + 8 + 4 + meta.map_or(0, str::len) + value_bytes * v.len() + 4)
            .map_err(oom)?;
        match id {
            VectorId::Int(i) => {
                out.push(VectorId::KIND_INT);
                put_u64(&mut out, *i);
            }
            VectorId::Str(s) => {
                out.push(VectorId::KIND_STR);
                put_u32(&mut out, s.len() as u32);
                out.extend_from_slice(s.as_bytes());
            }
        }
        put_u64(&mut out, seq);
        match meta {
            Some(m) => {
                put_u32(&mut out, m.len() as u32);
                out.extend_from_slice(m.as_bytes());
            }
            None => put_u32(&mut out, NO_METADATA),
        }
        if half {
            for &x in v.iter() {
                out.extend_from_slice(&half::f16::from_f32(x).to_le_bytes());
            }
        } else {
            for x in v.iter() {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        written += 1;
    }
    if written != count {
        return Err(Error::Internal(format!(
            "snapshot: {written} records written, {count} announced"
        )));
    }
    out.try_reserve(8 + meta_index.len()).map_err(oom)?;
    put_u64(&mut out, meta_index.len() as u64);
    out.extend_from_slice(meta_index);
    if let Some(ix) = index {
        let edges: usize = (0..count as u32).map(|i| ix.graph.degree(i)).sum();
        let codes = ix.codes.map_or(0, |c| 4 * dim + 4 + c.records().len() * 8);
        out.try_reserve(32 + 4 * count + 4 * edges + codes + 4)
            .map_err(oom)?;
        let p = ix.params;
        put_u32(&mut out, p.r as u32);
        put_u32(&mut out, p.l as u32);
        out.extend_from_slice(&p.alpha.to_le_bytes());
        put_u32(&mut out, p.passes as u32);
        put_u32(&mut out, u32::from(p.bits));
        put_u64(&mut out, p.seed);
        put_u32(&mut out, ix.graph.entry_point());
        for i in 0..count as u32 {
            put_u32(&mut out, ix.graph.degree(i) as u32);
        }
        for i in 0..count as u32 {
            for &v in ix.graph.neighbors(i) {
                put_u32(&mut out, v);
            }
        }
        if let Some(c) = ix.codes {
            if c.len() != count {
                return Err(Error::Internal(format!(
                    "snapshot: {} codes for {count} records",
                    c.len()
                )));
            }
            for x in c.centroid() {
                out.extend_from_slice(&x.to_le_bytes());
            }
            put_u32(&mut out, c.record_words() as u32);
            for w in c.records() {
                put_u64(&mut out, *w);
            }
        }
    }
    let crc = crc32fast::hash(&out);
    put_u32(&mut out, crc);
    Ok(out)
}

/// The format version of `bytes` if they start with a snapshot's magic and version field.
pub fn version_of(bytes: &[u8]) -> Option<u32> {
    (bytes.len() >= 12 && &bytes[..8] == MAGIC)
        .then(|| u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]))
}

fn put_u32(out: &mut Vec<u8>, x: u32) {
    out.extend_from_slice(&x.to_le_bytes());
}

fn put_u64(out: &mut Vec<u8>, x: u64) {
    out.extend_from_slice(&x.to_le_bytes());
}
