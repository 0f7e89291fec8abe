//! x86-64 kernels: AVX2 + FMA for `f32`, plus F16C for `f16` rows.
//!
//! Intrinsic names are those of the Intel Intrinsics Guide (`core::arch::x86_64`):
//! `_mm256_loadu_ps` (unaligned load), `_mm256_fmadd_ps` (fused multiply-add), `_mm256_sub_ps`,
//! `_mm256_andnot_ps` with `-0.0` (clears the sign bit: absolute value), `_mm256_maskload_ps`
//! (tail of fewer than 8 lanes; masked-off lanes are neither read nor faulted on and come back
//! as 0), `_mm256_cvtph_ps` (F16C: 8 halves to 8 floats, exact).
//!
//! Layout of every pairwise kernel: 4 independent accumulators of 8 lanes (32 floats per
//! iteration, enough to hide the FMA latency), then 8 floats at a time, then one masked load for
//! the last 1–7 floats; finally the accumulators are added pairwise and reduced horizontally. The
//! `_x4` kernels load each 8-float chunk of the row once and feed it to one accumulator per query
//! (two chunks per iteration, 8 accumulators).
//!
//! Safety design: the SIMD bodies are `#[target_feature]` functions, which may only be called
//! where the CPU supports those features. They are reached only through the private wrapper
//! functions below, and those only through the private [`AVX2_FMA`] and [`AVX2_FMA_F16C`] tables,
//! which [`available`] and [`best`] hand out only after `is_x86_feature_detected!` confirmed the
//! features each table needs. The only other `unsafe` operations are loads through raw pointers,
//! each bounds-justified where it occurs.

use core::arch::x86_64::*;

use half::f16;

use super::{scalar, Kernels};

/// AVX2 + FMA + F16C: every kernel vectorised. Requires `avx2`, `fma` and `f16c`.
static AVX2_FMA_F16C: Kernels = Kernels {
    name: "avx2-fma-f16c",
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

/// AVX2 + FMA without F16C (rare, e.g. some virtual machines): `f32` kernels vectorised, `f16`
/// kernels scalar. Requires `avx2` and `fma`.
static AVX2_FMA: Kernels = Kernels {
    name: "avx2-fma",
    dot_f32,
    l2sq_f32,
    l1_f32,
    dot_f16: scalar::dot_f16,
    l2sq_f16: scalar::l2sq_f16,
    l1_f16: scalar::l1_f16,
    widen_f16: scalar::widen_f16,
    dot_f32_x4,
    l2sq_f32_x4,
};

/// Whether this CPU (and OS) supports AVX2 and FMA.
fn has_avx2_fma() -> bool {
    is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")
}

/// Whether this CPU supports F16C.
fn has_f16c() -> bool {
    is_x86_feature_detected!("f16c")
}

/// The x86-64 SIMD sets usable on this CPU, weakest first (the scalar set is not included).
pub(super) fn available() -> Vec<&'static Kernels> {
    let mut sets = Vec::new();
    if has_avx2_fma() {
        sets.push(&AVX2_FMA);
        if has_f16c() {
            sets.push(&AVX2_FMA_F16C);
        }
    }
    sets
}

/// The best x86-64 SIMD set usable on this CPU, if any.
pub(super) fn best() -> Option<&'static Kernels> {
    if !has_avx2_fma() {
        None
    } else if has_f16c() {
        Some(&AVX2_FMA_F16C)
    } else {
        Some(&AVX2_FMA)
    }
}

// ---------------------------------------------------------------------------------------------
// Safe wrappers: the function pointers stored in the tables above.

/// Defines a safe wrapper `$name` around the `#[target_feature]` function `$inner`.
macro_rules! wrapper {
    ($name:ident => $inner:ident, ($($arg:ident: $ty:ty),*) -> $ret:ty, $features:literal) => {
        #[doc = concat!("Safe entry of [`", stringify!($inner), "`] (needs ", $features, ").")]
        fn $name($($arg: $ty),*) -> $ret {
            // SAFETY: `$inner` needs the CPU features named above. This private function is only
            // stored in the private tables `AVX2_FMA` / `AVX2_FMA_F16C`, and only in a table whose
            // features include them; those tables are handed out (by `available` and `best`)
            // only after `is_x86_feature_detected!` confirmed every feature of that table.
            unsafe { $inner($($arg),*) }
        }
    };
}

wrapper!(dot_f32 => dot_f32_avx2, (a: &[f32], b: &[f32]) -> f32, "avx2, fma");
wrapper!(l2sq_f32 => l2sq_f32_avx2, (a: &[f32], b: &[f32]) -> f32, "avx2, fma");
wrapper!(l1_f32 => l1_f32_avx2, (a: &[f32], b: &[f32]) -> f32, "avx2, fma");
wrapper!(dot_f16 => dot_f16_avx2, (q: &[f32], row: &[f16]) -> f32, "avx2, fma, f16c");
wrapper!(l2sq_f16 => l2sq_f16_avx2, (q: &[f32], row: &[f16]) -> f32, "avx2, fma, f16c");
wrapper!(l1_f16 => l1_f16_avx2, (q: &[f32], row: &[f16]) -> f32, "avx2, fma, f16c");
wrapper!(widen_f16 => widen_f16_f16c, (src: &[f16], dst: &mut [f32]) -> (), "avx2, fma, f16c");
wrapper!(dot_f32_x4 => dot_f32_x4_avx2, (q: &[&[f32]; 4], row: &[f32]) -> [f32; 4], "avx2, fma");
wrapper!(l2sq_f32_x4 => l2sq_f32_x4_avx2, (q: &[&[f32]; 4], row: &[f32]) -> [f32; 4], "avx2, fma");

// ---------------------------------------------------------------------------------------------
// Building blocks.

/// `-1` (all bits set) in the first 8 entries, `0` in the last 8: the 8 entries starting at
/// `8 - r` form a mask selecting lanes `0..r`.
static TAIL_MASK: [i32; 16] = [-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0];

/// A lane mask for `_mm256_maskload_ps` selecting lanes `0..r` (`r <= 8`).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn tail_mask(r: usize) -> __m256i {
    let start = 8 - r.min(8);
    // SAFETY: start <= 8, so the 8 `i32`s at `start..start + 8` lie inside the 16 of TAIL_MASK;
    // `loadu` needs no alignment.
    unsafe { _mm256_loadu_si256(TAIL_MASK.as_ptr().add(start).cast()) }
}

/// Horizontal sum of the 8 lanes.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn hsum(v: __m256) -> f32 {
    let s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v));
    let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    let s = _mm_add_ss(s, _mm_movehdup_ps(s));
    _mm_cvtss_f32(s)
}

/// Horizontal sum of 4 accumulators: `(s0 + s1) + (s2 + s3)`, then the 8 lanes.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn hsum4(s0: __m256, s1: __m256, s2: __m256, s3: __m256) -> f32 {
    hsum(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)))
}

/// `acc + x·y` (one FMA).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn dot_step(acc: __m256, x: __m256, y: __m256) -> __m256 {
    _mm256_fmadd_ps(x, y, acc)
}

/// `acc + (x − y)²` (a subtraction and one FMA).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn l2_step(acc: __m256, x: __m256, y: __m256) -> __m256 {
    let d = _mm256_sub_ps(x, y);
    _mm256_fmadd_ps(d, d, acc)
}

/// `acc + |x − y|` (the sign bit cleared with `andnot(-0.0, ·)`).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn l1_step(acc: __m256, x: __m256, y: __m256) -> __m256 {
    let d = _mm256_sub_ps(x, y);
    _mm256_add_ps(acc, _mm256_andnot_ps(_mm256_set1_ps(-0.0), d))
}

/// 8 halves at `p`, widened exactly to 8 floats (`vcvtph2ps`).
///
/// # Safety
///
/// `p` must be valid for reading 8 consecutive `f16` (16 bytes, any alignment), and the CPU must
/// support AVX2, FMA and F16C.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn load_f16x8(p: *const f16) -> __m256 {
    // SAFETY: the caller guarantees 16 readable bytes at `p`; `f16` is `repr(transparent)` over
    // `u16`, so they are 8 IEEE binary16 bit patterns; `loadu` needs no alignment.
    unsafe { _mm256_cvtph_ps(_mm_loadu_si128(p.cast())) }
}

/// The last `row.len() − i` (< 8) halves of `row` from `i` on, widened, zero-padded to 8 lanes.
#[inline]
#[target_feature(enable = "avx2,fma,f16c")]
fn load_f16_tail(row: &[f16], i: usize) -> __m256 {
    let mut buf = [0u16; 8];
    for (slot, h) in buf.iter_mut().zip(&row[i..]) {
        *slot = h.to_bits();
    }
    // SAFETY: `buf` is a local array of 8 `u16` (16 readable bytes); `loadu` needs no alignment.
    unsafe { _mm256_cvtph_ps(_mm_loadu_si128(buf.as_ptr().cast())) }
}

// ---------------------------------------------------------------------------------------------
// Kernels.

/// `dst[i] = f32(src[i])` over the common prefix: 8 halves per `vcvtph2ps` (AVX2 + F16C), the
/// last 0–7 one at a time by the scalar reference (exact on both paths).
#[target_feature(enable = "avx2,fma,f16c")]
fn widen_f16_f16c(src: &[f16], dst: &mut [f32]) {
    debug_assert_eq!(src.len(), dst.len());
    let n = src.len().min(dst.len());
    let (ps, pd) = (src.as_ptr(), dst.as_mut_ptr());
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: i + 8 <= n <= src.len(), dst.len(): 8 halves readable at ps + i and 8 floats
        // writable at pd + i; unaligned load and store.
        unsafe { _mm256_storeu_ps(pd.add(i), load_f16x8(ps.add(i))) };
        i += 8;
    }
    scalar::widen_f16(&src[i..n], &mut dst[i..n]);
}

/// Defines a pairwise `f32` kernel: `Σ step(aᵢ, bᵢ)` over the common prefix of `a` and `b`.
macro_rules! f32_pair_kernel {
    ($(#[$doc:meta])* $name:ident, $step:ident) => {
        $(#[$doc])*
        #[target_feature(enable = "avx2,fma")]
        fn $name(a: &[f32], b: &[f32]) -> f32 {
            debug_assert_eq!(a.len(), b.len());
            let n = a.len().min(b.len());
            let (pa, pb) = (a.as_ptr(), b.as_ptr());
            let mut s0 = _mm256_setzero_ps();
            let mut s1 = _mm256_setzero_ps();
            let mut s2 = _mm256_setzero_ps();
            let mut s3 = _mm256_setzero_ps();
            let mut i = 0;
            while i + 32 <= n {
                // SAFETY: i + 32 <= n <= a.len(), b.len(): the 32 floats at i.. of both slices
                // are in bounds; `loadu` needs no alignment.
                unsafe {
                    let (x, y) = (pa.add(i), pb.add(i));
                    s0 = $step(s0, _mm256_loadu_ps(x), _mm256_loadu_ps(y));
                    s1 = $step(s1, _mm256_loadu_ps(x.add(8)), _mm256_loadu_ps(y.add(8)));
                    s2 = $step(s2, _mm256_loadu_ps(x.add(16)), _mm256_loadu_ps(y.add(16)));
                    s3 = $step(s3, _mm256_loadu_ps(x.add(24)), _mm256_loadu_ps(y.add(24)));
                }
                i += 32;
            }
            while i + 8 <= n {
                // SAFETY: i + 8 <= n: the 8 floats at i.. of both slices are in bounds.
                unsafe {
                    s0 = $step(s0, _mm256_loadu_ps(pa.add(i)), _mm256_loadu_ps(pb.add(i)));
                }
                i += 8;
            }
            if i < n {
                let mask = tail_mask(n - i);
                // SAFETY: i < n, so `p.add(i)` stays inside both slices; the mask selects lanes
                // 0..n-i, i.e. elements i..n, all in bounds. `maskload` does not access (and
                // cannot fault on) masked-off lanes, which read as 0 and add 0 to the sum.
                unsafe {
                    let x = _mm256_maskload_ps(pa.add(i), mask);
                    let y = _mm256_maskload_ps(pb.add(i), mask);
                    s1 = $step(s1, x, y);
                }
            }
            hsum4(s0, s1, s2, s3)
        }
    };
}

f32_pair_kernel!(
    /// Σ aᵢ·bᵢ (AVX2 + FMA).
    dot_f32_avx2,
    dot_step
);
f32_pair_kernel!(
    /// Σ (aᵢ − bᵢ)² (AVX2 + FMA).
    l2sq_f32_avx2,
    l2_step
);
f32_pair_kernel!(
    /// Σ |aᵢ − bᵢ| (AVX2 + FMA).
    l1_f32_avx2,
    l1_step
);

/// Defines a pairwise kernel of an `f32` query and an `f16` row: `Σ step(qᵢ, f32(rᵢ))`.
macro_rules! f16_pair_kernel {
    ($(#[$doc:meta])* $name:ident, $step:ident) => {
        $(#[$doc])*
        #[target_feature(enable = "avx2,fma,f16c")]
        fn $name(q: &[f32], row: &[f16]) -> f32 {
            debug_assert_eq!(q.len(), row.len());
            let n = q.len().min(row.len());
            let (pq, pr) = (q.as_ptr(), row.as_ptr());
            let mut s0 = _mm256_setzero_ps();
            let mut s1 = _mm256_setzero_ps();
            let mut s2 = _mm256_setzero_ps();
            let mut s3 = _mm256_setzero_ps();
            let mut i = 0;
            while i + 32 <= n {
                // SAFETY: i + 32 <= n <= q.len(), row.len(): the 32 elements at i.. of both
                // slices are in bounds; unaligned loads.
                unsafe {
                    s0 = $step(s0, _mm256_loadu_ps(pq.add(i)), load_f16x8(pr.add(i)));
                    s1 = $step(s1, _mm256_loadu_ps(pq.add(i + 8)), load_f16x8(pr.add(i + 8)));
                    s2 = $step(s2, _mm256_loadu_ps(pq.add(i + 16)), load_f16x8(pr.add(i + 16)));
                    s3 = $step(s3, _mm256_loadu_ps(pq.add(i + 24)), load_f16x8(pr.add(i + 24)));
                }
                i += 32;
            }
            while i + 8 <= n {
                // SAFETY: i + 8 <= n: the 8 elements at i.. of both slices are in bounds.
                unsafe {
                    s0 = $step(s0, _mm256_loadu_ps(pq.add(i)), load_f16x8(pr.add(i)));
                }
                i += 8;
            }
            if i < n {
                let mask = tail_mask(n - i);
                // SAFETY: i < n, so `pq.add(i)` stays inside `q`; the mask selects elements
                // i..n of `q`, all in bounds, and masked-off lanes are not accessed (they read
                // as 0, as do the zero-padded lanes of the row tail, so they add 0).
                let x = unsafe { _mm256_maskload_ps(pq.add(i), mask) };
                s1 = $step(s1, x, load_f16_tail(&row[..n], i));
            }
            hsum4(s0, s1, s2, s3)
        }
    };
}

f16_pair_kernel!(
    /// Σ qᵢ·rᵢ with an `f16` row (AVX2 + FMA + F16C).
    dot_f16_avx2,
    dot_step
);
f16_pair_kernel!(
    /// Σ (qᵢ − rᵢ)² with an `f16` row (AVX2 + FMA + F16C).
    l2sq_f16_avx2,
    l2_step
);
f16_pair_kernel!(
    /// Σ |qᵢ − rᵢ| with an `f16` row (AVX2 + FMA + F16C).
    l1_f16_avx2,
    l1_step
);

/// Defines a kernel of 4 `f32` queries against one `f32` row: `[Σ step(q[k]ᵢ, rᵢ)]` for k in 0..4.
/// Each 8-float chunk of the row is loaded once; 2 chunks per iteration, one accumulator per
/// (query, chunk).
macro_rules! f32_x4_kernel {
    ($(#[$doc:meta])* $name:ident, $step:ident) => {
        $(#[$doc])*
        #[target_feature(enable = "avx2,fma")]
        fn $name(q: &[&[f32]; 4], row: &[f32]) -> [f32; 4] {
            debug_assert!(q.iter().all(|x| x.len() == row.len()));
            let n = q.iter().fold(row.len(), |n, x| n.min(x.len()));
            let pr = row.as_ptr();
            let [p0, p1, p2, p3] = [q[0].as_ptr(), q[1].as_ptr(), q[2].as_ptr(), q[3].as_ptr()];
            let z = _mm256_setzero_ps();
            let (mut a0, mut a1, mut a2, mut a3) = (z, z, z, z);
            let (mut b0, mut b1, mut b2, mut b3) = (z, z, z, z);
            let mut i = 0;
            while i + 16 <= n {
                // SAFETY: i + 16 <= n <= the length of the row and of every query: the 16 floats
                // at i.. of each of the 5 slices are in bounds; unaligned loads.
                unsafe {
                    let r0 = _mm256_loadu_ps(pr.add(i));
                    let r1 = _mm256_loadu_ps(pr.add(i + 8));
                    a0 = $step(a0, _mm256_loadu_ps(p0.add(i)), r0);
                    a1 = $step(a1, _mm256_loadu_ps(p1.add(i)), r0);
                    a2 = $step(a2, _mm256_loadu_ps(p2.add(i)), r0);
                    a3 = $step(a3, _mm256_loadu_ps(p3.add(i)), r0);
                    b0 = $step(b0, _mm256_loadu_ps(p0.add(i + 8)), r1);
                    b1 = $step(b1, _mm256_loadu_ps(p1.add(i + 8)), r1);
                    b2 = $step(b2, _mm256_loadu_ps(p2.add(i + 8)), r1);
                    b3 = $step(b3, _mm256_loadu_ps(p3.add(i + 8)), r1);
                }
                i += 16;
            }
            if i + 8 <= n {
                // SAFETY: i + 8 <= n: the 8 floats at i.. of each of the 5 slices are in bounds.
                unsafe {
                    let r = _mm256_loadu_ps(pr.add(i));
                    a0 = $step(a0, _mm256_loadu_ps(p0.add(i)), r);
                    a1 = $step(a1, _mm256_loadu_ps(p1.add(i)), r);
                    a2 = $step(a2, _mm256_loadu_ps(p2.add(i)), r);
                    a3 = $step(a3, _mm256_loadu_ps(p3.add(i)), r);
                }
                i += 8;
            }
            if i < n {
                let m = tail_mask(n - i);
                // SAFETY: i < n, so every `p.add(i)` stays inside its slice; the mask selects
                // elements i..n, in bounds of all 5 slices; masked-off lanes are not accessed
                // and read as 0, adding 0.
                unsafe {
                    let r = _mm256_maskload_ps(pr.add(i), m);
                    b0 = $step(b0, _mm256_maskload_ps(p0.add(i), m), r);
                    b1 = $step(b1, _mm256_maskload_ps(p1.add(i), m), r);
                    b2 = $step(b2, _mm256_maskload_ps(p2.add(i), m), r);
                    b3 = $step(b3, _mm256_maskload_ps(p3.add(i), m), r);
                }
            }
            [
                hsum(_mm256_add_ps(a0, b0)),
                hsum(_mm256_add_ps(a1, b1)),
                hsum(_mm256_add_ps(a2, b2)),
                hsum(_mm256_add_ps(a3, b3)),
            ]
        }
    };
}

f32_x4_kernel!(
    /// `[Σ q[k]ᵢ·rᵢ]` for 4 queries (AVX2 + FMA).
    dot_f32_x4_avx2,
    dot_step
);
f32_x4_kernel!(
    /// `[Σ (q[k]ᵢ − rᵢ)²]` for 4 queries (AVX2 + FMA).
    l2sq_f32_x4_avx2,
    l2_step
);
