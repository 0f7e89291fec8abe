//! The graph's storage: a flat fixed-stride adjacency with the degree inline.

use super::adj::Adj;
use super::{BuildError, MAX_NODES};
use crate::region::Region;

/// A directed proximity graph over nodes `0..len()` with out-degree ≤ R and one entry point.
///
/// Layout: one flat `Vec<u32>` of `len() × (R + 1)` values; row `i` holds the degree of node `i`
/// followed by its R neighbour slots (only the first `degree` are meaningful). Keeping the degree
/// next to the neighbours costs one cache miss per expanded node instead of two. Memory:
/// `4 · (R + 1)` bytes per node ([`Graph::bytes`]).
///
/// Invariants: every degree ≤ R; no self loops; no duplicate neighbour within a row; every
/// neighbour id `< len()`; `entry_point() < len()` unless the graph is empty. Node ids are `< 2³¹`.
#[derive(Clone, Debug)]
pub struct Graph {
    /// Maximum out-degree R.
    pub(crate) r: usize,
    /// Row stride = capacity + 1 (R + 1 outside a build; the build may use a larger capacity).
    pub(crate) stride: usize,
    /// `len × stride` values: `[degree, neighbours…]` per row.
    pub(crate) adj: Adj,
    /// Entry point of every search (the medoid after a build).
    pub(crate) entry: u32,
}

/// Two graphs are equal when they have the same R, the same entry point and the same neighbour
/// lists in the same order (unused slots and row capacity are ignored).
impl PartialEq for Graph {
    fn eq(&self, other: &Graph) -> bool {
        self.r == other.r
            && self.len() == other.len()
            && self.entry == other.entry
            && (0..self.len() as u32).all(|i| self.neighbors(i) == other.neighbors(i))
    }
}

impl Eq for Graph {}

impl Graph {
    /// An empty graph with maximum out-degree `r` (nodes are added by [`Graph::insert`]).
    pub fn empty(r: usize) -> Graph {
        Graph::with_capacity(r, r)
    }

    pub(crate) fn with_capacity(r: usize, cap: usize) -> Graph {
        Graph {
            r,
            stride: cap + 1,
            adj: Adj::default(),
            entry: 0,
        }
    }

    /// Rebuilds a graph from its parts, e.g. after loading them from disk: maximum degree `r`,
    /// `degrees[i]` the out-degree of node `i`, `neighbors` the concatenated neighbour lists
    /// (`Σ degrees` ids, node 0's first), and the entry point.
    ///
    /// # Errors
    /// [`BuildError::InvalidGraph`] if the parts break an invariant (degree > R, self loop,
    /// duplicate or out-of-range neighbour, lengths that do not add up, entry out of range).
    pub fn from_parts(
        r: usize,
        degrees: &[u32],
        neighbors: &[u32],
        entry: u32,
    ) -> Result<Graph, BuildError> {
        let n = degrees.len();
        if n > MAX_NODES {
            return Err(BuildError::InvalidGraph("too many nodes"));
        }
        if r == 0 {
            return Err(BuildError::InvalidGraph("R must be at least 1"));
        }
        let total: u64 = degrees.iter().map(|&d| u64::from(d)).sum();
        if total != neighbors.len() as u64 {
            return Err(BuildError::InvalidGraph(
                "neighbour count does not match the degrees",
            ));
        }
        if n > 0 && entry as usize >= n {
            return Err(BuildError::InvalidGraph("entry point out of range"));
        }
        let mut g = Graph::with_capacity(r, r);
        g.adj = vec![0; n * g.stride].into();
        let mut seen = vec![u32::MAX; n];
        let mut at = 0usize;
        for (i, &d) in degrees.iter().enumerate() {
            let d = d as usize;
            if d > r {
                return Err(BuildError::InvalidGraph("degree above R"));
            }
            let row = &neighbors[at..at + d];
            at += d;
            for &v in row {
                if v as usize >= n {
                    return Err(BuildError::InvalidGraph("neighbour out of range"));
                }
                if v as usize == i {
                    return Err(BuildError::InvalidGraph("self loop"));
                }
                if seen[v as usize] == i as u32 {
                    return Err(BuildError::InvalidGraph("duplicate neighbour"));
                }
                seen[v as usize] = i as u32;
            }
            g.set_neighbors(i as u32, row);
        }
        g.entry = entry;
        Ok(g)
    }

    /// A graph read in place from `adj`, a region of `n × (r + 1)` `u32`s laid out as
    /// [`Graph`]'s rows (degree, then `r` neighbour slots), e.g. a mapped segment file.
    ///
    /// Only the shape and the entry point are checked here (constant time, so that opening a
    /// segment stays instant); [`Graph::validate`] checks every edge.
    ///
    /// # Errors
    /// [`BuildError::InvalidGraph`] for `r = 0`, a length that is not a whole number of rows,
    /// too many nodes or an entry point out of range.
    pub fn from_mapped(r: usize, adj: Region, entry: u32) -> Result<Graph, BuildError> {
        if r == 0 {
            return Err(BuildError::InvalidGraph("R must be at least 1"));
        }
        let values = adj.as_slice::<u32>().len();
        if adj.len() != values * 4 || !values.is_multiple_of(r + 1) {
            return Err(BuildError::InvalidGraph(
                "adjacency is not a whole number of rows",
            ));
        }
        let n = values / (r + 1);
        if n > MAX_NODES {
            return Err(BuildError::InvalidGraph("too many nodes"));
        }
        if n > 0 && entry as usize >= n {
            return Err(BuildError::InvalidGraph("entry point out of range"));
        }
        Ok(Graph {
            r,
            stride: r + 1,
            adj: Adj::mapped(adj),
            entry,
        })
    }

    /// Number of nodes.
    #[inline]
    pub fn len(&self) -> usize {
        self.adj.len() / self.stride
    }

    /// Whether the graph has no node.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.adj.is_empty()
    }

    /// Maximum out-degree R.
    #[inline]
    pub fn max_degree(&self) -> usize {
        self.r
    }

    /// The entry point of searches (the medoid after a build; see [`Graph::set_entry_point`]).
    #[inline]
    pub fn entry_point(&self) -> u32 {
        self.entry
    }

    /// Sets the entry point of searches.
    ///
    /// # Panics
    /// If `node >= len()`.
    pub fn set_entry_point(&mut self, node: u32) {
        assert!((node as usize) < self.len(), "entry point out of range");
        self.entry = node;
    }

    /// Out-degree of `node`.
    #[inline]
    pub fn degree(&self, node: u32) -> usize {
        self.adj[node as usize * self.stride] as usize
    }

    /// Out-neighbours of `node` (at most R ids, no particular order).
    #[inline]
    pub fn neighbors(&self, node: u32) -> &[u32] {
        let s = node as usize * self.stride;
        // clamped to the row: a damaged mapped file must not read past it
        let d = (self.adj[s] as usize).min(self.stride - 1);
        &self.adj[s + 1..s + 1 + d]
    }

    /// Asks the CPU to start loading `node`'s adjacency row into cache (e.g. the next candidate
    /// of a walk while the current one is expanded). Only a hint; nothing for an id out of range.
    #[inline]
    pub fn prefetch(&self, node: u32) {
        let s = node as usize * self.stride;
        if let Some(row) = self.adj.get(s..s + self.stride) {
            crate::region::prefetch(row);
        }
    }

    /// Asks the medium for `node`'s adjacency row ahead of use when the graph is read from a
    /// mapped file (`Region::will_need`); nothing for a graph in memory or an id out of range.
    #[inline]
    pub fn will_need(&self, node: u32) {
        if (node as usize) < self.len() {
            self.adj.will_need(node as usize * self.stride, self.stride);
        }
    }

    /// Total number of edges.
    pub fn edge_count(&self) -> usize {
        self.adj
            .iter()
            .step_by(self.stride)
            .map(|&d| d as usize)
            .sum()
    }

    /// Heap bytes used by the adjacency (`len() × (R + 1) × 4`).
    pub fn bytes(&self) -> usize {
        self.adj.capacity() * 4
    }

    /// Replaces the out-neighbours of `node` (callers keep the invariants).
    #[inline]
    pub(crate) fn set_neighbors(&mut self, node: u32, nbrs: &[u32]) {
        debug_assert!(nbrs.len() < self.stride);
        let s = node as usize * self.stride;
        self.adj[s] = nbrs.len() as u32;
        self.adj[s + 1..s + 1 + nbrs.len()].copy_from_slice(nbrs);
    }

    /// Grows the graph to `n` nodes; new nodes have no edges.
    pub(crate) fn grow(&mut self, n: usize) {
        if n > self.len() {
            self.adj.resize(n * self.stride, 0);
        }
    }

    /// Changes the row capacity to `cap` (≥ every degree), moving rows in place.
    pub(crate) fn set_capacity(&mut self, cap: usize) {
        let new_stride = cap + 1;
        if new_stride == self.stride {
            return;
        }
        let n = self.len();
        let old = self.stride;
        if new_stride < old {
            for i in 0..n {
                let d = self.adj[i * old] as usize;
                debug_assert!(d <= cap);
                self.adj
                    .copy_within(i * old..i * old + 1 + d, i * new_stride);
            }
            self.adj.truncate(n * new_stride);
            self.adj.shrink_to_fit();
        } else {
            self.adj.resize(n * new_stride, 0);
            for i in (0..n).rev() {
                let d = self.adj[i * old] as usize;
                self.adj
                    .copy_within(i * old..i * old + 1 + d, i * new_stride);
            }
        }
        self.stride = new_stride;
    }

    /// Renumbers nodes after the caller removed rows: `remap[old]` is the new id of node `old`,
    /// or `u32::MAX` if it was removed. Kept nodes must map onto `0..m` one to one, where `m` is
    /// the number of kept nodes; edges to removed nodes are dropped (after [`Graph::consolidate`]
    /// there are none). If the entry point was removed, the kept node of new id 0 becomes the
    /// entry point (after `consolidate` the entry point is live, so this does not happen).
    ///
    /// # Errors
    /// [`BuildError::InvalidGraph`] if `remap.len() != len()` or the kept ids are not a
    /// permutation of `0..m`; the graph is then unchanged.
    pub fn compact(&mut self, remap: &[u32]) -> Result<(), BuildError> {
        let n = self.len();
        if remap.len() != n {
            return Err(BuildError::InvalidGraph(
                "remap must have one entry per node",
            ));
        }
        let m = remap.iter().filter(|&&x| x != u32::MAX).count();
        let mut seen = vec![false; m];
        for &x in remap {
            if x != u32::MAX {
                if x as usize >= m || seen[x as usize] {
                    return Err(BuildError::InvalidGraph(
                        "remap is not a permutation of 0..m",
                    ));
                }
                seen[x as usize] = true;
            }
        }
        let mut adj = vec![0u32; m * self.stride];
        for old in 0..n {
            let new = remap[old];
            if new == u32::MAX {
                continue;
            }
            let s = new as usize * self.stride;
            let mut d = 0;
            for &v in self.neighbors(old as u32) {
                let nv = remap[v as usize];
                if nv != u32::MAX {
                    adj[s + 1 + d] = nv;
                    d += 1;
                }
            }
            adj[s] = d as u32;
        }
        self.adj = adj.into();
        self.entry = if n == 0 || remap[self.entry as usize] == u32::MAX {
            0
        } else {
            remap[self.entry as usize]
        };
        Ok(())
    }

    /// Checks every invariant (tests and debugging); returns the first violation found.
    ///
    /// # Errors
    /// A message naming the first violation: the entry point out of range, or a node (by
    /// number) whose degree exceeds R, with a neighbour out of range, a self loop, or a
    /// duplicate neighbour.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.len();
        if n > 0 && self.entry as usize >= n {
            return Err(format!("entry {} out of range", self.entry));
        }
        let mut seen = vec![u32::MAX; n];
        for i in 0..n as u32 {
            let nb = self.neighbors(i);
            if nb.len() > self.r {
                return Err(format!("node {i}: degree {} > R = {}", nb.len(), self.r));
            }
            for &v in nb {
                if v as usize >= n {
                    return Err(format!("node {i}: neighbour {v} out of range"));
                }
                if v == i {
                    return Err(format!("node {i}: self loop"));
                }
                if seen[v as usize] == i {
                    return Err(format!("node {i}: duplicate neighbour {v}"));
                }
                seen[v as usize] = i;
            }
        }
        Ok(())
    }
}
