//! RaBitQ / Extended RaBitQ codes for a set of vectors, and the distance estimator.
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
//!
//! # Estimation (per query `q`, prepared once: [`PreparedQuery`])
//!
//! `v = q − c` (unit-normalised `q` for cosine), `v' = P·v ≈ lo + Δ·qᵢ` (`query_bits`-bit levels
//! `qᵢ`, [`RabitqParams::default_query_bits`]), and
//! per data vector, with `S = Σᵢ uᵢ·qᵢ` from the bit-plane kernel (`kernels/`):
//!
//! ```text
//! ⟨ȳ, v'⟩ ≈ (Δ/2)·(2S − (2^bits − 1)·Σqᵢ) + lo·Σȳᵢ
//! estimate = add + g_add + rescale·(Δ/2)·(2S − (2^bits − 1)·Σqᵢ) + lo·sum_y
//! ```
//!
//! where `g_add` is `‖v‖²` (L2), `−⟨c, q⟩` (inner product) or `1 − ⟨c, q̂⟩` (cosine). The result
//! is in the units of the exact metric distance of `crate::distance` (squared L2; `1 − cos`;
//! `−dot`), lower is closer. The integer part is exact and identical on every kernel set.
//!
//! # Layout
//!
//! One record of `bits · padded_dim/64 + 2` little `u64` words per vector, records contiguous
//! in one 64-byte-aligned buffer: the planes (plane 0 = sign bits, then decreasing weight;
//! coordinate `i` in bit `i % 64` of word `i / 64` of each plane), then the factors packed two per
//! word (`add | rescale << 32`, `sum_y | error << 32`, each the `f32` bit pattern). At 384-d:
//! 64 B per vector at 1 bit (one cache line), 208 B at 4 bits.

use super::extended::{quantize, CodeStats, QuantScratch};
use super::kernels::{bit_kernels, BitKernels};
use super::query::{quantize_query, PreparedQuery};
use super::rotation::{Rotation, DEFAULT_ROUNDS};
use crate::error::{Error, Result};
use crate::region::Region;
use crate::types::Metric;

/// Default ε₀ of the RaBitQ error bound (RaBitQ-Library's `kConstEpsilon`). The bound is ε₀
/// standard deviations of an error that is close to Gaussian, so ε₀ = 1.9 covers ≈ 94 % of pairs
/// and ε₀ = 3 ≈ 99.7 % (measured on real data: see the `quant` module documentation). Set it
/// per query with [`PreparedQuery::set_epsilon0`].
pub const EPSILON0: f32 = 1.9;

/// Default seed of the rotation (any fixed value; persisted with the index).
pub const DEFAULT_SEED: u64 = 0x686f_726f_7376_6563; // "horosvec"

/// Quantizer parameters (persisted with the index: codes are only meaningful under them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RabitqParams {
    /// Bits per dimension of the data codes, 1..=8 (1 = RaBitQ; ≥ 2 = Extended RaBitQ).
    pub bits: u8,
    /// Bits per dimension of the quantised query, 1..=8 (RaBitQ's `B_q`; 4 in the paper).
    pub query_bits: u8,
    /// Seed of the random rotation.
    pub seed: u64,
    /// Rounds of the rotation (0..=16; [`DEFAULT_ROUNDS`] = 4).
    pub rotation_rounds: u8,
}

impl RabitqParams {
    /// `bits`-bit codes with the recommended query bits for that width
    /// ([`RabitqParams::default_query_bits`]), the default seed and 4 rotation rounds.
    #[must_use]
    pub const fn new(bits: u8) -> Self {
        RabitqParams {
            bits,
            query_bits: Self::default_query_bits(bits),
            seed: DEFAULT_SEED,
            rotation_rounds: DEFAULT_ROUNDS,
        }
    }

    /// The recommended query bits for `bits`-bit data codes: 4 for 1-bit codes (RaBitQ's B_q),
    /// more for multi-bit codes, whose accuracy a 4-bit query would otherwise cap
    /// (measured; see the `quant` module documentation).
    #[must_use]
    pub const fn default_query_bits(bits: u8) -> u8 {
        match bits {
            0 | 1 => 4,
            2 => 5,
            3 => 6,
            4 => 7,
            _ => 8,
        }
    }

    /// The same parameters with another seed.
    #[must_use]
    pub const fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The same parameters with other query bits.
    #[must_use]
    pub const fn with_query_bits(mut self, query_bits: u8) -> Self {
        self.query_bits = query_bits;
        self
    }

    /// Checks the ranges.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` if `bits` or `query_bits` is outside 1..=8 or `rotation_rounds` > 16.
    pub fn validate(&self) -> Result<()> {
        if !(1..=8).contains(&self.bits) {
            return Err(Error::invalid_argument(format!(
                "RaBitQ bits {} not in 1..=8",
                self.bits
            )));
        }
        if !(1..=8).contains(&self.query_bits) {
            return Err(Error::invalid_argument(format!(
                "RaBitQ query bits {} not in 1..=8",
                self.query_bits
            )));
        }
        if self.rotation_rounds > super::rotation::MAX_ROUNDS {
            return Err(Error::invalid_argument(format!(
                "rotation rounds {} > 16",
                self.rotation_rounds
            )));
        }
        Ok(())
    }
}

impl Default for RabitqParams {
    /// 4-bit codes (see the `quant` module documentation for the measurements behind it).
    fn default() -> Self {
        RabitqParams::new(4)
    }
}

/// The four per-vector correction factors (see the module docs for their definitions).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Factors {
    /// Additive term (`‖r‖²` for L2, `−⟨r, c⟩` otherwise).
    pub add: f32,
    /// Multiplier of the estimated `⟨ȳ, v'⟩`.
    pub rescale: f32,
    /// `rescale · Σȳᵢ` (multiplies the query's `lo`).
    pub sum_y: f32,
    /// Error factor: times `‖q − c‖` it is the standard deviation of the estimation error.
    pub error: f32,
}

/// RaBitQ codes of `len()` vectors of one dimension and metric, plus the shared centroid and
/// rotation; estimates distances to prepared queries (module docs).
#[derive(Clone, Debug)]
pub struct RabitqIndex {
    dim: usize,
    padded_dim: usize,
    words: usize,
    bits: usize,
    metric: Metric,
    params: RabitqParams,
    rotation: Rotation,
    centroid: Vec<f32>,
    record_words: usize,
    len: usize,
    records: AlignedWords,
    kernels: &'static BitKernels,
    /// Largest `‖ȳ‖` of the stored codes (for the query-rounding term of the bound).
    norm_y_max: f32,
}

/// Buffers for encoding one vector (one per thread).
#[derive(Debug, Default)]
struct EncodeScratch {
    residual: Vec<f32>,
    rotated: Vec<f32>,
    codes: Vec<u8>,
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
    /// * `HV_INVALID_VECTOR`: a row holds NaN/±∞, or is all zeros under cosine.
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
            check_vector(row, metric, i)?;
        }
        let centroid = mean(data, dim, metric);
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
        index.records = AlignedWords {
            lines: Vec::new(),
            len: words,
            mapped: Some(records),
        };
        index.norm_y_max = norm_y_max;
        Ok(index)
    }

    /// Largest `‖ȳ‖` over the stored codes (kept beside mapped records, see
    /// [`RabitqIndex::from_mapped`]).
    pub fn norm_y_max(&self) -> f32 {
        self.norm_y_max
    }

    /// Encodes one more vector under the existing centroid and rotation; returns its number.
    ///
    /// # Errors
    /// `HV_DIM_MISMATCH` if `v.len() != dim`; `HV_INVALID_VECTOR` if `v` holds NaN/±∞ or is all
    /// zeros under cosine; `HV_INVALID_ARGUMENT` if the index already holds `u32::MAX` vectors.
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

    /// A vector this index can encode: `dim` values, finite (and not zero under cosine).
    fn check_input(&self, v: &[f32]) -> Result<()> {
        if v.len() != self.dim {
            return Err(Error::DimMismatch {
                expected: self.dim,
                got: v.len(),
            });
        }
        check_vector(v, self.metric, 0)
    }

    /// The correction factors of vector `i`.
    ///
    /// # Panics
    /// If `i >= len()`.
    #[must_use]
    pub fn factors(&self, i: u32) -> Factors {
        let rec = self.record(i as usize);
        let (f0, f1) = (rec[self.record_words - 2], rec[self.record_words - 1]);
        Factors {
            add: f32::from_bits(f0 as u32),
            rescale: f32::from_bits((f0 >> 32) as u32),
            sum_y: f32::from_bits(f1 as u32),
            error: f32::from_bits((f1 >> 32) as u32),
        }
    }

    /// A query prepared for this index (allocates; see [`RabitqIndex::prepare_into`]).
    ///
    /// # Errors
    /// As [`RabitqIndex::prepare_into`].
    pub fn prepare(&self, q: &[f32]) -> Result<PreparedQuery> {
        let mut pq = self.new_query();
        self.prepare_into(q, &mut pq)?;
        Ok(pq)
    }

    /// A blank [`PreparedQuery`] with buffers of this index's shape and `params().query_bits`,
    /// for [`RabitqIndex::prepare_into`].
    #[must_use]
    pub fn new_query(&self) -> PreparedQuery {
        PreparedQuery::empty(
            self.dim,
            self.padded_dim,
            self.bits,
            usize::from(self.params.query_bits),
            self.kernels,
        )
    }

    /// Like [`RabitqIndex::new_query`] with another number of query bits. The query bits are a
    /// query-time choice (the stored codes do not depend on them): more bits, smaller query
    /// rounding error; the cost per estimate grows with them on the POPCNT and portable kernels
    /// (not on AVX2 from 5 bits up).
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` if `query_bits` is not in 1..=8.
    pub fn new_query_with_bits(&self, query_bits: u8) -> Result<PreparedQuery> {
        if !(1..=8).contains(&query_bits) {
            return Err(Error::invalid_argument(format!(
                "RaBitQ query bits {query_bits} not in 1..=8"
            )));
        }
        Ok(PreparedQuery::empty(
            self.dim,
            self.padded_dim,
            self.bits,
            usize::from(query_bits),
            self.kernels,
        ))
    }

    /// Prepares `q` (`dim` values) into `pq`: normalise (cosine), centre, rotate once, quantise
    /// to `pq`'s query bits and compute the per-query terms. Allocates nothing when `pq` came
    /// from this index (or another of the same shape); otherwise it is rebuilt for this index,
    /// keeping its query bits and ε₀.
    ///
    /// # Errors
    /// `HV_DIM_MISMATCH` if `q.len() != dim`; `HV_INVALID_VECTOR` if `q` holds NaN/±∞ or is all
    /// zeros under cosine.
    pub fn prepare_into(&self, q: &[f32], pq: &mut PreparedQuery) -> Result<()> {
        if q.len() != self.dim {
            return Err(Error::DimMismatch {
                expected: self.dim,
                got: q.len(),
            });
        }
        check_vector(q, self.metric, 0)?;
        if pq.centred.len() != self.dim
            || pq.rotated.len() != self.padded_dim
            || pq.bits != self.bits
        {
            *pq = self
                .new_query_with_bits(pq.qbits as u8)
                .unwrap_or_else(|_| self.new_query());
        }
        let qbits = pq.qbits;
        pq.set_kernels(self.kernels);
        let inv_norm = if self.metric == Metric::Cosine {
            1.0 / norm(q)
        } else {
            1.0
        };
        let (mut c_dot_q, mut v_sq) = (0.0f64, 0.0f64);
        for ((v, &x), &c) in pq.centred.iter_mut().zip(q).zip(&self.centroid) {
            let x = f64::from(x) * inv_norm;
            let d = x - f64::from(c);
            *v = d as f32;
            c_dot_q += f64::from(c) * x;
            v_sq += d * d;
        }
        pq.g_add = match self.metric {
            Metric::L2 => v_sq as f32,
            Metric::InnerProduct => -c_dot_q as f32,
            Metric::Cosine => (1.0 - c_dot_q) as f32,
            Metric::L1 => unreachable!("rejected at construction"),
        };
        pq.v_norm = v_sq.sqrt() as f32;
        self.rotation.apply(&pq.centred, &mut pq.rotated);
        let (lo, delta, sum_q) = quantize_query(&pq.rotated, qbits, &mut pq.bytes, &mut pq.planes);
        pq.sum_q = sum_q;
        pq.lo = lo;
        pq.half_delta = 0.5 * delta;
        pq.k_sum = (((1u64 << self.bits) - 1) * sum_q) as i64;
        // Query rounding error (uniform in ±Δ/2 per coordinate) moves ⟨ȳ, v'⟩ by about
        // ‖ȳ‖·Δ/√12 (one standard deviation); times |rescale| it is a second error term.
        // ‖ȳ‖_max is the largest ‖ȳ‖ of the index's codes (√D'/2 for every 1-bit code).
        pq.q_sigma = delta / 12f32.sqrt() * self.norm_y_max;
        pq.update_bound_terms();
        Ok(())
    }

    /// Estimated distance from the prepared query to vector `i`, in the units of the exact
    /// metric distance (squared L2; `1 − cos`; `−dot`), lower is closer.
    ///
    /// # Panics
    /// If `i >= len()`, or `pq` was prepared for an index of another shape.
    #[inline]
    #[must_use]
    pub fn estimate(&self, pq: &PreparedQuery, i: u32) -> f32 {
        let rec = self.record(i as usize);
        assert!(
            pq.bits == self.bits && pq.words == self.words,
            "query prepared for another index"
        );
        let (code, f) = rec.split_at(self.bits * self.words);
        let s = (pq.ip)(code, &pq.code());
        combine(pq, s, f[0], f[1])
    }

    /// [`RabitqIndex::estimate`] plus an error bound `b ≥ 0`: the exact distance lies in
    /// `[estimate − b, estimate + b]` with high probability: `b = ε₀·(error·‖q − c‖ +
    /// |rescale|·‖ȳ‖_max·Δ/√12)`, RaBitQ's bound (Theorem 3.2) plus a term for the query's own
    /// rounding error; ε₀ is the query's ([`PreparedQuery::set_epsilon0`], default 1.9, which
    /// covers ≈ 94 % of pairs; 3.0 covers ≈ 99.7 %). For bound-driven reranking.
    ///
    /// # Panics
    /// As [`RabitqIndex::estimate`].
    #[inline]
    #[must_use]
    pub fn estimate_with_bound(&self, pq: &PreparedQuery, i: u32) -> (f32, f32) {
        let rec = self.record(i as usize);
        assert!(
            pq.bits == self.bits && pq.words == self.words,
            "query prepared for another index"
        );
        let (code, f) = rec.split_at(self.bits * self.words);
        let s = (pq.ip)(code, &pq.code());
        let est = combine(pq, s, f[0], f[1]);
        let rescale = f32::from_bits((f[0] >> 32) as u32);
        let error = f32::from_bits((f[1] >> 32) as u32);
        (est, error * pq.g_err + rescale.abs() * pq.g_qerr)
    }

    /// Estimates for several vectors: `out[j] = estimate(pq, ids[j])`.
    ///
    /// # Panics
    /// If `ids.len() != out.len()`, or as [`RabitqIndex::estimate`].
    pub fn estimate_many(&self, pq: &PreparedQuery, ids: &[u32], out: &mut [f32]) {
        assert_eq!(ids.len(), out.len());
        for (o, &i) in out.iter_mut().zip(ids) {
            *o = self.estimate(pq, i);
        }
    }

    /// Asks the medium for vector `i`'s record ahead of use when the codes are read from a
    /// mapped file ([`crate::region::Region::will_need`]): the first searches after a cold open
    /// then overlap their page faults. Nothing for codes in memory or `i >= len()`.
    #[inline]
    pub fn will_need(&self, i: u32) {
        if (i as usize) < self.len {
            self.records
                .will_need(i as usize * self.record_words, self.record_words);
        }
    }

    /// Asks the CPU to start loading vector `i`'s record (codes and factors) into cache, e.g.
    /// for the neighbours of the next node of a graph walk before estimating them. Only a hint:
    /// no effect for `i >= len()` or on targets without a prefetch instruction (wasm32).
    #[inline]
    pub fn prefetch(&self, i: u32) {
        let i = i as usize;
        if i >= self.len {
            return;
        }
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let rec = &self.records.as_slice()[i * self.record_words..(i + 1) * self.record_words];
            for line in (0..rec.len()).step_by(8) {
                // SAFETY: `line < rec.len()`, so the pointer is inside the record; a prefetch
                // never faults and has no architectural effect (SSE is baseline on x86-64).
                unsafe { _mm_prefetch::<_MM_HINT_T0>(rec.as_ptr().add(line).cast()) };
            }
            // the last line, when the record does not start on a line boundary
            // SAFETY: as above, the last word of the record.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(rec.as_ptr().add(rec.len() - 1).cast()) };
        }
        // wasm32 has no prefetch instruction: a volatile load of the record's first word stands in
        // for one (the engine cannot drop it, and an out-of-order CPU overlaps its miss with the
        // estimates computed meanwhile).
        #[cfg(target_arch = "wasm32")]
        {
            let rec = &self.records.as_slice()[i * self.record_words..];
            // SAFETY: `rec` is non-empty (i < len), so its first word is a valid, aligned u64.
            let _ = unsafe { core::ptr::read_volatile(rec.as_ptr()) };
        }
    }

    /// The record of vector `i`.
    #[inline]
    fn record(&self, i: usize) -> &[u64] {
        assert!(
            i < self.len,
            "RaBitQ vector {i} out of range (len {})",
            self.len
        );
        &self.records.as_slice()[i * self.record_words..(i + 1) * self.record_words]
    }

    /// The shared, read-only encoding state.
    fn parts(&self) -> EncodeParts<'_> {
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

/// `add + g_add + rescale·(Δ/2)·(2S − k_sum) + lo·sum_y` (module docs).
#[inline(always)]
fn combine(pq: &PreparedQuery, s: u64, f0: u64, f1: u64) -> f32 {
    let add = f32::from_bits(f0 as u32);
    let rescale = f32::from_bits((f0 >> 32) as u32);
    let sum_y = f32::from_bits(f1 as u32);
    let ip = (2 * s as i64 - pq.k_sum) as f32;
    add + pq.g_add + rescale * (pq.half_delta * ip) + pq.lo * sum_y
}

/// Everything `encode` reads (shared by the encoding threads).
#[derive(Clone, Copy)]
struct EncodeParts<'a> {
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
    fn encode(&self, x: &[f32], s: &mut EncodeScratch, out: &mut [u64]) -> f32 {
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
        factors[0] =
            u64::from((add as f32).to_bits()) | (u64::from((rescale as f32).to_bits()) << 32);
        factors[1] =
            u64::from((sum_y as f32).to_bits()) | (u64::from((error as f32).to_bits()) << 32);
        code_norm_y(planes, bits, self.words)
    }

    /// Normalises (cosine), centres and rotates `x` into `s.rotated`, quantises it into
    /// `s.codes`; returns the code statistics, `‖r‖²` and `⟨c, r⟩`.
    fn residual_code(&self, x: &[f32], s: &mut EncodeScratch) -> (CodeStats, f64, f64) {
        s.residual.resize(self.dim, 0.0);
        s.rotated.resize(self.padded_dim, 0.0);
        s.codes.resize(self.padded_dim, 0);
        let inv_norm = if self.metric == Metric::Cosine {
            1.0 / norm(x)
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

/// Packs `codes` (`64·words` values of `bits` bits) into `bits` planes, MSB plane first.
fn pack_planes(codes: &[u8], bits: usize, planes: &mut [u64]) {
    let words = codes.len() / 64;
    planes.fill(0);
    for (w, chunk) in codes.chunks_exact(64).enumerate() {
        for (j, &u) in chunk.iter().enumerate() {
            for a in 0..bits {
                planes[a * words + w] |= u64::from((u >> (bits - 1 - a)) & 1) << j;
            }
        }
    }
}

/// `‖ȳ‖` of a code (`bits` planes of `words` words, MSB first), from popcounts:
/// `‖ȳ‖² = Σ uᵢ² − (2^bits − 1)·Σ uᵢ + D'·((2^bits − 1)/2)²` with
/// `Σ uᵢ = Σ_a 2^(bits−1−a)·|plane_a|` and `Σ uᵢ² = Σ_a Σ_a' 2^(2·bits−2−a−a')·|plane_a ∧ plane_a'|`.
/// Exact (integers), so encoding and `from_parts` agree to the bit.
fn code_norm_y(planes: &[u64], bits: usize, words: usize) -> f32 {
    let (mut sum_u, mut sum_u2) = (0u64, 0u64);
    for a in 0..bits {
        let pa = &planes[a * words..(a + 1) * words];
        sum_u += pa.iter().map(|w| u64::from(w.count_ones())).sum::<u64>() << (bits - 1 - a);
        for b in 0..bits {
            let pb = &planes[b * words..(b + 1) * words];
            let both: u64 = pa
                .iter()
                .zip(pb)
                .map(|(x, y)| u64::from((x & y).count_ones()))
                .sum();
            sum_u2 += both << (2 * bits - 2 - a - b);
        }
    }
    let levels = (1u64 << bits) - 1;
    let d = 64 * words as u64;
    // 4·‖ȳ‖² = 4Σu² − 4·levels·Σu + D'·levels², all integers
    let four = 4 * sum_u2 + d * levels * levels - 4 * levels * sum_u;
    ((four as f64).sqrt() / 2.0) as f32
}

use crate::vector::norm_f64 as norm;

/// Rejects non-finite vectors, and zero or too small vectors under cosine
/// ([`crate::vector::check_vector`]).
fn check_vector(x: &[f32], metric: Metric, index: usize) -> Result<()> {
    crate::vector::check_vector(x, x.len(), metric, index).map(|_| ())
}

/// Mean of the rows (unit-normalised for cosine), summed in `f64` in row order (so the result
/// does not depend on threading); zeros if there are no rows.
fn mean(data: &[f32], dim: usize, metric: Metric) -> Vec<f32> {
    let mut sum = vec![0.0f64; dim];
    let mut n = 0usize;
    for row in data.chunks_exact(dim) {
        let inv = if metric == Metric::Cosine {
            1.0 / norm(row)
        } else {
            1.0
        };
        for (s, &v) in sum.iter_mut().zip(row) {
            *s += f64::from(v) * inv;
        }
        n += 1;
    }
    sum.iter()
        .map(|&s| if n > 0 { (s / n as f64) as f32 } else { 0.0 })
        .collect()
}

/// A `u64` buffer whose start is 64-byte aligned (a record that is a multiple of 64 bytes, e.g.
/// 384-d × 1 bit, then never straddles two cache lines).
#[derive(Clone, Default)]
struct AlignedWords {
    lines: Vec<Line>,
    len: usize,
    /// When set, the words live in this read-only region (a mapped segment file) and `lines` is
    /// empty; the first mutable access copies them into `lines`.
    mapped: Option<Region>,
}

/// One cache line of words.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u64; 8]);

impl AlignedWords {
    fn as_slice(&self) -> &[u64] {
        if let Some(r) = &self.mapped {
            return &r.as_slice::<u64>()[..self.len];
        }
        // SAFETY: `Line` is `repr(C)` around `[u64; 8]` with size 64 and no padding, so the
        // vector's buffer is `8 · lines.len()` initialised, properly aligned `u64`s, and
        // `len ≤ 8 · lines.len()` (kept by `resize_zeroed`).
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast::<u64>(), self.len) }
    }

    /// [`Region::will_need`] for words `at..at + len` when mapped.
    #[inline]
    fn will_need(&self, at: usize, len: usize) {
        if let Some(r) = &self.mapped {
            r.will_need(at * 8, len * 8);
        }
    }

    fn as_mut_slice(&mut self) -> &mut [u64] {
        self.unmap();
        // SAFETY: as in `as_slice`; the exclusive borrow of `self` makes the slice unique.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr().cast::<u64>(), self.len) }
    }

    /// Copies mapped words into owned lines (copy on write).
    fn unmap(&mut self) {
        if let Some(r) = self.mapped.take() {
            let words = &r.as_slice::<u64>()[..self.len];
            self.lines = vec![Line([0; 8]); self.len.div_ceil(8)];
            for (line, chunk) in self.lines.iter_mut().zip(words.chunks(8)) {
                line.0[..chunk.len()].copy_from_slice(chunk);
            }
        }
    }

    /// Grows (or shrinks) to `len` words; new words are zero.
    fn resize_zeroed(&mut self, len: usize) {
        self.unmap();
        if len > self.len {
            // zero the tail of the last partially used line, then add whole zero lines
            let old = self.len;
            self.lines.resize(len.div_ceil(8), Line([0; 8]));
            self.len = len;
            self.as_mut_slice()[old..].fill(0);
        } else {
            self.len = len;
            self.lines.truncate(len.div_ceil(8));
        }
    }
}

impl std::fmt::Debug for AlignedWords {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AlignedWords({} words)", self.len)
    }
}

#[cfg(test)]
mod tests;
