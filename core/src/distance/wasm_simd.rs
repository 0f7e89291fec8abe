//! wasm32 kernels: the 128-bit SIMD proposal (`simd128`), chosen at compile time (WebAssembly has
//! no runtime feature detection: a module using SIMD fails to validate on an engine without it,
//! so the build decides with `-C target-feature=+simd128`).
//!
//! Intrinsic names are those of `core::arch::wasm32`: `v128_load` (unaligned load), `f32x4_mul`,
//! `f32x4_add`, `f32x4_sub`, `f32x4_abs`, `u32x4_extend_low_u16x8` / `u32x4_extend_high_u16x8`
//! and integer operations for the `f16` widening. Baseline SIMD has no fused multiply-add, so a
//! product is a multiply then an add.
//!
//! Layout of every pairwise kernel: 4 independent accumulators of 4 lanes (16 floats per
//! iteration), then 4 floats at a time, then a scalar tail of 0–3 elements. The `_x4` kernels load
//! each 4-float chunk of the row once for all 4 queries (two chunks per iteration, 8 accumulators).
//!
//! `f16` rows are widened with an exact, branch-free integer-bit conversion ([`widen_f16`]).
//!
//! Safety: `simd128` is enabled for the whole compilation whenever this module is compiled (see
//! the `cfg` on its declaration); the only `unsafe` operations are loads through raw pointers,
//! each bounds-justified where it occurs. `v128_load` has no alignment requirement.

use core::arch::wasm32::*;

use half::f16;

use super::{scalar, Kernels};

/// The wasm `simd128` kernel set.
pub(super) static KERNELS: Kernels = Kernels {
    name: "wasm-simd128",
    dot_f32,
    l2sq_f32,
    l1_f32,
    dot_f16,
    l2sq_f16,
    l1_f16,
    widen_f16: widen_f16_slice,
    dot_f32_x4,
    l2sq_f32_x4,
};

// ---------------------------------------------------------------------------------------------
// Building blocks.

/// 4 floats at `p` (any alignment).
///
/// # Safety
///
/// `p` must be valid for reading 4 consecutive `f32`.
#[inline(always)]
unsafe fn load4(p: *const f32) -> v128 {
    // SAFETY: the caller guarantees 16 readable bytes at `p`; `v128_load` accepts any alignment.
    unsafe { v128_load(p.cast()) }
}

/// `acc + x·y` (multiply, then add: baseline SIMD has no FMA).
#[inline(always)]
fn dot_step(acc: v128, x: v128, y: v128) -> v128 {
    f32x4_add(acc, f32x4_mul(x, y))
}

/// `acc + (x − y)²`.
#[inline(always)]
fn l2_step(acc: v128, x: v128, y: v128) -> v128 {
    let d = f32x4_sub(x, y);
    f32x4_add(acc, f32x4_mul(d, d))
}

/// `acc + |x − y|`.
#[inline(always)]
fn l1_step(acc: v128, x: v128, y: v128) -> v128 {
    f32x4_add(acc, f32x4_abs(f32x4_sub(x, y)))
}

/// Scalar `acc + x·y`, for tails.
#[inline(always)]
fn dot_scalar(acc: f32, x: f32, y: f32) -> f32 {
    acc + x * y
}

/// Scalar `acc + (x − y)²`, for tails.
#[inline(always)]
fn l2_scalar(acc: f32, x: f32, y: f32) -> f32 {
    let d = x - y;
    acc + d * d
}

/// Scalar `acc + |x − y|`, for tails.
#[inline(always)]
fn l1_scalar(acc: f32, x: f32, y: f32) -> f32 {
    acc + (x - y).abs()
}

/// Sum of the 4 lanes: `(l0 + l1) + (l2 + l3)`.
#[inline(always)]
fn hsum(v: v128) -> f32 {
    (f32x4_extract_lane::<0>(v) + f32x4_extract_lane::<1>(v))
        + (f32x4_extract_lane::<2>(v) + f32x4_extract_lane::<3>(v))
}

/// Horizontal sum of 4 accumulators: `(s0 + s1) + (s2 + s3)`, then the 4 lanes.
#[inline(always)]
fn hsum4(s0: v128, s1: v128, s2: v128, s3: v128) -> f32 {
    hsum(f32x4_add(f32x4_add(s0, s1), f32x4_add(s2, s3)))
}

/// Widens 4 IEEE binary16 bit patterns (in the low 16 bits of each 32-bit lane) exactly to `f32`.
///
/// The classic exponent-rebias conversion, branch-free: shift exponent and mantissa into place
/// (`<< 13`) and add `(127 − 15) << 23` to the exponent; infinities and NaNs (half exponent 31)
/// get another `(128 − 16) << 23` so their exponent becomes 255 (NaN payloads kept); zeros and
/// subnormals (half exponent 0) are renormalised exactly by building `2⁻¹⁴ · (1 + m/1024)` and
/// subtracting `2⁻¹⁴` in `f32` (no subnormal `f32` operand or result involved, so no slow path on
/// engines whose hardware has one); finally the sign is moved from bit 15 to bit 31. Agrees bit
/// for bit with [`half::f16::to_f32`] on every non-NaN input, and maps NaN to NaN (tested
/// exhaustively).
#[inline(always)]
fn widen_f16(h: v128) -> v128 {
    let o = i32x4_shl(v128_and(h, u32x4_splat(0x7fff)), 13);
    let exp = v128_and(o, u32x4_splat(0x0f80_0000));
    let o = i32x4_add(o, u32x4_splat(0x3800_0000));
    let inf_nan = i32x4_eq(exp, u32x4_splat(0x0f80_0000));
    let o = i32x4_add(o, v128_and(inf_nan, u32x4_splat(0x3800_0000)));
    let zero_sub = i32x4_eq(exp, u32x4_splat(0));
    let renorm = f32x4_sub(
        i32x4_add(o, u32x4_splat(0x0080_0000)),
        f32x4_splat(f32::from_bits(0x3880_0000)),
    );
    let o = v128_bitselect(renorm, o, zero_sub);
    v128_or(o, i32x4_shl(v128_and(h, u32x4_splat(0x8000)), 16))
}

/// 4 halves at `p`, widened exactly to 4 floats.
///
/// # Safety
///
/// `p` must be valid for reading 4 consecutive `f16` (8 bytes, any alignment).
#[inline(always)]
unsafe fn load_f16x4(p: *const f16) -> v128 {
    // SAFETY: the caller guarantees 8 readable bytes at `p`; `f16` is `repr(transparent)` over
    // `u16`; wasm loads accept any alignment.
    widen_f16(unsafe { u32x4_load_extend_u16x4(p.cast()) })
}

/// 8 halves at `p`, widened exactly to two vectors of 4 floats (low half first).
///
/// # Safety
///
/// `p` must be valid for reading 8 consecutive `f16` (16 bytes, any alignment).
#[inline(always)]
unsafe fn load_f16x8(p: *const f16) -> (v128, v128) {
    // SAFETY: the caller guarantees 16 readable bytes at `p`; `f16` is `repr(transparent)` over
    // `u16`; `v128_load` accepts any alignment.
    let h = unsafe { v128_load(p.cast()) };
    (
        widen_f16(u32x4_extend_low_u16x8(h)),
        widen_f16(u32x4_extend_high_u16x8(h)),
    )
}

// ---------------------------------------------------------------------------------------------
// Kernels.

/// `dst[i] = f32(src[i])` over the common prefix: 8 halves per iteration ([`load_f16x8`]), the
/// last 0–7 one at a time by the scalar reference (exact on both paths).
fn widen_f16_slice(src: &[f16], dst: &mut [f32]) {
    debug_assert_eq!(src.len(), dst.len());
    let n = src.len().min(dst.len());
    let (ps, pd) = (src.as_ptr(), dst.as_mut_ptr());
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: i + 8 <= n <= src.len(), dst.len(): 8 halves readable at ps + i and 8 floats
        // (32 bytes) writable at pd + i; wasm loads and stores accept any alignment.
        unsafe {
            let (lo, hi) = load_f16x8(ps.add(i));
            v128_store(pd.add(i).cast(), lo);
            v128_store(pd.add(i + 4).cast(), hi);
        }
        i += 8;
    }
    scalar::widen_f16(&src[i..n], &mut dst[i..n]);
}

/// Defines a pairwise `f32` kernel: `Σ step(aᵢ, bᵢ)` over the common prefix of `a` and `b`.
macro_rules! f32_pair_kernel {
    ($(#[$doc:meta])* $name:ident, $step:ident, $scalar:ident) => {
        $(#[$doc])*
        fn $name(a: &[f32], b: &[f32]) -> f32 {
            debug_assert_eq!(a.len(), b.len());
            let n = a.len().min(b.len());
            let (pa, pb) = (a.as_ptr(), b.as_ptr());
            let z = f32x4_splat(0.0);
            let (mut s0, mut s1, mut s2, mut s3) = (z, z, z, z);
            let mut i = 0;
            while i + 16 <= n {
                // SAFETY: i + 16 <= n <= a.len(), b.len(): the 16 floats at i.. of both slices
                // are in bounds.
                unsafe {
                    s0 = $step(s0, load4(pa.add(i)), load4(pb.add(i)));
                    s1 = $step(s1, load4(pa.add(i + 4)), load4(pb.add(i + 4)));
                    s2 = $step(s2, load4(pa.add(i + 8)), load4(pb.add(i + 8)));
                    s3 = $step(s3, load4(pa.add(i + 12)), load4(pb.add(i + 12)));
                }
                i += 16;
            }
            while i + 4 <= n {
                // SAFETY: i + 4 <= n: the 4 floats at i.. of both slices are in bounds.
                unsafe {
                    s0 = $step(s0, load4(pa.add(i)), load4(pb.add(i)));
                }
                i += 4;
            }
            let mut tail = 0.0f32;
            for (&x, &y) in a[i..n].iter().zip(&b[i..n]) {
                tail = $scalar(tail, x, y);
            }
            hsum4(s0, s1, s2, s3) + tail
        }
    };
}

f32_pair_kernel!(
    /// Σ aᵢ·bᵢ (wasm simd128).
    dot_f32,
    dot_step,
    dot_scalar
);
f32_pair_kernel!(
    /// Σ (aᵢ − bᵢ)² (wasm simd128).
    l2sq_f32,
    l2_step,
    l2_scalar
);
f32_pair_kernel!(
    /// Σ |aᵢ − bᵢ| (wasm simd128).
    l1_f32,
    l1_step,
    l1_scalar
);

/// Defines a pairwise kernel of an `f32` query and an `f16` row: `Σ step(qᵢ, f32(rᵢ))`.
macro_rules! f16_pair_kernel {
    ($(#[$doc:meta])* $name:ident, $step:ident, $scalar:ident) => {
        $(#[$doc])*
        fn $name(q: &[f32], row: &[f16]) -> f32 {
            debug_assert_eq!(q.len(), row.len());
            let n = q.len().min(row.len());
            let (pq, pr) = (q.as_ptr(), row.as_ptr());
            let z = f32x4_splat(0.0);
            let (mut s0, mut s1, mut s2, mut s3) = (z, z, z, z);
            let mut i = 0;
            while i + 16 <= n {
                // SAFETY: i + 16 <= n <= q.len(), row.len(): the 16 elements at i.. of both
                // slices are in bounds.
                unsafe {
                    let (r0, r1) = load_f16x8(pr.add(i));
                    let (r2, r3) = load_f16x8(pr.add(i + 8));
                    s0 = $step(s0, load4(pq.add(i)), r0);
                    s1 = $step(s1, load4(pq.add(i + 4)), r1);
                    s2 = $step(s2, load4(pq.add(i + 8)), r2);
                    s3 = $step(s3, load4(pq.add(i + 12)), r3);
                }
                i += 16;
            }
            while i + 4 <= n {
                // SAFETY: i + 4 <= n: the 4 elements at i.. of both slices are in bounds.
                unsafe {
                    s0 = $step(s0, load4(pq.add(i)), load_f16x4(pr.add(i)));
                }
                i += 4;
            }
            let mut tail = 0.0f32;
            for (&x, y) in q[i..n].iter().zip(&row[i..n]) {
                tail = $scalar(tail, x, y.to_f32());
            }
            hsum4(s0, s1, s2, s3) + tail
        }
    };
}

f16_pair_kernel!(
    /// Σ qᵢ·rᵢ with an `f16` row (wasm simd128).
    dot_f16,
    dot_step,
    dot_scalar
);
f16_pair_kernel!(
    /// Σ (qᵢ − rᵢ)² with an `f16` row (wasm simd128).
    l2sq_f16,
    l2_step,
    l2_scalar
);
f16_pair_kernel!(
    /// Σ |qᵢ − rᵢ| with an `f16` row (wasm simd128).
    l1_f16,
    l1_step,
    l1_scalar
);

/// Defines a kernel of 4 `f32` queries against one `f32` row: `[Σ step(q[k]ᵢ, rᵢ)]` for k in 0..4.
/// Each 4-float chunk of the row is loaded once; 2 chunks per iteration, one accumulator per
/// (query, chunk).
macro_rules! f32_x4_kernel {
    ($(#[$doc:meta])* $name:ident, $step:ident, $scalar:ident) => {
        $(#[$doc])*
        fn $name(q: &[&[f32]; 4], row: &[f32]) -> [f32; 4] {
            debug_assert!(q.iter().all(|x| x.len() == row.len()));
            let n = q.iter().fold(row.len(), |n, x| n.min(x.len()));
            let pr = row.as_ptr();
            let [p0, p1, p2, p3] = [q[0].as_ptr(), q[1].as_ptr(), q[2].as_ptr(), q[3].as_ptr()];
            let z = f32x4_splat(0.0);
            let (mut a0, mut a1, mut a2, mut a3) = (z, z, z, z);
            let (mut b0, mut b1, mut b2, mut b3) = (z, z, z, z);
            let mut i = 0;
            while i + 8 <= n {
                // SAFETY: i + 8 <= n <= the length of the row and of every query: the 8 floats
                // at i.. of each of the 5 slices are in bounds.
                unsafe {
                    let r0 = load4(pr.add(i));
                    let r1 = load4(pr.add(i + 4));
                    a0 = $step(a0, load4(p0.add(i)), r0);
                    a1 = $step(a1, load4(p1.add(i)), r0);
                    a2 = $step(a2, load4(p2.add(i)), r0);
                    a3 = $step(a3, load4(p3.add(i)), r0);
                    b0 = $step(b0, load4(p0.add(i + 4)), r1);
                    b1 = $step(b1, load4(p1.add(i + 4)), r1);
                    b2 = $step(b2, load4(p2.add(i + 4)), r1);
                    b3 = $step(b3, load4(p3.add(i + 4)), r1);
                }
                i += 8;
            }
            if i + 4 <= n {
                // SAFETY: i + 4 <= n: the 4 floats at i.. of each of the 5 slices are in bounds.
                unsafe {
                    let r = load4(pr.add(i));
                    a0 = $step(a0, load4(p0.add(i)), r);
                    a1 = $step(a1, load4(p1.add(i)), r);
                    a2 = $step(a2, load4(p2.add(i)), r);
                    a3 = $step(a3, load4(p3.add(i)), r);
                }
                i += 4;
            }
            let mut tail = [0.0f32; 4];
            for (j, &r) in row[i..n].iter().enumerate() {
                for (t, qk) in tail.iter_mut().zip(q) {
                    *t = $scalar(*t, qk[i + j], r);
                }
            }
            [
                hsum(f32x4_add(a0, b0)) + tail[0],
                hsum(f32x4_add(a1, b1)) + tail[1],
                hsum(f32x4_add(a2, b2)) + tail[2],
                hsum(f32x4_add(a3, b3)) + tail[3],
            ]
        }
    };
}

f32_x4_kernel!(
    /// `[Σ q[k]ᵢ·rᵢ]` for 4 queries (wasm simd128).
    dot_f32_x4,
    dot_step,
    dot_scalar
);
f32_x4_kernel!(
    /// `[Σ (q[k]ᵢ − rᵢ)²]` for 4 queries (wasm simd128).
    l2sq_f32_x4,
    l2_step,
    l2_scalar
);

#[cfg(test)]
mod widen_tests {
    use super::*;

    /// The integer-bit widening agrees with `half` on all 65 536 bit patterns.
    #[test]
    fn widen_f16_is_exact_for_every_bit_pattern() {
        let all: Vec<f16> = (0..=u16::MAX).map(f16::from_bits).collect();
        for chunk in all.chunks_exact(8) {
            // SAFETY: `chunk` holds exactly 8 halves.
            let (lo, hi) = unsafe { load_f16x8(chunk.as_ptr()) };
            let got = [
                f32x4_extract_lane::<0>(lo),
                f32x4_extract_lane::<1>(lo),
                f32x4_extract_lane::<2>(lo),
                f32x4_extract_lane::<3>(lo),
                f32x4_extract_lane::<0>(hi),
                f32x4_extract_lane::<1>(hi),
                f32x4_extract_lane::<2>(hi),
                f32x4_extract_lane::<3>(hi),
            ];
            for (h, g) in chunk.iter().zip(got) {
                let want = h.to_f32();
                if want.is_nan() {
                    assert!(g.is_nan(), "{:#06x}: got {g}", h.to_bits());
                } else {
                    assert_eq!(g.to_bits(), want.to_bits(), "{:#06x}", h.to_bits());
                }
            }
        }
    }
}
