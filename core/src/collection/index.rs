//! The mutable segment's approximate index as the caller sees it: build and install, install
//! from loaded parts (a snapshot, an import), consolidation of tombstones; and the snapshot of a
//! collection (`crate::snapshot` is the codec; the collection installs what it decodes).

use std::borrow::Cow;
use std::sync::atomic::AtomicBool;

use super::{validate, Collection, CONSOLIDATE_RATIO};

use crate::ann::{AnnIndex, IndexParams};
use crate::error::{Error, Result};
use crate::filter::{codec, index::MetaIndex};
use crate::graph::Graph;
use crate::quant::RabitqIndex;
use crate::snapshot::{self, IndexPart, LoadedIndex};
use crate::types::VectorId;

/// A record gathered for a snapshot of a segmented collection: id, seq, vector, metadata.
type OwnedRecord<'a> = (VectorId, u64, Cow<'a, [f32]>, Option<String>);

impl Collection {
    /// Drops the index (searches become exact flat scans).
    pub fn drop_index(&mut self) {
        if self.mutable.index.is_some() {
            let _ = self.consolidate();
            self.mutable.index = None;
        }
    }

    /// True when an approximate index exists: the mutable segment's, or (in memory) the
    /// graphs of a loaded snapshot's sealed parts.
    pub fn has_index(&self) -> bool {
        self.mutable.index.is_some() || (!self.mutable.deferred && !self.segments.parts.is_empty())
    }

    /// Consolidates when tombstones pass [`CONSOLIDATE_RATIO`] of a full index.
    pub(super) fn maybe_consolidate(&mut self) -> Result<()> {
        if self.mutable.deferred {
            return Ok(()); // tombstones of the mutable segment go away when it is sealed
        }
        match &self.mutable.index {
            // without the memory to rebuild, the tombstones stay (searches filter them) until a
            // later write finds room: consolidation is upkeep, never a reason for a write to fail
            // (its check fails before any change)
            Some(ix) if ix.deleted_count() as f64 > CONSOLIDATE_RATIO * ix.len() as f64 => {
                match self.consolidate() {
                    Err(Error::OutOfMemory(_)) => Ok(()),
                    r => r,
                }
            }
            _ => Ok(()),
        }
    }

    /// Repairs the graph around tombstones (FreshDiskANN) and compacts the rows so that no
    /// deleted record takes space any more. Nothing changes without an index, or with a full
    /// index that holds no tombstones. An interim index (durable collections) is not repaired:
    /// it is dropped together with its tombstoned rows (the mutable segment is then scanned
    /// exactly until a new interim index is built in the background).
    ///
    /// # Errors
    /// `HV_OUT_OF_MEMORY` when the memory to rebuild is lacking (nothing changed);
    /// `HV_INVALID_ARGUMENT` on a graph error during the repair, or as
    /// [`RabitqIndex::from_parts`] when the codes are rebuilt (an internal mismatch either way:
    /// the index is then dropped and exact search goes on).
    pub fn consolidate(&mut self) -> Result<()> {
        if self.mutable.consolidate()? {
            self.version += 1;
        }
        Ok(())
    }

    /// Builds an approximate index over the current records (shared access only: searches go on
    /// meanwhile). Install it with [`Collection::install_index`]. `progress(done, total)` is
    /// called from the calling thread; setting `cancel` stops the build with `HV_CANCELLED`.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` (parameters), `HV_CANCELLED`, `HV_OUT_OF_MEMORY`.
    pub fn build_index(
        &self,
        params: IndexParams,
        progress: &dyn Fn(usize, usize),
        cancel: &AtomicBool,
    ) -> Result<(AnnIndex, u64)> {
        let view = self.mutable.rows.view(&[]);
        crate::mem::ensure_headroom(
            || {
                // f16 rows: the build walks a widened f32 copy (see `AnnIndex::build`)
                let wide = match view.vectors {
                    crate::rowdata::RowSlice::F16(v) => v.len() * 4,
                    crate::rowdata::RowSlice::F32(_) => 0,
                };
                AnnIndex::build_headroom(view.seqs.len(), self.dim(), &params) + wide
            },
            "building the index",
        )?;
        let mut ix = AnnIndex::build(&view, params, progress, cancel)?;
        if let Some(old) = &self.mutable.index {
            for (node, &d) in old.deleted().iter().enumerate() {
                if d {
                    ix.mark_deleted(node as u32);
                }
            }
        }
        Ok((ix, self.version))
    }

    /// Installs an index built by [`Collection::build_index`] at `version`, replacing any
    /// previous one, then consolidates its tombstones if there are many.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` if the collection changed since the build started.
    pub fn install_index(&mut self, ix: AnnIndex, version: u64) -> Result<()> {
        if version != self.version || ix.len() != self.mutable.rows.len() {
            return Err(Error::invalid_argument(
                "the collection changed during the index build; build again",
            ));
        }
        self.mutable.index = Some(ix);
        self.maybe_consolidate()
    }

    /// Installs an index over the current rows from a graph built elsewhere (snapshot load,
    /// import); see [`AnnIndex::from_graph`].
    ///
    /// # Errors
    /// `HV_CORRUPT` when the graph does not fit the rows or the parameters are invalid.
    pub fn install_graph(&mut self, params: IndexParams, graph: Graph) -> Result<()> {
        let ix = AnnIndex::from_graph(&self.mutable.rows.view(&[]), params, graph);
        self.install_loaded(ix)
    }

    /// Installs an index made from loaded parts; a part that does not fit (`HV_INVALID_ARGUMENT`
    /// from the index) is damage in what was loaded: `HV_CORRUPT`.
    pub(super) fn install_loaded(&mut self, ix: Result<AnnIndex>) -> Result<()> {
        let ix = ix.map_err(|e| match e {
            Error::InvalidArgument(m) => Error::Corrupt(m),
            other => other,
        })?;
        self.mutable.index = Some(ix);
        self.version += 1;
        Ok(())
    }

    /// Installs an index from its parts (a snapshot), after checking the codes
    /// (`validate::check_codes`): `graph` and `codes` over every row, node and record `i` =
    /// row `i`, made with `params` (bits resolved). Nothing is encoded again.
    ///
    /// # Errors
    /// `HV_CORRUPT` (parts that do not match the rows or each other, invalid parameters).
    pub fn install_index_parts(
        &mut self,
        params: IndexParams,
        graph: Graph,
        codes: Option<RabitqIndex>,
    ) -> Result<()> {
        let rows = &self.mutable.rows;
        if graph.len() != rows.len() {
            return Err(Error::Corrupt(format!(
                "the graph has {} nodes for {} rows",
                graph.len(),
                rows.len()
            )));
        }
        if let Some(c) = &codes {
            validate::check_codes(
                c,
                rows.dim,
                rows.metric,
                rows.vectors.as_slice(),
                graph.entry_point(),
            )?;
        }
        self.install_loaded(AnnIndex::from_mapped(self.metric(), params, graph, codes))
    }

    /// A versioned binary snapshot of the collection (records and, if built, the index graph):
    /// see `crate::snapshot`. Tombstones are consolidated first, so the snapshot holds live
    /// records only.
    ///
    /// # Errors
    /// `HV_OUT_OF_MEMORY`, `HV_INTERNAL`.
    pub fn to_bytes(&mut self) -> Result<Vec<u8>> {
        if self.writes_parts() {
            return self.snapshot_parts();
        }
        self.to_bytes_stream()
    }

    /// The snapshot as a record stream whatever the collection (format version 3, or 4 for
    /// `f16` rows: what [`Collection::to_bytes`] wrote before version 5, and still writes for
    /// collections without an index): every live record and, for a collection without sealed
    /// segments, the index. A collection with sealed segments is written without an index (the
    /// segments' graphs cover only their own rows).
    ///
    /// # Errors
    /// `HV_OUT_OF_MEMORY`, `HV_INTERNAL`.
    pub fn to_bytes_stream(&mut self) -> Result<Vec<u8>> {
        if !self.segments.parts.is_empty() || self.mutable.deferred {
            return self.to_bytes_segmented();
        }
        self.consolidate()?; // a no-op without tombstones
        let rows = &self.mutable.rows;
        let records = (0..rows.len()).map(|r| {
            (
                &rows.ids[r],
                rows.seqs[r],
                rows.vector(r),
                rows.metadata[r].as_deref(),
            )
        });
        // the metadata index of the rows (every one live once consolidated; a fresh one if not)
        let whole = rows.meta.rows() == rows.len()
            && (0..rows.len()).all(|r| rows.meta.is_member(r as u32));
        let meta = if whole {
            codec::to_vec(&rows.meta)
        } else {
            codec::to_vec(&MetaIndex::build(
                rows.metadata.iter().map(Option::as_deref),
            ))
        };
        let index = self.mutable.index.as_ref().map(|ix| IndexPart {
            params: ix.params(),
            graph: ix.graph(),
            codes: ix.codes(),
        });
        snapshot::write(
            rows.dim,
            rows.metric,
            rows.precision(),
            rows.len(),
            records,
            &meta,
            index,
        )
    }

    /// The snapshot of a collection with sealed segments: every live record, in insertion order,
    /// without an index.
    fn to_bytes_segmented(&self) -> Result<Vec<u8>> {
        let rows = &self.mutable.rows;
        let mut recs: Vec<OwnedRecord<'_>> = Vec::with_capacity(self.len());
        for r in self.mutable.live_rows() {
            recs.push((
                rows.ids[r].clone(),
                rows.seqs[r],
                rows.vector(r),
                rows.metadata[r].clone(),
            ));
        }
        for part in &self.segments.parts {
            for row in (0..part.seg.len() as u32).filter(|&r| part.is_live(r)) {
                recs.push((
                    part.seg.id(row)?,
                    part.seg.seq(row),
                    part.seg.vector(row),
                    part.seg.metadata(row)?,
                ));
            }
        }
        recs.sort_unstable_by_key(|r| r.1);
        let meta = codec::to_vec(&MetaIndex::build(recs.iter().map(|r| r.3.as_deref())));
        let records = recs
            .iter()
            .map(|(id, seq, v, m)| (id, *seq, Cow::Borrowed(&**v), m.as_deref()));
        let (dim, metric, precision) = (rows.dim, rows.metric, rows.precision());
        snapshot::write(dim, metric, precision, recs.len(), records, &meta, None)
    }

    /// The live records of the mutable segment, in insertion order, as a version-3 stream
    /// without an index (a durable collection's mutable records; the records part of a
    /// version-5 snapshot).
    pub(super) fn mutable_records_stream(&self) -> Result<Vec<u8>> {
        let rows = &self.mutable.rows;
        let mut live = self.mutable.live_rows();
        live.sort_unstable_by_key(|&r| rows.seqs[r]);
        let meta = codec::to_vec(&MetaIndex::build(
            live.iter().map(|&r| rows.metadata[r].as_deref()),
        ));
        let records = live.iter().map(|&r| {
            (
                &rows.ids[r],
                rows.seqs[r],
                rows.vector(r),
                rows.metadata[r].as_deref(),
            )
        });
        snapshot::write(
            rows.dim,
            rows.metric,
            rows.precision(),
            live.len(),
            records,
            &meta,
            None,
        )
    }

    /// Loads a snapshot made by [`Collection::to_bytes`] (on either backend). Version 5 is
    /// copied once into a 64-byte aligned buffer and read in place
    /// ([`Collection::from_backing`]). A record stream (versions 1–4): the codec decodes the
    /// header, each record (restored as [`Collection::restore_row`] does, in order), the
    /// metadata index (version 3: installed instead of being built from the records' metadata,
    /// after checking that it covers exactly the records) and then the index parts, which are
    /// installed last.
    ///
    /// # Errors
    /// `HV_CORRUPT`, `HV_VERSION`, `HV_OUT_OF_MEMORY` (see `crate::snapshot::Decoder`).
    pub fn from_bytes(bytes: &[u8]) -> Result<Collection> {
        if snapshot::version_of(bytes) == Some(snapshot::VERSION_PARTS) {
            let buf = crate::region::AlignedBuf::try_from_bytes(bytes)?;
            return Collection::from_backing(std::sync::Arc::new(buf));
        }
        let mut dec = snapshot::Decoder::new(bytes)?;
        let (dim, metric) = dec.shape();
        let mut col = Collection::with_precision(dim, metric, dec.precision())
            .map_err(|e| Error::Corrupt(format!("snapshot header: {e}")))?;
        if dec.has_meta_index() {
            col.mutable.rows.defer_meta_index();
        }
        col.mutable.rows.try_reserve(dec.record_count()?)?;
        dec.records(&mut |id, seq, v, h, meta| col.restore_row(id, seq, v, h, meta))?;
        if let Some(ix) = dec.meta_index()? {
            col.mutable.rows.set_meta_index(ix)?;
        }
        match dec.index()? {
            None => {}
            Some(LoadedIndex {
                params,
                graph,
                codes: Some(codes),
            }) => col.install_index_parts(params, graph, Some(codes))?,
            Some(LoadedIndex { params, graph, .. }) => col.install_graph(params, graph)?,
        }
        Ok(col)
    }
}
