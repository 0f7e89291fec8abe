//! The byte layout of a segment file: header fields, the section table and the section numbers,
//! shared by the writer (`write.rs`) and the reader (`read.rs`).
//!
//! # Layout (`HVSEG002`, all integers little-endian; drawn in `docs/format.md`)
//!
//! ```text
//! 0    magic "HVSEG002"                  8
//! 8    format version u32 = 2
//! 12   header length u32 = 512
//! 16   dim u32 | metric u8 (0 l2, 1 cosine, 2 ip, 3 l1) | bits u8 (0: no codes, L1)
//!      | rows u8 (0 f32, 1 f16: IEEE-754 binary16) | 0 u8
//! 24   n u64 (rows)
//! 32   R u32 | L u32 | α f32 | passes u32
//! 48   seed u64
//! 56   entry u32 | ‖ȳ‖ max f32
//! 64   generation u64
//! 72   max seq u64
//! 80   section table: 12 × (offset u64, length u64, crc32 u32, 0 u32)
//! 368  zero padding
//! 508  crc32 of bytes 0..508
//! 512  sections, each starting on a 64-byte boundary, zero padding between them:
//!      0 seqs          n × u64 (insertion sequence, the tie-breaker)
//!      1 vectors       n × dim × f32 (or × f16 when byte 22 is 1), row-major (the exact rows:
//!                      rerank and exact search, read in place in either precision)
//!      2 inv_norms     n × f32 (1/‖x‖, cosine only; empty otherwise)
//!      3 id_offsets    (n + 1) × u64 into id_bytes
//!      4 id_bytes      per id: kind u8 (1 integer, 2 string) + u64 | UTF-8 bytes
//!      5 id_order      n × u32: rows sorted by their encoded id (binary-search lookup)
//!      6 meta_offsets  (n + 1) × u64 into meta_bytes (an empty range: no metadata)
//!      7 meta_bytes    metadata JSON texts, UTF-8
//!      8 centroid      dim × f32 (RaBitQ centroid; empty without codes)
//!      9 codes         n × record words × u64 (RaBitQ records; empty without codes)
//!      10 graph        n × (R + 1) × u32 (degree, then R neighbour slots)
//!      11 meta_index   the metadata index of the rows (`crate::filter::codec`; version 2)
//! ```
//!
//! The metric byte is [`Metric::code`](crate::types::Metric::code); each id in `id_bytes` is
//! [`VectorId::encode`](crate::types::VectorId::encode) with little-endian integers, and
//! `id_order` sorts rows by those bytes.
//!
//! Byte 22 says how the rows are stored: 0 (every file written before half-precision rows, and
//! every `f32` collection's) `n × dim` `f32`, 1 (`vectors: "f16"` collections) `n × dim` IEEE-754
//! binary16, little-endian, read in place by the `_f16` kernels. Any other value is
//! `HV_CORRUPT`. A build older than half rows reads byte 22 as padding and refuses such a file
//! with `HV_CORRUPT` (its vectors section is half the length it expects).
//!
//! Version 1 (`HVSEG001`) is the same file without section 11: its table has 11 entries (the
//! twelfth is zero) and its file ends with the graph. Such a segment builds its metadata index
//! from the metadata sections on first use; its next compaction writes version 2.

use crate::error::{Error, Result};
use crate::rowdata::Precision;

/// The 8-byte magic at the start of a segment file this build writes (format version 2).
pub const MAGIC: &[u8; 8] = b"HVSEG002";
/// The magic of a format version 1 segment file.
pub const MAGIC_V1: &[u8; 8] = b"HVSEG001";
/// The segment format version this build writes (it also reads [`MIN_FORMAT_VERSION`]).
pub const FORMAT_VERSION: u32 = 2;
/// The oldest segment format version this build reads.
pub const MIN_FORMAT_VERSION: u32 = 1;
/// The first bytes of every segment file's magic.
pub(super) const MAGIC_PREFIX: &[u8; 5] = b"HVSEG";

/// The magic of format version `v` (1 or 2).
pub(super) fn magic_of(v: u32) -> &'static [u8; 8] {
    if v == 1 {
        MAGIC_V1
    } else {
        MAGIC
    }
}
/// Header bytes (sections start after it).
pub const HEADER_LEN: usize = 512;
/// Number of sections (format version 2; version 1 has the first [`SECTIONS_V1`]).
pub const SECTIONS: usize = 12;
/// Number of sections of a format version 1 file.
pub const SECTIONS_V1: usize = 11;
/// Byte offset of the section table.
pub(super) const TABLE_AT: usize = 80;
/// Byte offset of the header checksum (crc32 of the bytes before it).
pub(super) const HEADER_CRC_AT: usize = 508;
/// Sections start on multiples of this many bytes (a cache line; mapped files are page-aligned).
pub const SECTION_ALIGN: u64 = 64;

// Section numbers: their order in the section table and in the file (the drawing above).
/// Section 0: seqs.
pub(super) const S_SEQS: usize = 0;
/// Section 1: vectors.
pub(super) const S_VECTORS: usize = 1;
/// Section 2: inv_norms.
pub(super) const S_INV_NORMS: usize = 2;
/// Section 3: id_offsets.
pub(super) const S_ID_OFFSETS: usize = 3;
/// Section 4: id_bytes.
pub(super) const S_ID_BYTES: usize = 4;
/// Section 5: id_order.
pub(super) const S_ID_ORDER: usize = 5;
/// Section 6: meta_offsets.
pub(super) const S_META_OFFSETS: usize = 6;
/// Section 7: meta_bytes.
pub(super) const S_META_BYTES: usize = 7;
/// Section 8: centroid.
pub(super) const S_CENTROID: usize = 8;
/// Section 9: codes.
pub(super) const S_CODES: usize = 9;
/// Section 10: graph.
pub(super) const S_GRAPH: usize = 10;
/// Section 11: meta_index (format version 2). Like the bulk sections it is not read at open:
/// its checksum is checked when it is decoded (the first filtered use) and by `verify`.
pub(super) const S_META_INDEX: usize = 11;
/// The sections checked only by [`Segment::verify`].
pub(super) const BULK: [usize; 3] = [S_VECTORS, S_CODES, S_GRAPH];
/// Section names, for error messages.
pub(super) const SECTION_NAMES: [&str; SECTIONS] = [
    "seqs",
    "vectors",
    "inv_norms",
    "id_offsets",
    "id_bytes",
    "id_order",
    "meta_offsets",
    "meta_bytes",
    "centroid",
    "codes",
    "graph",
    "meta_index",
];

/// The row precision of the segment image `bytes` (its header byte 22), before the image is
/// opened: a loader picks the collection's precision from it.
///
/// # Errors
/// `HV_CORRUPT`: shorter than a header, or an unknown precision code.
pub fn image_precision(bytes: &[u8]) -> Result<Precision> {
    let code = *bytes
        .get(22)
        .filter(|_| bytes.len() >= HEADER_LEN)
        .ok_or_else(|| Error::Corrupt("a segment image shorter than its header".into()))?;
    Precision::from_code(code)
        .ok_or_else(|| Error::Corrupt(format!("a segment image of row precision code {code}")))
}

/// The little-endian `u32` at byte `at` of `b`.
pub(super) fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// The little-endian `u64` at byte `at` of `b`.
pub(super) fn le_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

/// One entry of the section table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Section {
    /// Byte offset of the section in the file (a multiple of [`SECTION_ALIGN`]).
    pub offset: u64,
    /// Length in bytes.
    pub len: u64,
    /// crc32 of its bytes.
    pub crc: u32,
}
