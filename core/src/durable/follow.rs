//! A read-only view following the writer: [`Follower::refresh`] (reload when the store changed)
//! and [`Poller`], the background thread that calls it at an interval.
//!
//! A refresh asks the store for its [change token](RecordStore::change_token) (SQLite's
//! `PRAGMA data_version`: no I/O, no cost to the writer) and returns at once when it did not
//! change. Otherwise it builds a whole new in-memory collection from ONE consistent read of the
//! store ([`load_reusing`], as at open), so the view moves from one committed state to a later
//! one and never shows part of a group. The sealed segments already mapped are reused by
//! generation (a segment file never changes; its tombstones are read again from the manifest);
//! the mutable records are read again in full: there is no incremental change log, so a
//! refresh costs about what loading the mutable segment at open costs (measured by
//! `bench/follow.mjs`). Searches keep running on the old collection during the reload and wait
//! only for the swap under the write lock. The reader's read transaction lasts one load; in WAL
//! mode it neither blocks the writer nor is blocked by it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::channel::{read_lock, write_lock, SharedCollection};
use super::files::SegmentDir;
use super::load::{load_reusing, LoadMode, Mapped};
use crate::error::{Error, Result};
use crate::segment::warm_up;
use crate::store::RecordStore;

/// How much longer than the last reload the poller waits before the next poll: reloads under
/// sustained writes take at most 1/(1+4) = 20 % of one core.
pub const BACKOFF: u32 = 4;

/// Counters of a following view, read by `stats()`.
#[derive(Default)]
pub struct FollowStats {
    /// Reloads done (refreshes that found a change).
    pub refreshes: AtomicU64,
    /// Duration of the last reload, in microseconds.
    pub last_refresh_us: AtomicU64,
    /// Failed background refreshes (the next poll tries again).
    pub errors: AtomicU64,
}

/// The read-only view's store and what its refresh needs.
pub(super) struct Follower {
    pub(super) store: Box<dyn RecordStore + Send>,
    pub(super) dir: Option<SegmentDir>,
    pub(super) verify: bool,
    /// The store's change token read before the last load.
    pub(super) token: u64,
    pub(super) shared: SharedCollection,
    pub(super) stats: Arc<FollowStats>,
}

impl Follower {
    /// Reloads when the store changed since the last load; true when it did.
    ///
    /// # Errors
    /// `HV_CLOSED`, the store's (`HV_IO`, `HV_CORRUPT`), a segment's (`HV_CORRUPT`,
    /// `HV_VERSION`), `HV_OUT_OF_MEMORY`; the view keeps its previous state.
    pub(super) fn refresh(&mut self) -> Result<bool> {
        // read before the load: a commit after this read is seen by the next refresh
        let token = self.store.change_token()?;
        if token == self.token {
            return Ok(false);
        }
        let started = Instant::now();
        let mapped: Mapped = match read_lock(&self.shared).as_ref() {
            None => return Err(Error::Closed),
            Some(c) => c
                .sealed()
                .iter()
                .map(|p| (p.segment().generation(), p.segment().clone()))
                .collect(),
        };
        let mode = LoadMode {
            verify: self.verify,
            read_only: true,
        };
        let col = load_reusing(self.store.as_mut(), self.dir.as_ref(), mode, &mapped)?;
        let fresh: Vec<_> = col
            .sealed()
            .iter()
            .map(|p| p.segment().clone())
            .filter(|s| !mapped.contains_key(&s.generation()))
            .collect();
        {
            let mut g = write_lock(&self.shared);
            if g.is_none() {
                return Err(Error::Closed);
            }
            *g = Some(col);
        }
        drop(mapped); // the last references to the segments a compaction removed
        warm_up(fresh);
        self.token = token;
        let us = started.elapsed().as_micros() as u64;
        self.stats.refreshes.fetch_add(1, Ordering::Relaxed);
        self.stats.last_refresh_us.store(us, Ordering::Relaxed);
        Ok(true)
    }
}

/// The follower of a read-only view (`None` once closed), shared by explicit refreshes and the
/// poller.
pub(super) type SharedFollower = Arc<Mutex<Option<Follower>>>;

/// The background thread polling a follower: stopped (and joined) by [`Poller::stop`].
pub(super) struct Poller {
    stop: Arc<(Mutex<bool>, Condvar)>,
    handle: Option<JoinHandle<()>>,
}

impl Poller {
    /// Starts polling `follower` every `interval`, or later: the next poll waits at least
    /// [`BACKOFF`] × the last reload's duration.
    ///
    /// # Errors
    /// `HV_IO` when the thread cannot start.
    pub(super) fn start(follower: SharedFollower, interval: Duration) -> Result<Poller> {
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let flag = stop.clone();
        let handle = std::thread::Builder::new()
            .name("horosvec-follow".into())
            .spawn(move || {
                let mut wait = interval;
                loop {
                    {
                        let (m, cv) = &*flag;
                        let Ok(g) = m.lock() else { return };
                        let Ok((g, _)) = cv.wait_timeout_while(g, wait, |s| !*s) else {
                            return;
                        };
                        if *g {
                            return;
                        }
                    }
                    let started = Instant::now();
                    let Ok(mut f) = follower.lock() else { return };
                    let Some(f) = f.as_mut() else { return };
                    if f.refresh().is_err() {
                        f.stats.errors.fetch_add(1, Ordering::Relaxed);
                    }
                    wait = interval.max(started.elapsed() * BACKOFF);
                }
            })
            .map_err(|e| Error::Io(format!("cannot start the follow thread: {e}")))?;
        Ok(Poller {
            stop,
            handle: Some(handle),
        })
    }

    /// Stops the thread and waits for it (a reload in progress finishes first).
    pub(super) fn stop(&mut self) {
        let (m, cv) = &*self.stop;
        if let Ok(mut s) = m.lock() {
            *s = true;
        }
        cv.notify_all();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}
