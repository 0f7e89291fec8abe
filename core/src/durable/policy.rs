//! When a durable collection seals, compacts, or rebuilds the interim index of its mutable
//! segment, and when a write waits: pure functions of a few numbers ([`PolicyStats`],
//! [`SegmentConfig`]), tested by the table below (the shape of tantivy's `LogMergePolicy`
//! tests). The committer gathers the numbers under the read lock and carries out the answer.

use crate::ann::IndexParams;
use crate::collection::{Collection, FLAT_THRESHOLD};
use crate::error::{Error, Result};

/// When segments are sealed and compacted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SegmentConfig {
    /// Seal the mutable segment when it holds this many records (default 20,000).
    pub max_mutable_records: usize,
    /// Merge the smallest sealed segments when there are more than this many (default 8).
    pub max_sealed_segments: usize,
    /// Rewrite a sealed segment whose tombstoned fraction passes this (default 0.2).
    pub max_tombstone_ratio: f64,
    /// Vamana / RaBitQ parameters of sealed segments' indexes.
    pub index: IndexParams,
    /// At open, read every segment file whole and check all of it ([`crate::segment::Segment::verify`]).
    pub verify: bool,
}

impl Default for SegmentConfig {
    fn default() -> Self {
        SegmentConfig {
            max_mutable_records: 20_000,
            max_sealed_segments: 8,
            max_tombstone_ratio: 0.2,
            index: IndexParams::default(),
            verify: false,
        }
    }
}

impl SegmentConfig {
    /// Most records the mutable segment holds: 2 × [`max_mutable_records`](SegmentConfig::max_mutable_records).
    /// A write that would take it past the bound waits (its Promise stays pending; later writes
    /// keep their order behind it) until a seal has moved records out: the committer starts
    /// that seal if no background job runs, or waits for the running job (a seal, a compaction,
    /// an interim index) and starts it next. So memory and the rows scanned exactly stay bounded
    /// whatever the write rate. One batch is never split: a batch larger than the bound enters
    /// an empty mutable segment. Nothing waits when no seal can run (no directory).
    pub fn mutable_bound(&self) -> usize {
        self.max_mutable_records.saturating_mul(2)
    }

    /// Checks the ranges.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT`.
    pub fn validate(&self) -> Result<()> {
        if self.max_mutable_records == 0 || self.max_sealed_segments == 0 {
            return Err(Error::invalid_argument(
                "maxMutableRecords and maxSealedSegments must be at least 1",
            ));
        }
        if !(self.max_tombstone_ratio > 0.0 && self.max_tombstone_ratio <= 1.0) {
            return Err(Error::invalid_argument(
                "maxTombstoneRatio must be in (0, 1]",
            ));
        }
        self.index.validate()
    }
}

/// One sealed segment as the policy sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PartStats {
    /// Live rows.
    pub(crate) live: usize,
    /// Tombstoned rows / rows.
    pub(crate) tombstone_ratio: f64,
}

/// What the policy decides from: plain numbers, read from the collection under one read lock.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct PolicyStats {
    /// Live records of the mutable segment.
    pub(crate) mutable_live: usize,
    /// Rows of the mutable segment, live and tombstoned.
    pub(crate) mutable_rows: usize,
    /// Rows covered by the mutable segment's interim index (0 without one).
    pub(crate) interim_covered: usize,
    /// The sealed segments, oldest first.
    pub(crate) sealed: Vec<PartStats>,
    /// A caller asked for a seal ([`super::DurableCollection::seal`]).
    pub(crate) seal_requested: bool,
    /// A caller asked for a compaction ([`super::DurableCollection::compact`]).
    pub(crate) compact_requested: bool,
}

/// What callers have asked for and the committer has not started yet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Requests {
    /// A [`super::DurableCollection::seal`] call waits.
    pub(crate) seal: bool,
    /// A [`super::DurableCollection::compact`] call waits.
    pub(crate) compact: bool,
}

impl PolicyStats {
    /// The numbers of `col` (read under one lock) and the callers' pending requests.
    pub(crate) fn of(col: &Collection, asked: Requests) -> Self {
        PolicyStats {
            mutable_live: col.mutable_len(),
            mutable_rows: col.mutable_rows(),
            interim_covered: col.mutable_covered(),
            sealed: col
                .sealed()
                .iter()
                .map(|p| PartStats {
                    live: p.live(),
                    tombstone_ratio: p.tombstone_ratio(),
                })
                .collect(),
            seal_requested: asked.seal,
            compact_requested: asked.compact,
        }
    }
}

/// The background job to start next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Job {
    /// Seal the mutable segment.
    Seal,
    /// Merge (or, one alone, rewrite) these sealed segments (indices, ascending).
    Compact(Vec<usize>),
    /// Build an interim index of the mutable segment; with `drop_dead`, first drop its
    /// tombstoned rows and old index.
    Interim {
        /// Drop the dead rows first.
        drop_dead: bool,
    },
    /// Drop the mutable segment's tombstoned rows and its index, too few live rows remaining for
    /// a new index.
    DropDeadRows,
}

/// The job to start when none runs, if any, in this order:
///
/// 1. a **seal** when one is asked for, or when the mutable segment holds
///    [`SegmentConfig::max_mutable_records`] and there are not more than
///    [`SegmentConfig::max_sealed_segments`] (past it the merge goes first: under sustained
///    writes a seal would otherwise always be due again when a job ends, and the segments would
///    pile up; writes wait at the mutable bound meanwhile); never of an empty segment;
/// 2. a **compaction** ([`compaction_choice`]);
/// 3. dropping the mutable segment's **dead rows** once over a quarter of at least
///    [`FLAT_THRESHOLD`] rows are tombstones (an interim index never consolidates);
/// 4. an **interim index** once the mutable segment has [`FLAT_THRESHOLD`] live rows and a tail
///    not covered by its index of a quarter of the covered rows (at least half the threshold).
pub(crate) fn next_job(s: &PolicyStats, cfg: &SegmentConfig) -> Option<Job> {
    let too_many = s.sealed.len() > cfg.max_sealed_segments;
    let seal_due = s.seal_requested || (s.mutable_live >= cfg.max_mutable_records && !too_many);
    if seal_due && s.mutable_live > 0 {
        return Some(Job::Seal);
    }
    if let Some(parts) = compaction_choice(&s.sealed, cfg, s.compact_requested) {
        return Some(Job::Compact(parts));
    }
    let rows = s.mutable_rows;
    let mostly_dead = rows >= FLAT_THRESHOLD && (rows - s.mutable_live) * 4 > rows;
    let (drop_dead, covered) = if mostly_dead {
        (true, 0) // the index goes with the dead rows
    } else {
        (false, s.interim_covered)
    };
    let rows = if mostly_dead { s.mutable_live } else { rows };
    let interim = s.mutable_live >= FLAT_THRESHOLD
        && rows.saturating_sub(covered) >= (covered / 4).max(FLAT_THRESHOLD / 2);
    match (interim, drop_dead) {
        (true, _) => Some(Job::Interim { drop_dead }),
        (false, true) => Some(Job::DropDeadRows),
        (false, false) => None,
    }
}

/// The sealed parts a compaction should merge, if any: all of them when `forced` (if there is
/// something to gain: two parts or a tombstone), else the smallest when there are more than
/// [`SegmentConfig::max_sealed_segments`] (enough to get back to the limit, at least two),
/// else the first whose tombstones pass [`SegmentConfig::max_tombstone_ratio`].
pub(crate) fn compaction_choice(
    parts: &[PartStats],
    cfg: &SegmentConfig,
    forced: bool,
) -> Option<Vec<usize>> {
    if forced {
        let gain = parts.len() > 1 || parts.iter().any(|p| p.tombstone_ratio > 0.0);
        return gain.then(|| (0..parts.len()).collect());
    }
    if parts.len() > cfg.max_sealed_segments {
        let mut by_size: Vec<usize> = (0..parts.len()).collect();
        by_size.sort_by_key(|&p| parts[p].live);
        let take = (parts.len() - cfg.max_sealed_segments + 1).max(2);
        let mut chosen: Vec<usize> = by_size[..take].to_vec();
        chosen.sort_unstable();
        return Some(chosen);
    }
    parts
        .iter()
        .position(|p| p.tombstone_ratio > cfg.max_tombstone_ratio)
        .map(|p| vec![p])
}

/// True when a write must wait for a seal (backpressure): an add or upsert of `put` records
/// (`None` for a delete, which never grows the segment) that would take a non-empty mutable
/// segment of `mutable_live` records past `bound`. A batch alone larger than the bound goes into
/// an empty segment, so one batch is never split or held forever.
#[cfg_attr(not(feature = "durable"), allow(dead_code))]
pub(crate) fn write_waits(mutable_live: usize, put: Option<usize>, bound: usize) -> bool {
    put.is_some_and(|n| mutable_live > 0 && mutable_live.saturating_add(n) > bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> SegmentConfig {
        SegmentConfig {
            max_mutable_records: 10_000,
            max_sealed_segments: 3,
            max_tombstone_ratio: 0.2,
            ..SegmentConfig::default()
        }
    }

    fn parts(p: &[(usize, f64)]) -> Vec<PartStats> {
        p.iter()
            .map(|&(live, tombstone_ratio)| PartStats {
                live,
                tombstone_ratio,
            })
            .collect()
    }

    /// `(mutable_live, mutable_rows, interim_covered, sealed, seal?, compact?) → job`.
    #[allow(clippy::type_complexity)]
    const TABLE: &[(
        usize,
        usize,
        usize,
        &[(usize, f64)],
        bool,
        bool,
        Option<&str>,
    )] = &[
        // 1. nothing at all
        (0, 0, 0, &[], false, false, None),
        // 2. below the seal threshold, below the interim threshold
        (1_500, 1_500, 0, &[], false, false, None),
        // 3. the seal threshold
        (10_000, 10_000, 0, &[], false, false, Some("seal")),
        // 4. a seal asked for with one record
        (1, 1, 0, &[], true, false, Some("seal")),
        // 5. a seal asked for of an empty segment: nothing to seal (nor to compact)
        (0, 0, 0, &[(5, 0.0)], true, false, None),
        // 6. too many segments: the merge goes before the due seal, smallest two
        (
            12_000,
            12_000,
            0,
            &[(50, 0.0), (10, 0.0), (30, 0.0), (20, 0.0)],
            false,
            false,
            Some("compact 1,3"),
        ),
        // 7. a seal asked for goes first even with too many segments
        (
            5,
            5,
            0,
            &[(1, 0.0), (1, 0.0), (1, 0.0), (1, 0.0)],
            true,
            false,
            Some("seal"),
        ),
        // 8. far past the limit: enough to get back to it
        (
            0,
            0,
            0,
            &[(6, 0.0), (5, 0.0), (4, 0.0), (3, 0.0), (2, 0.0), (1, 0.0)],
            false,
            false,
            Some("compact 2,3,4,5"),
        ),
        // 9. a segment past the tombstone ratio is rewritten alone (the first one)
        (
            0,
            0,
            0,
            &[(9, 0.1), (8, 0.25), (7, 0.5)],
            false,
            false,
            Some("compact 1"),
        ),
        // 10. the ratio is a strict bound
        (0, 0, 0, &[(9, 0.2)], false, false, None),
        // 11. a forced compaction merges all
        (
            0,
            0,
            0,
            &[(9, 0.0), (8, 0.0)],
            false,
            true,
            Some("compact 0,1"),
        ),
        // 12. a forced compaction of one clean segment has nothing to gain
        (0, 0, 0, &[(9, 0.0)], false, true, None),
        // 13. a forced compaction of one segment with a tombstone rewrites it
        (0, 0, 0, &[(9, 0.01)], false, true, Some("compact 0")),
        // 14. an interim index once FLAT_THRESHOLD live rows are not covered
        (2_000, 2_000, 0, &[], false, false, Some("interim")),
        // 15. covered but a short tail: nothing
        (4_500, 4_500, 4_000, &[], false, false, None),
        // 16. a tail of a quarter of the covered rows: rebuild
        (5_000, 5_000, 4_000, &[], false, false, Some("interim")),
        // 17. mostly dead rows with enough live ones: drop them, then a new index
        (6_000, 9_000, 9_000, &[], false, false, Some("drop+interim")),
        // 18. mostly dead rows with few live ones: only drop them
        (1_000, 3_000, 3_000, &[], false, false, Some("drop")),
        // 19. a quarter dead exactly is not "mostly"
        (3_000, 4_000, 4_000, &[], false, false, None),
        // 20. a compaction goes before the interim index
        (
            2_000,
            2_000,
            0,
            &[(9, 0.5)],
            false,
            false,
            Some("compact 0"),
        ),
    ];

    fn show(j: Option<Job>) -> Option<String> {
        j.map(|j| match j {
            Job::Seal => "seal".to_string(),
            Job::Compact(p) => format!(
                "compact {}",
                p.iter()
                    .map(|i| i.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            Job::Interim { drop_dead: false } => "interim".to_string(),
            Job::Interim { drop_dead: true } => "drop+interim".to_string(),
            Job::DropDeadRows => "drop".to_string(),
        })
    }

    #[test]
    fn next_job_table() {
        for (row, &(live, rows, covered, sealed, seal, compact, want)) in TABLE.iter().enumerate() {
            let s = PolicyStats {
                mutable_live: live,
                mutable_rows: rows,
                interim_covered: covered,
                sealed: parts(sealed),
                seal_requested: seal,
                compact_requested: compact,
            };
            assert_eq!(
                show(next_job(&s, &cfg())).as_deref(),
                want,
                "row {}: {s:?}",
                row + 1
            );
        }
    }

    #[test]
    fn writes_wait_past_the_bound_but_never_alone_or_for_a_delete() {
        assert!(
            !write_waits(0, Some(50), 10),
            "a batch alone enters an empty segment"
        );
        assert!(write_waits(5, Some(6), 10));
        assert!(!write_waits(5, Some(5), 10), "exactly the bound fits");
        assert!(!write_waits(50, None, 10), "a delete never waits");
        assert!(
            write_waits(11, Some(0), 10),
            "as before: an empty put past the bound waits"
        );
    }
}
