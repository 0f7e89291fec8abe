//! Per-search working memory, owned by the caller and reused across queries.

/// Counters of the last search run with a [`SearchScratch`] (diagnostics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Calls to [`QueryDistance::distance`](super::QueryDistance::distance).
    pub distances: u64,
    /// Nodes expanded (their neighbour lists read), i.e. the hops of the walk.
    pub hops: u64,
}

/// Working memory of [`search`](super::search): a visited set cleared in time proportional to
/// what the last search touched and the sorted candidate lists. Create one per thread and reuse
/// it; once it has seen the largest graph and `ef`, a search allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct SearchScratch {
    /// The nodes visited by the current search (one bit per node).
    pub(crate) visited: Visited,
    /// Routing list: the `ef` best (distance, id) seen, ascending; bit 31 of the id marks an
    /// expanded entry during the walk.
    pub(crate) list: Vec<(f32, u32)>,
    /// Filtered searches: the `ef` best seen that pass the filter, ascending.
    pub(crate) results: Vec<(f32, u32)>,
    /// Build only: every expanded node with its distance, in expansion order.
    pub(crate) expanded: Vec<(f32, u32)>,
    /// The unvisited neighbours of the node being expanded.
    pub(crate) fresh: Vec<u32>,
    pub(crate) stats: SearchStats,
    /// Cold mode: the graph and the codes are read from a mapped file that may not be in
    /// memory yet, so the walk asks for pages ahead of use ([`SearchScratch::set_cold`]).
    pub(crate) cold: bool,
}

/// A set of node ids below `n`: one bit per node (12.5 KB for 100,000 nodes, so it stays in the
/// L1 cache where per-node generation stamps would not), plus the list of the 64-bit words made
/// non-zero since the last [`Visited::reset`], which clears only those.
#[derive(Clone, Debug, Default)]
pub(crate) struct Visited {
    bits: Vec<u64>,
    touched: Vec<u32>,
}

impl Visited {
    /// Empties the set and makes room for ids below `n`.
    #[inline]
    pub(crate) fn reset(&mut self, n: usize) {
        if self.touched.len() * 8 >= self.bits.len() {
            self.bits.fill(0);
        } else {
            for &w in &self.touched {
                self.bits[w as usize] = 0;
            }
        }
        self.touched.clear();
        let words = n.div_ceil(64);
        if self.bits.len() < words {
            self.bits.resize(words, 0);
        }
    }

    /// Adds `v` (< the `n` of the last reset); true if it was not in the set.
    #[inline]
    pub(crate) fn insert(&mut self, v: u32) -> bool {
        let (w, m) = ((v >> 6) as usize, 1u64 << (v & 63));
        let word = &mut self.bits[w];
        if *word & m != 0 {
            return false;
        }
        if *word == 0 {
            self.touched.push(w as u32);
        }
        *word |= m;
        true
    }

    /// Whether `v` (< the `n` of the last reset) is in the set.
    #[inline]
    pub(crate) fn contains(&self, v: u32) -> bool {
        self.bits[(v >> 6) as usize] & (1u64 << (v & 63)) != 0
    }

    /// Heap bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.bits.capacity() * 8 + self.touched.capacity() * 4
    }
}

/// Bit 31 of a list id: "already expanded". Node ids are therefore < 2³¹.
pub(crate) const EXPANDED: u32 = 1 << 31;

impl SearchScratch {
    /// An empty scratch; it grows on first use.
    pub fn new() -> Self {
        Self::default()
    }

    /// Cold mode for the next walks: before reading them, the walk hints the adjacency rows
    /// of the next few candidates ([`crate::graph::Graph::will_need`]) and the codes of every fresh neighbour
    /// ([`crate::graph::QueryDistance::will_need`]), so that the page faults of a node's neighbours are
    /// served together instead of one after another. Costs a system call per hint: meant only
    /// for the first searches after a file is mapped (see `segment`), off by default.
    pub fn set_cold(&mut self, cold: bool) {
        self.cold = cold;
    }

    /// A scratch pre-sized for graphs of up to `n` nodes and lists of `ef` entries.
    pub fn with_capacity(n: usize, ef: usize) -> Self {
        let mut s = Self::default();
        s.visited.reset(n);
        s.list.reserve(ef + 1);
        s.results.reserve(ef + 1);
        s
    }

    /// Counters of the last search.
    pub fn stats(&self) -> SearchStats {
        self.stats
    }

    /// Heap bytes held by this scratch.
    pub fn bytes(&self) -> usize {
        self.visited.bytes()
            + (self.list.capacity() + self.results.capacity() + self.expanded.capacity()) * 8
    }

    /// Starts a search over `n` nodes with lists of `ef` entries: new generation, empty lists.
    #[inline]
    pub(crate) fn begin(&mut self, n: usize, ef: usize) {
        self.visited.reset(n);
        self.list.clear();
        self.results.clear();
        self.expanded.clear();
        if self.list.capacity() < ef + 1 {
            self.list.reserve(ef + 1);
        }
        if self.results.capacity() < ef + 1 {
            self.results.reserve(ef + 1);
        }
        self.stats = SearchStats::default();
    }
}

/// Inserts `(d, id)` into the ascending list `list` holding at most `cap` entries; returns the
/// insertion position, or `cap` if the entry was not better than the worst of a full list (or `d`
/// is NaN). Equal distances keep their arrival order.
#[inline]
pub(crate) fn insert_sorted(list: &mut Vec<(f32, u32)>, cap: usize, d: f32, id: u32) -> usize {
    let len = list.len();
    if (len >= cap && d >= list[len - 1].0) || d.is_nan() {
        return cap;
    }
    let pos = list.partition_point(|c| c.0 <= d);
    if len >= cap {
        list.pop();
    }
    list.insert(pos, (d, id));
    pos
}

/// The walk's next candidate after expanding `list[cursor]`: the first unexpanded entry at or
/// after min(`lowest`, `cursor + 1`), where `lowest` is the first position the expansion
/// inserted at (`usize::MAX` for none); `list.len()` when every entry is expanded.
#[inline]
pub(crate) fn next_unexpanded(list: &[(f32, u32)], cursor: usize, lowest: usize) -> usize {
    let mut c = if lowest <= cursor { lowest } else { cursor + 1 };
    while c < list.len() && list[c].1 & EXPANDED != 0 {
        c += 1;
    }
    c
}
