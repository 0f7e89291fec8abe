//! A fault-injecting store (the idea of redb's fault-injecting backend): [`FaultyStore`] wraps
//! any [`RecordStore`] and fails chosen commits with `HV_IO` *before* they reach the inner store,
//! as a medium that refuses a write or a sync would — so the inner store holds none of the
//! failed group, as the [`RecordStore::commit`] contract requires. It does not simulate a crash
//! in the middle of a write (no torn or partial commit reaches the inner store). The [`FaultSwitch`] is shared:
//! a test keeps a clone and arms it while the wrapped store belongs to a committer thread.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use super::{ManifestEntry, Mutation, Reclaim, RecordStore, StoredRecord};
use crate::error::{Error, Result};
use crate::types::Metric;

/// When a [`FaultyStore`] fails: shared between the store and the test that drives it.
#[derive(Clone, Debug, Default)]
pub struct FaultSwitch {
    inner: Arc<Switch>,
}

#[derive(Debug, Default)]
struct Switch {
    /// Commits attempted so far (failed ones included).
    attempts: AtomicU64,
    /// Fail the commit whose attempt number (1-based) is this; 0: none.
    fail_at: AtomicU64,
    /// Fail every commit while set.
    fail_all: AtomicBool,
    /// Commits failed so far.
    failed: AtomicU64,
}

impl FaultSwitch {
    /// A switch that fails nothing.
    pub fn new() -> FaultSwitch {
        FaultSwitch::default()
    }

    /// Fails the `n`-th commit from now (1: the next one), once.
    pub fn fail_nth_from_now(&self, n: u64) {
        let s = &self.inner;
        s.fail_at.store(
            s.attempts.load(Ordering::SeqCst) + n.max(1),
            Ordering::SeqCst,
        );
    }

    /// Fails every commit from now on while `on`.
    pub fn fail_all(&self, on: bool) {
        self.inner.fail_all.store(on, Ordering::SeqCst);
    }

    /// Commits attempted so far (failed ones included).
    pub fn attempts(&self) -> u64 {
        self.inner.attempts.load(Ordering::SeqCst)
    }

    /// Commits failed so far.
    pub fn failed(&self) -> u64 {
        self.inner.failed.load(Ordering::SeqCst)
    }

    /// Counts one attempt; true when it must fail.
    fn trip(&self) -> bool {
        let s = &self.inner;
        let n = s.attempts.fetch_add(1, Ordering::SeqCst) + 1;
        let fail = s.fail_all.load(Ordering::SeqCst) || s.fail_at.load(Ordering::SeqCst) == n;
        if fail {
            s.failed.fetch_add(1, Ordering::SeqCst);
        }
        fail
    }
}

/// A [`RecordStore`] that fails the commits its [`FaultSwitch`] names; everything else goes to
/// the inner store unchanged.
pub struct FaultyStore<S: RecordStore> {
    inner: S,
    switch: FaultSwitch,
}

impl<S: RecordStore> FaultyStore<S> {
    /// Wraps `inner`; commits fail as `switch` says.
    pub fn new(inner: S, switch: FaultSwitch) -> Self {
        FaultyStore { inner, switch }
    }

    /// The wrapped store.
    pub fn inner(&self) -> &S {
        &self.inner
    }
}

impl<S: RecordStore> RecordStore for FaultyStore<S> {
    fn shape(&self) -> (usize, Metric) {
        self.inner.shape()
    }

    fn precision(&self) -> crate::rowdata::Precision {
        self.inner.precision()
    }

    fn segments(&mut self) -> Result<Vec<ManifestEntry>> {
        self.inner.segments()
    }

    fn load(&mut self, sink: &mut dyn FnMut(StoredRecord) -> Result<()>) -> Result<()> {
        self.inner.load(sink)
    }

    fn begin_read(&mut self) -> Result<()> {
        self.inner.begin_read()
    }

    fn end_read(&mut self) {
        self.inner.end_read();
    }

    fn reclaim(&mut self, when: Reclaim) -> Result<()> {
        self.inner.reclaim(when)
    }

    fn change_token(&mut self) -> Result<u64> {
        self.inner.change_token()
    }

    /// # Errors
    /// `HV_IO` when the switch names this commit (nothing reaches the inner store), else the
    /// inner store's.
    fn commit(&mut self, muts: &[Mutation<'_>]) -> Result<()> {
        if self.switch.trip() {
            return Err(Error::Io(
                "injected commit failure (FaultyStore): the medium refused the write".into(),
            ));
        }
        self.inner.commit(muts)
    }
}

#[cfg(test)]
mod tests {
    use super::super::MemoryStore;
    use super::*;
    use crate::types::VectorId;

    fn put(s: &mut impl RecordStore, i: u64) -> Result<()> {
        s.commit(&[Mutation::Put {
            id: &VectorId::Int(i),
            seq: i,
            vector: &[i as f32],
            metadata: None,
        }])
    }

    #[test]
    fn fails_the_named_commit_and_nothing_reaches_the_inner_store() {
        let sw = FaultSwitch::new();
        let mut s = FaultyStore::new(MemoryStore::new(1, Metric::L2), sw.clone());
        put(&mut s, 1).unwrap();
        sw.fail_nth_from_now(2);
        put(&mut s, 2).unwrap();
        let e = put(&mut s, 3).unwrap_err();
        assert_eq!(e.code(), crate::ErrorCode::Io);
        put(&mut s, 4).unwrap(); // once only
        sw.fail_all(true);
        assert!(put(&mut s, 5).is_err() && put(&mut s, 6).is_err());
        sw.fail_all(false);
        put(&mut s, 7).unwrap();
        assert_eq!((sw.attempts(), sw.failed()), (7, 3));
        assert_eq!(s.inner().len(), 4); // 1, 2, 4, 7
    }
}
