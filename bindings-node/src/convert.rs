//! JS values ↔ core types.

use horosvec_core::{args, SearchHit, VectorId};
use napi::bindgen_prelude::{Either, Either3, Float32Array, Float64Array, Uint32Array};
use napi_derive::napi;

/// A JS id: a number (non-negative safe integer) or a string.
pub type JsId = Either<f64, String>;

/// Many string ids packed into one string plus the UTF-16 length of each (one crossing instead
/// of one per id).
#[napi(object)]
pub struct PackedIds {
    /// All the string ids, concatenated.
    pub text: String,
    /// Length of each id in `text`, in UTF-16 code units, in order.
    pub lengths: Uint32Array,
}

/// A batch of ids, in the JS layer's three forms: a `Float64Array` when every id is a number,
/// [`PackedIds`] when every id is a string, else an array of numbers and strings.
pub type JsIds = Either3<Float64Array, PackedIds, Vec<JsId>>;

/// JS ids → core ids (numbers are checked by `horosvec_core::args`: `HV_INVALID_ARGUMENT`).
pub fn ids_in(ids: JsIds) -> horosvec_core::Result<Vec<VectorId>> {
    match ids {
        Either3::A(nums) => args::ids(&nums),
        Either3::B(p) => args::packed_ids(&p.text, &p.lengths),
        Either3::C(list) => list.into_iter().map(id_in).collect(),
    }
}

/// One JS id → core id.
pub fn id_in(id: JsId) -> horosvec_core::Result<VectorId> {
    match id {
        Either::A(n) => args::id(n),
        Either::B(s) => Ok(VectorId::Str(s)),
    }
}

/// Core id → JS id.
pub fn id_out(id: VectorId) -> JsId {
    match id {
        VectorId::Int(n) => Either::A(n as f64),
        VectorId::Str(s) => Either::B(s),
    }
}

/// The hits of one query, column-wise: `ids[i]`, `distances[i]` (lower is closer) and
/// `metadata[i]` (JSON text or null) describe hit i, best first.
#[napi(object)]
pub struct RawHits {
    /// Id of each hit, best first.
    pub ids: Vec<JsId>,
    /// Distance of each hit to the query (lower is closer).
    pub distances: Float32Array,
    /// Metadata JSON text of each hit; null when it has none or metadata was not asked for.
    pub metadata: Vec<Option<String>>,
}

/// Core hits → column-wise JS hits.
pub fn hits_out(hits: Vec<SearchHit>) -> RawHits {
    let mut ids = Vec::with_capacity(hits.len());
    let mut distances = Vec::with_capacity(hits.len());
    let mut metadata = Vec::with_capacity(hits.len());
    for h in hits {
        ids.push(id_out(h.id));
        distances.push(h.distance);
        metadata.push(h.metadata);
    }
    RawHits {
        ids,
        distances: Float32Array::new(distances),
        metadata,
    }
}

/// One page of `list`, column-wise: `ids[i]` and `metadata[i]` (JSON text or null) describe
/// record i, in insertion order; `vectors` holds their vectors when asked for.
#[napi(object)]
pub struct RawListPage {
    /// Id of each record, in insertion order.
    pub ids: Vec<JsId>,
    /// Metadata JSON text of each record, or null.
    pub metadata: Vec<Option<String>>,
    /// The records' vectors, `ids.length × dim` row-major; null unless `includeVectors`.
    pub vectors: Option<Float32Array>,
    /// The cursor of the next page; null after the last one.
    pub cursor: Option<String>,
}

/// A core page → column-wise JS (`vectors` set when they were asked for, even for no record).
pub fn page_out(p: horosvec_core::collection::ListPage, with_vectors: bool) -> RawListPage {
    let n = p.records.len();
    let mut ids = Vec::with_capacity(n);
    let mut metadata = Vec::with_capacity(n);
    let mut vectors: Option<Vec<f32>> = with_vectors.then(Vec::new);
    for r in p.records {
        ids.push(id_out(r.id));
        metadata.push(r.metadata);
        if let (Some(out), Some(v)) = (vectors.as_mut(), r.vector) {
            out.extend_from_slice(&v);
        }
    }
    RawListPage {
        ids,
        metadata,
        vectors: vectors.map(Float32Array::new),
        cursor: p.cursor.map(|c| c.to_string()),
    }
}

/// A stored record: its vector (`dim` values) and metadata JSON text.
#[napi(object)]
pub struct RawRecord {
    /// The stored vector (`dim` values).
    pub vector: Float32Array,
    /// Its metadata JSON text, or null.
    pub metadata: Option<String>,
}

/// Collection facts (see `horosvec_core::Stats`).
#[napi(object)]
pub struct RawStats {
    /// Number of records (count).
    pub size: f64,
    /// Vector dimension (values per vector).
    pub dim: u32,
    /// Metric name (`"l2"`, `"cosine"`, `"ip"` or `"l1"`).
    pub metric: String,
    /// Name of the distance kernel set in use (e.g. `"avx2-fma-f16c"`).
    pub kernel: String,
    /// How vector rows are stored: `"f32"` or `"f16"`.
    pub vectors: String,
    /// The search code path: `"exact"`, the index's (e.g. `"vamana-rabitq4"`) or
    /// `"segmented-<mode>"` (see `horosvec_core::Stats::mode`).
    pub mode: String,
    /// Bytes of the stored vectors (rows · dim · 4, tombstoned rows included).
    pub vector_bytes: f64,
    /// Bytes per vector the graph walk touches (codes, factors, adjacency); 0 without an index.
    pub index_bytes_per_vector: f64,
    /// Deleted records still present as tombstones (count).
    pub tombstones: f64,
    /// Records in the mutable segment (count).
    pub mutable_records: f64,
    /// Sealed segments (count; durable collections).
    pub sealed_segments: f64,
    /// Rows of the mutable segment covered by its index (count).
    pub mutable_indexed: f64,
    /// Sealed segments still being read into memory in the background (count).
    pub warming_segments: f64,
    /// The strategies of filtered segment searches since the collection was made or opened.
    pub filtered: RawFilterCounts,
}

/// How many segment searches of filtered queries took each strategy (see
/// `horosvec_core::collection::FilterCounts`).
#[napi(object)]
pub struct RawFilterCounts {
    /// Exact scans of the matches (count).
    pub scans: f64,
    /// Scans of the matches' RaBitQ codes with an exact rerank (count).
    pub code_scans: f64,
    /// Two-hop (ACORN-1) walks, at middle selectivity (count).
    pub two_hop: f64,
    /// Plain walks keeping the matches, at high selectivity (count).
    pub walks: f64,
    /// Walks that found fewer than `min(k, matches)` and were redone as exact scans (count).
    pub fallbacks: f64,
}

/// Core strategy counts → JS.
pub fn filter_counts_out(c: horosvec_core::collection::FilterCounts) -> RawFilterCounts {
    RawFilterCounts {
        scans: c.scans as f64,
        code_scans: c.code_scans as f64,
        two_hop: c.two_hop as f64,
        walks: c.walks as f64,
        fallbacks: c.fallbacks as f64,
    }
}

/// Answers of ticketed durable writes, one batch per committed group: `ok` holds
/// (ticket, count) pairs; `failed[i]` failed with `errors[i]` ("HV_CODE: message").
#[napi(object)]
pub struct RawSettled {
    /// Flat (ticket, count) pairs of the writes that succeeded; count = records written or
    /// deleted.
    pub ok: Vec<f64>,
    /// Tickets of the writes that failed.
    pub failed: Vec<f64>,
    /// Error of each failed ticket, as `"HV_CODE: message"` (same order as `failed`).
    pub errors: Vec<String>,
}

/// Sealing and compaction options of `Collection.open` (see `horosvec_core::durable::SegmentConfig`).
#[napi(object)]
pub struct RawSegmentOptions {
    /// Seal the mutable segment at this many records (count; default 20,000).
    pub max_mutable_records: Option<f64>,
    /// Merge sealed segments when there are more than this many (count; default 8).
    pub max_sealed_segments: Option<f64>,
    /// Rewrite a sealed segment whose tombstoned fraction passes this (0..1; default 0.2).
    pub max_tombstone_ratio: Option<f64>,
    /// At open, read every segment file whole and check all of it (default false).
    pub verify: Option<bool>,
    /// Row precision: "f32" | "f16" (stored at creation; given for an existing collection it
    /// must match the stored one; absent: the stored one).
    pub vectors: Option<String>,
}

/// What `importGraph` kept and dropped (see `horosvec_core::collection::ImportReport`).
#[napi(object)]
pub struct RawImportReport {
    /// Nodes (= live records; count).
    pub nodes: f64,
    /// Edges kept (count).
    pub edges: f64,
    /// `0xFFFFFFFF` padding entries skipped (count).
    pub padding: f64,
    /// Self loops dropped (count).
    pub self_loops: f64,
    /// Repeated neighbours dropped (count; the first copy is kept).
    pub duplicates: f64,
}

/// An exported graph: `adjacency` is `ids.length × degree`, padded with 0xFFFFFFFF.
#[napi(object)]
pub struct RawExportedGraph {
    /// Row `i` = the neighbours of node `i` (node numbers), then `0xFFFFFFFF` padding.
    pub adjacency: Uint32Array,
    /// Entries per row (the index's R).
    pub degree: u32,
    /// The entry point (a node number).
    pub entry: u32,
    /// Id of each node, by node number.
    pub ids: Vec<JsId>,
}

/// Core export → JS.
pub fn exported_out(g: horosvec_core::collection::ExportedGraph) -> RawExportedGraph {
    RawExportedGraph {
        adjacency: Uint32Array::new(g.adjacency),
        degree: g.degree as u32,
        entry: g.entry,
        ids: g.ids.into_iter().map(id_out).collect(),
    }
}

/// Core import report → JS.
pub fn report_out(r: horosvec_core::collection::ImportReport) -> RawImportReport {
    RawImportReport {
        nodes: r.nodes as f64,
        edges: r.edges as f64,
        padding: r.padding as f64,
        self_loops: r.self_loops as f64,
        duplicates: r.duplicates as f64,
    }
}
