//! What flows between the handle, the committer and the builds: the shared collection, the
//! write requests with their replies, and the committer's messages.

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
    Close,
}

/// Answers a message that cannot be delivered (the committer is gone) with `HV_CLOSED`.
pub(crate) fn fail_closed(m: Msg) {
    match m {
        Msg::Write(_, r) | Msg::Seal(r) | Msg::Compact(r) => r(Err(Error::Closed)),
        Msg::Built(_) | Msg::Close => {}
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
