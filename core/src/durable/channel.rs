//! What flows between the handle, the committer and the builds: the shared collection, the
//! write requests with their replies, and the committer's messages.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{SendError, Sender};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::built::Built;
pub use super::request::WriteRequest;
use crate::collection::Collection;
use crate::error::{Error, Result};

/// The in-memory collection shared between the binding (searches), the committer and builds;
/// `None` once closed.
pub type SharedCollection = Arc<RwLock<Option<Collection>>>;

/// Answer to a request: for a write, the number of records written (or deleted); for a seal,
/// the number of records sealed; for a compaction, the number of segments merged; or the
/// error.
pub type Reply = Box<dyn FnOnce(Result<usize>) + Send>;

/// Called by the committer after it answered a group of requests (see
/// [`super::DurableCollection::set_group_hook`]).
pub type GroupHook = Box<dyn Fn() + Send>;

/// Most requests committed as one group.
pub const MAX_GROUP: usize = 4096;

/// What the committer receives.
pub(crate) enum Msg {
    Write(WriteRequest, Reply),
    Seal(Reply),
    Compact(Reply),
    Built(Box<Built>),
    /// Start the job the policy names (sent after a write committed on the caller's thread).
    Tick,
    Close,
}

/// The sending side of the committer's channel, counting the messages sent and not yet handled
/// (the committer subtracts a group's count once it is done), so that a write is committed on
/// the caller's thread only while nothing is queued before it.
#[derive(Clone)]
pub(crate) struct Outbox {
    tx: Sender<Msg>,
    queued: Arc<AtomicUsize>,
}

impl Outbox {
    pub(crate) fn new(tx: Sender<Msg>) -> Outbox {
        Outbox {
            tx,
            queued: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Sends `m`; gives it back when the committer is gone.
    pub(crate) fn send(&self, m: Msg) -> std::result::Result<(), Msg> {
        self.queued.fetch_add(1, Ordering::AcqRel);
        self.tx.send(m).map_err(|SendError(m)| {
            self.queued.fetch_sub(1, Ordering::AcqRel);
            m
        })
    }

    /// Messages sent and not yet handled.
    pub(crate) fn queued(&self) -> usize {
        self.queued.load(Ordering::Acquire)
    }

    /// The committer handled `n` messages.
    pub(crate) fn handled(&self, n: usize) {
        self.queued.fetch_sub(n, Ordering::AcqRel);
    }
}

/// Answers a message that cannot be delivered (the committer is gone) with `HV_CLOSED`.
pub(crate) fn fail_closed(m: Msg) {
    match m {
        Msg::Write(_, r) | Msg::Seal(r) | Msg::Compact(r) => r(Err(Error::Closed)),
        Msg::Built(_) | Msg::Tick | Msg::Close => {}
    }
}

/// The read lock of `shared` (a poisoned lock is taken over: every change under it is whole).
pub(crate) fn read_lock(shared: &SharedCollection) -> RwLockReadGuard<'_, Option<Collection>> {
    shared.read().unwrap_or_else(|p| p.into_inner())
}

/// The write lock of `shared` (a poisoned lock is taken over).
pub(crate) fn write_lock(shared: &SharedCollection) -> RwLockWriteGuard<'_, Option<Collection>> {
    shared.write().unwrap_or_else(|p| p.into_inner())
}
