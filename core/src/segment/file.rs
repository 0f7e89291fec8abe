//! Segment files in a collection directory (feature `durable`, native only): written to a
//! temporary name, synced, renamed, the directory synced; read through a memory map.

use std::fs::{self, File};
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{write_segment, Segment, SegmentRows};
use crate::ann::AnnIndex;
use crate::error::{Error, Result};
use crate::region::Backing;
use crate::types::Metric;

/// File name suffix of a segment.
pub const SEGMENT_SUFFIX: &str = ".hvseg";
/// Suffix of a segment being written (removed at open if a crash left it).
pub const TEMP_SUFFIX: &str = ".hvseg.tmp";

/// `seg-<generation, 16 digits>.hvseg`.
pub fn segment_file_name(generation: u64) -> String {
    format!("seg-{generation:016}{SEGMENT_SUFFIX}")
}

/// The generation a segment (or temporary segment) file name stands for.
pub fn parse_segment_file_name(name: &str) -> Option<u64> {
    let rest = name.strip_prefix("seg-")?;
    let digits = rest
        .strip_suffix(TEMP_SUFFIX)
        .or_else(|| rest.strip_suffix(SEGMENT_SUFFIX))?;
    (digits.len() == 16).then(|| digits.parse().ok()).flatten()
}

struct MmapBacking(memmap2::Mmap);

impl Backing for MmapBacking {
    fn bytes(&self) -> &[u8] {
        &self.0
    }
}

fn io(path: &Path, what: &str) -> impl Fn(std::io::Error) -> Error {
    let p = path.display().to_string();
    let what = what.to_string();
    move |e| Error::Io(format!("{what} {p}: {e}"))
}

/// Writes segment `generation` into `dir`: a temporary file, synced, renamed into place, and
/// the directory synced, so that once this returns the file survives a crash. Returns its path.
///
/// # Errors
/// `HV_IO` (the medium refused), the writer's errors.
pub fn write_segment_file(
    dir: &Path,
    generation: u64,
    rows: &SegmentRows<'_>,
    index: &AnnIndex,
) -> Result<PathBuf> {
    let path = dir.join(segment_file_name(generation));
    let tmp = dir.join(format!("seg-{generation:016}{TEMP_SUFFIX}"));
    let result = (|| {
        let f = File::create(&tmp).map_err(io(&tmp, "cannot create"))?;
        let mut w = BufWriter::with_capacity(1 << 20, f);
        write_segment(&mut w, generation, rows, index)?;
        let f = w
            .into_inner()
            .map_err(|e| Error::Io(format!("cannot write {}: {}", tmp.display(), e.error())))?;
        f.sync_all().map_err(io(&tmp, "cannot sync"))?;
        drop(f);
        fs::rename(&tmp, &path).map_err(io(&path, "cannot rename into"))?;
        sync_dir(dir)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map(|()| path)
}

/// Syncs a directory (its entries: a rename or a removal).
///
/// # Errors
/// `HV_IO`.
pub fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io(dir, "cannot sync directory"))
}

/// Maps and opens segment `generation` of `dir`, checking it against the manifest's
/// `(generation, dim, metric)`.
///
/// # Errors
/// `HV_CORRUPT` (missing, damaged or foreign file), `HV_VERSION`, `HV_IO`.
pub fn open_segment_file(
    dir: &Path,
    generation: u64,
    dim: usize,
    metric: Metric,
) -> Result<Arc<Segment>> {
    let path = dir.join(segment_file_name(generation));
    let f = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::Corrupt(format!(
                "segment file {} is missing (the manifest lists it)",
                path.display()
            )))
        }
        Err(e) => return Err(io(&path, "cannot open")(e)),
    };
    // SAFETY: segment files are written once under a temporary name, synced and renamed; nothing
    // writes to them afterwards (compaction writes a new file and removes the old one, which
    // leaves existing mappings intact). A process truncating the file by hand while it is mapped
    // would make reads fault: that is outside the contract, as for every mmap-based store.
    let map = unsafe { memmap2::Mmap::map(&f) }.map_err(io(&path, "cannot map"))?;
    let backing = Arc::new(MmapBacking(map));
    let seg = Segment::from_backing(backing.clone(), (generation, dim, metric))?;
    // Start reading the walk's hot plane (codes and graph) in the background, so that the first
    // searches after a cold open fault less; open itself does not wait for it. Only a hint.
    for (offset, len) in seg.walk_ranges() {
        let _ = backing.0.advise_range(memmap2::Advice::WillNeed, offset, len);
    }
    Ok(Arc::new(seg))
}
