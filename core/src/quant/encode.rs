//! Encoding vectors into RaBitQ / Extended RaBitQ codes, and the constructors of
//! [`RabitqIndex`] (from vectors, from a centroid, from stored or mapped records).
//!
//! # Encoding (per vector `x`, `dim` values)
//!
//! 1. Cosine only: `x ← x / ‖x‖`.
//! 2. Residual `r = x − c` against the index centroid `c` (mean of the encoded vectors, fixed
//!    at [`RabitqIndex::encode_all`]; later [`RabitqIndex::push`]es reuse it).
//! 3. Rotation `r' = P·r` ([`Rotation`], `padded_dim` = `dim` rounded up to 64).
//! 4. Code: `bits` bit planes of `r'` (`extended.rs`: the sign code for 1 bit, Extended RaBitQ's
//!    rescaled grid `ȳ` for more), MSB plane first, so plane 0 is always the 1-bit sign code.
//! 5. Four `f32` factors (the unbiased estimator `⟨r, v⟩ ≈ ‖r‖²·⟨ȳ, v'⟩ / ⟨ȳ, r'⟩`, RaBitQ
//!    Theorem 3.2, folded with the metric as in RaBitQ-Library's `F_add`/`F_rescale`/`F_error`):
//!
//! | factor | L2 (squared) | InnerProduct (−dot) | Cosine (1 − cos) |
//! | --- | --- | --- | --- |
//! | `add` | `‖r‖²` | `−⟨r, c⟩` | `−⟨r, c⟩` |
//! | `rescale` | `−2‖r‖²/⟨ȳ, r'⟩` | `−‖r‖²/⟨ȳ, r'⟩` | `−‖r‖²/⟨ȳ, r'⟩` |
//! | `sum_y` | `rescale · Σȳᵢ` | same | same |
//! | `error` | `2‖r‖·σ(ȳ)` | `‖r‖·σ(ȳ)` | `‖r‖·σ(ȳ)` |
//!
//! with `σ(ȳ) = √(1 − cos²)/cos / √(padded_dim − 1)` and `cos = ⟨ȳ, r'⟩/(‖ȳ‖‖r‖)`: `error·‖v‖` is
//! the standard deviation of the estimation error over random rotations (RaBitQ Theorem 3.2,
//! Extended RaBitQ §3.2); the bound multiplies it by ε₀ (per query, default 1.9 as RaBitQ-Library's
//! `kConstEpsilon`). A zero residual gets `rescale = sum_y = error = 0` (its distance is exact).

use super::codes::{code_norm_y, pack_planes, AlignedWords, Factors};
use super::extended::{quantize, CodeStats, QuantScratch};
use super::kernels::bit_kernels;
use super::rabitq::RabitqIndex;
use super::rotation::Rotation;
use super::RabitqParams;
use crate::error::{Error, Result};
use crate::region::Region;
use crate::types::Metric;

/// Buffers for encoding one vector (one per thread).
#[derive(Debug, Default)]
pub(super) struct EncodeScratch {
    residual: Vec<f32>,
    /// The rotated residual `r'`, `padded_dim` values.
    rotated: Vec<f32>,
    /// The code `uᵢ` of each coordinate, `padded_dim` values of `bits` bits.
    pub(super) codes: Vec<u8>,
    quant: QuantScratch,
}

impl RabitqIndex {
    /// Encodes `data` (`n × dim`, row-major) under `metric`: computes the centroid (mean of the
    /// rows; of the unit-normalised rows for cosine), draws the rotation from `params.seed` and
    /// encodes every row. Rows are encoded in parallel with the `parallel` feature; the output is
    /// identical either way.
    ///
    /// # Errors
    /// * `HV_INVALID_ARGUMENT`: `metric` is [`Metric::L1`] (RaBitQ estimates Euclidean geometry
    ///   only; L1 walks with exact distances), `dim` is 0, `params` are out of range, or more than
    ///   `u32::MAX` rows.
    /// * `HV_DIM_MISMATCH`: `data.len()` is not a multiple of `dim`.
    /// * `HV_INVALID_VECTOR`: a row holds NaN/±∞.
    pub fn encode_all(
        data: &[f32],
        dim: usize,
        metric: Metric,
        params: RabitqParams,
    ) -> Result<RabitqIndex> {
        if dim == 0 {
            return Err(Error::invalid_argument(
                "RaBitQ dimension must be at least 1",
            ));
        }
        if !data.len().is_multiple_of(dim) {
            return Err(Error::DimMismatch {
                expected: dim,
                got: data.len() % dim,
            });
        }
        let n = data.len() / dim;
        for (i, row) in data.chunks_exact(dim).enumerate() {
            crate::vector::check_vector(row, dim, metric, i)?;
        }
        let centroid = crate::vector::centroid(data, dim, metric);
        let mut index = RabitqIndex::with_centroid(dim, metric, params, centroid)?;
        if n > u32::MAX as usize {
            return Err(Error::invalid_argument(
                "RaBitQ index holds at most 2^32 − 1 vectors",
            ));
        }
        let mut storage = AlignedWords::default();
        storage.resize_zeroed(n * index.record_words);
        let rw = index.record_words;
        let records = storage.as_mut_slice();
        let parts = index.parts();
        // the maximum of ‖ȳ‖ is order-independent, so both paths give the same index
        #[cfg(feature = "parallel")]
        let norm_y_max = {
            use rayon::prelude::*;
            records
                .par_chunks_mut(rw)
                .zip(data.par_chunks(dim))
                .map_init(EncodeScratch::default, |s, (out, row)| {
                    parts.encode(row, s, out)
                })
                .reduce(|| 0.0, f32::max)
        };
        #[cfg(not(feature = "parallel"))]
        let norm_y_max = {
            let mut s = EncodeScratch::default();
            let mut m = 0.0f32;
            for (out, row) in records.chunks_exact_mut(rw).zip(data.chunks_exact(dim)) {
                m = m.max(parts.encode(row, &mut s, out));
            }
            m
        };
        index.norm_y_max = norm_y_max;
        index.records = storage;
        index.len = n;
        Ok(index)
    }

    /// An empty index with a given centroid (`dim` values, in the input space; for cosine the
    /// mean of unit vectors), e.g. one restored from storage or estimated from a sample; vectors
    /// are then added with [`RabitqIndex::push`].
    ///
    /// # Errors
    /// As [`RabitqIndex::encode_all`] for `dim`, `metric` and `params`; `HV_DIM_MISMATCH` if
    /// `centroid.len() != dim`; `HV_INVALID_VECTOR` if the centroid is not finite.
    pub fn with_centroid(
        dim: usize,
        metric: Metric,
        params: RabitqParams,
        centroid: Vec<f32>,
    ) -> Result<RabitqIndex> {
        params.validate()?;
        if metric == Metric::L1 {
            return Err(Error::invalid_argument(
                "RaBitQ codes support the l2, cosine and ip metrics; l1 uses exact distances",
            ));
        }
        if dim == 0 {
            return Err(Error::invalid_argument(
                "RaBitQ dimension must be at least 1",
            ));
        }
        if centroid.len() != dim {
            return Err(Error::DimMismatch {
                expected: dim,
                got: centroid.len(),
            });
        }
        if let Some(p) = centroid.iter().position(|v| !v.is_finite()) {
            return Err(Error::InvalidVector {
                index: 0,
                reason: format!("centroid component {p} is not finite"),
            });
        }
        let rotation = Rotation::new(dim, params.seed, params.rotation_rounds)?;
        let padded_dim = rotation.padded_dim();
        let words = padded_dim / 64;
        let bits = usize::from(params.bits);
        Ok(RabitqIndex {
            dim,
            padded_dim,
            words,
            bits,
            metric,
            params,
            rotation,
            centroid,
            record_words: bits * words + 2,
            len: 0,
            records: AlignedWords::default(),
            kernels: bit_kernels(),
            norm_y_max: 0.0,
        })
    }

    /// Rebuilds an index from its parts (as returned by [`RabitqIndex::centroid`] and
    /// [`RabitqIndex::records`]) without re-encoding.
    ///
    /// # Errors
    /// As [`RabitqIndex::with_centroid`]; `HV_CORRUPT` if `records.len()` is not a multiple of
    /// [`RabitqIndex::record_words`].
    pub fn from_parts(
        dim: usize,
        metric: Metric,
        params: RabitqParams,
        centroid: Vec<f32>,
        records: &[u64],
    ) -> Result<RabitqIndex> {
        let mut index = RabitqIndex::with_centroid(dim, metric, params, centroid)?;
        if !records.len().is_multiple_of(index.record_words)
            || records.len() / index.record_words > u32::MAX as usize
        {
            return Err(Error::Corrupt(format!(
                "RaBitQ records: {} words is not a whole number of {}-word records",
                records.len(),
                index.record_words
            )));
        }
        index.records.resize_zeroed(records.len());
        index.records.as_mut_slice().copy_from_slice(records);
        index.len = records.len() / index.record_words;
        let (bits, words) = (index.bits, index.words);
        index.norm_y_max = records
            .chunks_exact(index.record_words)
            .map(|r| code_norm_y(&r[..bits * words], bits, words))
            .fold(0.0, f32::max);
        Ok(index)
    }

    /// An index whose records are read in place from `records` (a mapped segment file, so
    /// nothing is copied or re-encoded), with the `‖ȳ‖` maximum stored beside them.
    ///
    /// # Errors
    /// As [`RabitqIndex::with_centroid`]; `HV_CORRUPT` if the region is not a whole number of
    /// records or `norm_y_max` is not finite.
    pub fn from_mapped(
        dim: usize,
        metric: Metric,
        params: RabitqParams,
        centroid: Vec<f32>,
        records: Region,
        norm_y_max: f32,
    ) -> Result<RabitqIndex> {
        let mut index = RabitqIndex::with_centroid(dim, metric, params, centroid)?;
        let words = records.as_slice::<u64>().len();
        if records.len() != words * 8
            || !words.is_multiple_of(index.record_words)
            || words / index.record_words > u32::MAX as usize
        {
            return Err(Error::Corrupt(format!(
                "RaBitQ records: {} bytes is not a whole number of {}-word records",
                records.len(),
                index.record_words
            )));
        }
        if !norm_y_max.is_finite() || norm_y_max < 0.0 {
            return Err(Error::Corrupt(format!(
                "RaBitQ records: stored code norm bound {norm_y_max} is invalid"
            )));
        }
        index.len = words / index.record_words;
        index.records = AlignedWords::mapped(records, words);
        index.norm_y_max = norm_y_max;
        Ok(index)
    }

    /// Encodes one more vector under the existing centroid and rotation; returns its number.
    ///
    /// # Errors
    /// `HV_DIM_MISMATCH` if `v.len() != dim`; `HV_INVALID_VECTOR` if `v` holds NaN/±∞;
    /// `HV_INVALID_ARGUMENT` if the index already holds `u32::MAX` vectors.
    pub fn push(&mut self, v: &[f32]) -> Result<u32> {
        self.check_input(v)?;
        if self.len >= u32::MAX as usize {
            return Err(Error::invalid_argument(
                "RaBitQ index holds at most 2^32 − 1 vectors",
            ));
        }
        let id = self.len;
        let rw = self.record_words;
        let mut storage = std::mem::take(&mut self.records);
        storage.resize_zeroed((id + 1) * rw);
        let norm_y = self.parts().encode(
            v,
            &mut EncodeScratch::default(),
            &mut storage.as_mut_slice()[id * rw..],
        );
        self.norm_y_max = self.norm_y_max.max(norm_y);
        self.records = storage;
        self.len = id + 1;
        Ok(id as u32)
    }

    /// The share (0 to 1) of the code bits of stored vector `i` that a fresh encoding of `v`
    /// (its vector, `dim` values) with this index's rotation and centroid reproduces: 1 for codes
    /// this index made, about 0.5 for codes made with another rotation (another seed).
    ///
    /// # Errors
    /// `HV_DIM_MISMATCH`, `HV_INVALID_VECTOR` (as [`RabitqIndex::push`]).
    ///
    /// # Panics
    /// If `i >= len()`.
    pub fn agreement(&self, i: u32, v: &[f32]) -> Result<f64> {
        self.check_input(v)?;
        let mut fresh = vec![0u64; self.record_words];
        self.parts()
            .encode(v, &mut EncodeScratch::default(), &mut fresh);
        let planes = self.bits * self.words;
        let stored = &self.record(i as usize)[..planes];
        let differ: u32 = stored
            .iter()
            .zip(&fresh[..planes])
            .map(|(a, b)| (a ^ b).count_ones())
            .sum();
        Ok(1.0 - f64::from(differ) / (planes * 64).max(1) as f64)
    }

    /// A vector this index can encode: `dim` values, finite (a zero vector under cosine encodes as the centroid's opposite).
    fn check_input(&self, v: &[f32]) -> Result<()> {
        crate::vector::check_vector(v, self.dim, self.metric, 0).map(|_| ())
    }

    /// The shared, read-only encoding state.
    pub(super) fn parts(&self) -> EncodeParts<'_> {
        EncodeParts {
            dim: self.dim,
            padded_dim: self.padded_dim,
            words: self.words,
            bits: self.params.bits,
            metric: self.metric,
            rotation: &self.rotation,
            centroid: &self.centroid,
        }
    }
}

/// Everything `encode` reads (shared by the encoding threads).
#[derive(Clone, Copy)]
pub(super) struct EncodeParts<'a> {
    dim: usize,
    padded_dim: usize,
    words: usize,
    bits: u8,
    metric: Metric,
    rotation: &'a Rotation,
    centroid: &'a [f32],
}

impl EncodeParts<'_> {
    /// Encodes the (already validated) vector `x` into the record `out`; returns its `‖ȳ‖`.
    pub(super) fn encode(&self, x: &[f32], s: &mut EncodeScratch, out: &mut [u64]) -> f32 {
        let (stats, norm_sq, c_dot_r) = self.residual_code(x, s);
        let bits = usize::from(self.bits);
        let (planes, factors) = out.split_at_mut(bits * self.words);
        pack_planes(&s.codes, bits, planes);
        let scale: f64 = if self.metric == Metric::L2 { 2.0 } else { 1.0 };
        let add = if self.metric == Metric::L2 {
            norm_sq
        } else {
            -c_dot_r
        };
        let (mut rescale, mut sum_y, mut error) = (0.0f64, 0.0f64, 0.0f64);
        if norm_sq > 0.0 && stats.ip_yr > 0.0 {
            rescale = -scale * norm_sq / stats.ip_yr;
            sum_y = rescale * stats.sum_y;
            let cos = (stats.ip_yr / (stats.norm_y_sq.sqrt() * norm_sq.sqrt())).min(1.0);
            let eps = 1.0 / ((self.padded_dim as f64) - 1.0).max(1.0).sqrt();
            error = scale * norm_sq.sqrt() * (1.0 - cos * cos).max(0.0).sqrt() / cos * eps;
        }
        let f = Factors {
            add: add as f32,
            rescale: rescale as f32,
            sum_y: sum_y as f32,
            error: error as f32,
        };
        factors.copy_from_slice(&f.to_words());
        code_norm_y(planes, bits, self.words)
    }

    /// Normalises (cosine), centres and rotates `x` into `s.rotated`, quantises it into
    /// `s.codes`; returns the code statistics, `‖r‖²` and `⟨c, r⟩`.
    pub(super) fn residual_code(&self, x: &[f32], s: &mut EncodeScratch) -> (CodeStats, f64, f64) {
        s.residual.resize(self.dim, 0.0);
        s.rotated.resize(self.padded_dim, 0.0);
        s.codes.resize(self.padded_dim, 0);
        let inv_norm = if self.metric == Metric::Cosine {
            crate::vector::unit_scale(x)
        } else {
            1.0
        };
        let (mut norm_sq, mut c_dot_r) = (0.0f64, 0.0f64);
        for ((r, &v), &c) in s.residual.iter_mut().zip(x).zip(self.centroid) {
            let d = f64::from(v) * inv_norm - f64::from(c);
            *r = d as f32;
            norm_sq += d * d;
            c_dot_r += d * f64::from(c);
        }
        self.rotation.apply(&s.residual, &mut s.rotated);
        let stats = quantize(&s.rotated, self.bits, &mut s.quant, &mut s.codes);
        (stats, norm_sq, c_dot_r)
    }
}
