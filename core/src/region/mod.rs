//! Read-only byte regions of an immutable file, shared by every structure that reads from it.
//!
//! A sealed segment file is mapped once ([`Backing`]: a memory map natively, an aligned buffer in
//! tests and in the wasm build) and its sections are handed out as [`Region`]s: a shared handle on
//! the backing plus a byte range. The graph, the RaBitQ codes and the rows then read straight from
//! the mapping, so opening a segment copies nothing (design document
//! `../shared/design/seed-horosvec.md` §3, outside the repository: open without
//! re-materialising the hot plane).
//!
//! Typed access goes through `bytemuck`, which checks size and alignment; a region is validated
//! once when it is made ([`Region::new`]), so the accessors never fail afterwards.
//!
//! The two read-ahead hints of the readers live here too: [`Region::will_need`] asks the medium
//! for pages of a mapped file, and [`prefetch`] asks the CPU for the cache lines of any slice (the
//! rows of a flat scan, the nodes of a graph build, RaBitQ records).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::error::{Error, Result};

mod buf;

pub use buf::{AlignedBuf, SubBacking};

/// The bytes of one immutable file. Implementations must return the same bytes, at the same
/// address, for their whole life (a memory map of a file nobody writes, or a buffer never moved).
pub trait Backing: Send + Sync + 'static {
    /// All bytes of the file.
    fn bytes(&self) -> &[u8];

    /// Hint that bytes `offset..offset + len` will be read soon: a memory map starts reading
    /// those pages from the medium without waiting for them (`MADV_WILLNEED`), so that several
    /// page faults overlap instead of being paid one after another. Only a hint; the default
    /// (bytes already in memory) does nothing.
    fn will_need(&self, _offset: usize, _len: usize) {}
}

/// One 64-byte cache line of words, aligned to 64 bytes: the unit of the aligned buffers here and
/// of the RaBitQ records (`quant/codes.rs`), readable as `u64`s or bytes through `bytemuck`.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct CacheLine([u64; 8]);

impl CacheLine {
    /// A line of zeros.
    pub(crate) const ZERO: CacheLine = CacheLine([0; 8]);
}

// SAFETY: `CacheLine` is `repr(C)` around `[u64; 8]` (64 bytes) with alignment 64, so it has no
// padding, and the all-zero bit pattern is a valid value.
unsafe impl bytemuck::Zeroable for CacheLine {}
// SAFETY: as above: no padding, every bit pattern of its eight `u64`s is valid, it is `Copy` and
// holds no pointers.
unsafe impl bytemuck::Pod for CacheLine {}

/// Asks the CPU to start loading the cache lines of `data` (e.g. a row or a code record that is
/// read next). Only a hint: it never faults and changes no program state.
///
/// * x86-64: `prefetcht0` for every 64-byte line `data` touches, from its first byte to its last
///   (SSE is in the x86-64 baseline).
/// * wasm32 has no prefetch instruction: volatile loads of the first element of the slice's first
///   two 64-byte lines stand in for one (the engine cannot drop them, an out-of-order CPU overlaps
///   their misses with the work done meanwhile, and the hardware prefetcher streams the rest).
/// * elsewhere: nothing.
#[inline(always)]
pub fn prefetch<T: Copy>(data: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = data.as_ptr().cast::<i8>();
        let len = core::mem::size_of_val(data);
        let mut off = 0;
        while off < len {
            // SAFETY: a prefetch is only a hint: it never faults and reads nothing into program
            // state; `p + off` stays inside `data` (off < len).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(off)) };
            off += 64;
        }
        if len > 0 {
            // the line of the last byte, when `data` does not start on a line boundary
            // SAFETY: as above; `p + len − 1` is the last byte of `data`.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(len - 1)) };
        }
    }
    #[cfg(target_arch = "wasm32")]
    {
        let size = core::mem::size_of::<T>().max(1);
        let step = (64 / size).max(1);
        for i in (0..data.len().min(2 * step)).step_by(step) {
            // SAFETY: `i < data.len()`: a valid, aligned, initialised `T` inside `data`.
            let _ = unsafe { core::ptr::read_volatile(data.as_ptr().add(i)) };
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "wasm32")))]
    let _ = data;
}

/// A byte range of a [`Backing`], readable as a slice of plain values.
#[derive(Clone)]
pub struct Region {
    /// Keeps the bytes alive (and in place) for as long as the region exists.
    owner: Arc<dyn Backing>,
    /// `backing.bytes()[start..]`, cached so that hot loops do not call through the trait.
    ptr: *const u8,
    start: usize,
    len: usize,
}

// SAFETY: `ptr` points into the bytes of `backing`, which is `Send + Sync`, immutable and kept
// alive (and unmoved, by the `Backing` contract) by the `Arc` held in the same struct.
unsafe impl Send for Region {}
// SAFETY: as above; the region only ever reads.
unsafe impl Sync for Region {}

impl std::fmt::Debug for Region {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Region({}..{})", self.start, self.start + self.len)
    }
}

impl Region {
    /// The bytes `start..start + len` of `backing`, to be read as `T`s.
    ///
    /// # Errors
    /// `HV_CORRUPT` when the range leaves the file, its length is not a whole number of `T`s or
    /// its start is not aligned for `T`.
    pub fn new<T: bytemuck::Pod>(
        backing: &Arc<dyn Backing>,
        start: u64,
        len: u64,
        what: &str,
    ) -> Result<Region> {
        let total = backing.bytes().len() as u64;
        let end = start.checked_add(len).filter(|&e| e <= total);
        if end.is_none() {
            return Err(Error::Corrupt(format!(
                "{what}: bytes {start}..+{len} lie beyond the end of the file ({total} bytes)"
            )));
        }
        let ptr = backing.bytes()[start as usize..].as_ptr();
        let r = Region {
            owner: backing.clone(),
            ptr,
            start: start as usize,
            len: len as usize,
        };
        bytemuck::try_cast_slice::<u8, T>(r.bytes()).map_err(|e| {
            Error::Corrupt(format!(
                "{what}: section at byte {start} of {len} bytes is misplaced ({e:?})"
            ))
        })?;
        Ok(r)
    }

    /// The raw bytes.
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr..ptr + len` lies inside `backing.bytes()` (checked by `new`), which lives
        // as long as `self` (the `Arc`) and never changes or moves (the `Backing` contract).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    /// The region as `T`s (size and alignment were checked by [`Region::new`]; a mismatching
    /// `T` gives an empty slice).
    #[inline]
    pub fn as_slice<T: bytemuck::Pod>(&self) -> &[T] {
        bytemuck::try_cast_slice(self.bytes()).unwrap_or(&[])
    }

    /// [`Backing::will_need`] for bytes `at..at + len` of the region (clamped to it).
    #[inline]
    pub fn will_need(&self, at: usize, len: usize) {
        if at < self.len {
            self.owner
                .will_need(self.start + at, len.min(self.len - at));
        }
    }

    /// Offset of the first byte in the backing.
    pub fn offset(&self) -> usize {
        self.start
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for an empty range.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// `n` fixed-size records of a [`Region`] read at random, a few per search (a sealed segment's
/// rows, read by the rerank), that remembers which records it has already asked the medium for.
///
/// [`RecordPages::will_need`] passes a record's first request on to [`Region::will_need`] and
/// ignores the later ones: the first searches after a cold open get their row faults served
/// together, and once a record has been read, asking again costs a bit test instead of a system
/// call. (A record the kernel evicted afterwards is read again on demand, unhinted.)
pub struct RecordPages {
    region: Region,
    record_bytes: usize,
    /// One bit per record: asked for already.
    asked: Vec<AtomicU64>,
}

impl RecordPages {
    /// Records of `record_bytes` bytes each, back to back from the start of `region`.
    pub fn new(region: Region, record_bytes: usize) -> RecordPages {
        let n = region.len().checked_div(record_bytes).unwrap_or(0);
        let asked = (0..n.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
        RecordPages {
            region,
            record_bytes,
            asked,
        }
    }

    /// The region.
    pub fn region(&self) -> &Region {
        &self.region
    }

    /// Asks the medium for record `i`, unless it was asked for before (or `i` is out of range).
    #[inline]
    pub fn will_need(&self, i: usize) {
        let Some(word) = self.asked.get(i / 64) else {
            return;
        };
        let bit = 1u64 << (i % 64);
        if word.load(Ordering::Relaxed) & bit == 0
            && word.fetch_or(bit, Ordering::Relaxed) & bit == 0
        {
            self.region
                .will_need(i * self.record_bytes, self.record_bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// A backing that records the hints it gets.
    struct Counting {
        buf: AlignedBuf,
        hints: Mutex<Vec<(usize, usize)>>,
    }

    impl Backing for Counting {
        fn bytes(&self) -> &[u8] {
            self.buf.bytes()
        }

        fn will_need(&self, offset: usize, len: usize) {
            self.hints.lock().unwrap().push((offset, len));
        }
    }

    #[test]
    fn aligned_buf_is_64_byte_aligned() {
        for n in [0, 1, 63, 64, 65, 1000] {
            let bytes: Vec<u8> = (0..n).map(|i| i as u8).collect();
            let buf = AlignedBuf::from_bytes(&bytes);
            assert_eq!(buf.bytes(), &bytes[..]);
            assert_eq!(buf.bytes().as_ptr() as usize % 64, 0, "{n} bytes");
        }
    }

    #[test]
    fn record_pages_pass_on_the_first_request_of_each_record_only() {
        let c = Arc::new(Counting {
            buf: AlignedBuf::from_bytes(&[0u8; 64 + 10 * 12]),
            hints: Mutex::new(Vec::new()),
        });
        let backing: Arc<dyn Backing> = c.clone();
        let region = Region::new::<f32>(&backing, 64, 10 * 12, "rows").unwrap();
        let pages = RecordPages::new(region, 12);
        for i in [3, 3, 9, 3, 9, 0, 10, 1000] {
            pages.will_need(i);
        }
        // records 3, 9, 0 once each, at their byte offsets in the backing; 10 and 1000 are out of range
        assert_eq!(
            *c.hints.lock().unwrap(),
            vec![(64 + 36, 12), (64 + 108, 12), (64, 12)]
        );
        // a region's hint is clamped to the region
        Region::new::<u8>(&backing, 64, 20, "r")
            .unwrap()
            .will_need(16, 100);
        assert_eq!(c.hints.lock().unwrap().last(), Some(&(80, 4)));
    }
}
