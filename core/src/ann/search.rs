//! One query against an [`AnnIndex`]: the walk on RaBitQ estimates (exact distances under L1),
//! then the exact rerank of the best candidates, skipping those whose lower bound cannot make the
//! top k.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::{AnnIndex, Scratch};
use crate::error::Result;
use crate::filter::rowset::RowSet;
use crate::flat::{FlatView, TopK};
use crate::graph::{self, QueryDistance, SearchScratch};
use crate::quant::{PreparedQuery, RabitqIndex};

/// Which nodes a walk may return (besides the view's tombstones, which it never returns).
#[derive(Clone, Copy, Debug)]
pub enum Restrict<'a> {
    /// Every live node.
    None,
    /// Only the nodes of the set, which excludes tombstones: the walk routes through every node
    /// and keeps the matching ones (high selectivity).
    Walk(&'a RowSet),
    /// Only the nodes of the set, found by the two-hop walk (`graph::search_two_hop`) from the
    /// entry and the given matching seeds (middle selectivity).
    TwoHop(&'a RowSet, &'a [u32]),
}

/// Per-search options of the index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnnSearch {
    /// ef: list size of the beam search (≥ k; larger is slower and more accurate).
    pub ef: usize,
    /// How many of the best estimated candidates get an exact distance (≥ k).
    pub rerank: usize,
}

/// Exact distances to stored rows through the collection's [`FlatView`].
struct ExactQuery<'a> {
    view: &'a FlatView<'a>,
    q: &'a [f32],
}

impl QueryDistance for ExactQuery<'_> {
    #[inline]
    fn distance(&mut self, node: u32) -> f32 {
        self.view.distance(self.q, node as usize)
    }

    #[inline]
    fn will_need(&self, node: u32) {
        self.view.will_need(node as usize);
    }
}

// ExactQuery has no CPU prefetch: its rows are read straight after being listed.

/// RaBitQ estimates.
struct CodeQuery<'a> {
    codes: &'a RabitqIndex,
    pq: &'a PreparedQuery,
}

impl QueryDistance for CodeQuery<'_> {
    #[inline]
    fn distance(&mut self, node: u32) -> f32 {
        self.codes.estimate(self.pq, node)
    }

    #[inline]
    fn prefetch(&self, node: u32) {
        self.codes.prefetch(node);
    }

    #[inline]
    fn will_need(&self, node: u32) {
        self.codes.will_need(node);
    }
}

impl AnnIndex {
    /// The approximate `k` nearest live rows to raw query `q` (`dim` values) with prepared form
    /// `prepared` (unit-normalised under cosine), best first, with exact distances.
    ///
    /// # Errors
    /// `HV_INVALID_VECTOR` / `HV_DIM_MISMATCH` from the quantizer (callers validate first).
    pub fn search(
        &self,
        view: &FlatView<'_>,
        q: &[f32],
        prepared: &[f32],
        k: usize,
        opts: AnnSearch,
    ) -> Result<Vec<crate::flat::Hit>> {
        self.search_restricted(view, q, prepared, k, opts, Restrict::None)
    }

    /// [`AnnIndex::search`] returning only the nodes `restrict` admits.
    ///
    /// # Errors
    /// As [`AnnIndex::search`].
    pub fn search_restricted(
        &self,
        view: &FlatView<'_>,
        q: &[f32],
        prepared: &[f32],
        k: usize,
        opts: AnnSearch,
        restrict: Restrict<'_>,
    ) -> Result<Vec<crate::flat::Hit>> {
        let mut scratch = self.take_scratch();
        // The beam never needs more slots than the graph has nodes: clamping here, before the
        // scratch is sized, keeps a caller's huge `k` or `ef` (say 2³²) from allocating
        // gigabytes. `k` above the node count returns every live node.
        let nodes = self.graph.len().max(1);
        let k = k.min(nodes);
        let ef = opts.ef.max(k).min(nodes);
        // Tombstones come from the view: the collection's own flags for its rows, or a sealed
        // segment's flags kept by the collection (the segment's file never changes).
        let deleted = view.deleted;
        let rerank = opts.rerank.max(k).min(ef);
        let mut top = TopK::new(k);
        let Scratch {
            walk: walk_scratch,
            query,
        } = &mut scratch;
        let cold = self.is_cold();
        walk_scratch.set_cold(cold);
        let _foreground = self.cold_gauge.filter(|_| cold).map(ColdSearch::begin);
        let result = match &self.codes {
            Some(codes) => {
                let pq = query.get_or_insert_with(|| codes.new_query());
                match codes.prepare_into(q, pq) {
                    Ok(()) => {
                        pq.set_epsilon0(RERANK_EPSILON0);
                        let pq: &PreparedQuery = pq;
                        let mut qd = CodeQuery { codes, pq };
                        let cands =
                            run_walk(&self.graph, &mut qd, ef, walk_scratch, restrict, deleted);
                        let cands = &cands[..cands.len().min(rerank)];
                        rerank_into(view, prepared, cands, &mut top, |est, node| {
                            est - codes.bound(pq, node)
                        });
                        Ok(())
                    }
                    Err(e) => Err(e),
                }
            }
            None => {
                let mut qd = ExactQuery { view, q: prepared };
                let cands = run_walk(&self.graph, &mut qd, ef, walk_scratch, restrict, deleted);
                let cands = &cands[..cands.len().min(rerank)];
                rerank_into(view, prepared, cands, &mut top, |_, _| f32::NEG_INFINITY);
                Ok(())
            }
        };
        self.put_scratch(scratch);
        result.map(|()| top.into_sorted())
    }
}

impl AnnIndex {
    /// A search scratch from the pool (a new one when all are in use).
    fn take_scratch(&self) -> Scratch {
        self.pool
            .lock()
            .ok()
            .and_then(|mut p| p.pop())
            .unwrap_or_else(|| Scratch {
                walk: SearchScratch::new(),
                query: None,
            })
    }

    /// Gives a scratch back to the pool.
    fn put_scratch(&self, scratch: Scratch) {
        if let Ok(mut p) = self.pool.lock() {
            p.push(scratch);
        }
    }

    /// The `k` best of `rows` (live nodes of this index, e.g. a filter's matches) without a
    /// walk: every row's RaBitQ estimate, then the exact rerank of the best `rerank` estimates
    /// (a brute force over the codes, cheaper than a walk when the rows are a few thousand).
    /// `None` when the index has no codes (L1).
    ///
    /// # Errors
    /// As [`AnnIndex::search`].
    pub fn scan_codes(
        &self,
        view: &FlatView<'_>,
        q: &[f32],
        prepared: &[f32],
        k: usize,
        rerank: usize,
        rows: impl Iterator<Item = u32>,
    ) -> Option<Result<Vec<crate::flat::Hit>>> {
        let codes = self.codes.as_ref()?;
        let mut scratch = self.take_scratch();
        let pq = scratch.query.get_or_insert_with(|| codes.new_query());
        let result = codes.prepare_into(q, pq).map(|()| {
            pq.set_epsilon0(RERANK_EPSILON0);
            let pq: &PreparedQuery = pq;
            let nodes = self.graph.len() as u32;
            let mut est: Vec<(f32, u32)> = rows
                .filter(|&r| r < nodes)
                .map(|r| (codes.estimate(pq, r), r))
                .collect();
            let keep = rerank.max(k).min(est.len());
            if keep < est.len() {
                est.select_nth_unstable_by(keep, |a, b| a.0.total_cmp(&b.0));
                est.truncate(keep);
            }
            est.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
            let mut top = TopK::new(k);
            rerank_into(view, prepared, &est, &mut top, |e, node| {
                e - codes.bound(pq, node)
            });
            top.into_sorted()
        });
        self.put_scratch(scratch);
        Some(result)
    }
}

/// The walk `restrict` asks for; the candidates, best estimate first.
fn run_walk<Q: QueryDistance>(
    graph: &graph::Graph,
    qd: &mut Q,
    ef: usize,
    scratch: &mut SearchScratch,
    restrict: Restrict<'_>,
    deleted: &[bool],
) -> Vec<(f32, u32)> {
    match restrict {
        // no tombstones: the routing list is the result list
        Restrict::None if deleted.is_empty() => {
            graph::search_unfiltered(graph, qd, ef, scratch).to_vec()
        }
        Restrict::None => graph::search(graph, qd, ef, scratch, |n| {
            !deleted.get(n as usize).copied().unwrap_or(false)
        })
        .to_vec(),
        Restrict::Walk(set) => graph::search(graph, qd, ef, scratch, |n| set.contains(n)).to_vec(),
        Restrict::TwoHop(set, seeds) => {
            graph::search_two_hop(graph, qd, ef, scratch, |n| set.contains(n), seeds).to_vec()
        }
    }
}

/// Counts one search in a cold-search gauge ([`AnnIndex::count_cold_searches_in`]) for as long
/// as it lives.
struct ColdSearch(&'static AtomicUsize);

impl ColdSearch {
    fn begin(gauge: &'static AtomicUsize) -> ColdSearch {
        gauge.fetch_add(1, Ordering::Relaxed);
        ColdSearch(gauge)
    }
}

impl Drop for ColdSearch {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// ε₀ of the error bound that lets the rerank skip a candidate (RaBitQ, Theorem 3.2: the exact
/// distance is at least `estimate − bound` for all but ≈ 0.1 % of pairs at ε₀ = 3.2).
pub const RERANK_EPSILON0: f32 = 3.2;

/// Rows prefetched ahead of the one being reranked.
const RERANK_PREFETCH: usize = 4;

/// Exact distances for `cands` (`(estimate, node)`, best estimate first) into `top`, skipping a
/// candidate whose lower bound `lower(estimate, node)` already exceeds the k-th exact distance
/// found so far. The rows of the next candidates are prefetched while one is scored; a candidate
/// is tested against its bound when its row would be prefetched (the k-th distance only falls
/// once `top` is full, so one excluded then stays excluded: most skipped rows cost no memory
/// traffic) and again when it is scored. A row's insertion sequence (the tie-break) is read only
/// when its distance can enter.
fn rerank_into(
    view: &FlatView<'_>,
    q: &[f32],
    cands: &[(f32, u32)],
    top: &mut TopK,
    lower: impl Fn(f32, u32) -> f32,
) {
    // rows of a mapped file not read before: ask for all of them at once, so that their page
    // faults overlap (some are then skipped by their bound: a few reads wasted, once)
    if let Some(pages) = view.pages {
        for &(_, node) in cands {
            pages.will_need(node as usize);
        }
    }
    let admitted = |top: &TopK, (est, node): (f32, u32)| match top.worst() {
        Some(worst) => lower(est, node) <= worst,
        None => true,
    };
    // candidates admitted and prefetched, not scored yet (a ring of RERANK_PREFETCH slots)
    let mut ahead = [(0f32, 0u32); RERANK_PREFETCH];
    let (mut head, mut len) = (0usize, 0usize);
    let mut next = 0usize;
    loop {
        while len < RERANK_PREFETCH && next < cands.len() {
            let c = cands[next];
            next += 1;
            if admitted(top, c) {
                view.prefetch(c.1 as usize);
                ahead[(head + len) % RERANK_PREFETCH] = c;
                len += 1;
            }
        }
        if len == 0 {
            break;
        }
        let c = ahead[head];
        head = (head + 1) % RERANK_PREFETCH;
        len -= 1;
        // the k-th distance may have fallen since the prefetch
        if !admitted(top, c) {
            continue;
        }
        let (_, node) = c;
        let i = node as usize;
        let d = view.distance(q, i);
        if top.worst().is_none_or(|w| d <= w) {
            top.push(d, view.seqs[i], node);
        }
    }
}
