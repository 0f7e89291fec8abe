//! What the integration tests share: seeded data and an index built and installed in place.

use std::sync::atomic::AtomicBool;

use horosvec_core::{Collection, IndexParams};

/// `n × dim` values, row-major, in [−0.5, 0.5), from a 64-bit LCG seeded with `seed`.
pub fn seeded(n: usize, dim: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n * dim)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) - 0.5
        })
        .collect()
}

/// Builds the default index with build seed `seed` (no progress, no abort) and installs it.
pub fn build_and_install(c: &mut Collection, seed: u64) {
    let (ix, v) = c
        .build_index(
            IndexParams {
                seed,
                ..IndexParams::default()
            },
            &|_, _| {},
            &AtomicBool::new(false),
        )
        .unwrap();
    c.install_index(ix, v).unwrap();
}
