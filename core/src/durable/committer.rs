//! The committer thread: the only writer of the collection and the owner of the store. It takes
//! every request waiting in its channel as one group, applies it in memory, commits it in one
//! transaction and answers (see [`super`]). Between groups it runs the segment lifecycle
//! (`lifecycle.rs`: start the job [`super::policy::next_job`] names, swap finished ones in).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::channel::{
    write_lock, GroupHook, Msg, Outbox, Reply, SharedCollection, WriteRequest, MAX_GROUP,
};
use super::files::SegmentDir;
use super::load::{load, LoadMode};
use super::manifest::{apply, group_mutations, Applied};
use super::pace::commit_time_ewma;
use super::policy::{write_waits, SegmentConfig};
use crate::collection::FLAT_THRESHOLD;
use crate::error::Error;
use crate::store::{Mutation, Reclaim, RecordStore};

/// Records deleted from the store after which its free pages are given back (when enough of the
/// file is free: [`RecordStore::reclaim`]), once no write has been committed for
/// [`RECLAIM_IDLE`]: the vacuum and checkpoint (milliseconds) run between writes, not inside one.
const RECLAIM_AFTER_DELETES: usize = 1024;

/// Live rows of the mutable segment below which an interim index being built is cancelled:
/// three quarters of [`FLAT_THRESHOLD`], the count at which one is started.
const INTERIM_STOP_BELOW: usize = FLAT_THRESHOLD / 4 * 3;

/// How long the committer waits for writes to pause before a due reclaim.
const RECLAIM_IDLE: Duration = Duration::from_millis(50);

/// Deleted records (× [`RECLAIM_AFTER_DELETES`]) past which a reclaim runs at the end of the write
/// group even though writes never paused ([`Reclaim::DuringWrites`]: only when much is free), so
/// that an endless stream of deletes still gives pages back.
const RECLAIM_DEFER_MAX: usize = 8;

/// Whether a group commit holds back the writes past the mutable segment's bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Bound {
    /// Hold them, in call order, until a seal makes room (a seal runs or can start).
    Hold,
    /// Commit everything (closing, or no seal can make room).
    Off,
}

/// The state the committer shares with the handle.
pub(crate) struct Links {
    pub(crate) shared: SharedCollection,
    pub(crate) hook: Arc<Mutex<Option<GroupHook>>>,
    pub(crate) commits: Arc<AtomicU64>,
    pub(crate) cancel: Arc<AtomicBool>,
    /// The committer's own channel (finished builds are sent to it).
    pub(crate) outbox: Outbox,
}

/// The group-commit loop and its state.
pub(crate) struct Committer<S: RecordStore> {
    pub(super) links: Links,
    pub(super) store: S,
    pub(super) dir: Option<SegmentDir>,
    pub(super) cfg: SegmentConfig,
    pub(super) next_gen: u64,
    /// While a background job runs: the replies owed when it is installed.
    pub(super) running: Option<Vec<Reply>>,
    /// While an interim index is built: its cancel flag (close, or too few live rows left).
    pub(super) interim_stop: Option<Arc<AtomicBool>>,
    /// Replies owed to [`super::DurableCollection::seal`] / `compact` calls not yet started.
    pub(super) want_seal: Vec<Reply>,
    pub(super) want_compact: Vec<Reply>,
    pub(super) closing: bool,
    /// Writes held back, in call order, until a seal makes room in the mutable segment
    /// (backpressure: [`SegmentConfig::mutable_bound`]).
    pub(super) held: Vec<(WriteRequest, Reply)>,
    /// Records deleted from the store since its free pages were last given back.
    pub(super) deleted_since_reclaim: usize,
    /// When the last write group was committed (the idle time a due reclaim waits for).
    pub(super) last_commit: Instant,
    /// A write group committed on the caller's thread made a reclaim due: the committer thread,
    /// asleep without a timeout, is to be woken ([`Msg::Tick`]) to wait for the pause.
    pub(super) reclaim_wake: bool,
    /// Moving average of a store commit's time (ns): whether a write may be committed on the
    /// caller's thread ([`super::pace::commits_inline`]).
    pub(super) commit_ns: u64,
}

impl<S: RecordStore> Committer<S> {
    /// A committer of `store`, whose next segment is `next_gen`.
    pub(crate) fn new(
        links: Links,
        store: S,
        dir: Option<SegmentDir>,
        cfg: SegmentConfig,
        next_gen: u64,
    ) -> Self {
        Committer {
            links,
            store,
            dir,
            cfg,
            next_gen,
            running: None,
            interim_stop: None,
            want_seal: Vec::new(),
            want_compact: Vec::new(),
            closing: false,
            held: Vec::new(),
            deleted_since_reclaim: 0,
            last_commit: Instant::now(),
            reclaim_wake: false,
            commit_ns: 0,
        }
    }

    /// The loop: until [`Msg::Close`] and the running job reported, or the channel closes. The
    /// committer's state sits behind `cell`'s lock, which a write committed on the caller's
    /// thread takes too (`inline.rs`); each round holds it, and the committer (with the store
    /// and the writer's lock) is dropped when the loop ends.
    pub(crate) fn run(cell: &Mutex<Option<Self>>, rx: Receiver<Msg>) {
        let lock = || cell.lock().unwrap_or_else(|p| p.into_inner());
        // a seal or an interim index may be due right after open
        if let Some(c) = lock().as_mut() {
            c.maybe_start_job();
        }
        // with a reclaim due, a message is waited for only until writes have paused long enough
        // (computed under the lock each round holds anyway: waiting for a message never takes
        // the lock, which a write committed on the caller's thread tries for)
        let mut idle_in = None;
        loop {
            let first = match idle_in {
                None => match rx.recv() {
                    Ok(m) => m,
                    Err(_) => break,
                },
                Some(wait) => match rx.recv_timeout(wait) {
                    Ok(m) => m,
                    Err(RecvTimeoutError::Timeout) => {
                        idle_in = lock().as_mut().and_then(|c| {
                            c.reclaim_when_idle();
                            c.reclaim_in()
                        });
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => break,
                },
            };
            let mut g = lock();
            let Some(c) = g.as_mut() else { break };
            let (handled, more) = c.round(first, &rx);
            c.links.outbox.handled(handled);
            c.reclaim_wake = false;
            idle_in = c.reclaim_in();
            if !more {
                break;
            }
        }
        let mut g = lock();
        if let Some(c) = g.as_mut() {
            c.after_group();
            if c.deleted_since_reclaim >= RECLAIM_AFTER_DELETES {
                c.reclaim_now(Reclaim::WhenWorthwhile);
            }
        }
        g.take();
    }

    /// With a reclaim due (deletes since the last one), how long until writes will have paused
    /// for [`RECLAIM_IDLE`]; `None` when none is due.
    fn reclaim_in(&self) -> Option<Duration> {
        (self.deleted_since_reclaim >= RECLAIM_AFTER_DELETES)
            .then(|| RECLAIM_IDLE.saturating_sub(self.last_commit.elapsed()))
    }

    /// Runs the due reclaim if no write was committed for [`RECLAIM_IDLE`] (a write committed on
    /// the caller's thread meanwhile restarts the wait).
    fn reclaim_when_idle(&mut self) {
        if self.reclaim_in() == Some(Duration::ZERO) {
            self.reclaim_now(Reclaim::WhenWorthwhile);
        }
    }

    /// Gives free pages back now (best effort; the store decides, by `when`, whether enough of
    /// the file is free to be worth it).
    fn reclaim_now(&mut self, when: Reclaim) {
        self.deleted_since_reclaim = 0;
        let _ = self.store.reclaim(when);
    }

    /// One round: `first` and every message waiting after it (up to [`MAX_GROUP`] writes) as one
    /// group. Returns the messages handled and whether the loop goes on.
    fn round(&mut self, first: Msg, rx: &Receiver<Msg>) -> (usize, bool) {
        let mut handled = 0;
        // writes held back by the bound go first, in their call order
        let mut writes = std::mem::take(&mut self.held);
        let mut next = Some(first);
        while let Some(m) = next.take() {
            handled += 1;
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
                Msg::Tick => {}
                Msg::Close => {
                    self.closing = true;
                    self.stop_interim();
                }
            }
            if writes.len() < MAX_GROUP {
                next = rx.try_recv().ok();
            }
        }
        self.commit_bounded(&mut writes);
        self.held = writes;
        if self.closing {
            if self.running.is_some() {
                self.after_group();
                return (handled, true); // wait for the cancelled build to report
            }
            for r in self.want_seal.drain(..).chain(self.want_compact.drain(..)) {
                r(Err(Error::Closed));
            }
            self.after_group();
            return (handled, false);
        }
        self.maybe_start_job();
        self.after_group();
        (handled, true)
    }

    /// Tells the binding that a group of replies was made (it may deliver them in one go).
    pub(super) fn after_group(&self) {
        if let Ok(h) = self.links.hook.lock() {
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
        self.commit_group(
            msgs,
            if self.closing {
                Bound::Off
            } else {
                Bound::Hold
            },
        );
        if !msgs.is_empty() && self.running.is_none() {
            self.maybe_start_job();
            let bound = if self.running.is_some() && !self.closing {
                Bound::Hold
            } else {
                Bound::Off
            };
            self.commit_group(msgs, bound);
        }
    }

    /// Applies a group of writes in memory, commits it in one transaction, answers. With
    /// [`Bound::Hold`], the writes from the first one that would take the mutable segment past its bound
    /// stay in `msgs`, in order (backpressure).
    pub(super) fn commit_group(&mut self, msgs: &mut Vec<(WriteRequest, Reply)>, bound: Bound) {
        let hold = bound == Bound::Hold;
        if msgs.is_empty() {
            return;
        }
        let mut done: Vec<(Applied, Reply, usize)> = Vec::with_capacity(msgs.len());
        // answered once the lock is released: a reply may read the collection
        let mut failed: Vec<(Reply, Error)> = Vec::new();
        let bound = self.cfg.mutable_bound();
        {
            let mut guard = write_lock(&self.links.shared);
            let mut rest = std::mem::take(msgs).into_iter();
            while let Some((req, reply)) = rest.next() {
                let put = match &req {
                    WriteRequest::Put { ids, .. } => Some(ids.len()),
                    WriteRequest::Delete { .. } | WriteRequest::DeleteWhere { .. } => None,
                };
                if hold
                    && guard
                        .as_ref()
                        .is_some_and(|col| write_waits(col.mutable_len(), put, bound))
                {
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
            // deletes took the mutable segment a quarter below the live rows an index is built
            // for (a flat scan serves it): an interim index still being built is not worth
            // finishing, and its threads would only take the CPU from the writes (the margin
            // keeps a segment that hovers at the threshold from restarting builds)
            if guard
                .as_ref()
                .is_some_and(|col| col.mutable_len() < INTERIM_STOP_BELOW)
            {
                self.stop_interim();
            }
        }
        for (reply, e) in failed {
            reply(Err(e));
        }
        if done.is_empty() {
            return;
        }
        let muts = group_mutations(done.iter().map(|(a, _, _)| a));
        let t0 = Instant::now();
        let result = self.store.commit(&muts);
        let took = u64::try_from(t0.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.commit_ns = commit_time_ewma(self.commit_ns, took);
        let deleted = muts
            .iter()
            .filter(|m| matches!(m, Mutation::Delete { .. }))
            .count();
        drop(muts);
        match result {
            Ok(()) => {
                self.links.commits.fetch_add(1, Ordering::Relaxed);
                // deletes free database pages: they are given back once writes pause (the
                // committer's loop), or here when writes never pause for long
                self.last_commit = Instant::now();
                let was_due = self.deleted_since_reclaim >= RECLAIM_AFTER_DELETES;
                self.deleted_since_reclaim += deleted;
                if !was_due && self.deleted_since_reclaim >= RECLAIM_AFTER_DELETES {
                    self.reclaim_wake = true;
                }
                if self.deleted_since_reclaim >= RECLAIM_AFTER_DELETES * RECLAIM_DEFER_MAX {
                    self.reclaim_now(Reclaim::DuringWrites);
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

    /// Cancels the interim index being built, if one is.
    pub(super) fn stop_interim(&self) {
        if let Some(stop) = &self.interim_stop {
            stop.store(true, Ordering::Relaxed);
        }
    }

    /// After a failed commit the store holds none of the group: rebuild memory from it (and
    /// the manifest's segments) so that nothing unacknowledged stays visible.
    pub(super) fn reload(&mut self) {
        let reloaded = load(&mut self.store, self.dir.as_ref(), LoadMode::default());
        let mut g = write_lock(&self.links.shared);
        if g.is_some() {
            *g = reloaded.ok();
        }
    }
}
