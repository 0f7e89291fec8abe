//! [`RabitqParams`]: the quantizer's parameters (code bits, query bits, rotation seed and rounds),
//! persisted with the codes, which are only meaningful under them.

use super::rotation::{DEFAULT_ROUNDS, MAX_ROUNDS};
use super::DEFAULT_SEED;
use crate::error::{Error, Result};

/// Quantizer parameters (persisted with the index: codes are only meaningful under them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RabitqParams {
    /// Bits per dimension of the data codes, 1..=8 (1 = RaBitQ; ≥ 2 = Extended RaBitQ).
    pub bits: u8,
    /// Bits per dimension of the quantised query, 1..=8 (RaBitQ's `B_q`; 4 in the paper).
    pub query_bits: u8,
    /// Seed of the random rotation.
    pub seed: u64,
    /// Rounds of the rotation (0..=16; [`DEFAULT_ROUNDS`] = 4).
    pub rotation_rounds: u8,
}

impl RabitqParams {
    /// `bits`-bit codes with the recommended query bits for that width
    /// ([`RabitqParams::default_query_bits`]), the default seed and 4 rotation rounds.
    #[must_use]
    pub const fn new(bits: u8) -> Self {
        RabitqParams {
            bits,
            query_bits: Self::default_query_bits(bits),
            seed: DEFAULT_SEED,
            rotation_rounds: DEFAULT_ROUNDS,
        }
    }

    /// The recommended query bits for `bits`-bit data codes: 4 for 1-bit codes (RaBitQ's B_q),
    /// more for multi-bit codes, whose accuracy a 4-bit query would otherwise cap
    /// (measured; see the `quant` module documentation).
    #[must_use]
    pub const fn default_query_bits(bits: u8) -> u8 {
        match bits {
            0 | 1 => 4,
            2 => 5,
            3 => 6,
            4 => 7,
            _ => 8,
        }
    }

    /// The same parameters with another seed.
    #[must_use]
    pub const fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The same parameters with other query bits.
    #[must_use]
    pub const fn with_query_bits(mut self, query_bits: u8) -> Self {
        self.query_bits = query_bits;
        self
    }

    /// Checks the ranges.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` if `bits` or `query_bits` is outside 1..=8 or `rotation_rounds` > 16.
    pub fn validate(&self) -> Result<()> {
        if !(1..=8).contains(&self.bits) {
            return Err(Error::invalid_argument(format!(
                "RaBitQ bits {} not in 1..=8",
                self.bits
            )));
        }
        if !(1..=8).contains(&self.query_bits) {
            return Err(Error::invalid_argument(format!(
                "RaBitQ query bits {} not in 1..=8",
                self.query_bits
            )));
        }
        if self.rotation_rounds > MAX_ROUNDS {
            return Err(Error::invalid_argument(format!(
                "rotation rounds {} > 16",
                self.rotation_rounds
            )));
        }
        Ok(())
    }
}

impl Default for RabitqParams {
    /// 4-bit codes (see the `quant` module documentation for the measurements behind it).
    fn default() -> Self {
        RabitqParams::new(4)
    }
}
