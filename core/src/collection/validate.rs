//! The one place for the checks of what enters a collection: a write's batch (counts, vectors,
//! metadata JSON, ids), a record read back from storage, a sealed row copied by a compaction,
//! and the codes of a snapshot. The vector check itself is [`crate::vector::check_vector`].

use std::collections::HashSet;

use crate::error::{Error, Result};
use crate::metadata::is_json;
use crate::quant::RabitqIndex;
use crate::rowdata::{Precision, RowSlice};
use crate::types::{Metric, VectorId};

/// Rows re-encoded to check the codes of a snapshot against its vectors (besides the entry
/// point; see `check_codes`).
pub const CODE_SAMPLE: usize = 16;

/// Whether rows under `metric` keep a 1/‖x‖ column (cosine only): the one metric branch of the
/// row bookkeeping.
pub(crate) fn keeps_norms(metric: Metric) -> bool {
    metric == Metric::Cosine
}

/// A write's batch, checked: its metadata (one entry per record) and the 1/‖x‖ per record
/// under cosine (else empty).
pub(crate) struct CheckedBatch {
    pub(crate) metadata: Vec<Option<String>>,
    pub(crate) inv_norms: Vec<f32>,
}

/// Checks a write's batch: not empty, `vectors` a whole number of `dim` rows, one per id, as
/// many metadata entries, every metadata text JSON, every vector valid, no id twice.
///
/// # Errors
/// `HV_INVALID_ARGUMENT` (empty batch, counts differ, metadata not JSON), `HV_DIM_MISMATCH`,
/// `HV_INVALID_VECTOR`, `HV_DUPLICATE_ID` (an id twice in the batch, unless `repeats_ok`: an
/// upsert, where the last one wins).
pub(crate) fn check_batch(
    dim: usize,
    metric: Metric,
    ids: &[VectorId],
    vectors: &[f32],
    metadata: Option<Vec<Option<String>>>,
    repeats_ok: bool,
) -> Result<CheckedBatch> {
    if ids.is_empty() {
        return Err(Error::invalid_argument(
            "empty batch: give at least one id and vector",
        ));
    }
    if !vectors.len().is_multiple_of(dim) {
        return Err(Error::BatchShape {
            dim,
            len: vectors.len(),
        });
    }
    let n = vectors.len() / dim;
    if n != ids.len() {
        return Err(Error::invalid_argument(format!(
            "{} ids but {n} vectors of dim {dim}",
            ids.len(),
        )));
    }
    let metadata = match metadata {
        Some(m) if m.len() != n => {
            return Err(Error::invalid_argument(format!(
                "{} metadata entries for {n} records",
                m.len()
            )))
        }
        Some(m) => m,
        None => vec![None; n],
    };
    for (i, m) in metadata.iter().enumerate() {
        if m.as_deref().is_some_and(|t| !is_json(t)) {
            return Err(Error::invalid_argument(format!(
                "metadata of record {i} is not valid JSON"
            )));
        }
        let max = crate::metadata::MAX_METADATA_DEPTH;
        if m.as_deref()
            .is_some_and(|t| crate::metadata::depth(t) > max)
        {
            return Err(Error::invalid_argument(format!(
                "metadata of record {i} nests arrays and objects deeper than {max} levels"
            )));
        }
    }
    let norms = keeps_norms(metric);
    let mut inv_norms = Vec::with_capacity(if norms { n } else { 0 });
    for (i, v) in vectors.chunks_exact(dim).enumerate() {
        let inv = crate::vector::check_vector(v, dim, metric, i)?;
        if norms {
            inv_norms.push(inv);
        }
    }
    let mut seen = HashSet::with_capacity(n);
    for id in ids {
        if !seen.insert(id) && !repeats_ok {
            return Err(Error::DuplicateId(format!("{id} (twice in one batch)")));
        }
    }
    Ok(CheckedBatch {
        metadata,
        inv_norms,
    })
}

/// Checks a record read back from storage: its sequence and vector (its id's uniqueness and then
/// its metadata, [`check_stored_metadata`], are checked after, in that order); returns 1/‖x‖ for
/// cosine, 1 otherwise.
///
/// # Errors
/// `HV_CORRUPT` (a sequence above 2^53 − 1, an invalid vector).
pub(crate) fn check_stored(
    dim: usize,
    metric: Metric,
    id: &VectorId,
    seq: u64,
    v: &[f32],
) -> Result<f32> {
    if seq > crate::types::MAX_SAFE_INTEGER {
        return Err(Error::Corrupt(format!(
            "stored record {id} has insertion sequence {seq} (above 2^53 − 1)"
        )));
    }
    let inv = crate::vector::check_vector(v, dim, metric, 0)
        .map_err(|e| Error::Corrupt(format!("stored record {id}: {e}")))?;
    Ok(inv)
}

/// `HV_CORRUPT` unless every value of stored record `id` is one its collection's rows can hold
/// as stored: an `f16` collection's stores keep the values already rounded to half precision, so
/// any other value (one beyond ±65,504 included, which would become ±∞) is damage.
pub(crate) fn check_stored_precision(precision: Precision, id: &VectorId, v: &[f32]) -> Result<()> {
    if precision == Precision::F32 {
        return Ok(());
    }
    match v.iter().position(|&x| half::f16::from_f32(x).to_f32() != x) {
        Some(pos) => Err(Error::Corrupt(format!(
            "stored record {id}: component {pos} is {}, not a half-precision value of vectors: \"f16\"",
            v[pos]
        ))),
        None => Ok(()),
    }
}

/// `HV_CORRUPT` unless `metadata` (of stored record `id`) is JSON.
pub(crate) fn check_stored_metadata(id: &VectorId, metadata: Option<&str>) -> Result<()> {
    match metadata {
        Some(m) if !is_json(m) => Err(Error::Corrupt(format!(
            "stored metadata of {id} is not JSON"
        ))),
        _ => Ok(()),
    }
}

/// `HV_CORRUPT` unless row `row` of segment `generation` (copied by a compaction) is finite.
pub(crate) fn check_sealed_row(generation: u64, row: u32, v: &[f32]) -> Result<()> {
    if v.iter().any(|x| !x.is_finite()) {
        return Err(Error::Corrupt(format!(
            "segment {generation}: row {row} holds a non-finite value (damaged file)"
        )));
    }
    Ok(())
}

/// Checks codes loaded from a snapshot against the `n` rows `vectors` (`n × dim`, `f32` or
/// `f16` rows; only the sampled rows are widened): their shape, their finite factors and
/// centroid ([`RabitqIndex::validate`]), and the entry point and [`CODE_SAMPLE`] spread rows
/// re-encoded to the same codes (at least 90 % of the bits): codes made with another rotation
/// (seed) or centroid would pass every size check and then estimate nonsense.
///
/// # Errors
/// `HV_CORRUPT`.
pub(crate) fn check_codes(
    codes: &RabitqIndex,
    dim: usize,
    metric: Metric,
    vectors: RowSlice<'_>,
    entry: u32,
) -> Result<()> {
    let n = vectors.len() / dim.max(1);
    if codes.dim() != dim || codes.metric() != metric || codes.len() != n {
        return Err(Error::Corrupt(
            "the codes do not match the collection's rows, dimension or metric".into(),
        ));
    }
    codes.validate()?;
    let sample: Vec<usize> = std::iter::once(entry as usize)
        .chain((0..CODE_SAMPLE).map(|j| j * n / CODE_SAMPLE))
        .filter(|&r| r < n)
        .collect();
    let mut agree = 0.0;
    for &r in &sample {
        // only the sampled rows are widened (f16 rows: never the whole set)
        agree += codes.agreement(r as u32, &vectors.row(r, dim).to_f32())?;
    }
    if !sample.is_empty() && agree / (sample.len() as f64) < 0.9 {
        return Err(Error::Corrupt(format!(
            "the stored codes do not match the vectors ({:.0} % of sampled code bits reproduced; another seed or centroid?)",
            100.0 * agree / sample.len() as f64
        )));
    }
    Ok(())
}
