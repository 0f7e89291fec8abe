//! A collection whose writes are durable: natively (feature `durable`) with group commit on a
//! committer thread (`DurableCollection`, below); in the wasm build, driven on the calling
//! thread by [`LocalDurable`] (`local.rs`: the browser's OPFS collections), which reuses the
//! thread-free parts: `request`, `manifest`, `policy`, `built`, `restore`.
//!
//! `DurableCollection::open` loads the records of a [`RecordStore`](crate::store::RecordStore) into an in-memory
//! [`Collection`](crate::collection::Collection) shared behind a lock (`SharedCollection`), and starts one committer thread
//! that owns the store. Writers `DurableCollection::submit` requests into a channel, in
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
//! When the committer is idle, `DurableCollection::submit_now` runs these four steps for one
//! request on the caller's thread instead (`inline`: no hop to the committer and back; slow
//! media stay on the committer, `pace`).
//!
//! If the commit fails, the collection is reloaded from the store (which holds none of the
//! group) and every request of the group gets the error: an acknowledged write is always durable
//! and an unacknowledged group never reaches the store. The store's transaction is atomic, so a
//! crash at any moment leaves each request wholly present or wholly absent.
//!
//! Readers never wait for the sync (it happens outside the lock); a reader may observe a write
//! of the group being synced before the writer is told it is durable.
//!
//! A read-only view (another process's, or this one's) follows the writer:
//! `DurableCollection::refresh` reloads it when the store changed, from one consistent read
//! (never part of a group), reusing the segments already mapped; `DurableCollection::follow`
//! polls in a background thread. See `follow`.
//!
//! The parts (private modules): `handle` (the handle), `channel` (the shared collection, the
//! replies, and the committer's messages), `request` (the write requests), `committer` (the group-commit loop),
//! `inline` (a write committed on the caller's thread), `pace` (commit times and when a write
//! commits inline), `background` (the low-priority pool of the interim-index builds), `files`
//! (`SegmentDir`: the segment files of the directory), `jobs` (the background builds, each
//! with its swap ticket, handing back what they built), `lifecycle` (starting jobs and
//! installing their results between two groups: where the tickets are consumed), `follow` (a
//! read-only view's refresh and its polling thread), `load` (the
//! in-memory collection from the store and the segment files, at open and after a failed
//! commit; `restore`, its thread-free part), `built` (a build's result and its install),
//! `local` (the single-threaded driver), `manifest` (the store mutations of a group and of a swap; `apply`, one write request
//! applied to the collection), `policy` (when to seal, compact or build an interim index, and
//! when a write waits: pure functions of a few numbers).
//!
//! # Sealed segments
//!
//! Design: `../shared/design/seed-vector-database.md` §2.4–2.8 (outside the repository).
//!
//! The in-memory rows are the mutable segment. When it reaches
//! [`SegmentConfig::max_mutable_records`] (or on `DurableCollection::seal`), the committer
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
//! `DurableCollection::compact` (it merges all). Its memory is the live rows of the segments
//! it merges; the old files are removed after the manifest commit. Searches hold the read lock
//! only, so they run during builds and wait only for the short swaps.

#[cfg(feature = "durable")]
mod background;
mod built;
#[cfg(feature = "durable")]
mod channel;
#[cfg(feature = "durable")]
mod committer;
#[cfg(feature = "durable")]
mod files;
#[cfg(feature = "durable")]
mod follow;
#[cfg(feature = "durable")]
mod handle;
#[cfg(feature = "durable")]
mod inline;
#[cfg(feature = "durable")]
mod jobs;
#[cfg(feature = "durable")]
mod lifecycle;
#[cfg(feature = "durable")]
mod load;
mod local;
mod manifest;
#[cfg(feature = "durable")]
mod pace;
mod policy;
mod request;
mod restore;

#[cfg(feature = "durable")]
pub use channel::{GroupHook, Reply, SharedCollection, MAX_GROUP};
#[cfg(feature = "durable")]
pub use follow::{FollowStats, BACKOFF};
#[cfg(feature = "durable")]
pub use handle::DurableCollection;
pub use local::{Job as LocalJob, LocalDurable, Swapped as LocalSwap};
#[cfg(feature = "durable")]
pub use pace::INLINE_COMMIT_MAX_NS;
pub use policy::SegmentConfig;
pub use request::WriteRequest;
