//! Ready-made distance providers over a row-major `f32` matrix: [`FlatNodes`] (node to node) and
//! [`FlatQuery`] (exact query to node), plus [`NodeQuery`], which turns any [`NodeDistance`] into
//! a [`QueryDistance`] whose query is a stored node.

use super::{AlphaRule, NodeDistance, QueryDistance};
use crate::distance::Kernels;
use crate::rowdata::RowSlice;
use crate::types::Metric;

/// Exact node-to-node distances over a row-major `n × dim` `f32` matrix.
///
/// Distances (lower is closer):
/// * [`Metric::L2`]: squared Euclidean distance Σ (aᵢ − bᵢ)²;
/// * [`Metric::Cosine`]: 1 − ⟨a, b⟩ · ‖a‖⁻¹ · ‖b‖⁻¹, with the inverse norms taken from
///   `inv_norms` if present, else the rows are assumed to be unit-norm (1 − ⟨a, b⟩);
/// * [`Metric::InnerProduct`]: −⟨a, b⟩;
/// * [`Metric::L1`]: Σ |aᵢ − bᵢ|.
///
/// `Copy` and cheap to build: after appending rows, make a new one over the longer slice.
#[derive(Clone, Copy, Debug)]
pub struct FlatNodes<'a> {
    /// The rows, `len() × dim` values, row-major (`f32` or half precision).
    pub vectors: RowSlice<'a>,
    /// Values per row (> 0).
    pub dim: usize,
    /// How distance is measured.
    pub metric: Metric,
    /// The SIMD kernels, usually [`crate::distance::kernels`].
    pub kernels: &'static Kernels,
    /// Cosine only: one inverse norm 1/‖row‖ per row (0 for a zero row; see [`inverse_norms`]).
    /// `None` means the rows are already unit-norm. Ignored by the other metrics.
    pub inv_norms: Option<&'a [f32]>,
}

impl<'a> FlatNodes<'a> {
    /// Rows `vectors` (`n × dim`, row-major) under `metric`, with the best kernels of this CPU and
    /// no inverse norms (for cosine, rows must then be unit-norm; see [`FlatNodes::with_inv_norms`]).
    ///
    /// # Panics
    /// If `dim == 0` or `vectors.len()` is not a multiple of `dim`.
    pub fn new(vectors: &'a [f32], dim: usize, metric: Metric) -> Self {
        Self::from_rows(RowSlice::F32(vectors), dim, metric)
    }

    /// [`FlatNodes::new`] over rows of either precision (`f16` rows are widened exactly, one
    /// row per distance: builds widen a copy of the whole matrix first, see
    /// [`crate::AnnIndex::build`]).
    ///
    /// # Panics
    /// If `dim == 0` or `vectors.len()` is not a multiple of `dim`.
    pub fn from_rows(vectors: RowSlice<'a>, dim: usize, metric: Metric) -> Self {
        assert!(
            dim > 0 && vectors.len().is_multiple_of(dim),
            "vectors must be n × dim with dim > 0"
        );
        FlatNodes {
            vectors,
            dim,
            metric,
            kernels: crate::distance::kernels(),
            inv_norms: None,
        }
    }

    /// Sets the per-row inverse norms used by cosine (`len()` values; see [`inverse_norms`]).
    ///
    /// # Panics
    /// If `inv_norms.len() != self.len()`.
    pub fn with_inv_norms(mut self, inv_norms: &'a [f32]) -> Self {
        assert_eq!(
            inv_norms.len(),
            self.vectors.len() / self.dim,
            "one inverse norm per row"
        );
        self.inv_norms = Some(inv_norms);
        self
    }

    /// Row `i` (`dim` values), widened from half precision.
    #[inline]
    pub fn row(&self, i: u32) -> std::borrow::Cow<'a, [f32]> {
        self.vectors.row(i as usize, self.dim).to_f32()
    }

    /// Asks the CPU to load row `i` into cache (a hint).
    #[inline]
    pub fn prefetch_row(&self, i: u32) {
        self.vectors.prefetch(i as usize, self.dim);
    }

    #[inline]
    fn inv_norm(&self, i: u32) -> f32 {
        match self.inv_norms {
            Some(n) => n[i as usize],
            None => 1.0,
        }
    }

    /// Exact distance from a query (`dim` values) to row `i`; `q_inv_norm` is 1/‖q‖ for cosine
    /// (ignored otherwise).
    #[inline]
    pub fn query_distance(&self, q: &[f32], q_inv_norm: f32, i: u32) -> f32 {
        let k = self.kernels;
        let r = match self.vectors.row(i as usize, self.dim) {
            RowSlice::F32(r) => r,
            RowSlice::F16(h) => {
                return match self.metric {
                    Metric::L2 => (k.l2sq_f16)(q, h),
                    Metric::Cosine => {
                        let dot = (k.dot_f16)(q, h);
                        let inv = self.inv_norm(i);
                        if dot.is_finite()
                            && inv >= f32::MIN_POSITIVE
                            && q_inv_norm >= f32::MIN_POSITIVE
                        {
                            1.0 - dot * q_inv_norm * inv
                        } else {
                            crate::distance::cosine_f64(q, &self.row(i))
                        }
                    }
                    Metric::InnerProduct => -(k.dot_f16)(q, h),
                    Metric::L1 => (k.l1_f16)(q, h),
                };
            }
        };
        match self.metric {
            Metric::L2 => (k.l2sq_f32)(q, r),
            Metric::Cosine => crate::distance::cosine_unclamped(
                (k.dot_f32)(q, r),
                q_inv_norm,
                self.inv_norm(i),
                q,
                r,
            ),
            Metric::InnerProduct => -(k.dot_f32)(q, r),
            Metric::L1 => (k.l1_f32)(q, r),
        }
    }
}

impl NodeDistance for FlatNodes<'_> {
    #[inline]
    fn len(&self) -> usize {
        self.vectors.len() / self.dim
    }

    #[inline]
    fn distance(&self, a: u32, b: u32) -> f32 {
        let inv_a = if self.metric == Metric::Cosine {
            self.inv_norm(a)
        } else {
            1.0
        };
        self.query_distance(&self.row(a), inv_a, b)
    }

    #[inline]
    fn prefetch(&self, node: u32) {
        self.prefetch_row(node);
    }

    fn alpha_rule(&self) -> AlphaRule {
        match self.metric {
            Metric::L2 | Metric::Cosine => AlphaRule::Squared,
            Metric::InnerProduct => AlphaRule::NegatedSimilarity,
            Metric::L1 => AlphaRule::Linear,
        }
    }

    /// The row closest (squared L2) to the centroid of all rows (cosine: of the normalised
    /// rows), accumulated in `f64`; ties go to the lowest id. `None` when there is no row.
    fn medoid(&self) -> Option<u32> {
        let n = self.len();
        if n == 0 {
            return None;
        }
        let dim = self.dim;
        let cosine = self.metric == Metric::Cosine;
        let mut sum = vec![0f64; dim];
        for i in 0..n as u32 {
            let w = if cosine {
                f64::from(self.inv_norm(i))
            } else {
                1.0
            };
            for (s, &x) in sum.iter_mut().zip(self.row(i).iter()) {
                *s += f64::from(x) * w;
            }
        }
        let centroid: Vec<f32> = sum.iter().map(|s| (s / n as f64) as f32).collect();
        let mut best = (f32::INFINITY, 0u32);
        for i in 0..n as u32 {
            let r = self.row(i);
            let d = if cosine {
                // ‖r/‖r‖ − c‖² = 1 − 2⟨r, c⟩/‖r‖ + ‖c‖²: rank by −2⟨r, c⟩/‖r‖.
                -2.0 * (self.kernels.dot_f32)(&centroid, &r) * self.inv_norm(i)
            } else {
                (self.kernels.l2sq_f32)(&centroid, &r)
            };
            if d < best.0 {
                best = (d, i);
            }
        }
        Some(best.1)
    }
}

/// 1/‖row‖ for each row of a row-major `n × dim` matrix (0 for an all-zero row), for
/// [`FlatNodes::with_inv_norms`]. Norms are accumulated in `f64`.
///
/// # Panics
/// If `dim == 0` or `vectors.len()` is not a multiple of `dim`.
pub fn inverse_norms(vectors: &[f32], dim: usize) -> Vec<f32> {
    assert!(
        dim > 0 && vectors.len().is_multiple_of(dim),
        "vectors must be n × dim with dim > 0"
    );
    vectors
        .chunks_exact(dim)
        .map(|r| {
            let n2: f64 = r.iter().map(|&x| f64::from(x) * f64::from(x)).sum();
            if n2 > 0.0 {
                (1.0 / n2.sqrt()) as f32
            } else {
                0.0
            }
        })
        .collect()
}

/// Exact distances from one `f32` query to the rows of a [`FlatNodes`] (same metric and units),
/// counting the calls.
#[derive(Clone, Copy, Debug)]
pub struct FlatQuery<'a, 'q> {
    nodes: FlatNodes<'a>,
    query: &'q [f32],
    inv_norm: f32,
    /// Number of [`QueryDistance::distance`] calls so far.
    pub count: u64,
}

impl<'a, 'q> FlatQuery<'a, 'q> {
    /// A query over `nodes`. For cosine the query's norm is computed here (a zero query gives
    /// distance 1 to every row).
    ///
    /// # Panics
    /// If `query.len() != nodes.dim`.
    pub fn new(nodes: FlatNodes<'a>, query: &'q [f32]) -> Self {
        assert_eq!(query.len(), nodes.dim, "query length must be dim");
        let inv_norm = if nodes.metric == Metric::Cosine {
            let n2 = (nodes.kernels.dot_f32)(query, query);
            if n2 > 0.0 {
                1.0 / n2.sqrt()
            } else {
                0.0
            }
        } else {
            1.0
        };
        FlatQuery {
            nodes,
            query,
            inv_norm,
            count: 0,
        }
    }
}

impl QueryDistance for FlatQuery<'_, '_> {
    #[inline]
    fn distance(&mut self, node: u32) -> f32 {
        self.count += 1;
        self.nodes.query_distance(self.query, self.inv_norm, node)
    }

    #[inline]
    fn prefetch(&self, node: u32) {
        self.nodes.prefetch_row(node);
    }
}

/// A [`QueryDistance`] whose query is stored node `node` of a [`NodeDistance`] (used by build and
/// insert; also handy to look for the neighbours of a stored node).
#[derive(Clone, Copy, Debug)]
pub struct NodeQuery<'n, N: ?Sized> {
    /// The node provider.
    pub nodes: &'n N,
    /// The stored node playing the query.
    pub node: u32,
}

impl<N: NodeDistance + ?Sized> QueryDistance for NodeQuery<'_, N> {
    #[inline]
    fn distance(&mut self, other: u32) -> f32 {
        self.nodes.distance(self.node, other)
    }

    #[inline]
    fn prefetch(&self, other: u32) {
        self.nodes.prefetch(other);
    }
}
