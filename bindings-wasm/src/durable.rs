//! `CoreDurable`: a durable collection in the browser's Origin Private File System (raw binding
//! of `Collection.open(name, { storage: 'opfs' })`; the JS layer in `npm/lib/opfs.js` finds the
//! directory and its files). Its records live in a [`LogStore`] over two sync access handles;
//! its sealed segments are files the JS layer writes from the bytes [`CoreDurable::start_job`]
//! hands out, and reads back whole at open. Reads are those of `CoreCollection` (`reads.rs`).

use horosvec_core::durable::{LocalDurable, WriteRequest};
use horosvec_core::store::LogStore;
use horosvec_core::{args, Error, Metric, Precision, WriteKind};
use js_sys::{Array, Float32Array, Function, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;

use crate::convert::{err, stats_out};
use crate::opfs::{file_error, JsFile};
use crate::reads;

type Driver = LocalDurable<LogStore<JsFile>>;

/// A durable collection over OPFS files (raw binding; the public API is the JS `Collection`).
#[wasm_bindgen]
pub struct CoreDurable {
    inner: Option<Driver>,
}

/// Reads `{ maxMutableRecords?, maxSealedSegments?, maxTombstoneRatio?, verify? }`.
fn segment_config(limits: &JsValue) -> Result<horosvec_core::durable::SegmentConfig, JsValue> {
    let get = |k: &str| Reflect::get(limits, &k.into()).unwrap_or(JsValue::UNDEFINED);
    let a = args::SegmentArgs {
        max_mutable_records: get("maxMutableRecords").as_f64(),
        max_sealed_segments: get("maxSealedSegments").as_f64(),
        max_tombstone_ratio: get("maxTombstoneRatio").as_f64(),
        verify: get("verify").as_bool(),
    };
    args::segment_config(&a).map_err(err)
}

impl CoreDurable {
    fn driver(&self) -> Result<&Driver, JsValue> {
        self.inner.as_ref().ok_or_else(|| err(Error::Closed))
    }
    fn driver_mut(&mut self) -> Result<&mut Driver, JsValue> {
        self.inner.as_mut().ok_or_else(|| err(Error::Closed))
    }
    fn col(&self) -> Result<&horosvec_core::Collection, JsValue> {
        self.driver()?.collection().map_err(err)
    }
    fn put(
        &mut self,
        kind: WriteKind,
        ids: JsValue,
        vectors: &Float32Array,
        metadata: Option<Array>,
        what: &'static str,
    ) -> Result<u32, JsValue> {
        self.driver()?;
        let (ids, vectors, metadata) = reads::write_input(&ids, vectors, metadata, what)?;
        let req = WriteRequest::Put {
            kind,
            ids,
            vectors,
            metadata,
        };
        Ok(self.driver_mut()?.write(req).map_err(err)? as u32)
    }
}

#[wasm_bindgen]
impl CoreDurable {
    /// Opens (or creates, given `dim`) the collection whose log files are the sync access
    /// handles `log_a` and `log_b` (either may be empty). `read_segment(generation)` returns
    /// the bytes of that segment's file (`Uint8Array`) or `undefined` when there is none.
    /// `dim`: 1..=65536, required to create; `metric`: "l2" | "cosine" | "ip" | "l1" (default
    /// l2 to create); `vectors`: "f32" | "f16" (default f32 to create: the rows of its segment
    /// files, log version 2 for f16); each checked against the stored one. `limits`: the
    /// segment options.
    pub fn open(
        log_a: JsValue,
        log_b: JsValue,
        dim: Option<f64>,
        metric: Option<String>,
        vectors: Option<String>,
        limits: JsValue,
        read_segment: &Function,
    ) -> Result<CoreDurable, JsValue> {
        let dim = dim.map(args::dim).transpose().map_err(err)?;
        let metric = metric
            .as_deref()
            .map(Metric::parse)
            .transpose()
            .map_err(err)?;
        let vectors = vectors
            .as_deref()
            .map(Precision::parse)
            .transpose()
            .map_err(err)?;
        let cfg = segment_config(&limits)?;
        let files = [
            JsFile::new(log_a, "log-a".into()),
            JsFile::new(log_b, "log-b".into()),
        ];
        let store = LogStore::open(files, dim, metric, vectors).map_err(err)?;
        let mut read = |g: u64| {
            let v = read_segment
                .call1(&JsValue::NULL, &(g as f64).into())
                .map_err(|e| file_error(&e, &format!("segment {g}"), "read"))?;
            if v.is_undefined() || v.is_null() {
                return Ok(None);
            }
            let bytes: Uint8Array = v.dyn_into().map_err(|_| {
                Error::Internal(format!("read_segment({g}) did not return a Uint8Array"))
            })?;
            Ok(Some(bytes.to_vec()))
        };
        let d = LocalDurable::open(store, cfg, &mut read).map_err(err)?;
        Ok(CoreDurable { inner: Some(d) })
    }

    /// The generations of the sealed segments the manifest names, ascending: any other segment
    /// file of the directory is an orphan (a seal interrupted by a crash, a compaction's inputs).
    #[wasm_bindgen(js_name = liveSegments)]
    pub fn live_segments(&self) -> Result<Vec<f64>, JsValue> {
        Ok(self
            .driver()?
            .live_segments()
            .into_iter()
            .map(|g| g as f64)
            .collect())
    }

    /// Store commits since open (one flush each).
    #[wasm_bindgen(getter)]
    pub fn commits(&self) -> Result<f64, JsValue> {
        Ok(self.driver()?.commits() as f64)
    }

    /// The mutable segment's bound (2 × `maxMutableRecords`).
    #[wasm_bindgen(getter, js_name = mutableBound)]
    pub fn mutable_bound(&self) -> Result<f64, JsValue> {
        Ok(self.driver()?.mutable_bound() as f64)
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

    /// Inserts records, durably (flushed before this returns); the number written.
    pub fn add(
        &mut self,
        ids: JsValue,
        vectors: &Float32Array,
        metadata: Option<Array>,
    ) -> Result<u32, JsValue> {
        self.put(WriteKind::Add, ids, vectors, metadata, "add")
    }

    /// Inserts or replaces records, durably; the number written.
    pub fn upsert(
        &mut self,
        ids: JsValue,
        vectors: &Float32Array,
        metadata: Option<Array>,
    ) -> Result<u32, JsValue> {
        self.put(WriteKind::Upsert, ids, vectors, metadata, "upsert")
    }

    /// Deletes records, durably; the number deleted.
    pub fn delete(&mut self, ids: JsValue) -> Result<u32, JsValue> {
        let ids = reads::delete_ids(&ids)?;
        let req = WriteRequest::Delete { ids };
        Ok(self.driver_mut()?.write(req).map_err(err)? as u32)
    }

    /// Deletes every record the filter (JSON text) matches, durably; the number deleted.
    #[wasm_bindgen(js_name = deleteWhere)]
    pub fn delete_where(&mut self, filter: JsValue) -> Result<u32, JsValue> {
        let filter = reads::delete_filter(&filter)?;
        let req = WriteRequest::DeleteWhere { filter };
        Ok(self.driver_mut()?.write(req).map_err(err)? as u32)
    }

    /// As `CoreCollection.count`.
    pub fn count(&self, filter: JsValue) -> Result<f64, JsValue> {
        reads::count(self.col()?, &filter)
    }

    /// As `CoreCollection.list`.
    pub fn list(
        &self,
        filter: JsValue,
        limit: Option<f64>,
        cursor: JsValue,
        include_vectors: bool,
    ) -> Result<JsValue, JsValue> {
        reads::list(self.col()?, &filter, limit, &cursor, include_vectors)
    }

    /// As `CoreCollection.get`.
    pub fn get(&self, id: JsValue) -> Result<JsValue, JsValue> {
        reads::get(self.col()?, &id)
    }

    /// As `CoreCollection.search`.
    pub fn search(&self, query: &Float32Array, options: JsValue) -> Result<JsValue, JsValue> {
        reads::search(self.col()?, query, &options)
    }

    /// As `CoreCollection.searchBatch`.
    #[wasm_bindgen(js_name = searchBatch)]
    pub fn search_batch(&self, queries: &Float32Array, options: JsValue) -> Result<Array, JsValue> {
        reads::search_batch(self.col()?, queries, &options)
    }

    /// Asks for a seal (`seal`) or a compaction of every segment; the next `startJob` starts it.
    pub fn ask(&mut self, seal: bool) -> Result<(), JsValue> {
        let d = self.driver_mut()?;
        if seal {
            d.ask_seal();
        } else {
            d.ask_compact();
        }
        Ok(())
    }

    /// Runs what the segment policy asks for now (on this thread); when that is a seal or a
    /// compaction, builds it and returns `{ generation: number | null, bytes: Uint8Array, seal:
    /// boolean }`: write and flush `bytes` as the file of `generation` (none when `null`), then
    /// call `installJob` (or `abortJob` if the file could not be written). `undefined`: nothing
    /// to do.
    #[wasm_bindgen(js_name = startJob)]
    pub fn start_job(&mut self) -> Result<JsValue, JsValue> {
        let Some(job) = self.driver_mut()?.start_job().map_err(err)? else {
            return Ok(JsValue::UNDEFINED);
        };
        let o = Object::new();
        let generation = job.generation.map_or(JsValue::NULL, |g| (g as f64).into());
        let _ = Reflect::set(&o, &"generation".into(), &generation);
        let _ = Reflect::set(&o, &"bytes".into(), &Uint8Array::from(job.bytes).into());
        let _ = Reflect::set(&o, &"seal".into(), &job.seal.into());
        Ok(o.into())
    }

    /// Installs the job `startJob` returned, once its file is flushed: `{ seal, count, removed:
    /// number[] }` (records sealed or segments merged; generations whose files to remove).
    #[wasm_bindgen(js_name = installJob)]
    pub fn install_job(&mut self) -> Result<JsValue, JsValue> {
        let s = self.driver_mut()?.install().map_err(err)?;
        let o = Object::new();
        let removed: Array = s.removed.iter().map(|&g| JsValue::from(g as f64)).collect();
        let _ = Reflect::set(&o, &"seal".into(), &s.seal.into());
        let _ = Reflect::set(&o, &"count".into(), &(s.count as f64).into());
        let _ = Reflect::set(&o, &"removed".into(), &removed.into());
        Ok(o.into())
    }

    /// Abandons the job `startJob` returned (its file could not be written).
    #[wasm_bindgen(js_name = abortJob)]
    pub fn abort_job(&mut self) -> Result<(), JsValue> {
        self.driver_mut()?.abort();
        Ok(())
    }

    /// Releases the collection (the JS layer then closes the file handles); later calls fail
    /// with `HV_CLOSED`. Closing twice is allowed.
    pub fn close(&mut self) {
        self.inner = None;
    }
}
