//! The mutable segment: the [`Rows`] plus an optional approximate index over them, which is
//! either a *full* index (in-memory collections: kept up to date by every write, tombstones
//! consolidated) or an *interim* one (durable collections: built in the background over a
//! prefix of the rows; later rows are a tail scanned exactly, deletes and upserts leave
//! tombstones, there is no consolidation: the segment is sealed instead).
//!
//! With an index, rows are never moved by a delete: they become tombstones until consolidation
//! compacts them. Without one, a delete swap-removes its row.

use super::rows::{tail_view, Rows};
use super::{SearchOptions, DEFAULT_EF, FLAT_THRESHOLD};
use crate::ann::{AnnIndex, AnnSearch};
use crate::error::Result;
use crate::flat::{self, FlatView, Hit};

/// The mutable segment of a collection.
pub(crate) struct Mutable {
    pub(super) rows: Rows,
    /// The approximate index, if built (node `i` = row `i`).
    pub(super) index: Option<AnnIndex>,
    /// The index is an interim one (see the module doc).
    pub(super) deferred: bool,
    /// Bumped whenever rows move (swap-remove delete, compaction of rows, seal): an interim
    /// index built over an older layout is not installed.
    pub(super) layout_epoch: u64,
}

/// `ef · scale`, rounded up, at least `k`.
pub(super) fn scaled_ef(ef: usize, k: usize, scale: f64) -> usize {
    ((ef as f64 * scale.min(1.0)).ceil() as usize).max(k)
}

impl Mutable {
    /// No rows, no index.
    pub(super) fn new(rows: Rows) -> Mutable {
        Mutable {
            rows,
            index: None,
            deferred: false,
            layout_epoch: 0,
        }
    }

    /// The rows with the index's tombstones.
    pub(super) fn view(&self) -> FlatView<'_> {
        self.rows
            .view(self.index.as_ref().map_or(&[], AnnIndex::deleted))
    }

    /// True unless row `r` is an index tombstone.
    pub(super) fn is_live_row(&self, r: usize) -> bool {
        self.index
            .as_ref()
            .is_none_or(|ix| !ix.is_deleted(r as u32))
    }

    /// The live rows, ascending.
    pub(super) fn live_rows(&self) -> Vec<usize> {
        (0..self.rows.len())
            .filter(|&r| self.is_live_row(r))
            .collect()
    }

    /// Removes row `r` (no index; its id already left the map): the last row moves into it.
    pub(super) fn swap_remove(&mut self, r: usize) {
        self.layout_epoch += 1;
        self.rows.swap_remove(r);
    }

    /// Keeps rows `keep` (ascending), dropping the index.
    pub(super) fn keep_rows(&mut self, keep: &[usize]) {
        self.index = None;
        self.layout_epoch += 1;
        self.rows.keep(keep);
    }

    /// Drops the index and its tombstoned rows (an interim index is then rebuilt in the
    /// background).
    pub(super) fn drop_dead_rows(&mut self) {
        if self.index.is_none() {
            return;
        }
        let keep = self.live_rows();
        self.keep_rows(&keep);
    }

    /// Repairs the graph around tombstones (FreshDiskANN) and compacts the rows; an interim
    /// index is dropped with its dead rows instead. True when a full index changed.
    ///
    /// # Errors
    /// As [`crate::collection::Collection::consolidate`]: `HV_OUT_OF_MEMORY` (nothing changed),
    /// a graph or codes error of the repair (the index is then dropped).
    pub(super) fn consolidate(&mut self) -> Result<bool> {
        if self.deferred {
            self.drop_dead_rows();
            return Ok(false);
        }
        let Some(mut ix) = self.index.take() else {
            return Ok(false);
        };
        if ix.deleted_count() == 0 {
            self.index = Some(ix);
            return Ok(false);
        }
        if let Err(e) = crate::mem::ensure_headroom(|| ix.consolidate_headroom(), "consolidation") {
            self.index = Some(ix);
            return Err(e);
        }
        let mut remap = vec![u32::MAX; ix.len()];
        let mut next = 0u32;
        for (old, slot) in remap.iter_mut().enumerate() {
            if !ix.is_deleted(old as u32) {
                *slot = next;
                next += 1;
            }
        }
        ix.consolidate(&self.rows.view(&[]), &remap)?;
        self.layout_epoch += 1;
        self.rows.retain(&remap);
        self.index = Some(ix);
        Ok(true)
    }

    /// The index to use for `opts`, if any (none when exact search is asked for or when the
    /// segment is small enough that a flat scan is as fast).
    pub(super) fn index_for(&self, opts: &SearchOptions) -> Option<(&AnnIndex, AnnSearch)> {
        let ix = self.index.as_ref()?;
        let live = self.rows.live();
        // asking for every record (k ≥ the live records) is a scan: a walk could miss some
        let flat = match opts.exact {
            Some(exact) => exact,
            None => live < FLAT_THRESHOLD || opts.k >= live,
        };
        if flat {
            return None;
        }
        // k, ef and rerank are bounded by the graph's size (a caller's k may be 2⁵³)
        let n = ix.len().max(1);
        let k = opts.k.min(n);
        let ef = opts.ef.unwrap_or(DEFAULT_EF).max(k).min(n);
        let rerank = opts
            .rerank
            .unwrap_or_else(|| ix.default_rerank(k, ef))
            .max(k)
            .min(ef);
        Some((ix, AnnSearch { ef, rerank }))
    }

    /// The `k` best hits of the segment: its index (over a prefix of the rows, for an interim
    /// index) walked with ef scaled by `ef_scale`, plus an exact scan of the rows after that
    /// prefix; a flat scan without an index.
    pub(super) fn search(
        &self,
        query: &[f32],
        q: &[f32],
        k: usize,
        opts: &SearchOptions,
        ef_scale: f64,
    ) -> Result<Vec<Hit>> {
        let view = self.view();
        let Some((ix, a)) = self.index_for(opts) else {
            return Ok(flat::search_one(&view, q, k));
        };
        let a = match (ef_scale < 1.0, opts.rerank) {
            (true, None) => {
                let ef = scaled_ef(a.ef, k, ef_scale);
                AnnSearch { ef, rerank: ef }
            }
            (true, Some(_)) => AnnSearch {
                ef: scaled_ef(a.ef, k, ef_scale),
                ..a
            },
            (false, _) => a,
        };
        let mut hits = ix.search(&view, query, q, k.min(self.rows.live()), a)?;
        let (m, n) = (ix.len(), self.rows.len());
        if m < n {
            let tail = tail_view(&view, m, n);
            let tail_hits = flat::search_one(&tail, q, k).into_iter().map(|h| Hit {
                row: h.row + m as u32,
                ..h
            });
            flat::merge_best(&mut hits, tail_hits, k);
        }
        Ok(hits)
    }

    /// True when the segment has an interim index and rows after its prefix.
    pub(super) fn has_tail(&self) -> bool {
        self.index
            .as_ref()
            .is_some_and(|ix| ix.len() < self.rows.len())
    }

    /// Live rows its (interim) index covers.
    pub(super) fn indexed_live(&self) -> usize {
        self.index.as_ref().map_or(0, |ix| {
            (0..ix.len() as u32).filter(|&r| !ix.is_deleted(r)).count()
        })
    }

    /// Installs an interim index built over the rows at layout `epoch` (false, and nothing
    /// changes, when rows moved since): it covers the rows copied then; the rows added since
    /// stay a tail, and every row deleted since is a tombstone.
    pub(super) fn install_interim(&mut self, mut ix: AnnIndex, epoch: u64) -> bool {
        if epoch != self.layout_epoch || ix.len() > self.rows.len() || !self.deferred {
            return false;
        }
        ix.extend_rows(self.rows.len());
        for r in 0..self.rows.len() {
            if self.rows.row_of(&self.rows.ids[r]) != Some(r as u32) {
                ix.mark_deleted(r as u32);
                self.rows.unindex(r as u32);
            }
        }
        self.index = Some(ix);
        true
    }
}
