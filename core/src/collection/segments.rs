//! The sealed segments of a collection: their tombstones, the lookup of an id among them, and
//! the journal of tombstones the store has not recorded yet.
//!
//! Each [`SealedPart`] is an immutable [`Segment`] shared by `Arc` (so a background seal or
//! compaction reads it without a lock) plus this collection's tombstone flags for its rows. An id
//! is live in at most one place: an upsert of a sealed record tombstones its sealed row and
//! appends the new version to the mutable segment with the same insertion sequence, so "the
//! newest version wins" holds by construction and search never has to deduplicate.

use std::sync::Arc;

use crate::segment::Segment;
use crate::types::VectorId;

/// A sealed segment as one collection sees it: the shared immutable segment and the tombstones
/// of its rows.
#[derive(Clone, Debug)]
pub(crate) struct SealedPart {
    pub(crate) seg: Arc<Segment>,
    /// One flag per row once a row is deleted; empty while none is.
    pub(crate) deleted: Vec<bool>,
    pub(crate) n_deleted: usize,
}

impl SealedPart {
    /// A part with tombstones at `rows`.
    pub(crate) fn new(seg: Arc<Segment>, rows: &[u32]) -> SealedPart {
        let mut p = SealedPart {
            seg,
            deleted: Vec::new(),
            n_deleted: 0,
        };
        for &r in rows {
            p.kill(r);
        }
        p
    }

    /// Tombstones `row`; false when it is out of range or already dead.
    fn kill(&mut self, row: u32) -> bool {
        if row as usize >= self.seg.len() {
            return false;
        }
        if self.deleted.is_empty() {
            self.deleted = vec![false; self.seg.len()];
        }
        let d = &mut self.deleted[row as usize];
        if *d {
            return false;
        }
        *d = true;
        self.n_deleted += 1;
        true
    }

    /// True unless `row` is tombstoned.
    pub(crate) fn is_live(&self, row: u32) -> bool {
        !self.deleted.get(row as usize).copied().unwrap_or(false)
    }

    /// Live rows.
    pub(crate) fn live(&self) -> usize {
        self.seg.len() - self.n_deleted
    }

    /// The segment.
    #[cfg_attr(not(feature = "durable"), allow(dead_code))]
    pub(crate) fn segment(&self) -> &Arc<Segment> {
        &self.seg
    }

    /// Tombstoned rows / rows.
    #[cfg_attr(not(feature = "durable"), allow(dead_code))]
    pub(crate) fn tombstone_ratio(&self) -> f64 {
        self.n_deleted as f64 / self.seg.len().max(1) as f64
    }
}

/// The sealed parts, oldest first (ordered by generation), with their live count and the
/// tombstones not yet taken by the store.
#[derive(Default)]
pub(crate) struct Segments {
    pub(super) parts: Vec<SealedPart>,
    /// Live records over every part.
    pub(super) live: usize,
    /// Sealed-row tombstones not yet taken by the store (`take_tombstones`), as
    /// `(generation, row)`.
    journal: Vec<(u64, u32)>,
    /// Whether tombstones are journalled (durable collections; a loaded snapshot's parts have
    /// no store to tell).
    pub(super) journaling: bool,
}

impl Segments {
    /// The part and row where `id` is live, if in a sealed segment.
    pub(super) fn find(&self, id: &VectorId) -> Option<(usize, u32)> {
        if self.live == 0 {
            return None;
        }
        // newest segment first: an id is live in at most one, so the order only saves lookups
        for (p, part) in self.parts.iter().enumerate().rev() {
            if let Some(row) = part.seg.find(id) {
                if part.is_live(row) {
                    return Some((p, row));
                }
            }
        }
        None
    }

    /// Tombstones row `row` of part `p`, journals it for the store, and returns whether it was
    /// live.
    pub(super) fn kill(&mut self, p: usize, row: u32) -> bool {
        let part = &mut self.parts[p];
        if !part.kill(row) {
            return false;
        }
        self.live -= 1;
        if self.journaling {
            self.journal.push((part.seg.generation(), row));
        }
        true
    }

    /// The journal's tombstones, emptied.
    pub(super) fn take_journal(&mut self) -> Vec<(u64, u32)> {
        std::mem::take(&mut self.journal)
    }

    /// Appends `part` as the newest.
    pub(super) fn push(&mut self, part: SealedPart) {
        self.live += part.live();
        self.parts.push(part);
    }

    /// Removes the parts of generations `gens` (and their journalled tombstones: the store
    /// drops the segments with theirs).
    pub(super) fn remove(&mut self, gens: &[u64]) {
        let (gone, kept): (Vec<SealedPart>, Vec<SealedPart>) = std::mem::take(&mut self.parts)
            .into_iter()
            .partition(|p| gens.contains(&p.seg.generation()));
        self.live -= gone.iter().map(SealedPart::live).sum::<usize>();
        self.parts = kept;
        self.journal.retain(|(g, _)| !gens.contains(g));
    }

    /// The part of generation `generation`.
    pub(super) fn by_generation(&self, generation: u64) -> Option<&SealedPart> {
        self.parts.iter().find(|p| p.seg.generation() == generation)
    }

    /// Tombstoned rows over every part.
    pub(super) fn tombstones(&self) -> usize {
        self.parts.iter().map(|p| p.n_deleted).sum()
    }

    /// Bytes of the parts' stored vectors (memory-mapped).
    pub(super) fn vector_bytes(&self, dim: usize) -> usize {
        self.parts
            .iter()
            .map(|p| p.seg.len() * dim * p.seg.precision().bytes())
            .sum()
    }

    /// Parts whose walk data is still being read into memory.
    pub(super) fn warming(&self) -> usize {
        self.parts
            .iter()
            .filter(|p| p.seg.index().is_cold())
            .count()
    }
}
