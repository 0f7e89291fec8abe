//! wasm32 SIMD128 bit-plane kernels: two 64-bit words at a time with `v128.and` and
//! `i8x16.popcnt`, byte counters widened with `extadd_pairwise` before they can overflow.
//!
//! WebAssembly has no 64-bit vector popcount; `i8x16.popcnt` is a native instruction only on
//! some hosts (x86-64 engines lower it to a `pshufb` nibble lookup), whereas scalar `i64.popcnt`
//! compiles to one `POPCNT`. Which is faster is measured in the `quant` module documentation;
//! [`KERNELS`] is the SIMD variant, the `portable` set is the scalar one.

use core::arch::wasm32::*;

use super::{BitKernels, QueryCode};

/// The `wasm-simd128` set.
pub(super) static KERNELS: BitKernels = BitKernels {
    name: "wasm-simd128",
    ip: ip_table!(ip_simd),
};

/// Loads words `k`, `k + 1` of `words` as one `v128` (lane 0 = word `k`).
#[inline(always)]
fn load2(words: &[u64], k: usize) -> v128 {
    let pair = &words[k..k + 2];
    // SAFETY: `pair` is 16 readable bytes; `v128.load` has no alignment requirement.
    unsafe { v128_load(pair.as_ptr().cast()) }
}

/// Sum of the four `u32` lanes.
#[inline(always)]
fn lanes_sum(v: v128) -> u64 {
    u64::from(u32x4_extract_lane::<0>(v))
        + u64::from(u32x4_extract_lane::<1>(v))
        + u64::from(u32x4_extract_lane::<2>(v))
        + u64::from(u32x4_extract_lane::<3>(v))
}

fn ip_simd<const B: usize, const QB: usize>(code: &[u64], query: &QueryCode<'_>) -> u64 {
    let q = query.planes;
    let words = q.len() / QB;
    debug_assert_eq!(code.len(), B * words);
    let pairs = words / 2;
    let mut total = 0u64;
    for (a, plane) in code.chunks_exact(words).take(B).enumerate() {
        let mut wide = [u32x4_splat(0); QB];
        let mut bytes = [u8x16_splat(0); QB];
        let mut pending = 0;
        for k in 0..pairs {
            let c = load2(plane, 2 * k);
            for (b, acc) in bytes.iter_mut().enumerate() {
                let x = v128_and(c, load2(q, b * words + 2 * k));
                *acc = u8x16_add(*acc, u8x16_popcnt(x));
            }
            pending += 1;
            // each byte gains ≤ 8 per step: flush before 31 steps (248 ≤ 255)
            if pending == 31 || k + 1 == pairs {
                for b in 0..QB {
                    let w16 = u16x8_extadd_pairwise_u8x16(bytes[b]);
                    wide[b] = u32x4_add(wide[b], u32x4_extadd_pairwise_u16x8(w16));
                    bytes[b] = u8x16_splat(0);
                }
                pending = 0;
            }
        }
        let mut s = 0u64;
        for b in 0..QB {
            let mut n = lanes_sum(wide[b]);
            if !words.is_multiple_of(2) {
                n += u64::from((plane[words - 1] & q[b * words + words - 1]).count_ones());
            }
            s += n << b;
        }
        total += s << (B - 1 - a);
    }
    total
}
