//! Snapshots of format version 5 on the collection's side (`crate::snapshot` draws the layout):
//! a collection written as sealed segment images, and loaded by installing each image as a
//! sealed part read in place from one buffer (or a memory map), with no per-record work.
//!
//! A loaded collection is an in-memory collection with sealed parts. Writes go to the mutable
//! segment, whose records are scanned exactly (the sealed parts keep their graphs); an upsert
//! or a delete of a sealed record tombstones its row. Operations that work on one in-memory
//! graph (`buildIndex`, `importGraph`, `exportGraph`) first move every record into the mutable
//! segment ([`Collection::unseal`]), which is what a version-4 load did at once.

use std::sync::Arc;

use super::{Collection, SealedPart, FLAT_THRESHOLD};
use crate::ann::{code_params, AnnIndex};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::quant::RabitqIndex;
use crate::region::{AlignedBuf, Backing, SubBacking};
use crate::rowdata::Precision;
use crate::segment::{Segment, SegmentRows};
use crate::snapshot::{self, PartBytes, PartKind, PartOut};

impl Collection {
    /// Whether [`Collection::to_bytes`] writes format version 5: sealed parts, or a full index
    /// over at least one record (`f32` or `f16` rows: a segment image stores either).
    pub(super) fn writes_parts(&self) -> bool {
        !self.segments.parts.is_empty()
            || (!self.mutable.deferred
                && self.mutable.index.is_some()
                && self.mutable.rows.live() > 0)
    }

    /// The version-5 snapshot: every sealed part's file as it is, with its tombstones; the
    /// mutable segment as one more segment image when it has a full index (consolidated first),
    /// else its live records as a version-3 stream.
    ///
    /// # Errors
    /// `HV_OUT_OF_MEMORY`, `HV_INTERNAL`.
    pub(super) fn snapshot_parts(&mut self) -> Result<Vec<u8>> {
        if !self.mutable.deferred {
            self.consolidate()?; // a no-op without tombstones
        }
        let stream = match (&self.mutable.index, self.mutable.deferred) {
            (Some(_), false) => None,
            _ if self.mutable.rows.live() == 0 => None,
            _ => Some(self.mutable_records_stream()?),
        };
        let mut parts: Vec<PartOut<'_>> = Vec::with_capacity(self.segments.parts.len() + 1);
        for p in &self.segments.parts {
            let tombstones = (0..p.seg.len() as u32).filter(|&r| !p.is_live(r)).collect();
            parts.push(PartOut {
                kind: PartKind::Segment,
                bytes: PartBytes::Bytes(p.seg.image()),
                tombstones,
            });
        }
        let rows = &self.mutable.rows;
        match (&self.mutable.index, &stream) {
            (_, Some(s)) => parts.push(PartOut {
                kind: PartKind::Records,
                bytes: PartBytes::Bytes(s),
                tombstones: Vec::new(),
            }),
            (Some(ix), None) if rows.len() > 0 => {
                let generation = self
                    .segments
                    .parts
                    .iter()
                    .map(|p| p.seg.generation())
                    .max()
                    .map_or(1, |g| g + 1);
                parts.push(PartOut {
                    kind: PartKind::Segment,
                    bytes: PartBytes::Segment {
                        generation,
                        rows: SegmentRows {
                            dim: rows.dim,
                            metric: rows.metric,
                            ids: &rows.ids,
                            seqs: &rows.seqs,
                            vectors: rows.vectors.as_slice(),
                            inv_norms: &rows.inv_norms,
                            metadata: &rows.metadata,
                        },
                        index: ix,
                    },
                    tombstones: Vec::new(),
                });
            }
            _ => {}
        }
        snapshot::write_parts(self.dim(), self.metric(), self.len() as u64, &parts)
    }

    /// Loads a snapshot held by `backing` (a 64-byte aligned buffer, or a memory map of a
    /// file): version 5 is read in place, the segment images installed as sealed parts that
    /// keep `backing` alive; versions 1–4 are decoded as [`Collection::from_bytes`] does (the
    /// backing is then released).
    ///
    /// # Errors
    /// `HV_CORRUPT`, `HV_VERSION`, `HV_OUT_OF_MEMORY`.
    pub fn from_backing(backing: Arc<dyn Backing>) -> Result<Collection> {
        let bytes = backing.bytes();
        if snapshot::version_of(bytes) != Some(snapshot::VERSION_PARTS) {
            return Collection::from_bytes(bytes);
        }
        if !(bytes.as_ptr() as usize).is_multiple_of(64) {
            // segment sections must be aligned for their views: realign (one copy)
            let copy: Arc<dyn Backing> = Arc::new(AlignedBuf::try_from_bytes(bytes)?);
            return Collection::from_backing(copy);
        }
        let head = snapshot::read_parts(bytes)?;
        // the rows' precision: the first part's (every other part must have the same)
        let precision = match head.parts.first() {
            None => Precision::F32,
            Some(p) => {
                // read_parts checked that every part lies inside `bytes`
                let part = &bytes[p.offset as usize..(p.offset + p.len) as usize];
                match p.kind {
                    PartKind::Segment => crate::segment::image_precision(part)?,
                    // from the stream's version alone: its decoder (checksum, header) runs once,
                    // in `restore_stream`, which checks this precision against the stream's flags
                    PartKind::Records
                        if snapshot::version_of(part) == Some(snapshot::VERSION_F16) =>
                    {
                        Precision::F16
                    }
                    PartKind::Records => Precision::F32,
                }
            }
        };
        let mut col = Collection::with_precision(head.dim, head.metric, precision)
            .map_err(|e| Error::Corrupt(format!("snapshot header: {e}")))?;
        let corrupt = |i: usize, e: Error| match e {
            Error::Corrupt(m) | Error::InvalidArgument(m) => {
                Error::Corrupt(format!("snapshot part {i}: {m}"))
            }
            // a stored row that fails a vector check (the sampled code check reads rows)
            Error::InvalidVector { reason, .. } => {
                Error::Corrupt(format!("snapshot part {i}: a stored row: {reason}"))
            }
            other => other,
        };
        for (i, p) in head.parts.iter().enumerate() {
            let sub = SubBacking::new(backing.clone(), p.offset, p.len, "snapshot part")?;
            match p.kind {
                PartKind::Segment => {
                    let tombs = snapshot::tombstones(bytes, p);
                    col.attach_image(Arc::new(sub), &tombs)
                        .map_err(|e| corrupt(i, e))?;
                }
                PartKind::Records => col.restore_stream(sub.bytes()).map_err(|e| corrupt(i, e))?,
            }
        }
        if col.len() as u64 != head.count {
            return Err(Error::Corrupt(format!(
                "snapshot announces {} records, its parts hold {}",
                head.count,
                col.len()
            )));
        }
        Ok(col)
    }

    /// Loads the snapshot file at `path` ([`Collection::from_backing`]): read once into a
    /// 64-byte aligned buffer, with no other copy (`crate::segment::read_aligned`).
    ///
    /// # Errors
    /// `HV_IO` (the file cannot be read), then as [`Collection::from_backing`].
    #[cfg(feature = "durable")]
    pub fn from_file(path: &std::path::Path) -> Result<Collection> {
        let buf = crate::segment::read_aligned(path)?;
        Collection::from_backing(Arc::new(buf))
    }

    /// Installs one segment image of a snapshot as a sealed part with tombstones `tombs`,
    /// after the structural checks an open leaves to `verify`: every graph edge, the id order,
    /// a sample of the codes; and that no live id of it is live elsewhere already.
    fn attach_image(&mut self, image: Arc<dyn Backing>, tombs: &[u32]) -> Result<()> {
        let b = image.bytes();
        if b.len() < crate::segment::HEADER_LEN {
            return Err(Error::Corrupt(
                "a segment image shorter than its header".into(),
            ));
        }
        let mut g = [0u8; 8];
        g.copy_from_slice(&b[64..72]);
        let generation = u64::from_le_bytes(g);
        if self
            .segments
            .parts
            .iter()
            .any(|p| p.seg.generation() == generation)
        {
            return Err(Error::Corrupt(format!("segment {generation} twice")));
        }
        // the snapshot's checksum covered the image: its section CRC-32s are not computed again
        let seg = Segment::from_checked_image(image, (generation, self.dim(), self.metric()))?;
        if seg.precision() != self.precision() {
            return Err(Error::Corrupt(format!(
                "segment {generation} holds {} rows, the snapshot's first part {}",
                seg.precision().name(),
                self.precision().name()
            )));
        }
        seg.index()
            .graph()
            .validate()
            .map_err(|e| Error::Corrupt(format!("segment {generation}: graph: {e}")))?;
        seg.check_id_order()?;
        if let Some(c) = seg.index().codes() {
            super::validate::check_codes(
                c,
                self.dim(),
                self.metric(),
                seg.view(&[], self.kernels()).vectors,
                seg.index().graph().entry_point(),
            )?;
        }
        if tombs.iter().any(|&r| r as usize >= seg.len()) {
            return Err(Error::Corrupt(format!(
                "segment {generation}: a tombstone names a row out of range"
            )));
        }
        let part = SealedPart::new(Arc::new(seg), tombs);
        if !self.is_empty() {
            for row in (0..part.seg.len() as u32).filter(|&r| part.is_live(r)) {
                if self.contains(&part.seg.id(row)?) {
                    return Err(Error::Corrupt(format!(
                        "segment {generation}: an id of row {row} is live in another part"
                    )));
                }
            }
        }
        self.mutable.rows.note_seq(part.seg.max_seq());
        self.segments.push(part);
        self.version += 1;
        Ok(())
    }

    /// Restores the records of a version-3 stream (version 4: `f16` rows) without an index (a
    /// snapshot's records part) into the mutable segment.
    fn restore_stream(&mut self, bytes: &[u8]) -> Result<()> {
        let mut dec = snapshot::Decoder::new(bytes)?;
        if dec.shape() != (self.dim(), self.metric()) || dec.precision() != self.precision() {
            return Err(Error::Corrupt(
                "a records part of another shape or precision".into(),
            ));
        }
        self.mutable.rows.try_reserve(dec.record_count()?)?;
        dec.records(&mut |id, seq, v, h, meta| self.restore_row(id, seq, v, h, meta))?;
        if dec.index()?.is_some() {
            return Err(Error::Corrupt("a records part with an index".into()));
        }
        Ok(())
    }

    /// Builds the mutable segment's full index, with the first sealed part's parameters, once
    /// an in-memory collection with sealed parts (a loaded snapshot) holds [`FLAT_THRESHOLD`]
    /// records beside them: from then on writes keep it up to date, as in any indexed
    /// collection, instead of leaving a growing exact scan. Upkeep: a build that fails (memory)
    /// leaves the records scanned exactly and is tried again at the next write.
    pub(super) fn index_beside_parts(&mut self) {
        let rows = &self.mutable.rows;
        if self.mutable.deferred || rows.live() < FLAT_THRESHOLD || rows.live() != rows.len() {
            return;
        }
        let Some(first) = self.segments.parts.first() else {
            return;
        };
        let params = first.seg.index().params();
        let view = rows.view(&[]);
        let room = crate::mem::ensure_headroom(
            || AnnIndex::build_headroom(view.seqs.len(), view.dim, &params),
            "indexing the records added beside a snapshot",
        );
        if room.is_err() {
            return;
        }
        let cancel = std::sync::atomic::AtomicBool::new(false);
        if let Ok(ix) = AnnIndex::build(&view, params, &|_, _| {}, &cancel) {
            self.mutable.index = Some(ix);
            self.version += 1;
        }
    }

    /// Moves every record of the sealed parts of an in-memory collection into the mutable
    /// segment (in part order, then the mutable records after them), so that the operations of
    /// one in-memory graph apply: what a version-4 snapshot load built at once. When the
    /// collection is exactly one sealed part without tombstones, its index comes along
    /// (graph and codes copied), so `exportGraph` exports the loaded graph. Durable
    /// collections, and collections without sealed parts, are left as they are.
    ///
    /// # Errors
    /// `HV_OUT_OF_MEMORY` (nothing changed), `HV_CORRUPT` from a damaged part.
    pub fn unseal(&mut self) -> Result<()> {
        if self.mutable.deferred || self.segments.parts.is_empty() {
            return Ok(());
        }
        let dim = self.dim();
        crate::mem::ensure_headroom(
            || {
                self.segments
                    .parts
                    .iter()
                    .map(|p| p.seg.len() * (dim * 4 + 96) + p.seg.file_bytes() as usize / 8)
                    .sum()
            },
            "moving a snapshot's records into memory",
        )?;
        let keep_index = self.segments.parts.len() == 1
            && self.segments.parts[0].n_deleted == 0
            && self.mutable.rows.len() == 0;
        // a new collection first (rows in the same precision), swapped in only when complete: a
        // failure changes nothing
        let mut fresh = Collection::with_precision(dim, self.metric(), self.precision())
            .map_err(|e| Error::Internal(e.to_string()))?;
        for p in &self.segments.parts {
            for row in (0..p.seg.len() as u32).filter(|&r| p.is_live(r)) {
                fresh.restore_row(
                    p.seg.id(row)?,
                    p.seg.seq(row),
                    &p.seg.vector(row),
                    None,
                    p.seg.metadata(row)?,
                )?;
            }
        }
        let rows = &self.mutable.rows;
        for r in self.mutable.live_rows() {
            fresh.restore_row(
                rows.ids[r].clone(),
                rows.seqs[r],
                &rows.vector(r),
                None,
                rows.metadata[r].clone(),
            )?;
        }
        fresh.mutable.rows.note_seq(rows.next_seq.saturating_sub(1));
        if keep_index {
            let ix = owned_index(&self.segments.parts[0].seg, self.metric())?;
            fresh.install_loaded(Ok(ix))?;
        }
        fresh.filter_counts = std::mem::take(&mut self.filter_counts);
        fresh.version = self.version + fresh.version + 1;
        *self = fresh;
        Ok(())
    }
}

/// An owned copy of a segment's index (graph and codes), for a collection whose rows moved
/// into memory in the segment's row order.
fn owned_index(seg: &Segment, metric: crate::types::Metric) -> Result<AnnIndex> {
    let ix = seg.index();
    let g = ix.graph();
    let n = g.len() as u32;
    let degrees: Vec<u32> = (0..n).map(|i| g.neighbors(i).len() as u32).collect();
    let mut neighbors = Vec::with_capacity(degrees.iter().map(|&d| d as usize).sum());
    for i in 0..n {
        neighbors.extend_from_slice(g.neighbors(i));
    }
    let graph = Graph::from_parts(g.max_degree(), &degrees, &neighbors, g.entry_point())
        .map_err(|e| Error::Corrupt(format!("segment graph: {e}")))?;
    let codes = match ix.codes() {
        None => None,
        Some(c) => Some(RabitqIndex::from_parts(
            seg.dim(),
            metric,
            code_params(&ix.params()),
            c.centroid().to_vec(),
            c.records(),
        )?),
    };
    AnnIndex::from_mapped(metric, ix.params(), graph, codes)
}
