//! [`DurableCollection`]: the handle of a durable collection with its committer thread (see
//! the parent module), feature `durable`.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;
use std::time::Duration;

use super::channel::{fail_closed, GroupHook, Msg, Outbox, Reply, SharedCollection, WriteRequest};
use super::committer::{Committer, Links};
use super::files::SegmentDir;
use super::follow::{FollowStats, Follower, Poller, SharedFollower};
use super::inline::{Cell, Inline};
use super::load::{load, LoadMode};
use super::policy::SegmentConfig;
use crate::error::{Error, Result};
use crate::segment::warm_up;
use crate::store::RecordStore;

/// A durable collection: the shared in-memory state plus the committer thread.
pub struct DurableCollection {
    shared: SharedCollection,
    hook: Arc<Mutex<Option<GroupHook>>>,
    tx: Mutex<Option<Outbox>>,
    /// The committer's state, for writes committed on the caller's thread (`None`: read-only).
    inline: Option<Arc<dyn Inline>>,
    worker: Mutex<Option<JoinHandle<()>>>,
    read_only: bool,
    commits: Arc<AtomicU64>,
    cancel: Arc<AtomicBool>,
    mutable_bound: usize,
    /// A read-only view's store, for its refreshes (`None` for a writer).
    follower: Option<SharedFollower>,
    poller: Mutex<Option<Poller>>,
    follow_stats: Arc<FollowStats>,
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
    pub fn open<S: RecordStore + Send + 'static>(
        mut store: S,
        read_only: bool,
        dir: Option<PathBuf>,
        cfg: SegmentConfig,
    ) -> Result<DurableCollection> {
        cfg.validate()?;
        let dir = dir.map(SegmentDir::new);
        // a view's change token is read before its load (see `follow`)
        let token = if read_only { store.change_token()? } else { 0 };
        let col = load(
            &mut store,
            dir.as_ref(),
            LoadMode {
                verify: cfg.verify,
                read_only,
            },
        )?;
        warm_up(col.sealed().iter().map(|p| p.segment().clone()).collect());
        let next_gen = col
            .sealed()
            .iter()
            .map(|p| p.segment().generation() + 1)
            .max()
            .unwrap_or(1);
        if let (Some(d), false) = (&dir, read_only) {
            let live: HashSet<u64> = col
                .sealed()
                .iter()
                .map(|p| p.segment().generation())
                .collect();
            d.remove_orphans(&live)?;
        }
        let shared: SharedCollection = Arc::new(RwLock::new(Some(col)));
        let hook: Arc<Mutex<Option<GroupHook>>> = Arc::new(Mutex::new(None));
        let commits = Arc::new(AtomicU64::new(0));
        let cancel = Arc::new(AtomicBool::new(false));
        let follow_stats = Arc::new(FollowStats::default());
        let mut follower = None;
        let (tx, worker, inline) = if read_only {
            follower = Some(Arc::new(Mutex::new(Some(Follower {
                store: Box::new(store),
                dir,
                verify: cfg.verify,
                token,
                shared: shared.clone(),
                stats: follow_stats.clone(),
            }))));
            (None, None, None)
        } else {
            let (tx, rx) = channel::<Msg>();
            let outbox = Outbox::new(tx);
            let links = Links {
                shared: shared.clone(),
                hook: hook.clone(),
                commits: commits.clone(),
                cancel: cancel.clone(),
                outbox: outbox.clone(),
            };
            let cell: Arc<Cell<S>> = Arc::new(Mutex::new(Some(Committer::new(
                links, store, dir, cfg, next_gen,
            ))));
            let run = cell.clone();
            let handle = std::thread::Builder::new()
                .name("horosvec-commit".into())
                .spawn(move || Committer::run(&run, rx))
                .map_err(|e| Error::Io(format!("cannot start the commit thread: {e}")))?;
            let inline: Arc<dyn Inline> = Arc::new(cell);
            (Some(outbox), Some(handle), Some(inline))
        };
        Ok(DurableCollection {
            shared,
            hook,
            tx: Mutex::new(tx),
            inline,
            worker: Mutex::new(worker),
            read_only,
            commits,
            cancel,
            mutable_bound: cfg.mutable_bound(),
            follower,
            poller: Mutex::new(None),
            follow_stats,
        })
    }

    /// A read-only view: reloads the in-memory collection when the store changed since the
    /// last load (a commit of the writer, in any process), from one consistent read: every
    /// write acknowledged before this call is visible after it, and never part of a group.
    /// True when it loaded something new; false when nothing changed, or for a writer (it
    /// sees its own writes at once). Searches run during the reload and wait only for the swap.
    ///
    /// # Errors
    /// `HV_CLOSED`, the store's (`HV_IO`, `HV_CORRUPT`), a segment's (`HV_CORRUPT`,
    /// `HV_VERSION`), `HV_OUT_OF_MEMORY`; the view then keeps its previous state.
    pub fn refresh(&self) -> Result<bool> {
        let Some(f) = &self.follower else {
            return if self.shared.read().map(|g| g.is_some()).unwrap_or(false) {
                Ok(false)
            } else {
                Err(Error::Closed)
            };
        };
        let mut g = f.lock().unwrap_or_else(|p| p.into_inner());
        g.as_mut().ok_or(Error::Closed)?.refresh()
    }

    /// A read-only view: refreshes in a background thread every `interval` (the next poll
    /// waits at least [`BACKOFF`](super::BACKOFF) × the last reload's time, so reloads under sustained writes
    /// use a bounded share of one core); a commit becomes visible within `interval` plus one
    /// reload. Replaces a previous poller; a zero interval only stops it. A no-op for a writer.
    ///
    /// # Errors
    /// `HV_CLOSED`; `HV_IO` when the thread cannot start.
    pub fn follow(&self, interval: Duration) -> Result<()> {
        let Some(f) = &self.follower else {
            return Ok(());
        };
        let mut p = self.poller.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(mut old) = p.take() {
            old.stop();
        }
        if f.lock().map(|g| g.is_none()).unwrap_or(true) {
            return Err(Error::Closed);
        }
        if !interval.is_zero() {
            *p = Some(Poller::start(f.clone(), interval)?);
        }
        Ok(())
    }

    /// A read-only view's refresh counters (zero for a writer).
    pub fn follow_stats(&self) -> &FollowStats {
        &self.follow_stats
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
                if let Err(m) = tx.send(msg) {
                    reply_err(m);
                }
            }
            None => reply_err(msg),
        }
    }

    /// Queues a write; `reply` is called (on the committer thread) once it is durable, with the
    /// number of records written (added or upserted) or deleted, or with its error. Requests are
    /// applied in the order of `submit` calls.
    ///
    /// # Errors
    /// Carried by the reply: `HV_READ_ONLY` (a read-only collection; answered at once),
    /// `HV_CLOSED` (the collection is closed), the validation codes of the write
    /// (`HV_INVALID_ARGUMENT`, `HV_DIM_MISMATCH`, `HV_INVALID_VECTOR`, `HV_DUPLICATE_ID`,
    /// `HV_OUT_OF_MEMORY`: see [`Collection::add`](crate::collection::Collection::add); nothing
    /// of the request is applied), or the store's error when the group's commit fails (`HV_IO`;
    /// none of the group is kept).
    pub fn submit(&self, req: WriteRequest, reply: Reply) {
        if self.read_only {
            return reply(Err(Error::ReadOnly));
        }
        self.send(Msg::Write(req, reply), fail_closed);
    }

    /// Commits `req` on the calling thread when the committer is idle (nothing queued before it,
    /// no write held back, store commits averaging at most
    /// [`INLINE_COMMIT_MAX_NS`](super::INLINE_COMMIT_MAX_NS)) and returns its answer, exactly
    /// what [`DurableCollection::submit`]'s reply would get, once it is durable; the calling
    /// thread waits for the commit (its sync included). Otherwise gives `req` back untouched,
    /// to be [`submit`](DurableCollection::submit)ted: call order is kept either way.
    ///
    /// # Errors
    /// In the answer: as [`DurableCollection::submit`].
    pub fn submit_now(
        &self,
        req: WriteRequest,
    ) -> std::result::Result<Result<usize>, WriteRequest> {
        if self.read_only {
            return Ok(Err(Error::ReadOnly));
        }
        // after close the committer is gone: `submit` answers HV_CLOSED
        if self.tx.lock().map(|t| t.is_none()).unwrap_or(true) {
            return Err(req);
        }
        match &self.inline {
            Some(i) => i.try_now(req),
            None => Err(req),
        }
    }

    /// Seals the mutable segment now (after the writes queued before this call); `reply` gets
    /// the number of records sealed (0 when the mutable segment is empty) once the segment is
    /// durable and in use.
    ///
    /// # Errors
    /// Carried by the reply: `HV_READ_ONLY` (answered at once), `HV_CLOSED`, `HV_UNSUPPORTED`
    /// (a collection without a directory), `HV_IO` (writing the segment file, or the manifest
    /// commit), or the build's own error (e.g. `HV_OUT_OF_MEMORY`; `HV_INTERNAL` for a caught
    /// panic).
    pub fn seal(&self, reply: Reply) {
        if self.read_only {
            return reply(Err(Error::ReadOnly));
        }
        self.send(Msg::Seal(reply), fail_closed);
    }

    /// Merges every sealed segment into one, dropping tombstoned rows; `reply` gets the number
    /// of segments merged (0 when there was nothing to do) once the result is durable.
    ///
    /// # Errors
    /// As [`DurableCollection::seal`].
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
        if let Some(mut p) = self.poller.lock().ok().and_then(|mut p| p.take()) {
            p.stop();
        }
        if let Some(f) = &self.follower {
            // releases the view's connection
            f.lock().unwrap_or_else(|p| p.into_inner()).take();
        }
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

impl Drop for DurableCollection {
    fn drop(&mut self) {
        self.close();
    }
}
