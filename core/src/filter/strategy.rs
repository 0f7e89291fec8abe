//! Which search one segment runs for a filtered query: a pure function of the match count.
//!
//! The thresholds were measured on minilm384 (384-d sentence embeddings, 20,000 records, cosine,
//! k = 10, ef = 64, one thread) by `core/examples/filter_threshold.rs`, which forces each
//! strategy over a grid of selectivities (records in `bench-results/filter-threshold/`):
//! - an exact scan of the matches is fastest up to a few hundred (379 matches: 40,448 QPS vs
//!   36,292 for the code scan; 981: 5,844 vs 20,485) and is exact, so [`SCAN_MAX`] is 500;
//! - a scan of the matches' RaBitQ codes with an exact rerank of the best ef beat every walk
//!   up to about 6,000 matches (1,966: 12,241 QPS at recall 0.990, against 2,596 for the
//!   two-hop walk, 1,176 for the plain walk and 2,968 for the exact scan; 5,943: 2,943 vs
//!   2,454 for the plain walk; 7,943: 2,559 vs 2,953), so [`CODE_SCAN_MAX`] is 6,000 (its cost
//!   grows with the matches, a walk's hardly does);
//! - past that, the two-hop walk beats the plain walk below 30 % selectivity (20 %: 2,850 vs
//!   1,924 QPS at recall 0.972 vs 0.990); from 30 % its recall falls (0.963 at 30 %, 0.945 at
//!   50 %) while the plain walk's stays near 0.98 at a cost that approaches the unfiltered
//!   walk's, so [`WALK_MIN`] is 0.3. A filter matching every live record of a segment walks it
//!   as an unfiltered search does.
//!
//! Records: `bench-results/filter-threshold/a978878.jsonl` (the figures above) and
//! `9a3caf4.jsonl` (before the code scan). The machine was shared with builds: the ratios
//! within one run are what counts.

/// Most matches scanned exactly.
pub const SCAN_MAX: usize = 500;
/// Most matches whose codes are scanned (with an exact rerank) rather than walked.
pub const CODE_SCAN_MAX: usize = 6_000;
/// Selectivity (matches / live records of the segment) from which the plain walk is used.
pub const WALK_MIN: f64 = 0.3;

/// The search of one segment for a filtered query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// An exact scan of the matching records.
    Scan,
    /// Every match's RaBitQ estimate, then the exact rerank of the best `ef`.
    CodeScan {
        /// Candidates reranked exactly.
        ef: usize,
    },
    /// The two-hop walk (ACORN-1) with this ef.
    TwoHop {
        /// List size.
        ef: usize,
    },
    /// The plain walk keeping matches, with this ef (raised by 1 / selectivity).
    Walk {
        /// List size.
        ef: usize,
    },
}

impl Strategy {
    /// This strategy with the ef `choose` would give it for `matches` of `live`.
    pub fn with_ef(self, matches: usize, live: usize, k: usize, ef: usize) -> Strategy {
        let ef = ef.max(k);
        match self {
            Strategy::Scan => Strategy::Scan,
            Strategy::CodeScan { .. } => Strategy::CodeScan { ef },
            Strategy::TwoHop { .. } => Strategy::TwoHop { ef },
            Strategy::Walk { .. } => Strategy::Walk {
                ef: walk_ef(ef, matches as f64 / live.max(1) as f64),
            },
        }
    }
}

/// The plain walk's list size: `ef / selectivity` (the walk meets about one match per
/// `1 / selectivity` nodes), capped at 16 · ef.
fn walk_ef(ef: usize, s: f64) -> usize {
    ((ef as f64 / s.max(1.0 / 16.0)).ceil() as usize).clamp(ef, 16 * ef)
}

/// The strategy for `matches` matching records out of `live` in a segment, for `k` hits at list
/// size `ef`. `indexed`: the segment has a graph; `exact`: the caller's `exact` option
/// (`Some(true)` scans, `Some(false)` walks whenever there is a graph, for measurements).
pub fn choose(
    matches: usize,
    live: usize,
    k: usize,
    ef: usize,
    indexed: bool,
    exact: Option<bool>,
) -> Strategy {
    let small = matches <= SCAN_MAX || k >= matches;
    if !indexed || exact == Some(true) || (exact.is_none() && small) || matches == 0 {
        return Strategy::Scan;
    }
    let ef = ef.max(k);
    if exact.is_none() && matches <= CODE_SCAN_MAX {
        return Strategy::CodeScan { ef };
    }
    let s = matches as f64 / live.max(1) as f64;
    if s >= WALK_MIN {
        Strategy::Walk { ef: walk_ef(ef, s) }
    } else {
        Strategy::TwoHop { ef }
    }
}

#[cfg(test)]
mod tests {
    use super::{choose, Strategy::*};

    #[test]
    fn table() {
        // (matches, live, k, ef, indexed, exact) → strategy
        for (m, n, k, ef, ix, ex, want) in [
            (0, 10_000, 10, 64, true, None, Scan),
            (5, 10_000, 10, 64, true, None, Scan),
            (500, 100_000, 10, 64, true, None, Scan),
            (501, 100_000, 10, 64, true, None, CodeScan { ef: 64 }),
            (6_000, 100_000, 10, 64, true, None, CodeScan { ef: 64 }),
            (6_000, 100_000, 100, 64, true, None, CodeScan { ef: 100 }),
            (6_001, 100_000, 10, 64, true, None, TwoHop { ef: 64 }),
            (6_000, 6_000, 10, 64, true, None, CodeScan { ef: 64 }),
            (20_000, 20_000, 10, 64, true, None, Walk { ef: 64 }),
            (29_999, 100_000, 10, 64, true, None, TwoHop { ef: 64 }),
            (40_000, 100_000, 10, 64, true, None, Walk { ef: 160 }),
            (100_000, 100_000, 10, 64, true, None, Walk { ef: 64 }),
            (50_000, 100_000, 100, 64, true, None, Walk { ef: 200 }),
            (50_000, 100_000, 10, 64, false, None, Scan),
            (50_000, 100_000, 10, 64, true, Some(true), Scan),
            (50, 100_000, 10, 64, true, Some(false), TwoHop { ef: 64 }),
            (5_000, 100_000, 5_000, 64, true, None, Scan),
        ] {
            assert_eq!(choose(m, n, k, ef, ix, ex), want, "{m} of {n}, k {k}");
        }
    }
}
