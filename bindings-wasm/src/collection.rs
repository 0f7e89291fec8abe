//! `CoreCollection`: the wasm class over `horosvec_core::Collection`, with the same method names
//! as the Node binding's synchronous methods. `close()` drops the core value; later calls fail
//! with `HV_CLOSED`.
//!
//! The heap's ceiling: every method that allocates first checks its headroom with
//! `horosvec_core::mem` (a write with `ensure_headroom`, a read with `ensure_read_headroom`,
//! which may spend the read reserve), before it copies anything out of its arguments. So the
//! strings are taken as `JsValue` and copied here (wasm-bindgen's own copy of a `String`
//! argument would run before any check, and abort when the heap is full).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use horosvec_core::{
    args, mem, AlignedBuf, Collection, Error, IndexParams, Metric, Precision, WriteKind,
};
use js_sys::Array;
use wasm_bindgen::prelude::*;

use crate::convert::{err, stats_out, u32s_in, Budget};
use crate::reads::{self, text_in};
use js_sys::{Float32Array, Uint32Array, Uint8Array};

/// An in-memory collection (raw binding; the public API is the JS `Collection` in `npm/lib`).
#[wasm_bindgen]
pub struct CoreCollection {
    inner: Option<Collection>,
}

impl CoreCollection {
    /// A handle over `col` (a loaded snapshot).
    pub(crate) fn from_collection(col: Collection) -> CoreCollection {
        CoreCollection { inner: Some(col) }
    }

    fn col(&self) -> Result<&Collection, JsValue> {
        self.inner.as_ref().ok_or_else(|| err(Error::Closed))
    }
    fn col_mut(&mut self) -> Result<&mut Collection, JsValue> {
        self.inner.as_mut().ok_or_else(|| err(Error::Closed))
    }
    /// A write: the vectors are copied into wasm memory here, fallibly.
    fn write(
        &mut self,
        kind: WriteKind,
        ids: JsValue,
        vectors: &Float32Array,
        metadata: Option<Array>,
        what: &'static str,
    ) -> Result<(), JsValue> {
        self.col()?;
        let (ids, vectors, metadata) = reads::write_input(&ids, vectors, metadata, what)?;
        let col = self.col_mut()?;
        let w = col.prepare(kind, ids, vectors, metadata).map_err(err)?;
        col.commit(w).map_err(err)
    }
}

/// Reads `{ r?, l?, alpha?, passes?, bits?, seed? }` (the Node binding's `RawIndexParams`).
fn index_params(params: &JsValue) -> Result<IndexParams, JsValue> {
    let a = args::IndexArgs::from_lookup(|k| {
        js_sys::Reflect::get(params, &k.into())
            .ok()
            .and_then(|v| v.as_f64())
    });
    args::index_params(&a).map_err(err)
}

#[wasm_bindgen]
impl CoreCollection {
    /// A new empty collection. `dim`: integer 1..=65536; `metric`: "l2" | "cosine" | "ip" | "l1";
    /// `vectors`: "f32" (default, also for undefined) | "f16" (`horosvec_core::Precision`).
    pub fn create(dim: f64, metric: JsValue, vectors: JsValue) -> Result<CoreCollection, JsValue> {
        let mut budget = Budget::write("Collection.create");
        budget
            .need(std::mem::size_of::<CoreCollection>())
            .map_err(err)?;
        let dim = args::dim(dim).map_err(err)?;
        let metric = text_in(&metric, &mut budget)?
            .ok_or_else(|| err(Error::invalid_argument("metric must be a string")))?;
        let metric = Metric::parse(&metric).map_err(err)?;
        let precision = match text_in(&vectors, &mut budget)? {
            None => Precision::F32,
            Some(v) => Precision::parse(&v).map_err(err)?,
        };
        Ok(CoreCollection {
            inner: Some(Collection::with_precision(dim, metric, precision).map_err(err)?),
        })
    }

    /// Loads a versioned binary snapshot (from either backend's `toBytes`).
    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(bytes: &Uint8Array) -> Result<CoreCollection, JsValue> {
        mem::ensure_headroom(|| bytes.length() as usize, "Collection.fromBytes").map_err(err)?;
        // one copy, JS → a 64-byte aligned buffer in wasm memory, which a version-5 snapshot is
        // then read from in place
        let buf =
            AlignedBuf::try_fill(bytes.length() as usize, |dst| Ok(bytes.copy_to_uninit(dst)))
                .map_err(|e| {
                    mem::release_reserve();
                    err(e)
                })?;
        Ok(CoreCollection {
            inner: Some(Collection::from_backing(Arc::new(buf)).map_err(err)?),
        })
    }

    /// A versioned binary snapshot of the records and the index graph.
    #[wasm_bindgen(js_name = toBytes)]
    pub fn snapshot_bytes(&mut self) -> Result<Vec<u8>, JsValue> {
        mem::ensure_read_headroom(|| 0, "toBytes").map_err(err)?;
        self.col_mut()?.to_bytes().map_err(err)
    }

    /// Installs an index from an external graph (see the Node binding's `importGraphAsync`).
    #[wasm_bindgen(js_name = importGraph)]
    pub fn import_graph(
        &mut self,
        adjacency: &Uint32Array,
        degree: f64,
        entry: Option<f64>,
        params: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.col()?;
        mem::ensure_headroom(|| adjacency.length() as usize * 4, "importGraph").map_err(err)?;
        let adjacency = u32s_in(adjacency).map_err(err)?;
        let p = index_params(&params)?;
        let degree = args::graph_degree(degree).map_err(err)?;
        let entry = entry.map(args::graph_entry).transpose().map_err(err)?;
        let r = self
            .col_mut()?
            .import_graph(&adjacency, degree, entry, p)
            .map_err(err)?;
        Ok(crate::convert::report_out(&r))
    }

    /// The index graph as a padded adjacency over the records in insertion order.
    #[wasm_bindgen(js_name = exportGraph)]
    pub fn export_graph(&mut self) -> Result<JsValue, JsValue> {
        mem::ensure_read_headroom(|| 0, "exportGraph").map_err(err)?;
        let g = self.col_mut()?.export_graph().map_err(err)?;
        Ok(crate::convert::exported_out(&g))
    }

    /// Number of records.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> Result<f64, JsValue> {
        Ok(self.col()?.len() as f64)
    }

    /// Facts about the collection.
    pub fn stats(&self) -> Result<JsValue, JsValue> {
        mem::ensure_read_headroom(|| 0, "stats").map_err(err)?;
        Ok(stats_out(&self.col()?.stats()))
    }

    /// Inserts records. `vectors`: `n × dim` row-major.
    pub fn add(
        &mut self,
        ids: JsValue,
        vectors: &Float32Array,
        metadata: Option<Array>,
    ) -> Result<(), JsValue> {
        self.write(WriteKind::Add, ids, vectors, metadata, "add")
    }

    /// Inserts or replaces records.
    pub fn upsert(
        &mut self,
        ids: JsValue,
        vectors: &Float32Array,
        metadata: Option<Array>,
    ) -> Result<(), JsValue> {
        self.write(WriteKind::Upsert, ids, vectors, metadata, "upsert")
    }

    /// Deletes records; returns the number deleted.
    pub fn delete(&mut self, ids: JsValue) -> Result<u32, JsValue> {
        let ids = reads::delete_ids(&ids)?;
        Ok(self.col_mut()?.delete(&ids) as u32)
    }

    /// Deletes every record the filter (JSON text) matches, atomically; returns the number
    /// deleted.
    #[wasm_bindgen(js_name = deleteWhere)]
    pub fn delete_where(&mut self, filter: JsValue) -> Result<u32, JsValue> {
        self.col()?;
        let f = reads::delete_filter(&filter)?;
        Ok(self.col_mut()?.delete_where(&f).map_err(err)? as u32)
    }

    /// The number of live records the filter (JSON text; absent: every record) matches.
    pub fn count(&self, filter: JsValue) -> Result<f64, JsValue> {
        reads::count(self.col()?, &filter)
    }

    /// One page of the live records the filter matches, in insertion order (the Node binding's
    /// `list`): `{ ids, metadata, vectors: Float32Array | null, cursor: string | null }`.
    pub fn list(
        &self,
        filter: JsValue,
        limit: Option<f64>,
        cursor: JsValue,
        include_vectors: bool,
    ) -> Result<JsValue, JsValue> {
        reads::list(self.col()?, &filter, limit, &cursor, include_vectors)
    }

    /// The record of `id` (`{ vector, metadata }`), or undefined.
    pub fn get(&self, id: JsValue) -> Result<JsValue, JsValue> {
        reads::get(self.col()?, &id)
    }

    /// Search for one query: exact, or through the index when there is one (see `exact`;
    /// `horosvec_core::Collection::search`).
    pub fn search(&self, query: &Float32Array, options: JsValue) -> Result<JsValue, JsValue> {
        reads::search(self.col()?, query, &options)
    }

    /// Search for `n` queries (`n × dim` row-major): exact, or through the index when there is
    /// one (see `exact`; `horosvec_core::Collection::search_batch`); an array of per-query hits.
    #[wasm_bindgen(js_name = searchBatch)]
    pub fn search_batch(&self, queries: &Float32Array, options: JsValue) -> Result<Array, JsValue> {
        reads::search_batch(self.col()?, queries, &options)
    }

    /// Builds the approximate index (sequentially: no threads in this build). `params` holds
    /// optional `r`, `l`, `alpha`, `passes`, `bits`, `seed`; `progress(done, total)` is called
    /// about every 1 % and stops the build with `HV_CANCELLED` when it returns `true`.
    #[wasm_bindgen(js_name = buildIndex)]
    pub fn build_index(
        &mut self,
        params: JsValue,
        progress: Option<js_sys::Function>,
    ) -> Result<(), JsValue> {
        mem::ensure_headroom(|| 0, "buildIndex").map_err(err)?;
        let p = index_params(&params)?;
        let cancel = AtomicBool::new(false);
        let report = |d: usize, t: usize| {
            if let Some(f) = &progress {
                let stop = f.call2(&JsValue::NULL, &(d as f64).into(), &(t as f64).into());
                if stop.map(|v| v.is_truthy()).unwrap_or(true) {
                    cancel.store(true, Ordering::Relaxed);
                }
            }
        };
        let col = self.col_mut()?;
        // a loaded snapshot's sealed parts move into memory first (one graph over all)
        col.unseal().map_err(err)?;
        let (ix, version) = col.build_index(p, &report, &cancel).map_err(err)?;
        col.install_index(ix, version).map_err(err)
    }

    /// Releases the collection; later calls fail with `HV_CLOSED`. Closing twice is allowed.
    pub fn close(&mut self) {
        self.inner = None;
    }
}
