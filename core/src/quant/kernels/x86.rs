//! x86-64 bit-plane kernels.
//!
//! * `popcnt`: the portable plane-pair loops compiled with `#[target_feature(enable = "popcnt")]`,
//!   so `u64::count_ones` is one `POPCNT` (the baseline x86-64 target does not assume it and emits
//!   a bit-twiddling sequence instead). Cost: `bits·qbits` AND + POPCNT + ADD per 64 dimensions.
//! * `avx2`: expands each data plane's bits to byte masks and multiplies the reassembled code
//!   bytes with the query bytes, so the cost no longer grows with `qbits`. Per 32 dimensions and
//!   data plane: `vpbroadcastd` the 32 bits, `vpshufb` each byte to 8 lanes, `vpand` with
//!   `1,2,4,…,128` and `vpcmpeqb` (a 0x00/0xFF mask), `vpand` with the plane's weight and `vpor`
//!   into the code bytes `u`. Then `vpmaddubsw(q, u − 2^(bits−1))` (unsigned query bytes × signed
//!   centred codes, adjacent pairs summed to `i16`), `vpmaddwd` with ones (to `i32`) and `vpaddd`;
//!   the centring is undone once at the end (`+ 2^(bits−1)·Σqᵢ`). The `i16` pair sums cannot
//!   saturate: `2·(2^qbits − 1)·2^(bits−1) ≤ 32640` for every (`bits`, `qbits`) except (8, 8),
//!   which uses the `popcnt` kernel. For 1-bit codes the masks select query bytes directly and
//!   `vpsadbw` sums them. Measured at 384-d (ns per estimate, codes in cache, one thread):
//!   (1, 4) popcnt 16 / avx2 22; (1, 8) 34 / 22; (2, 8) 61 / 39; (4, 4) 73 / 77; (4, 8) 103 / 66;
//!   (5, 8) 130 / 80; (8, 7) 180 / 129. So the `avx2` table uses the POPCNT kernel for
//!   `qbits ≤ 4` (≤ 5 at 1 bit) and for (8, 8), the byte kernel otherwise.
//!
//! * `avx512-vpopcntdq`: the plane-pair sums eight words at a time (`VPANDQ` + `VPOPCNTQ` + a
//!   shift by the query plane's weight per query plane and group of 8 words, masked loads for
//!   the tail) into one vector of lane sums, one horizontal sum per estimate. Measured (ns per
//!   estimate, codes in cache, `rabitq_kbench`, AMD EPYC family 26), against the better of
//!   `popcnt` / `avx2`: at 384-d (6 words) (1, 4) 6.4 / 9.5, (1, 8) 8.5 / 9.6, (4, 4) 10.5 /
//!   28.4, (8, 8) 29.7 / 94.4; at 128-d (2 words) (1, 4) 6.2 / 5.4, (4, 4) 9.0 / 12.6, (4, 7)
//!   13.3 / 13.0, (5, 8) 20.2 / 15.3; at 64-d (1 word) (1, 4) 6.6 / 5.0, (4, 4) 9.4 / 9.6, (4, 8)
//!   16.4 / 9.0. So codes of two words use the `avx2` set's kernels, and codes of one word (up
//!   to 64 dimensions) a kernel of their own: the query planes side by side in one vector, each
//!   data plane's word broadcast against them ((1, 4) 3.5 / 5.3, (4, 7) 4.7 / 8.7, (8, 8) 5.5 /
//!   29.1 ns at 64-d).
//!
//! Safety design: the `#[target_feature]` bodies are reachable only through the [`POPCNT`],
//! [`AVX2`] and [`AVX512`] tables, which [`available`] hands out only after
//! `is_x86_feature_detected!` confirmed every feature the table's functions enable. The only other
//! `unsafe` operations are unaligned 32-byte loads from slices of exactly 32 bytes and masked
//! 512-bit loads of at most the slice's words.

use core::arch::x86_64::*;

use super::{ip_planes, BitKernels, QueryCode};

/// The `popcnt` set. Requires `popcnt`.
static POPCNT: BitKernels = BitKernels {
    name: "popcnt",
    ip: ip_table!(ip_popcnt),
};

/// The `avx2` set. Requires `avx2` and `popcnt`.
static AVX2: BitKernels = BitKernels {
    name: "avx2",
    ip: ip_table!(ip_avx2),
};

/// The `avx512-vpopcntdq` set. Requires `avx512f` and `avx512vpopcntdq` (offered only where the
/// `avx2` set is, so that it stays the last, best, set).
static AVX512: BitKernels = BitKernels {
    name: "avx512-vpopcntdq",
    ip: ip_table!(ip_avx512),
};

/// The x86-64 sets usable on this CPU, weakest first (the portable set is not included).
pub(super) fn available() -> Vec<&'static BitKernels> {
    let mut sets = Vec::new();
    if is_x86_feature_detected!("popcnt") {
        sets.push(&POPCNT);
        if is_x86_feature_detected!("avx2") {
            sets.push(&AVX2);
            if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512vpopcntdq") {
                sets.push(&AVX512);
            }
        }
    }
    sets
}

fn ip_avx512<const B: usize, const QB: usize>(code: &[u64], query: &QueryCode<'_>) -> u64 {
    // By the code's width (measured; module docs): one word, the query planes side by side; two
    // words, where the vector's horizontal sum costs about what it saves, the `avx2` set's
    // choice; three and more, eight words at a time.
    let words = query.planes.len() / QB;
    match words {
        // SAFETY: reachable only through `AVX512`, which `available` returns only after
        // `is_x86_feature_detected!` confirmed `avx512f` and `avx512vpopcntdq`.
        1 => unsafe { ip_avx512_one_word::<B, QB>(code, query.planes) },
        2 => ip_avx2::<B, QB>(code, query),
        // SAFETY: as for the one-word kernel.
        _ => unsafe { ip_avx512_planes::<B, QB>(code, query.planes) },
    }
}

/// Codes of one word per plane (up to 64 dimensions): the `QB` query planes side by side in one
/// vector (lane `b` = plane `b`), each data plane's word broadcast, `VPANDQ` + `VPOPCNTQ`, shifted
/// by the data plane's weight; the lanes shifted by their query plane's weight at the end and
/// summed once.
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
fn ip_avx512_one_word<const B: usize, const QB: usize>(code: &[u64], planes: &[u64]) -> u64 {
    debug_assert!(code.len() == B && planes.len() == QB);
    let mask: __mmask8 = if QB == 8 { 0xFF } else { (1u8 << QB) - 1 };
    let q = load_words(&planes[..QB], mask);
    let mut acc = _mm512_setzero_si512();
    for (a, &c) in code.iter().take(B).enumerate() {
        let cnt = _mm512_popcnt_epi64(_mm512_and_si512(_mm512_set1_epi64(c as i64), q));
        acc = _mm512_add_epi64(
            acc,
            _mm512_sllv_epi64(cnt, _mm512_set1_epi64((B - 1 - a) as i64)),
        );
    }
    let lane_weight = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    _mm512_reduce_add_epi64(_mm512_sllv_epi64(acc, lane_weight)) as u64
}

/// `Σ uᵢ·qᵢ` as [`ip_planes`] computes it, eight words at a time: for each group of up to 8 words
/// (masked 512-bit loads: no read past the slices), each data plane's words `VPANDQ` each query
/// plane's, `VPOPCNTQ`, shifted by the pair's weight and added into one vector of 8 lane sums;
/// one horizontal sum at the end.
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
fn ip_avx512_planes<const B: usize, const QB: usize>(code: &[u64], planes: &[u64]) -> u64 {
    let words = planes.len() / QB;
    debug_assert_eq!(code.len(), B * words);
    let mut acc = _mm512_setzero_si512();
    let mut w = 0;
    while w < words {
        let n = (words - w).min(8);
        let mask: __mmask8 = if n == 8 { 0xFF } else { (1u8 << n) - 1 };
        let q: [__m512i; QB] =
            std::array::from_fn(|b| load_words(&planes[b * words + w..b * words + w + n], mask));
        for a in 0..B {
            let c = load_words(&code[a * words + w..a * words + w + n], mask);
            for (b, &qb) in q.iter().enumerate() {
                let cnt = _mm512_popcnt_epi64(_mm512_and_si512(c, qb));
                // weight 2^(B−1−a+b): at most 2^14 × 64 per lane and word group, no overflow
                let shift = _mm512_set1_epi64((B - 1 - a + b) as i64);
                acc = _mm512_add_epi64(acc, _mm512_sllv_epi64(cnt, shift));
            }
        }
        w += n;
    }
    _mm512_reduce_add_epi64(acc) as u64
}

/// The `words.len()` (≤ 8) words of `words` in the low lanes of a vector, zeros above (`mask`
/// has one bit per word).
#[inline]
#[target_feature(enable = "avx512f")]
fn load_words(words: &[u64], mask: __mmask8) -> __m512i {
    debug_assert!(words.len() <= 8 && u32::from(mask) == (1u32 << words.len()) - 1);
    // SAFETY: the mask selects exactly `words.len()` lanes, so only the bytes of `words` are
    // read (masked-off lanes are not accessed and cannot fault); no alignment is required.
    unsafe { _mm512_maskz_loadu_epi64(mask, words.as_ptr().cast()) }
}

fn ip_popcnt<const B: usize, const QB: usize>(code: &[u64], query: &QueryCode<'_>) -> u64 {
    // SAFETY: reachable only through `POPCNT` and `AVX2`, which `available` returns only after
    // `is_x86_feature_detected!("popcnt")`, so the CPU supports the enabled feature.
    unsafe { ip_popcnt_body::<B, QB>(code, query) }
}

#[target_feature(enable = "popcnt")]
fn ip_popcnt_body<const B: usize, const QB: usize>(code: &[u64], query: &QueryCode<'_>) -> u64 {
    ip_planes::<B, QB>(code, query)
}

fn ip_avx2<const B: usize, const QB: usize>(code: &[u64], query: &QueryCode<'_>) -> u64 {
    // POPCNT is as fast or faster for few query planes (measured; module docs), and (8, 8) could
    // saturate vpmaddubsw's i16 pair sums.
    if QB <= 4 || (B == 1 && QB == 5) || (B == 8 && QB == 8) {
        return ip_popcnt::<B, QB>(code, query);
    }
    // SAFETY: reachable only through `AVX2`, which `available` returns only after
    // `is_x86_feature_detected!` confirmed `avx2` (and `popcnt`).
    unsafe {
        if B == 1 {
            ip_avx2_one_bit(code, query.bytes)
        } else {
            ip_avx2_multi_bit::<B>(code, query)
        }
    }
}

/// Broadcasts `bits` and expands it to 32 bytes: byte `k` is 0xFF if bit `k` is set, else 0.
#[inline]
#[target_feature(enable = "avx2")]
fn expand_bits(bits: u32, shuffle: __m256i, select: __m256i) -> __m256i {
    let v = _mm256_set1_epi32(bits as i32);
    let spread = _mm256_shuffle_epi8(v, shuffle);
    _mm256_cmpeq_epi8(_mm256_and_si256(spread, select), select)
}

/// The shuffle that copies byte `k / 8` of a broadcast `u32` to byte `k` (within each 128-bit
/// lane: lane 0 takes bytes 0 and 1, lane 1 bytes 2 and 3 of its own copy), and the per-byte bit
/// selector `1 << (k % 8)`.
#[inline]
#[target_feature(enable = "avx2")]
fn expand_constants() -> (__m256i, __m256i) {
    let shuffle = _mm256_setr_epi8(
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3,
        3, 3,
    );
    let select = _mm256_set1_epi64x(0x8040_2010_0804_0201_u64 as i64);
    (shuffle, select)
}

/// Loads 32 bytes.
#[inline]
#[target_feature(enable = "avx2")]
fn load32(bytes: &[u8]) -> __m256i {
    debug_assert!(bytes.len() >= 32);
    let bytes = &bytes[..32];
    // SAFETY: `bytes` holds exactly 32 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) }
}

/// Σ of the query bytes whose sign bit is set (1-bit codes).
#[target_feature(enable = "avx2")]
fn ip_avx2_one_bit(code: &[u64], bytes: &[u8]) -> u64 {
    let (shuffle, select) = expand_constants();
    let zero = _mm256_setzero_si256();
    let mut acc = zero;
    for (&c, q) in code.iter().zip(bytes.chunks_exact(64)) {
        let lo = _mm256_and_si256(expand_bits(c as u32, shuffle, select), load32(&q[..32]));
        let hi = _mm256_and_si256(
            expand_bits((c >> 32) as u32, shuffle, select),
            load32(&q[32..]),
        );
        acc = _mm256_add_epi64(acc, _mm256_sad_epu8(lo, zero));
        acc = _mm256_add_epi64(acc, _mm256_sad_epu8(hi, zero));
    }
    let mut lanes = [0u64; 4];
    // SAFETY: `lanes` is 32 writable bytes; `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), acc) };
    lanes.iter().sum()
}

/// Σ uᵢ·qᵢ for `B` ≥ 2 data planes (module docs).
#[target_feature(enable = "avx2")]
fn ip_avx2_multi_bit<const B: usize>(code: &[u64], query: &QueryCode<'_>) -> u64 {
    let words = query.bytes.len() / 64;
    let (shuffle, select) = expand_constants();
    let ones = _mm256_set1_epi16(1);
    let offset = _mm256_set1_epi8((1u32 << (B - 1)) as u8 as i8);
    let mut weights = [_mm256_setzero_si256(); B];
    for (a, wt) in weights.iter_mut().enumerate() {
        *wt = _mm256_set1_epi8((1u32 << (B - 1 - a)) as u8 as i8);
    }
    assert!(code.len() >= B * words, "code shorter than its planes");
    let mut acc = _mm256_setzero_si256();
    for (w, q) in query.bytes.chunks_exact(64).enumerate() {
        let mut c = [0u64; B];
        for (a, ca) in c.iter_mut().enumerate() {
            *ca = code[a * words + w];
        }
        for half in 0..2 {
            let mut u = _mm256_setzero_si256();
            for a in 0..B {
                let bits = (c[a] >> (32 * half)) as u32;
                u = _mm256_or_si256(
                    u,
                    _mm256_and_si256(expand_bits(bits, shuffle, select), weights[a]),
                );
            }
            let centred = _mm256_sub_epi8(u, offset); // uᵢ − 2^(B−1) as i8
            let pairs = _mm256_maddubs_epi16(load32(&q[32 * half..]), centred);
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, ones));
        }
    }
    let mut lanes = [0i32; 8];
    // SAFETY: `lanes` is 32 writable bytes; `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), acc) };
    let centred: i64 = lanes.iter().map(|&l| i64::from(l)).sum();
    (centred + (1i64 << (B - 1)) * query.sum as i64) as u64
}

#[cfg(test)]
mod tests {
    use super::super::tests::planes_to_bytes;
    use super::super::{reference_ip, QueryCode};
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The AVX2 byte kernels called directly (the table routes small `qbits` to POPCNT), for
    /// every width up to 18 words, `bits` 1..=8 and every `qbits` they are used with.
    #[test]
    fn avx2_byte_kernels_match_reference() {
        if !(is_x86_feature_detected!("avx2") && is_x86_feature_detected!("popcnt")) {
            return;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(21);
        for words in 1..=18usize {
            for bits in 1..=8usize {
                for qbits in 1..=8usize {
                    if bits == 8 && qbits == 8 {
                        continue;
                    }
                    for pattern in 0..2 {
                        let mut gen = || {
                            if pattern == 0 {
                                rng.random::<u64>()
                            } else {
                                u64::MAX
                            }
                        };
                        let code: Vec<u64> = (0..bits * words).map(|_| gen()).collect();
                        let planes: Vec<u64> = (0..qbits * words).map(|_| gen()).collect();
                        let bytes = planes_to_bytes(&planes, qbits);
                        let sum = bytes.iter().map(|&b| u64::from(b)).sum();
                        let q = QueryCode {
                            planes: &planes,
                            bytes: &bytes,
                            sum,
                        };
                        // SAFETY: AVX2 was detected above.
                        let got = unsafe {
                            match bits {
                                1 => ip_avx2_one_bit(&code, &bytes),
                                2 => ip_avx2_multi_bit::<2>(&code, &q),
                                3 => ip_avx2_multi_bit::<3>(&code, &q),
                                4 => ip_avx2_multi_bit::<4>(&code, &q),
                                5 => ip_avx2_multi_bit::<5>(&code, &q),
                                6 => ip_avx2_multi_bit::<6>(&code, &q),
                                7 => ip_avx2_multi_bit::<7>(&code, &q),
                                _ => ip_avx2_multi_bit::<8>(&code, &q),
                            }
                        };
                        assert_eq!(
                            got,
                            reference_ip(&code, bits, &planes, qbits),
                            "w{words} b{bits} q{qbits} p{pattern}"
                        );
                    }
                }
            }
        }
    }
}
