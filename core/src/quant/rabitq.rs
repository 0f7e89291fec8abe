//! [`RabitqIndex`]: the RaBitQ / Extended RaBitQ codes of a set of vectors, with the shared
//! centroid and rotation, and the accessors of its parts.
//!
//! The index is built in `encode.rs` (encoding and constructors), stored as described in
//! `codes.rs` (record layout, aligned storage, factors) and read by `estimate.rs` (the estimator
//! and its error bound).

use super::codes::{AlignedWords, Factors};
use super::kernels::BitKernels;
use super::rotation::Rotation;
use super::RabitqParams;
use crate::error::{Error, Result};
use crate::types::Metric;

/// RaBitQ codes of `len()` vectors of one dimension and metric, plus the shared centroid and
/// rotation; estimates distances to prepared queries (`quant` module docs).
#[derive(Clone, Debug)]
pub struct RabitqIndex {
    pub(super) dim: usize,
    pub(super) padded_dim: usize,
    pub(super) words: usize,
    pub(super) bits: usize,
    pub(super) metric: Metric,
    pub(super) params: RabitqParams,
    pub(super) rotation: Rotation,
    pub(super) centroid: Vec<f32>,
    pub(super) record_words: usize,
    pub(super) len: usize,
    pub(super) records: AlignedWords,
    pub(super) kernels: &'static BitKernels,
    /// Largest `‖ȳ‖` of the stored codes (for the query-rounding term of the bound).
    pub(super) norm_y_max: f32,
}

impl RabitqIndex {
    /// Largest `‖ȳ‖` over the stored codes (kept beside mapped records, see
    /// [`RabitqIndex::from_mapped`]).
    pub fn norm_y_max(&self) -> f32 {
        self.norm_y_max
    }

    /// Number of encoded vectors.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no vector is encoded.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Input dimension.
    #[must_use]
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Code dimension: `dim` rounded up to a multiple of 64.
    #[must_use]
    pub fn padded_dim(&self) -> usize {
        self.padded_dim
    }

    /// The metric the estimates are in.
    #[must_use]
    pub fn metric(&self) -> Metric {
        self.metric
    }

    /// The parameters.
    #[must_use]
    pub fn params(&self) -> RabitqParams {
        self.params
    }

    /// The rotation.
    #[must_use]
    pub fn rotation(&self) -> &Rotation {
        &self.rotation
    }

    /// The centroid (`dim` values, input space).
    #[must_use]
    pub fn centroid(&self) -> &[f32] {
        &self.centroid
    }

    /// Name of the bit-kernel set in use (for stats and benchmark records).
    #[must_use]
    pub fn kernel_name(&self) -> &'static str {
        self.kernels.name
    }

    /// `u64` words per record: `bits · padded_dim/64` code words + 2 factor words.
    #[must_use]
    pub fn record_words(&self) -> usize {
        self.record_words
    }

    /// Resident bytes per vector (codes + factors): `8 · record_words()`, e.g. 64 B at 384-d ×
    /// 1 bit, 208 B at 384-d × 4 bits.
    #[must_use]
    pub fn bytes_per_vector(&self) -> usize {
        8 * self.record_words
    }

    /// All records, `len() × record_words()` words (for persistence; see the module docs).
    #[must_use]
    pub fn records(&self) -> &[u64] {
        self.records.as_slice()
    }

    /// The code planes of vector `i` (`bits` planes of `padded_dim/64` words, MSB plane first;
    /// the first plane is the 1-bit sign code).
    ///
    /// # Panics
    /// If `i >= len()`.
    #[must_use]
    pub fn code(&self, i: u32) -> &[u64] {
        &self.record(i as usize)[..self.bits * self.words]
    }

    /// Checks codes that came from outside (a snapshot) for values the estimator cannot use:
    /// every factor finite, and the centroid finite and of a size whose squares an `f32` holds.
    ///
    /// # Errors
    /// `HV_CORRUPT` naming the first bad value.
    pub fn validate(&self) -> Result<()> {
        let norm_sq: f64 = self
            .centroid
            .iter()
            .map(|&x| f64::from(x) * f64::from(x))
            .sum();
        if norm_sq.is_nan() || norm_sq >= 1e30 {
            return Err(Error::Corrupt(format!(
                "RaBitQ centroid is not finite or too large (squared norm {norm_sq})"
            )));
        }
        for i in 0..self.len as u32 {
            let f = self.factors(i);
            if ![f.add, f.rescale, f.sum_y, f.error]
                .iter()
                .all(|x| x.is_finite())
            {
                return Err(Error::Corrupt(format!(
                    "RaBitQ record {i} has a factor that is not finite"
                )));
            }
        }
        Ok(())
    }

    /// The correction factors of vector `i`.
    ///
    /// # Panics
    /// If `i >= len()`.
    #[must_use]
    pub fn factors(&self, i: u32) -> Factors {
        let rec = self.record(i as usize);
        Factors::from_words(rec[self.record_words - 2], rec[self.record_words - 1])
    }

    /// Asks the medium for vector `i`'s record ahead of use when the codes are read from a
    /// mapped file (`crate::region::Region::will_need`): the first searches after a cold open
    /// then overlap their page faults. Nothing for codes in memory or `i >= len()`.
    #[inline]
    pub fn will_need(&self, i: u32) {
        if (i as usize) < self.len {
            self.records
                .will_need(i as usize * self.record_words, self.record_words);
        }
    }

    /// Asks the CPU to start loading vector `i`'s record (codes and factors) into cache, e.g.
    /// for the neighbours of the next node of a graph walk before estimating them. Only a hint
    /// (`crate::region::prefetch`): no effect for `i >= len()`.
    #[inline]
    pub fn prefetch(&self, i: u32) {
        let i = i as usize;
        if i < self.len {
            crate::region::prefetch(
                &self.records.as_slice()[i * self.record_words..(i + 1) * self.record_words],
            );
        }
    }

    /// The record of vector `i`.
    #[inline]
    pub(super) fn record(&self, i: usize) -> &[u64] {
        assert!(
            i < self.len,
            "RaBitQ vector {i} out of range (len {})",
            self.len
        );
        &self.records.as_slice()[i * self.record_words..(i + 1) * self.record_words]
    }
}

#[cfg(test)]
mod tests;
