//! Exact (brute-force) search over a row-major `n × dim` `f32` matrix: the truth that every
//! approximate index is measured against.
//!
//! Single queries stream the matrix once (memory-bound: QPS ≈ bandwidth / (n · dim · 4 B)).
//! Batches ([`search_batch`]) walk the matrix in tiles that fit the L2 cache and score each tile
//! against groups of four queries with the `*_x4` kernels, so each row is read from memory once
//! per chunk of queries instead of once per query; natively, chunks run on the rayon pool.
//!
//! Results are the true top-k under the metric (lower is closer), ties broken by insertion
//! sequence (earlier first), so results are deterministic.

mod topk;

pub use topk::{Hit, TopK};

use crate::distance::Kernels;
use crate::region::RecordPages;
use crate::rowdata::RowSlice;
use crate::types::Metric;

/// A borrowed view of the rows to scan.
///
/// Invariants: `vectors.len() == n · dim`; `seqs.len() == n`; `inv_norms.len() == n` when the
/// metric is cosine (1 / ‖x‖ per row), else it may be empty.
#[derive(Clone, Copy)]
pub struct FlatView<'a> {
    /// Vector dimension.
    pub dim: usize,
    /// The metric scores are computed in.
    pub metric: Metric,
    /// `n × dim` row-major values (`f32` or half precision).
    pub vectors: RowSlice<'a>,
    /// Per-row 1/‖x‖ (cosine only).
    pub inv_norms: &'a [f32],
    /// Per-row insertion sequence numbers, the tie-breaker.
    pub seqs: &'a [u64],
    /// Per-row tombstone flags (rows to skip), or empty when no row is deleted.
    pub deleted: &'a [bool],
    /// The kernel set to use.
    pub kernels: &'static Kernels,
    /// The rows of a mapped file (a sealed segment) that `vectors` is read from, for paging
    /// hints ([`FlatView::will_need`]); `None` for rows in memory and for sequential scans.
    pub pages: Option<&'a RecordPages>,
}

impl FlatView<'_> {
    fn rows(&self) -> usize {
        self.seqs.len()
    }

    /// Distance of prepared query `q` (see [`prepare_query`]) to row `i`; lower is closer.
    ///
    /// # Panics
    /// If row `i` is out of range (`vectors` holds fewer than `(i + 1) · dim` values, or, under
    /// cosine, `inv_norms` fewer than `i + 1`).
    #[inline]
    pub fn distance(&self, q: &[f32], i: usize) -> f32 {
        let k = self.kernels;
        match self.vectors.row(i, self.dim) {
            RowSlice::F32(x) => match self.metric {
                Metric::L2 => (k.l2sq_f32)(q, x),
                Metric::InnerProduct => -(k.dot_f32)(q, x),
                Metric::Cosine => cosine(q, x, self.inv_norms[i], k),
                Metric::L1 => (k.l1_f32)(q, x),
            },
            RowSlice::F16(x) => match self.metric {
                Metric::L2 => (k.l2sq_f16)(q, x),
                Metric::InnerProduct => -(k.dot_f16)(q, x),
                Metric::Cosine => cosine_f16(q, x, self.inv_norms[i], k),
                Metric::L1 => (k.l1_f16)(q, x),
            },
        }
    }

    /// Asks the medium for row `i` ahead of use, the first time only, when the rows are read
    /// from a mapped file (`RecordPages::will_need`); nothing for rows in memory.
    #[inline]
    pub fn will_need(&self, i: usize) {
        if let Some(p) = self.pages {
            p.will_need(i);
        }
    }

    /// Asks the CPU to start loading row `i` into cache (e.g. the next rows of a rerank). Only a
    /// hint (`crate::region::prefetch`): no effect for `i >= n`.
    #[inline]
    pub fn prefetch(&self, i: usize) {
        self.vectors.prefetch(i, self.dim);
    }
}

/// Cosine distance of unit query `q` to row `x` with 1/‖x‖ = `inv`, clamped to [0, 2]
/// ([`crate::distance::cosine_distance`]: rows too large for `f32` arithmetic are scored in f64).
#[inline]
fn cosine(q: &[f32], x: &[f32], inv: f32, k: &Kernels) -> f32 {
    crate::distance::cosine_distance((k.dot_f32)(q, x), 1.0, inv, q, x)
}

/// [`cosine`] of a half-precision row (the `f64` fallback widens the row).
#[inline]
fn cosine_f16(q: &[f32], x: &[half::f16], inv: f32, k: &Kernels) -> f32 {
    let dot = (k.dot_f16)(q, x);
    if dot.is_finite() && inv >= f32::MIN_POSITIVE {
        (1.0 - dot * inv).clamp(0.0, 2.0)
    } else {
        let mut wide = vec![0f32; x.len()];
        (k.widen_f16)(x, &mut wide);
        crate::distance::cosine_f64(q, &wide)
    }
}

/// Turns a raw query into the form the scan expects: under cosine it is scaled to unit norm, with
/// the norm computed in f64 so that huge or tiny finite queries neither overflow nor underflow
/// (the caller has rejected zero vectors); other metrics use it as is.
pub fn prepare_query(metric: Metric, q: &[f32], out: &mut Vec<f32>) {
    out.clear();
    if metric == Metric::Cosine {
        let n = crate::vector::norm_f64(q);
        let inv = if n > 0.0 { 1.0 / n } else { 1.0 };
        out.extend(q.iter().map(|&x| (x as f64 * inv) as f32));
    } else {
        out.extend_from_slice(q);
    }
}

/// Merges `more` into the best-first `hits` and keeps the best `k`, by (distance, insertion
/// sequence): a walk's hits and the exact scan of the rows its index does not cover.
pub fn merge_best(hits: &mut Vec<Hit>, more: impl IntoIterator<Item = Hit>, k: usize) {
    hits.extend(more);
    hits.sort_unstable_by(|a, b| a.dist.total_cmp(&b.dist).then(a.seq.cmp(&b.seq)));
    hits.truncate(k);
}

/// The exact top-`k` among rows `rows` (live rows of the view, e.g. a filter's matches) of one
/// prepared query, best first.
pub fn search_rows(
    view: &FlatView<'_>,
    q: &[f32],
    k: usize,
    rows: impl Iterator<Item = u32>,
) -> Vec<Hit> {
    let mut top = TopK::new(k);
    for r in rows {
        let i = r as usize;
        top.push(view.distance(q, i), view.seqs[i], r);
    }
    top.into_sorted()
}

/// The exact top-`k` of one prepared query, best first.
pub fn search_one(view: &FlatView<'_>, q: &[f32], k: usize) -> Vec<Hit> {
    let mut top = TopK::new(k);
    if view.deleted.is_empty() {
        for i in 0..view.rows() {
            top.push(view.distance(q, i), view.seqs[i], i as u32);
        }
    } else {
        for i in (0..view.rows()).filter(|&i| !view.deleted[i]) {
            top.push(view.distance(q, i), view.seqs[i], i as u32);
        }
    }
    top.into_sorted()
}

/// Rows per tile: about 256 KiB of `f32`, so a tile stays in L2 while a chunk of queries scans it.
fn tile_rows(dim: usize) -> usize {
    (256 * 1024 / (dim * 4)).clamp(8, 4096)
}

/// Queries handled by one pass over the matrix (one rayon task natively).
const CHUNK_QUERIES: usize = 32;

/// Exact top-`k` for `nq` prepared queries stored row-major in `queries` (`nq × dim`), best first.
pub fn search_batch(view: &FlatView<'_>, queries: &[f32], k: usize) -> Vec<Vec<Hit>> {
    let dim = view.dim;
    let chunk_len = CHUNK_QUERIES * dim;
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        queries
            .par_chunks(chunk_len)
            .flat_map_iter(|c| scan_chunk(view, c, k))
            .collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        queries
            .chunks(chunk_len)
            .flat_map(|c| scan_chunk(view, c, k))
            .collect()
    }
}

/// One tiled pass over the matrix for up to [`CHUNK_QUERIES`] queries.
fn scan_chunk(view: &FlatView<'_>, queries: &[f32], k: usize) -> Vec<Vec<Hit>> {
    let dim = view.dim;
    let nq = queries.len() / dim;
    let mut tops: Vec<TopK> = (0..nq).map(|_| TopK::new(k)).collect();
    let n = view.rows();
    let tile = tile_rows(dim);
    let kern = view.kernels;
    let q = |j: usize| &queries[j * dim..(j + 1) * dim];
    let mut wide: Vec<f32> = Vec::new();
    let mut start = 0;
    while start < n {
        let end = (start + tile).min(n);
        // the tile as f32: borrowed, or widened once for the whole chunk of queries (f16 rows)
        let vals: &[f32] = match view.vectors.range(start * dim, end * dim) {
            RowSlice::F32(v) => v,
            RowSlice::F16(v) => {
                wide.clear();
                wide.resize(v.len(), 0.0);
                (kern.widen_f16)(v, &mut wide);
                &wide
            }
        };
        let mut g = 0;
        while g < nq {
            let cnt = (nq - g).min(4);
            match view.metric {
                Metric::L1 => {
                    for (j, top) in tops.iter_mut().enumerate().skip(g).take(cnt) {
                        for i in start..end {
                            if view.deleted.is_empty() || !view.deleted[i] {
                                top.push(view.distance(q(j), i), view.seqs[i], i as u32);
                            }
                        }
                    }
                }
                metric => {
                    // Pad a short group by repeating its last query; extra lanes are ignored.
                    let group = [
                        q(g),
                        q(g + 1.min(cnt - 1)),
                        q(g + 2.min(cnt - 1)),
                        q(g + 3.min(cnt - 1)),
                    ];
                    for i in start..end {
                        if !view.deleted.is_empty() && view.deleted[i] {
                            continue;
                        }
                        let x = &vals[(i - start) * dim..(i - start + 1) * dim];
                        let d4 = match metric {
                            Metric::L2 => (kern.l2sq_f32_x4)(&group, x),
                            Metric::InnerProduct => (kern.dot_f32_x4)(&group, x).map(|d| -d),
                            _ => {
                                let inv = view.inv_norms[i];
                                let d4 = (kern.dot_f32_x4)(&group, x);
                                std::array::from_fn(|lane| {
                                    crate::distance::cosine_distance(
                                        d4[lane],
                                        1.0,
                                        inv,
                                        group[lane],
                                        x,
                                    )
                                })
                            }
                        };
                        for (lane, &d) in d4.iter().enumerate().take(cnt) {
                            tops[g + lane].push(d, view.seqs[i], i as u32);
                        }
                    }
                }
            }
            g += cnt;
        }
        start = end;
    }
    tops.into_iter().map(TopK::into_sorted).collect()
}
