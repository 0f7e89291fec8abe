//! Every kernel of every available set against the scalar specification.
//!
//! * A deterministic sweep (ChaCha8, fixed seed) over every dimension 0..=1100, with slices
//!   starting at offsets 0..=3 of larger buffers (so mostly unaligned), values in [-10, 10].
//! * The same at a few large and tiny magnitudes (including `f16` subnormals).
//! * `proptest` over random dimensions, offsets and values.
//! * Exactness of the `f16` widening inside the kernels (every finite bit pattern), propagation
//!   of infinities and NaNs, empty slices, and the choice of the set (`pick`, `forces_scalar`).
//!
//! Tolerance: SIMD kernels sum in another order (and with FMA), so a result may differ from the
//! scalar one by rounding: `|got − want| ≤ 1e-4 · (Σ|termᵢ| + 1)`, the sum of absolute terms
//! computed in `f64`. The scalar results are themselves checked against an `f64` evaluation with
//! the same bound.

use std::fmt::Display;

use half::f16;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

mod sets;

/// Largest dimension of the sweeps.
const MAX_DIM: usize = 1100;

/// Relative tolerance, applied to `Σ|termᵢ| + 1`.
const REL_TOL: f64 = 1e-4;

/// Whether `got` matches `want` up to reordering error, given the `f64` sum of absolute terms.
fn close(got: f32, want: f32, abs_terms: f64) -> bool {
    if want.is_nan() {
        return got.is_nan();
    }
    if want.is_infinite() {
        return got == want;
    }
    got.is_finite() && (f64::from(got) - f64::from(want)).abs() <= REL_TOL * (abs_terms + 1.0)
}

/// `f64` reference values `(value, Σ|termᵢ|)` of dot, l2sq and l1 for `a` against `b`.
fn exact(a: &[f32], b: &[f32]) -> [(f64, f64); 3] {
    let (mut dot, mut dot_abs, mut l2, mut l1) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for (&x, &y) in a.iter().zip(b) {
        let (x, y) = (f64::from(x), f64::from(y));
        dot += x * y;
        dot_abs += (x * y).abs();
        l2 += (x - y) * (x - y);
        l1 += (x - y).abs();
    }
    [(dot, dot_abs), (l2, l2), (l1, l1)]
}

/// One test case: `a`, `b` (f32 pair), `h` (an f16 row for query `a`), `q` (4 queries for row `b`),
/// all of the same length.
struct Case<'a> {
    a: &'a [f32],
    b: &'a [f32],
    h: &'a [f16],
    q: [&'a [f32]; 4],
}

/// Checks every kernel of every available set on `case` against the scalar set (and the scalar
/// set against `f64`); `ctx` describes the case in failure messages.
fn check_case(case: &Case<'_>, ctx: &dyn Display) {
    let Case { a, b, h, q } = *case;
    let n = a.len();
    assert!(b.len() == n && h.len() == n && q.iter().all(|x| x.len() == n));
    let s = scalar_kernels();
    let hw: Vec<f32> = h.iter().map(|x| x.to_f32()).collect();

    let ex_f32 = exact(a, b);
    let ex_f16 = exact(a, &hw);
    let ex_x4: Vec<[(f64, f64); 3]> = q.iter().map(|qk| exact(qk, b)).collect();

    let want_f32 = [(s.dot_f32)(a, b), (s.l2sq_f32)(a, b), (s.l1_f32)(a, b)];
    let want_f16 = [(s.dot_f16)(a, h), (s.l2sq_f16)(a, h), (s.l1_f16)(a, h)];
    let want_x4 = [(s.dot_f32_x4)(&q, b), (s.l2sq_f32_x4)(&q, b)];

    // The specification itself is accurate.
    for (k, name) in ["dot", "l2sq", "l1"].iter().enumerate() {
        for (want, (value, abs)) in [(want_f32[k], ex_f32[k]), (want_f16[k], ex_f16[k])] {
            assert!(
                close(want, value as f32, abs),
                "scalar {name} = {want}, f64 says {value}; {ctx}"
            );
        }
    }

    for set in available_kernels() {
        let got_f32 = [
            (set.dot_f32)(a, b),
            (set.l2sq_f32)(a, b),
            (set.l1_f32)(a, b),
        ];
        let got_f16 = [
            (set.dot_f16)(a, h),
            (set.l2sq_f16)(a, h),
            (set.l1_f16)(a, h),
        ];
        for (k, name) in ["dot", "l2sq", "l1"].iter().enumerate() {
            assert!(
                close(got_f32[k], want_f32[k], ex_f32[k].1),
                "{} {name}_f32 = {}, scalar = {}; {ctx}",
                set.name,
                got_f32[k],
                want_f32[k]
            );
            assert!(
                close(got_f16[k], want_f16[k], ex_f16[k].1),
                "{} {name}_f16 = {}, scalar = {}; {ctx}",
                set.name,
                got_f16[k],
                want_f16[k]
            );
        }
        let got_x4 = [(set.dot_f32_x4)(&q, b), (set.l2sq_f32_x4)(&q, b)];
        for (m, name) in ["dot_f32_x4", "l2sq_f32_x4"].iter().enumerate() {
            for k in 0..4 {
                // The x4 kernels must agree with the pairwise scalar kernels too.
                let pair = if m == 0 {
                    (s.dot_f32)(q[k], b)
                } else {
                    (s.l2sq_f32)(q[k], b)
                };
                assert_eq!(
                    pair.to_bits(),
                    want_x4[m][k].to_bits(),
                    "scalar {name}[{k}]; {ctx}"
                );
                assert!(
                    close(got_x4[m][k], want_x4[m][k], ex_x4[k][m].1),
                    "{} {name}[{k}] = {}, scalar = {}; {ctx}",
                    set.name,
                    got_x4[m][k],
                    want_x4[m][k]
                );
            }
        }
    }
}

/// Buffers for one case: each vector lives in a buffer 3 longer than the dimension and is used
/// from a random offset 0..=3 (so most slices are not 16- or 32-byte aligned).
struct Buffers {
    n: usize,
    a: (Vec<f32>, usize),
    b: (Vec<f32>, usize),
    h: (Vec<f16>, usize),
    q: [(Vec<f32>, usize); 4],
}

impl Buffers {
    /// Random values: `f32` vectors uniform in `[-10, 10] · scale`, the `f16` row uniform in
    /// `[-10, 10] · min(scale, 6000)` (so it stays finite in half precision).
    fn random(rng: &mut ChaCha8Rng, n: usize, scale: f32) -> Self {
        let f32s = |rng: &mut ChaCha8Rng| {
            let v: Vec<f32> = (0..n + 3)
                .map(|_| rng.random_range(-10.0f32..=10.0) * scale)
                .collect();
            (v, rng.random_range(0..=3usize))
        };
        let a = f32s(rng);
        let b = f32s(rng);
        let q = [f32s(rng), f32s(rng), f32s(rng), f32s(rng)];
        let hs = scale.min(6000.0);
        let h: Vec<f16> = (0..n + 3)
            .map(|_| f16::from_f32(rng.random_range(-10.0f32..=10.0) * hs))
            .collect();
        let h = (h, rng.random_range(0..=3usize));
        Buffers { n, a, b, h, q }
    }

    fn case(&self) -> Case<'_> {
        fn s((v, o): &(Vec<f32>, usize), n: usize) -> &[f32] {
            &v[*o..*o + n]
        }
        let n = self.n;
        Case {
            a: s(&self.a, n),
            b: s(&self.b, n),
            h: &self.h.0[self.h.1..self.h.1 + n],
            q: [
                s(&self.q[0], n),
                s(&self.q[1], n),
                s(&self.q[2], n),
                s(&self.q[3], n),
            ],
        }
    }
}

/// Every dimension 0..=1100, values in [-10, 10], random offsets.
#[test]
fn every_dimension_matches_scalar() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x686f_726f_7376_6563);
    for n in 0..=MAX_DIM {
        let bufs = Buffers::random(&mut rng, n, 1.0);
        check_case(&bufs.case(), &format_args!("dim {n}, seeded sweep"));
    }
}

/// Large and tiny magnitudes (tiny `f16` rows are subnormal in half precision).
#[test]
fn extreme_magnitudes_match_scalar() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let dims = [
        1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 100, 384, 768, 1024, 1099, 1100,
    ];
    for scale in [1e15f32, 1e6, 1e-3, 1e-6] {
        for &n in &dims {
            let bufs = Buffers::random(&mut rng, n, scale);
            check_case(&bufs.case(), &format_args!("dim {n}, scale {scale}"));
        }
    }
}

/// All kernels accept empty slices and return 0.
#[test]
fn empty_slices_give_zero() {
    let e: &[f32] = &[];
    let h: &[f16] = &[];
    for set in available_kernels() {
        let all = [
            (set.dot_f32)(e, e),
            (set.l2sq_f32)(e, e),
            (set.l1_f32)(e, e),
            (set.dot_f16)(e, h),
            (set.l2sq_f16)(e, h),
            (set.l1_f16)(e, h),
        ];
        assert_eq!(all, [0.0; 6], "{}", set.name);
        assert_eq!((set.dot_f32_x4)(&[e; 4], e), [0.0; 4], "{}", set.name);
        assert_eq!((set.l2sq_f32_x4)(&[e; 4], e), [0.0; 4], "{}", set.name);
    }
}

/// Every finite `f16` bit pattern is widened exactly by every `f16` kernel: a query equal to the
/// exactly widened row is at distance exactly 0, and a one-hot query picks out the exact value.
#[test]
fn f16_widening_is_exact_in_every_kernel() {
    let finite: Vec<f16> = (0..=u16::MAX)
        .map(f16::from_bits)
        .filter(|h| h.is_finite())
        .collect();
    let widened: Vec<f32> = finite.iter().map(|h| h.to_f32()).collect();
    for set in available_kernels() {
        // Rows of several lengths (every lane position, main loop and tail) and offsets.
        for len in [1, 7, 29, 64, 1021] {
            for (start, end) in (0..finite.len())
                .step_by(len)
                .map(|s| (s, (s + len).min(finite.len())))
            {
                let (row, q) = (&finite[start..end], &widened[start..end]);
                assert_eq!(
                    (set.l1_f16)(q, row),
                    0.0,
                    "{} l1_f16, patterns {start}..{end}",
                    set.name
                );
                assert_eq!(
                    (set.l2sq_f16)(q, row),
                    0.0,
                    "{} l2sq_f16, patterns {start}..{end}",
                    set.name
                );
            }
        }
        // One-hot queries: dot = the widened element itself, bit for bit up to the sign of 0.
        let mut rng = ChaCha8Rng::seed_from_u64(16);
        for n in 1..=40 {
            let row: Vec<f16> = (0..n)
                .map(|_| finite[rng.random_range(0..finite.len())])
                .collect();
            for i in 0..n {
                let mut q = vec![0.0f32; n];
                q[i] = 1.0;
                let got = (set.dot_f16)(&q, &row);
                assert_eq!(
                    got,
                    row[i].to_f32(),
                    "{} dot_f16 one-hot, dim {n}, index {i}",
                    set.name
                );
            }
        }
    }
}

/// `widen_f16` agrees bit for bit with the scalar widening on every `f16` bit pattern but NaN
/// (NaN stays NaN), in every set, at every length (main loop and tail) and offset.
#[test]
fn widen_f16_is_exact_in_every_set() {
    let all: Vec<f16> = (0..=u16::MAX).map(f16::from_bits).collect();
    for set in available_kernels() {
        for len in [0, 1, 3, 7, 8, 9, 29, 64, 1021, all.len()] {
            for start in [0, 1, 5] {
                for chunk in
                    all[start..]
                        .chunks(len.max(1))
                        .take(if len == 0 { 1 } else { usize::MAX })
                {
                    let src = &chunk[..len.min(chunk.len())];
                    let mut dst = vec![-7.0f32; src.len()];
                    (set.widen_f16)(src, &mut dst);
                    for (h, got) in src.iter().zip(&dst) {
                        let want = h.to_f32();
                        assert!(
                            got.to_bits() == want.to_bits() || (want.is_nan() && got.is_nan()),
                            "{} widen_f16 of {:#06x}: {got} (want {want})",
                            set.name,
                            h.to_bits()
                        );
                    }
                }
            }
        }
    }
}

/// An infinity or a NaN anywhere in the inputs gives the IEEE result in every set.
#[test]
fn non_finite_values_propagate() {
    for set in available_kernels() {
        for n in [1usize, 5, 8, 37, 100] {
            for pos in [0, n / 2, n - 1] {
                let ones = vec![1.0f32; n];
                let mut bad = ones.clone();
                let mut bad_h = vec![f16::ONE; n];

                bad[pos] = f32::INFINITY;
                bad_h[pos] = f16::INFINITY;
                let ctx = format!("{} dim {n} pos {pos}", set.name);
                assert_eq!((set.l2sq_f32)(&ones, &bad), f32::INFINITY, "{ctx}");
                assert_eq!((set.l1_f32)(&ones, &bad), f32::INFINITY, "{ctx}");
                assert_eq!((set.dot_f32)(&ones, &bad), f32::INFINITY, "{ctx}");
                assert_eq!((set.l2sq_f16)(&ones, &bad_h), f32::INFINITY, "{ctx}");
                assert_eq!((set.l1_f16)(&ones, &bad_h), f32::INFINITY, "{ctx}");
                assert_eq!((set.dot_f16)(&ones, &bad_h), f32::INFINITY, "{ctx}");
                let q = [&ones[..], &ones[..], &bad[..], &ones[..]];
                let x4 = (set.l2sq_f32_x4)(&q, &ones);
                assert_eq!(x4, [0.0, 0.0, f32::INFINITY, 0.0], "{ctx}");

                bad[pos] = f32::NAN;
                bad_h[pos] = f16::NAN;
                assert!((set.l2sq_f32)(&ones, &bad).is_nan(), "{ctx}");
                assert!((set.l1_f32)(&ones, &bad).is_nan(), "{ctx}");
                assert!((set.dot_f32)(&ones, &bad).is_nan(), "{ctx}");
                assert!((set.l2sq_f16)(&ones, &bad_h).is_nan(), "{ctx}");
                assert!((set.l1_f16)(&ones, &bad_h).is_nan(), "{ctx}");
                assert!((set.dot_f16)(&ones, &bad_h).is_nan(), "{ctx}");
                let q = [&bad[..], &ones[..], &ones[..], &ones[..]];
                let x4 = (set.dot_f32_x4)(&q, &ones);
                assert!(x4[0].is_nan() && x4[1..] == [n as f32; 3], "{ctx}: {x4:?}");
            }
        }
    }
}

/// Random dimension, offsets, scale and values: dimension and offsets from proptest, vector values
/// from proptest for `a` and `b`, the rest from a proptest-chosen seed.
fn random_case() -> impl Strategy<Value = (Vec<f32>, Vec<f32>, usize, usize, u64, f32)> {
    (0usize..=MAX_DIM).prop_flat_map(|n| {
        (
            prop::collection::vec(-10.0f32..=10.0, n + 3),
            prop::collection::vec(-10.0f32..=10.0, n + 3),
            0usize..=3,
            0usize..=3,
            any::<u64>(),
            prop::sample::select(vec![1.0f32, 1.0, 1.0, 1e-6, 1e-2, 1e4, 1e15]),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 96,
        // Never write regression files into the source tree.
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Random cases against the scalar specification.
    #[test]
    fn random_cases_match_scalar((va, vb, oa, ob, seed, scale) in random_case()) {
        let n = va.len() - 3;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut bufs = Buffers::random(&mut rng, n, scale);
        bufs.a = (va.iter().map(|x| x * scale).collect(), oa);
        bufs.b = (vb.iter().map(|x| x * scale).collect(), ob);
        let ctx = format!("dim {n}, offsets {oa}/{ob}, scale {scale}, seed {seed}");
        check_case(&bufs.case(), &ctx);
    }
}
