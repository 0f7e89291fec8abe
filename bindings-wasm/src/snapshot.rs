//! `SnapshotBuffer`: a 64-byte aligned buffer in wasm memory that JS fills (Node's
//! `Collection.fromFile` reads the file straight into it, `npm/lib/snapshot-file-node.js`), then
//! hands to `CoreCollection.fromBuffer`, which reads a version-5 snapshot from it in place: the
//! bytes cross into wasm memory once, with no JS copy.

use std::sync::Arc;

use horosvec_core::{mem, AlignedBuf, Collection, Error};
use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::collection::CoreCollection;
use crate::convert::err;

/// The error of a buffer already handed to `CoreCollection.fromBuffer`.
fn used() -> JsValue {
    err(Error::invalid_argument(
        "the snapshot buffer was used already",
    ))
}

/// `len` as a byte count below 4 GiB, else `HV_INVALID_ARGUMENT`.
fn byte_count(len: f64) -> Result<usize, JsValue> {
    if !(len >= 0.0 && len.fract() == 0.0 && len <= u32::MAX as f64) {
        return Err(err(Error::invalid_argument(format!(
            "a snapshot buffer's length must be a byte count below 4 GiB, got {len}"
        ))));
    }
    Ok(len as usize)
}

/// Bytes in wasm memory for a snapshot (raw binding).
#[wasm_bindgen]
pub struct SnapshotBuffer {
    buf: Option<AlignedBuf>,
}

#[wasm_bindgen]
impl SnapshotBuffer {
    /// A buffer of `len` bytes (an integer) filled by `read(view)`, called once, synchronously,
    /// with a `Uint8Array` over the buffer's bytes in wasm memory (not zeroed first); it must
    /// write all of them (Node's `fromFile`: `readSync` of the file into the view) and return
    /// how many it wrote. `HV_IO` when `read` throws (its error is the cause) or reports another
    /// count, `HV_OUT_OF_MEMORY`, `HV_INVALID_ARGUMENT` for a length that is not a byte count.
    pub fn fill(len: f64, read: &js_sys::Function) -> Result<SnapshotBuffer, JsValue> {
        let n = byte_count(len)?;
        mem::ensure_headroom(|| n, "Collection.fromFile").map_err(err)?;
        let mut thrown: Option<JsValue> = None;
        let filler = |address: usize, len: usize| -> horosvec_core::Result<()> {
            let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
            let view = Uint8Array::new_with_byte_offset_and_length(
                &memory.buffer(),
                address as u32,
                len as u32,
            );
            match read.call1(&JsValue::NULL, &view) {
                Ok(wrote) if wrote.as_f64() == Some(len as f64) => Ok(()),
                Ok(wrote) => Err(Error::Io(format!(
                    "the snapshot reader wrote {wrote:?} of {len} bytes"
                ))),
                Err(e) => {
                    thrown = Some(e);
                    Err(Error::Io("the snapshot reader threw".into()))
                }
            }
        };
        // SAFETY: `filler` returns `Ok` only when `read` reports having written all `len` bytes
        // of the view, which covers exactly `address..address + len`; JS cannot free or move wasm
        // memory, and no Rust code reads the bytes before `try_fill_foreign` returns.
        let result = unsafe { AlignedBuf::try_fill_foreign(n, filler) };
        match result {
            Ok(buf) => Ok(SnapshotBuffer { buf: Some(buf) }),
            Err(e) => {
                mem::release_reserve();
                Err(thrown.unwrap_or_else(|| err(e)))
            }
        }
    }
}

/// A snapshot checksum of the buffer's bytes (`crc32`: CRC-32, else xxh3-64), as a number:
/// for `bench/checksum.mjs`, which times this call (the bytes are in wasm memory already).
#[wasm_bindgen(js_name = hashBench)]
pub fn hash_bench(buffer: &SnapshotBuffer, crc32: bool) -> Result<f64, JsValue> {
    let buf = buffer.buf.as_ref().ok_or_else(used)?;
    let h = horosvec_core::checksum_for_bench(horosvec_core::Backing::bytes(buf), crc32);
    Ok((h & ((1 << 52) - 1)) as f64)
}

#[wasm_bindgen]
impl CoreCollection {
    /// Loads the snapshot held by `buffer` (which it takes: the buffer is empty afterwards).
    #[wasm_bindgen(js_name = fromBuffer)]
    pub fn from_buffer(buffer: &mut SnapshotBuffer) -> Result<CoreCollection, JsValue> {
        let buf = buffer.buf.take().ok_or_else(used)?;
        let col = Collection::from_backing(Arc::new(buf)).map_err(err)?;
        Ok(CoreCollection::from_collection(col))
    }
}
