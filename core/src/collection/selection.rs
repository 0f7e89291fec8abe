//! Selections: what a filter and an `ids` allow-list admit in every segment, as exact row sets
//! with their counts, and the cache of recent ones.

use std::sync::Arc;

use super::{Collection, SearchOptions};
use crate::filter::rowset::RowSet;
use crate::filter::Filter;
use crate::types::VectorId;

/// The matching live rows of one segment.
#[derive(Debug)]
pub(super) struct Matches {
    pub(super) rows: RowSet,
    pub(super) count: usize,
    /// A few matching rows spread over the segment: extra starts of the two-hop walk.
    pub(super) seeds: Vec<u32>,
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
    pub(super) mutable: Matches,
    pub(super) parts: Vec<Matches>,
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
}
