//! `CoreCollection`: the wasm class over `horosvec_core::Collection`, with the same method names
//! as the Node binding's synchronous methods. `close()` drops the core value; later calls fail
//! with `HV_CLOSED`.

use std::sync::atomic::{AtomicBool, Ordering};

use horosvec_core::{args, Collection, Error, IndexParams, Metric, WriteKind};
use js_sys::Array;
use wasm_bindgen::prelude::*;

use crate::convert::{bytes_in, err, ids_in, stats_out, u32s_in};
use crate::reads;
use js_sys::{Float32Array, Uint32Array, Uint8Array};

/// An in-memory collection (raw binding; the public API is the JS `Collection` in `npm/lib`).
#[wasm_bindgen]
pub struct CoreCollection {
    inner: Option<Collection>,
}

impl CoreCollection {
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
    ) -> Result<(), JsValue> {
        self.col()?;
        let (ids, vectors, metadata) = reads::write_input(&ids, vectors, metadata)?;
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
    /// A new empty collection. `dim`: integer 1..=65536; `metric`: "l2" | "cosine" | "ip" | "l1".
    pub fn create(dim: f64, metric: &str) -> Result<CoreCollection, JsValue> {
        let dim = args::dim(dim).map_err(err)?;
        let metric = Metric::parse(metric).map_err(err)?;
        Ok(CoreCollection {
            inner: Some(Collection::new(dim, metric).map_err(err)?),
        })
    }

    /// Loads a versioned binary snapshot (from either backend's `toBytes`).
    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(bytes: &Uint8Array) -> Result<CoreCollection, JsValue> {
        let bytes = bytes_in(bytes).map_err(err)?;
        Ok(CoreCollection {
            inner: Some(Collection::from_bytes(&bytes).map_err(err)?),
        })
    }

    /// A versioned binary snapshot of the records and the index graph.
    #[wasm_bindgen(js_name = toBytes)]
    pub fn snapshot_bytes(&mut self) -> Result<Vec<u8>, JsValue> {
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
        Ok(stats_out(&self.col()?.stats()))
    }

    /// Inserts records. `vectors`: `n × dim` row-major.
    pub fn add(
        &mut self,
        ids: JsValue,
        vectors: &Float32Array,
        metadata: Option<Array>,
    ) -> Result<(), JsValue> {
        self.write(WriteKind::Add, ids, vectors, metadata)
    }

    /// Inserts or replaces records.
    pub fn upsert(
        &mut self,
        ids: JsValue,
        vectors: &Float32Array,
        metadata: Option<Array>,
    ) -> Result<(), JsValue> {
        self.write(WriteKind::Upsert, ids, vectors, metadata)
    }

    /// Deletes records; returns the number deleted.
    pub fn delete(&mut self, ids: JsValue) -> Result<u32, JsValue> {
        let ids = ids_in(&ids).map_err(err)?;
        Ok(self.col_mut()?.delete(&ids) as u32)
    }

    /// Deletes every record the filter (JSON text) matches, atomically; returns the number
    /// deleted.
    #[wasm_bindgen(js_name = deleteWhere)]
    pub fn delete_where(&mut self, filter: String) -> Result<u32, JsValue> {
        self.col()?;
        let f = reads::filter(&filter)?;
        Ok(self.col_mut()?.delete_where(&f).map_err(err)? as u32)
    }

    /// The number of live records the filter (JSON text; absent: every record) matches.
    pub fn count(&self, filter: Option<String>) -> Result<f64, JsValue> {
        reads::count(self.col()?, filter)
    }

    /// One page of the live records the filter matches, in insertion order (the Node binding's
    /// `list`): `{ ids, metadata, vectors: Float32Array | null, cursor: string | null }`.
    pub fn list(
        &self,
        filter: Option<String>,
        limit: Option<f64>,
        cursor: Option<String>,
        include_vectors: bool,
    ) -> Result<JsValue, JsValue> {
        reads::list(self.col()?, filter, limit, cursor, include_vectors)
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
        let (ix, version) = col.build_index(p, &report, &cancel).map_err(err)?;
        col.install_index(ix, version).map_err(err)
    }

    /// Releases the collection; later calls fail with `HV_CLOSED`. Closing twice is allowed.
    pub fn close(&mut self) {
        self.inner = None;
    }
}
