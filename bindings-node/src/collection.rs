//! `CoreCollection`: the napi class over `horosvec_core::Collection`. The core value sits in an
//! `Arc<RwLock<Option<…>>>`: worker-thread tasks clone the `Arc`; `close()` takes the value out,
//! after which every call fails with `HV_CLOSED`. Searches take the read lock (many at once);
//! writes take the write lock.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use horosvec_core::durable::{DurableCollection, Reply, WriteRequest};
use horosvec_core::filter::Filter;
use horosvec_core::store::{Durability, SqliteStore};
use horosvec_core::AlignedBuf;
use horosvec_core::{
    args, Collection, Error, IndexParams, Metric, Precision, SearchOptions, WriteKind,
};
use napi::bindgen_prelude::{
    AsyncTask, Buffer, Float32Array, ToNapiValue, TypeName, Uint32Array, Uint8Array,
};
use napi::bindgen_prelude::{Object, Unknown};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Status, Task};
use napi_derive::napi;

use crate::convert::{
    exported_out, filter_counts_out, hits_out, id_in, ids_in, report_out, JsId, JsIds,
    RawExportedGraph, RawHits, RawImportReport, RawRecord, RawSegmentOptions, RawSettled, RawStats,
};
use crate::error::{guard, to_napi};

type Shared = Arc<RwLock<Option<Collection>>>;

/// `HV_INVALID_ARGUMENT` for a `refreshIntervalMs` outside 0..=86,400,000 (the JS layer checks
/// it first; this guards direct callers of the raw binding).
fn bad_interval(ms: f64) -> Error {
    Error::invalid_argument(format!(
        "refreshIntervalMs must be a number of milliseconds in 0..=86400000, got {ms}"
    ))
}

/// A loaded collection as a handle.
fn loaded(c: horosvec_core::Result<Collection>) -> horosvec_core::Result<CoreCollection> {
    let c = c?;
    let n = c.len();
    Ok(CoreCollection::from_parts(
        Arc::new(RwLock::new(Some(c))),
        n,
        None,
    ))
}

pub(crate) fn read<T>(
    s: &Shared,
    f: impl FnOnce(&Collection) -> horosvec_core::Result<T>,
) -> horosvec_core::Result<T> {
    let g = s
        .read()
        .map_err(|_| Error::Internal("lock poisoned".into()))?;
    f(g.as_ref().ok_or(Error::Closed)?)
}

pub(crate) fn write<T>(
    s: &Shared,
    f: impl FnOnce(&mut Collection) -> horosvec_core::Result<T>,
) -> horosvec_core::Result<T> {
    let mut g = s
        .write()
        .map_err(|_| Error::Internal("lock poisoned".into()))?;
    f(g.as_mut().ok_or(Error::Closed)?)
}

/// A unit of work run on a libuv worker thread; its result resolves the returned Promise.
pub struct Job<T: Send + 'static> {
    work: Option<Box<dyn FnOnce() -> horosvec_core::Result<T> + Send>>,
}

impl<T: Send + ToNapiValue + TypeName + 'static> Job<T> {
    pub(crate) fn new(
        f: impl FnOnce() -> horosvec_core::Result<T> + Send + 'static,
    ) -> AsyncTask<Job<T>> {
        AsyncTask::new(Job {
            work: Some(Box::new(f)),
        })
    }
}

impl<T: Send + ToNapiValue + TypeName + 'static> Task for Job<T> {
    type Output = T;
    type JsValue = T;

    fn compute(&mut self) -> napi::Result<T> {
        let work = self
            .work
            .take()
            .ok_or_else(|| to_napi(Error::Internal("task ran twice".into())))?;
        guard(work)
    }

    fn resolve(&mut self, _env: Env, output: T) -> napi::Result<T> {
        Ok(output)
    }
}

/// Answers of ticketed writes waiting for the next settler call: (ticket, result).
type Settled = Arc<Mutex<Vec<(u32, horosvec_core::Result<usize>)>>>;

/// An in-memory collection (raw binding; the public API is the JS `Collection` in `npm/lib`).
#[napi]
pub struct CoreCollection {
    pub(crate) inner: Shared,
    /// Record count mirrored after every write, so `size` never waits for a running write.
    pub(crate) size: Arc<AtomicUsize>,
    closed: Arc<AtomicBool>,
    /// Progress (done, total) of the running index build, read by `buildProgress()`.
    build_done: Arc<AtomicUsize>,
    build_total: Arc<AtomicUsize>,
    /// Set by `cancelBuild()`; checked by the build between batches.
    cancel: Arc<AtomicBool>,
    /// Set for a collection opened from a directory: writes go through its committer.
    pub(crate) durable: Option<Arc<DurableCollection>>,
    /// Ticketed durable writes (`submitTicket`): answers buffered by the committer, delivered to
    /// the JS settler in one call per group (`setSettler`).
    settled: Settled,
    next_ticket: Arc<AtomicU32>,
}

/// Options of an index build (each optional; see `horosvec_core::IndexParams`).
#[napi(object)]
pub struct RawIndexParams {
    /// R: maximum out-degree of the graph (1..=4096; default 32).
    pub r: Option<f64>,
    /// L: list size of the greedy searches during the build (1..=100,000; default 64).
    pub l: Option<f64>,
    /// α of RobustPrune (1..=4; default 1.1).
    pub alpha: Option<f64>,
    /// Build passes (1..=8; default 1).
    pub passes: Option<f64>,
    /// Bits per dimension of the RaBitQ codes (1..=8; default: chosen by dimension).
    pub bits: Option<f64>,
    /// Seed of everything random in the build (a safe integer).
    pub seed: Option<f64>,
}

/// Options of one search.
#[napi(object)]
pub struct RawSearchOptions {
    /// Number of nearest records to return (a positive integer).
    pub k: f64,
    /// Return each hit's metadata JSON text.
    pub include_metadata: bool,
    /// ef of the graph search (list size; default 64, raised to k); ignored without an index.
    pub ef: Option<f64>,
    /// Candidates offered to the exact rerank; ignored without an index.
    pub rerank: Option<f64>,
    /// `true`: exact flat scan even with an index; `false`: the index whenever one exists;
    /// unset: the index from 2,000 live records on (see `horosvec_core::SearchOptions::exact`).
    pub exact: Option<bool>,
    /// The filter over metadata, as JSON text (`horosvec_core::filter::Filter::parse`).
    pub filter: Option<String>,
    /// Allow-list of record ids, as JSON array text (numbers: numeric ids; strings: string ids).
    pub ids: Option<String>,
}

/// A durable write request from the raw arguments (copied here, on the JS thread).
fn build_request(
    kind: &str,
    ids: JsIds,
    vectors: Option<Float32Array>,
    metadata: Option<Vec<Option<String>>>,
    filter: Option<String>,
) -> horosvec_core::Result<WriteRequest> {
    if kind == "deleteWhere" {
        let text = filter.ok_or_else(|| Error::invalid_argument("deleteWhere needs a filter"))?;
        return Ok(WriteRequest::DeleteWhere {
            filter: Filter::parse(&text)?,
        });
    }
    let ids = ids_in(ids)?;
    match kind {
        "delete" => Ok(WriteRequest::Delete { ids }),
        put => Ok(WriteRequest::Put {
            kind: args::write_kind(put)?,
            ids,
            vectors: vectors.map(|v| v.to_vec()).unwrap_or_default(),
            metadata,
        }),
    }
}

fn search_opts(o: &RawSearchOptions) -> horosvec_core::Result<SearchOptions> {
    args::search_options(&args::SearchArgs {
        k: Some(o.k),
        include_metadata: Some(o.include_metadata),
        ef: o.ef,
        rerank: o.rerank,
        exact: o.exact,
        filter: o.filter.clone(),
        ids: o.ids.clone(),
    })
}

impl RawIndexParams {
    /// The build parameters (checked by `horosvec_core::args::index_params`).
    fn params(&self) -> horosvec_core::Result<IndexParams> {
        args::index_params(&args::IndexArgs {
            r: self.r,
            l: self.l,
            alpha: self.alpha,
            passes: self.passes,
            bits: self.bits,
            seed: self.seed,
        })
    }
}

impl CoreCollection {
    fn from_parts(
        inner: Shared,
        size: usize,
        durable: Option<Arc<DurableCollection>>,
    ) -> CoreCollection {
        CoreCollection {
            inner,
            size: Arc::new(AtomicUsize::new(size)),
            closed: Arc::new(AtomicBool::new(false)),
            build_done: Arc::new(AtomicUsize::new(0)),
            build_total: Arc::new(AtomicUsize::new(0)),
            cancel: Arc::new(AtomicBool::new(false)),
            durable,
            settled: Arc::new(Mutex::new(Vec::new())),
            next_ticket: Arc::new(AtomicU32::new(1)),
        }
    }

    /// A write: inputs are converted and copied here, on the JS thread (the caller's buffers are
    /// free again when the call returns); validation runs on a worker under the read lock, and
    /// only the final commit takes the write lock, so searches are held up as little as possible.
    fn segment_op<'env>(
        &self,
        env: &'env Env,
        op: impl FnOnce(&DurableCollection, Reply),
    ) -> napi::Result<Object<'env>> {
        let (deferred, promise) = env.create_deferred()?;
        let Some(d) = self.durable.clone() else {
            return Err(to_napi(Error::invalid_argument(
                "seal and compact need a collection opened from a directory",
            )));
        };
        if self.closed.load(Ordering::Acquire) {
            return Err(to_napi(Error::Closed));
        }
        let s = self.inner.clone();
        let size = self.size.clone();
        op(
            &d,
            Box::new(move |r| match r {
                Ok(n) => {
                    if let Ok(g) = s.read() {
                        if let Some(c) = g.as_ref() {
                            size.store(c.len(), Ordering::Release);
                        }
                    }
                    deferred.resolve(move |_| Ok(n as u32));
                }
                Err(e) => deferred.reject(to_napi(e)),
            }),
        );
        Ok(promise)
    }

    fn write_job(
        &self,
        kind: WriteKind,
        ids: JsIds,
        vectors: Float32Array,
        metadata: Option<Vec<Option<String>>>,
    ) -> AsyncTask<Job<()>> {
        if self.durable.is_some() {
            // the JS layer sends durable writes to `submit`
            return Job::new(|| Err(Error::Internal("durable collection: use submit".into())));
        }
        let s = self.inner.clone();
        let size = self.size.clone();
        let ids = ids_in(ids);
        let vectors = vectors.to_vec();
        Job::new(move || {
            let prepared = read(&s, |c| c.prepare(kind, ids?, vectors, metadata))?;
            write(&s, |c| {
                c.commit(prepared)?;
                size.store(c.len(), Ordering::Release);
                Ok(())
            })
        })
    }
}

#[napi]
impl CoreCollection {
    /// A new empty collection. `dim`: integer 1..=65536; `metric`: "l2" | "cosine" | "ip" | "l1";
    /// `vectors`: "f32" (default) | "f16" (row storage, `horosvec_core::Precision`).
    #[napi(factory, catch_unwind)]
    pub fn create(
        dim: f64,
        metric: String,
        vectors: Option<String>,
    ) -> napi::Result<CoreCollection> {
        let c = guard(|| {
            let precision = match vectors.as_deref() {
                None => Precision::F32,
                Some(v) => Precision::parse(v)?,
            };
            Collection::with_precision(args::dim(dim)?, Metric::parse(&metric)?, precision)
        })?;
        Ok(CoreCollection::from_parts(
            Arc::new(RwLock::new(Some(c))),
            0,
            None,
        ))
    }

    /// Opens (or creates) the durable collection in directory `path` on a worker thread: loads
    /// its records and starts its committer. `dim`/`metric` are required to create and must match
    /// when given for an existing one; `durability`: "full" | "normal" | "off"; `segments`: the
    /// sealing options and the row precision (`vectors`).
    #[napi(catch_unwind, ts_return_type = "Promise<CoreCollection>")]
    pub fn open_async(
        path: String,
        dim: Option<f64>,
        metric: Option<String>,
        durability: String,
        read_only: bool,
        segments: Option<RawSegmentOptions>,
        refresh_interval_ms: Option<f64>,
    ) -> AsyncTask<Job<CoreCollection>> {
        Job::new(move || {
            let interval = match refresh_interval_ms {
                None => std::time::Duration::from_millis(100),
                Some(ms) if ms.is_finite() && (0.0..=86_400_000.0).contains(&ms) => {
                    std::time::Duration::from_micros((ms * 1000.0) as u64)
                }
                Some(ms) => return Err(bad_interval(ms)),
            };
            let o = segments.as_ref();
            let cfg = args::segment_config(&args::SegmentArgs {
                max_mutable_records: o.and_then(|o| o.max_mutable_records),
                max_sealed_segments: o.and_then(|o| o.max_sealed_segments),
                max_tombstone_ratio: o.and_then(|o| o.max_tombstone_ratio),
                verify: o.and_then(|o| o.verify),
            })?;
            let dim = dim.map(args::dim).transpose()?;
            let metric = metric.as_deref().map(Metric::parse).transpose()?;
            let durability = Durability::parse(&durability)?;
            let vectors = o
                .and_then(|o| o.vectors.as_deref())
                .map(Precision::parse)
                .transpose()?;
            if path.is_empty() {
                return Err(Error::invalid_argument(
                    "path must be a non-empty directory path",
                ));
            }
            let store = SqliteStore::open_with(
                std::path::Path::new(&path),
                (dim, metric, vectors),
                durability,
                read_only,
            )?;
            let d = DurableCollection::open(
                store,
                read_only,
                Some(std::path::PathBuf::from(&path)),
                cfg,
            )?;
            if read_only {
                d.follow(interval)?;
            }
            let shared = d.shared().clone();
            let size = read(&shared, |c| Ok(c.len()))?;
            Ok(CoreCollection::from_parts(shared, size, Some(Arc::new(d))))
        })
    }

    /// A versioned binary snapshot (records and index graph), made on a worker thread.
    #[napi(catch_unwind, ts_return_type = "Promise<Buffer>")]
    pub fn to_bytes_async(&self) -> AsyncTask<Job<Buffer>> {
        let s = self.inner.clone();
        Job::new(move || write(&s, |c| c.to_bytes()).map(Buffer::from))
    }

    /// Loads a snapshot on a worker thread: the bytes are copied once, on the calling thread,
    /// into a 64-byte aligned buffer that a version-5 snapshot is then read from in place.
    #[napi(catch_unwind, ts_return_type = "Promise<CoreCollection>")]
    pub fn from_bytes_async(bytes: Uint8Array) -> AsyncTask<Job<CoreCollection>> {
        let buf = AlignedBuf::try_from_bytes(&bytes);
        Job::new(move || loaded(Collection::from_backing(Arc::new(buf?))))
    }

    /// Loads the snapshot file at `path` on a worker thread (read once into an aligned buffer:
    /// no JS copy of the bytes).
    #[napi(catch_unwind, ts_return_type = "Promise<CoreCollection>")]
    pub fn from_file_async(path: String) -> AsyncTask<Job<CoreCollection>> {
        Job::new(move || {
            if path.is_empty() {
                return Err(Error::invalid_argument(
                    "path must be a non-empty file path",
                ));
            }
            loaded(Collection::from_file(std::path::Path::new(&path)))
        })
    }

    /// Installs an index from an external graph (`n × degree` u32 adjacency, 0xFFFFFFFF padding;
    /// node i = the i-th record in insertion order), on a worker thread. Inputs are copied first.
    #[napi(catch_unwind, ts_return_type = "Promise<RawImportReport>")]
    pub fn import_graph_async(
        &self,
        adjacency: Uint32Array,
        degree: f64,
        entry: Option<f64>,
        params: RawIndexParams,
    ) -> AsyncTask<Job<RawImportReport>> {
        let s = self.inner.clone();
        let adjacency = adjacency.to_vec();
        Job::new(move || {
            let p = params.params()?;
            let degree = args::graph_degree(degree)?;
            let entry = entry.map(args::graph_entry).transpose()?;
            write(&s, |c| c.import_graph(&adjacency, degree, entry, p)).map(report_out)
        })
    }

    /// The index graph as a padded adjacency over the records in insertion order, on a worker thread.
    #[napi(catch_unwind, ts_return_type = "Promise<RawExportedGraph>")]
    pub fn export_graph_async(&self) -> AsyncTask<Job<RawExportedGraph>> {
        let s = self.inner.clone();
        Job::new(move || write(&s, |c| c.export_graph()).map(exported_out))
    }

    /// Seals the mutable segment (after the writes queued before the call); resolves to the
    /// number of records sealed once the segment is durable and searched.
    #[napi(catch_unwind, ts_return_type = "Promise<number>")]
    pub fn seal<'env>(&self, env: &'env Env) -> napi::Result<Object<'env>> {
        self.segment_op(env, |d, r| d.seal(r))
    }

    /// Merges the sealed segments (dropping tombstoned rows); resolves to the number merged.
    #[napi(catch_unwind, ts_return_type = "Promise<number>")]
    pub fn compact<'env>(&self, env: &'env Env) -> napi::Result<Object<'env>> {
        self.segment_op(env, |d, r| d.compact(r))
    }

    /// Installs the settler of ticketed writes: `settler(batch)` is called on the JS thread once
    /// per committed group with every answer of the group (`ok`: ticket, count pairs; `failed`
    /// tickets with their `errors`, "HV_CODE: message"). One call per group instead of one
    /// promise settlement per write: what makes many concurrent small writes cheap. The settler
    /// does not keep the event loop alive (the JS side does while tickets are pending).
    #[napi(catch_unwind)]
    pub fn set_settler(
        &self,
        settler: ThreadsafeFunction<RawSettled, Unknown<'static>, RawSettled, Status, false, true>,
    ) -> napi::Result<()> {
        let Some(d) = self.durable.clone() else {
            return Err(to_napi(Error::invalid_argument(
                "setSettler needs a collection opened from a directory",
            )));
        };
        let buf = self.settled.clone();
        d.set_group_hook(Box::new(move || {
            let items = match buf.lock() {
                Ok(mut b) => std::mem::take(&mut *b),
                Err(_) => return,
            };
            if items.is_empty() {
                return;
            }
            let mut out = RawSettled {
                ok: Vec::with_capacity(items.len() * 2),
                failed: Vec::new(),
                errors: Vec::new(),
            };
            for (t, r) in items {
                match r {
                    Ok(n) => {
                        out.ok.push(f64::from(t));
                        out.ok.push(n as f64);
                    }
                    Err(e) => {
                        out.failed.push(f64::from(t));
                        out.errors.push(format!("{}: {}", e.code().as_str(), e));
                    }
                }
            }
            settler.call(out, ThreadsafeFunctionCallMode::NonBlocking);
        }));
        Ok(())
    }

    /// The durable collection behind this handle, for a write: `HV_INVALID_ARGUMENT` naming
    /// `what` when the collection is in memory, `HV_CLOSED` after close, `HV_READ_ONLY` for a
    /// read-only open.
    fn writable_durable(&self, what: &str) -> napi::Result<Arc<DurableCollection>> {
        let Some(d) = self.durable.clone() else {
            return Err(to_napi(Error::invalid_argument(format!(
                "{what} needs a collection opened from a directory"
            ))));
        };
        if self.closed.load(Ordering::Acquire) {
            return Err(to_napi(Error::Closed));
        }
        if d.read_only() {
            return Err(to_napi(Error::ReadOnly));
        }
        Ok(d)
    }

    /// A durable write answered through the settler: `kind` "add" | "upsert" | "delete" |
    /// "deleteWhere" (then `ids` is empty and `filter` the filter's JSON text; the answer is the
    /// number deleted). Returns the write's ticket at once (inputs copied, request queued in call
    /// order); its answer comes with the settler call of its group. Throws when the write cannot
    /// be queued (bad input, closed, read-only).
    #[napi(catch_unwind)]
    pub fn submit_ticket(
        &self,
        kind: String,
        ids: JsIds,
        vectors: Option<Float32Array>,
        metadata: Option<Vec<Option<String>>>,
        filter: Option<String>,
    ) -> napi::Result<u32> {
        let d = self.writable_durable("submitTicket")?;
        let req = build_request(&kind, ids, vectors, metadata, filter).map_err(to_napi)?;
        self.queue_ticket(&d, req)
    }

    /// As `submitTicket`, but when the committer is idle the write is committed on this thread
    /// at once (`DurableCollection::submit_now`: no thread hop either way; the call then returns
    /// once the write is durable). Returns −n (n ≥ 0: the records written or deleted) when it was
    /// committed now, or its ticket (≥ 1) when it was queued instead. Throws as `submitTicket`,
    /// and with the write's own error (its validation codes, `HV_IO` of a failed commit) when
    /// it was committed now.
    #[napi(catch_unwind)]
    pub fn submit_now(
        &self,
        kind: String,
        ids: JsIds,
        vectors: Option<Float32Array>,
        metadata: Option<Vec<Option<String>>>,
        filter: Option<String>,
    ) -> napi::Result<i64> {
        let d = self.writable_durable("submitNow")?;
        let req = build_request(&kind, ids, vectors, metadata, filter).map_err(to_napi)?;
        match d.submit_now(req) {
            Ok(Ok(n)) => {
                if let Ok(g) = self.inner.read() {
                    if let Some(c) = g.as_ref() {
                        self.size.store(c.len(), Ordering::Release);
                    }
                }
                Ok(-(n as i64))
            }
            Ok(Err(e)) => Err(to_napi(e)),
            Err(req) => self.queue_ticket(&d, req).map(i64::from),
        }
    }
}

impl CoreCollection {
    /// Queues `req` with a new ticket (see `submitTicket`).
    fn queue_ticket(&self, d: &DurableCollection, req: WriteRequest) -> napi::Result<u32> {
        let ticket = self.next_ticket.fetch_add(1, Ordering::Relaxed);
        let (buf, s, size) = (self.settled.clone(), self.inner.clone(), self.size.clone());
        let caller = std::thread::current().id();
        // an answer given at once, on this thread (the committer is gone), is thrown instead
        let early: Arc<Mutex<Option<horosvec_core::Result<usize>>>> = Arc::new(Mutex::new(None));
        let early_in = early.clone();
        d.submit(
            req,
            Box::new(move |r| {
                if std::thread::current().id() == caller {
                    if let Ok(mut e) = early_in.lock() {
                        *e = Some(r);
                    }
                    return;
                }
                if r.is_ok() {
                    if let Ok(g) = s.read() {
                        if let Some(c) = g.as_ref() {
                            size.store(c.len(), Ordering::Release);
                        }
                    }
                }
                if let Ok(mut b) = buf.lock() {
                    b.push((ticket, r));
                }
            }),
        );
        let answered = early.lock().ok().and_then(|mut e| e.take());
        match answered {
            Some(Err(e)) => Err(to_napi(e)),
            Some(Ok(_)) => Err(to_napi(Error::Internal(
                "a durable write was answered before it was queued".into(),
            ))),
            None => Ok(ticket),
        }
    }
}

#[napi]
impl CoreCollection {
    /// True for a collection opened from a directory.
    #[napi(getter)]
    pub fn durable(&self) -> bool {
        self.durable.is_some()
    }

    /// A read-only durable view: reloads it on a worker thread when the writer committed since
    /// its last load (one consistent read: never part of a group); true when it loaded something
    /// new. False for a writer or an in-memory collection.
    #[napi(catch_unwind, ts_return_type = "Promise<boolean>")]
    pub fn refresh_async(&self) -> AsyncTask<Job<bool>> {
        let closed = self.closed.clone();
        let d = self.durable.clone();
        let s = self.inner.clone();
        let size = self.size.clone();
        Job::new(move || {
            if closed.load(Ordering::Acquire) {
                return Err(Error::Closed);
            }
            let Some(d) = d else { return Ok(false) };
            let changed = d.refresh()?;
            if changed {
                if let Some(c) = s.read().ok().as_ref().and_then(|g| g.as_ref()) {
                    size.store(c.len(), Ordering::Release);
                }
            }
            Ok(changed)
        })
    }

    /// Read-only durable views: reloads done since open, by `refresh` or the poller.
    #[napi(getter)]
    pub fn refreshes(&self) -> f64 {
        self.durable.as_ref().map_or(0.0, |d| {
            d.follow_stats().refreshes.load(Ordering::Relaxed) as f64
        })
    }

    /// Read-only durable views: the last reload's duration in milliseconds (0 before any).
    #[napi(getter)]
    pub fn last_refresh_ms(&self) -> f64 {
        self.durable.as_ref().map_or(0.0, |d| {
            d.follow_stats().last_refresh_us.load(Ordering::Relaxed) as f64 / 1000.0
        })
    }

    /// Durable collections: transactions committed since open (0 otherwise).
    #[napi(getter)]
    pub fn commits(&self) -> f64 {
        self.durable.as_ref().map_or(0.0, |d| d.commits() as f64)
    }

    /// Durable collections: most records the mutable segment holds; a write past it waits for a
    /// seal (backpressure). 0 otherwise.
    #[napi(getter)]
    pub fn mutable_bound(&self) -> f64 {
        self.durable
            .as_ref()
            .map_or(0.0, |d| d.mutable_bound() as f64)
    }

    /// Number of records (throws `HV_CLOSED` after close).
    #[napi(getter, catch_unwind)]
    pub fn size(&self) -> napi::Result<f64> {
        if self.closed.load(Ordering::Acquire) {
            return Err(to_napi(Error::Closed));
        }
        if self.durable.as_ref().is_some_and(|d| d.read_only()) {
            // a following view changes under its poller: read the collection itself (the read
            // lock waits only for a refresh's swap)
            return read(&self.inner, |c| Ok(c.len() as f64)).map_err(to_napi);
        }
        Ok(self.size.load(Ordering::Acquire) as f64)
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
                    vectors: s.vectors.name().into(),
                    mode: s.mode,
                    vector_bytes: s.vector_bytes as f64,
                    index_bytes_per_vector: s.index_bytes_per_vector,
                    tombstones: s.tombstones as f64,
                    mutable_records: s.mutable_records as f64,
                    sealed_segments: s.sealed_segments as f64,
                    mutable_indexed: s.mutable_indexed as f64,
                    warming_segments: s.warming_segments as f64,
                    filtered: filter_counts_out(s.filtered),
                })
            })
        })
    }

    /// Inserts records on a worker thread. `vectors`: `n × dim` row-major. Ids and vectors are
    /// copied on the calling thread first, so the caller may reuse, change or transfer its
    /// buffers as soon as the call returns.
    #[napi(catch_unwind, ts_return_type = "Promise<void>")]
    pub fn add_async(
        &self,
        ids: JsIds,
        vectors: Float32Array,
        metadata: Option<Vec<Option<String>>>,
    ) -> AsyncTask<Job<()>> {
        self.write_job(WriteKind::Add, ids, vectors, metadata)
    }

    /// Inserts or replaces records on a worker thread (inputs copied as for `addAsync`).
    #[napi(catch_unwind, ts_return_type = "Promise<void>")]
    pub fn upsert_async(
        &self,
        ids: JsIds,
        vectors: Float32Array,
        metadata: Option<Vec<Option<String>>>,
    ) -> AsyncTask<Job<()>> {
        self.write_job(WriteKind::Upsert, ids, vectors, metadata)
    }

    /// Deletes records on a worker thread; resolves to the number deleted.
    #[napi(catch_unwind, ts_return_type = "Promise<number>")]
    pub fn delete_async(&self, ids: JsIds) -> AsyncTask<Job<u32>> {
        if self.durable.is_some() {
            // the JS layer sends durable deletes to `submit`, like the other writes
            return Job::new(|| Err(Error::Internal("durable collection: use submit".into())));
        }
        let s = self.inner.clone();
        let size = self.size.clone();
        let ids = ids_in(ids);
        Job::new(move || {
            let ids = ids?;
            write(&s, |c| {
                let n = c.delete(&ids) as u32;
                size.store(c.len(), Ordering::Release);
                Ok(n)
            })
        })
    }

    /// The record of `id`, or undefined.
    #[napi(catch_unwind)]
    pub fn get(&self, id: JsId) -> napi::Result<Option<RawRecord>> {
        guard(|| {
            let id = id_in(id)?;
            read(&self.inner, |c| {
                Ok(c.get(&id)?.map(|(v, m)| RawRecord {
                    vector: Float32Array::new(v.to_vec()),
                    metadata: m,
                }))
            })
        })
    }

    /// Search for one query, on the calling thread: exact, or through the index when there is
    /// one (see `exact`; `horosvec_core::Collection::search`).
    #[napi(catch_unwind)]
    pub fn search(&self, query: Float32Array, options: RawSearchOptions) -> napi::Result<RawHits> {
        guard(|| {
            let opts = search_opts(&options)?;
            read(&self.inner, |c| c.search(&query, &opts)).map(hits_out)
        })
    }

    /// Search for one query on a worker thread: exact, or through the index when there is one
    /// (see `exact`; `horosvec_core::Collection::search`).
    #[napi(catch_unwind, ts_return_type = "Promise<RawHits>")]
    pub fn search_async(
        &self,
        query: Float32Array,
        options: RawSearchOptions,
    ) -> AsyncTask<Job<RawHits>> {
        let s = self.inner.clone();
        let query = query.to_vec();
        Job::new(move || {
            let opts = search_opts(&options)?;
            read(&s, |c| c.search(&query, &opts)).map(hits_out)
        })
    }

    /// Search for `n` queries (`n × dim` row-major) on a worker thread and the rayon pool:
    /// exact, or through the index when there is one (see `exact`;
    /// `horosvec_core::Collection::search_batch`).
    #[napi(catch_unwind, ts_return_type = "Promise<RawHits[]>")]
    pub fn search_batch_async(
        &self,
        queries: Float32Array,
        options: RawSearchOptions,
    ) -> AsyncTask<Job<Vec<RawHits>>> {
        let s = self.inner.clone();
        let queries = queries.to_vec();
        Job::new(move || {
            let opts = search_opts(&options)?;
            read(&s, |c| c.search_batch(&queries, &opts))
                .map(|r| r.into_iter().map(hits_out).collect())
        })
    }

    /// Builds the approximate index on a worker thread (the graph build itself runs on the rayon
    /// pool). Searches go on meanwhile; the JS layer queues writes behind it.
    #[napi(catch_unwind, ts_return_type = "Promise<void>")]
    pub fn build_index_async(&self, params: RawIndexParams) -> AsyncTask<Job<()>> {
        let s = self.inner.clone();
        let (done, total, cancel) = (
            self.build_done.clone(),
            self.build_total.clone(),
            self.cancel.clone(),
        );
        cancel.store(false, Ordering::Release);
        done.store(0, Ordering::Release);
        total.store(0, Ordering::Release);
        Job::new(move || {
            let p = params.params()?;
            let progress = |d: usize, t: usize| {
                done.store(d, Ordering::Release);
                total.store(t, Ordering::Release);
            };
            // a loaded snapshot's sealed parts move into memory first (one graph over all)
            write(&s, Collection::unseal)?;
            let (ix, version) = read(&s, |c| c.build_index(p, &progress, &cancel))?;
            write(&s, |c| c.install_index(ix, version))
        })
    }

    /// `[done, total]` of the running (or last) index build.
    #[napi]
    pub fn build_progress(&self) -> Vec<f64> {
        vec![
            self.build_done.load(Ordering::Acquire) as f64,
            self.build_total.load(Ordering::Acquire) as f64,
        ]
    }

    /// Asks the running index build to stop (it then fails with `HV_CANCELLED`).
    #[napi]
    pub fn cancel_build(&self) {
        self.cancel.store(true, Ordering::Release);
    }

    /// Releases the collection; later calls fail with `HV_CLOSED`. Closing twice is allowed.
    #[napi(catch_unwind)]
    pub fn close(&self) -> napi::Result<()> {
        self.closed.store(true, Ordering::Release);
        if let Some(d) = &self.durable {
            // waits for queued writes to commit, stops the committer, releases the lock
            d.close();
        }
        let mut g = self
            .inner
            .write()
            .map_err(|_| to_napi(Error::Internal("lock poisoned".into())))?;
        g.take();
        Ok(())
    }
}
