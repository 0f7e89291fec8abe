//! Greedy beam search ("GreedySearch", DiskANN paper Algorithm 1) over a [`Graph`].

use super::scratch::{insert_sorted, next_unexpanded, SearchScratch, EXPANDED};
use super::{Graph, QueryDistance};

/// Greedy beam search from the graph's entry point with list size `ef` (L_search; use ≥ k).
///
/// Returns up to `ef` `(distance, node)` pairs sorted by ascending `query` distance: the best
/// nodes found that pass `filter`. Nodes rejected by `filter` (e.g. tombstones) are still walked
/// through, so they keep the graph navigable, but never returned. The slice borrows `scratch`;
/// [`SearchScratch::stats`] then gives the number of distance computations and hops.
///
/// The walk keeps the `ef` closest nodes seen (filtered or not) and repeatedly expands the
/// closest one not yet expanded, until all of them are expanded. Every node reached is offered to
/// the result list if it passes `filter`, so with a filter the result may include nodes that fell
/// out of the routing list. An empty graph gives an empty slice; `ef = 0` is treated as 1.
///
/// Distances are whatever `query` returns (possibly estimates): rerank the returned candidates
/// exactly if needed.
pub fn search<'s, Q, F>(
    graph: &Graph,
    query: &mut Q,
    ef: usize,
    scratch: &'s mut SearchScratch,
    filter: F,
) -> &'s [(f32, u32)]
where
    Q: QueryDistance + ?Sized,
    F: Fn(u32) -> bool,
{
    walk::<Q, F, true, false>(graph, graph.entry, query, ef, scratch, &filter);
    &scratch.results
}

/// [`search`] without a filter (every node may be returned); slightly cheaper, as one list serves
/// both routing and results.
pub fn search_unfiltered<'s, Q>(
    graph: &Graph,
    query: &mut Q,
    ef: usize,
    scratch: &'s mut SearchScratch,
) -> &'s [(f32, u32)]
where
    Q: QueryDistance + ?Sized,
{
    walk::<Q, _, false, false>(graph, graph.entry, query, ef, scratch, &|_| true);
    &scratch.list
}

/// The walk shared by search, build and insert.
///
/// `FILTERED`: maintain `scratch.results` (the `ef` best passing `filter`). `RECORD`: append every
/// expanded node to `scratch.expanded` (the visited set V of the build). On return the ids in
/// `scratch.list` are clean (no expanded bit).
#[inline]
pub(crate) fn walk<Q, F, const FILTERED: bool, const RECORD: bool>(
    graph: &Graph,
    entry: u32,
    query: &mut Q,
    ef: usize,
    scratch: &mut SearchScratch,
    filter: &F,
) where
    Q: QueryDistance + ?Sized,
    F: Fn(u32) -> bool,
{
    let ef = ef.max(1);
    let n = graph.len();
    scratch.begin(n, ef);
    if n == 0 {
        return;
    }
    let SearchScratch {
        visited,
        list,
        results,
        expanded,
        fresh,
        stats,
        cold,
    } = scratch;
    let cold = *cold;
    visited.insert(entry);
    let d = query.distance(entry);
    let mut distances = 1u64;
    let mut hops = 0u64;
    insert_sorted(list, ef, d, entry);
    if FILTERED && filter(entry) {
        insert_sorted(results, ef, d, entry);
    }
    let mut cursor = 0usize;
    while cursor < list.len() {
        let (cd, cid) = list[cursor];
        list[cursor].1 = cid | EXPANDED;
        if RECORD {
            expanded.push((cd, cid));
        }
        hops += 1;
        // the adjacency of the next candidate, read while this one's neighbours are scored
        if let Some(&(_, next)) = list[cursor + 1..].iter().find(|c| c.1 & EXPANDED == 0) {
            graph.prefetch(next);
        }
        if cold {
            // the adjacency of the candidates likely to be expanded next
            for &(_, id) in list[cursor + 1..]
                .iter()
                .filter(|c| c.1 & EXPANDED == 0)
                .take(COLD_LOOKAHEAD)
            {
                graph.will_need(id);
            }
        }
        // Unvisited neighbours first, so that their rows can be prefetched ahead of use.
        fresh.clear();
        for &v in graph.neighbors(cid) {
            // an edge out of range only comes from a damaged mapped file opened without
            // `verify`: skip it rather than fail the search
            if v as usize >= n {
                continue;
            }
            if visited.insert(v) {
                fresh.push(v);
            }
        }
        if cold {
            for &v in fresh.iter() {
                query.will_need(v);
            }
        }
        for &v in fresh.iter().take(PREFETCH_AHEAD) {
            query.prefetch(v);
        }
        let mut lowest = usize::MAX;
        for (i, &v) in fresh.iter().enumerate() {
            if let Some(&ahead) = fresh.get(i.saturating_add(PREFETCH_AHEAD)) {
                query.prefetch(ahead);
            }
            let dv = query.distance(v);
            let pos = insert_sorted(list, ef, dv, v);
            if pos < lowest {
                lowest = pos;
            }
            if FILTERED && filter(v) {
                insert_sorted(results, ef, dv, v);
            }
        }
        distances += fresh.len() as u64;
        // The next candidate: the first unexpanded entry at or after min(lowest insert, cursor + 1).
        cursor = next_unexpanded(list, cursor, lowest);
    }
    for c in list.iter_mut() {
        c.1 &= !EXPANDED;
    }
    stats.distances = distances;
    stats.hops = hops;
}

/// Cold mode ([`SearchScratch::set_cold`]): how many of the next unexpanded candidates get
/// their adjacency asked for ahead of use.
const COLD_LOOKAHEAD: usize = 3;

/// How many neighbours ahead of use [`QueryDistance::prefetch`] is called. Natively a prefetch
/// instruction is issued 8 ahead (minilm384 100k, ef 64, one thread: 2 ahead was measurably
/// slower, all up front no faster). wasm32 has none: its stand-in is a real (volatile) load, so all
/// fresh neighbours are touched up front, letting their cache misses overlap with one another
/// instead of stalling one at a time.
#[cfg(not(target_arch = "wasm32"))]
const PREFETCH_AHEAD: usize = 8;
#[cfg(target_arch = "wasm32")]
const PREFETCH_AHEAD: usize = usize::MAX;
