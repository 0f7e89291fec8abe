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

    /// Parameters from JS numbers; `None` keeps the default.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` when a value is not an integer in range (R in 1..=4096, L ≥ 1,
    /// passes in 1..=8, bits in 1..=8, seed a safe integer) or α is not a finite number in [1, 4].
    pub fn from_f64(
        r: Option<f64>,
        l: Option<f64>,
        alpha: Option<f64>,
        passes: Option<f64>,
        bits: Option<f64>,
        seed: Option<f64>,
    ) -> Result<IndexParams> {
        let d = IndexParams::default();
        let int = |name: &str, v: Option<f64>, lo: f64, hi: f64, def: usize| -> Result<usize> {
            match v {
                None => Ok(def),
                Some(x) if x.is_finite() && x.fract() == 0.0 && x >= lo && x <= hi => {
                    Ok(x as usize)
                }
                Some(x) => Err(Error::invalid_argument(format!(
                    "{name} must be an integer in {lo}..={hi}, got {x}"
                ))),
            }
        };
        let alpha = match alpha {
            None => d.alpha,
            Some(a) if a.is_finite() && (1.0..=4.0).contains(&a) => a as f32,
            Some(a) => {
                return Err(Error::invalid_argument(format!(
                    "alpha must be a number in [1, 4], got {a}"
                )))
            }
        };
        let p = IndexParams {
            r: int("R", r, 1.0, 4096.0, d.r)?,
            l: int("L", l, 1.0, 100_000.0, d.l)?,
            alpha,
            passes: int("passes", passes, 1.0, 8.0, d.passes)?,
            bits: match bits {
                None => AUTO_BITS,
                b => int("bits", b, 1.0, 8.0, 0)? as u8,
            },
            seed: int("seed", seed, 0.0, crate::types::MAX_SAFE_INTEGER as f64, 0)? as u64,
        };
        let p = if seed.is_none() {
            IndexParams { seed: d.seed, ..p }
        } else {
            p
        };
        p.validate()?;
        Ok(p)
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
