//! The pace of store commits and what follows from it (pure functions, table-tested): their
//! moving average, kept by the committer, and whether a write is committed on the caller's
//! thread (`inline.rs`).

/// The longest moving-average store commit (ns) at which a write is committed on the
/// caller's thread: 1 ms, about what a synchronous SQLite binding blocks its caller for one
/// durable commit on an SSD.
pub const INLINE_COMMIT_MAX_NS: u64 = 1_000_000;

/// The moving average of a store commit's time after a commit that took `sample_ns`
/// (exponential, weight 1/8 to the new sample; the first sample is taken as is).
pub(crate) fn commit_time_ewma(avg_ns: u64, sample_ns: u64) -> u64 {
    if avg_ns == 0 {
        return sample_ns.max(1);
    }
    let (a, s) = (i128::from(avg_ns), i128::from(sample_ns));
    u64::try_from(a + (s - a) / 8).unwrap_or(u64::MAX).max(1)
}

/// True when a write may be committed on the caller's thread: nothing `queued` before it, no
/// write `held` back by the mutable bound, not closing, and store commits averaging at most
/// [`INLINE_COMMIT_MAX_NS`] (`avg_ns` 0: none yet).
pub(crate) fn commits_inline(queued: usize, held: bool, closing: bool, avg_ns: u64) -> bool {
    queued == 0 && !held && !closing && avg_ns <= INLINE_COMMIT_MAX_NS
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(queued, held, closing, avg_ns) → inline?`
    const TABLE: &[(usize, bool, bool, u64, bool)] = &[
        (0, false, false, 0, true),
        (0, false, false, 40_000, true),
        (0, false, false, INLINE_COMMIT_MAX_NS, true),
        (0, false, false, INLINE_COMMIT_MAX_NS + 1, false),
        (1, false, false, 0, false),
        (0, true, false, 0, false),
        (0, false, true, 0, false),
    ];

    #[test]
    fn inline_policy_table() {
        for &(q, h, c, avg, want) in TABLE {
            assert_eq!(commits_inline(q, h, c, avg), want, "{q} {h} {c} {avg}");
        }
    }

    #[test]
    fn commit_time_average() {
        assert_eq!(commit_time_ewma(0, 800), 800);
        assert_eq!(commit_time_ewma(0, 0), 1);
        assert_eq!(commit_time_ewma(800, 1_600), 900);
        assert_eq!(commit_time_ewma(800, 0), 700);
        // a slow medium pushes the average past the limit within a few commits, and it comes
        // back as fast commits follow
        let mut a = 0;
        for _ in 0..12 {
            a = commit_time_ewma(a, 5_000_000);
        }
        assert!(!commits_inline(0, false, false, a));
        for _ in 0..40 {
            a = commit_time_ewma(a, 50_000);
        }
        assert!(commits_inline(0, false, false, a));
    }
}
