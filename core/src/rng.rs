//! A tiny seeded generator (SplitMix64, Steele, Lea and Flood, OOPSLA 2014) for every random
//! choice of the core: the graph's start graph, visiting orders and medoid samples, and the signs
//! of the RaBitQ rotation. Not cryptographic.

/// SplitMix64: 64 bits of state, one add and a mixing function per output.
#[derive(Clone, Debug)]
pub(crate) struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator whose stream is fully determined by `seed`.
    pub(crate) fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// A generator for stream `stream` of `seed`: independent-looking sequences per node or per
    /// pass, so that parallel work can draw without sharing a generator.
    pub(crate) fn stream(seed: u64, stream: u64) -> Self {
        let mut g = SplitMix64(seed ^ stream.wrapping_mul(0xD134_2543_DE82_EF95));
        g.next_u64();
        SplitMix64(g.next_u64() ^ stream)
    }

    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..n` (`n > 0`), by Lemire's multiply-shift (bias < n / 2⁶⁴).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A uniformly random permutation of `0..n` (Fisher–Yates).
    pub(crate) fn permutation(&mut self, n: usize) -> Vec<u32> {
        let mut p: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            let j = self.below(i as u64 + 1) as usize;
            p.swap(i, j);
        }
        p
    }
}
