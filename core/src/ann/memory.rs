//! Upper bounds of the bytes an index operation may allocate, which the wasm build checks before
//! it changes anything (`crate::mem::ensure_headroom`; a no-op natively).

use super::{AnnIndex, IndexParams};

impl AnnIndex {
    /// Bytes per node of what grows with the index: codes, adjacency at R (and the build's
    /// slack), the tombstone flag, the search scratch's visit mark.
    fn node_bytes(&self) -> usize {
        let codes = self.codes.as_ref().map_or(0, |c| c.record_words() * 8);
        let r = self.graph.max_degree();
        codes + (r + r / 2 + 1) * 4 + 1 + 4
    }

    /// An upper bound of the bytes that inserting `n_new` nodes may allocate: every growing
    /// array reallocated once (old and new copies alive together), plus the insert's lists of L
    /// candidates (`crate::mem::ensure_headroom`).
    pub fn insert_headroom(&self, n_new: usize) -> usize {
        let nodes = self.len().saturating_add(n_new);
        let l = self.params.l.max(self.graph.max_degree());
        nodes
            .saturating_mul(self.node_bytes())
            .saturating_mul(3)
            .saturating_add(l.saturating_mul(self.graph.max_degree() + 8) * 16)
    }

    /// An upper bound of the bytes one search with list size `ef` for `k` results may allocate
    /// (scratch growth: the visited set's bit per node and its list of touched 64-bit words;
    /// candidates, the top-k).
    pub fn search_headroom(&self, k: usize, ef: usize) -> usize {
        let ef = ef.min(self.len().max(1));
        let n = self.len();
        (n.div_ceil(8) + n.div_ceil(64) * 4)
            .saturating_add(ef.saturating_add(k.min(self.len())).saturating_mul(64))
    }

    /// An upper bound of the bytes building an index of `n` rows of `dim` values with `params`
    /// may allocate: codes, the adjacency at the build's slack (twice: the final copy), the
    /// search lists of L candidates.
    pub fn build_headroom(n: usize, dim: usize, params: &IndexParams) -> usize {
        let bits = params.resolved(dim).bits;
        let per_node = (dim.div_ceil(64) * usize::from(bits) + 4) * 8
            + (params.r + params.r / 2 + 1) * 4 * 2
            + 16;
        n.saturating_mul(per_node)
            .saturating_add(params.l * params.r * 64)
    }

    /// An upper bound of the bytes a consolidation may allocate (the codes and graph rebuilt
    /// compactly, the remap, new tombstone flags).
    pub fn consolidate_headroom(&self) -> usize {
        self.len()
            .saturating_mul(self.node_bytes() + 8)
            .saturating_mul(2)
    }
}
