//! The filtered walk of middle selectivity: ACORN-1's neighbourhood expansion (Patel et al.,
//! "ACORN: Performant and Predicate-Agnostic Search Over Vector Embeddings and Structured
//! Data", SIGMOD 2024, §5) on a graph built without predicates.
//!
//! Only nodes that pass the predicate are scored and routed through; a neighbour that fails
//! it is a bridge: its own neighbours that pass are taken instead (two hops), so the walk stays
//! connected over the matching subgraph without scoring the non-matching nodes. The walk also
//! starts from a few matching seeds besides the graph's entry, so that a predicate that
//! matches nothing near the entry still has a start.

use super::scratch::{insert_sorted, next_unexpanded, SearchScratch, EXPANDED};
use super::{Graph, QueryDistance};

/// Most matching nodes one expansion scores (the two-hop neighbourhood can be R² nodes): R of
/// the default graph, as ACORN truncates the expanded list to M; larger caps scored more nodes
/// for the same recall on minilm384 (`bench/filter-threshold.mjs`).
const MAX_FRESH: usize = 32;

/// Filtered beam search with list size `ef` over the nodes passing `allow`, from the graph's
/// entry and `seeds` (matching nodes). Returns up to `ef` `(distance, node)` pairs of matching
/// nodes, ascending by `query` distance (estimates possibly: rerank them).
pub fn search_two_hop<'s, Q, F>(
    graph: &Graph,
    query: &mut Q,
    ef: usize,
    scratch: &'s mut SearchScratch,
    allow: F,
    seeds: &[u32],
) -> &'s [(f32, u32)]
where
    Q: QueryDistance + ?Sized,
    F: Fn(u32) -> bool,
{
    let ef = ef.max(1);
    let n = graph.len();
    scratch.begin(n, ef);
    if n == 0 {
        return &scratch.results;
    }
    let SearchScratch {
        visited,
        list,
        results,
        fresh,
        stats,
        ..
    } = scratch;
    let mut distances = 0u64;
    let mut hops = 0u64;
    // the entry routes even when it fails the predicate (it is never returned)
    for &s in std::iter::once(&graph.entry).chain(seeds) {
        if (s as usize) < n && visited.insert(s) {
            insert_sorted(list, ef, query.distance(s), s);
            distances += 1;
        }
    }
    let mut cursor = 0usize;
    while cursor < list.len() {
        let (_, cid) = list[cursor];
        list[cursor].1 = cid | EXPANDED;
        hops += 1;
        fresh.clear();
        'hood: for &v in graph.neighbors(cid) {
            if v as usize >= n || !visited.insert(v) {
                continue;
            }
            if allow(v) {
                fresh.push(v);
                if fresh.len() >= MAX_FRESH {
                    break;
                }
                continue;
            }
            for &w in graph.neighbors(v) {
                if (w as usize) < n && !visited.contains(w) && allow(w) {
                    visited.insert(w);
                    fresh.push(w);
                    if fresh.len() >= MAX_FRESH {
                        break 'hood;
                    }
                }
            }
        }
        for &v in fresh.iter().take(2) {
            query.prefetch(v);
        }
        let mut lowest = usize::MAX;
        for (i, &v) in fresh.iter().enumerate() {
            if let Some(&ahead) = fresh.get(i + 2) {
                query.prefetch(ahead);
            }
            let pos = insert_sorted(list, ef, query.distance(v), v);
            lowest = lowest.min(pos);
        }
        distances += fresh.len() as u64;
        cursor = next_unexpanded(list, cursor, lowest);
    }
    results.clear();
    for c in list.iter_mut() {
        c.1 &= !EXPANDED;
        if allow(c.1) {
            results.push(*c);
        }
    }
    stats.distances = distances;
    stats.hops = hops;
    &scratch.results
}
