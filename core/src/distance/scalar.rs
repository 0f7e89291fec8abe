//! The scalar reference kernels: the specification every SIMD kernel is tested against.
//!
//! Each kernel is a plain sequential loop accumulating in `f32`, in index order, with no
//! reassociation (Rust does not reorder floating-point sums, so these loops are not
//! auto-vectorised into a different summation order). Stored `f16` values are widened exactly to
//! `f32` with [`half::f16::to_f32`] before any arithmetic. As everywhere in this module, if two
//! slices differ in length only their common prefix is used (callers guarantee equal lengths;
//! it is checked with `debug_assert!`).
//!
//! These functions are also the fallback on targets without a SIMD set, and the `f16` half of the
//! `avx2-fma` set on x86-64 CPUs without F16C.

use half::f16;

use super::Kernels;

/// The scalar kernel set (see [`super::scalar_kernels`]).
pub(super) static KERNELS: Kernels = Kernels {
    name: "scalar",
    dot_f32,
    l2sq_f32,
    l1_f32,
    dot_f16,
    l2sq_f16,
    l1_f16,
    widen_f16,
    dot_f32_x4,
    l2sq_f32_x4,
};

/// Σ aᵢ·bᵢ, summed in index order.
pub(super) fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    let mut sum = 0.0f32;
    for (&x, &y) in a.iter().zip(b) {
        sum += x * y;
    }
    sum
}

/// Σ (aᵢ − bᵢ)², summed in index order.
pub(super) fn l2sq_f32(a: &[f32], b: &[f32]) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    let mut sum = 0.0f32;
    for (&x, &y) in a.iter().zip(b) {
        let d = x - y;
        sum += d * d;
    }
    sum
}

/// Σ |aᵢ − bᵢ|, summed in index order.
pub(super) fn l1_f32(a: &[f32], b: &[f32]) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    let mut sum = 0.0f32;
    for (&x, &y) in a.iter().zip(b) {
        sum += (x - y).abs();
    }
    sum
}

/// Σ qᵢ·f32(rᵢ), summed in index order.
pub(super) fn dot_f16(q: &[f32], row: &[f16]) -> f32 {
    debug_assert_eq!(q.len(), row.len());
    let mut sum = 0.0f32;
    for (&x, &y) in q.iter().zip(row) {
        sum += x * y.to_f32();
    }
    sum
}

/// Σ (qᵢ − f32(rᵢ))², summed in index order.
pub(super) fn l2sq_f16(q: &[f32], row: &[f16]) -> f32 {
    debug_assert_eq!(q.len(), row.len());
    let mut sum = 0.0f32;
    for (&x, &y) in q.iter().zip(row) {
        let d = x - y.to_f32();
        sum += d * d;
    }
    sum
}

/// Σ |qᵢ − f32(rᵢ)|, summed in index order.
pub(super) fn l1_f16(q: &[f32], row: &[f16]) -> f32 {
    debug_assert_eq!(q.len(), row.len());
    let mut sum = 0.0f32;
    for (&x, &y) in q.iter().zip(row) {
        sum += (x - y.to_f32()).abs();
    }
    sum
}

/// `dst[i] = f32(src[i])` over the common prefix, one value at a time.
pub(super) fn widen_f16(src: &[f16], dst: &mut [f32]) {
    debug_assert_eq!(src.len(), dst.len());
    for (d, &h) in dst.iter_mut().zip(src) {
        *d = h.to_f32();
    }
}

/// `[dot_f32(q[0], row), …, dot_f32(q[3], row)]`.
pub(super) fn dot_f32_x4(q: &[&[f32]; 4], row: &[f32]) -> [f32; 4] {
    [
        dot_f32(q[0], row),
        dot_f32(q[1], row),
        dot_f32(q[2], row),
        dot_f32(q[3], row),
    ]
}

/// `[l2sq_f32(q[0], row), …, l2sq_f32(q[3], row)]`.
pub(super) fn l2sq_f32_x4(q: &[&[f32]; 4], row: &[f32]) -> [f32; 4] {
    [
        l2sq_f32(q[0], row),
        l2sq_f32(q[1], row),
        l2sq_f32(q[2], row),
        l2sq_f32(q[3], row),
    ]
}
