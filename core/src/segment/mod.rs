//! Sealed segments: immutable files holding a batch of records and their Vamana index, read in
//! place from a memory map (design documents, outside the repository:
//! `../shared/design/seed-vector-database.md` §2.4–2.6: mutable segment, sealed segments,
//! manifest; `../shared/design/seed-horosvec.md` §3: open without a rebuild).
//!
//! A segment is written once ([`write_segment`]), synced and renamed into place, and never
//! changed afterwards: deletes of its records are tombstones kept by the collection (and by the
//! store's `tombstones` table), not edits of the file. [`Segment::from_backing`] reads the header
//! and hands out `Region`s of the mapping to the graph, the codes and the rows, so opening a
//! segment costs a header parse and a pass over its small sections, whatever its size.
//!
//! | file | concept |
//! | --- | --- |
//! | `layout.rs` | the byte layout (drawn there and in `docs/format.md`): header, section table, sections |
//! | `write.rs` | [`write_segment`]: rows + index → the bytes of a segment file |
//! | `read.rs` | [`Segment::from_backing`] (open and check) and [`Segment::verify`] |
//! | `file.rs` | segment files in a collection directory: names, write-sync-rename, memory map (`durable`) |
//! | `warm.rs` | the background warm-up of freshly mapped segments, paced by the cold searches in flight |
//!
//! Rows are kept in the collection's precision: `f32` by default, so that `search(q, { exact:
//! true })` is exact over the values the user stored (the C++ engine's "exact" mode over an fp16
//! copy was not); IEEE-754 binary16 for `vectors: "f16"` collections, whose stored values are the
//! rounded ones (header byte 22; the rows are read in place, never widened into a copy: the
//! views hand out `RowSlice::F16` to the `_f16` kernels, `vector` widens one row).
//!
//! # Checks
//! Opening checks the magic (`HV_CORRUPT`), the version (`HV_VERSION`: 1 and 2 are read), the
//! header checksum, every section's bounds and alignment, and the checksums and structure of the
//! small sections (seqs, norms, ids, order, metadata, centroid). The three bulk sections
//! (vectors, codes, graph: over 95 % of the bytes at 384-d) are checked by [`Segment::verify`]
//! (`{ verify: true }` at open), which reads the whole file: a plain open must not, to stay
//! instant at a million rows.
//!
//! # The metadata index
//! Format version 2 stores the rows' metadata index (`crate::filter::codec`) in section 11,
//! which the open does not read: the first filtered use checks its checksum and decodes it
//! (`Segment::meta_index`); `verify` checks it and that it matches the metadata. A version-1
//! file (no section) builds the index from its metadata on first use instead, and gets the
//! section at its next compaction (which writes version 2).

#[cfg(feature = "durable")]
mod file;
mod layout;
mod read;
mod verify;
mod warm;
mod write;

#[cfg(feature = "durable")]
pub use file::{
    open_segment_file, parse_segment_file_name, read_aligned, segment_file_name, sync_dir,
    write_segment_file, Freshness, SEGMENT_SUFFIX, TEMP_SUFFIX,
};
pub use layout::{
    image_precision, FORMAT_VERSION, HEADER_LEN, MAGIC, MAGIC_V1, MIN_FORMAT_VERSION, SECTIONS,
    SECTIONS_V1, SECTION_ALIGN,
};
pub use warm::cold_searches_in_flight;
#[cfg(feature = "durable")]
pub use warm::warm_up;
pub use write::{segment_bytes, write_segment, SegmentRows};

use crate::ann::AnnIndex;
use crate::distance::Kernels;
use crate::error::{Error, Result};
use crate::filter::{codec, index::MetaIndex};
use crate::flat::FlatView;
use crate::region::{RecordPages, Region};
use crate::rowdata::{Precision, RowSlice};
use crate::types::{IdByteOrder, Metric, VectorId};

/// An immutable sealed segment read in place: rows, ids, metadata and its Vamana index.
pub struct Segment {
    generation: u64,
    dim: usize,
    metric: Metric,
    /// How `vectors` holds the rows (header byte 22).
    precision: Precision,
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
    /// The metadata index section and its checksum (format version 2; `None` in version 1).
    meta_section: Option<(Region, u32)>,
    /// The metadata index of every row (tombstones are the collection's business), made on
    /// first use by a filter: decoded from `meta_section`, or built from the metadata.
    meta_index: std::sync::OnceLock<MetaIndex>,
    /// The whole file (a snapshot copies it verbatim: `crate::snapshot`).
    image: std::sync::Arc<dyn crate::region::Backing>,
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

    /// How the rows are stored (`f32`, or `f16` for a `vectors: "f16"` collection's segment).
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// The rows held by `r` (the `vectors` section, or its rerank mapping) in their precision.
    pub(super) fn rows_of<'a>(&self, r: &'a Region) -> RowSlice<'a> {
        use half::slice::HalfBitsSliceExt;
        match self.precision {
            Precision::F32 => RowSlice::F32(r.as_slice()),
            Precision::F16 => RowSlice::F16(r.as_slice::<u16>().reinterpret_cast()),
        }
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
            vectors: self.rows_of(vectors),
            inv_norms: self.inv_norms.as_slice(),
            seqs: self.seqs.as_slice(),
            deleted,
            kernels,
            pages,
        }
    }

    /// The vector of `row` (`dim` values): borrowed from the file for `f32` rows, widened
    /// (exactly) from half precision for `f16` rows.
    ///
    /// # Panics
    /// If `row` is not a row of the segment (`row >= len()`).
    pub fn vector(&self, row: u32) -> std::borrow::Cow<'_, [f32]> {
        self.row(row).to_f32()
    }

    /// Row `row` as stored (`dim` values in the segment's precision).
    ///
    /// # Panics
    /// If `row` is not a row of the segment (`row >= len()`).
    pub fn row(&self, row: u32) -> RowSlice<'_> {
        self.rows_of(&self.vectors).row(row as usize, self.dim)
    }

    /// The insertion sequence of `row`.
    ///
    /// # Panics
    /// If `row` is not a row of the segment (`row >= len()`).
    pub fn seq(&self, row: u32) -> u64 {
        self.seqs.as_slice::<u64>()[row as usize]
    }

    /// The 1/‖x‖ of `row` (cosine only): `None` when the segment stores no norms (other
    /// metrics) or `row` is out of range.
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
    ///
    /// # Panics
    /// If `row` is not a row of the segment (`row >= len()`).
    pub fn id(&self, row: u32) -> Result<VectorId> {
        VectorId::decode(self.id_bytes_of(row as usize), IdByteOrder::Little)
            .map_err(|e| Error::Corrupt(format!("segment id: {e}")))
    }

    /// The metadata JSON text of `row`, if it has one.
    ///
    /// # Errors
    /// `HV_CORRUPT` when it is not UTF-8.
    ///
    /// # Panics
    /// If `row` is not a row of the segment (`row >= len()`).
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

    /// The metadata index of the segment's rows, made the first time a filter needs it: decoded
    /// from the file's `meta_index` section (format version 2), else built from the metadata
    /// (version 1). A section that fails its checksum or its decoding is not used: the index is
    /// then built from the metadata, which the open checked, so answers stay exact (`verify`
    /// reports the damage).
    pub(crate) fn meta_index(&self) -> &MetaIndex {
        self.meta_index
            .get_or_init(|| match self.stored_meta_index() {
                Ok(Some(ix)) => ix,
                Ok(None) | Err(_) => self.build_meta_index(),
            })
    }

    /// Whether the file stores its metadata index (format version 2).
    pub fn stores_meta_index(&self) -> bool {
        self.meta_section.is_some()
    }

    /// The metadata index decoded from the file's section (`None` in format version 1), after
    /// checking its checksum, that it ranges over the segment's rows and holds every one.
    ///
    /// # Errors
    /// `HV_CORRUPT` naming the failed check.
    pub(super) fn stored_meta_index(&self) -> Result<Option<MetaIndex>> {
        let Some((region, crc)) = &self.meta_section else {
            return Ok(None);
        };
        let corrupt = |what: String| Error::Corrupt(format!("segment {}: {what}", self.generation));
        if crc32fast::hash(region.bytes()) != *crc {
            return Err(corrupt("section meta_index checksum mismatch".into()));
        }
        let ix = codec::decode_rows(region.bytes(), self.n).map_err(|e| corrupt(e.to_string()))?;
        if let Some(r) = (0..self.n as u32).find(|&r| !ix.is_member(r)) {
            return Err(corrupt(format!("section meta_index leaves row {r} out")));
        }
        Ok(Some(ix))
    }

    /// The metadata index built from the rows' metadata (metadata that is not UTF-8 counts as
    /// absent: `metadata` reports it).
    pub(super) fn build_meta_index(&self) -> MetaIndex {
        let texts: Vec<Option<String>> = (0..self.n as u32)
            .map(|r| self.metadata(r).ok().flatten())
            .collect();
        let mut ix = MetaIndex::build(texts.iter().map(|t| t.as_deref()));
        ix.truncate(self.n);
        ix
    }

    /// The bytes of the whole segment file, as read (a snapshot stores them verbatim).
    pub fn image(&self) -> &[u8] {
        self.image.bytes()
    }

    /// Checks that the id order is strictly increasing by encoded id (so every id is stored
    /// once and [`Segment::find`] finds it): one comparison per row, no decoding. A snapshot's
    /// segment image is checked so at load (`verify` checks more).
    ///
    /// # Errors
    /// `HV_CORRUPT` naming the first position out of order.
    pub fn check_id_order(&self) -> Result<()> {
        let order = self.id_order.as_slice::<u32>();
        for i in 1..order.len() {
            if self.id_bytes_of(order[i - 1] as usize) >= self.id_bytes_of(order[i] as usize) {
                return Err(Error::Corrupt(format!(
                    "segment {}: id order is not strictly increasing at position {i} (an id twice, or unsorted)",
                    self.generation
                )));
            }
        }
        Ok(())
    }

    /// The row holding `id`, by binary search over the sorted id order (no map is built at
    /// open). Tombstones are the caller's business: a deleted row is still found.
    pub fn find(&self, id: &VectorId) -> Option<u32> {
        let mut key = Vec::with_capacity(16);
        id.encode(IdByteOrder::Little, &mut key);
        let order = self.id_order.as_slice::<u32>();
        order
            .binary_search_by(|&row| self.id_bytes_of(row as usize).cmp(&key[..]))
            .ok()
            .map(|i| order[i])
    }
}
