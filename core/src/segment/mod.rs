//! Sealed segments: immutable files holding a batch of records and their Vamana index, read in
//! place from a memory map (seed-vector-database.md §2.4–2.6: mutable segment, sealed segments,
//! manifest; seed-horosvec.md §3: open without a rebuild).
//!
//! A segment is written once ([`write_segment`]), synced and renamed into place, and never
//! changed afterwards: deletes of its records are tombstones kept by the collection (and by the
//! store's `tombstones` table), not edits of the file. [`Segment::from_backing`] reads the header
//! and hands out [`Region`]s of the mapping to the graph, the codes and the rows, so opening a
//! segment costs a header parse and a pass over its small sections, whatever its size.
//!
//! # Layout (`HVSEG001`, all integers little-endian; drawn in `docs/format.md`)
//!
//! ```text
//! 0    magic "HVSEG001"                  8
//! 8    format version u32 = 1
//! 12   header length u32 = 512
//! 16   dim u32 | metric u8 (0 l2, 1 cosine, 2 ip, 3 l1) | bits u8 (0: no codes, L1) | 0 u16
//! 24   n u64 (rows)
//! 32   R u32 | L u32 | α f32 | passes u32
//! 48   seed u64
//! 56   entry u32 | ‖ȳ‖ max f32
//! 64   generation u64
//! 72   max seq u64
//! 80   section table: 11 × (offset u64, length u64, crc32 u32, 0 u32)
//! 344  zero padding
//! 508  crc32 of bytes 0..508
//! 512  sections, each starting on a 64-byte boundary, zero padding between them:
//!      0 seqs          n × u64 (insertion sequence, the tie-breaker)
//!      1 vectors       n × dim × f32, row-major (the exact rows: rerank and exact search)
//!      2 inv_norms     n × f32 (1/‖x‖, cosine only; empty otherwise)
//!      3 id_offsets    (n + 1) × u64 into id_bytes
//!      4 id_bytes      per id: kind u8 (1 integer, 2 string) + u64 | UTF-8 bytes
//!      5 id_order      n × u32: rows sorted by their encoded id (binary-search lookup)
//!      6 meta_offsets  (n + 1) × u64 into meta_bytes (an empty range: no metadata)
//!      7 meta_bytes    metadata JSON texts, UTF-8
//!      8 centroid      dim × f32 (RaBitQ centroid; empty without codes)
//!      9 codes         n × record words × u64 (RaBitQ records; empty without codes)
//!      10 graph        n × (R + 1) × u32 (degree, then R neighbour slots)
//! ```
//!
//! Rows are kept as `f32`, not fp16: `search(q, { exact: true })` must be exact over the values
//! the user stored, which an fp16 copy is not (the C++ engine's "exact" mode was not exact).
//!
//! # Checks
//! Opening checks the magic (`HV_CORRUPT`), the version (`HV_VERSION`), the header checksum,
//! every section's bounds and alignment, and the checksums and structure of the small sections
//! (seqs, norms, ids, order, metadata, centroid). The three bulk sections (vectors, codes, graph:
//! over 95 % of the bytes at 384-d) are checked by [`Segment::verify`] (`{ verify: true }` at open), which
//! reads the whole file: a plain open must not, to stay instant at a million rows.

#[cfg(feature = "durable")]
mod file;
mod write;

#[cfg(feature = "durable")]
pub use file::{
    open_segment_file, parse_segment_file_name, segment_file_name, sync_dir, warm_up,
    write_segment_file, SEGMENT_SUFFIX, TEMP_SUFFIX,
};
pub use write::{write_segment, SegmentRows};

use std::sync::Arc;

use crate::ann::{code_params, AnnIndex, IndexParams};
use crate::distance::Kernels;
use crate::error::{Error, Result};
use crate::flat::FlatView;
use crate::graph::Graph;
use crate::quant::RabitqIndex;
use crate::region::{Backing, RecordPages, Region};
use crate::types::{Metric, VectorId};

/// The 8-byte magic at the start of a segment file.
pub const MAGIC: &[u8; 8] = b"HVSEG001";
/// The segment format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// Header bytes (sections start after it).
pub const HEADER_LEN: usize = 512;
/// Number of sections.
pub const SECTIONS: usize = 11;
const TABLE_AT: usize = 80;
const HEADER_CRC_AT: usize = 508;
/// Sections start on multiples of this many bytes (a cache line; mapped files are page-aligned).
pub const SECTION_ALIGN: u64 = 64;

const S_SEQS: usize = 0;
const S_VECTORS: usize = 1;
const S_INV_NORMS: usize = 2;
const S_ID_OFFSETS: usize = 3;
const S_ID_BYTES: usize = 4;
const S_ID_ORDER: usize = 5;
const S_META_OFFSETS: usize = 6;
const S_META_BYTES: usize = 7;
const S_CENTROID: usize = 8;
const S_CODES: usize = 9;
const S_GRAPH: usize = 10;
/// The sections checked only by [`Segment::verify`].
const BULK: [usize; 3] = [S_VECTORS, S_CODES, S_GRAPH];
const SECTION_NAMES: [&str; SECTIONS] = [
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
];

pub(crate) const ID_INT: u8 = 1;
pub(crate) const ID_STR: u8 = 2;

pub(crate) fn metric_code(m: Metric) -> u8 {
    match m {
        Metric::L2 => 0,
        Metric::Cosine => 1,
        Metric::InnerProduct => 2,
        Metric::L1 => 3,
    }
}

fn metric_from(c: u8) -> Result<Metric> {
    Ok(match c {
        0 => Metric::L2,
        1 => Metric::Cosine,
        2 => Metric::InnerProduct,
        3 => Metric::L1,
        other => {
            return Err(Error::Corrupt(format!(
                "segment: unknown metric code {other}"
            )))
        }
    })
}

/// Appends the segment encoding of `id` (the key of the sorted id order).
pub(crate) fn encode_id(id: &VectorId, out: &mut Vec<u8>) {
    match id {
        VectorId::Int(i) => {
            out.push(ID_INT);
            out.extend_from_slice(&i.to_le_bytes());
        }
        VectorId::Str(s) => {
            out.push(ID_STR);
            out.extend_from_slice(s.as_bytes());
        }
    }
}

fn decode_id(b: &[u8]) -> Result<VectorId> {
    match b.split_first() {
        Some((&ID_INT, rest)) if rest.len() == 8 => {
            let mut a = [0u8; 8];
            a.copy_from_slice(rest);
            VectorId::from_u64(u64::from_le_bytes(a))
                .map_err(|e| Error::Corrupt(format!("segment id: {e}")))
        }
        Some((&ID_STR, rest)) => std::str::from_utf8(rest)
            .map(|s| VectorId::Str(s.to_string()))
            .map_err(|_| Error::Corrupt("segment id: string id is not UTF-8".into())),
        _ => Err(Error::Corrupt("segment id: unknown id encoding".into())),
    }
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn le_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

/// One entry of the section table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Section {
    pub offset: u64,
    pub len: u64,
    pub crc: u32,
}

/// An immutable sealed segment read in place: rows, ids, metadata and its Vamana index.
pub struct Segment {
    generation: u64,
    dim: usize,
    metric: Metric,
    n: usize,
    max_seq: u64,
    file_bytes: u64,
    seqs: Region,
    vectors: Region,
    /// The same bytes as `vectors`, read by the rerank of index searches: a second mapping that
    /// can be advised for random access while exact scans keep the kernel's readahead
    /// ([`Segment::with_rerank_backing`]); `vectors` itself otherwise.
    rerank_vectors: RecordPages,
    inv_norms: Region,
    id_offsets: Region,
    id_bytes: Region,
    id_order: Region,
    meta_offsets: Region,
    meta_bytes: Region,
    bulk: Vec<(usize, Region, u32)>,
    index: AnnIndex,
}

impl std::fmt::Debug for Segment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Segment(generation {}, {} rows)",
            self.generation, self.n
        )
    }
}

impl Segment {
    /// Reads a segment from the bytes of its file (a memory map natively). `expect` is the
    /// `(generation, dim, metric)` the manifest names, checked against the header.
    ///
    /// # Errors
    /// `HV_CORRUPT` (not a segment, a failed checksum or structure check, a mismatch with
    /// `expect`), `HV_VERSION` (another format version).
    pub fn from_backing(
        backing: Arc<dyn Backing>,
        expect: (u64, usize, Metric),
    ) -> Result<Segment> {
        let b = backing.bytes();
        if b.len() < HEADER_LEN || &b[..8] != MAGIC {
            return Err(Error::Corrupt(format!(
                "segment {}: not a horosvec segment file (bad magic or shorter than its header)",
                expect.0
            )));
        }
        let version = le_u32(b, 8);
        if version != FORMAT_VERSION {
            return Err(Error::Version(format!(
                "segment {} has format version {version}; this build reads {FORMAT_VERSION}",
                expect.0
            )));
        }
        if crc32fast::hash(&b[..HEADER_CRC_AT]) != le_u32(b, HEADER_CRC_AT)
            || le_u32(b, 12) as usize != HEADER_LEN
        {
            return Err(Error::Corrupt(format!(
                "segment {}: header checksum mismatch",
                expect.0
            )));
        }
        let corrupt = |what: String| Error::Corrupt(format!("segment {}: {what}", expect.0));
        let dim = le_u32(b, 16) as usize;
        let metric = metric_from(b[20])?;
        let bits = b[21];
        let n64 = le_u64(b, 24);
        let generation = le_u64(b, 64);
        if (generation, dim, metric) != expect {
            return Err(corrupt(format!(
                "header says generation {generation}, {dim}-d {metric}; the manifest expects generation {}, {}-d {}",
                expect.0, expect.1, expect.2
            )));
        }
        let r = le_u32(b, 32) as usize;
        let params = IndexParams {
            r,
            l: le_u32(b, 36) as usize,
            alpha: f32::from_bits(le_u32(b, 40)),
            passes: le_u32(b, 44) as usize,
            bits: if bits == 0 { 1 } else { bits },
            seed: le_u64(b, 48),
        };
        params
            .validate()
            .map_err(|e| corrupt(format!("index parameters: {e}")))?;
        let entry = le_u32(b, 56);
        let norm_y_max = f32::from_bits(le_u32(b, 60));
        let max_seq = le_u64(b, 72);
        let mut table = [Section::default(); SECTIONS];
        for (i, s) in table.iter_mut().enumerate() {
            let at = TABLE_AT + i * 24;
            *s = Section {
                offset: le_u64(b, at),
                len: le_u64(b, at + 8),
                crc: le_u32(b, at + 16),
            };
        }
        // Expected lengths (checked in u128 so that a forged n cannot overflow).
        let n = usize::try_from(n64).map_err(|_| corrupt(format!("{n64} rows")))?;
        if n == 0 || n > crate::graph::MAX_NODES {
            return Err(corrupt(format!("{n} rows")));
        }
        let want = |s: usize, len: u128| -> Result<()> {
            if u128::from(table[s].len) != len {
                return Err(corrupt(format!(
                    "section {} is {} bytes, expected {len}",
                    SECTION_NAMES[s], table[s].len
                )));
            }
            Ok(())
        };
        let (n128, d128) = (n as u128, dim as u128);
        want(S_SEQS, n128 * 8)?;
        want(S_VECTORS, n128 * d128 * 4)?;
        want(
            S_INV_NORMS,
            if metric == Metric::Cosine {
                n128 * 4
            } else {
                0
            },
        )?;
        want(S_ID_OFFSETS, (n128 + 1) * 8)?;
        want(S_ID_ORDER, n128 * 4)?;
        want(S_META_OFFSETS, (n128 + 1) * 8)?;
        want(S_GRAPH, n128 * (r as u128 + 1) * 4)?;
        let has_codes = metric != Metric::L1;
        if has_codes != (bits != 0) {
            return Err(corrupt(format!("code width {bits} under {metric}")));
        }
        want(S_CENTROID, if has_codes { d128 * 4 } else { 0 })?;
        let region = |s: usize, align: usize| -> Result<Region> {
            let what = format!("segment {} section {}", expect.0, SECTION_NAMES[s]);
            let sec = table[s];
            match align {
                8 => Region::new::<u64>(&backing, sec.offset, sec.len, &what),
                4 => Region::new::<u32>(&backing, sec.offset, sec.len, &what),
                _ => Region::new::<u8>(&backing, sec.offset, sec.len, &what),
            }
        };
        let regions: Vec<Region> = (0..SECTIONS)
            .map(|s| match s {
                S_SEQS | S_ID_OFFSETS | S_META_OFFSETS | S_CODES => region(s, 8),
                S_ID_BYTES | S_META_BYTES => region(s, 1),
                _ => region(s, 4),
            })
            .collect::<Result<_>>()?;
        for s in 0..SECTIONS {
            if !BULK.contains(&s) && crc32fast::hash(regions[s].bytes()) != table[s].crc {
                return Err(corrupt(format!(
                    "section {} checksum mismatch",
                    SECTION_NAMES[s]
                )));
            }
        }
        // Structure of the small sections.
        let check_offsets = |s: usize, bytes: &Region| -> Result<()> {
            let offs = regions[s].as_slice::<u64>();
            if offs[0] != 0 || offs[n] != bytes.len() as u64 || offs.windows(2).any(|w| w[0] > w[1])
            {
                return Err(corrupt(format!(
                    "section {} is not a sorted offset table",
                    SECTION_NAMES[s]
                )));
            }
            Ok(())
        };
        check_offsets(S_ID_OFFSETS, &regions[S_ID_BYTES])?;
        check_offsets(S_META_OFFSETS, &regions[S_META_BYTES])?;
        let seqs = regions[S_SEQS].as_slice::<u64>();
        if seqs.iter().any(|&s| s > max_seq) || max_seq > crate::types::MAX_SAFE_INTEGER {
            return Err(corrupt(
                "a sequence number exceeds the header's maximum".into(),
            ));
        }
        if regions[S_ID_ORDER]
            .as_slice::<u32>()
            .iter()
            .any(|&row| row as usize >= n)
        {
            return Err(corrupt("id order names a row out of range".into()));
        }
        if regions[S_INV_NORMS]
            .as_slice::<f32>()
            .iter()
            .any(|x| !x.is_finite())
        {
            return Err(corrupt("a stored norm is not finite".into()));
        }
        let graph = Graph::from_mapped(r, regions[S_GRAPH].clone(), entry)
            .map_err(|e| corrupt(format!("graph: {e}")))?;
        let codes = if has_codes {
            let centroid = regions[S_CENTROID].as_slice::<f32>().to_vec();
            let c = RabitqIndex::from_mapped(
                dim,
                metric,
                code_params(&params),
                centroid,
                regions[S_CODES].clone(),
                norm_y_max,
            )
            .map_err(|e| corrupt(format!("codes: {e}")))?;
            if c.len() != n {
                return Err(corrupt(format!("{} codes for {n} rows", c.len())));
            }
            Some(c)
        } else {
            want(S_CODES, 0)?;
            None
        };
        let index = AnnIndex::from_mapped(metric, params, graph, codes)
            .map_err(|e| corrupt(e.to_string()))?;
        let bulk = BULK
            .iter()
            .map(|&s| (s, regions[s].clone(), table[s].crc))
            .collect();
        let rerank_vectors = regions[S_VECTORS].clone();
        let mut it = regions.into_iter();
        let mut next = || it.next().expect("one region per section");
        Ok(Segment {
            generation,
            dim,
            metric,
            n,
            max_seq,
            file_bytes: b.len() as u64,
            seqs: next(),
            vectors: next(),
            rerank_vectors: RecordPages::new(rerank_vectors, dim * 4),
            inv_norms: next(),
            id_offsets: next(),
            id_bytes: next(),
            id_order: next(),
            meta_offsets: next(),
            meta_bytes: next(),
            bulk,
            index,
        })
    }

    /// Reads the rows for the rerank of index searches from `backing` instead: another mapping
    /// of the same file (same bytes, same length), so that the two access patterns can get
    /// different paging advice (random reads of a few rows per search; sequential scans).
    ///
    /// # Errors
    /// `HV_CORRUPT` when `backing` is not the same length as this segment's file.
    pub fn with_rerank_backing(mut self, backing: Arc<dyn Backing>) -> Result<Segment> {
        if backing.bytes().len() as u64 != self.file_bytes {
            return Err(Error::Corrupt(format!(
                "segment {}: second mapping is {} bytes, the file {}",
                self.generation,
                backing.bytes().len(),
                self.file_bytes
            )));
        }
        let region = Region::new::<f32>(
            &backing,
            self.vectors.offset() as u64,
            self.vectors.len() as u64,
            "vectors",
        )?;
        self.rerank_vectors = RecordPages::new(region, self.dim * 4);
        Ok(self)
    }

    /// Reads the whole file and checks the bulk sections too: checksums of the rows, codes and
    /// graph, every row finite, and every edge of the graph in range.
    ///
    /// # Errors
    /// `HV_CORRUPT` naming the first failed check.
    pub fn verify(&self) -> Result<()> {
        // in chunks, asking for the next one while hashing this one: the codes and graph of a
        // mapped file are advised for random access, so the kernel would not read ahead
        const CHUNK: usize = 4 << 20;
        for (s, r, crc) in &self.bulk {
            let mut h = crc32fast::Hasher::new();
            r.will_need(0, CHUNK);
            for (i, chunk) in r.bytes().chunks(CHUNK).enumerate() {
                r.will_need((i + 1) * CHUNK, CHUNK);
                h.update(chunk);
            }
            if h.finalize() != *crc {
                return Err(Error::Corrupt(format!(
                    "segment {}: section {} checksum mismatch",
                    self.generation, SECTION_NAMES[*s]
                )));
            }
        }
        if self
            .vectors
            .as_slice::<f32>()
            .iter()
            .any(|x| !x.is_finite())
        {
            return Err(Error::Corrupt(format!(
                "segment {}: a stored vector is not finite",
                self.generation
            )));
        }
        self.index
            .graph()
            .validate()
            .map_err(|e| Error::Corrupt(format!("segment {}: graph: {e}", self.generation)))?;
        // structure whose checksums may be consistent with wrong content: the id order must be
        // a permutation of the rows sorted by strictly increasing id, every id must decode, and
        // every metadata text must be JSON
        let corrupt = |what: String| Error::Corrupt(format!("segment {}: {what}", self.generation));
        let order = self.id_order.as_slice::<u32>();
        let mut seen = vec![false; self.n];
        for (i, &row) in order.iter().enumerate() {
            let r = row as usize;
            if seen[r] {
                return Err(corrupt(format!("id order names row {row} twice")));
            }
            seen[r] = true;
            if i > 0 && self.id_bytes_of(order[i - 1] as usize) >= self.id_bytes_of(r) {
                return Err(corrupt(format!("id order is not strictly increasing at position {i} (an id twice, or unsorted)")));
            }
            self.id(row)?;
        }
        for row in 0..self.n as u32 {
            if let Some(m) = self.metadata(row)? {
                if serde_json::from_str::<serde::de::IgnoredAny>(&m).is_err() {
                    return Err(corrupt(format!("metadata of row {row} is not JSON")));
                }
            }
        }
        Ok(())
    }

    /// The regions every graph walk reads: the RaBitQ codes and the graph adjacency (the rows
    /// are read only by the rerank, a few per search). A memory-mapped file advises these for
    /// random access and reads them in the background after open (`warm_up`).
    pub fn hot_regions(&self) -> Vec<Region> {
        self.bulk
            .iter()
            .filter(|(s, _, _)| *s != S_VECTORS)
            .map(|(_, r, _)| r.clone())
            .collect()
    }

    /// The generation (its number in the manifest and its file name).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Rows (live and tombstoned).
    pub fn len(&self) -> usize {
        self.n
    }

    /// Never true (an empty segment is never written); for API symmetry.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The vector dimension.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The largest insertion sequence number in the segment.
    pub fn max_seq(&self) -> u64 {
        self.max_seq
    }

    /// Size of the file in bytes.
    pub fn file_bytes(&self) -> u64 {
        self.file_bytes
    }

    /// The segment's Vamana index (graph over its rows, RaBitQ codes).
    pub fn index(&self) -> &AnnIndex {
        &self.index
    }

    /// The rows as a flat view with the collection's tombstone flags for them (`deleted` is
    /// empty or one flag per row).
    pub fn view<'a>(&'a self, deleted: &'a [bool], kernels: &'static Kernels) -> FlatView<'a> {
        self.view_of(&self.vectors, None, deleted, kernels)
    }

    /// [`Segment::view`] for index searches: the same rows, read through the rerank mapping
    /// ([`Segment::with_rerank_backing`]).
    pub fn index_view<'a>(
        &'a self,
        deleted: &'a [bool],
        kernels: &'static Kernels,
    ) -> FlatView<'a> {
        self.view_of(
            self.rerank_vectors.region(),
            Some(&self.rerank_vectors),
            deleted,
            kernels,
        )
    }

    fn view_of<'a>(
        &'a self,
        vectors: &'a Region,
        pages: Option<&'a RecordPages>,
        deleted: &'a [bool],
        kernels: &'static Kernels,
    ) -> FlatView<'a> {
        FlatView {
            dim: self.dim,
            metric: self.metric,
            vectors: vectors.as_slice(),
            inv_norms: self.inv_norms.as_slice(),
            seqs: self.seqs.as_slice(),
            deleted,
            kernels,
            pages,
        }
    }

    /// The vector of `row` (`dim` values).
    pub fn vector(&self, row: u32) -> &[f32] {
        let r = row as usize;
        &self.vectors.as_slice::<f32>()[r * self.dim..(r + 1) * self.dim]
    }

    /// The insertion sequence of `row`.
    pub fn seq(&self, row: u32) -> u64 {
        self.seqs.as_slice::<u64>()[row as usize]
    }

    /// The 1/‖x‖ of `row` (cosine only).
    pub fn inv_norm(&self, row: u32) -> Option<f32> {
        self.inv_norms.as_slice::<f32>().get(row as usize).copied()
    }

    fn id_bytes_of(&self, row: usize) -> &[u8] {
        let offs = self.id_offsets.as_slice::<u64>();
        &self.id_bytes.bytes()[offs[row] as usize..offs[row + 1] as usize]
    }

    /// The id of `row`.
    ///
    /// # Errors
    /// `HV_CORRUPT` when the stored id cannot be decoded.
    pub fn id(&self, row: u32) -> Result<VectorId> {
        decode_id(self.id_bytes_of(row as usize))
    }

    /// The metadata JSON text of `row`, if it has one.
    ///
    /// # Errors
    /// `HV_CORRUPT` when it is not UTF-8.
    pub fn metadata(&self, row: u32) -> Result<Option<String>> {
        let offs = self.meta_offsets.as_slice::<u64>();
        let (a, b) = (offs[row as usize] as usize, offs[row as usize + 1] as usize);
        if a == b {
            return Ok(None);
        }
        std::str::from_utf8(&self.meta_bytes.bytes()[a..b])
            .map(|s| Some(s.to_string()))
            .map_err(|_| {
                Error::Corrupt(format!(
                    "segment {}: metadata of row {row} is not UTF-8",
                    self.generation
                ))
            })
    }

    /// The row holding `id`, by binary search over the sorted id order (no map is built at
    /// open). Tombstones are the caller's business: a deleted row is still found.
    pub fn find(&self, id: &VectorId) -> Option<u32> {
        let mut key = Vec::with_capacity(16);
        encode_id(id, &mut key);
        let order = self.id_order.as_slice::<u32>();
        order
            .binary_search_by(|&row| self.id_bytes_of(row as usize).cmp(&key[..]))
            .ok()
            .map(|i| order[i])
    }
}
