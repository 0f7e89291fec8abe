//! The swaps that change a collection's parts while their replacement is built elsewhere: a
//! *seal* (the mutable rows become a sealed segment), a *compaction* (sealed segments are merged
//! or rewritten) and an *interim index* (an index of the mutable rows, memory only).
//!
//! Each is a typed ticket, so that the legal order is the type signature:
//!
//! ```text
//! seal:        seal_input(&self) → SealCopy → begin_seal(&mut self, copy) → SealTicket ─┐
//! compaction:  begin_compaction(&mut self, parts) → CompactionTicket ───────┤ build (no lock)
//! interim:     begin_interim(&self) → InterimTicket ────────────────────────┘
//!              install_sealed / install_compacted / install_interim(ticket)   (consumes it)
//! ```
//!
//! A seal or compaction ticket owns the *dirty set*: the ids written or deleted since it was
//! begun, whose rows in the new segment must start as tombstones. At most one exists at a time
//! (`begin_*` returns `None` otherwise); installing consumes it; dropping it uninstalled (a
//! failed or cancelled build, a thread that could not start) aborts the swap and the collection
//! stops tracking. A [`SealCopy`] names the collection version it was copied at: `begin_seal`
//! refuses a copy the collection has changed since (nothing tracked the writes in between). An
//! interim ticket carries the layout epoch its copy is valid for instead, and the collection it
//! was copied from: a stale or foreign one is refused at install.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard};

use super::input::Metadata;
pub(crate) use super::input::SealInput;
use super::segments::SealedPart;
use super::Collection;
use crate::ann::AnnIndex;
use crate::error::{Error, Result};
use crate::segment::Segment;
use crate::types::VectorId;

/// What a swap changed, for the store's manifest transaction.
#[derive(Debug, Default)]
pub(crate) struct SwapOutcome {
    /// Rows of the new segment that must start as tombstones (their record was written or
    /// deleted while the segment was being built).
    pub(crate) new_tombstones: Vec<u32>,
    /// Ids whose records moved from the mutable segment into the new segment (a seal).
    pub(crate) moved: Vec<VectorId>,
    /// Generations removed from the segment list (a compaction).
    pub(crate) removed: Vec<u64>,
}

type Slot = Arc<Mutex<Option<HashSet<VectorId>>>>;

fn lock(slot: &Slot) -> MutexGuard<'_, Option<HashSet<VectorId>>> {
    slot.lock().unwrap_or_else(|p| p.into_inner())
}

/// A collection's side of the dirty set: `Some` while a seal or compaction ticket is out.
#[derive(Default)]
pub(crate) struct DirtyIds {
    slot: Slot,
}

impl DirtyIds {
    /// Notes that `id` was written or deleted (a no-op while no swap is being built).
    pub(super) fn touch(&self, id: &VectorId) {
        if let Some(d) = lock(&self.slot).as_mut() {
            d.insert(id.clone());
        }
    }

    /// True while a seal or compaction ticket is out.
    fn busy(&self) -> bool {
        lock(&self.slot).is_some()
    }

    /// Starts tracking; `None` when a ticket is already out.
    fn begin(&self) -> Option<Tracking> {
        let mut g = lock(&self.slot);
        if g.is_some() {
            return None;
        }
        *g = Some(HashSet::new());
        Some(Tracking {
            slot: self.slot.clone(),
        })
    }

    /// Ends `t`, which must have been begun here, and returns its ids.
    fn finish(&self, t: Tracking) -> Result<HashSet<VectorId>> {
        if !Arc::ptr_eq(&t.slot, &self.slot) {
            // begun on a collection since replaced (reloaded after a failed commit)
            return Err(Error::Internal(
                "a swap ticket installed on another collection".into(),
            ));
        }
        let ids = lock(&self.slot).take().unwrap_or_default();
        drop(t); // after the lock is released: its drop takes it (the slot is empty already)
        Ok(ids)
    }
}

/// The ticket's side of the dirty set: dropping it stops the tracking (aborts the swap).
struct Tracking {
    slot: Slot,
}

impl Drop for Tracking {
    fn drop(&mut self) {
        lock(&self.slot).take();
    }
}

impl std::fmt::Debug for Tracking {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tracking")
    }
}

/// The live mutable rows copied for a seal ([`Collection::seal_input`]), with the collection
/// version they were copied at: the only thing [`Collection::begin_seal`] accepts.
#[derive(Debug)]
pub(crate) struct SealCopy {
    input: SealInput,
    version: u64,
}

/// A seal in progress: the copied rows and the tracking of the ids written since. Install it
/// with [`Collection::install_sealed`]; dropping it aborts the seal.
#[derive(Debug)]
pub(crate) struct SealTicket {
    input: SealInput,
    tracking: Tracking,
}

impl SealTicket {
    /// The rows to build the segment from.
    pub(crate) fn input(&self) -> &SealInput {
        &self.input
    }
}

/// A compaction in progress: the parts it merges (shared segments and a copy of their
/// tombstones) and the tracking of the ids written since. Install it with
/// [`Collection::install_compacted`]; dropping it aborts the compaction.
#[derive(Debug)]
pub(crate) struct CompactionTicket {
    parts: Vec<SealedPart>,
    tracking: Tracking,
}

impl CompactionTicket {
    /// The parts to merge, oldest first.
    pub(crate) fn parts(&self) -> &[SealedPart] {
        &self.parts
    }
}

/// An interim index build in progress: a copy of every mutable row (dead ones included, so that
/// node `i` is row `i`) and the layout epoch it is valid for. Install with
/// [`Collection::install_interim`].
#[derive(Debug)]
pub(crate) struct InterimTicket {
    input: SealInput,
    epoch: u64,
    /// The dirty-set slot of the collection it was copied from (its identity: a collection
    /// reloaded after a failed commit has another).
    owner: Slot,
}

impl InterimTicket {
    /// The rows to index.
    pub(crate) fn input(&self) -> &SealInput {
        &self.input
    }
}

impl Collection {
    /// Copies the live mutable rows out for a seal (shared access, so searches go on; then
    /// [`Collection::begin_seal`] under exclusive access); `None` when there is none, or a seal
    /// or compaction is already being built.
    pub(crate) fn seal_input(&self) -> Option<SealCopy> {
        if self.dirty.busy() || self.mutable.rows.live() == 0 {
            return None;
        }
        Some(SealCopy {
            input: SealInput::copy(
                &self.mutable.rows,
                &self.mutable.live_rows(),
                Metadata::Copy,
            ),
            version: self.version,
        })
    }

    /// Begins the seal of `copy` (made by [`Collection::seal_input`]): from now on the ids
    /// written are tracked. `None` when a seal or compaction is already being built, or when the
    /// collection changed since the copy (a write in between would be lost: copy again).
    pub(crate) fn begin_seal(&mut self, copy: SealCopy) -> Option<SealTicket> {
        if copy.version != self.version {
            return None;
        }
        let tracking = self.dirty.begin()?;
        Some(SealTicket {
            input: copy.input,
            tracking,
        })
    }

    /// Installs `seg`, built from the ticket's rows: records unchanged since the copy leave the
    /// mutable segment (they are now read from the segment); the rows of records written or
    /// deleted meanwhile start as tombstones in it.
    ///
    /// # Errors
    /// `HV_INTERNAL` when the ticket was begun on another collection or the segment does not
    /// match the copy (the seal is then aborted).
    pub(crate) fn install_sealed(
        &mut self,
        seg: Arc<Segment>,
        ticket: SealTicket,
    ) -> Result<SwapOutcome> {
        let SealTicket { input, tracking } = ticket;
        let dirty = self.dirty.finish(tracking)?;
        if seg.len() != input.len() || seg.dim() != self.dim() {
            return Err(Error::Internal(
                "the sealed segment does not match its input".into(),
            ));
        }
        let mut out = SwapOutcome::default();
        let mut leaving = HashSet::with_capacity(input.len());
        for (row, id) in input.ids.iter().enumerate() {
            if dirty.contains(id) {
                out.new_tombstones.push(row as u32);
            } else {
                leaving.insert(id);
            }
        }
        // The mutable segment keeps only the records not moved (written after the copy).
        let keep: Vec<usize> = self
            .mutable
            .live_rows()
            .into_iter()
            .filter(|&r| !leaving.contains(&self.mutable.rows.ids[r]))
            .collect();
        out.moved = leaving.into_iter().cloned().collect();
        self.mutable.keep_rows(&keep);
        self.segments
            .push(SealedPart::new(seg, &out.new_tombstones));
        self.version += 1;
        Ok(out)
    }

    /// Begins a compaction of the sealed parts `parts` (indices into [`Collection::sealed`]):
    /// the ticket holds them (shared segments and a copy of their tombstones) and from now on the
    /// ids written are tracked. `None` when a seal or compaction is already being built or
    /// `parts` is empty or out of range.
    pub(crate) fn begin_compaction(&mut self, parts: &[usize]) -> Option<CompactionTicket> {
        if parts.is_empty() || parts.iter().any(|&p| p >= self.segments.parts.len()) {
            return None;
        }
        let tracking = self.dirty.begin()?;
        Some(CompactionTicket {
            parts: parts
                .iter()
                .map(|&p| self.segments.parts[p].clone())
                .collect(),
            tracking,
        })
    }

    /// Replaces the ticket's segments with `seg`, built from their live rows; `origin[i]` is
    /// the `(generation, row)` that row `i` of `seg` came from. Rows whose record was written or
    /// deleted meanwhile start as tombstones.
    ///
    /// # Errors
    /// `HV_INTERNAL` when the ticket was begun on another collection or a segment of it is
    /// gone (the compaction is then aborted).
    pub(crate) fn install_compacted(
        &mut self,
        seg: Option<Arc<Segment>>,
        origin: &[(u64, u32)],
        ticket: CompactionTicket,
    ) -> Result<SwapOutcome> {
        let CompactionTicket { parts, tracking } = ticket;
        let dirty = self.dirty.finish(tracking)?;
        let gens: Vec<u64> = parts.iter().map(|p| p.seg.generation()).collect();
        let now: Vec<&SealedPart> = gens
            .iter()
            .map(|&g| self.segments.by_generation(g))
            .collect::<Option<_>>()
            .ok_or_else(|| Error::Internal("a compacted segment left the list".into()))?;
        let mut out = SwapOutcome {
            removed: gens.clone(),
            ..SwapOutcome::default()
        };
        if let Some(seg) = &seg {
            for (row, &(g, old_row)) in origin.iter().enumerate() {
                let p = now[gens
                    .iter()
                    .position(|&x| x == g)
                    .ok_or_else(|| Error::Internal("bad origin".into()))?];
                // dead now: deleted or upserted since the copy (both tombstone the old row, so
                // the ids written meanwhile need no lookup unless some were)
                if !p.is_live(old_row)
                    || (!dirty.is_empty() && dirty.contains(&seg.id(row as u32)?))
                {
                    out.new_tombstones.push(row as u32);
                }
            }
        }
        self.segments.remove(&gens);
        if let Some(seg) = seg {
            // the new one is the newest: the list stays ordered by generation
            self.segments
                .push(SealedPart::new(seg, &out.new_tombstones));
        }
        self.version += 1;
        Ok(out)
    }

    /// Copies every mutable row for an interim index build, with the layout epoch it is valid
    /// for.
    pub(crate) fn begin_interim(&self) -> InterimTicket {
        let all: Vec<usize> = (0..self.mutable.rows.len()).collect();
        InterimTicket {
            input: SealInput::copy(&self.mutable.rows, &all, Metadata::Skip),
            epoch: self.mutable.layout_epoch,
            owner: self.dirty.slot.clone(),
        }
    }

    /// Installs an interim index built from `ticket`'s rows (false, and nothing changes, when
    /// rows moved since or the ticket was copied from another collection): it covers the rows
    /// copied then; the rows added since stay a tail, and every row deleted since is a tombstone.
    pub(crate) fn install_interim(&mut self, ix: AnnIndex, ticket: InterimTicket) -> bool {
        Arc::ptr_eq(&ticket.owner, &self.dirty.slot)
            && self.mutable.install_interim(ix, ticket.epoch)
    }
}

#[cfg(test)]
mod tests;
