//! The metadata queries: `count`, `list` (pages in insertion order), `matching_ids`,
//! `delete_where`.

use std::collections::BinaryHeap;
use std::sync::Arc;

use super::search::MUTABLE;
use super::Collection;
use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::types::VectorId;

/// Largest `limit` of one [`Collection::list`] page.
pub const MAX_LIST_LIMIT: usize = 10_000;

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

impl Collection {
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
