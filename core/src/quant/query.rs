//! The query side of the estimator: one rotation and one scalar quantisation per query.
//!
//! [`PreparedQuery`] holds the rotated, centred query `v' = P(q − c)` quantised to `qbits`-bit
//! unsigned integers (RaBitQ §3.3.1, "B_q-bit" query; 4 bits for 1-bit codes, up to 8 for wider
//! ones: `RabitqParams::default_query_bits`) as bit planes and bytes, plus the
//! per-query scalars of the estimator. It owns every buffer it needs, so re-preparing it for the
//! next query ([`RabitqIndex::prepare_into`](super::RabitqIndex::prepare_into)) allocates nothing.
//!
//! # Quantisation
//!
//! `lo = minᵢ v'ᵢ`, `Δ = (maxᵢ v'ᵢ − lo) / (2^qbits − 1)`, `qᵢ = ⌊(v'ᵢ − lo)/Δ + ½⌋` (round half
//! up; `Δ = 0` ⇒ every `qᵢ = 0`), so `v'ᵢ ≈ lo + Δ·qᵢ` with `|error| ≤ Δ/2`. The
//! RaBitQ paper rounds *randomly* (`⌊x + U(0,1)⌋`) to make the query error exactly unbiased; we
//! round to nearest, which is deterministic (the same query always gives the same estimates, on
//! every kernel set and thread) and has half the error variance. Its residual bias is a
//! per-coordinate error `≤ Δ/2` uncorrelated with the data codes under the random rotation; the
//! measured mean error of the estimator stays within noise of 0 (tests in `rabitq.rs`).

use super::kernels::{BitKernels, IpFn, QueryCode};

/// A query rotated, centred and quantised for one [`RabitqIndex`](super::RabitqIndex).
///
/// Build it with [`RabitqIndex::prepare`](super::RabitqIndex::prepare) (allocates) or reuse one
/// with [`RabitqIndex::prepare_into`](super::RabitqIndex::prepare_into) (allocation-free once its
/// buffers have the index's shape). It is only meaningful for the index that prepared it.
#[derive(Clone, Debug)]
pub struct PreparedQuery {
    /// Scratch: the (normalised, for cosine) query minus the centroid, `dim` values.
    pub(crate) centred: Vec<f32>,
    /// Scratch: the rotated centred query `v'`, `padded_dim` values.
    pub(crate) rotated: Vec<f32>,
    /// `qbits` bit planes of `words` words each, LSB plane first: word `w` of plane `b` (weight
    /// `2^b`) at `planes[b·words + w]`.
    pub(crate) planes: Vec<u64>,
    /// The same levels `qᵢ`, one byte per coordinate.
    pub(crate) bytes: Vec<u8>,
    /// `Σᵢ qᵢ`.
    pub(crate) sum_q: u64,
    /// Bits per query coordinate (1..=8).
    pub(crate) qbits: usize,
    /// Data code bits of the index this query was prepared for.
    pub(crate) bits: usize,
    /// 64-bit words per plane.
    pub(crate) words: usize,
    /// Metric- and centroid-dependent additive term (`‖q − c‖²` for L2, `−⟨c, q⟩` for inner
    /// product, `1 − ⟨c, q̂⟩` for cosine).
    pub(crate) g_add: f32,
    /// `Δ / 2`.
    pub(crate) half_delta: f32,
    /// `lo`, the value of query level 0.
    pub(crate) lo: f32,
    /// `(2^bits − 1) · Σᵢ qᵢ`, so that `2·Σuᵢqᵢ − k_sum = 2·Σ ȳᵢ·qᵢ` exactly.
    pub(crate) k_sum: i64,
    /// `‖q − c‖`.
    pub(crate) v_norm: f32,
    /// One standard deviation of `⟨ȳ, v'⟩`'s query-rounding error: `‖ȳ‖_max·Δ/√12`.
    pub(crate) q_sigma: f32,
    /// ε₀ of the bound (kept across `prepare_into`).
    pub(crate) epsilon0: f32,
    /// `ε₀·‖q − c‖`: multiplies the per-vector error factor.
    pub(crate) g_err: f32,
    /// `ε₀·q_sigma`: multiplies `|rescale|` (see `RabitqIndex::estimate_with_bound`).
    pub(crate) g_qerr: f32,
    /// The kernel set used for this query's estimates.
    pub(crate) kernels: &'static BitKernels,
    /// Its kernel for (`bits`, `qbits`).
    pub(crate) ip: IpFn,
}

impl PreparedQuery {
    /// An empty query for `bits`-bit codes of `dim`/`padded_dim`; filled by `prepare_into`.
    pub(crate) fn empty(
        dim: usize,
        padded_dim: usize,
        bits: usize,
        qbits: usize,
        kernels: &'static BitKernels,
    ) -> Self {
        let words = padded_dim / 64;
        PreparedQuery {
            centred: vec![0.0; dim],
            rotated: vec![0.0; padded_dim],
            planes: vec![0; qbits * words],
            bytes: vec![0; padded_dim],
            sum_q: 0,
            qbits,
            bits,
            words,
            g_add: 0.0,
            half_delta: 0.0,
            lo: 0.0,
            k_sum: 0,
            v_norm: 0.0,
            q_sigma: 0.0,
            epsilon0: super::EPSILON0,
            g_err: 0.0,
            g_qerr: 0.0,
            kernels,
            ip: kernels.get(bits, qbits),
        }
    }

    /// Sets ε₀, the width of [`RabitqIndex::estimate_with_bound`](super::RabitqIndex::estimate_with_bound)'s
    /// bound in standard deviations (default [`EPSILON0`](super::EPSILON0) = 1.9). Kept when the
    /// query is re-prepared.
    pub fn set_epsilon0(&mut self, epsilon0: f32) {
        self.epsilon0 = epsilon0.max(0.0);
        self.update_bound_terms();
    }

    /// Uses the kernel set `kernels` (one of [`available_bit_kernels`](super::available_bit_kernels))
    /// for this query's estimates, e.g. to compare sets; every set gives identical results.
    /// `prepare_into` resets it to the index's choice.
    pub fn set_kernels(&mut self, kernels: &'static BitKernels) {
        self.kernels = kernels;
        self.ip = kernels.get(self.bits, self.qbits);
    }

    /// ε₀ of the bound.
    #[must_use]
    pub fn epsilon0(&self) -> f32 {
        self.epsilon0
    }

    /// The query code as the kernels read it.
    #[inline]
    pub(crate) fn code(&self) -> QueryCode<'_> {
        QueryCode {
            planes: &self.planes,
            bytes: &self.bytes,
            sum: self.sum_q,
        }
    }

    pub(crate) fn update_bound_terms(&mut self) {
        self.g_err = self.epsilon0 * self.v_norm;
        self.g_qerr = self.epsilon0 * self.q_sigma;
    }

    /// Bits per query coordinate.
    #[must_use]
    pub fn query_bits(&self) -> u8 {
        self.qbits as u8
    }

    /// The quantisation step Δ of the rotated, centred query (its rounding error is ≤ Δ/2 per
    /// coordinate).
    #[must_use]
    pub fn delta(&self) -> f32 {
        2.0 * self.half_delta
    }

    /// `‖q − c‖` (for cosine, of the unit-normalised query): the distance scale of the bound.
    #[must_use]
    pub fn centred_norm(&self) -> f32 {
        self.v_norm
    }
}

/// Quantises `v` (`64·words` values) to `qbits`-bit unsigned integers, into `bytes` (one per
/// coordinate) and as bit planes (`planes[b·words + w]`); returns `(lo, Δ, Σ qᵢ)`
/// (module docs).
pub(crate) fn quantize_query(
    v: &[f32],
    qbits: usize,
    bytes: &mut [u8],
    planes: &mut [u64],
) -> (f32, f32, u64) {
    let words = v.len() / 64;
    debug_assert_eq!(planes.len(), qbits * words);
    debug_assert_eq!(bytes.len(), v.len());
    let (lo, hi) = v
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), &x| {
            (l.min(x), h.max(x))
        });
    let levels = ((1u32 << qbits) - 1) as f32;
    let delta = (hi - lo) / levels;
    let inv = if delta > 0.0 { 1.0 / delta } else { 0.0 };
    let mut sum = 0u64;
    for (w, (chunk, q)) in v
        .chunks_exact(64)
        .zip(bytes.chunks_exact_mut(64))
        .enumerate()
    {
        for (qj, &x) in q.iter_mut().zip(chunk) {
            // x − lo ≥ 0, so adding ½ and truncating rounds half up
            let level = ((x - lo) * inv + 0.5).min(levels) as u8;
            *qj = level;
            sum += u64::from(level);
        }
        for b in 0..qbits {
            planes[b * words + w] = q
                .iter()
                .enumerate()
                .fold(0u64, |acc, (j, &l)| acc | (u64::from((l >> b) & 1) << j));
        }
    }
    (lo, delta, sum)
}
