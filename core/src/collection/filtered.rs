//! Filtered search and the metadata queries (`count`, `list`, `delete_where`).
//!
//! A filter (and an `ids` allow-list) is first turned into a [`Selection`]: per segment, the
//! exact set of matching live rows from its metadata index (`filter::index`), with its count.
//! Each segment then runs the search `filter::strategy::choose` names for its count, and
//! falls back to an exact scan of its matches whenever the walk found fewer than
//! `min(k, matches)`, so every search returns exactly `min(k, matches)` hits. The merge across
//! segments is the unfiltered one (an id is live in one segment only).

use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::search::MUTABLE;
use super::{Collection, SearchOptions, DEFAULT_EF};
use crate::ann::{AnnIndex, AnnSearch, Restrict};
use crate::error::{Error, Result};
use crate::filter::rowset::RowSet;
use crate::filter::strategy::{choose, Strategy};
use crate::filter::Filter;
use crate::flat::{self, FlatView, Hit};
use crate::types::VectorId;

/// Largest `limit` of one [`Collection::list`] page.
pub const MAX_LIST_LIMIT: usize = 10_000;

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

/// One page of [`Collection::list`]: a query of records in insertion order.
#[derive(Clone, Debug)]
pub struct ListQuery {
    /// Only matching records (all when `None`).
    pub filter: Option<Arc<Filter>>,
    /// Most records of the page (1..=[`MAX_LIST_LIMIT`]).
    pub limit: usize,
    /// Records after this insertion sequence (the `cursor` of the previous page).
    pub after: Option<u64>,
    /// Whether records carry their vectors.
    pub include_vectors: bool,
}

/// One listed record.
#[derive(Clone, Debug, PartialEq)]
pub struct ListedRecord {
    /// Its id.
    pub id: VectorId,
    /// Its metadata JSON text.
    pub metadata: Option<String>,
    /// Its `dim` values, when asked for.
    pub vector: Option<Vec<f32>>,
}

/// A page of records in insertion order and the cursor of the next page (`None`: this was the
/// last one). The order is stable across writes: an upsert keeps its record's place, new
/// records come after every earlier one.
#[derive(Clone, Debug, PartialEq)]
pub struct ListPage {
    /// The records, in insertion order.
    pub records: Vec<ListedRecord>,
    /// Pass as `after` for the next page.
    pub cursor: Option<u64>,
}

/// The matching live rows of one segment.
#[derive(Debug)]
pub(super) struct Matches {
    rows: RowSet,
    count: usize,
    /// A few matching rows spread over the segment: extra starts of the two-hop walk.
    seeds: Vec<u32>,
}

impl Matches {
    fn new(rows: RowSet) -> Matches {
        let count = rows.count();
        let seeds = rows.spread(8);
        Matches { rows, count, seeds }
    }
}

/// What a cached selection was made from: the filter and the state of the collection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct SelectionKey {
    version: u64,
    rows: usize,
    parts: usize,
    tombstones: usize,
    filter: String,
}

/// The last few selections (a query cache: filters such as a tenant's repeat from query to
/// query, and a selection costs a pass over the matching rows). Cleared by nothing: an entry
/// whose key no longer matches the collection is never hit, and is pushed out by new ones.
#[derive(Debug, Default)]
pub(super) struct SelectionCache(std::sync::Mutex<Vec<(SelectionKey, Arc<Selection>)>>);

/// Selections the cache keeps.
const CACHED_SELECTIONS: usize = 4;

impl SelectionCache {
    fn get(&self, key: &SelectionKey) -> Option<Arc<Selection>> {
        let mut v = self.0.lock().ok()?;
        let i = v.iter().position(|(k, _)| k == key)?;
        let e = v.remove(i);
        let hit = e.1.clone();
        v.push(e);
        Some(hit)
    }

    fn put(&self, key: SelectionKey, sel: Arc<Selection>) {
        if let Ok(mut v) = self.0.lock() {
            v.retain(|(k, _)| k.version == key.version);
            if v.len() >= CACHED_SELECTIONS {
                v.remove(0);
            }
            v.push((key, sel));
        }
    }
}

/// What a filter (and allow-list) selects in every segment.
#[derive(Debug)]
pub(super) struct Selection {
    mutable: Matches,
    parts: Vec<Matches>,
}

impl Selection {
    /// Matching live records in all.
    pub(super) fn count(&self) -> usize {
        self.mutable.count + self.parts.iter().map(|m| m.count).sum::<usize>()
    }
}

impl Collection {
    /// The selection of `filter` (no allow-list), from the cache of recent selections when the
    /// collection has not changed since it was made.
    pub(super) fn select_cached(&self, filter: &Filter) -> Arc<Selection> {
        let key = SelectionKey {
            version: self.version,
            rows: self.mutable.rows.len(),
            parts: self.segments.parts.len(),
            tombstones: self.segments.parts.iter().map(|p| p.n_deleted).sum(),
            filter: filter.text().to_owned(),
        };
        if let Some(hit) = self.selections.get(&key) {
            return hit;
        }
        let sel = Arc::new(self.select(Some(filter), None));
        self.selections.put(key, sel.clone());
        sel
    }

    /// The selection of a restricted search: cached when it has a filter and no allow-list.
    pub(super) fn selection_for(&self, opts: &SearchOptions) -> Arc<Selection> {
        match (&opts.filter, &opts.ids) {
            (Some(f), None) => self.select_cached(f),
            (f, ids) => Arc::new(self.select(f.as_deref(), ids.as_deref().map(|v| &v[..]))),
        }
    }

    /// True when `opts` restricts the search to some records.
    pub(super) fn restricted(opts: &SearchOptions) -> bool {
        opts.filter.is_some() || opts.ids.is_some()
    }

    /// The rows of every segment that `filter` and `ids` admit (both optional; neither: every
    /// live record).
    pub(super) fn select(&self, filter: Option<&Filter>, ids: Option<&[VectorId]>) -> Selection {
        let all = Filter::all();
        let f = filter.unwrap_or(&all);
        let rows = &self.mutable.rows;
        let mut m = rows.meta.select(f);
        m.resize(rows.len());
        let mut parts: Vec<RowSet> = self
            .segments
            .parts
            .iter()
            .map(|p| {
                let mut s = p.seg.meta_index().select(f);
                s.resize(p.seg.len());
                s.remove_flagged(&p.deleted);
                s
            })
            .collect();
        if let Some(ids) = ids {
            let mut allow_m = RowSet::empty(rows.len());
            let mut allow_p: Vec<RowSet> =
                parts.iter().map(|s| RowSet::empty(s.universe())).collect();
            for id in ids {
                if let Some(r) = rows.row_of(id) {
                    allow_m.insert(r);
                } else if let Some((p, r)) = self.segments.find(id) {
                    allow_p[p].insert(r);
                }
            }
            m.and(&allow_m);
            for (s, a) in parts.iter_mut().zip(&allow_p) {
                s.and(a);
            }
        }
        Selection {
            mutable: Matches::new(m),
            parts: parts.into_iter().map(Matches::new).collect(),
        }
    }

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
        let key = |d: f32| if d.is_nan() { f32::INFINITY } else { d };
        all.sort_unstable_by(|a, b| {
            key(a.0.dist)
                .total_cmp(&key(b.0.dist))
                .then(a.0.seq.cmp(&b.0.seq))
        });
        all.truncate(k);
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
            if scan.seqs.len() > n {
                hits.extend(flat::search_rows(
                    scan,
                    q,
                    k,
                    m.rows.iter().filter(|&r| r as usize >= n),
                ));
                hits.sort_unstable_by(|a, b| a.dist.total_cmp(&b.dist).then(a.seq.cmp(&b.seq)));
                hits.truncate(k);
            }
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
        let n = ix.len();
        if scan.seqs.len() > n {
            let tail = flat::search_rows(scan, q, k, m.rows.iter().filter(|&r| r as usize >= n));
            hits.extend(tail);
            hits.sort_unstable_by(|a, b| a.dist.total_cmp(&b.dist).then(a.seq.cmp(&b.seq)));
            hits.truncate(k);
        }
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

    /// The number of live records matching `filter` (all of them when `None`), exact.
    pub fn count(&self, filter: Option<&Filter>) -> usize {
        match filter {
            None => self.len(),
            Some(f) => self.select_cached(f).count(),
        }
    }

    /// The ids of the live records matching `filter`, in no particular order.
    ///
    /// # Errors
    /// `HV_CORRUPT` when a sealed segment's id cannot be read.
    pub fn matching_ids(&self, filter: &Filter) -> Result<Vec<VectorId>> {
        let sel = self.select(Some(filter), None);
        let mut out = Vec::with_capacity(sel.count());
        out.extend(
            sel.mutable
                .rows
                .iter()
                .map(|r| self.mutable.rows.ids[r as usize].clone()),
        );
        for (part, m) in self.segments.parts.iter().zip(&sel.parts) {
            for r in m.rows.iter() {
                out.push(part.seg.id(r)?);
            }
        }
        Ok(out)
    }

    /// Deletes every live record matching `filter`, as one delete (all or nothing); returns how
    /// many were deleted.
    ///
    /// # Errors
    /// `HV_CORRUPT` when a sealed segment's id cannot be read (nothing is deleted then).
    pub fn delete_where(&mut self, filter: &Filter) -> Result<usize> {
        let ids = self.matching_ids(filter)?;
        Ok(self.delete(&ids))
    }

    /// One page of the live records matching `q.filter`, in insertion order, after the cursor
    /// `q.after`.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` (`limit` out of 1..=[`MAX_LIST_LIMIT`]), `HV_CORRUPT` (a sealed
    /// segment's id or metadata cannot be read).
    pub fn list(&self, q: &ListQuery) -> Result<ListPage> {
        if q.limit == 0 || q.limit > MAX_LIST_LIMIT {
            return Err(Error::invalid_argument(format!(
                "limit must be an integer in 1..={MAX_LIST_LIMIT}, got {}",
                q.limit
            )));
        }
        let sel = self.select(q.filter.as_deref(), None);
        let after = q.after;
        // the limit + 1 smallest sequences after the cursor (one more tells whether a page follows)
        let mut heap: BinaryHeap<(u64, usize, u32)> = BinaryHeap::with_capacity(q.limit + 2);
        let mut offer = |seq: u64, part: usize, row: u32| {
            if after.is_some_and(|a| seq <= a) {
                return;
            }
            if heap.len() <= q.limit {
                heap.push((seq, part, row));
            } else if heap.peek().is_some_and(|top| seq < top.0) {
                heap.pop();
                heap.push((seq, part, row));
            }
        };
        for r in sel.mutable.rows.iter() {
            offer(self.mutable.rows.seqs[r as usize], MUTABLE, r);
        }
        for (p, (part, m)) in self.segments.parts.iter().zip(&sel.parts).enumerate() {
            for r in m.rows.iter() {
                offer(part.seg.seq(r), p, r);
            }
        }
        let mut picked = heap.into_vec();
        picked.sort_unstable();
        let more = picked.len() > q.limit;
        picked.truncate(q.limit);
        let cursor = if more {
            picked.last().map(|p| p.0)
        } else {
            None
        };
        let records = picked
            .into_iter()
            .map(|(_, p, r)| self.listed(p, r, q.include_vectors))
            .collect::<Result<Vec<_>>>()?;
        Ok(ListPage { records, cursor })
    }

    fn listed(&self, part: usize, r: u32, vector: bool) -> Result<ListedRecord> {
        if part == MUTABLE {
            let rows = &self.mutable.rows;
            return Ok(ListedRecord {
                id: rows.ids[r as usize].clone(),
                metadata: rows.metadata[r as usize].clone(),
                vector: vector.then(|| rows.vector(r as usize).to_vec()),
            });
        }
        let seg = &self.segments.parts[part].seg;
        Ok(ListedRecord {
            id: seg.id(r)?,
            metadata: seg.metadata(r)?,
            vector: vector.then(|| seg.vector(r).to_vec()),
        })
    }
}
