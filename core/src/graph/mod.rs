//! Proximity graphs: the Vamana graph of DiskANN, its streaming updates (FreshDiskANN) and the
//! greedy beam search that walks it.
//!
//! This module knows nothing about files, quantizers or JS types. It reads nodes through two
//! small traits:
//!
//! * [`NodeDistance`]: exact distances between two *stored* nodes (build, insert, prune,
//!   consolidation);
//! * [`QueryDistance`]: distances from one query to stored nodes (search; may be an estimate,
//!   e.g. RaBitQ codes, followed by an exact rerank by the caller).
//!
//! [`FlatNodes`] / [`FlatQuery`] implement both over a row-major `f32` matrix and a
//! [`Metric`](crate::types::Metric).
//!
//! # The graph
//!
//! [`Graph`] is a flat, fixed-stride adjacency (`n × R` `u32` plus one degree per node) with one
//! entry point (the medoid). [`Graph::build`] runs the Vamana build of Subramanya et al.,
//! "DiskANN: Fast Accurate Billion-point Nearest Neighbor Search on a Single Node", NeurIPS 2019
//! (passes over a seeded permutation with greedy search + RobustPrune + reverse edges, from a
//! random R-regular or an empty start graph), parallelised with the deterministic prefix-doubling
//! batches of ParlayANN (Manohar et al., "ParlayANN: Scalable and Deterministic Parallel
//! Graph-Based Approximate Nearest Neighbor Search Algorithms", PPoPP 2024): the graph depends on
//! the seed only, never on the number of threads or on the `parallel` feature. See
//! [`VamanaParams`] for the measured defaults.
//!
//! [`Graph::insert`] / [`Graph::insert_batch`] add nodes after the build, and
//! [`Graph::consolidate`] repairs the graph around deleted nodes as in Singh et al.,
//! "FreshDiskANN: A Fast and Accurate Graph-Based ANN Index for Streaming Similarity Search",
//! arXiv 2105.09613 (Algorithm 4). [`Graph::compact`] renumbers nodes once the caller removed the
//! deleted rows.
//!
//! [`search`] is the greedy beam search ("GreedySearch" in the DiskANN paper) with a caller-owned
//! [`SearchScratch`]: no allocation per query once warmed up.
//!
//! # Threads
//!
//! With the `parallel` feature, build, batch inserts and consolidation run on the caller's
//! current rayon pool (`ThreadPool::install` chooses it); the module starts no thread of its own.
//! Without it they run sequentially and give the same graphs. Searches are single-threaded.
//!
//! # α (the pruning parameter)
//!
//! RobustPrune(p, V, α, R) repeatedly keeps the closest remaining candidate c and drops every
//! candidate v with α · d(c, v) ≤ d(p, v), where d is the **Euclidean distance** (paper
//! semantics). How α is applied to the values a [`NodeDistance`] returns is given by its
//! [`NodeDistance::alpha_rule`]:
//!
//! * [`AlphaRule::Squared`] (squared L2, and cosine distance 1 − cos, which equals half the
//!   squared Euclidean distance between unit vectors): the equivalent test α² · d(c, v) ≤ d(p, v)
//!   is used, so α keeps its paper meaning. (DiskANN's C++ code compares its *squared* L2 with α
//!   directly: its α = 1.2 corresponds to α ≈ 1.095 here.)
//! * [`AlphaRule::Linear`] (true distances such as L1): α · d(c, v) ≤ d(p, v).
//! * [`AlphaRule::NegatedSimilarity`] (inner product, d = −⟨·,·⟩, which is not a distance and can
//!   be negative): DiskANN's rule for maximum inner product search, drop v when
//!   ⟨c, v⟩ > α · ⟨p, v⟩, applied as in DiskANN's code in two levels: first at α = 1 (the same
//!   test as d(c, v) < d(p, v)), then, if fewer than R were kept, at α over the candidates the
//!   first level dropped. A single level at α > 1 would drop almost nothing among close
//!   neighbours (⟨c, v⟩ > 1.2·⟨p, v⟩ rarely holds when both are near 1) and leave a poorly
//!   connected k-NN graph. For unit-norm data prefer cosine, which keeps the Euclidean meaning
//!   of α.
//!
//! # Invariants
//!
//! After any public operation: every degree ≤ R; no self loops; no duplicate edges within one
//! neighbour list; every edge points to a node `< len()`.

mod adj;
mod batch;
mod build;
mod filtered;
mod flat;
mod medoid;
mod params;
mod prune;
mod scratch;
mod search;
mod update;
mod vamana;

#[cfg(test)]
mod tests;

pub use filtered::search_two_hop;
pub use flat::{inverse_norms, FlatNodes, FlatQuery, NodeQuery};
pub use params::{StartGraph, VamanaParams, MAX_ALPHA, MAX_L, MAX_PASSES};
pub use scratch::{SearchScratch, SearchStats};
pub use search::{search, search_unfiltered};
pub use vamana::Graph;

/// Largest number of nodes a graph holds (bit 31 of an id is used by the search lists).
pub const MAX_NODES: usize = (1 << 31) - 1;

/// Why a build or a graph operation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// The cancellation flag was raised; checked between batches.
    Cancelled,
    /// A parameter is out of its domain (the message names it).
    InvalidParams(&'static str),
    /// More nodes than a graph holds (2³¹ − 1).
    TooManyNodes {
        /// The number of nodes asked for.
        n: usize,
    },
    /// Graph parts or a remapping break an invariant (the message says which).
    InvalidGraph(&'static str),
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::Cancelled => f.write_str("graph build cancelled"),
            BuildError::InvalidParams(m) => write!(f, "invalid graph parameters: {m}"),
            BuildError::TooManyNodes { n } => {
                write!(f, "{n} nodes exceed the graph limit of {MAX_NODES}")
            }
            BuildError::InvalidGraph(m) => write!(f, "invalid graph: {m}"),
        }
    }
}

impl std::error::Error for BuildError {}

/// Exact distances between two stored nodes, used by build, insert, prune and consolidation.
///
/// Lower is closer. `distance(a, b)` must be deterministic (the same value every time for the
/// same pair), and symmetric up to rounding. Node ids are `0..len()`.
pub trait NodeDistance: Sync {
    /// Number of stored nodes; valid ids are `0..len()`.
    fn len(&self) -> usize;

    /// Whether there is no stored node.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Distance between stored nodes `a` and `b` (lower is closer), in the units described by
    /// [`NodeDistance::alpha_rule`].
    fn distance(&self, a: u32, b: u32) -> f32;

    /// Hint that `distance(·, node)` will be called soon (e.g. to prefetch its row).
    /// Default: nothing.
    #[inline]
    fn prefetch(&self, _node: u32) {}

    /// How the pruning parameter α relates to these distances (see the module documentation).
    /// Default: [`AlphaRule::Linear`] (true metric distances).
    fn alpha_rule(&self) -> AlphaRule {
        AlphaRule::Linear
    }

    /// The entry point of a new graph: the stored node closest to the centroid of all nodes,
    /// if the implementation can compute it exactly (it sees the vectors; this trait does not).
    /// Default `None`: the build then uses an approximate medoid (the node with the least total
    /// distance to a seeded sample of nodes).
    fn medoid(&self) -> Option<u32> {
        None
    }
}

/// Distances from one query to stored nodes, used by [`search`]. Lower is closer.
///
/// The value may be an estimate (e.g. a RaBitQ distance estimate); the search only orders nodes by
/// it, and the caller reranks the returned candidates exactly.
pub trait QueryDistance {
    /// Distance from the query to stored node `node` (lower is closer).
    fn distance(&mut self, node: u32) -> f32;

    /// Hint that `distance(node)` will be called soon (e.g. to prefetch its row or code).
    /// Default: nothing.
    #[inline]
    fn prefetch(&self, _node: u32) {}
    /// Hint that `distance(node)` will be called soon *and* its data may not be in memory yet
    /// (a walk in cold mode, [`SearchScratch::set_cold`]): ask the medium for it. Default: nothing.
    #[inline]
    fn will_need(&self, _node: u32) {}
}

/// How RobustPrune applies α to the values of a [`NodeDistance`] (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlphaRule {
    /// Values are true distances (e.g. L1): drop v when α · d(c, v) ≤ d(p, v).
    Linear,
    /// Values are squared Euclidean distances, or proportional to them (cosine distance 1 − cos
    /// of unit vectors): drop v when α² · d(c, v) ≤ d(p, v), the paper's test on distances.
    Squared,
    /// Values are negated similarities d = −s (inner product): drop v when s(c, v) > α · s(p, v),
    /// first at α = 1 then at α (DiskANN's schedule for maximum inner product search).
    NegatedSimilarity,
}
