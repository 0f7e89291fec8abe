//! The warm-up of freshly mapped segments: their hot regions (codes and graph) are read into the
//! page cache on one background thread, which gives way to the searches that run meanwhile in
//! cold mode. Those searches are counted in [`COLD_SEARCHES`]: every segment's index counts its
//! cold searches there ([`crate::ann::AnnIndex::count_cold_searches_in`], installed by
//! [`Segment::from_backing`]), and the warm-up reads it ([`cold_searches_in_flight`]).

use std::sync::atomic::{AtomicUsize, Ordering};
#[cfg(feature = "durable")]
use std::sync::Arc;

#[cfg(feature = "durable")]
use super::Segment;

/// Searches in cold mode running now on a segment's index, in this process
/// ([`cold_searches_in_flight`]).
pub(super) static COLD_SEARCHES: AtomicUsize = AtomicUsize::new(0);

/// Searches in cold mode ([`crate::ann::AnnIndex::set_cold`]) running now on segments of this
/// process: the background warm-up of mapped files gives way to them, so that their page reads
/// do not queue behind its own.
pub fn cold_searches_in_flight() -> usize {
    COLD_SEARCHES.load(Ordering::Relaxed)
}

/// Reads the walk's hot regions (codes and graph, [`Segment::hot_regions`]) of freshly opened
/// segments into the page cache on one background thread, one segment after another, taking
/// each out of cold mode ([`crate::ann::AnnIndex::set_cold`]) once read. Until then, searches ask
/// for the pages they are about to read, so that their faults overlap. Returns at once.
///
/// The thread asks for one chunk (`WARM_CHUNK`, 64 KiB) at a time (the next one while it waits for the
/// current one) through the random-access mapping, so the kernel reads no further ahead, and
/// when the last chunk had to be read from the medium (it took over `WARM_CACHED`, 200 µs) it first
/// gives way to cold searches in flight for up to `WARM_YIELD` (2 ms): a searcher's page reads then
/// never queue behind more than two chunks, and a file already in the page cache is walked
/// through at memory speed. (Plain sequential reads of the file let the kernel's readahead queue
/// megabytes at a time, which made the first search after a cold open take three times longer.)
/// A segment dropped meanwhile is skipped.
#[cfg(feature = "durable")]
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

#[cfg(feature = "durable")]
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
            while from_medium && cold_searches_in_flight() > 0 && waited.elapsed() < WARM_YIELD {
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
#[cfg(feature = "durable")]
const WARM_CHUNK: usize = 64 << 10;

/// A chunk read faster than this came from the page cache (see [`warm_up`]).
#[cfg(feature = "durable")]
const WARM_CACHED: std::time::Duration = std::time::Duration::from_micros(200);

/// Longest the warm-up waits for cold searches before each chunk (see [`warm_up`]): under a
/// steady search load it still advances a chunk every few milliseconds.
#[cfg(feature = "durable")]
const WARM_YIELD: std::time::Duration = std::time::Duration::from_millis(2);
