//! Memory headroom: the checks that let an operation whose allocations grow with the data fail
//! with `HV_OUT_OF_MEMORY` before it changes anything, instead of aborting half-way, and the
//! read reserve that keeps searches answering once writes have filled the heap.
//!
//! Under wasm32 the heap has a hard ceiling (4 GiB, or what the page allowed) and an allocation
//! that fails aborts the instance (`unreachable`), leaving the object that was borrowed unusable.
//! Allocation sites deep in the graph, the codes and the search scratch cannot each report a
//! failure without a fallible twin of every container, so the operations that reach them first
//! call [`ensure_headroom`] (writes, loads, builds: what grows) or [`ensure_read_headroom`]
//! (searches and other reads) with an upper bound of what they may allocate: a trial allocation
//! of that size plus [`SLACK`], released at once. The allocator keeps the released block (wasm
//! memory never shrinks), and wasm is single-threaded, so the operation's own allocations are
//! then served from it.
//!
//! **The read reserve.** A block of [`READ_RESERVE`] bytes is held aside from the first check
//! on. A growing operation passes only if the reserve is held (taken again first if a read spent
//! it) *and* its own bound fits beside it, so writes stop `READ_RESERVE` short of the ceiling;
//! a read that does not fit beside the reserve releases it and tries again. So after writes have
//! filled the heap, every read whose bound is at most `READ_RESERVE - SLACK` (3 MiB: a search on
//! up to millions of records, whose visited set takes one bit per record the first time) still
//! works. A failed check releases the reserve too, so the error's own message has room; the next
//! check takes it back when it can.
//!
//! Natively, where memory is overcommitted and a failure would not come from the operation's
//! size, every check is a no-op and the estimate is not even computed (they sit on search and
//! write paths).

#[cfg(target_arch = "wasm32")]
use crate::error::Error;
use crate::error::Result;

/// Headroom added to every estimate: bookkeeping, small temporaries, error messages.
pub const SLACK: usize = 1 << 20;

/// Bytes held aside for reads once writes have filled a wasm heap (see the module docs).
pub const READ_RESERVE: usize = 4 << 20;

#[cfg(target_arch = "wasm32")]
mod wasm {
    use std::cell::RefCell;

    thread_local! {
        // wasm32 without threads: one instance of this, ever
        static RESERVE: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }

    /// Whether the reserve is held, taking it again if it was spent.
    pub fn hold() -> bool {
        RESERVE.with(|r| {
            let mut r = r.borrow_mut();
            r.capacity() >= super::READ_RESERVE || r.try_reserve_exact(super::READ_RESERVE).is_ok()
        })
    }

    pub fn release() {
        RESERVE.with(|r| *r.borrow_mut() = Vec::new());
    }

    /// Whether `bytes` + SLACK can be allocated now (allocated and freed at once).
    pub fn fits(bytes: usize) -> bool {
        Vec::<u8>::new()
            .try_reserve_exact(bytes.saturating_add(super::SLACK))
            .is_ok()
    }
}

/// Releases the read reserve (wasm; natively nothing): room for an error's message after an
/// allocation failed. The next check takes it back when it can.
#[inline]
pub fn release_reserve() {
    #[cfg(target_arch = "wasm32")]
    wasm::release();
}

#[cfg(target_arch = "wasm32")]
fn out_of_memory(bytes: usize, what: &str) -> Error {
    wasm::release();
    Error::OutOfMemory(format!(
        "{what} needs about {} MiB more than the wasm heap can give; nothing was changed",
        bytes.div_ceil(1 << 20)
    ))
}

/// For an operation that grows what is stored (a write, a load, a build): fails with
/// `HV_OUT_OF_MEMORY` (naming `what`) unless `bytes()` (+ [`SLACK`]) can be allocated now with
/// the read reserve held. Wasm only; natively always `Ok`, and `bytes` is not called.
///
/// # Errors
/// `HV_OUT_OF_MEMORY`.
#[inline]
pub fn ensure_headroom(bytes: impl FnOnce() -> usize, what: &str) -> Result<()> {
    #[cfg(target_arch = "wasm32")]
    {
        let bytes = bytes();
        if !(wasm::hold() && wasm::fits(bytes)) {
            return Err(out_of_memory(bytes, what));
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (bytes, what);
    Ok(())
}

/// For a read (a search, a lookup, a listing): like [`ensure_headroom`], but when `bytes()`
/// (+ [`SLACK`]) does not fit beside the read reserve, the reserve is released for it. Wasm
/// only; natively always `Ok`, and `bytes` is not called.
///
/// # Errors
/// `HV_OUT_OF_MEMORY`.
#[inline]
pub fn ensure_read_headroom(bytes: impl FnOnce() -> usize, what: &str) -> Result<()> {
    #[cfg(target_arch = "wasm32")]
    {
        let bytes = bytes();
        wasm::hold();
        if !wasm::fits(bytes) {
            wasm::release();
            if !wasm::fits(bytes) {
                return Err(out_of_memory(bytes, what));
            }
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (bytes, what);
    Ok(())
}
