//! The metadata queries of `CoreCollection` (issue 14): `count` and `list` on the calling
//! thread under the read lock, `deleteWhereAsync` on a worker thread (in-memory collections;
//! durable ones send it through `submitTicket("deleteWhere", …)`). Filters arrive as JSON text
//! and are parsed by the core (`horosvec_core::filter::Filter::parse`).

use std::sync::atomic::Ordering;

use horosvec_core::filter::Filter;
use horosvec_core::{args, Error};
use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;

use crate::collection::{read, write, CoreCollection, Job};
use crate::convert::{page_out, RawListPage};
use crate::error::guard;

/// The filter of `count` / `list` (absent: every record).
fn filter_in(filter: Option<&str>) -> horosvec_core::Result<Option<Filter>> {
    filter.map(Filter::parse).transpose()
}

#[napi]
impl CoreCollection {
    /// Deletes every record the filter (JSON text) matches, atomically, on a worker thread;
    /// resolves to the number deleted. In-memory collections only (durable ones use
    /// `submitTicket("deleteWhere", …)`).
    #[napi(catch_unwind, ts_return_type = "Promise<number>")]
    pub fn delete_where_async(&self, filter: String) -> AsyncTask<Job<u32>> {
        if self.durable.is_some() {
            return Job::new(|| Err(Error::Internal("durable collection: use submit".into())));
        }
        let s = self.inner.clone();
        let size = self.size.clone();
        Job::new(move || {
            let f = Filter::parse(&filter)?;
            write(&s, |c| {
                let n = c.delete_where(&f)? as u32;
                size.store(c.len(), Ordering::Release);
                Ok(n)
            })
        })
    }

    /// The number of live records the filter (JSON text; absent: every record) matches, on the
    /// calling thread.
    #[napi(catch_unwind)]
    pub fn count(&self, filter: Option<String>) -> napi::Result<f64> {
        guard(|| {
            let f = filter_in(filter.as_deref())?;
            read(&self.inner, |c| Ok(c.count(f.as_ref()) as f64))
        })
    }

    /// One page of the live records the filter matches, in insertion order, on the calling
    /// thread: `limit` records at most (default 100, at most 10,000), after `cursor` (the one the
    /// previous page returned); `vectors` (`n × dim` row-major) only with `includeVectors`.
    #[napi(catch_unwind)]
    pub fn list(
        &self,
        filter: Option<String>,
        limit: Option<f64>,
        cursor: Option<String>,
        include_vectors: bool,
    ) -> napi::Result<RawListPage> {
        guard(|| {
            let q = args::list_query(
                filter.as_deref(),
                limit,
                cursor.as_deref(),
                Some(include_vectors),
            )?;
            read(&self.inner, |c| c.list(&q)).map(|p| page_out(p, include_vectors))
        })
    }
}
