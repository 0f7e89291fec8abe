//! A collection whose writes are durable, with group commit (feature `durable`, native only).
//!
//! [`DurableCollection::open`] loads the records of a [`RecordStore`] into an in-memory
//! [`Collection`] shared behind a lock ([`SharedCollection`]), and starts one committer thread
//! that owns the store. Writers [`submit`](DurableCollection::submit) requests into a channel, in
//! call order, with a callback. The committer takes every request waiting in the channel as one
//! group and:
//!
//! 1. applies them in order to the in-memory collection under the write lock, each all or nothing
//!    (a request that fails validation, e.g. `HV_DUPLICATE_ID`, is answered at once and leaves no
//!    trace), recording the resulting mutations;
//! 2. releases the lock, so searches run while
//! 3. the store commits the whole group as one transaction with one sync (group commit: N
//!    concurrent writers pay for one sync, not N);
//! 4. answers every request of the group: success only now, after the sync.
//!
//! If the commit fails, the collection is reloaded from the store (which holds none of the
//! group) and every request of the group gets the error: an acknowledged write is always durable
//! and an unacknowledged group never reaches the store. The store's transaction is atomic, so a
//! crash at any moment leaves each request wholly present or wholly absent.
//!
//! Readers never wait for the sync (it happens outside the lock); a reader may observe a write
//! of the group being synced before the writer is told it is durable.
//!
//! # Sealed segments (seed-vector-database.md §2.4–2.8)
//!
//! The in-memory rows are the mutable segment. When it reaches
//! [`SegmentConfig::max_mutable_records`] (or on [`DurableCollection::seal`]), the committer
//! copies its rows and a background thread builds their Vamana index on the rayon pool, writes
//! the segment file, syncs it and renames it into place ([`crate::segment`]). Only then does the
//! committer, between two write groups, swap it in: under the write lock the copied records leave
//! the mutable segment (records written or deleted meanwhile start as tombstones in the new
//! segment), and one manifest transaction adds the segment, deletes the moved records and stores
//! those tombstones. A crash before that transaction leaves an orphan file, removed at the next
//! open; after it, the records are read from the segment.
//!
//! Compaction works the same way: when there are more than
//! [`SegmentConfig::max_sealed_segments`] (it merges the smallest), when a segment's tombstones
//! pass [`SegmentConfig::max_tombstone_ratio`] (it rewrites that one), or on
//! [`DurableCollection::compact`] (it merges all). Its memory is the live rows of the segments
//! it merges; the old files are removed after the manifest commit. Searches hold the read lock
//! only, so they run during builds and wait only for the short swaps.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;

use crate::ann::IndexParams;
use crate::collection::{Collection, SealInput, SealedPart, SwapOutcome, WriteKind};
use crate::error::{Error, Result};
use crate::segment::{
    open_segment_file, parse_segment_file_name, segment_file_name, sync_dir, warm_up,
    write_segment_file, Segment,
};
use crate::store::{Mutation, RecordStore};
use crate::types::VectorId;

/// The in-memory collection shared between the binding (searches), the committer and builds;
/// `None` once closed.
pub type SharedCollection = Arc<RwLock<Option<Collection>>>;

/// Answer to a write: the number of records written (or deleted) or the error.
pub type Reply = Box<dyn FnOnce(Result<usize>) + Send>;

/// One write request.
#[derive(Debug)]
pub enum WriteRequest {
    /// Insert (`Add`) or insert-or-replace (`Upsert`) records: `n × dim` vectors, row-major.
    Put {
        /// Add or upsert.
        kind: WriteKind,
        /// The ids.
        ids: Vec<VectorId>,
        /// `n × dim` values.
        vectors: Vec<f32>,
        /// Optional metadata JSON per record.
        metadata: Option<Vec<Option<String>>>,
    },
    /// Delete records (absent ids are ignored).
    Delete {
        /// The ids.
        ids: Vec<VectorId>,
    },
}

/// Most requests committed as one group.
pub const MAX_GROUP: usize = 4096;

/// When segments are sealed and compacted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SegmentConfig {
    /// Seal the mutable segment when it holds this many records (default 20,000).
    pub max_mutable_records: usize,
    /// Merge the smallest sealed segments when there are more than this many (default 8).
    pub max_sealed_segments: usize,
    /// Rewrite a sealed segment whose tombstoned fraction passes this (default 0.2).
    pub max_tombstone_ratio: f64,
    /// Vamana / RaBitQ parameters of sealed segments' indexes.
    pub index: IndexParams,
    /// At open, read every segment file whole and check all of it ([`Segment::verify`]).
    pub verify: bool,
}

impl Default for SegmentConfig {
    fn default() -> Self {
        SegmentConfig {
            max_mutable_records: 20_000,
            max_sealed_segments: 8,
            max_tombstone_ratio: 0.2,
            index: IndexParams::default(),
            verify: false,
        }
    }
}

impl SegmentConfig {
    /// Most records the mutable segment holds: 2 × [`max_mutable_records`](SegmentConfig::max_mutable_records).
    /// A write that would take it past the bound waits (its Promise stays pending; later writes
    /// keep their order behind it) until a seal has moved records out: the committer starts
    /// that seal if no background job runs, or waits for the running job (a seal, a compaction,
    /// an interim index) and starts it next. So memory and the rows scanned exactly stay bounded
    /// whatever the write rate. One batch is never split: a batch larger than the bound enters
    /// an empty mutable segment. Nothing waits when no seal can run (no directory).
    pub fn mutable_bound(&self) -> usize {
        self.max_mutable_records.saturating_mul(2)
    }

    /// Checks the ranges.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT`.
    pub fn validate(&self) -> Result<()> {
        if self.max_mutable_records == 0 || self.max_sealed_segments == 0 {
            return Err(Error::invalid_argument(
                "maxMutableRecords and maxSealedSegments must be at least 1",
            ));
        }
        if !(self.max_tombstone_ratio > 0.0 && self.max_tombstone_ratio <= 1.0) {
            return Err(Error::invalid_argument(
                "maxTombstoneRatio must be in (0, 1]",
            ));
        }
        self.index.validate()
    }
}

/// What the committer receives.
enum Msg {
    Write(WriteRequest, Reply),
    Seal(Reply),
    Compact(Reply),
    Built(Box<Built>),
    Close,
}

/// A finished background build.
enum Built {
    /// An interim index of the mutable segment (memory only) and the layout epoch it fits.
    Interim {
        result: Result<Box<crate::ann::AnnIndex>>,
        epoch: u64,
    },
    Seal {
        input: SealInput,
        result: Result<Arc<Segment>>,
    },
    Compact {
        parts: Vec<SealedPart>,
        origin: Vec<(u64, u32)>,
        result: Result<Option<Arc<Segment>>>,
    },
}

/// Called by the committer after it answered a group of requests (see
/// [`DurableCollection::set_group_hook`]).
pub type GroupHook = Box<dyn Fn() + Send>;

/// A durable collection: the shared in-memory state plus the committer thread.
pub struct DurableCollection {
    shared: SharedCollection,
    hook: Arc<Mutex<Option<GroupHook>>>,
    tx: Mutex<Option<Sender<Msg>>>,
    worker: Mutex<Option<JoinHandle<()>>>,
    read_only: bool,
    commits: Arc<AtomicU64>,
    cancel: Arc<AtomicBool>,
    mutable_bound: usize,
}

impl DurableCollection {
    /// Opens the sealed segments listed by the store's manifest (files in `dir`; none without a
    /// directory), loads the store's mutable records into memory and, unless read-only, removes
    /// orphan segment files and starts the committer (a read-only view's writes fail with
    /// `HV_READ_ONLY`).
    ///
    /// # Errors
    /// The store's errors (`HV_IO`, `HV_CORRUPT`), a segment's (`HV_CORRUPT` when missing or
    /// damaged, `HV_VERSION`), `HV_OUT_OF_MEMORY`, `HV_INVALID_ARGUMENT` (configuration).
    pub fn open<S: RecordStore + 'static>(
        mut store: S,
        read_only: bool,
        dir: Option<PathBuf>,
        cfg: SegmentConfig,
    ) -> Result<DurableCollection> {
        cfg.validate()?;
        let col = load(&mut store, dir.as_deref(), cfg.verify, read_only)?;
        warm_up(col.sealed().iter().map(|p| p.segment().clone()).collect());
        let next_gen = col
            .sealed()
            .iter()
            .map(|p| p.segment().generation() + 1)
            .max()
            .unwrap_or(1);
        if let (Some(d), false) = (&dir, read_only) {
            remove_orphans(d, &col)?;
        }
        let shared: SharedCollection = Arc::new(RwLock::new(Some(col)));
        let hook: Arc<Mutex<Option<GroupHook>>> = Arc::new(Mutex::new(None));
        let commits = Arc::new(AtomicU64::new(0));
        let cancel = Arc::new(AtomicBool::new(false));
        let (tx, worker) = if read_only {
            (None, None)
        } else {
            let (tx, rx) = channel::<Msg>();
            let mut c = Committer {
                hook: hook.clone(),
                store,
                shared: shared.clone(),
                dir,
                cfg,
                next_gen,
                busy: false,
                waiters: Vec::new(),
                want_seal: Vec::new(),
                want_compact: Vec::new(),
                tx: tx.clone(),
                cancel: cancel.clone(),
                commits: commits.clone(),
                closing: false,
                held: Vec::new(),
                deleted_since_reclaim: 0,
            };
            let handle = std::thread::Builder::new()
                .name("horosvec-commit".into())
                .spawn(move || c.run(rx))
                .map_err(|e| Error::Io(format!("cannot start the commit thread: {e}")))?;
            (Some(tx), Some(handle))
        };
        Ok(DurableCollection {
            shared,
            hook,
            tx: Mutex::new(tx),
            worker: Mutex::new(worker),
            read_only,
            commits,
            cancel,
            mutable_bound: cfg.mutable_bound(),
        })
    }

    /// The bound on the mutable segment's records behind the writers' backpressure
    /// ([`SegmentConfig::mutable_bound`]).
    pub fn mutable_bound(&self) -> usize {
        self.mutable_bound
    }

    /// The shared in-memory collection (searches take its read lock).
    pub fn shared(&self) -> &SharedCollection {
        &self.shared
    }

    /// True when opened read-only.
    pub fn read_only(&self) -> bool {
        self.read_only
    }

    /// Installs `hook`, called on the committer thread after each round of replies (a group
    /// commit, a swap): a binding can buffer replies and deliver them to its event loop in one
    /// call instead of one per write.
    pub fn set_group_hook(&self, hook: GroupHook) {
        if let Ok(mut h) = self.hook.lock() {
            *h = Some(hook);
        }
    }

    /// Transactions committed since open (one sync each under `Durability::Full`); with group
    /// commit, fewer than the writes acknowledged.
    pub fn commits(&self) -> u64 {
        self.commits.load(Ordering::Relaxed)
    }

    fn send(&self, msg: Msg, reply_err: impl FnOnce(Msg)) {
        let tx = self.tx.lock().ok().and_then(|t| t.clone());
        match tx {
            Some(tx) => {
                if let Err(std::sync::mpsc::SendError(m)) = tx.send(msg) {
                    reply_err(m);
                }
            }
            None => reply_err(msg),
        }
    }

    /// Queues a write; `reply` is called (on the committer thread) once it is durable, or with
    /// its error. Requests are applied in the order of `submit` calls.
    pub fn submit(&self, req: WriteRequest, reply: Reply) {
        if self.read_only {
            return reply(Err(Error::ReadOnly));
        }
        self.send(Msg::Write(req, reply), fail_closed);
    }

    /// Seals the mutable segment now (after the writes queued before this call); `reply` gets
    /// the number of records sealed (0 when the mutable segment is empty) once the segment is
    /// durable and in use.
    pub fn seal(&self, reply: Reply) {
        if self.read_only {
            return reply(Err(Error::ReadOnly));
        }
        self.send(Msg::Seal(reply), fail_closed);
    }

    /// Merges every sealed segment into one, dropping tombstoned rows; `reply` gets the number
    /// of segments merged (0 when there was nothing to do) once the result is durable.
    pub fn compact(&self, reply: Reply) {
        if self.read_only {
            return reply(Err(Error::ReadOnly));
        }
        self.send(Msg::Compact(reply), fail_closed);
    }

    /// Stops taking writes, waits until every queued write is committed and answered (a seal
    /// or compaction being built is cancelled; its file is removed at the next open), stops the
    /// committer and drops the in-memory collection (releasing the writer's lock). Idempotent.
    pub fn close(&self) {
        if let Ok(mut t) = self.tx.lock() {
            if let Some(tx) = t.take() {
                self.cancel.store(true, Ordering::Relaxed);
                let _ = tx.send(Msg::Close);
            }
        }
        let handle = self.worker.lock().ok().and_then(|mut w| w.take());
        if let Some(h) = handle {
            let _ = h.join();
        }
        if let Ok(mut g) = self.shared.write() {
            g.take();
        }
    }
}

fn fail_closed(m: Msg) {
    match m {
        Msg::Write(_, r) | Msg::Seal(r) | Msg::Compact(r) => r(Err(Error::Closed)),
        Msg::Built(_) | Msg::Close => {}
    }
}

impl Drop for DurableCollection {
    fn drop(&mut self) {
        self.close();
    }
}

/// Attempts of a read-only open that found a segment file of its manifest already removed by
/// the writer (a compaction committed a newer manifest meanwhile) before it gives up.
const READ_RETRIES: usize = 50;

/// Builds the in-memory collection: the manifest's segments (mapped), then the store's
/// mutable records, all from one consistent read of the store ([`RecordStore::begin_read`]).
///
/// A read-only view beside a writer may find a file of the manifest it read already removed: the
/// writer committed a compaction and deleted the merged files after this read began. The read is
/// then begun again (the newer manifest names the new file); a file held open stays readable
/// after its removal, so once every file is mapped the view no longer depends on the writer.
fn load(
    store: &mut dyn RecordStore,
    dir: Option<&Path>,
    verify: bool,
    read_only: bool,
) -> Result<Collection> {
    let mut attempt = 0;
    loop {
        store.begin_read()?;
        let res = load_once(store, dir, verify, read_only && attempt < READ_RETRIES);
        store.end_read();
        match res {
            Some(r) => return r,
            None => {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        }
    }
}

/// One attempt of [`load`]; `None` when a segment file of the manifest read is gone and
/// `may_retry` allows another attempt.
fn load_once(
    store: &mut dyn RecordStore,
    dir: Option<&Path>,
    verify: bool,
    may_retry: bool,
) -> Option<Result<Collection>> {
    let (dim, metric) = store.shape();
    let manifest = match store.segments() {
        Ok(m) => m,
        Err(e) => return Some(Err(e)),
    };
    let gone = || match (may_retry, dir) {
        (true, Some(d)) => manifest
            .iter()
            .any(|e| !d.join(segment_file_name(e.generation)).exists()),
        _ => false,
    };
    if gone() {
        return None;
    }
    match load_parts(store, dir, verify, dim, metric, &manifest) {
        // removed between the check above and its opening
        Err(_) if gone() => None,
        r => Some(r),
    }
}

fn load_parts(
    store: &mut dyn RecordStore,
    dir: Option<&Path>,
    verify: bool,
    dim: usize,
    metric: crate::types::Metric,
    manifest: &[crate::store::ManifestEntry],
) -> Result<Collection> {
    let mut col = Collection::new(dim, metric)?;
    col.set_deferred_index(true);
    if !manifest.is_empty() {
        let dir = dir.ok_or_else(|| {
            Error::Corrupt("the manifest lists segments but the store has no directory".into())
        })?;
        for e in manifest {
            let seg = open_segment_file(dir, e.generation, dim, metric, false)?;
            if seg.len() as u64 != e.rows {
                return Err(Error::Corrupt(format!(
                    "segment {} holds {} rows, the manifest says {}",
                    e.generation,
                    seg.len(),
                    e.rows
                )));
            }
            if verify {
                seg.verify()?;
            }
            col.attach_segment(seg, &e.tombstones)?;
        }
    }
    store.load(&mut |r| col.restore_row(r.id, r.seq, &r.vector, r.metadata))?;
    Ok(col)
}

/// Removes segment files (and temporary files) that the manifest does not list: left by a crash
/// during a seal or compaction, or after a compaction's commit.
fn remove_orphans(dir: &Path, col: &Collection) -> Result<()> {
    let live: std::collections::HashSet<u64> = col
        .sealed()
        .iter()
        .map(|p| p.segment().generation())
        .collect();
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Error::Io(format!("cannot list {}: {e}", dir.display())))?;
    let mut removed = false;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some(g) = parse_segment_file_name(name) {
            if name.ends_with(crate::segment::TEMP_SUFFIX) || !live.contains(&g) {
                std::fs::remove_file(entry.path()).map_err(|e| {
                    Error::Io(format!(
                        "cannot remove orphan {}: {e}",
                        entry.path().display()
                    ))
                })?;
                removed = true;
            }
        }
    }
    if removed {
        sync_dir(dir)?;
    }
    Ok(())
}

/// What one applied request changed, for the store.
enum Applied {
    Put {
        ids: Vec<VectorId>,
        seqs: Vec<u64>,
        vectors: Vec<f32>,
        metadata: Vec<Option<String>>,
        dim: usize,
        tombstones: Vec<(u64, u32)>,
    },
    Delete {
        ids: Vec<VectorId>,
        tombstones: Vec<(u64, u32)>,
    },
}

fn read_lock(shared: &SharedCollection) -> std::sync::RwLockReadGuard<'_, Option<Collection>> {
    match shared.read() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

fn write_lock(shared: &SharedCollection) -> std::sync::RwLockWriteGuard<'_, Option<Collection>> {
    match shared.write() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

struct Committer<S: RecordStore> {
    hook: Arc<Mutex<Option<GroupHook>>>,
    store: S,
    shared: SharedCollection,
    dir: Option<PathBuf>,
    cfg: SegmentConfig,
    next_gen: u64,
    /// A seal or compaction is being built.
    busy: bool,
    /// Replies owed when the running job is installed.
    waiters: Vec<Reply>,
    want_seal: Vec<Reply>,
    want_compact: Vec<Reply>,
    tx: Sender<Msg>,
    cancel: Arc<AtomicBool>,
    commits: Arc<AtomicU64>,
    closing: bool,
    /// Writes held back, in call order, until a seal makes room in the mutable segment
    /// (backpressure: [`SegmentConfig::mutable_bound`]).
    held: Vec<(WriteRequest, Reply)>,
    /// Records deleted from the store since its free pages were last given back.
    deleted_since_reclaim: usize,
}

/// Records deleted from the store after which its free pages are given back (when enough of the
/// file is free: [`RecordStore::reclaim`]).
const RECLAIM_AFTER_DELETES: usize = 1024;

impl<S: RecordStore> Committer<S> {
    fn run(&mut self, rx: Receiver<Msg>) {
        // a seal or an interim index may be due right after open
        self.maybe_start_job();
        while let Ok(first) = rx.recv() {
            // writes held back by the bound go first, in their call order
            let mut writes = std::mem::take(&mut self.held);
            let mut next = Some(first);
            while let Some(m) = next.take() {
                match m {
                    Msg::Write(req, reply) => writes.push((req, reply)),
                    Msg::Seal(r) => self.want_seal.push(r),
                    Msg::Compact(r) => self.want_compact.push(r),
                    Msg::Built(b) => {
                        // writes queued before the build finished go first (as far as the bound
                        // lets them; the rest wait for the seal started after this install)
                        self.commit_bounded(&mut writes);
                        self.install(*b);
                        self.commit_bounded(&mut writes);
                    }
                    Msg::Close => self.closing = true,
                }
                if writes.len() < MAX_GROUP {
                    next = rx.try_recv().ok();
                }
            }
            self.commit_bounded(&mut writes);
            self.held = writes;
            if self.closing {
                if self.busy {
                    self.after_group();
                    continue; // wait for the cancelled build to report
                }
                for r in self.want_seal.drain(..).chain(self.want_compact.drain(..)) {
                    r(Err(Error::Closed));
                }
                self.after_group();
                return;
            }
            self.maybe_start_job();
            self.after_group();
        }
        self.after_group();
    }

    /// Tells the binding that a group of replies was made (it may deliver them in one go).
    fn after_group(&self) {
        if let Ok(h) = self.hook.lock() {
            if let Some(h) = h.as_ref() {
                h();
            }
        }
    }

    /// Commits what the mutable segment's bound lets in ([`SegmentConfig::mutable_bound`]);
    /// when writes remain and no job runs, starts the one that makes room (a seal), then holds
    /// the rest in `msgs` until it is installed. If no job can start (no directory, nothing to
    /// seal), or the collection is closing, nothing is held.
    fn commit_bounded(&mut self, msgs: &mut Vec<(WriteRequest, Reply)>) {
        self.commit_group(msgs, !self.closing);
        if !msgs.is_empty() && !self.busy {
            self.maybe_start_job();
            let hold = self.busy && !self.closing;
            self.commit_group(msgs, hold);
        }
    }

    /// Applies a group of writes in memory, commits it in one transaction, answers. With
    /// `hold`, the writes from the first one that would take the mutable segment past its bound
    /// stay in `msgs`, in order (backpressure).
    fn commit_group(&mut self, msgs: &mut Vec<(WriteRequest, Reply)>, hold: bool) {
        if msgs.is_empty() {
            return;
        }
        let mut done: Vec<(Applied, Reply, usize)> = Vec::with_capacity(msgs.len());
        // answered once the lock is released: a reply may read the collection
        let mut failed: Vec<(Reply, Error)> = Vec::new();
        let bound = self.cfg.mutable_bound();
        {
            let mut guard = write_lock(&self.shared);
            let mut rest = std::mem::take(msgs).into_iter();
            while let Some((req, reply)) = rest.next() {
                if hold && guard.as_ref().is_some_and(|col| holds(col, &req, bound)) {
                    // this write and every later one wait (call order is kept)
                    msgs.push((req, reply));
                    msgs.extend(rest);
                    break;
                }
                match guard.as_mut() {
                    None => failed.push((reply, Error::Closed)),
                    Some(col) => match apply(col, req) {
                        Ok((applied, n)) => done.push((applied, reply, n)),
                        Err(e) => failed.push((reply, e)),
                    },
                }
            }
        }
        for (reply, e) in failed {
            reply(Err(e));
        }
        if done.is_empty() {
            return;
        }
        let mut muts = Vec::new();
        for (a, _, _) in &done {
            match a {
                Applied::Put {
                    ids,
                    seqs,
                    vectors,
                    metadata,
                    dim,
                    tombstones,
                } => {
                    for (i, id) in ids.iter().enumerate() {
                        muts.push(Mutation::Put {
                            id,
                            seq: seqs[i],
                            vector: &vectors[i * dim..(i + 1) * dim],
                            metadata: metadata[i].as_deref(),
                        });
                    }
                    muts.extend(
                        tombstones
                            .iter()
                            .map(|&(generation, row)| Mutation::Tombstone { generation, row }),
                    );
                }
                Applied::Delete { ids, tombstones } => {
                    muts.extend(ids.iter().map(|id| Mutation::Delete { id }));
                    muts.extend(
                        tombstones
                            .iter()
                            .map(|&(generation, row)| Mutation::Tombstone { generation, row }),
                    );
                }
            }
        }
        let result = self.store.commit(&muts);
        let deleted = muts
            .iter()
            .filter(|m| matches!(m, Mutation::Delete { .. }))
            .count();
        drop(muts);
        match result {
            Ok(()) => {
                self.commits.fetch_add(1, Ordering::Relaxed);
                // deletes free database pages: give them back now and then (best effort; the
                // store decides whether enough of the file is free to be worth it)
                self.deleted_since_reclaim += deleted;
                if self.deleted_since_reclaim >= RECLAIM_AFTER_DELETES {
                    self.deleted_since_reclaim = 0;
                    let _ = self.store.reclaim(false);
                }
                for (_, reply, n) in done {
                    reply(Ok(n));
                }
            }
            Err(e) => {
                self.reload();
                for (_, reply, _) in done {
                    reply(Err(e.clone()));
                }
            }
        }
    }

    /// After a failed commit the store holds none of the group: rebuild memory from it (and
    /// the manifest's segments) so that nothing unacknowledged stays visible.
    fn reload(&mut self) {
        let reloaded = load(&mut self.store, self.dir.as_deref(), false, false);
        let mut g = write_lock(&self.shared);
        if g.is_some() {
            *g = reloaded.ok();
        }
    }

    /// Starts a seal or compaction in the background if one is asked for or due.
    fn maybe_start_job(&mut self) {
        if self.busy || self.closing {
            return;
        }
        if self.dir.is_none() {
            for r in self.want_seal.drain(..).chain(self.want_compact.drain(..)) {
                r(Err(Error::Unsupported(
                    "sealing needs a collection directory".into(),
                )));
            }
            return;
        }
        let shared = self.shared.clone();
        // The committer is the only writer, so what it reads under the read lock stays true until
        // it takes the write lock: the copies of the mutable rows for a seal (every row, so that a
        // backlog is sealed in one go) or an interim index are made under the read lock, and
        // searches go on.
        let seal_input = {
            let guard = read_lock(&shared);
            let Some(col) = guard.as_ref() else { return };
            // past maxSealedSegments the merge goes first: under sustained writes a seal would
            // otherwise always be due again when a job ends, and the segments would pile up
            // (writes wait at the mutable bound meanwhile, as for any job)
            let too_many = col.sealed().len() > self.cfg.max_sealed_segments;
            let seal_due = !self.want_seal.is_empty()
                || (col.mutable_len() >= self.cfg.max_mutable_records && !too_many);
            if seal_due {
                col.seal_input()
            } else {
                None
            }
        };
        if let Some(input) = seal_input {
            if let Some(col) = write_lock(&shared).as_mut() {
                col.begin_seal_tracking();
            }
            let waiters = std::mem::take(&mut self.want_seal);
            let generation = self.take_generation();
            self.spawn_job("horosvec-seal", waiters, move |dir, params, cancel| {
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    build_segment(dir, generation, &input, params, cancel)
                }))
                .unwrap_or_else(|_| Err(Error::Internal("the seal build panicked".into())));
                Built::Seal { input, result }
            });
            return;
        }
        let (parts, interim_due) = {
            let mut guard = write_lock(&shared);
            let Some(col) = guard.as_mut() else { return };
            let parts = compaction_choice(col, &self.cfg, !self.want_compact.is_empty())
                .and_then(|p| col.begin_compaction(&p));
            if parts.is_none() && col.mutable_mostly_dead() {
                col.drop_dead_rows();
            }
            let due = parts.is_none() && col.interim_due();
            (parts, due)
        };
        // nothing to seal: answered after the lock is released (a reply may read the collection)
        for r in self.want_seal.drain(..) {
            r(Ok(0));
        }
        if let Some(parts) = parts {
            let waiters = std::mem::take(&mut self.want_compact);
            let generation = self.take_generation();
            self.spawn_job("horosvec-compact", waiters, move |dir, params, cancel| {
                let mut origin = Vec::new();
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let (input, o) = SealInput::from_parts(&parts)?;
                    origin = o;
                    if input.is_empty() {
                        return Ok(None);
                    }
                    build_segment(dir, generation, &input, params, cancel).map(Some)
                }))
                .unwrap_or_else(|_| Err(Error::Internal("the compaction build panicked".into())));
                Built::Compact {
                    parts,
                    origin,
                    result,
                }
            });
            return;
        }
        for r in self.want_compact.drain(..) {
            r(Ok(0));
        }
        if interim_due {
            // an interim index of the mutable segment, so that it is not scanned exactly
            let Some((input, epoch)) = read_lock(&shared).as_ref().map(Collection::begin_interim)
            else {
                return;
            };
            self.spawn_job("horosvec-index", Vec::new(), move |_, params, cancel| {
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    input.build_index(params, cancel).map(Box::new)
                }))
                .unwrap_or_else(|_| {
                    Err(Error::Internal("the interim index build panicked".into()))
                });
                Built::Interim { result, epoch }
            });
        }
    }

    /// The generation of the next segment file.
    fn take_generation(&mut self) -> u64 {
        let g = self.next_gen;
        self.next_gen += 1;
        g
    }

    /// Runs `work` (a seal, compaction or interim-index build) on a thread of its own and sends
    /// its result back to the committer; `waiters` are answered when it is installed. If the
    /// thread cannot start, the swap is abandoned and the waiters get `HV_IO`.
    fn spawn_job(
        &mut self,
        name: &str,
        waiters: Vec<Reply>,
        work: impl FnOnce(&Path, IndexParams, &AtomicBool) -> Built + Send + 'static,
    ) {
        let Some(dir) = self.dir.clone() else { return };
        let (tx, cancel, params) = (self.tx.clone(), self.cancel.clone(), self.cfg.index);
        self.waiters = waiters;
        self.busy = true;
        let spawned = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                let built = work(&dir, params, &cancel);
                let _ = tx.send(Msg::Built(Box::new(built)));
            });
        if spawned.is_err() {
            self.busy = false;
            if let Some(c) = write_lock(&self.shared).as_mut() {
                c.abort_swap();
            }
            for r in self.waiters.drain(..) {
                r(Err(Error::Io(format!("cannot start the {name} thread"))));
            }
        }
    }

    /// Swaps a finished build in: memory under the write lock, then one manifest transaction.
    fn install(&mut self, built: Built) {
        self.busy = false;
        let built = match built {
            Built::Interim { result, epoch } => {
                // memory only: nothing to commit; a stale or failed build is simply dropped
                if let (Ok(ix), false) = (result, self.closing) {
                    if let Some(c) = write_lock(&self.shared).as_mut() {
                        c.install_interim(*ix, epoch);
                    }
                }
                return;
            }
            other => other,
        };
        let waiters = std::mem::take(&mut self.waiters);
        let answer = |r: Result<usize>| {
            for w in waiters {
                w(r.clone());
            }
        };
        if self.closing {
            if let Some(c) = write_lock(&self.shared).as_mut() {
                c.abort_swap();
            }
            return answer(Err(Error::Closed));
        }
        let swapped: Result<(Option<Arc<Segment>>, SwapOutcome, usize)> = {
            let mut guard = write_lock(&self.shared);
            match guard.as_mut() {
                None => Err(Error::Closed),
                Some(col) => {
                    let r = match built {
                        Built::Seal { input, result } => result
                            .and_then(|seg| {
                                col.install_sealed(seg.clone(), &input)
                                    .map(|o| (Some(seg), o))
                            })
                            .map(|(s, o)| (s, o, input.len())),
                        Built::Compact {
                            parts,
                            origin,
                            result,
                        } => result
                            .and_then(|seg| {
                                col.install_compacted(seg.clone(), &parts, &origin)
                                    .map(|o| (seg, o))
                            })
                            .map(|(s, o)| (s, o, parts.len())),
                        Built::Interim { .. } => {
                            Err(Error::Internal("interim index in the swap path".into()))
                        }
                    };
                    if r.is_err() {
                        col.abort_swap();
                    }
                    r
                }
            }
        };
        let (seg, outcome, count) = match swapped {
            Ok(x) => x,
            Err(e) => return answer(Err(e)),
        };
        let SwapOutcome {
            new_tombstones,
            moved,
            removed,
        } = &outcome;
        let mut muts = Vec::new();
        if let Some(seg) = &seg {
            muts.push(Mutation::AddSegment {
                generation: seg.generation(),
                rows: seg.len() as u64,
            });
            muts.extend(new_tombstones.iter().map(|&row| Mutation::Tombstone {
                generation: seg.generation(),
                row,
            }));
        }
        muts.extend(moved.iter().map(|id| Mutation::Delete { id }));
        muts.extend(
            removed
                .iter()
                .map(|&generation| Mutation::RemoveSegment { generation }),
        );
        let result = self.store.commit(&muts);
        drop(muts);
        match result {
            Ok(()) => {
                self.commits.fetch_add(1, Ordering::Relaxed);
                if let Some(dir) = &self.dir {
                    // the old files of a compaction: mappings stay valid until their last reader
                    for g in removed {
                        let _ = std::fs::remove_file(dir.join(segment_file_name(*g)));
                    }
                }
                // a seal moved records out of the database: give their pages back, and truncate
                // the write-ahead log that the swap's transaction grew (best effort; a database
                // created before incremental auto-vacuum keeps its pages for reuse)
                self.deleted_since_reclaim = 0;
                let _ = self.store.reclaim(true);
                answer(Ok(count));
            }
            Err(e) => {
                self.reload();
                if let (Some(dir), Some(seg)) = (&self.dir, &seg) {
                    let _ = std::fs::remove_file(dir.join(segment_file_name(seg.generation())));
                }
                answer(Err(e));
            }
        }
    }
}

/// Builds the index of `input`, writes segment `generation` into `dir` (synced and renamed) and
/// maps it; a file that does not read back is removed.
fn build_segment(
    dir: &Path,
    generation: u64,
    input: &SealInput,
    params: IndexParams,
    cancel: &AtomicBool,
) -> Result<Arc<Segment>> {
    let ix = input.build_index(params, cancel)?;
    let path = write_segment_file(dir, generation, &input.rows(), &ix)?;
    // just written: in the page cache, not cold
    let seg = open_segment_file(dir, generation, input.dim, input.metric, true);
    if seg.is_err() {
        let _ = std::fs::remove_file(path);
    }
    seg
}

/// The sealed parts a compaction should merge, if any: all of them when `forced` (if there is
/// something to gain), else the smallest when there are too many, else one whose tombstones
/// pass the ratio.
fn compaction_choice(col: &Collection, cfg: &SegmentConfig, forced: bool) -> Option<Vec<usize>> {
    let parts = col.sealed();
    if forced {
        let gain = parts.len() > 1 || parts.iter().any(|p| p.tombstone_ratio() > 0.0);
        return gain.then(|| (0..parts.len()).collect());
    }
    if parts.len() > cfg.max_sealed_segments {
        let mut by_size: Vec<usize> = (0..parts.len()).collect();
        by_size.sort_by_key(|&p| parts[p].live());
        let take = (parts.len() - cfg.max_sealed_segments + 1).max(2);
        let mut chosen: Vec<usize> = by_size[..take].to_vec();
        chosen.sort_unstable();
        return Some(chosen);
    }
    parts
        .iter()
        .position(|p| p.tombstone_ratio() > cfg.max_tombstone_ratio)
        .map(|p| vec![p])
}

/// True when `req` must wait for a seal: an add or upsert of `n` records that would take a
/// non-empty mutable segment past `bound` (a delete never grows it; a batch alone larger than
/// the bound goes into an empty segment, so one batch is never split or held forever).
fn holds(col: &Collection, req: &WriteRequest, bound: usize) -> bool {
    match req {
        WriteRequest::Put { ids, .. } => {
            let m = col.mutable_len();
            m > 0 && m.saturating_add(ids.len()) > bound
        }
        WriteRequest::Delete { .. } => false,
    }
}

/// Applies one request to the collection (all or nothing); returns what changed and the count.
fn apply(col: &mut Collection, req: WriteRequest) -> Result<(Applied, usize)> {
    match req {
        WriteRequest::Put {
            kind,
            ids,
            vectors,
            metadata,
        } => {
            let w = col.prepare(kind, ids.clone(), vectors, metadata)?;
            let n = w.len();
            let (vectors, metadata) = w.payload();
            let (vectors, metadata) = (vectors.to_vec(), metadata.to_vec());
            col.commit(w)?;
            let seqs = ids.iter().map(|id| col.seq_of(id).unwrap_or(0)).collect();
            let tombstones = col.take_tombstones();
            Ok((
                Applied::Put {
                    ids,
                    seqs,
                    vectors,
                    metadata,
                    dim: col.dim(),
                    tombstones,
                },
                n,
            ))
        }
        WriteRequest::Delete { ids } => {
            let present: Vec<VectorId> =
                ids.iter().filter(|id| col.contains(id)).cloned().collect();
            let n = col.delete(&ids);
            let tombstones = col.take_tombstones();
            Ok((
                Applied::Delete {
                    ids: present,
                    tombstones,
                },
                n,
            ))
        }
    }
}
