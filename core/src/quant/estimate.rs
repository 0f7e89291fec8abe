//! The distance estimator of [`RabitqIndex`] and its error bound: queries prepared once
//! ([`PreparedQuery`]), then one bit-plane kernel call and a few multiply-adds per vector.
//!
//! # Estimation (per query `q`, prepared once: [`PreparedQuery`])
//!
//! `v = q − c` (unit-normalised `q` for cosine), `v' = P·v ≈ lo + Δ·qᵢ` (`query_bits`-bit levels
//! `qᵢ`, [`RabitqParams::default_query_bits`](super::RabitqParams::default_query_bits)), and
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

use super::query::{quantize_query, PreparedQuery};
use super::rabitq::RabitqIndex;
use crate::error::{Error, Result};
use crate::types::Metric;

impl RabitqIndex {
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
    /// `HV_DIM_MISMATCH` if `q.len() != dim`; `HV_INVALID_VECTOR` if `q` holds NaN/±∞.
    pub fn prepare_into(&self, q: &[f32], pq: &mut PreparedQuery) -> Result<()> {
        if q.len() != self.dim {
            return Err(Error::DimMismatch {
                expected: self.dim,
                got: q.len(),
            });
        }
        crate::vector::check_vector(q, self.dim, self.metric, 0)?;
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
            crate::vector::unit_scale(q)
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
        (combine(pq, s, f[0], f[1]), bound_of(pq, f[0], f[1]))
    }

    /// The error bound `b` of [`RabitqIndex::estimate_with_bound`] alone, for a caller that
    /// already holds the estimate (a walk's candidate list): reads only vector `i`'s factors,
    /// computes no inner product.
    ///
    /// # Panics
    /// If `i >= len()`.
    #[inline]
    #[must_use]
    pub fn bound(&self, pq: &PreparedQuery, i: u32) -> f32 {
        let f = &self.record(i as usize)[self.bits * self.words..];
        bound_of(pq, f[0], f[1])
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
}

/// `error·g_err + |rescale|·g_qerr`: the bound of [`RabitqIndex::estimate_with_bound`] from a
/// record's two factor words.
#[inline(always)]
fn bound_of(pq: &PreparedQuery, f0: u64, f1: u64) -> f32 {
    let rescale = f32::from_bits((f0 >> 32) as u32);
    let error = f32::from_bits((f1 >> 32) as u32);
    error * pq.g_err + rescale.abs() * pq.g_qerr
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
