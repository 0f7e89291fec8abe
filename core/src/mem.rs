//! Memory headroom: the check that lets an operation whose allocations grow with the data fail
//! with `HV_OUT_OF_MEMORY` before it changes anything, instead of aborting half-way.
//!
//! Under wasm32 the heap has a hard ceiling (4 GiB, or what the page allowed) and an allocation
//! that fails aborts the instance (`unreachable`), leaving the object that was borrowed unusable.
//! Allocation sites deep in the graph, the codes and the search scratch cannot each report a
//! failure without a fallible twin of every container, so the operations that reach them first
//! call [`ensure_headroom`] with an upper bound of what they may allocate: a trial allocation of
//! that size, released at once. The allocator keeps the released block (wasm memory never
//! shrinks), and wasm is single-threaded, so the operation's own allocations are then served
//! from it. Natively, where memory is overcommitted and a failure would not come from the
//! operation's size, the check is a no-op.

#[cfg(target_arch = "wasm32")]
use crate::error::Error;
use crate::error::Result;

/// Headroom added to every estimate: bookkeeping, small temporaries, error messages.
#[cfg(target_arch = "wasm32")]
pub const SLACK: usize = 1 << 20;

/// Fails with `HV_OUT_OF_MEMORY` (naming `what`) unless `bytes()` (+ [`SLACK`]) can be
/// allocated now. Wasm only; natively always `Ok`, and the estimate is not even computed (the
/// checks sit on search and write paths).
///
/// # Errors
/// `HV_OUT_OF_MEMORY`.
#[inline]
pub fn ensure_headroom(bytes: impl FnOnce() -> usize, what: &str) -> Result<()> {
    #[cfg(target_arch = "wasm32")]
    {
        let bytes = bytes();
        let mut probe: Vec<u8> = Vec::new();
        if probe
            .try_reserve_exact(bytes.saturating_add(SLACK))
            .is_err()
        {
            return Err(Error::OutOfMemory(format!(
                "{what} needs about {} MiB more than the wasm heap can give; nothing was changed",
                bytes.div_ceil(1 << 20)
            )));
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (bytes, what);
    Ok(())
}
