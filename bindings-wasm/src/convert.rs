//! JS values ↔ core types, and core errors → JS `Error`s with `code`.
//!
//! Every copy out of a JS value into the wasm heap is checked before it is made, so a full heap
//! gives `HV_OUT_OF_MEMORY` instead of an abort: typed arrays are reserved fallibly
//! ([`f32s_in`]), strings (ids, metadata, filter text) are counted against a [`Budget`].

use horosvec_core::{args, mem, Error, SearchHit, VectorId};
use js_sys::{Array, Float32Array, JsString, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Core error → JS `Error` with `code` = the stable code and message `"<CODE>: <message>"`.
pub fn err(e: Error) -> JsValue {
    // room for the message even at a full heap
    mem::release_reserve();
    let code = e.code().as_str();
    let js = js_sys::Error::new(&format!("{code}: {e}"));
    // Reflect.set on a fresh Error object cannot fail.
    let _ = Reflect::set(&js, &"code".into(), &code.into());
    js.into()
}

/// Smallest headroom step of a [`Budget`].
const STEP: usize = 1 << 20;

/// The headroom of the strings (and id lists) one call copies out of JS values before the core
/// sees them, checked with `horosvec_core::mem` in steps of at least 1 MiB: a batch of many
/// small strings costs one trial allocation per MiB, and no copy starts without room for it.
pub struct Budget {
    left: usize,
    what: &'static str,
    read: bool,
}

impl Budget {
    /// For a call that grows what is stored (`mem::ensure_headroom`).
    pub fn write(what: &'static str) -> Budget {
        Budget {
            left: 0,
            what,
            read: false,
        }
    }

    /// For a read (`mem::ensure_read_headroom`: may spend the read reserve).
    pub fn read(what: &'static str) -> Budget {
        Budget {
            left: 0,
            what,
            read: true,
        }
    }

    /// Checks that `bytes` more can be allocated.
    ///
    /// # Errors
    /// `HV_OUT_OF_MEMORY`.
    pub fn need(&mut self, bytes: usize) -> horosvec_core::Result<()> {
        if bytes > self.left {
            let step = bytes.max(STEP);
            if self.read {
                mem::ensure_read_headroom(|| step, self.what)?;
            } else {
                mem::ensure_headroom(|| step, self.what)?;
            }
            self.left = step;
        }
        self.left -= bytes;
        Ok(())
    }

    /// A JS string → `String` (`None` for any other value). The copy needs up to 3 bytes per
    /// UTF-16 unit, and wasm-bindgen's transfer briefly holds the first guess beside it.
    ///
    /// # Errors
    /// `HV_OUT_OF_MEMORY`.
    pub fn string(&mut self, v: &JsValue) -> horosvec_core::Result<Option<String>> {
        match v.dyn_ref::<JsString>() {
            Some(s) => {
                self.need((s.length() as usize).saturating_mul(4).saturating_add(16))?;
                Ok(v.as_string())
            }
            None => Ok(None),
        }
    }
}

/// A JS id (number or string) → core id.
pub fn id_in(v: &JsValue, budget: &mut Budget) -> horosvec_core::Result<VectorId> {
    if let Some(n) = v.as_f64() {
        args::id(n)
    } else if let Some(s) = budget.string(v)? {
        Ok(VectorId::Str(s))
    } else {
        Err(Error::invalid_argument(
            "an id must be a string or a non-negative safe integer",
        ))
    }
}

/// A batch of ids → core ids: a `Float64Array` (every id a number; the JS layer's fast path) or
/// an array of numbers and strings.
pub fn ids_in(ids: &JsValue, budget: &mut Budget) -> horosvec_core::Result<Vec<VectorId>> {
    let per_id = std::mem::size_of::<VectorId>() + 8;
    if let Some(nums) = ids.dyn_ref::<js_sys::Float64Array>() {
        budget.need((nums.length() as usize).saturating_mul(per_id + 8))?;
        return args::ids(&nums.to_vec());
    }
    if !Array::is_array(ids) && ids.is_object() {
        // Packed string ids: { text, lengths: Uint32Array } (one crossing instead of one per id).
        let text = Reflect::get(ids, &"text".into()).unwrap_or(JsValue::UNDEFINED);
        let lengths = Reflect::get(ids, &"lengths".into())
            .ok()
            .and_then(|l| l.dyn_into::<js_sys::Uint32Array>().ok());
        if let Some(l) = &lengths {
            // the lengths, and per id its String (its text is counted with the whole text)
            budget.need((l.length() as usize).saturating_mul(per_id + 4 + 16))?;
        }
        return match (budget.string(&text)?, lengths) {
            (Some(t), Some(l)) => args::packed_ids(&t, &l.to_vec()),
            _ => Err(Error::invalid_argument("ids must be an array")),
        };
    }
    match ids.dyn_ref::<Array>() {
        Some(list) => {
            budget.need((list.length() as usize).saturating_mul(per_id))?;
            list.iter().map(|v| id_in(&v, budget)).collect()
        }
        None => Err(Error::invalid_argument("ids must be an array")),
    }
}

/// Core id → JS value.
pub fn id_out(id: &VectorId) -> JsValue {
    match id {
        VectorId::Int(n) => JsValue::from_f64(*n as f64),
        VectorId::Str(s) => JsValue::from_str(s),
    }
}

/// A JS array of (string | null | undefined) metadata → core metadata.
pub fn metadata_in(
    m: Option<Array>,
    budget: &mut Budget,
) -> horosvec_core::Result<Option<Vec<Option<String>>>> {
    let Some(m) = m else { return Ok(None) };
    budget.need((m.length() as usize).saturating_mul(std::mem::size_of::<Option<String>>()))?;
    m.iter()
        .map(|v| {
            if v.is_null() || v.is_undefined() {
                Ok(None)
            } else {
                budget
                    .string(&v)?
                    .map(Some)
                    .ok_or_else(|| Error::invalid_argument("metadata must be JSON text"))
            }
        })
        .collect::<horosvec_core::Result<Vec<_>>>()
        .map(Some)
}

fn set(o: &Object, k: &str, v: &JsValue) {
    // Reflect.set on a plain fresh object cannot fail.
    let _ = Reflect::set(o, &k.into(), v);
}

fn opt_str(s: Option<&str>) -> JsValue {
    s.map(JsValue::from_str).unwrap_or(JsValue::NULL)
}

/// Core hits → `{ ids, distances: Float32Array, metadata }` (column-wise, best first).
pub fn hits_out(hits: &[SearchHit]) -> JsValue {
    let ids = Array::new_with_length(hits.len() as u32);
    let meta = Array::new_with_length(hits.len() as u32);
    let d: Vec<f32> = hits.iter().map(|h| h.distance).collect();
    for (i, h) in hits.iter().enumerate() {
        ids.set(i as u32, id_out(&h.id));
        meta.set(i as u32, opt_str(h.metadata.as_deref()));
    }
    let o = Object::new();
    set(&o, "ids", &ids);
    set(&o, "distances", &Float32Array::from(&d[..]));
    set(&o, "metadata", &meta);
    o.into()
}

/// A page of `list` → `{ ids, metadata, vectors: Float32Array | null, cursor: string | null }`
/// (column-wise; `vectors` is `n × dim` row-major, set when asked for). The vectors are copied
/// into one JS array without an intermediate `Vec`.
pub fn page_out(p: &horosvec_core::collection::ListPage, with_vectors: bool) -> JsValue {
    let n = p.records.len() as u32;
    let ids = Array::new_with_length(n);
    let meta = Array::new_with_length(n);
    let dim = p
        .records
        .first()
        .and_then(|r| r.vector.as_ref())
        .map_or(0, Vec::len);
    let vectors = with_vectors.then(|| Float32Array::new_with_length(n * dim as u32));
    for (i, r) in p.records.iter().enumerate() {
        ids.set(i as u32, id_out(&r.id));
        meta.set(i as u32, opt_str(r.metadata.as_deref()));
        if let (Some(out), Some(v)) = (&vectors, &r.vector) {
            out.subarray((i * dim) as u32, ((i + 1) * dim) as u32)
                .copy_from(v);
        }
    }
    let o = Object::new();
    set(&o, "ids", &ids);
    set(&o, "metadata", &meta);
    set(&o, "vectors", &vectors.map_or(JsValue::NULL, JsValue::from));
    let cursor = p.cursor.map(|c| c.to_string());
    set(&o, "cursor", &opt_str(cursor.as_deref()));
    o.into()
}

/// A stored record → `{ vector: Float32Array, metadata }`.
pub fn record_out(v: &[f32], m: Option<&str>) -> JsValue {
    let o = Object::new();
    set(&o, "vector", &Float32Array::from(v));
    set(&o, "metadata", &opt_str(m));
    o.into()
}

/// Core stats → a plain object with the same fields as the Node binding's `RawStats`.
pub fn stats_out(s: &horosvec_core::Stats) -> JsValue {
    let o = Object::new();
    set(&o, "size", &(s.size as f64).into());
    set(&o, "dim", &(s.dim as f64).into());
    set(&o, "metric", &s.metric.as_str().into());
    set(&o, "kernel", &s.kernel.into());
    set(&o, "vectors", &s.vectors.name().into());
    set(&o, "mode", &s.mode.as_str().into());
    set(&o, "vectorBytes", &(s.vector_bytes as f64).into());
    set(&o, "indexBytesPerVector", &s.index_bytes_per_vector.into());
    set(&o, "tombstones", &(s.tombstones as f64).into());
    set(&o, "mutableRecords", &(s.mutable_records as f64).into());
    set(&o, "sealedSegments", &(s.sealed_segments as f64).into());
    set(&o, "mutableIndexed", &(s.mutable_indexed as f64).into());
    set(&o, "warmingSegments", &(s.warming_segments as f64).into());
    let f = Object::new();
    set(&f, "scans", &(s.filtered.scans as f64).into());
    set(&f, "codeScans", &(s.filtered.code_scans as f64).into());
    set(&f, "twoHop", &(s.filtered.two_hop as f64).into());
    set(&f, "walks", &(s.filtered.walks as f64).into());
    set(&f, "fallbacks", &(s.filtered.fallbacks as f64).into());
    set(&o, "filtered", &f);
    o.into()
}

/// Import report → `{ nodes, edges, padding, selfLoops, duplicates }`.
pub fn report_out(r: &horosvec_core::collection::ImportReport) -> JsValue {
    let o = Object::new();
    set(&o, "nodes", &(r.nodes as f64).into());
    set(&o, "edges", &(r.edges as f64).into());
    set(&o, "padding", &(r.padding as f64).into());
    set(&o, "selfLoops", &(r.self_loops as f64).into());
    set(&o, "duplicates", &(r.duplicates as f64).into());
    o.into()
}

/// Exported graph → `{ adjacency: Uint32Array, degree, entry, ids }`.
pub fn exported_out(g: &horosvec_core::collection::ExportedGraph) -> JsValue {
    let ids = Array::new_with_length(g.ids.len() as u32);
    for (i, id) in g.ids.iter().enumerate() {
        ids.set(i as u32, id_out(id));
    }
    let o = Object::new();
    set(
        &o,
        "adjacency",
        &js_sys::Uint32Array::from(&g.adjacency[..]),
    );
    set(&o, "degree", &(g.degree as f64).into());
    set(&o, "entry", &f64::from(g.entry).into());
    set(&o, "ids", &ids);
    o.into()
}

/// Copies a JS typed array into a new wasm `Vec`, reserving fallibly: at the heap's ceiling the
/// call fails with `HV_OUT_OF_MEMORY` before anything changes (wasm-bindgen's own copy of a
/// `Vec<f32>` argument would abort the instance instead).
macro_rules! typed_in {
    ($name:ident, $js:ty, $t:ty, $zero:expr) => {
        /// A JS typed array → `Vec`, fallibly (see the macro's doc).
        pub fn $name(a: &$js) -> horosvec_core::Result<Vec<$t>> {
            let n = a.length() as usize;
            let mut v: Vec<$t> = Vec::new();
            v.try_reserve_exact(n).map_err(|_| {
                mem::release_reserve();
                Error::OutOfMemory(format!(
                    "cannot copy {n} input values into the wasm heap; nothing was changed"
                ))
            })?;
            v.resize(n, $zero);
            a.copy_to(&mut v);
            Ok(v)
        }
    };
}
typed_in!(f32s_in, js_sys::Float32Array, f32, 0.0);
typed_in!(u32s_in, js_sys::Uint32Array, u32, 0);
