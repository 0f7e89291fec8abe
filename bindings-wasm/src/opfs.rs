//! The log store's file ([`LogFile`]) over a JS object with the methods of the browser's
//! `FileSystemSyncAccessHandle`: `getSize()`, `read(buffer, { at })`, `write(buffer, { at })`,
//! `truncate(size)`, `flush()` (all synchronous: sync access handles exist only in dedicated
//! workers). A `DOMException` named `QuotaExceededError` becomes `HV_QUOTA`; any other
//! exception `HV_IO`, with the file's name and the exception's message.

use horosvec_core::store::LogFile;
use horosvec_core::{Error, Result};
use js_sys::{Array, Function, Object, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};

/// One file handle (or any object with those five methods, e.g. a test's failing file).
pub(crate) struct JsFile {
    handle: JsValue,
    name: String,
}

/// The core error of a JS exception thrown by `what` on file `name`.
pub(crate) fn file_error(e: &JsValue, name: &str, what: &str) -> Error {
    let prop = |k: &str| Reflect::get(e, &k.into()).ok().and_then(|v| v.as_string());
    let kind = prop("name").unwrap_or_default();
    let message = prop("message")
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "unknown error".into());
    if kind == "QuotaExceededError" {
        Error::Quota(format!("{what} {name}: {message}"))
    } else {
        Error::Io(format!("{what} {name}: {kind} {message}"))
    }
}

impl JsFile {
    /// `handle` as a log file called `name` (for messages).
    pub(crate) fn new(handle: JsValue, name: String) -> JsFile {
        JsFile { handle, name }
    }

    fn call(&self, method: &str, args: &[JsValue]) -> Result<JsValue> {
        let f: Function = Reflect::get(&self.handle, &method.into())
            .ok()
            .and_then(|f| f.dyn_into().ok())
            .ok_or_else(|| {
                Error::invalid_argument(format!("the file {} has no {method}() method", self.name))
            })?;
        let args: Array = args.iter().collect();
        f.apply(&self.handle, &args)
            .map_err(|e| file_error(&e, &self.name, method))
    }

    fn at(at: u64) -> JsValue {
        let o = Object::new();
        let _ = Reflect::set(&o, &"at".into(), &(at as f64).into());
        o.into()
    }

    fn count(&self, v: JsValue, what: &str) -> Result<u64> {
        v.as_f64()
            .filter(|n| *n >= 0.0)
            .map(|n| n as u64)
            .ok_or_else(|| Error::Io(format!("{what} {}: not a byte count", self.name)))
    }
}

impl LogFile for JsFile {
    fn size(&mut self) -> Result<u64> {
        let n = self.call("getSize", &[])?;
        self.count(n, "getSize")
    }

    fn read_at(&mut self, at: u64, buf: &mut [u8]) -> Result<()> {
        let js = Uint8Array::new_with_length(buf.len() as u32);
        let n = self.call("read", &[js.clone().into(), Self::at(at)])?;
        if self.count(n, "read")? != buf.len() as u64 {
            return Err(Error::Corrupt(format!(
                "{}: fewer bytes than its size at {at}",
                self.name
            )));
        }
        js.copy_to(buf);
        Ok(())
    }

    fn write_at(&mut self, at: u64, data: &[u8]) -> Result<()> {
        let js = Uint8Array::from(data);
        let n = self.call("write", &[js.into(), Self::at(at)])?;
        let written = self.count(n, "write")?;
        if written != data.len() as u64 {
            // the handle writes what fits in the quota and reports the rest as not written
            return Err(Error::Quota(format!(
                "write {}: {written} of {} bytes written",
                self.name,
                data.len()
            )));
        }
        Ok(())
    }

    fn truncate(&mut self, len: u64) -> Result<()> {
        self.call("truncate", &[(len as f64).into()]).map(|_| ())
    }

    fn flush(&mut self) -> Result<()> {
        self.call("flush", &[]).map(|_| ())
    }
}
