//! The codes: sign plane, reconstruction, determinism; input checks; query buffer reuse.

use super::*;

/// Plane 0 of every code is the sign of the rotated residual, whatever the width.
#[test]
fn first_plane_is_sign_code() {
    let dim = 100;
    let data = clustered(50, dim, 5);
    for bits in [1u8, 2, 4, 8] {
        let index =
            RabitqIndex::encode_all(&data, dim, Metric::L2, RabitqParams::new(bits)).unwrap();
        let p = index.padded_dim();
        let mut rot = vec![0.0; p];
        for (i, x) in data.chunks_exact(dim).enumerate() {
            let r: Vec<f32> = x
                .iter()
                .zip(index.centroid())
                .map(|(&v, &c)| v - c)
                .collect();
            index.rotation().apply(&r, &mut rot);
            let code = index.code(i as u32);
            assert_eq!(code.len(), usize::from(bits) * p / 64);
            for (j, &v) in rot.iter().enumerate() {
                let bit = (code[j / 64] >> (j % 64)) & 1;
                // values within rounding of 0 may legitimately land on either side
                if v.abs() > 1e-5 {
                    assert_eq!(bit == 1, v >= 0.0, "bits {bits} vector {i} coordinate {j}");
                }
            }
        }
        // the 1-bit index's codes are exactly the first planes of the wider ones
        let one = RabitqIndex::encode_all(&data, dim, Metric::L2, RabitqParams::new(1)).unwrap();
        for i in 0..50u32 {
            assert_eq!(one.code(i), &index.code(i)[..p / 64]);
        }
    }
}

/// The reconstruction `x̂ = c + Pᵀ(⟨ȳ, r'⟩/‖ȳ‖² · ȳ)` (the projection of the residual on its code)
/// gets closer to `x` as bits grow.
#[test]
fn reconstruction_error_decreases_with_bits() {
    let dim = 300;
    let data = clustered(100, dim, 6);
    let mut prev = f64::INFINITY;
    for bits in 1..=8u8 {
        let index =
            RabitqIndex::encode_all(&data, dim, Metric::L2, RabitqParams::new(bits)).unwrap();
        let parts = index.parts();
        let mut s = EncodeScratch::default();
        let mut total = 0.0f64;
        for x in data.chunks_exact(dim) {
            let (stats, _, _) = parts.residual_code(x, &mut s);
            // the popcount formula for ‖ȳ‖ matches the quantizer's statistics
            let mut planes = vec![0u64; usize::from(bits) * index.padded_dim() / 64];
            pack_planes(&s.codes, usize::from(bits), &mut planes);
            let ny = code_norm_y(&planes, usize::from(bits), index.padded_dim() / 64);
            assert!(
                (f64::from(ny) - stats.norm_y_sq.sqrt()).abs() <= 1e-5 * stats.norm_y_sq.sqrt()
            );
            let c = f64::from((1u32 << bits) - 1) / 2.0;
            let scale = stats.ip_yr / stats.norm_y_sq;
            let mut y: Vec<f32> = s
                .codes
                .iter()
                .map(|&u| ((f64::from(u) - c) * scale) as f32)
                .collect();
            index.rotation().apply_inverse(&mut y);
            total += x
                .iter()
                .zip(index.centroid())
                .zip(&y)
                .map(|((&v, &c), &r)| (f64::from(v) - f64::from(c) - f64::from(r)).powi(2))
                .sum::<f64>();
        }
        eprintln!("bits {bits}: reconstruction mse {:.6}", total / 100.0);
        assert!(total < prev * 0.9, "bits {bits}: {total} vs {prev}");
        prev = total;
    }
}

/// Same seed ⇒ identical records; another seed ⇒ other codes. `encode_all` (parallel with the
/// feature) equals pushing the rows one at a time (always sequential) under the same centroid,
/// and `from_parts` restores an identical index.
#[test]
fn deterministic_and_parallel_equals_sequential() {
    let dim = 130;
    let data = clustered(300, dim, 7);
    for metric in [Metric::L2, Metric::Cosine, Metric::InnerProduct] {
        for bits in [1u8, 4, 7] {
            let params = RabitqParams::new(bits);
            let a = RabitqIndex::encode_all(&data, dim, metric, params).unwrap();
            let b = RabitqIndex::encode_all(&data, dim, metric, params).unwrap();
            assert_eq!(a.records(), b.records());
            let mut c =
                RabitqIndex::with_centroid(dim, metric, params, a.centroid().to_vec()).unwrap();
            for (i, x) in data.chunks_exact(dim).enumerate() {
                assert_eq!(c.push(x).unwrap(), i as u32);
            }
            assert_eq!(a.records(), c.records());
            let d = RabitqIndex::encode_all(&data, dim, metric, params.with_seed(99)).unwrap();
            assert_ne!(a.records(), d.records());
            let e =
                RabitqIndex::from_parts(dim, metric, params, a.centroid().to_vec(), a.records())
                    .unwrap();
            assert_eq!(e.len(), a.len());
            let pq = a.prepare(&data[..dim]).unwrap();
            for i in [0u32, 5, 299] {
                assert_eq!(a.estimate(&pq, i).to_bits(), e.estimate(&pq, i).to_bits());
                assert_eq!(a.estimate_with_bound(&pq, i), e.estimate_with_bound(&pq, i));
                assert_eq!(a.estimate_with_bound(&pq, i), c.estimate_with_bound(&pq, i));
                assert_eq!(a.factors(i), e.factors(i));
            }
        }
    }
}

#[test]
fn rejects_bad_input() {
    let data = vec![1.0f32; 8];
    let code = |r: Result<RabitqIndex>| r.unwrap_err().code().as_str();
    assert_eq!(
        code(RabitqIndex::encode_all(
            &data,
            4,
            Metric::L1,
            RabitqParams::new(1)
        )),
        "HV_INVALID_ARGUMENT"
    );
    assert_eq!(
        code(RabitqIndex::encode_all(
            &data,
            3,
            Metric::L2,
            RabitqParams::new(1)
        )),
        "HV_DIM_MISMATCH"
    );
    assert_eq!(
        code(RabitqIndex::encode_all(
            &data,
            0,
            Metric::L2,
            RabitqParams::new(1)
        )),
        "HV_INVALID_ARGUMENT"
    );
    assert_eq!(
        code(RabitqIndex::encode_all(
            &data,
            4,
            Metric::L2,
            RabitqParams::new(0)
        )),
        "HV_INVALID_ARGUMENT"
    );
    assert_eq!(
        code(RabitqIndex::encode_all(
            &data,
            4,
            Metric::L2,
            RabitqParams::new(9)
        )),
        "HV_INVALID_ARGUMENT"
    );
    let bad_q = RabitqParams::new(2).with_query_bits(9);
    assert_eq!(
        code(RabitqIndex::encode_all(&data, 4, Metric::L2, bad_q)),
        "HV_INVALID_ARGUMENT"
    );
    // a zero row under cosine has no direction: accepted (distance 1 from every query)
    let mut zeros = data.clone();
    zeros[4..].fill(0.0);
    let z = RabitqIndex::encode_all(&zeros, 4, Metric::Cosine, RabitqParams::new(1)).unwrap();
    assert!(z.centroid().iter().all(|c| c.is_finite()));
    let mut nan = data.clone();
    nan[5] = f32::NAN;
    assert_eq!(
        code(RabitqIndex::encode_all(
            &nan,
            4,
            Metric::L2,
            RabitqParams::new(1)
        )),
        "HV_INVALID_VECTOR"
    );
    let mut index =
        RabitqIndex::encode_all(&data, 4, Metric::Cosine, RabitqParams::new(1)).unwrap();
    assert_eq!(
        index.push(&[1.0; 3]).unwrap_err().code().as_str(),
        "HV_DIM_MISMATCH"
    );
    // a zero vector has no direction under cosine: accepted, encoded without NaN
    index.push(&[0.0; 4]).unwrap();
    index.prepare(&[0.0; 4]).unwrap();
    assert_eq!(
        index.push(&[f32::NAN; 4]).unwrap_err().code().as_str(),
        "HV_INVALID_VECTOR"
    );
    assert_eq!(
        index.prepare(&[1.0; 5]).unwrap_err().code().as_str(),
        "HV_DIM_MISMATCH"
    );
    assert!(
        RabitqIndex::from_parts(4, Metric::L2, RabitqParams::new(1), vec![0.0; 4], &[0; 5])
            .is_err()
    );
    // empty index
    let empty = RabitqIndex::encode_all(&[], 4, Metric::L2, RabitqParams::new(3)).unwrap();
    assert!(empty.is_empty());
    assert_eq!(empty.bytes_per_vector(), 8 * (3 + 2));
}

/// `prepare_into` reuses the buffers of a query of the same shape.
#[test]
fn prepare_into_reuses_buffers() {
    let dim = 384;
    let data = clustered(10, dim, 10);
    let index = RabitqIndex::encode_all(&data, dim, Metric::Cosine, RabitqParams::new(1)).unwrap();
    assert_eq!(index.bytes_per_vector(), 64);
    let mut pq = index.new_query();
    let ptrs = (pq.rotated.as_ptr(), pq.planes.as_ptr(), pq.centred.as_ptr());
    for q in data.chunks_exact(dim) {
        index.prepare_into(q, &mut pq).unwrap();
        assert_eq!(
            ptrs,
            (pq.rotated.as_ptr(), pq.planes.as_ptr(), pq.centred.as_ptr())
        );
    }
    // records start on a cache line
    assert_eq!(index.records().as_ptr() as usize % 64, 0);
}
