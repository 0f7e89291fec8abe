//! Entry point of a graph whose [`NodeDistance`] cannot compute the exact medoid.

use super::NodeDistance;
use crate::rng::SplitMix64;

/// An approximate medoid from distances only: among up to 256 seeded candidates, the one with the
/// least total distance to up to 1,024 seeded reference nodes (≈ 262k distance computations).
/// Ties go to the earlier candidate. `nodes` must not be empty.
pub(crate) fn approximate<N: NodeDistance + ?Sized>(nodes: &N, seed: u64) -> u32 {
    let n = nodes.len();
    debug_assert!(n > 0);
    let mut rng = SplitMix64::stream(seed, 0x4D45_444F_4944);
    let pick = |rng: &mut SplitMix64, k: usize| -> Vec<u32> {
        if n <= k {
            (0..n as u32).collect()
        } else {
            (0..k).map(|_| rng.below(n as u64) as u32).collect()
        }
    };
    let cands = pick(&mut rng, 256);
    let refs = pick(&mut rng, 1024);
    let mut best = (f64::INFINITY, cands[0]);
    for &c in &cands {
        let total: f64 = refs.iter().map(|&x| f64::from(nodes.distance(c, x))).sum();
        if total < best.0 {
            best = (total, c);
        }
    }
    best.1
}
