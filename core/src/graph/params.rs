//! [`VamanaParams`]: the parameters of the Vamana build and of inserts (the paper's R, L, α,
//! passes), their domains and the start graph of the first pass.

use super::BuildError;

/// Parameters of the Vamana build and of inserts.
///
/// Defaults: R = 32, L = 64, α = 1.1, 1 pass from an empty start graph. Chosen on 100k × 384
/// MiniLM embeddings (cosine; `core/examples/vamana_eval.rs`): against the paper's schedule (random
/// start, 2 passes, α = 1 then α) the single pass builds about twice as fast at equal or better
/// recall per distance computation, and α = 1.1 beats α = 1.2 by about 20 % in queries per second
/// at recall@10 = 0.95 (α = 1.0 builds another 2–3× faster, 10 % fewer queries per second).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VamanaParams {
    /// R: maximum out-degree (1..=4096). The graph takes `4·(R + 1)` bytes per node. Typical
    /// 24–64; larger R raises recall at a given list size and costs build time and memory.
    pub r: usize,
    /// L: list size of the greedy search run for each inserted point (≥ 1; values below R are
    /// raised to R). Larger L builds more slowly and gives a better graph. Typical 50–128.
    pub l: usize,
    /// α ≥ 1, with the paper's meaning on Euclidean distances: applied as α² to squared L2 and
    /// cosine distances (see the module documentation). α > 1 keeps longer edges; α = 1 gives the
    /// sparsest graph. Typical 1.0–1.2. (DiskANN's code applies its α to *squared* L2, so its
    /// usual 1.2 is α ≈ 1.095 here.)
    pub alpha: f32,
    /// Passes over all points (≥ 1). With 2 or more, the first pass uses α = 1 and the others α
    /// (the paper's schedule); with 1, the only pass uses α.
    pub passes: usize,
    /// Seed of every random choice (start graph, visiting orders, sampled medoid). The default
    /// is below 2⁵³, so it survives a round trip through a JS number.
    pub seed: u64,
    /// The graph the first pass starts from.
    pub start: StartGraph,
}

/// The graph the first build pass starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartGraph {
    /// The DiskANN paper's start: every node gets min(R, n − 1) distinct random out-neighbours.
    Random,
    /// ParlayANN's start (the default): no edge at all; the entry point is the first node and the
    /// first pass inserts every other node (in prefix-doubling batches), searching only the graph
    /// built so far. Cheaper (early searches run on a small graph); same recall in our
    /// measurements.
    Empty,
}

impl Default for VamanaParams {
    fn default() -> Self {
        VamanaParams {
            r: 32,
            l: 64,
            alpha: 1.1,
            passes: 1,
            seed: 0x0005_EED0_FD15_CA77,
            start: StartGraph::Empty,
        }
    }
}

/// Largest L accepted (by the API, and in a snapshot or segment file read back).
pub const MAX_L: usize = 100_000;
/// Largest α accepted.
pub const MAX_ALPHA: f32 = 4.0;
/// Most build passes accepted.
pub const MAX_PASSES: usize = 8;

impl VamanaParams {
    /// Checks the parameter domains: R in 1..=4096, L in 1..=[`MAX_L`], α in [1, [`MAX_ALPHA`]],
    /// passes in 1..=[`MAX_PASSES`]. The one check behind the API's options and the parameters
    /// read from snapshot and segment files, so a file cannot carry what the API refuses.
    ///
    /// # Errors
    /// [`BuildError::InvalidParams`] naming the offending parameter.
    pub fn validate(&self) -> Result<(), BuildError> {
        if self.r == 0 || self.r > 4096 {
            return Err(BuildError::InvalidParams("R must be in 1..=4096"));
        }
        if self.l == 0 || self.l > MAX_L {
            return Err(BuildError::InvalidParams("L must be in 1..=100000"));
        }
        if !(self.alpha >= 1.0 && self.alpha <= MAX_ALPHA) {
            return Err(BuildError::InvalidParams(
                "alpha must be a number in [1, 4]",
            ));
        }
        if self.passes == 0 || self.passes > MAX_PASSES {
            return Err(BuildError::InvalidParams("passes must be in 1..=8"));
        }
        Ok(())
    }

    /// α of pass `pass` (0-based): 1 for the first of several passes, else α.
    pub fn alpha_of_pass(&self, pass: usize) -> f32 {
        if self.passes >= 2 && pass == 0 {
            1.0
        } else {
            self.alpha
        }
    }
}
