//! Building the in-memory collection from the store and the segment files: at open, and again
//! after a failed commit (the store then holds none of the group).

use std::collections::HashMap;
use std::sync::Arc;

use super::files::SegmentDir;
use super::restore::{check_segment, restore};
use crate::collection::Collection;
use crate::error::{Error, Result};
use crate::segment::{open_segment_file, Freshness, Segment};
use crate::store::{ManifestEntry, RecordStore};
use crate::types::Metric;

/// Attempts of a read-only open that found a segment file of its manifest already removed by
/// the writer (a compaction committed a newer manifest meanwhile) before it gives up.
const READ_RETRIES: usize = 50;

/// How [`load`] reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LoadMode {
    /// Check every segment file whole (`verify` of the segment options).
    pub(crate) verify: bool,
    /// A read-only view: a file removed by the writer's compaction meanwhile means "read again".
    pub(crate) read_only: bool,
}

/// Builds the in-memory collection: the manifest's segments (mapped), then the store's
/// mutable records, all from one consistent read of the store ([`RecordStore::begin_read`]).
///
/// A read-only view beside a writer may find a file of the manifest it read already removed: the
/// writer committed a compaction and deleted the merged files after this read began. The read is
/// then begun again (the newer manifest names the new file); a file held open stays readable
/// after its removal, so once every file is mapped the view no longer depends on the writer.
///
/// # Errors
/// The store's (`HV_IO`, `HV_CORRUPT`), a segment's (`HV_CORRUPT`, `HV_VERSION`),
/// `HV_OUT_OF_MEMORY`.
pub(crate) fn load(
    store: &mut dyn RecordStore,
    dir: Option<&SegmentDir>,
    mode: LoadMode,
) -> Result<Collection> {
    load_reusing(store, dir, mode, &HashMap::new())
}

/// Segments already mapped, by generation: a refresh reuses them instead of mapping their files
/// again (a segment file never changes once written; its tombstones come from the manifest).
pub(crate) type Mapped = HashMap<u64, Arc<Segment>>;

/// [`load`], taking the manifest's segments found in `mapped` from there (their files may be
/// gone already: the mapping stays valid).
pub(crate) fn load_reusing(
    store: &mut dyn RecordStore,
    dir: Option<&SegmentDir>,
    mode: LoadMode,
    mapped: &Mapped,
) -> Result<Collection> {
    let LoadMode { verify, read_only } = mode;
    let mut attempt = 0;
    loop {
        store.begin_read()?;
        let may_retry = read_only && attempt < READ_RETRIES;
        let res = load_once(store, dir, (verify, may_retry), mapped);
        store.end_read();
        match res {
            Some(r) => return r,
            None => {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        }
    }
}

/// One attempt of [`load`]; `None` when a segment file of the manifest read is gone and
/// `may_retry` allows another attempt.
fn load_once(
    store: &mut dyn RecordStore,
    dir: Option<&SegmentDir>,
    (verify, may_retry): (bool, bool),
    mapped: &Mapped,
) -> Option<Result<Collection>> {
    let (dim, metric) = store.shape();
    let manifest = match store.segments() {
        Ok(m) => m,
        Err(e) => return Some(Err(e)),
    };
    let gone = || match (may_retry, dir) {
        (true, Some(d)) => manifest
            .iter()
            .any(|e| !mapped.contains_key(&e.generation) && !d.exists(e.generation)),
        _ => false,
    };
    if gone() {
        return None;
    }
    match load_parts(store, dir, (verify, mapped), dim, metric, &manifest) {
        // removed between the check above and its opening
        Err(_) if gone() => None,
        r => Some(r),
    }
}

fn load_parts(
    store: &mut dyn RecordStore,
    dir: Option<&SegmentDir>,
    (verify, mapped): (bool, &Mapped),
    dim: usize,
    metric: Metric,
    manifest: &[ManifestEntry],
) -> Result<Collection> {
    restore(store, manifest, &mut |e| {
        if let Some(seg) = mapped.get(&e.generation) {
            // checked when it was mapped
            return Ok(seg.clone());
        }
        let dir = dir.ok_or_else(|| {
            Error::Corrupt("the manifest lists segments but the store has no directory".into())
        })?;
        let seg = open_segment_file(dir.path(), e.generation, dim, metric, Freshness::FromDisk)?;
        check_segment(&seg, e, verify)?;
        Ok(seg)
    })
}
