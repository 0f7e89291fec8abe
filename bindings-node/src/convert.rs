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
    pub text: String,
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
    pub ids: Vec<JsId>,
    pub distances: Float32Array,
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

/// A stored record: its vector (`dim` values) and metadata JSON text.
#[napi(object)]
pub struct RawRecord {
    pub vector: Float32Array,
    pub metadata: Option<String>,
}

/// Collection facts (see `horosvec_core::Stats`).
#[napi(object)]
pub struct RawStats {
    pub size: f64,
    pub dim: u32,
    pub metric: String,
    pub kernel: String,
    pub mode: String,
    pub vector_bytes: f64,
    pub index_bytes_per_vector: f64,
    pub tombstones: f64,
    pub mutable_records: f64,
    pub sealed_segments: f64,
    pub mutable_indexed: f64,
    pub warming_segments: f64,
}

/// Answers of ticketed durable writes, one batch per committed group: `ok` holds
/// (ticket, count) pairs; `failed[i]` failed with `errors[i]` ("HV_CODE: message").
#[napi(object)]
pub struct RawSettled {
    pub ok: Vec<f64>,
    pub failed: Vec<f64>,
    pub errors: Vec<String>,
}

/// Sealing and compaction options of `Collection.open` (see `horosvec_core::durable::SegmentConfig`).
#[napi(object)]
pub struct RawSegmentOptions {
    pub max_mutable_records: Option<f64>,
    pub max_sealed_segments: Option<f64>,
    pub max_tombstone_ratio: Option<f64>,
    pub verify: Option<bool>,
}

/// What `importGraph` kept and dropped (see `horosvec_core::collection::ImportReport`).
#[napi(object)]
pub struct RawImportReport {
    pub nodes: f64,
    pub edges: f64,
    pub padding: f64,
    pub self_loops: f64,
    pub duplicates: f64,
}

/// An exported graph: `adjacency` is `ids.length × degree`, padded with 0xFFFFFFFF.
#[napi(object)]
pub struct RawExportedGraph {
    pub adjacency: Uint32Array,
    pub degree: u32,
    pub entry: u32,
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
