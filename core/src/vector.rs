//! Vector maths shared across layers: the `f64` norm, the centroid, and the one check of a
//! vector's values used by every layer that accepts vectors (collection writes and queries,
//! restores, segments, RaBitQ encoding), so all of them reject the same inputs with the same error.

use crate::error::{Error, Result};
use crate::types::Metric;

/// Smallest norm for which the cosine paths use the `f32` formula with a stored 1/‖x‖. Below it
/// (zero vectors included) the vector check returns an inverse norm of 0, which sends every
/// distance of the row to the exact `f64` path ([`crate::distance::cosine_f64`]): the true cosine
/// for a tiny vector, and distance 1 (similarity 0) to every query for a zero vector, which has
/// no direction (hnswlib's convention).
pub const MIN_COSINE_NORM: f64 = 1e-30;

/// Euclidean norm `‖x‖` computed in `f64` (no overflow or underflow for any finite `f32` input).
pub(crate) fn norm_f64(v: &[f32]) -> f64 {
    v.iter()
        .map(|&x| f64::from(x) * f64::from(x))
        .sum::<f64>()
        .sqrt()
}

/// `1/‖x‖` in `f64`, or 0 for a zero vector (it stays zero when "normalised").
pub(crate) fn unit_scale(v: &[f32]) -> f64 {
    let n = norm_f64(v);
    if n > 0.0 {
        1.0 / n
    } else {
        0.0
    }
}

/// Mean of the `n × dim` row-major rows of `data` (each unit-normalised first under cosine),
/// summed in `f64` in row order, so the result does not depend on threading; zeros if there are
/// no rows. The RaBitQ centroid (Gao & Long, SIGMOD 2024, §3.1).
pub(crate) fn centroid(data: &[f32], dim: usize, metric: Metric) -> Vec<f32> {
    let mut sum = vec![0.0f64; dim];
    let mut n = 0usize;
    for row in data.chunks_exact(dim) {
        let inv = if metric == Metric::Cosine {
            unit_scale(row)
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

/// Checks one vector: length `dim`, every component finite. `index` is the vector's position in
/// its batch, named in the error.
///
/// Returns `1/‖x‖` (computed in `f64`) under cosine, 0 when the norm is below
/// [`MIN_COSINE_NORM`] (zero vectors included: they are accepted, at distance 1 from every
/// query), `1` otherwise.
///
/// Errors: `HV_DIM_MISMATCH` (wrong length), `HV_INVALID_VECTOR` (NaN, ±∞).
pub(crate) fn check_vector(v: &[f32], dim: usize, metric: Metric, index: usize) -> Result<f32> {
    if v.len() != dim {
        return Err(Error::DimMismatch {
            expected: dim,
            got: v.len(),
        });
    }
    if let Some(pos) = v.iter().position(|x| !x.is_finite()) {
        return Err(Error::InvalidVector {
            index,
            reason: format!("component {pos} is {}", v[pos]),
        });
    }
    if metric == Metric::Cosine {
        let norm = norm_f64(v);
        if norm < MIN_COSINE_NORM {
            return Ok(0.0);
        }
        return Ok((1.0 / norm) as f32);
    }
    Ok(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn table() {
        let cases: &[(&[f32], Metric, Option<ErrorCode>)] = &[
            (&[3.0, 4.0], Metric::L2, None),
            (&[3.0, 4.0], Metric::Cosine, None),
            (&[0.0, 0.0], Metric::L2, None),
            (&[0.0, 0.0], Metric::Cosine, None),
            (&[1e-38, 0.0], Metric::Cosine, None),
            (&[f32::NAN, 0.0], Metric::L2, Some(ErrorCode::InvalidVector)),
            (
                &[f32::INFINITY, 0.0],
                Metric::InnerProduct,
                Some(ErrorCode::InvalidVector),
            ),
            (&[1.0], Metric::L2, Some(ErrorCode::DimMismatch)),
        ];
        for (v, metric, want) in cases {
            let got = check_vector(v, 2, *metric, 0).err().map(|e| e.code());
            assert_eq!(got, *want, "{v:?} under {metric:?}");
        }
        assert_eq!(
            check_vector(&[3.0, 4.0], 2, Metric::Cosine, 0).unwrap(),
            0.2
        );
        // below MIN_COSINE_NORM: 0, so distances take the exact f64 path
        assert_eq!(
            check_vector(&[0.0, 0.0], 2, Metric::Cosine, 0).unwrap(),
            0.0
        );
        assert_eq!(
            check_vector(&[1e-38, 0.0], 2, Metric::Cosine, 0).unwrap(),
            0.0
        );
    }
}
