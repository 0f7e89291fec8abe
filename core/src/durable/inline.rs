//! Writes committed on the caller's thread: when the committer is idle (nothing queued before
//! the write, no write held back, no group being committed), a single write need not travel to
//! the committer thread and its answer back to the caller's event loop. Those two thread hops
//! cost more than a whole small commit on a fast medium (profiled: one futex wake to the
//! committer, one eventfd wake back, per awaited write). [`Cell::try_now`] takes the
//! committer's lock (without waiting for it), applies and commits the write exactly as a group
//! of one ([`Committer::commit_group`]), and answers at once; anything else falls back to the
//! channel. Background jobs are still started by the committer thread, woken only when the
//! policy names one ([`Msg::Tick`]).
//!
//! The policy (`pace.rs`: [`commits_inline`]) keeps the caller's thread from blocking on a slow
//! medium: only while the moving average of a store commit is at most
//! [`INLINE_COMMIT_MAX_NS`](super::INLINE_COMMIT_MAX_NS); past it, writes go to the committer
//! (whose commits keep the average current) and the caller's thread stays free.

use std::sync::{Arc, Mutex, TryLockError};

use super::channel::{read_lock, Msg, Reply, WriteRequest};
use super::committer::{Bound, Committer};
use super::pace::commits_inline;
use super::policy::{next_job, PolicyStats, Requests};
use crate::error::{Error, Result};
use crate::store::RecordStore;

/// A committer behind the lock its thread and the callers share (`None` once it stopped).
pub(crate) type Cell<S> = Mutex<Option<Committer<S>>>;

/// A committer that can take a write on the caller's thread (type-erased for the handle).
pub(crate) trait Inline: Send + Sync {
    /// Commits `req` now when the committer is idle ([`commits_inline`]) and answers it;
    /// gives it back otherwise (busy, queued work, held writes, slow commits, stopped, or the
    /// write would wait for a seal), to be sent to the committer instead.
    fn try_now(&self, req: WriteRequest) -> std::result::Result<Result<usize>, WriteRequest>;
}

impl<S: RecordStore + Send> Inline for Arc<Cell<S>> {
    fn try_now(&self, req: WriteRequest) -> std::result::Result<Result<usize>, WriteRequest> {
        let mut g = match self.try_lock() {
            Ok(g) => g,
            Err(TryLockError::WouldBlock | TryLockError::Poisoned(_)) => return Err(req),
        };
        let Some(c) = g.as_mut() else {
            return Err(req);
        };
        if !commits_inline(
            c.links.outbox.queued(),
            !c.held.is_empty(),
            c.closing,
            c.commit_ns,
        ) {
            return Err(req);
        }
        let slot: Arc<Mutex<Option<Result<usize>>>> = Arc::new(Mutex::new(None));
        let answer = slot.clone();
        let reply: Reply = Box::new(move |r| {
            if let Ok(mut a) = answer.lock() {
                *a = Some(r);
            }
        });
        let mut msgs = vec![(req, reply)];
        c.commit_group(&mut msgs, Bound::Hold);
        if let Some((req, _)) = msgs.pop() {
            return Err(req); // it waits for a seal: the committer holds it
        }
        if c.job_due() || std::mem::take(&mut c.reclaim_wake) {
            // best effort: the committer also looks after its next group (a job to start, or a
            // reclaim to run once writes pause)
            let _ = c.links.outbox.send(Msg::Tick);
        }
        drop(g);
        let r = slot.lock().ok().and_then(|mut a| a.take());
        Ok(r.unwrap_or_else(|| Err(Error::Internal("an inline write was not answered".into()))))
    }
}

impl<S: RecordStore> Committer<S> {
    /// True when [`Committer::maybe_start_job`] would start something now.
    fn job_due(&self) -> bool {
        if self.running.is_some() || self.closing || self.dir.is_none() {
            return false;
        }
        let asked = Requests {
            seal: !self.want_seal.is_empty(),
            compact: !self.want_compact.is_empty(),
        };
        read_lock(&self.links.shared)
            .as_ref()
            .is_some_and(|col| next_job(&PolicyStats::of(col, asked), &self.cfg).is_some())
    }
}
