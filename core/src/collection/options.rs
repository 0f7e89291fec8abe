//! The options of one search.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::types::VectorId;

/// Options of one search.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// How many nearest records to return (≥ 1). Larger than the collection returns every record.
    pub k: usize,
    /// Whether hits carry the record's metadata (default true).
    pub include_metadata: bool,
    /// ef of the graph search (list size; default [`DEFAULT_EF`](super::DEFAULT_EF), raised to k). Ignored
    /// without an index.
    pub ef: Option<usize>,
    /// Candidates offered to the exact rerank, best estimate first (default: all ef, see
    /// [`crate::ann::AnnIndex::default_rerank`]; those whose lower bound cannot beat the k-th exact distance
    /// are skipped). Ignored without an index.
    pub rerank: Option<usize>,
    /// `Some(true)`: exact search even when an index exists (a true flat scan over every live
    /// record). `Some(false)`: the index whenever one exists, even below [`FLAT_THRESHOLD`](super::FLAT_THRESHOLD)
    /// (for measurements). `None` (default): the index from [`FLAT_THRESHOLD`](super::FLAT_THRESHOLD) live records on.
    /// With a filter, `Some(true)` scans the matching records exactly.
    pub exact: Option<bool>,
    /// Only records whose metadata matches (see [`crate::filter`]); exactly `min(k, matches)`
    /// hits come back. The search strategy per segment follows from the match count
    /// ([`crate::filter::strategy`]).
    pub filter: Option<Arc<Filter>>,
    /// Only records with these ids (an allow-list, e.g. LlamaIndex's `docIds`); with a filter,
    /// records must pass both.
    pub ids: Option<Arc<Vec<VectorId>>>,
    /// For measurements (`bench/filter-threshold`): the strategy every indexed segment takes
    /// for a filtered query instead of the chosen one (its `ef` is recomputed from the
    /// options). Segments without an index scan.
    pub strategy: Option<crate::filter::strategy::Strategy>,
}

impl SearchOptions {
    /// Options for the `k` nearest records, metadata included.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` if `k` is 0.
    pub fn new(k: usize) -> Result<Self> {
        if k == 0 {
            return Err(Error::invalid_argument(
                "k must be a positive integer, got 0",
            ));
        }
        Ok(SearchOptions {
            k,
            include_metadata: true,
            ef: None,
            rerank: None,
            exact: None,
            filter: None,
            ids: None,
            strategy: None,
        })
    }
}
