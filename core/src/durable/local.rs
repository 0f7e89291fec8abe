//! [`LocalDurable`]: a durable collection driven on the calling thread, for the wasm build (no
//! threads; the browser's files are reached only through the page's JS). The contract is the
//! committer's (see the parent module) with the same parts: a write request is applied to the
//! collection all or nothing (`manifest::apply`), its mutations (`manifest::group_mutations`)
//! are committed to the store as one group, and only then answered; a failed commit reloads
//! the collection from the store, so nothing unacknowledged stays visible. One request is one
//! group (the caller's calls come one at a time).
//!
//! Segments follow `policy::next_job` and the collection's swap tickets, in three steps
//! because the binding writes the segment file asynchronously:
//! [`start_job`](LocalDurable::start_job) builds the segment on this thread (an interim index
//! or dropping dead rows is done there and then) and hands out its file's bytes; the caller
//! writes and flushes them as the file of that generation; [`install`](LocalDurable::install)
//! swaps the segment in and commits the manifest mutations (`manifest::swap_mutations`), and
//! says which generations' files may now be removed; [`abort`](LocalDurable::abort) (the file
//! could not be written) drops the ticket, which aborts the swap. A crash between the file and
//! the manifest commit leaves an orphan file: the caller removes every segment file that
//! [`live_segments`](LocalDurable::live_segments) does not name, at open.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::built::Built;
use super::manifest::{apply, group_mutations, swap_mutations};
use super::policy::{next_job, Job as PolicyJob, PolicyStats, Requests, SegmentConfig};
use super::request::WriteRequest;
use super::restore::{check_segment, restore};
use crate::collection::{Collection, SealInput};
use crate::error::{Error, Result};
use crate::segment::{segment_bytes, Segment};
use crate::store::{Reclaim, RecordStore};

/// A segment built by [`LocalDurable::start_job`], waiting for its file.
#[derive(Debug)]
pub struct Job<'a> {
    /// The generation whose file `bytes` are; `None` when the swap writes no file (a compaction
    /// that left no live row): call [`LocalDurable::install`] at once.
    pub generation: Option<u64>,
    /// The file's bytes (empty without a file).
    pub bytes: &'a [u8],
    /// A seal (else a compaction).
    pub seal: bool,
}

/// What [`LocalDurable::install`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Swapped {
    /// A seal (else a compaction).
    pub seal: bool,
    /// Records sealed, or segments merged.
    pub count: usize,
    /// Generations whose files are no longer named by the manifest (a compaction's inputs).
    pub removed: Vec<u64>,
}

struct Pending {
    built: Built,
    generation: Option<u64>,
    bytes: Vec<u8>,
    seal: bool,
}

/// A durable collection over `S`, driven on the calling thread (see the module documentation).
pub struct LocalDurable<S: RecordStore> {
    col: Option<Collection>,
    store: S,
    cfg: SegmentConfig,
    /// The sealed segments in memory, by generation (a reload takes them from here).
    segments: HashMap<u64, Arc<Segment>>,
    next_gen: u64,
    pending: Option<Pending>,
    asked: Requests,
    /// After a failed seal or compaction: none is started unasked before the mutable segment
    /// holds this many live records (so a full quota does not cost a build per write).
    retry_at: usize,
    commits: u64,
    cancel: AtomicBool,
}

impl<S: RecordStore> LocalDurable<S> {
    /// Opens the collection kept in `store`: the manifest's segments, each read by
    /// `read_segment(generation)` (the bytes of its file, `None` when it is missing), then the
    /// store's mutable records. No index is rebuilt: a segment's comes from its file.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` (configuration), `HV_CORRUPT` (a missing or damaged segment file),
    /// `HV_VERSION`, the store's and `read_segment`'s errors, `HV_OUT_OF_MEMORY`.
    pub fn open(
        mut store: S,
        cfg: SegmentConfig,
        read_segment: &mut dyn FnMut(u64) -> Result<Option<Vec<u8>>>,
    ) -> Result<Self> {
        cfg.validate()?;
        let (dim, metric) = store.shape();
        let manifest = store.segments()?;
        let mut segments = HashMap::new();
        let col = restore(&mut store, &manifest, &mut |e| {
            let bytes = read_segment(e.generation)?.ok_or_else(|| {
                Error::Corrupt(format!(
                    "the file of segment {} is missing (the manifest lists it)",
                    e.generation
                ))
            })?;
            let seg = Arc::new(Segment::from_bytes(&bytes, (e.generation, dim, metric))?);
            check_segment(&seg, e, cfg.verify)?;
            segments.insert(e.generation, seg.clone());
            Ok(seg)
        })?;
        let next_gen = segments.keys().max().map_or(1, |g| g + 1);
        Ok(LocalDurable {
            col: Some(col),
            store,
            cfg,
            segments,
            next_gen,
            pending: None,
            asked: Requests::default(),
            retry_at: 0,
            commits: 0,
            cancel: AtomicBool::new(false),
        })
    }

    /// The in-memory collection (every read goes here).
    ///
    /// # Errors
    /// `HV_CLOSED`, or after a failed commit whose reload failed too (the store is as it was:
    /// reopen).
    pub fn collection(&self) -> Result<&Collection> {
        self.col.as_ref().ok_or(Error::Closed)
    }

    /// The generations the manifest names, ascending: every other segment file is an orphan.
    pub fn live_segments(&self) -> Vec<u64> {
        let mut g: Vec<u64> = self.segments.keys().copied().collect();
        g.sort_unstable();
        g
    }

    /// Store commits since open.
    pub fn commits(&self) -> u64 {
        self.commits
    }

    /// The bound a durable collection's mutable segment is held to
    /// ([`SegmentConfig::mutable_bound`]; here a seal runs before the next write, so it is
    /// passed by at most one batch).
    pub fn mutable_bound(&self) -> usize {
        self.cfg.mutable_bound()
    }

    /// Applies `req` all or nothing and commits it; the number of records written or deleted.
    ///
    /// # Errors
    /// The write's validation codes (nothing applied), `HV_CLOSED`, or the store's commit error
    /// (`HV_IO`, `HV_QUOTA`): the collection is then reloaded from the store, which holds none
    /// of the request.
    pub fn write(&mut self, req: WriteRequest) -> Result<usize> {
        let col = self.col.as_mut().ok_or(Error::Closed)?;
        let (applied, n) = apply(col, req)?;
        let muts = group_mutations(std::iter::once(&applied));
        match self.store.commit(&muts) {
            Ok(()) => {
                self.commits += 1;
                // a checkpoint when the log has grown enough; best effort (the write is durable)
                let _ = self.store.reclaim(Reclaim::WhenWorthwhile);
                Ok(n)
            }
            Err(e) => {
                drop(muts);
                self.reload();
                Err(e)
            }
        }
    }

    /// Rebuilds the collection from the store and the segments in memory (after a failed
    /// commit); if even that fails the collection reads as closed.
    fn reload(&mut self) {
        // a swap begun on the old collection cannot be installed in the new one
        self.pending = None;
        let segments = &self.segments;
        let reloaded = self.store.segments().and_then(|manifest| {
            restore(&mut self.store, &manifest, &mut |e| {
                segments.get(&e.generation).cloned().ok_or_else(|| {
                    Error::Corrupt(format!("segment {} is not in memory", e.generation))
                })
            })
        });
        self.col = reloaded.ok();
    }

    /// Asks for a seal of the mutable segment (started by the next [`start_job`](Self::start_job)).
    pub fn ask_seal(&mut self) {
        self.asked.seal = true;
    }

    /// Asks for a compaction of every sealed segment (started by the next
    /// [`start_job`](Self::start_job)).
    pub fn ask_compact(&mut self) {
        self.asked.compact = true;
    }

    /// Runs what the policy asks for now: an interim index of the mutable segment, or dropping
    /// its dead rows, is done here; a seal or compaction is built here and its segment file's
    /// bytes handed out (`None`: nothing, or nothing more, to do). A request made with
    /// [`ask_seal`](Self::ask_seal) / [`ask_compact`](Self::ask_compact) with nothing to do is
    /// dropped (its answer is 0). While a job waits for [`install`](Self::install) or
    /// [`abort`](Self::abort), returns it again.
    ///
    /// # Errors
    /// `HV_CLOSED`, the build's (`HV_OUT_OF_MEMORY`, `HV_CORRUPT` of a segment read for a
    /// compaction); the swap is then abandoned.
    pub fn start_job(&mut self) -> Result<Option<Job<'_>>> {
        if self.pending.is_none() {
            self.pending = self.next_pending()?;
        }
        Ok(self.pending.as_ref().map(|p| Job {
            generation: p.generation,
            bytes: &p.bytes,
            seal: p.seal,
        }))
    }

    fn next_pending(&mut self) -> Result<Option<Pending>> {
        // an interim index or dropped rows change what the policy says next: a few rounds
        for _ in 0..4 {
            let col = self.col.as_mut().ok_or(Error::Closed)?;
            let job = next_job(&PolicyStats::of(col, self.asked), &self.cfg);
            let unasked = !self.asked.seal && !self.asked.compact;
            match job {
                Some(PolicyJob::Seal | PolicyJob::Compact(_))
                    if unasked && col.mutable_len() < self.retry_at => {}
                Some(PolicyJob::Seal) => return self.seal().map(Some),
                Some(PolicyJob::Compact(parts)) => return self.compact(&parts),
                Some(PolicyJob::Interim { drop_dead }) => {
                    if drop_dead {
                        col.drop_dead_rows();
                    }
                    let ticket = col.begin_interim();
                    if let Ok(ix) = ticket.input().build_index(self.cfg.index, &self.cancel) {
                        col.install_interim(ix, ticket);
                    }
                    continue;
                }
                Some(PolicyJob::DropDeadRows) => {
                    col.drop_dead_rows();
                    continue;
                }
                None => {}
            }
            break;
        }
        self.asked = Requests::default();
        Ok(None)
    }

    /// Remembers a failed seal or compaction (see `retry_at`) and passes its error on.
    fn failed(&mut self, e: Error) -> Error {
        let live = self.col.as_ref().map_or(0, Collection::mutable_len);
        self.retry_at = live + (self.cfg.max_mutable_records / 4).max(1);
        self.asked = Requests::default();
        e
    }

    fn take_generation(&mut self) -> u64 {
        let g = self.next_gen;
        self.next_gen += 1;
        g
    }

    fn build(&self, generation: u64, input: &SealInput) -> Result<(Arc<Segment>, Vec<u8>)> {
        let ix = input.build_index(self.cfg.index, &self.cancel)?;
        let bytes = segment_bytes(generation, &input.rows(), &ix)?;
        let seg = Segment::from_bytes(&bytes, (generation, input.dim, input.metric))?;
        Ok((Arc::new(seg), bytes))
    }

    fn seal(&mut self) -> Result<Pending> {
        let col = self.col.as_mut().ok_or(Error::Closed)?;
        let ticket = col
            .seal_input()
            .and_then(|copy| col.begin_seal(copy))
            .ok_or_else(|| Error::Internal("a seal is due but cannot begin".into()))?;
        self.asked.seal = false;
        let generation = self.take_generation();
        match self.build(generation, ticket.input()) {
            Ok((seg, bytes)) => Ok(Pending {
                built: Built::Seal {
                    ticket,
                    result: Ok(seg),
                },
                generation: Some(generation),
                bytes,
                seal: true,
            }),
            Err(e) => Err(self.failed(e)),
        }
    }

    fn compact(&mut self, parts: &[usize]) -> Result<Option<Pending>> {
        let col = self.col.as_mut().ok_or(Error::Closed)?;
        let Some(ticket) = col.begin_compaction(parts) else {
            return Ok(None);
        };
        self.asked.compact = false;
        let (input, origin) = match SealInput::from_parts(ticket.parts()) {
            Ok(x) => x,
            Err(e) => return Err(self.failed(e)),
        };
        let (generation, result, bytes) = if input.is_empty() {
            (None, None, Vec::new())
        } else {
            let g = self.take_generation();
            match self.build(g, &input) {
                Ok((seg, bytes)) => (Some(g), Some(seg), bytes),
                Err(e) => return Err(self.failed(e)),
            }
        };
        Ok(Some(Pending {
            built: Built::Compact {
                ticket,
                origin,
                result: Ok(result),
            },
            generation,
            bytes,
            seal: false,
        }))
    }

    /// Swaps the job of [`start_job`](Self::start_job) in, once its file is written and
    /// flushed: memory, then one manifest commit; then a checkpoint of the store (best effort).
    ///
    /// # Errors
    /// `HV_INTERNAL` (no job waits, or its ticket is stale), the store's commit error (`HV_IO`,
    /// `HV_QUOTA`; the collection is reloaded and the new file is an orphan).
    pub fn install(&mut self) -> Result<Swapped> {
        let p = self
            .pending
            .take()
            .ok_or_else(|| Error::Internal("no segment waits to be installed".into()))?;
        let col = self.col.as_mut().ok_or(Error::Closed)?;
        let (seg, outcome, count) = p.built.install(col).map_err(|e| self.failed(e))?;
        let muts = swap_mutations(seg.as_deref(), &outcome);
        if let Err(e) = self.store.commit(&muts) {
            drop(muts);
            self.reload();
            return Err(self.failed(e));
        }
        drop(muts);
        self.commits += 1;
        if let Some(seg) = seg {
            self.segments.insert(seg.generation(), seg);
        }
        for g in &outcome.removed {
            self.segments.remove(g);
        }
        let _ = self.store.reclaim(Reclaim::Always);
        Ok(Swapped {
            seal: p.seal,
            count,
            removed: outcome.removed,
        })
    }

    /// Abandons the job of [`start_job`](Self::start_job) (its file could not be written).
    pub fn abort(&mut self) {
        if self.pending.take().is_some() {
            let _ = self.failed(Error::Cancelled);
        }
    }
}
