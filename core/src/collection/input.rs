//! Rows copied out of a collection for a background build: a seal's live mutable rows, an
//! interim index's every mutable row, a compaction's live rows of sealed segments.

use super::rows::Rows;
use super::segments::SealedPart;
use crate::ann::{AnnIndex, IndexParams};
use crate::error::{Error, Result};
use crate::rowdata::RowBuf;
use crate::segment::SegmentRows;
use crate::types::{Metric, VectorId};

/// Rows copied out of a collection for a build (bounded by the seal threshold), in row order.
#[derive(Debug)]
pub(crate) struct SealInput {
    /// Vector dimension.
    pub(crate) dim: usize,
    /// Metric.
    pub(crate) metric: Metric,
    /// Ids, one per row.
    pub(crate) ids: Vec<VectorId>,
    /// Insertion sequences.
    pub(crate) seqs: Vec<u64>,
    /// `n × dim` values, in the collection's precision.
    pub(crate) vectors: RowBuf,
    /// 1/‖x‖ per row (cosine), else empty.
    pub(crate) inv_norms: Vec<f32>,
    /// Metadata JSON per row (empty for an interim index's copy).
    pub(crate) metadata: Vec<Option<String>>,
}

/// Whether a copy of rows takes their metadata: a seal writes it into the segment, an interim
/// index (memory only, over the rows that keep it) does not need it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Metadata {
    /// Copy the metadata column.
    Copy,
    /// Leave the copy's metadata column empty.
    Skip,
}

#[cfg_attr(not(feature = "durable"), allow(dead_code))]
impl SealInput {
    /// Copies rows `rows` of `from` (in that order) out, with or without their metadata.
    pub(super) fn copy(from: &Rows, rows: &[usize], metadata: Metadata) -> SealInput {
        let metadata = metadata == Metadata::Copy;
        let dim = from.dim;
        let mut input = SealInput {
            dim,
            metric: from.metric,
            ids: Vec::with_capacity(rows.len()),
            seqs: Vec::with_capacity(rows.len()),
            vectors: RowBuf::new(from.precision()),
            inv_norms: Vec::new(),
            metadata: Vec::with_capacity(if metadata { rows.len() } else { 0 }),
        };
        // the copy is bounded by the seal threshold: an allocation failure aborts, as before
        let _ = input.vectors.try_reserve_exact(rows.len() * dim);
        for &r in rows {
            input.ids.push(from.ids[r].clone());
            input.seqs.push(from.seqs[r]);
            input.vectors.extend_rows(from.row(r));
            if let Some(&inv) = from.inv_norms.get(r) {
                input.inv_norms.push(inv);
            }
            if metadata {
                input.metadata.push(from.metadata[r].clone());
            }
        }
        input
    }

    /// The rows as the segment writer takes them.
    pub(crate) fn rows(&self) -> SegmentRows<'_> {
        SegmentRows {
            dim: self.dim,
            metric: self.metric,
            ids: &self.ids,
            seqs: &self.seqs,
            vectors: self.vectors.as_slice(),
            inv_norms: &self.inv_norms,
            metadata: &self.metadata,
        }
    }

    /// Number of rows.
    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    /// True without rows.
    pub(crate) fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Builds the Vamana index of these rows (node `i` = row `i`) on the current thread pool.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` (parameters), `HV_CANCELLED`.
    pub(crate) fn build_index(
        &self,
        params: IndexParams,
        cancel: &std::sync::atomic::AtomicBool,
    ) -> Result<AnnIndex> {
        let view = super::rows::flat_view(
            self.dim,
            self.metric,
            self.vectors.as_slice(),
            &self.inv_norms,
            &self.seqs,
            &[],
            crate::distance::kernels(),
        );
        AnnIndex::build(&view, params, &|_, _| {}, cancel)
    }

    /// The live rows of `parts` (a compaction's input), in insertion order, with the
    /// `(generation, row)` each came from.
    ///
    /// # Errors
    /// `HV_CORRUPT` (an id or metadata that cannot be read, a non-finite value),
    /// `HV_OUT_OF_MEMORY`, `HV_INTERNAL` (no part).
    pub(crate) fn from_parts(parts: &[SealedPart]) -> Result<(SealInput, Vec<(u64, u32)>)> {
        let first = parts
            .first()
            .ok_or_else(|| Error::Internal("compaction of no segment".into()))?;
        let dim = first.seg.dim();
        let metric = first.seg.view(&[], crate::distance::kernels()).metric;
        let mut rows: Vec<(u64, usize, u32)> = Vec::new();
        for (p, part) in parts.iter().enumerate() {
            for row in 0..part.seg.len() as u32 {
                if part.is_live(row) {
                    rows.push((part.seg.seq(row), p, row));
                }
            }
        }
        rows.sort_unstable();
        let n = rows.len();
        let mut input = SealInput {
            dim,
            metric,
            ids: Vec::with_capacity(n),
            seqs: Vec::with_capacity(n),
            vectors: RowBuf::new(first.seg.precision()),
            inv_norms: Vec::new(),
            metadata: Vec::with_capacity(n),
        };
        input
            .vectors
            .try_reserve_exact(n * dim)
            .map_err(|_| Error::OutOfMemory(format!("compaction of {n} rows")))?;
        let mut origin = Vec::with_capacity(n);
        for (seq, p, row) in rows {
            let seg = &parts[p].seg;
            input.ids.push(seg.id(row)?);
            input.seqs.push(seq);
            super::validate::check_sealed_row(seg.generation(), row, &seg.vector(row))?;
            input.vectors.extend_rows(seg.row(row));
            if let Some(inv) = seg.inv_norm(row) {
                input.inv_norms.push(inv);
            }
            input.metadata.push(seg.metadata(row)?);
            origin.push((seg.generation(), row));
        }
        Ok((input, origin))
    }
}
