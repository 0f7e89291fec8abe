//! Per-search working memory, owned by the caller and reused across queries.

/// Counters of the last search run with a [`SearchScratch`] (diagnostics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Calls to [`QueryDistance::distance`](super::QueryDistance::distance).
    pub distances: u64,
    /// Nodes expanded (their neighbour lists read), i.e. the hops of the walk.
    pub hops: u64,
}

/// Working memory of [`search`](super::search): a visited set cleared in O(1) and the sorted
/// candidate lists. Create one per thread and reuse it; once it has seen the largest graph and
/// `ef`, a search allocates nothing.
///
/// Invariants: `marks[i] == epoch` iff node `i` was visited by the current search; `epoch` is
/// never 0 while searching (0 is the "never visited" value, restored on wraparound).
#[derive(Clone, Debug, Default)]
pub struct SearchScratch {
    /// Visited marks, one generation stamp per node (4 bytes per node).
    pub(crate) marks: Vec<u32>,
    /// Current generation.
    pub(crate) epoch: u32,
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
        s.marks.resize(n, 0);
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
        self.marks.capacity() * 4
            + (self.list.capacity() + self.results.capacity() + self.expanded.capacity()) * 8
    }

    /// Starts a search over `n` nodes with lists of `ef` entries: new generation, empty lists.
    #[inline]
    pub(crate) fn begin(&mut self, n: usize, ef: usize) {
        if self.marks.len() < n {
            self.marks.resize(n, 0);
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.marks.fill(0);
            self.epoch = 1;
        }
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

    /// Tests: jump to generation `e` (to exercise the wraparound).
    #[cfg(test)]
    pub(crate) fn epoch_for_tests(&mut self, e: u32) {
        self.epoch = e;
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
