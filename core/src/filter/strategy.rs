//! Which search one segment runs for a filtered query: a pure function of the match count.
//!
//! The thresholds were measured on minilm384 (384-d sentence embeddings, 20,000 records) by
//! `bench/filter-threshold.mjs` (records in `bench-results/filter-threshold/`): below
//! [`SCAN_MAX`] matches an exact scan of the matches costs less than a walk; from
//! [`WALK_MIN`] selectivity the plain walk (route through every node, keep the matches) beats
//! the two-hop walk.

/// Most matches scanned exactly rather than walked.
pub const SCAN_MAX: usize = 2_000;
/// Selectivity (matches / live records of the segment) from which the plain walk is used.
pub const WALK_MIN: f64 = 0.4;

/// The search of one segment for a filtered query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// An exact scan of the matching records.
    Scan,
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
    let s = matches as f64 / live.max(1) as f64;
    let ef = ef.max(k);
    if s >= WALK_MIN {
        Strategy::Walk {
            ef: ((ef as f64 / s.min(1.0)).ceil() as usize).max(ef),
        }
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
            (2_000, 100_000, 10, 64, true, None, Scan),
            (2_001, 100_000, 10, 64, true, None, TwoHop { ef: 64 }),
            (30_000, 100_000, 10, 64, true, None, TwoHop { ef: 64 }),
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
