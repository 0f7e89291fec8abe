//! The façade: a [`Collection`] of records (id, `f32` vector, optional JSON metadata) with a
//! fixed `dim` and [`Metric`], searched exactly or through an approximate index.
//!
//! A collection is a *mutable segment* (`mutable`: the `rows` and an optional index) plus,
//! for durable collections, *sealed segments* (`segments`) that the swaps of `swap` add and
//! merge. Writes (`write`) validate their whole batch first (`validate`), so a failed call
//! changes nothing; searches (`search`) merge across the parts. Every record keeps the
//! insertion sequence of its first `add`, which breaks distance ties (earlier first) and keeps
//! results deterministic whatever the physical row order. An id is live in at most one part.

mod filtered;
mod graph_io;
mod image;
mod index;
mod input;
mod mutable;
mod options;
mod queries;
mod rows;
mod search;
mod segments;
mod selection;
mod swap;
mod validate;
mod write;

pub use filtered::FilterCounts;
pub use graph_io::{ExportedGraph, ImportReport, NO_NEIGHBOR};
pub use options::SearchOptions;
pub use queries::{ListPage, ListQuery, ListedRecord, MAX_LIST_LIMIT};
pub(crate) use segments::SealedPart;
pub(crate) use swap::{CompactionTicket, InterimTicket, SealInput, SealTicket, SwapOutcome};
pub use validate::CODE_SAMPLE;
pub use write::{PreparedWrite, WriteKind};

use std::borrow::Cow;
use std::sync::Arc;

use crate::distance::Kernels;
use crate::error::{Error, Result};
use crate::rowdata::Precision;
use crate::segment::Segment;
use crate::types::{Metric, VectorId};
use mutable::Mutable;
use rows::Rows;
use segments::Segments;
use swap::DirtyIds;

/// Largest supported dimension.
pub const MAX_DIM: usize = 65_536;

/// Default ef of the graph search.
pub const DEFAULT_EF: usize = 64;

/// Below this many live records a search scans exactly even with an index: a flat scan of a
/// few thousand rows costs about what a graph walk does (measured by `bench/flat-threshold.mjs`:
/// `bench-results/flat-threshold/`, tabled in `bench-results/README.md`).
pub const FLAT_THRESHOLD: usize = 2_000;

/// Consolidate tombstones once they pass this fraction of the graph's nodes.
pub const CONSOLIDATE_RATIO: f64 = 0.1;

/// One search result: the record's id, its distance to the query under the collection's metric
/// (lower is closer: squared L2, 1 − cos, −dot or L1) and, if asked for, its metadata (JSON text).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchHit {
    /// The record's id, of the kind it was inserted with.
    pub id: VectorId,
    /// Distance to the query; lower is closer.
    pub distance: f32,
    /// The record's metadata as JSON text, if it has some and it was asked for.
    pub metadata: Option<String>,
}

/// A stored record as [`Collection::get`] returns it: its vector (borrowed for `f32` rows,
/// widened for `f16` rows) and its metadata JSON.
pub type StoredRecord<'a> = (Cow<'a, [f32]>, Option<String>);

/// Counters and facts about a collection.
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    /// Number of records.
    pub size: usize,
    /// Vector dimension.
    pub dim: usize,
    /// Metric.
    pub metric: Metric,
    /// Name of the distance kernel set in use (e.g. `"avx2-fma-f16c"`, `"wasm-simd128"`).
    pub kernel: &'static str,
    /// The search code path: `"exact"` (flat scan) or the index's, e.g. `"vamana-rabitq4"`;
    /// with sealed segments of a durable collection, `"segmented-<mode>"` where `<mode>` is the
    /// first sealed segment's index mode (e.g. `"segmented-vamana-rabitq4"`); an in-memory
    /// collection loaded from a version-5 snapshot reports its first part's mode, unprefixed.
    pub mode: String,
    /// How the vector rows are stored (`f32`, or `f16`: 2 bytes per value).
    pub vectors: Precision,
    /// Bytes of the stored vectors (rows · dim · 4, or · 2 for `f16` rows, tombstoned rows
    /// included; the rows of sealed segments are memory-mapped, not heap).
    pub vector_bytes: usize,
    /// Bytes per vector of what the graph walk touches (codes, factors, adjacency); 0 without an index.
    pub index_bytes_per_vector: f64,
    /// Deleted records still present as tombstones (in the index and in sealed segments).
    pub tombstones: usize,
    /// Records in the mutable segment (all of them for an in-memory collection).
    pub mutable_records: usize,
    /// Sealed segments (durable collections).
    pub sealed_segments: usize,
    /// Rows of the mutable segment covered by its index (durable collections: the interim index
    /// built in the background; the rest is scanned exactly).
    pub mutable_indexed: usize,
    /// Sealed segments whose walk data (codes and graph) is still being read into memory in the
    /// background after they were mapped; meanwhile their searches ask for the pages they need
    /// ahead of use (cold mode). 0 once warm, and always for in-memory collections.
    pub warming_segments: usize,
    /// The strategies of the filtered segment searches since the collection was made or opened.
    pub filtered: FilterCounts,
}

/// A collection of vectors: the mutable segment, the sealed segments, and the swap in progress.
pub struct Collection {
    mutable: Mutable,
    segments: Segments,
    /// The ids written since a seal or compaction began (owned by its ticket).
    dirty: DirtyIds,
    /// Bumped by every mutation (an index built from one version is installed only on it).
    version: u64,
    /// The strategies filtered searches took ([`Stats::filtered`]).
    filter_counts: filtered::Counters,
    /// Recent filter selections (`selection::SelectionCache`).
    selections: selection::SelectionCache,
}

/// Where a live record is.
pub(crate) enum Place {
    /// Row of the mutable segment.
    Mutable(u32),
    /// Part and row of a sealed segment.
    Sealed(usize, u32),
}

impl Collection {
    /// An empty collection of `dim`-dimensional vectors compared with `metric`.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` if `dim` is 0 or above [`MAX_DIM`].
    pub fn new(dim: usize, metric: Metric) -> Result<Self> {
        Collection::with_precision(dim, metric, Precision::F32)
    }

    /// An empty collection whose rows are stored in `precision` ([`Precision::F16`]: half the
    /// bytes per value; written values are rounded to nearest and those beyond ±65,504 refused;
    /// distances are those of the rounded rows).
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` if `dim` is 0 or above [`MAX_DIM`].
    pub fn with_precision(dim: usize, metric: Metric, precision: Precision) -> Result<Self> {
        if dim == 0 || dim > MAX_DIM {
            return Err(Error::invalid_argument(format!(
                "dim must be an integer in 1..={MAX_DIM}, got {dim}"
            )));
        }
        Ok(Collection {
            mutable: Mutable::new(Rows::new(dim, metric, precision)),
            segments: Segments::default(),
            dirty: DirtyIds::default(),
            version: 0,
            filter_counts: filtered::Counters::default(),
            selections: selection::SelectionCache::default(),
        })
    }

    /// Vector dimension.
    pub fn dim(&self) -> usize {
        self.mutable.rows.dim
    }

    /// Distance metric.
    pub fn metric(&self) -> Metric {
        self.mutable.rows.metric
    }

    /// How the vector rows are stored (`f32` unless made with [`Collection::with_precision`]).
    pub fn precision(&self) -> Precision {
        self.mutable.rows.precision()
    }

    fn kernels(&self) -> &'static Kernels {
        self.mutable.rows.kernels
    }

    /// Number of (live) records.
    pub fn len(&self) -> usize {
        self.mutable.rows.live() + self.segments.live
    }

    /// True when the collection holds no record.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The mutation counter (see [`Collection::install_index`]).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Name of the distance kernel set in use.
    pub fn kernel_name(&self) -> &'static str {
        self.kernels().name
    }

    /// Facts about the collection.
    pub fn stats(&self) -> Stats {
        let index = self.mutable.index.as_ref();
        Stats {
            size: self.len(),
            dim: self.dim(),
            metric: self.metric(),
            kernel: self.kernels().name,
            mode: match (self.segments.parts.first(), index) {
                // a loaded snapshot's parts (in memory): the mode of their index
                (Some(p), _) if !self.mutable.deferred => p.seg.index().mode(),
                (Some(p), _) => format!("segmented-{}", p.seg.index().mode()),
                (None, Some(ix)) => ix.mode(),
                (None, None) => "exact".to_string(),
            },
            vectors: self.precision(),
            vector_bytes: self.mutable.rows.vectors.bytes()
                + self.segments.vector_bytes(self.dim()),
            index_bytes_per_vector: self.index_bytes_per_vector(),
            tombstones: index.map_or(0, crate::ann::AnnIndex::deleted_count)
                + self.segments.tombstones(),
            mutable_records: self.mutable.rows.live(),
            sealed_segments: self.segments.parts.len(),
            mutable_indexed: self.mutable_indexed(),
            warming_segments: self.segments.warming(),
            filtered: self.filter_counts.snapshot(),
        }
    }

    /// Walk bytes per vector over every index (sealed segments' and the mutable segment's),
    /// weighted by their rows; 0 without any index.
    fn index_bytes_per_vector(&self) -> f64 {
        let mut rows = 0usize;
        let mut bytes = 0.0f64;
        let sealed = self.segments.parts.iter().map(|p| p.seg.index());
        for ix in sealed.chain(self.mutable.index.as_ref()) {
            rows += ix.len();
            bytes += ix.walk_bytes_per_vector() * ix.len() as f64;
        }
        if rows == 0 {
            0.0
        } else {
            bytes / rows as f64
        }
    }

    /// Checks one vector against this collection's dimension and metric
    /// ([`crate::vector::check_vector`]); returns 1/‖x‖ for cosine, 1 otherwise.
    fn check_vector(&self, v: &[f32], index: usize) -> Result<f32> {
        crate::vector::check_vector(v, self.dim(), self.metric(), index)
    }

    /// Where `id` is live, if anywhere.
    pub(crate) fn place(&self, id: &VectorId) -> Option<Place> {
        if let Some(r) = self.mutable.rows.row_of(id) {
            return Some(Place::Mutable(r));
        }
        self.segments.find(id).map(|(p, row)| Place::Sealed(p, row))
    }

    /// The stored vector (`dim` values, as supplied; for `f16` rows the stored half floats
    /// widened, so borrowed only for `f32` rows) and metadata JSON of `id`, if stored.
    ///
    /// # Errors
    /// `HV_CORRUPT` when a sealed segment's metadata cannot be read.
    pub fn get(&self, id: &VectorId) -> Result<Option<StoredRecord<'_>>> {
        Ok(match self.place(id) {
            None => None,
            Some(Place::Mutable(r)) => {
                let rows = &self.mutable.rows;
                Some((rows.vector(r as usize), rows.metadata[r as usize].clone()))
            }
            Some(Place::Sealed(p, row)) => {
                let seg = &self.segments.parts[p].seg;
                Some((seg.vector(row), seg.metadata(row)?))
            }
        })
    }

    /// True if `id` is stored.
    pub fn contains(&self, id: &VectorId) -> bool {
        self.place(id).is_some()
    }

    /// The insertion sequence number of `id` (its tie-break rank), if stored.
    pub fn seq_of(&self, id: &VectorId) -> Option<u64> {
        match self.place(id)? {
            Place::Mutable(r) => Some(self.mutable.rows.seqs[r as usize]),
            Place::Sealed(p, row) => Some(self.segments.parts[p].seg.seq(row)),
        }
    }

    /// `HV_UNSUPPORTED` for operations that work on one in-memory graph when sealed segments exist.
    fn no_sealed(&self, what: &str) -> Result<()> {
        if self.segments.parts.is_empty() {
            Ok(())
        } else {
            Err(Error::Unsupported(format!(
                "{what} works on collections without sealed segments; this one has {}",
                self.segments.parts.len()
            )))
        }
    }

    /// Records in the mutable segment.
    pub fn mutable_len(&self) -> usize {
        self.mutable.rows.live()
    }
}

/// Sealed segments and the interim index: what the durable layer uses.
#[cfg_attr(not(feature = "durable"), allow(dead_code))]
impl Collection {
    /// Sealed-row tombstones made since the last call, as `(generation, row)`: what the store
    /// must record with the writes that caused them.
    pub(crate) fn take_tombstones(&mut self) -> Vec<(u64, u32)> {
        self.segments.take_journal()
    }

    /// Adds a sealed segment loaded from storage, with its tombstoned rows (open). Segments
    /// must come oldest first.
    ///
    /// # Errors
    /// `HV_CORRUPT` when the segment does not fit the collection's dimension.
    pub(crate) fn attach_segment(&mut self, seg: Arc<Segment>, tombstones: &[u32]) -> Result<()> {
        if seg.dim() != self.dim() {
            return Err(Error::Corrupt(format!(
                "segment {} holds {}-d vectors, the collection {}-d",
                seg.generation(),
                seg.dim(),
                self.dim()
            )));
        }
        if seg.precision() != self.precision() {
            return Err(Error::Corrupt(format!(
                "segment {} holds {} rows, the collection stores {}",
                seg.generation(),
                seg.precision().name(),
                self.precision().name()
            )));
        }
        let part = SealedPart::new(seg, tombstones);
        self.mutable.rows.note_seq(part.seg.max_seq());
        self.segments.push(part);
        self.version += 1;
        Ok(())
    }

    /// The sealed segments, oldest first.
    pub(crate) fn sealed(&self) -> &[SealedPart] {
        &self.segments.parts
    }

    /// Makes the mutable segment's index an interim one (durable collections; see
    /// [`mutable`]).
    pub(crate) fn set_deferred_index(&mut self, on: bool) {
        self.mutable.deferred = on;
        self.segments.journaling = on;
    }

    /// Live records of the mutable segment its (interim) index covers.
    pub(crate) fn mutable_indexed(&self) -> usize {
        self.mutable.indexed_live()
    }

    /// Rows of the mutable segment, live and tombstoned.
    pub(crate) fn mutable_rows(&self) -> usize {
        self.mutable.rows.len()
    }

    /// Rows of the mutable segment its (interim) index covers, tombstones included; 0 without
    /// an index.
    pub(crate) fn mutable_covered(&self) -> usize {
        self.mutable.index.as_ref().map_or(0, |ix| ix.len())
    }

    /// Drops the mutable segment's index and its tombstoned rows (an interim index is then
    /// rebuilt in the background).
    pub(crate) fn drop_dead_rows(&mut self) {
        self.mutable.drop_dead_rows();
    }
}
