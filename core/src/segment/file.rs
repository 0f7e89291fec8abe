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

    fn will_need(&self, offset: usize, len: usize) {
        // madvise exists on Unix only; elsewhere (Windows) the hint is skipped.
        #[cfg(unix)]
        let _ = self.0.advise_range(memmap2::Advice::WillNeed, offset, len);
        #[cfg(not(unix))]
        let _ = (offset, len);
    }
}

/// The bytes of the file at `path` (a snapshot) in a fresh 64-byte aligned buffer, read with
/// plain reads (no mapping: a snapshot file is the user's, and changing or truncating it later
/// must not fault a collection loaded from it). The buffer is zeroed first (on Linux its pages
/// are allocated up front in one call, `AlignedBuf`, so that pass costs no page fault per 4 KiB).
///
/// # Errors
/// `HV_IO` (missing, unreadable, shorter than its announced length), `HV_OUT_OF_MEMORY`.
pub fn read_aligned(path: &Path) -> Result<crate::region::AlignedBuf> {
    use std::io::Read;
    let mut f = File::open(path).map_err(io(path, "cannot open"))?;
    let len = f.metadata().map_err(io(path, "cannot read"))?.len();
    let len = usize::try_from(len)
        .map_err(|_| Error::OutOfMemory(format!("{} is {len} bytes", path.display())))?;
    let mut buf = crate::region::AlignedBuf::try_zeroed(len)?;
    f.read_exact(buf.bytes_mut())
        .map_err(io(path, "cannot read"))?;
    Ok(buf)
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
    // Windows cannot open a directory as a file (`Access denied`) and has no directory fsync:
    // NTFS journals the names a rename or create changes, so there is nothing to sync there.
    if cfg!(not(unix)) {
        return Ok(());
    }
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io(dir, "cannot sync directory"))
}

/// Where the pages of a segment file being opened are ([`open_segment_file`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Freshness {
    /// Written by this process a moment ago: in the page cache.
    JustWritten,
    /// Opened from the medium: searched in cold mode until warmed up.
    FromDisk,
}

/// Maps and opens segment `generation` of `dir`, checking it against the manifest's
/// `(generation, dim, metric)`.
///
/// [`Freshness::JustWritten`]: the file was written by this process a moment ago
/// ([`write_segment_file`]), so its pages are in the page cache and the segment is ready as it
/// is. [`Freshness::FromDisk`]: it comes back in cold mode (its searches ask for their pages ahead of use): pass it to [`warm_up`](super::warm_up) once the
/// caller's own reading is done.
///
/// # Errors
/// `HV_CORRUPT` (missing, damaged or foreign file), `HV_VERSION`, `HV_IO`.
pub fn open_segment_file(
    dir: &Path,
    generation: u64,
    dim: usize,
    metric: Metric,
    freshness: Freshness,
) -> Result<Arc<Segment>> {
    let just_written = freshness == Freshness::JustWritten;
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
    // SAFETY: as above; a second read-only mapping of the same file, for the rerank's row reads.
    let rows_map = unsafe { memmap2::Mmap::map(&f) }.map_err(io(&path, "cannot map"))?;
    let mapped = Arc::new(MmapBacking(map));
    let seg = Segment::from_backing(mapped.clone(), (generation, dim, metric))?;
    // Paging advice. The walk reads the codes and the graph, and the rerank a few rows, at
    // random: without advice every page fault there reads the device's whole readahead window
    // around the page (8 MiB on some disks), which made the first search after a cold open of a
    // million rows take half a second. Exact scans read `vectors` through the first mapping,
    // which keeps the kernel's readahead. Only hints: a failure changes speed, not results
    // (Unix only: Windows has no madvise).
    #[cfg(unix)]
    {
        for r in seg.hot_regions() {
            let _ = mapped
                .0
                .advise_range(memmap2::Advice::Random, r.offset(), r.len());
        }
        let _ = rows_map.advise(memmap2::Advice::Random);
    }
    let seg = seg.with_rerank_backing(Arc::new(MmapBacking(rows_map)))?;
    // cold until `warm_up` has read the hot regions in
    seg.index().set_cold(!just_written);
    Ok(Arc::new(seg))
}
