//! The committer thread: the only writer of the collection and the owner of the store. It takes
//! every request waiting in its channel as one group, applies it in memory, commits it in one
//! transaction and answers (see [`super`]); between groups it starts the background job
//! [`super::policy::next_job`] names and swaps finished ones in.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};

use super::channel::GroupHook;
use super::channel::{
    read_lock, write_lock, Msg, Reply, SharedCollection, WriteRequest, MAX_GROUP,
};
use super::jobs::{self, Built, JobKind, Workshop};
use super::load::load;
use super::manifest::{apply, group_mutations, swap_mutations, Applied, SegmentDir};
use super::policy::{next_job, write_waits, Job, PartStats, PolicyStats, SegmentConfig};
use crate::collection::Collection;
use crate::error::{Error, Result};
use crate::store::{Mutation, RecordStore};

/// Records deleted from the store after which its free pages are given back (when enough of the
/// file is free: [`RecordStore::reclaim`]).
const RECLAIM_AFTER_DELETES: usize = 1024;

/// The state the committer shares with the handle.
pub(crate) struct Links {
    pub(crate) shared: SharedCollection,
    pub(crate) hook: Arc<Mutex<Option<GroupHook>>>,
    pub(crate) commits: Arc<AtomicU64>,
    pub(crate) cancel: Arc<AtomicBool>,
    /// The committer's own channel (finished builds are sent to it).
    pub(crate) tx: Sender<Msg>,
}

/// The group-commit loop and its state.
pub(crate) struct Committer<S: RecordStore> {
    links: Links,
    store: S,
    dir: Option<SegmentDir>,
    cfg: SegmentConfig,
    next_gen: u64,
    /// While a background job runs: the replies owed when it is installed.
    running: Option<Vec<Reply>>,
    /// Replies owed to [`super::DurableCollection::seal`] / `compact` calls not yet started.
    want_seal: Vec<Reply>,
    want_compact: Vec<Reply>,
    closing: bool,
    /// Writes held back, in call order, until a seal makes room in the mutable segment
    /// (backpressure: [`SegmentConfig::mutable_bound`]).
    held: Vec<(WriteRequest, Reply)>,
    /// Records deleted from the store since its free pages were last given back.
    deleted_since_reclaim: usize,
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
            want_seal: Vec::new(),
            want_compact: Vec::new(),
            closing: false,
            held: Vec::new(),
            deleted_since_reclaim: 0,
        }
    }

    /// The loop: until [`Msg::Close`] and the running job reported, or the channel closes.
    pub(crate) fn run(&mut self, rx: Receiver<Msg>) {
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
                if self.running.is_some() {
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
        self.commit_group(msgs, !self.closing);
        if !msgs.is_empty() && self.running.is_none() {
            self.maybe_start_job();
            let hold = self.running.is_some() && !self.closing;
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
            let mut guard = write_lock(&self.links.shared);
            let mut rest = std::mem::take(msgs).into_iter();
            while let Some((req, reply)) = rest.next() {
                let put = match &req {
                    WriteRequest::Put { ids, .. } => Some(ids.len()),
                    WriteRequest::Delete { .. } => None,
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
        }
        for (reply, e) in failed {
            reply(Err(e));
        }
        if done.is_empty() {
            return;
        }
        let muts = group_mutations(done.iter().map(|(a, _, _)| a));
        let result = self.store.commit(&muts);
        let deleted = muts
            .iter()
            .filter(|m| matches!(m, Mutation::Delete { .. }))
            .count();
        drop(muts);
        match result {
            Ok(()) => {
                self.links.commits.fetch_add(1, Ordering::Relaxed);
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
        let reloaded = load(&mut self.store, self.dir.as_ref(), false, false);
        let mut g = write_lock(&self.links.shared);
        if g.is_some() {
            *g = reloaded.ok();
        }
    }

    /// Starts the background job the policy names, if none runs; answers the seal and
    /// compaction requests that the job does not serve (0: nothing to do).
    fn maybe_start_job(&mut self) {
        if self.running.is_some() || self.closing {
            return;
        }
        let Some(dir) = self.dir.clone() else {
            for r in self.want_seal.drain(..).chain(self.want_compact.drain(..)) {
                r(Err(Error::Unsupported(
                    "sealing needs a collection directory".into(),
                )));
            }
            return;
        };
        let shared = self.links.shared.clone();
        // The committer is the only writer, so what it reads under the read lock stays true until
        // it takes the write lock: the copies of the mutable rows for a seal (every row, so that a
        // backlog is sealed in one go) or an interim index are made under the read lock, and
        // searches go on.
        let (job, seal_input) = {
            let guard = read_lock(&shared);
            let Some(col) = guard.as_ref() else { return };
            let job = next_job(&self.stats(col), &self.cfg);
            let input = (job == Some(Job::Seal)).then(|| col.seal_input()).flatten();
            (job, input)
        };
        let shop = Workshop {
            dir,
            params: self.cfg.index,
            cancel: self.links.cancel.clone(),
        };
        if let Some(input) = seal_input {
            let Some(ticket) = write_lock(&shared)
                .as_mut()
                .and_then(|c| c.begin_seal(input))
            else {
                return;
            };
            let waiters = std::mem::take(&mut self.want_seal);
            let generation = self.take_generation();
            return self.start(JobKind::Seal, shop, waiters, jobs::seal(ticket, generation));
        }
        let ticket = match &job {
            Some(Job::Compact(parts)) => write_lock(&shared)
                .as_mut()
                .and_then(|c| c.begin_compaction(parts)),
            Some(Job::Interim { drop_dead: true } | Job::DropDeadRows) => {
                if let Some(c) = write_lock(&shared).as_mut() {
                    c.drop_dead_rows();
                }
                None
            }
            _ => None,
        };
        // nothing to seal: answered after the lock is released (a reply may read the collection)
        for r in self.want_seal.drain(..) {
            r(Ok(0));
        }
        if let Some(ticket) = ticket {
            let waiters = std::mem::take(&mut self.want_compact);
            let generation = self.take_generation();
            return self.start(
                JobKind::Compact,
                shop,
                waiters,
                jobs::compact(ticket, generation),
            );
        }
        for r in self.want_compact.drain(..) {
            r(Ok(0));
        }
        if let Some(Job::Interim { .. }) = job {
            // an interim index of the mutable segment, so that it is not scanned exactly
            let Some(ticket) = read_lock(&shared).as_ref().map(Collection::begin_interim) else {
                return;
            };
            self.start(JobKind::Interim, shop, Vec::new(), jobs::interim(ticket));
        }
    }

    /// The numbers the policy decides from.
    fn stats(&self, col: &Collection) -> PolicyStats {
        PolicyStats {
            mutable_live: col.mutable_len(),
            mutable_rows: col.mutable_rows(),
            interim_covered: col.mutable_covered(),
            sealed: col
                .sealed()
                .iter()
                .map(|p| PartStats {
                    live: p.live(),
                    tombstone_ratio: p.tombstone_ratio(),
                })
                .collect(),
            seal_requested: !self.want_seal.is_empty(),
            compact_requested: !self.want_compact.is_empty(),
        }
    }

    /// The generation of the next segment file.
    fn take_generation(&mut self) -> u64 {
        let g = self.next_gen;
        self.next_gen += 1;
        g
    }

    /// Starts `work` ([`jobs::spawn`]); `waiters` are answered when it is installed. If the
    /// thread cannot start, the swap is abandoned (its ticket dropped) and the waiters get `HV_IO`.
    fn start(
        &mut self,
        kind: JobKind,
        shop: Workshop,
        waiters: Vec<Reply>,
        work: impl FnOnce(&Workshop) -> Built + Send + 'static,
    ) {
        let tx = self.links.tx.clone();
        let deliver = move |b: Built| {
            let _ = tx.send(Msg::Built(Box::new(b)));
        };
        match jobs::spawn(kind, shop, work, deliver) {
            Ok(()) => self.running = Some(waiters),
            Err(e) => {
                for r in waiters {
                    r(Err(e.clone()));
                }
            }
        }
    }

    /// Swaps a finished build in: memory under the write lock, then one manifest transaction.
    fn install(&mut self, built: Built) {
        let waiters = self.running.take().unwrap_or_default();
        let answer = |r: Result<usize>| {
            for w in waiters {
                w(r.clone());
            }
        };
        let built = match built {
            Built::Interim { result, ticket } => {
                // memory only: nothing to commit; a stale or failed build is simply dropped
                if let (Ok(ix), false) = (result, self.closing) {
                    if let Some(c) = write_lock(&self.links.shared).as_mut() {
                        c.install_interim(*ix, ticket);
                    }
                }
                return answer(Ok(0));
            }
            other => other,
        };
        if self.closing {
            drop(built); // its ticket aborts the swap
            return answer(Err(Error::Closed));
        }
        let swapped = match write_lock(&self.links.shared).as_mut() {
            None => Err(Error::Closed),
            Some(col) => built.install(col),
        };
        let (seg, outcome, count) = match swapped {
            Ok(x) => x,
            Err(e) => return answer(Err(e)),
        };
        let muts = swap_mutations(seg.as_deref(), &outcome);
        let result = self.store.commit(&muts);
        drop(muts);
        match result {
            Ok(()) => {
                self.links.commits.fetch_add(1, Ordering::Relaxed);
                if let Some(dir) = &self.dir {
                    // the old files of a compaction: mappings stay valid until their last reader
                    for &g in &outcome.removed {
                        dir.remove(g);
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
                    dir.remove(seg.generation());
                }
                answer(Err(e));
            }
        }
    }
}
