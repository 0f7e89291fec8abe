//! Owned and borrowed backings: [`AlignedBuf`] (64-byte aligned storage filled in one pass, its
//! pages allocated up front on Linux) and [`SubBacking`] (a range of another backing).

use std::sync::Arc;

use super::{Backing, CacheLine};
use crate::error::{Error, Result};

/// An owned buffer whose first byte is 64-byte aligned (a memory map is page-aligned; this stands
/// in for one where a segment file is held as bytes: tests, and the wasm build's durable
/// collections, whose segment files are read whole).
pub struct AlignedBuf {
    lines: Vec<CacheLine>,
    len: usize,
}

impl AlignedBuf {
    /// Copies `bytes` into a fresh 64-byte aligned buffer.
    ///
    /// # Panics
    /// When the allocation fails (tests; [`AlignedBuf::try_from_bytes`] does not).
    #[cfg(test)]
    pub fn from_bytes(bytes: &[u8]) -> AlignedBuf {
        AlignedBuf::try_from_bytes(bytes).expect("allocation")
    }

    /// Copies `bytes` into a fresh 64-byte aligned buffer (one pass: the buffer is not zeroed
    /// first).
    ///
    /// # Errors
    /// `HV_OUT_OF_MEMORY`.
    pub fn try_from_bytes(bytes: &[u8]) -> crate::error::Result<AlignedBuf> {
        AlignedBuf::try_fill(bytes.len(), |dst| {
            // SAFETY: `dst` is `bytes.len()` writable bytes of a fresh allocation (no overlap
            // with `bytes`); after the copy every one of them is initialised, so viewing them
            // as `u8`s is sound.
            Ok(unsafe {
                std::ptr::copy_nonoverlapping(
                    bytes.as_ptr(),
                    dst.as_mut_ptr().cast::<u8>(),
                    bytes.len(),
                );
                std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<u8>(), bytes.len())
            })
        })
    }

    /// A 64-byte aligned buffer of `len` zero bytes (a segment file read into memory).
    ///
    /// One zeroed allocation (`alloc_zeroed`): an allocator that takes a large buffer from fresh
    /// pages (a new `mmap`) knows they are zero and writes nothing, so the only pass over the
    /// bytes is the caller's fill. A buffer that foreign code fills whole needs no zeroing at all:
    /// [`AlignedBuf::try_fill_foreign`].
    ///
    /// # Errors
    /// `HV_OUT_OF_MEMORY`.
    pub fn try_zeroed(len: usize) -> crate::error::Result<AlignedBuf> {
        let n = len.div_ceil(64);
        let mut lines = bytemuck::allocation::try_zeroed_vec::<CacheLine>(n)
            .map_err(|()| crate::error::Error::OutOfMemory(format!("a buffer of {len} bytes")))?;
        populate(lines.as_mut_ptr().cast::<u8>(), n * 64);
        Ok(AlignedBuf { lines, len })
    }

    /// A 64-byte aligned buffer of `len` bytes written by foreign code: `fill(address, len)`
    /// gets where the bytes are (an address in this process's memory, e.g. an offset into wasm
    /// memory for a JS `Uint8Array` view) and writes them all, with nothing zeroed first (in wasm
    /// a zero pass over fresh memory costs more than the file read that follows: 150 ms against
    /// 110 ms for 177 MB under Node). The padding after `len` is zeroed.
    ///
    /// # Errors
    /// `HV_OUT_OF_MEMORY`; `fill`'s error (the buffer is then freed unread).
    ///
    /// # Safety
    /// When `fill` returns `Ok`, every byte of `address..address + len` must have been written
    /// (by foreign code, as a `read(2)` into a buffer would); `fill` must not free or move the
    /// memory, nor let Rust code read it.
    pub unsafe fn try_fill_foreign<F>(len: usize, fill: F) -> crate::error::Result<AlignedBuf>
    where
        F: FnOnce(usize, usize) -> crate::error::Result<()>,
    {
        AlignedBuf::try_fill(len, |dst| {
            fill(dst.as_mut_ptr() as usize, dst.len())?;
            // SAFETY: the caller guarantees that `fill` returned `Ok` only after writing every
            // byte of `dst` (`dst.len()` bytes from its start), so each is an initialised `u8`.
            Ok(unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<u8>(), dst.len()) })
        })
    }

    /// Mutable access to the bytes (a buffer not shared yet: filled before it backs anything).
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        let len = self.len;
        &mut bytemuck::cast_slice_mut::<CacheLine, u8>(&mut self.lines)[..len]
    }

    /// A 64-byte aligned buffer of `len` bytes written once by `fill`, which gets them
    /// uninitialised (so nothing is zeroed first: a copy from a JS array or a file is the only
    /// pass over them) and must return them, every byte initialised, as the proof (e.g.
    /// `js_sys::Uint8Array::copy_to_uninit`). The padding after `len` up to the next multiple of
    /// 64 is zeroed.
    ///
    /// # Errors
    /// `HV_OUT_OF_MEMORY`; `fill`'s error; `HV_INTERNAL` when `fill` returns another range than
    /// the one it was given.
    pub fn try_fill<F>(len: usize, fill: F) -> crate::error::Result<AlignedBuf>
    where
        F: for<'a> FnOnce(
            &'a mut [std::mem::MaybeUninit<u8>],
        ) -> crate::error::Result<&'a mut [u8]>,
    {
        let n = len.div_ceil(64);
        let mut lines: Vec<CacheLine> = Vec::new();
        lines
            .try_reserve_exact(n)
            .map_err(|_| crate::error::Error::OutOfMemory(format!("a buffer of {len} bytes")))?;
        let base = lines
            .spare_capacity_mut()
            .as_mut_ptr()
            .cast::<std::mem::MaybeUninit<u8>>();
        populate(base.cast::<u8>(), n * 64);
        // SAFETY: the vector's spare capacity holds at least `n` lines, `n × 64` bytes, owned by
        // `lines` and borrowed by nothing else; `MaybeUninit<u8>` may hold any (or no) value.
        let all = unsafe { std::slice::from_raw_parts_mut(base, n * 64) };
        let (head, tail) = all.split_at_mut(len);
        for b in tail.iter_mut() {
            b.write(0);
        }
        let head_ptr = head.as_ptr().cast::<u8>();
        let done = fill(head)?;
        if done.as_ptr() != head_ptr || done.len() != len {
            return Err(crate::error::Error::Internal(
                "an aligned buffer's filler returned another range".into(),
            ));
        }
        // SAFETY: the first `len` bytes were initialised by `fill` (it returned them as `&mut
        // [u8]`, checked to be exactly that range), the rest of the `n` lines by the loop above;
        // `n` is within the reserved capacity, and every bit pattern is a valid `CacheLine`.
        unsafe { lines.set_len(n) };
        Ok(AlignedBuf { lines, len })
    }
}

impl Backing for AlignedBuf {
    fn bytes(&self) -> &[u8] {
        &bytemuck::cast_slice::<CacheLine, u8>(&self.lines)[..self.len]
    }
}

/// Bytes `start..start + len` of another [`Backing`], as a backing of their own (a segment image
/// inside a snapshot: `crate::snapshot`). The parent's alignment carries over when `start` is a
/// multiple of it.
pub struct SubBacking {
    parent: Arc<dyn Backing>,
    start: usize,
    len: usize,
}

impl SubBacking {
    /// The bytes `start..start + len` of `parent`.
    ///
    /// # Errors
    /// `HV_CORRUPT` when the range leaves `parent`.
    pub fn new(parent: Arc<dyn Backing>, start: u64, len: u64, what: &str) -> Result<SubBacking> {
        let total = parent.bytes().len() as u64;
        match start.checked_add(len) {
            Some(end) if end <= total => Ok(SubBacking {
                parent,
                start: start as usize,
                len: len as usize,
            }),
            _ => Err(Error::Corrupt(format!(
                "{what}: bytes {start}..+{len} lie beyond the end ({total} bytes)"
            ))),
        }
    }
}

impl Backing for SubBacking {
    fn bytes(&self) -> &[u8] {
        &self.parent.bytes()[self.start..self.start + self.len]
    }

    fn will_need(&self, offset: usize, len: usize) {
        self.parent.will_need(self.start + offset, len);
    }
}

/// Asks the kernel (Linux, native builds) to allocate every page of a fresh large allocation
/// `ptr..ptr + len` in one call (`MADV_POPULATE_WRITE`, Linux 5.14) before the copy fills it:
/// filling 170 MB of fresh memory otherwise takes one page fault per 4 KiB page (43,000), which
/// costs more than the copy itself on a VM. Transparent huge pages (`MADV_HUGEPAGE`) were
/// measured too (`bench/snapshot-load.mjs`): faster at the median, but one open in seven stalled
/// for 0.5–0.75 s while the kernel compacted memory for them (THP defrag `madvise`), so they are
/// not asked for. Only a hint: on an older kernel, or if the call fails, the copy faults the
/// pages in as before. Buffers below 8 MiB are left alone.
#[allow(unused_variables)]
fn populate(ptr: *mut u8, len: usize) {
    #[cfg(all(feature = "durable", target_os = "linux"))]
    {
        const PAGE: usize = 4096;
        if len < 8 << 20 {
            return;
        }
        let start = (ptr as usize).next_multiple_of(PAGE);
        let end = (ptr as usize + len) / PAGE * PAGE;
        if end > start {
            // SAFETY: `start..end` lies inside the allocation `ptr..ptr + len`, which the caller
            // owns and nothing reads yet; MADV_POPULATE_WRITE only allocates its pages (zeroed,
            // as a first write fault would), it never changes what the program can observe.
            let _ = unsafe {
                rustix::mm::madvise(
                    start as *mut core::ffi::c_void,
                    end - start,
                    rustix::mm::Advice::LinuxPopulateWrite,
                )
            };
        }
    }
}
