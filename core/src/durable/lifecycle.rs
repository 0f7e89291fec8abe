//! The segment lifecycle on the committer thread: between two write groups, start the background
//! job that [`super::policy::next_job`] names (a seal, a compaction, an interim index), and when
//! its result comes back, install it: the typed ticket it carries is consumed by the
//! collection's install, then one manifest transaction commits the swap.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::channel::{read_lock, write_lock, Msg, Reply};
use super::committer::Committer;
use super::jobs::{self, Built, JobKind, Workshop};
use super::manifest::swap_mutations;
use super::policy::{next_job, Job, PolicyStats, Requests};
use crate::collection::Collection;
use crate::error::{Error, Result};
use crate::store::{Reclaim, RecordStore};

impl<S: RecordStore> Committer<S> {
    /// Starts the background job the policy names, if none runs; answers the seal and
    /// compaction requests that the job does not serve (0: nothing to do).
    pub(super) fn maybe_start_job(&mut self) {
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
        // The copies of the mutable rows for a seal (every live row, so that a backlog is sealed
        // in one go) or an interim index are made under the read lock, so searches go on. The
        // committer is the only writer of records; should anything else have changed the
        // collection before the write lock is taken (an in-memory index installed by
        // `buildIndex`), `begin_seal` refuses the copy and it is made again under the lock.
        let (job, seal_input) = {
            let guard = read_lock(&shared);
            let Some(col) = guard.as_ref() else { return };
            let job = next_job(
                &PolicyStats::of(
                    col,
                    Requests {
                        seal: !self.want_seal.is_empty(),
                        compact: !self.want_compact.is_empty(),
                    },
                ),
                &self.cfg,
            );
            let input = (job == Some(Job::Seal)).then(|| col.seal_input()).flatten();
            (job, input)
        };
        let shop = Workshop {
            dir,
            params: self.cfg.index,
            cancel: self.links.cancel.clone(),
        };
        if let Some(input) = seal_input {
            // a copy the collection changed since is made again under the write lock (nothing
            // can interleave there), so a requested seal does not wait for the next message
            let Some(ticket) = write_lock(&shared).as_mut().and_then(|c| {
                c.begin_seal(input)
                    .or_else(|| c.seal_input().and_then(|copy| c.begin_seal(copy)))
            }) else {
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
            // an interim index of the mutable segment, so that it is not scanned exactly; with a
            // cancel flag of its own, raised by close or by deletes that leave the segment too
            // few live rows to need one (`Committer::commit_group`)
            let Some(ticket) = read_lock(&shared).as_ref().map(Collection::begin_interim) else {
                return;
            };
            let stop = Arc::new(AtomicBool::new(false));
            let shop = Workshop {
                cancel: stop.clone(),
                ..shop
            };
            self.start(JobKind::Interim, shop, Vec::new(), jobs::interim(ticket));
            if self.running.is_some() {
                self.interim_stop = Some(stop);
            }
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
        let outbox = self.links.outbox.clone();
        let deliver = move |b: Built| {
            let _ = outbox.send(Msg::Built(Box::new(b)));
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
    pub(super) fn install(&mut self, built: Built) {
        let waiters = self.running.take().unwrap_or_default();
        self.interim_stop = None;
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
                let _ = self.store.reclaim(Reclaim::Always);
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
