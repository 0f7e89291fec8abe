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
        let _ = self.0.advise_range(memmap2::Advice::WillNeed, offset, len);
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
/// `just_written`: the file was written by this process a moment ago ([`write_segment_file`]),
/// so its pages are in the page cache and the segment is ready as it is. Otherwise it comes back
/// in cold mode (its searches ask for their pages ahead of use): pass it to [`warm_up`] once the
/// caller's own reading is done.
///
/// # Errors
/// `HV_CORRUPT` (missing, damaged or foreign file), `HV_VERSION`, `HV_IO`.
pub fn open_segment_file(
    dir: &Path,
    generation: u64,
    dim: usize,
    metric: Metric,
    just_written: bool,
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
    // SAFETY: as above; a second read-only mapping of the same file, for the rerank's row reads.
    let rows_map = unsafe { memmap2::Mmap::map(&f) }.map_err(io(&path, "cannot map"))?;
    let mapped = Arc::new(MmapBacking(map));
    let seg = Segment::from_backing(mapped.clone(), (generation, dim, metric))?;
    // Paging advice. The walk reads the codes and the graph, and the rerank a few rows, at
    // random: without advice every page fault there reads the device's whole readahead window
    // around the page (8 MiB on some disks), which made the first search after a cold open of a
    // million rows take half a second. Exact scans read `vectors` through the first mapping,
    // which keeps the kernel's readahead. Only hints: a failure changes speed, not results.
    for r in seg.hot_regions() {
        let _ = mapped
            .0
            .advise_range(memmap2::Advice::Random, r.offset(), r.len());
    }
    let _ = rows_map.advise(memmap2::Advice::Random);
    let seg = seg.with_rerank_backing(Arc::new(MmapBacking(rows_map)))?;
    // cold until `warm_up` has read the hot regions in
    seg.index().set_cold(!just_written);
    Ok(Arc::new(seg))
}

/// Reads the walk's hot regions (codes and graph, [`Segment::hot_regions`]) of freshly opened
/// segments into the page cache on one background thread, one segment after another, taking
/// each out of cold mode ([`crate::ann::AnnIndex::set_cold`]) once read. Until then, searches ask
/// for the pages they are about to read, so that their faults overlap. Returns at once.
///
/// The thread asks for one [`WARM_CHUNK`] at a time (the next one while it waits for the
/// current one) through the random-access mapping, so the kernel reads no further ahead, and
/// when the last chunk had to be read from the medium (it took over [`WARM_CACHED`]) it first
/// gives way to cold searches in flight for up to [`WARM_YIELD`]: a searcher's page reads then
/// never queue behind more than two chunks, and a file already in the page cache is walked
/// through at memory speed. (Plain sequential reads of the file let the kernel's readahead queue
/// megabytes at a time, which made the first search after a cold open take three times longer.)
/// A segment dropped meanwhile is skipped.
pub fn warm_up(segments: Vec<Arc<Segment>>) {
    let cold: Vec<std::sync::Weak<Segment>> = segments
        .iter()
        .filter(|s| s.index().is_cold())
        .map(Arc::downgrade)
        .collect();
    if cold.is_empty() {
        return;
    }
    let spawned = std::thread::Builder::new().name("hv-warm".into()).spawn({
        let cold = cold.clone();
        move || {
            for weak in cold {
                warm_segment(&weak);
            }
        }
    });
    if spawned.is_err() {
        // no thread: searches keep asking for their pages, slower but correct
        for s in cold.iter().filter_map(std::sync::Weak::upgrade) {
            s.index().set_cold(false);
        }
    }
}

fn warm_segment(weak: &std::sync::Weak<Segment>) {
    const PAGE: usize = 4096;
    let Some(regions) = weak.upgrade().map(|s| s.hot_regions()) else {
        return;
    };
    let mut from_medium = true;
    for r in regions {
        let len = r.len();
        let mut at = 0;
        r.will_need(0, WARM_CHUNK);
        while at < len {
            if weak.strong_count() == 0 {
                return;
            }
            let waited = std::time::Instant::now();
            while from_medium
                && crate::ann::cold_searches_in_flight() > 0
                && waited.elapsed() < WARM_YIELD
            {
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
            let started = std::time::Instant::now();
            let m = WARM_CHUNK.min(len - at);
            if at + m < len {
                r.will_need(at + m, WARM_CHUNK);
            }
            // wait for this chunk: one byte per page
            let sum = r.bytes()[at..at + m]
                .iter()
                .step_by(PAGE)
                .fold(0u8, |a, &b| a.wrapping_add(b));
            std::hint::black_box(sum);
            from_medium = started.elapsed() > WARM_CACHED;
            at += m;
        }
    }
    if let Some(seg) = weak.upgrade() {
        seg.index().set_cold(false);
    }
}

/// Bytes the warm-up thread asks for at a time (see [`warm_up`]).
const WARM_CHUNK: usize = 64 << 10;

/// A chunk read faster than this came from the page cache (see [`warm_up`]).
const WARM_CACHED: std::time::Duration = std::time::Duration::from_micros(200);

/// Longest the warm-up waits for cold searches before each chunk (see [`warm_up`]): under a
/// steady search load it still advances a chunk every few milliseconds.
const WARM_YIELD: std::time::Duration = std::time::Duration::from_millis(2);
