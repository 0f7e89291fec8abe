//! Bit-plane inner-product kernels: the integer core of the RaBitQ estimator.
//!
//! # What they compute
//!
//! A data code is `bits` bit planes of `words` 64-bit words each, stored plane after plane,
//! **most significant plane first** (plane `a` has weight `2^(bits−1−a)`; plane 0 is the 1-bit
//! RaBitQ sign code). A quantised query is `qbits` planes of the same width, also plane after
//! plane, **least significant plane first** (word `w` of plane `b`, weight `2^b`, is
//! `planes[b·words + w]`), plus the same levels as one byte per coordinate. Coordinate `i` lives
//! in bit `i % 64` of word `i / 64` of every plane.
//! With `uᵢ` and `qᵢ` the unsigned integers spelled by those bits, every kernel returns exactly
//!
//! ```text
//! Σᵢ uᵢ·qᵢ = Σ_a Σ_b 2^(bits−1−a+b) · popcount(plane_a AND qplane_b)
//! ```
//!
//! as a `u64` (at most 255·255·64·words: no overflow). All kernel sets return the *same integer*
//! for the same input, so the floating-point estimate built on it is bit-identical across sets;
//! the tests check every set against [`reference_ip`] (a per-coordinate loop) for every width
//! from 1 to 18 words (1..=1152 dimensions) and every `bits` and `qbits` in 1..=8.
//!
//! # Kernel sets
//!
//! | name | where | how |
//! | --- | --- | --- |
//! | `portable` | everywhere | `u64::count_ones` (one `cnt`/`i64.popcnt` on aarch64/wasm32; a bit-twiddling sequence on x86-64 without POPCNT) |
//! | `popcnt` | x86-64 with POPCNT detected at run time | `x86.rs`: the same loops compiled with `#[target_feature(enable = "popcnt")]` |
//! | `avx2` | x86-64 with AVX2 and POPCNT | `x86.rs`: data bits expanded to byte masks, `vpmaddubsw` against the query bytes (cost independent of `qbits`) |
//! | `avx512-vpopcntdq` | x86-64 with AVX-512F and VPOPCNTDQ (and the `avx2` set's features) | `x86.rs`: the plane pairs eight words at a time (`vpandq` + `vpopcntq`); one-word codes with the query planes side by side; two-word codes by the `avx2` set's choice |
//! | `wasm-simd128` | wasm32 built with `+simd128` (tested; not chosen, slower than `portable` in V8) | `wasm.rs`: `v128.and` + `i8x16.popcnt`, two words at a time |
//!
//! Each set is a table of 64 functions, one per (`bits`, `qbits`): for each data plane, a loop
//! over the words with the `qbits` query words of the position unrolled (AND + POPCNT + ADD into
//! one register counter per query plane), then a weighted sum; `bits·qbits` popcounts per word. [`bit_kernels`]
//! picks the best set once per process; `HOROSVEC_KERNEL=scalar` (shared with
//! `crate::distance`) forces `portable`.

use std::sync::OnceLock;

/// A quantised query as the kernels read it: the same `qᵢ` in two layouts (each kernel set uses
/// the one it needs).
#[derive(Clone, Copy, Debug)]
pub struct QueryCode<'a> {
    /// `qbits × words` words: word `w` of plane `b` (weight `2^b`) at `planes[b·words + w]`.
    pub planes: &'a [u64],
    /// `qᵢ` as one byte per coordinate (`64·words` bytes).
    pub bytes: &'a [u8],
    /// `Σᵢ qᵢ`.
    pub sum: u64,
}

/// `Σᵢ uᵢ·qᵢ` for one fixed (`bits`, `qbits`): `code` is `bits` planes (MSB first) of `words`
/// words; see the module docs.
pub type IpFn = fn(code: &[u64], query: &QueryCode<'_>) -> u64;

/// The 64 kernels of one set, indexed `[bits − 1][qbits − 1]`.
pub type IpTable = [[IpFn; 8]; 8];

/// Builds an [`IpTable`] from a function generic over `<const B: usize, const QB: usize>`.
macro_rules! ip_table {
    ($f:ident) => {
        ip_table!(@rows $f; 1 2 3 4 5 6 7 8)
    };
    (@rows $f:ident; $($b:literal)*) => {
        [$([$f::<$b, 1>, $f::<$b, 2>, $f::<$b, 3>, $f::<$b, 4>, $f::<$b, 5>, $f::<$b, 6>, $f::<$b, 7>, $f::<$b, 8>]),*]
    };
}

#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm;

/// One set of bit-plane kernels.
#[derive(Debug)]
pub struct BitKernels {
    /// Short name: `"portable"`, `"popcnt"`, `"wasm-simd128"`.
    pub name: &'static str,
    /// The kernels, indexed `[bits − 1][qbits − 1]`.
    pub ip: IpTable,
}

impl BitKernels {
    /// The kernel for `bits`-bit codes and `qbits`-bit queries (both 1..=8).
    ///
    /// # Panics
    /// If `bits` or `qbits` is outside 1..=8.
    #[must_use]
    pub fn get(&self, bits: usize, qbits: usize) -> IpFn {
        assert!(
            (1..=8).contains(&bits) && (1..=8).contains(&qbits),
            "bits {bits} / query bits {qbits} not in 1..=8"
        );
        self.ip[bits - 1][qbits - 1]
    }
}

/// The portable set: `u64::count_ones` everywhere.
static PORTABLE: BitKernels = BitKernels {
    name: "portable",
    ip: ip_table!(ip_planes),
};

/// The best bit-kernel set for this CPU, chosen once per process (see the module docs).
#[must_use]
pub fn bit_kernels() -> &'static BitKernels {
    static CHOSEN: OnceLock<&'static BitKernels> = OnceLock::new();
    CHOSEN.get_or_init(|| {
        let forced = std::env::var(crate::distance::KERNEL_ENV_VAR)
            .is_ok_and(|v| v.trim().eq_ignore_ascii_case("scalar"));
        if forced {
            &PORTABLE
        } else {
            best()
        }
    })
}

/// The fastest set here: `avx2`, else `popcnt`, else `portable` on x86-64; `portable` elsewhere,
/// wasm32 included (V8 on x86-64 runs scalar `i64.popcnt` faster than `i8x16.popcnt`: measured
/// 37 vs 49 ns at 384-d × 1 bit, 200 vs 341 ns at 4 × 7 bits; see the `quant` module docs).
fn best() -> &'static BitKernels {
    #[cfg(target_arch = "x86_64")]
    if let Some(set) = x86::available().last() {
        return set;
    }
    &PORTABLE
}

/// Every bit-kernel set usable here, `portable` first (tests and benchmarks iterate over it;
/// [`bit_kernels`] says which is used).
#[must_use]
pub fn available_bit_kernels() -> Vec<&'static BitKernels> {
    #[allow(unused_mut)]
    let mut sets = vec![&PORTABLE];
    #[cfg(target_arch = "x86_64")]
    sets.extend(x86::available());
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    sets.push(&wasm::KERNELS);
    sets
}

/// The specification: unpacks every coordinate's `uᵢ` and `qᵢ` and sums their products (slow;
/// tests only). `code` is `bits` planes (MSB first), `query` is `qbits` planes (LSB first).
#[must_use]
pub fn reference_ip(code: &[u64], bits: usize, query: &[u64], qbits: usize) -> u64 {
    let words = query.len() / qbits;
    assert_eq!(code.len(), bits * words);
    let mut sum = 0u64;
    for w in 0..words {
        for j in 0..64 {
            let mut u = 0u64;
            for a in 0..bits {
                u = (u << 1) | ((code[a * words + w] >> j) & 1);
            }
            let mut q = 0u64;
            for b in 0..qbits {
                q |= ((query[b * words + w] >> j) & 1) << b;
            }
            sum += u * q;
        }
    }
    sum
}

/// `Σ uᵢ·qᵢ` for `B` data planes and `QB` query planes (module docs), with `u64::count_ones`.
/// Inlined into every kernel set so that the caller's target features (e.g. `popcnt`) apply.
///
/// Plane by plane: for each data word, the `QB` query words of the same position (one per query
/// plane, unrolled: `QB` is a constant) are ANDed and counted into `QB` register counters; the
/// query is re-read from L1 for each data plane.
#[inline(always)]
pub(crate) fn ip_planes<const B: usize, const QB: usize>(
    code: &[u64],
    query: &QueryCode<'_>,
) -> u64 {
    let query = query.planes;
    let words = query.len() / QB;
    debug_assert_eq!(code.len(), B * words);
    debug_assert_eq!(query.len(), QB * words);
    let qp: [&[u64]; QB] = std::array::from_fn(|b| &query[b * words..(b + 1) * words]);
    let mut total = 0u64;
    for (a, plane) in code.chunks_exact(words).take(B).enumerate() {
        let mut counts = [0u32; QB];
        for (w, &c) in plane.iter().enumerate() {
            for (n, q) in counts.iter_mut().zip(&qp) {
                *n += (c & q[w]).count_ones();
            }
        }
        let mut s = 0u64;
        for (b, &n) in counts.iter().enumerate() {
            s += u64::from(n) << b;
        }
        total += s << (B - 1 - a);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Every set equals the reference for 1..=18 words, all `bits` and `qbits`, on random
    /// patterns, all-ones (the maximum) and sparse patterns.
    #[test]
    fn every_set_matches_reference() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let sets = available_bit_kernels();
        for words in 1..=18usize {
            for bits in 1..=8usize {
                for qbits in 1..=8usize {
                    for pattern in 0..3 {
                        let gen = |rng: &mut ChaCha8Rng| -> u64 {
                            match pattern {
                                0 => rng.random(),
                                1 => u64::MAX,
                                _ => {
                                    rng.random::<u64>() & rng.random::<u64>() & rng.random::<u64>()
                                }
                            }
                        };
                        let code: Vec<u64> = (0..bits * words).map(|_| gen(&mut rng)).collect();
                        let query: Vec<u64> = (0..qbits * words).map(|_| gen(&mut rng)).collect();
                        let want = reference_ip(&code, bits, &query, qbits);
                        let bytes = planes_to_bytes(&query, qbits);
                        let sum = bytes.iter().map(|&b| u64::from(b)).sum();
                        let qc = QueryCode {
                            planes: &query,
                            bytes: &bytes,
                            sum,
                        };
                        if pattern == 1 {
                            let max =
                                ((1u64 << bits) - 1) * ((1u64 << qbits) - 1) * 64 * words as u64;
                            assert_eq!(want, max);
                        }
                        for set in &sets {
                            assert_eq!(
                                set.get(bits, qbits)(&code, &qc),
                                want,
                                "{} w{words} b{bits} q{qbits}",
                                set.name
                            );
                        }
                    }
                }
            }
        }
    }

    /// The byte layout of plane-major query planes.
    pub(crate) fn planes_to_bytes(planes: &[u64], qbits: usize) -> Vec<u8> {
        let words = planes.len() / qbits;
        let mut out = Vec::new();
        for w in 0..words {
            for j in 0..64 {
                out.push((0..qbits).fold(0u8, |acc, b| {
                    acc | ((((planes[b * words + w] >> j) & 1) as u8) << b)
                }));
            }
        }
        out
    }

    #[test]
    fn chosen_set_is_available() {
        let name = bit_kernels().name;
        assert!(available_bit_kernels().iter().any(|s| s.name == name));
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("popcnt")
            && std::env::var(crate::distance::KERNEL_ENV_VAR).is_err()
        {
            let avx2 = std::is_x86_feature_detected!("avx2");
            let avx512 = avx2
                && std::is_x86_feature_detected!("avx512f")
                && std::is_x86_feature_detected!("avx512vpopcntdq");
            assert_eq!(
                name,
                if avx512 {
                    "avx512-vpopcntdq"
                } else if avx2 {
                    "avx2"
                } else {
                    "popcnt"
                }
            );
        }
    }
}
