//! [`IndexParams`]: the parameters of an index build (the graph's R, L, α, passes, the code
//! width and the seed), their defaults and their one range check.

use crate::error::{Error, Result};
use crate::graph::{BuildError, VamanaParams};
use crate::quant::RabitqParams;

/// Parameters of an index build. Defaults are chosen by measurement (`bench-results/README.md`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IndexParams {
    /// R: maximum out-degree of the graph.
    pub r: usize,
    /// L: list size of the greedy searches during the build.
    pub l: usize,
    /// α of RobustPrune, with the paper's meaning on (non-squared) Euclidean distances.
    pub alpha: f32,
    /// Build passes (with two or more, the first uses α = 1).
    pub passes: usize,
    /// Bits per dimension of the RaBitQ codes (1..=8; 1 = RaBitQ, more = Extended RaBitQ), or
    /// [`AUTO_BITS`] to pick by dimension at build time ([`default_bits`]).
    pub bits: u8,
    /// Seed of everything random in the build (start graph, order, rotation).
    pub seed: u64,
}

impl Default for IndexParams {
    fn default() -> Self {
        let v = VamanaParams::default();
        IndexParams {
            r: v.r,
            l: v.l,
            alpha: v.alpha,
            passes: v.passes,
            bits: AUTO_BITS,
            seed: v.seed,
        }
    }
}

/// `bits` value meaning "choose by dimension" ([`default_bits`]).
pub const AUTO_BITS: u8 = 0;

/// Default code width for `dim`-dimensional vectors, chosen by measurement on the shipped 384-d
/// sentence embeddings and the 128-d SIFT set (the tables of the [`crate::quant`] module
/// documentation): 1 bit from 320 dimensions
/// (codes, factors and R = 32 adjacency stay under 200 bytes per vector at 384-d, and the
/// bound-driven rerank absorbs the coarser estimates), 2 bits from 160, 4 bits below, where 1-bit
/// codes are too coarse for the walk.
pub const fn default_bits(dim: usize) -> u8 {
    if dim >= 320 {
        1
    } else if dim >= 160 {
        2
    } else {
        4
    }
}

impl IndexParams {
    /// These parameters with [`AUTO_BITS`] replaced by the code width for `dim`
    /// ([`default_bits`]), as a build or an import stores them.
    pub fn resolved(self, dim: usize) -> IndexParams {
        if self.bits == AUTO_BITS {
            IndexParams {
                bits: default_bits(dim),
                ..self
            }
        } else {
            self
        }
    }

    /// The graph's share of the parameters.
    pub(super) fn vamana(&self) -> VamanaParams {
        VamanaParams {
            r: self.r,
            l: self.l,
            alpha: self.alpha,
            passes: self.passes,
            seed: self.seed,
            ..VamanaParams::default()
        }
    }

    /// Checks the ranges (the same for options from JS and for parameters read back from a
    /// snapshot or segment file, which map the error to `HV_CORRUPT`).
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` when a parameter is out of range.
    pub fn validate(&self) -> Result<()> {
        self.vamana().validate().map_err(build_error)?;
        if self.bits != AUTO_BITS && !(1..=8).contains(&self.bits) {
            return Err(Error::invalid_argument(format!(
                "bits must be an integer in 1..=8, got {}",
                self.bits
            )));
        }
        if self.seed > crate::types::MAX_SAFE_INTEGER {
            return Err(Error::invalid_argument(format!(
                "seed must be a safe integer, got {}",
                self.seed
            )));
        }
        Ok(())
    }
}

/// The crate error of a graph error: `HV_CANCELLED`, or `HV_INVALID_ARGUMENT` with its message.
pub(super) fn build_error(e: BuildError) -> Error {
    match e {
        BuildError::Cancelled => Error::Cancelled,
        other => Error::invalid_argument(other.to_string()),
    }
}

/// The RaBitQ parameters of an index's codes: its code width, and a seed derived from the build
/// seed.
pub fn code_params(params: &IndexParams) -> RabitqParams {
    RabitqParams::new(params.bits).with_seed(params.seed ^ 0x9e37_79b9_7f4a_7c15)
}
