//! The stored form of RaBitQ codes: one record per vector in 64-byte-aligned storage, the bit-plane
//! packing and the four correction factors.
//!
//! # Layout
//!
//! One record of `bits · padded_dim/64 + 2` little `u64` words per vector, records contiguous
//! in one 64-byte-aligned buffer: the planes (plane 0 = sign bits, then decreasing weight;
//! coordinate `i` in bit `i % 64` of word `i / 64` of each plane), then the factors packed two per
//! word (`add | rescale << 32`, `sum_y | error << 32`, each the `f32` bit pattern). At 384-d:
//! 64 B per vector at 1 bit (one cache line), 208 B at 4 bits. The factors are defined in
//! `encode.rs`.

use crate::region::{CacheLine, Region};

/// The four per-vector correction factors (see the module docs for their definitions).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Factors {
    /// Additive term (`‖r‖²` for L2, `−⟨r, c⟩` otherwise).
    pub add: f32,
    /// Multiplier of the estimated `⟨ȳ, v'⟩`.
    pub rescale: f32,
    /// `rescale · Σȳᵢ` (multiplies the query's `lo`).
    pub sum_y: f32,
    /// Error factor: times `‖q − c‖` it is the standard deviation of the estimation error.
    pub error: f32,
}

impl Factors {
    /// The factors packed in a record's two factor words (`add | rescale << 32`,
    /// `sum_y | error << 32`, each the `f32` bit pattern).
    #[inline]
    pub(super) fn from_words(f0: u64, f1: u64) -> Factors {
        Factors {
            add: f32::from_bits(f0 as u32),
            rescale: f32::from_bits((f0 >> 32) as u32),
            sum_y: f32::from_bits(f1 as u32),
            error: f32::from_bits((f1 >> 32) as u32),
        }
    }

    /// The two factor words of a record (inverse of [`Factors::from_words`]).
    pub(super) fn to_words(self) -> [u64; 2] {
        [
            u64::from(self.add.to_bits()) | (u64::from(self.rescale.to_bits()) << 32),
            u64::from(self.sum_y.to_bits()) | (u64::from(self.error.to_bits()) << 32),
        ]
    }
}

/// Packs `codes` (`64·words` values of `bits` bits) into `bits` planes, MSB plane first.
pub(super) fn pack_planes(codes: &[u8], bits: usize, planes: &mut [u64]) {
    let words = codes.len() / 64;
    planes.fill(0);
    for (w, chunk) in codes.chunks_exact(64).enumerate() {
        for (j, &u) in chunk.iter().enumerate() {
            for a in 0..bits {
                planes[a * words + w] |= u64::from((u >> (bits - 1 - a)) & 1) << j;
            }
        }
    }
}

/// `‖ȳ‖` of a code (`bits` planes of `words` words, MSB first), from popcounts:
/// `‖ȳ‖² = Σ uᵢ² − (2^bits − 1)·Σ uᵢ + D'·((2^bits − 1)/2)²` with
/// `Σ uᵢ = Σ_a 2^(bits−1−a)·|plane_a|` and `Σ uᵢ² = Σ_a Σ_a' 2^(2·bits−2−a−a')·|plane_a ∧ plane_a'|`.
/// Exact (integers), so encoding and `from_parts` agree to the bit.
pub(super) fn code_norm_y(planes: &[u64], bits: usize, words: usize) -> f32 {
    let (mut sum_u, mut sum_u2) = (0u64, 0u64);
    for a in 0..bits {
        let pa = &planes[a * words..(a + 1) * words];
        sum_u += pa.iter().map(|w| u64::from(w.count_ones())).sum::<u64>() << (bits - 1 - a);
        for b in 0..bits {
            let pb = &planes[b * words..(b + 1) * words];
            let both: u64 = pa
                .iter()
                .zip(pb)
                .map(|(x, y)| u64::from((x & y).count_ones()))
                .sum();
            sum_u2 += both << (2 * bits - 2 - a - b);
        }
    }
    let levels = (1u64 << bits) - 1;
    let d = 64 * words as u64;
    // 4·‖ȳ‖² = 4Σu² − 4·levels·Σu + D'·levels², all integers
    let four = 4 * sum_u2 + d * levels * levels - 4 * levels * sum_u;
    ((four as f64).sqrt() / 2.0) as f32
}

/// A `u64` buffer whose start is 64-byte aligned (a record that is a multiple of 64 bytes, e.g.
/// 384-d × 1 bit, then never straddles two cache lines): owned cache lines, or the words of a
/// read-only mapped region, copied into owned lines on the first mutable access.
#[derive(Clone, Default)]
pub(super) struct AlignedWords {
    lines: Vec<CacheLine>,
    len: usize,
    /// When set, the words live in this read-only region (a mapped segment file) and `lines` is
    /// empty; the first mutable access copies them into `lines`.
    mapped: Option<Region>,
}

impl AlignedWords {
    /// The first `len` words of `region` (a whole number of `u64`s, checked by the caller), read
    /// in place.
    pub(super) fn mapped(region: Region, len: usize) -> AlignedWords {
        AlignedWords {
            lines: Vec::new(),
            len,
            mapped: Some(region),
        }
    }

    /// The words.
    #[inline]
    pub(super) fn as_slice(&self) -> &[u64] {
        if let Some(r) = &self.mapped {
            return &r.as_slice::<u64>()[..self.len];
        }
        // `len ≤ 8 · lines.len()` (kept by `resize_zeroed`)
        &bytemuck::cast_slice::<CacheLine, u64>(&self.lines)[..self.len]
    }

    /// [`Region::will_need`] for words `at..at + len` when mapped.
    #[inline]
    pub(super) fn will_need(&self, at: usize, len: usize) {
        if let Some(r) = &self.mapped {
            r.will_need(at * 8, len * 8);
        }
    }

    /// The words, writable (copies mapped words first).
    pub(super) fn as_mut_slice(&mut self) -> &mut [u64] {
        self.unmap();
        &mut bytemuck::cast_slice_mut::<CacheLine, u64>(&mut self.lines)[..self.len]
    }

    /// Copies mapped words into owned lines (copy on write).
    fn unmap(&mut self) {
        if let Some(r) = self.mapped.take() {
            let words = &r.as_slice::<u64>()[..self.len];
            self.lines = vec![CacheLine::ZERO; self.len.div_ceil(8)];
            bytemuck::cast_slice_mut::<CacheLine, u64>(&mut self.lines)[..self.len]
                .copy_from_slice(words);
        }
    }

    /// Grows (or shrinks) to `len` words; new words are zero.
    pub(super) fn resize_zeroed(&mut self, len: usize) {
        self.unmap();
        if len > self.len {
            // zero the tail of the last partially used line, then add whole zero lines
            let old = self.len;
            self.lines.resize(len.div_ceil(8), CacheLine::ZERO);
            self.len = len;
            self.as_mut_slice()[old..].fill(0);
        } else {
            self.len = len;
            self.lines.truncate(len.div_ceil(8));
        }
    }
}

impl std::fmt::Debug for AlignedWords {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AlignedWords({} words)", self.len)
    }
}
