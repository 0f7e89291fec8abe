//! Distance kernels: the one place where vectors meet arithmetic.
//!
//! `scalar` is the specification; every SIMD kernel (`x86`, `aarch64`, `wasm_simd`) is tested
//! against it for every dimension from 1 to 1100, with unaligned slices. The best kernel set for
//! this CPU is picked once, at first use, into a table of function pointers ([`kernels`]); its
//! [`Kernels::name`] appears in stats, the CLI and every benchmark record.
//!
//! Units: `l2sq` is squared Euclidean distance; `dot` is the plain inner product (callers negate it
//! so that lower is closer); `l1` is the sum of absolute differences. Stored vectors are `f32` or
//! IEEE-754 half precision (`half::f16`); queries are always `f32`.
//!
//! # Shapes
//!
//! All slices passed to one kernel call have the same length (the dimension); callers guarantee
//! it and every kernel `debug_assert!`s it. Any length is accepted, including 0 (every sum over no
//! terms is `0.0`), and slices need no particular alignment. In release builds, should the
//! lengths differ anyway, a kernel reads only the common prefix: never out of bounds, never a
//! panic, but the result is then meaningless. Kernels never allocate.
//!
//! # Numerics
//!
//! Sums are accumulated in `f32`. The scalar kernels add terms in index order; SIMD kernels add
//! them in several interleaved partial sums (and, on x86-64 and aarch64, with fused multiply-add),
//! so their results differ from the scalar ones by rounding only: the tests bound the difference
//! by `1e-4 × (Σ|termᵢ| + 1)`. Widening `f16` to `f32` is exact on every path (F16C
//! `vcvtph2ps` on x86-64; an exact integer-bit conversion on aarch64 and wasm32), so an `f16` row
//! behaves exactly like the `f32` row of its widened values. Infinities and NaNs propagate as IEEE
//! arithmetic dictates, in whatever order of summation a kernel uses.
//!
//! # Kernel sets
//!
//! | name | where | file and instructions |
//! | --- | --- | --- |
//! | `scalar` | everywhere | `scalar.rs`: the specification |
//! | `avx2-fma-f16c` | x86-64, AVX2 + FMA + F16C detected | `x86.rs`: `vfmadd`, `vcvtph2ps` |
//! | `avx2-fma` | x86-64, AVX2 + FMA, no F16C | `x86.rs` (`f32`), `scalar.rs` (`f16`) |
//! | `neon` | aarch64 (base ISA) | `aarch64.rs`: `vfmaq_f32`, `vabdq_f32` |
//! | `wasm-simd128` | wasm32 built with `+simd128` | `wasm_simd.rs`: `f32x4_mul`, `f32x4_add` |
//!
//! Intrinsic names follow the Intel Intrinsics Guide on x86-64 (`_mm256_fmadd_ps`,
//! `_mm256_cvtph_ps`, `_mm256_maskload_ps`, …), Arm's ACLE on aarch64 and `core::arch::wasm32`
//! on wasm32; each file's module documentation lists the ones it uses.
//!
//! # Choosing a set
//!
//! [`kernels`] returns the best set of [`available_kernels`], chosen once per process. Setting the
//! environment variable `HOROSVEC_KERNEL=scalar` (read once, at that first call; case and
//! surrounding blanks ignored) forces the scalar set instead, to compare results or speed against
//! the specification; any other value, or none, means "the best". On wasm32 there is no
//! environment, so the choice is made at compile time.

use std::sync::OnceLock;

mod scalar;

#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
mod aarch64;

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm_simd;

#[cfg(test)]
mod tests;

/// The environment variable that, set to `scalar`, forces the scalar kernel set (see [`kernels`]).
pub const KERNEL_ENV_VAR: &str = "HOROSVEC_KERNEL";

/// A set of distance kernels for one instruction set, as a table of function pointers.
///
/// Every kernel takes slices of equal length (the dimension, any value including 0, no alignment
/// needed; callers guarantee equal lengths and kernels `debug_assert!` it) and returns an `f32`
/// sum. `dot` is the plain inner product: callers negate it so that lower is closer. `l2sq` is the
/// *squared* Euclidean distance (no square root). `l1` is the Manhattan distance. The `_f16`
/// kernels take an `f32` query and a stored row in IEEE half precision, widened exactly to `f32`.
/// The semantics of every field are those of the scalar set ([`scalar_kernels`]); other sets
/// differ from it by floating-point rounding only.
#[derive(Debug)]
pub struct Kernels {
    /// Short name of the instruction set, e.g. `"avx2-fma-f16c"`, `"avx2-fma"`, `"neon"`,
    /// `"wasm-simd128"`, `"scalar"`; shown in stats, the CLI and benchmark records.
    pub name: &'static str,
    /// Inner product Σ aᵢ·bᵢ of two `f32` vectors (higher is more similar; callers negate).
    pub dot_f32: fn(&[f32], &[f32]) -> f32,
    /// Squared Euclidean distance Σ (aᵢ − bᵢ)² of two `f32` vectors.
    pub l2sq_f32: fn(&[f32], &[f32]) -> f32,
    /// Manhattan distance Σ |aᵢ − bᵢ| of two `f32` vectors.
    pub l1_f32: fn(&[f32], &[f32]) -> f32,
    /// Inner product Σ qᵢ·rᵢ of an `f32` query `q` and a stored `f16` row `r`.
    pub dot_f16: fn(&[f32], &[half::f16]) -> f32,
    /// Squared Euclidean distance Σ (qᵢ − rᵢ)² of an `f32` query and a stored `f16` row.
    pub l2sq_f16: fn(&[f32], &[half::f16]) -> f32,
    /// Manhattan distance Σ |qᵢ − rᵢ| of an `f32` query and a stored `f16` row.
    pub l1_f16: fn(&[f32], &[half::f16]) -> f32,
    /// Widens stored `f16` values exactly to `f32`: `dst[i] = f32(src[i])` for every `i` below
    /// `min(src.len(), dst.len())` (callers pass equal lengths); NaN stays NaN. Used where whole
    /// rows are decoded at once (snapshot records, `f16` rows read back as `f32`).
    pub widen_f16: fn(&[half::f16], &mut [f32]),
    /// One stored `f32` row against 4 queries at once (the row is loaded once; used by batch
    /// search): returns `[dot(q[0], row), …, dot(q[3], row)]`. All 5 slices have equal length.
    pub dot_f32_x4: fn(&[&[f32]; 4], &[f32]) -> [f32; 4],
    /// One stored `f32` row against 4 queries at once: returns
    /// `[l2sq(q[0], row), …, l2sq(q[3], row)]`. All 5 slices have equal length.
    pub l2sq_f32_x4: fn(&[&[f32]; 4], &[f32]) -> [f32; 4],
}

/// The best kernel set usable on this CPU, chosen once per process (first call) by runtime
/// feature detection: on x86-64 `avx2` and `fma` (plus `f16c` for the `f16` kernels), on aarch64
/// NEON, on wasm32 the compile-time `simd128` feature; `scalar` otherwise.
///
/// If the environment variable `HOROSVEC_KERNEL` (see [`KERNEL_ENV_VAR`]) is `scalar` at that first
/// call, the scalar set is returned instead, for comparison with the specification.
#[must_use]
pub fn kernels() -> &'static Kernels {
    static CHOSEN: OnceLock<&'static Kernels> = OnceLock::new();
    CHOSEN.get_or_init(|| {
        let var = std::env::var(KERNEL_ENV_VAR).ok();
        pick(forces_scalar(var.as_deref()))
    })
}

/// The scalar reference kernel set: straightforward sequential loops, the specification that
/// every other set is tested against.
#[must_use]
pub fn scalar_kernels() -> &'static Kernels {
    &scalar::KERNELS
}

/// Every kernel set usable on this CPU, scalar first and the best last (tests and benchmarks
/// iterate over it).
#[must_use]
pub fn available_kernels() -> Vec<&'static Kernels> {
    #[allow(unused_mut)] // nothing is pushed on targets without a SIMD set
    let mut sets = vec![scalar_kernels()];
    #[cfg(target_arch = "x86_64")]
    sets.extend(x86::available());
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    sets.push(&aarch64::KERNELS);
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    sets.push(&wasm_simd::KERNELS);
    sets
}

/// Whether a value of `HOROSVEC_KERNEL` (`None` if unset or not Unicode) asks for the scalar set:
/// `scalar`, ignoring ASCII case and surrounding whitespace.
fn forces_scalar(value: Option<&str>) -> bool {
    value.is_some_and(|v| v.trim().eq_ignore_ascii_case("scalar"))
}

/// The kernel set to use: the scalar set if `force_scalar`, else the best available one.
fn pick(force_scalar: bool) -> &'static Kernels {
    if force_scalar {
        return scalar_kernels();
    }
    best()
}

/// The best available kernel set (the last of [`available_kernels`]), without allocating.
#[allow(unreachable_code)] // the final fallback is unreachable where a compile-time set exists
fn best() -> &'static Kernels {
    #[cfg(target_arch = "x86_64")]
    if let Some(set) = x86::best() {
        return set;
    }
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    return &aarch64::KERNELS;
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return &wasm_simd::KERNELS;
    scalar_kernels()
}

/// Cosine distance `1 − ⟨a, b⟩ / (‖a‖ ‖b‖)` computed entirely in `f64`, clamped to [0, 2]; the
/// fallback of the `f32` cosine paths when their dot product overflowed or a norm's inverse is
/// subnormal in `f32` (rows whose norm exceeds about 8.5e37: see [`cosine_distance`]). Exact for
/// every finite input; 1 (no direction) when either vector is zero.
pub fn cosine_f64(a: &[f32], b: &[f32]) -> f32 {
    let (mut dot, mut na, mut nb) = (0f64, 0f64, 0f64);
    for (&x, &y) in a.iter().zip(b) {
        let (x, y) = (f64::from(x), f64::from(y));
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    let den = na.sqrt() * nb.sqrt();
    if den == 0.0 || !den.is_finite() {
        // both norms are finite in f64 for finite f32 input; a zero vector has no direction
        return 1.0;
    }
    (1.0 - dot / den).clamp(0.0, 2.0) as f32
}

/// Cosine distance of query `q` (with 1/‖q‖ = `inv_q`) to row `x` (with 1/‖x‖ = `inv_x`), given
/// their `f32` dot product `dot` from a kernel; clamped to [0, 2] (rounding can otherwise give
/// −1e-7 for identical directions).
///
/// The `f32` formula is exact to rounding unless a row is so large that its dot product
/// overflows `f32` or its inverse norm is subnormal (‖x‖ above about 8.5e37): then the distance
/// is recomputed by [`cosine_f64`] from the two vectors. The check is one comparison per
/// distance on the common path.
#[inline]
pub fn cosine_distance(dot: f32, inv_q: f32, inv_x: f32, q: &[f32], x: &[f32]) -> f32 {
    cosine_unclamped(dot, inv_q, inv_x, q, x).clamp(0.0, 2.0)
}

/// [`cosine_distance`] without the clamp of the `f32` formula (the graph build ranks by the
/// raw value; the f64 fallback is clamped either way).
#[inline]
pub fn cosine_unclamped(dot: f32, inv_q: f32, inv_x: f32, q: &[f32], x: &[f32]) -> f32 {
    if dot.is_finite() && inv_x >= f32::MIN_POSITIVE && inv_q >= f32::MIN_POSITIVE {
        1.0 - dot * inv_q * inv_x
    } else {
        cosine_f64(q, x)
    }
}
