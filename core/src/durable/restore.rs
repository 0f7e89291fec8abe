//! The in-memory collection of a durable store: its manifest's sealed segments, then its mutable
//! records. Thread-free: the committer's `load.rs` (segment files mapped from a directory) and
//! the single-threaded driver (segments read by the binding) pass their own way of opening a
//! segment.

use std::sync::Arc;

use crate::collection::Collection;
use crate::error::{Error, Result};
use crate::segment::Segment;
use crate::store::{ManifestEntry, RecordStore};

/// Builds the collection from `manifest` (each segment opened by `open_segment`) and the
/// store's records, in insertion order.
///
/// # Errors
/// `open_segment`'s, the store's (`HV_IO`, `HV_CORRUPT`), `HV_OUT_OF_MEMORY`.
pub(crate) fn restore(
    store: &mut dyn RecordStore,
    manifest: &[ManifestEntry],
    open_segment: &mut dyn FnMut(&ManifestEntry) -> Result<Arc<Segment>>,
) -> Result<Collection> {
    let (dim, metric) = store.shape();
    let mut col = Collection::with_precision(dim, metric, store.precision())?;
    col.set_deferred_index(true);
    for e in manifest {
        let seg = open_segment(e)?;
        col.attach_segment(seg, &e.tombstones)?;
    }
    store.load(&mut |r| col.restore_row(r.id, r.seq, &r.vector, None, r.metadata))?;
    Ok(col)
}

/// Checks a segment just opened against its manifest entry (its row count) and, with `verify`,
/// reads all of it ([`Segment::verify`]).
///
/// # Errors
/// `HV_CORRUPT`.
pub(crate) fn check_segment(seg: &Segment, e: &ManifestEntry, verify: bool) -> Result<()> {
    if seg.len() as u64 != e.rows {
        return Err(Error::Corrupt(format!(
            "segment {} holds {} rows, the manifest says {}",
            e.generation,
            seg.len(),
            e.rows
        )));
    }
    if verify {
        seg.verify()?;
    }
    Ok(())
}
