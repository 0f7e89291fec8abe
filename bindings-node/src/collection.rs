//! `CoreCollection`: the napi class over `horosvec_core::Collection`. The core value sits in an
//! `Arc<RwLock<Option<…>>>`: worker-thread tasks clone the `Arc`; `close()` takes the value out,
//! after which every call fails with `HV_CLOSED`. Searches take the read lock (many at once);
//! writes take the write lock.

use std::sync::{Arc, RwLock};

use horosvec_core::{Collection, Error, Metric, SearchOptions};
use napi::bindgen_prelude::{AsyncTask, Float32Array, ToNapiValue, TypeName};
use napi::{Env, Task};
use napi_derive::napi;

use crate::convert::{hits_out, id_in, ids_in, JsId, JsIds, RawHits, RawRecord, RawStats};
use crate::error::{guard, to_napi};

type Shared = Arc<RwLock<Option<Collection>>>;

fn read<T>(s: &Shared, f: impl FnOnce(&Collection) -> horosvec_core::Result<T>) -> horosvec_core::Result<T> {
    let g = s.read().map_err(|_| Error::Internal("lock poisoned".into()))?;
    f(g.as_ref().ok_or(Error::Closed)?)
}

fn write<T>(s: &Shared, f: impl FnOnce(&mut Collection) -> horosvec_core::Result<T>) -> horosvec_core::Result<T> {
    let mut g = s.write().map_err(|_| Error::Internal("lock poisoned".into()))?;
    f(g.as_mut().ok_or(Error::Closed)?)
}

/// A unit of work run on a libuv worker thread; its result resolves the returned Promise.
pub struct Job<T: Send + 'static> {
    work: Option<Box<dyn FnOnce() -> horosvec_core::Result<T> + Send>>,
}

impl<T: Send + ToNapiValue + TypeName + 'static> Job<T> {
    fn new(f: impl FnOnce() -> horosvec_core::Result<T> + Send + 'static) -> AsyncTask<Job<T>> {
        AsyncTask::new(Job { work: Some(Box::new(f)) })
    }
}

impl<T: Send + ToNapiValue + TypeName + 'static> Task for Job<T> {
    type Output = T;
    type JsValue = T;

    fn compute(&mut self) -> napi::Result<T> {
        let work = self.work.take().ok_or_else(|| to_napi(Error::Internal("task ran twice".into())))?;
        guard(work)
    }

    fn resolve(&mut self, _env: Env, output: T) -> napi::Result<T> {
        Ok(output)
    }
}

fn metadata_in(m: Option<Vec<Option<String>>>) -> Option<Vec<Option<String>>> {
    m
}

/// An in-memory collection (raw binding; the public API is the JS `Collection` in `npm/lib`).
#[napi]
pub struct CoreCollection {
    inner: Shared,
}

#[napi]
impl CoreCollection {
    /// A new empty collection. `dim`: integer 1..=65536; `metric`: "l2" | "cosine" | "ip" | "l1".
    #[napi(factory, catch_unwind)]
    pub fn create(dim: f64, metric: String) -> napi::Result<CoreCollection> {
        let c = guard(|| Collection::new(horosvec_core::collection::parse_dim(dim)?, Metric::parse(&metric)?))?;
        Ok(CoreCollection { inner: Arc::new(RwLock::new(Some(c))) })
    }

    /// Number of records (throws `HV_CLOSED` after close).
    #[napi(getter, catch_unwind)]
    pub fn size(&self) -> napi::Result<f64> {
        guard(|| read(&self.inner, |c| Ok(c.len() as f64)))
    }

    /// Facts about the collection.
    #[napi(catch_unwind)]
    pub fn stats(&self) -> napi::Result<RawStats> {
        guard(|| {
            read(&self.inner, |c| {
                let s = c.stats();
                Ok(RawStats {
                    size: s.size as f64,
                    dim: s.dim as u32,
                    metric: s.metric.as_str().into(),
                    kernel: s.kernel.into(),
                    mode: s.mode.into(),
                    vector_bytes: s.vector_bytes as f64,
                })
            })
        })
    }

    /// Inserts records on a worker thread. `vectors`: `n × dim` row-major.
    #[napi(catch_unwind, ts_return_type = "Promise<void>")]
    pub fn add_async(&self, ids: JsIds, vectors: Float32Array, metadata: Option<Vec<Option<String>>>) -> AsyncTask<Job<()>> {
        let s = self.inner.clone();
        Job::new(move || {
            let ids = ids_in(ids)?;
            write(&s, |c| c.add(ids, &vectors, metadata_in(metadata)))
        })
    }

    /// Inserts or replaces records on a worker thread.
    #[napi(catch_unwind, ts_return_type = "Promise<void>")]
    pub fn upsert_async(&self, ids: JsIds, vectors: Float32Array, metadata: Option<Vec<Option<String>>>) -> AsyncTask<Job<()>> {
        let s = self.inner.clone();
        Job::new(move || {
            let ids = ids_in(ids)?;
            write(&s, |c| c.upsert(ids, &vectors, metadata_in(metadata)))
        })
    }

    /// Deletes records on a worker thread; resolves to the number deleted.
    #[napi(catch_unwind, ts_return_type = "Promise<number>")]
    pub fn delete_async(&self, ids: JsIds) -> AsyncTask<Job<u32>> {
        let s = self.inner.clone();
        Job::new(move || {
            let ids = ids_in(ids)?;
            write(&s, |c| Ok(c.delete(&ids) as u32))
        })
    }

    /// The record of `id`, or undefined.
    #[napi(catch_unwind)]
    pub fn get(&self, id: JsId) -> napi::Result<Option<RawRecord>> {
        guard(|| {
            let id = id_in(id)?;
            read(&self.inner, |c| {
                Ok(c.get(&id).map(|(v, m)| RawRecord { vector: Float32Array::new(v.to_vec()), metadata: m.map(str::to_owned) }))
            })
        })
    }

    /// Exact search for one query, on the calling thread.
    #[napi(catch_unwind)]
    pub fn search(&self, query: Float32Array, k: f64, include_metadata: bool) -> napi::Result<RawHits> {
        guard(|| {
            let mut opts = SearchOptions::from_f64(k)?;
            opts.include_metadata = include_metadata;
            read(&self.inner, |c| c.search(&query, &opts)).map(hits_out)
        })
    }

    /// Exact search for one query on a worker thread.
    #[napi(catch_unwind, ts_return_type = "Promise<RawHits>")]
    pub fn search_async(&self, query: Float32Array, k: f64, include_metadata: bool) -> AsyncTask<Job<RawHits>> {
        let s = self.inner.clone();
        Job::new(move || {
            let mut opts = SearchOptions::from_f64(k)?;
            opts.include_metadata = include_metadata;
            read(&s, |c| c.search(&query, &opts)).map(hits_out)
        })
    }

    /// Exact search for `n` queries (`n × dim` row-major) on a worker thread and the rayon pool.
    #[napi(catch_unwind, ts_return_type = "Promise<RawHits[]>")]
    pub fn search_batch_async(&self, queries: Float32Array, k: f64, include_metadata: bool) -> AsyncTask<Job<Vec<RawHits>>> {
        let s = self.inner.clone();
        Job::new(move || {
            let mut opts = SearchOptions::from_f64(k)?;
            opts.include_metadata = include_metadata;
            read(&s, |c| c.search_batch(&queries, &opts)).map(|r| r.into_iter().map(hits_out).collect())
        })
    }

    /// Releases the collection; later calls fail with `HV_CLOSED`. Closing twice is allowed.
    #[napi(catch_unwind)]
    pub fn close(&self) -> napi::Result<()> {
        let mut g = self.inner.write().map_err(|_| to_napi(Error::Internal("lock poisoned".into())))?;
        g.take();
        Ok(())
    }
}
