//! Filtered search.
//!
//! A filter (and an `ids` allow-list) is first turned into a `Selection` (`selection.rs`): per segment, the
//! exact set of matching live rows from its metadata index (`filter::index`), with its count.
//! Each segment then runs the search `filter::strategy::choose` names for its count, and
//! falls back to an exact scan of its matches whenever the walk found fewer than
//! `min(k, matches)`, so every search returns exactly `min(k, matches)` hits. The merge across
//! segments is the unfiltered one (an id is live in one segment only).

use std::sync::atomic::{AtomicU64, Ordering};

use super::search::{keep_best, MUTABLE};
use super::selection::{Matches, Selection};
use super::{Collection, SearchOptions, DEFAULT_EF};
use crate::ann::{AnnIndex, AnnSearch, Restrict};
use crate::error::Result;
use crate::filter::strategy::{choose, Strategy};
use crate::flat::{self, FlatView, Hit};

/// How many segment searches of filtered queries took each strategy since the collection was
/// made or opened (`stats()`; the benchmark records the change over a run).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FilterCounts {
    /// Exact scans of the matches (few matches, `exact: true`, or no index).
    pub scans: u64,
    /// Scans of the matches' RaBitQ codes with an exact rerank.
    pub code_scans: u64,
    /// Two-hop walks (middle selectivity).
    pub two_hop: u64,
    /// Plain walks keeping the matches (high selectivity).
    pub walks: u64,
    /// Walks that found fewer than `min(k, matches)` and were redone as exact scans.
    pub fallbacks: u64,
}

/// [`FilterCounts`] as the searches count them (shared access).
#[derive(Debug, Default)]
pub(super) struct Counters {
    scans: AtomicU64,
    code_scans: AtomicU64,
    two_hop: AtomicU64,
    walks: AtomicU64,
    fallbacks: AtomicU64,
}

impl Counters {
    pub(super) fn snapshot(&self) -> FilterCounts {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        FilterCounts {
            scans: g(&self.scans),
            code_scans: g(&self.code_scans),
            two_hop: g(&self.two_hop),
            walks: g(&self.walks),
            fallbacks: g(&self.fallbacks),
        }
    }

    fn bump(a: &AtomicU64) {
        a.fetch_add(1, Ordering::Relaxed);
    }
}

impl Collection {
    /// The `k` best hits among the selection, merged across the segments, with the part each
    /// came from.
    pub(super) fn search_selected(
        &self,
        query: &[f32],
        q: &[f32],
        k: usize,
        opts: &SearchOptions,
        sel: &Selection,
    ) -> Result<Vec<(Hit, usize)>> {
        let mut all: Vec<(Hit, usize)> = Vec::new();
        let ef = opts.ef.unwrap_or(DEFAULT_EF);
        if sel.mutable.count > 0 {
            let view = self.mutable.view();
            let ix = self.mutable.index.as_ref();
            let live = self.mutable.rows.live();
            let hits =
                self.segment_search(ix, &view, &view, query, q, k, ef, opts, &sel.mutable, live)?;
            all.extend(hits.into_iter().map(|h| (h, MUTABLE)));
        }
        let kernels = crate::distance::kernels();
        for (p, (part, m)) in self.segments.parts.iter().zip(&sel.parts).enumerate() {
            if m.count == 0 {
                continue;
            }
            let scan = part.seg.view(&part.deleted, kernels);
            let walk = part.seg.index_view(&part.deleted, kernels);
            let ix = Some(part.seg.index());
            let hits =
                self.segment_search(ix, &scan, &walk, query, q, k, ef, opts, m, part.live())?;
            all.extend(hits.into_iter().map(|h| (h, p)));
        }
        keep_best(&mut all, k);
        Ok(all)
    }

    /// The `min(k, matches)` best matches of one segment: the chosen strategy, then an exact
    /// scan if a walk came back short. `scan` reads rows sequentially, `walk` is the rerank's
    /// view; an index shorter than the rows (an interim index) leaves a tail scanned exactly.
    #[allow(clippy::too_many_arguments)]
    fn segment_search(
        &self,
        ix: Option<&AnnIndex>,
        scan: &FlatView<'_>,
        walk: &FlatView<'_>,
        query: &[f32],
        q: &[f32],
        k: usize,
        ef: usize,
        opts: &SearchOptions,
        m: &Matches,
        live: usize,
    ) -> Result<Vec<Hit>> {
        let c = &self.filter_counts;
        let exact = || flat::search_rows(scan, q, k, m.rows.iter());
        let strategy = match opts.strategy {
            Some(forced) => forced.with_ef(m.count, live, k, ef),
            None => choose(m.count, live, k, ef, ix.is_some(), opts.exact),
        };
        if let (Strategy::CodeScan { ef }, Some(ix)) = (strategy, ix) {
            let n = ix.len();
            let mut hits = match ix.scan_codes(walk, query, q, k, ef, m.rows.iter()) {
                Some(h) => h?,
                None => {
                    Counters::bump(&c.scans);
                    return Ok(exact());
                }
            };
            add_tail(&mut hits, scan, q, k, m, n);
            Counters::bump(&c.code_scans);
            return Ok(hits);
        }
        let (ix, ef, restrict) = match (strategy, ix) {
            (Strategy::TwoHop { ef }, Some(ix)) => {
                (ix, ef, Restrict::TwoHop(&m.rows, &m.seeds[..]))
            }
            // every live record matches: the unfiltered walk (tombstones come from the view)
            (Strategy::Walk { ef }, Some(ix)) if m.count == live => (ix, ef, Restrict::None),
            (Strategy::Walk { ef }, Some(ix)) => (ix, ef, Restrict::Walk(&m.rows)),
            _ => {
                Counters::bump(&c.scans);
                return Ok(exact());
            }
        };
        let ef = ef.min(ix.len().max(1)).max(k.min(ix.len().max(1)));
        let rerank = opts
            .rerank
            .unwrap_or_else(|| ix.default_rerank(k, ef))
            .max(k)
            .min(ef);
        let mut hits =
            ix.search_restricted(walk, query, q, k, AnnSearch { ef, rerank }, restrict)?;
        add_tail(&mut hits, scan, q, k, m, ix.len());
        if hits.len() < k.min(m.count) {
            Counters::bump(&c.fallbacks);
            return Ok(exact());
        }
        Counters::bump(match restrict {
            Restrict::TwoHop(..) => &c.two_hop,
            _ => &c.walks,
        });
        Ok(hits)
    }
}

/// Merges into `hits` the exact scan of the matches at rows `n..` (the rows an interim index of
/// `n` nodes does not cover), if there are any.
fn add_tail(hits: &mut Vec<Hit>, scan: &FlatView<'_>, q: &[f32], k: usize, m: &Matches, n: usize) {
    if scan.seqs.len() > n {
        let tail = flat::search_rows(scan, q, k, m.rows.iter().filter(|&r| r as usize >= n));
        flat::merge_best(hits, tail, k);
    }
}
