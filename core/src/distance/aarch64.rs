//! aarch64 kernels: NEON (Advanced SIMD), part of the base aarch64 instruction set, so this set
//! is chosen at compile time (`target_feature = "neon"`, on by default on every aarch64 target
//! Rust ships) with no runtime detection.
//!
//! Intrinsic names are Arm's (ACLE, `core::arch::aarch64`): `vld1q_f32` (unaligned load),
//! `vfmaq_f32` (fused multiply-add), `vsubq_f32`, `vabdq_f32` (absolute difference),
//! `vaddvq_f32` (horizontal sum), and integer `vmovl_u16` / `vshlq_n_u32` / `vbslq_u32` for the
//! `f16` widening.
//!
//! Layout of every pairwise kernel: 4 independent accumulators of 4 lanes (16 floats per
//! iteration), then 4 floats at a time, then a scalar tail of 0–3 elements. The `_x4` kernels load
//! each 4-float chunk of the row once for all 4 queries (two chunks per iteration, 8 accumulators).
//!
//! `f16` rows: the NEON half-precision conversion intrinsics (`vcvt_f32_f16`) need the `f16`
//! type, which is not stable in the Rust versions this crate supports (MSRV 1.89), so halves are
//! widened with an exact integer-bit conversion instead ([`widen_f16`]), 4 lanes at a time.
//!
//! Safety: NEON is enabled for the whole compilation whenever this module is compiled (see the
//! `cfg` on its declaration), so the intrinsics are always available; the only `unsafe`
//! operations are loads through raw pointers, each bounds-justified where it occurs.

use core::arch::aarch64::*;

use half::f16;

use super::{scalar, Kernels};

/// The NEON kernel set.
pub(super) static KERNELS: Kernels = Kernels {
    name: "neon",
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

/// `acc + x·y` (one FMA).
#[inline(always)]
fn dot_step(acc: float32x4_t, x: float32x4_t, y: float32x4_t) -> float32x4_t {
    // SAFETY: register-only NEON arithmetic; NEON is enabled at compile time for this module.
    unsafe { vfmaq_f32(acc, x, y) }
}

/// `acc + (x − y)²` (a subtraction and one FMA).
#[inline(always)]
fn l2_step(acc: float32x4_t, x: float32x4_t, y: float32x4_t) -> float32x4_t {
    // SAFETY: register-only NEON arithmetic; NEON is enabled at compile time for this module.
    unsafe {
        let d = vsubq_f32(x, y);
        vfmaq_f32(acc, d, d)
    }
}

/// `acc + |x − y|` (absolute difference).
#[inline(always)]
fn l1_step(acc: float32x4_t, x: float32x4_t, y: float32x4_t) -> float32x4_t {
    // SAFETY: register-only NEON arithmetic; NEON is enabled at compile time for this module.
    unsafe { vaddq_f32(acc, vabdq_f32(x, y)) }
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

/// Horizontal sum of 4 accumulators: `(s0 + s1) + (s2 + s3)`, then the 4 lanes.
#[inline(always)]
fn hsum4(s0: float32x4_t, s1: float32x4_t, s2: float32x4_t, s3: float32x4_t) -> f32 {
    // SAFETY: register-only NEON arithmetic; NEON is enabled at compile time for this module.
    unsafe { vaddvq_f32(vaddq_f32(vaddq_f32(s0, s1), vaddq_f32(s2, s3))) }
}

/// Widens 4 IEEE binary16 bit patterns (in the low 16 bits of each `u32` lane) exactly to `f32`.
///
/// The classic exponent-rebias conversion, branch-free: shift exponent and mantissa into place
/// (`<< 13`) and add `(127 − 15) << 23` to the exponent; infinities and NaNs (half exponent 31)
/// get another `(128 − 16) << 23` so their exponent becomes 255 (NaN payloads kept); zeros and
/// subnormals (half exponent 0) are renormalised exactly by building `2⁻¹⁴ · (1 + m/1024)` and
/// subtracting `2⁻¹⁴` in `f32` (no subnormal `f32` operand or result involved); finally the sign
/// is moved from bit 15 to bit 31. Agrees bit for bit with [`half::f16::to_f32`] on every
/// non-NaN input, and maps NaN to NaN (tested exhaustively).
#[inline(always)]
fn widen_f16(h: uint32x4_t) -> float32x4_t {
    // SAFETY: register-only NEON integer and float arithmetic; NEON is enabled at compile time.
    unsafe {
        let o = vshlq_n_u32::<13>(vandq_u32(h, vdupq_n_u32(0x7fff)));
        let exp = vandq_u32(o, vdupq_n_u32(0x0f80_0000));
        let o = vaddq_u32(o, vdupq_n_u32(0x3800_0000));
        let inf_nan = vceqq_u32(exp, vdupq_n_u32(0x0f80_0000));
        let o = vaddq_u32(o, vandq_u32(inf_nan, vdupq_n_u32(0x3800_0000)));
        let zero_sub = vceqq_u32(exp, vdupq_n_u32(0));
        let renorm = vsubq_f32(
            vreinterpretq_f32_u32(vaddq_u32(o, vdupq_n_u32(0x0080_0000))),
            vdupq_n_f32(f32::from_bits(0x3880_0000)),
        );
        let o = vbslq_u32(zero_sub, vreinterpretq_u32_f32(renorm), o);
        let sign = vshlq_n_u32::<16>(vandq_u32(h, vdupq_n_u32(0x8000)));
        vreinterpretq_f32_u32(vorrq_u32(o, sign))
    }
}

/// 4 halves at `p`, widened exactly to 4 floats.
///
/// # Safety
///
/// `p` must be valid for reading 4 consecutive `f16` (8 bytes, any alignment).
#[inline(always)]
unsafe fn load_f16x4(p: *const f16) -> float32x4_t {
    // SAFETY: the caller guarantees 8 readable bytes at `p`; `f16` is `repr(transparent)` over
    // `u16`; `vld1_u16` needs only the alignment of `u16`, which `f16` has.
    unsafe { widen_f16(vmovl_u16(vld1_u16(p.cast()))) }
}

/// 8 halves at `p`, widened exactly to two vectors of 4 floats (low half first).
///
/// # Safety
///
/// `p` must be valid for reading 8 consecutive `f16` (16 bytes, any alignment).
#[inline(always)]
unsafe fn load_f16x8(p: *const f16) -> (float32x4_t, float32x4_t) {
    // SAFETY: the caller guarantees 16 readable bytes at `p`; `f16` is `repr(transparent)` over
    // `u16`; `vld1q_u16` needs only the alignment of `u16`, which `f16` has.
    unsafe {
        let h = vld1q_u16(p.cast());
        (
            widen_f16(vmovl_u16(vget_low_u16(h))),
            widen_f16(vmovl_high_u16(h)),
        )
    }
}

// ---------------------------------------------------------------------------------------------
// Kernels.

/// `dst[i] = f32(src[i])` over the common prefix: 4 halves per step ([`load_f16x4`]), the last
/// 0–3 one at a time by the scalar reference (exact on both paths).
fn widen_f16_slice(src: &[f16], dst: &mut [f32]) {
    debug_assert_eq!(src.len(), dst.len());
    let n = src.len().min(dst.len());
    let (ps, pd) = (src.as_ptr(), dst.as_mut_ptr());
    let mut i = 0;
    while i + 4 <= n {
        // SAFETY: i + 4 <= n <= src.len(), dst.len(): 4 halves readable at ps + i and 4 floats
        // writable at pd + i; `vst1q_f32` needs no alignment beyond that of `f32`, which `dst`
        // has.
        unsafe { vst1q_f32(pd.add(i), load_f16x4(ps.add(i))) };
        i += 4;
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
            // SAFETY: register-only NEON; NEON is enabled at compile time for this module.
            let (mut s0, mut s1, mut s2, mut s3) = unsafe {
                (vdupq_n_f32(0.0), vdupq_n_f32(0.0), vdupq_n_f32(0.0), vdupq_n_f32(0.0))
            };
            let mut i = 0;
            while i + 16 <= n {
                // SAFETY: i + 16 <= n <= a.len(), b.len(): the 16 floats at i.. of both slices
                // are in bounds; `vld1q_f32` needs only `f32` alignment.
                unsafe {
                    s0 = $step(s0, vld1q_f32(pa.add(i)), vld1q_f32(pb.add(i)));
                    s1 = $step(s1, vld1q_f32(pa.add(i + 4)), vld1q_f32(pb.add(i + 4)));
                    s2 = $step(s2, vld1q_f32(pa.add(i + 8)), vld1q_f32(pb.add(i + 8)));
                    s3 = $step(s3, vld1q_f32(pa.add(i + 12)), vld1q_f32(pb.add(i + 12)));
                }
                i += 16;
            }
            while i + 4 <= n {
                // SAFETY: i + 4 <= n: the 4 floats at i.. of both slices are in bounds.
                unsafe {
                    s0 = $step(s0, vld1q_f32(pa.add(i)), vld1q_f32(pb.add(i)));
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
    /// Σ aᵢ·bᵢ (NEON).
    dot_f32,
    dot_step,
    dot_scalar
);
f32_pair_kernel!(
    /// Σ (aᵢ − bᵢ)² (NEON).
    l2sq_f32,
    l2_step,
    l2_scalar
);
f32_pair_kernel!(
    /// Σ |aᵢ − bᵢ| (NEON).
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
            // SAFETY: register-only NEON; NEON is enabled at compile time for this module.
            let (mut s0, mut s1, mut s2, mut s3) = unsafe {
                (vdupq_n_f32(0.0), vdupq_n_f32(0.0), vdupq_n_f32(0.0), vdupq_n_f32(0.0))
            };
            let mut i = 0;
            while i + 16 <= n {
                // SAFETY: i + 16 <= n <= q.len(), row.len(): the 16 elements at i.. of both
                // slices are in bounds; element-aligned loads.
                unsafe {
                    let (r0, r1) = load_f16x8(pr.add(i));
                    let (r2, r3) = load_f16x8(pr.add(i + 8));
                    s0 = $step(s0, vld1q_f32(pq.add(i)), r0);
                    s1 = $step(s1, vld1q_f32(pq.add(i + 4)), r1);
                    s2 = $step(s2, vld1q_f32(pq.add(i + 8)), r2);
                    s3 = $step(s3, vld1q_f32(pq.add(i + 12)), r3);
                }
                i += 16;
            }
            while i + 4 <= n {
                // SAFETY: i + 4 <= n: the 4 elements at i.. of both slices are in bounds.
                unsafe {
                    s0 = $step(s0, vld1q_f32(pq.add(i)), load_f16x4(pr.add(i)));
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
    /// Σ qᵢ·rᵢ with an `f16` row (NEON).
    dot_f16,
    dot_step,
    dot_scalar
);
f16_pair_kernel!(
    /// Σ (qᵢ − rᵢ)² with an `f16` row (NEON).
    l2sq_f16,
    l2_step,
    l2_scalar
);
f16_pair_kernel!(
    /// Σ |qᵢ − rᵢ| with an `f16` row (NEON).
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
            // SAFETY: register-only NEON; NEON is enabled at compile time for this module.
            let z = unsafe { vdupq_n_f32(0.0) };
            let (mut a0, mut a1, mut a2, mut a3) = (z, z, z, z);
            let (mut b0, mut b1, mut b2, mut b3) = (z, z, z, z);
            let mut i = 0;
            while i + 8 <= n {
                // SAFETY: i + 8 <= n <= the length of the row and of every query: the 8 floats
                // at i.. of each of the 5 slices are in bounds.
                unsafe {
                    let r0 = vld1q_f32(pr.add(i));
                    let r1 = vld1q_f32(pr.add(i + 4));
                    a0 = $step(a0, vld1q_f32(p0.add(i)), r0);
                    a1 = $step(a1, vld1q_f32(p1.add(i)), r0);
                    a2 = $step(a2, vld1q_f32(p2.add(i)), r0);
                    a3 = $step(a3, vld1q_f32(p3.add(i)), r0);
                    b0 = $step(b0, vld1q_f32(p0.add(i + 4)), r1);
                    b1 = $step(b1, vld1q_f32(p1.add(i + 4)), r1);
                    b2 = $step(b2, vld1q_f32(p2.add(i + 4)), r1);
                    b3 = $step(b3, vld1q_f32(p3.add(i + 4)), r1);
                }
                i += 8;
            }
            if i + 4 <= n {
                // SAFETY: i + 4 <= n: the 4 floats at i.. of each of the 5 slices are in bounds.
                unsafe {
                    let r = vld1q_f32(pr.add(i));
                    a0 = $step(a0, vld1q_f32(p0.add(i)), r);
                    a1 = $step(a1, vld1q_f32(p1.add(i)), r);
                    a2 = $step(a2, vld1q_f32(p2.add(i)), r);
                    a3 = $step(a3, vld1q_f32(p3.add(i)), r);
                }
                i += 4;
            }
            let mut tail = [0.0f32; 4];
            for (j, &r) in row[i..n].iter().enumerate() {
                for (t, qk) in tail.iter_mut().zip(q) {
                    *t = $scalar(*t, qk[i + j], r);
                }
            }
            // SAFETY: register-only NEON; NEON is enabled at compile time for this module.
            unsafe {
                [
                    vaddvq_f32(vaddq_f32(a0, b0)) + tail[0],
                    vaddvq_f32(vaddq_f32(a1, b1)) + tail[1],
                    vaddvq_f32(vaddq_f32(a2, b2)) + tail[2],
                    vaddvq_f32(vaddq_f32(a3, b3)) + tail[3],
                ]
            }
        }
    };
}

f32_x4_kernel!(
    /// `[Σ q[k]ᵢ·rᵢ]` for 4 queries (NEON).
    dot_f32_x4,
    dot_step,
    dot_scalar
);
f32_x4_kernel!(
    /// `[Σ (q[k]ᵢ − rᵢ)²]` for 4 queries (NEON).
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
            let mut got = [0.0f32; 8];
            // SAFETY: `got` has room for 2 × 4 floats.
            unsafe {
                vst1q_f32(got.as_mut_ptr(), lo);
                vst1q_f32(got.as_mut_ptr().add(4), hi);
            }
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
