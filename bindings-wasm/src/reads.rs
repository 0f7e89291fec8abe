//! What both wasm classes (`CoreCollection`, in memory, and `CoreDurable`, in the browser's
//! file system) do the same way: the reads of a collection and the conversion of a write's
//! arguments. Each function unpacks its arguments, calls one core method and converts back.

use horosvec_core::filter::Filter;
use horosvec_core::{args, Collection, SearchOptions, VectorId};
use js_sys::{Array, Float32Array};
use wasm_bindgen::prelude::*;

use crate::convert::{err, f32s_in, hits_out, id_in, ids_in, metadata_in, page_out, record_out};

/// Reads `{ k, includeMetadata, ef?, rerank?, exact, filter?, ids? }` (the same fields as the
/// Node binding's `RawSearchOptions`; `filter` and `ids` as JSON text).
pub(crate) fn opts(o: &JsValue) -> Result<SearchOptions, JsValue> {
    let get = |k: &str| js_sys::Reflect::get(o, &k.into()).unwrap_or(JsValue::UNDEFINED);
    let a = args::SearchArgs::from_lookup(
        |k| get(k).as_f64(),
        |k| get(k).as_bool(),
        |k| get(k).as_string(),
    );
    args::search_options(&a).map_err(err)
}

/// The filter of `count` / `list` (absent: every record).
pub(crate) fn filter_in(filter: Option<String>) -> Result<Option<Filter>, JsValue> {
    filter
        .as_deref()
        .map(Filter::parse)
        .transpose()
        .map_err(err)
}

/// A filter from its JSON text.
pub(crate) fn filter(text: &str) -> Result<Filter, JsValue> {
    Filter::parse(text).map_err(err)
}

/// The ids, `n × dim` vectors (copied into wasm memory, fallibly) and metadata of a write.
pub(crate) type WriteInput = (Vec<VectorId>, Vec<f32>, Option<Vec<Option<String>>>);

/// Converts a write's arguments.
pub(crate) fn write_input(
    ids: &JsValue,
    vectors: &Float32Array,
    metadata: Option<Array>,
) -> Result<WriteInput, JsValue> {
    let vectors = f32s_in(vectors).map_err(err)?;
    let ids = ids_in(ids).map_err(err)?;
    let metadata = metadata_in(metadata).map_err(err)?;
    Ok((ids, vectors, metadata))
}

/// `count`: the live records the filter (JSON text; absent: every record) matches.
pub(crate) fn count(col: &Collection, filter: Option<String>) -> Result<f64, JsValue> {
    let f = filter_in(filter)?;
    Ok(col.count(f.as_ref()) as f64)
}

/// `list`: one page of the live records the filter matches.
pub(crate) fn list(
    col: &Collection,
    filter: Option<String>,
    limit: Option<f64>,
    cursor: Option<String>,
    include_vectors: bool,
) -> Result<JsValue, JsValue> {
    let q = args::list_query(
        filter.as_deref(),
        limit,
        cursor.as_deref(),
        Some(include_vectors),
    )
    .map_err(err)?;
    let page = col.list(&q).map_err(err)?;
    Ok(page_out(&page, include_vectors))
}

/// `get`: the record of `id` (`{ vector, metadata }`), or undefined.
pub(crate) fn get(col: &Collection, id: &JsValue) -> Result<JsValue, JsValue> {
    let id = id_in(id).map_err(err)?;
    Ok(col
        .get(&id)
        .map_err(err)?
        .map(|(v, m)| record_out(v, m.as_deref()))
        .unwrap_or(JsValue::UNDEFINED))
}

/// `search`: one query.
pub(crate) fn search(
    col: &Collection,
    query: &Float32Array,
    options: &JsValue,
) -> Result<JsValue, JsValue> {
    let o: SearchOptions = opts(options)?;
    let query = f32s_in(query).map_err(err)?;
    let hits = col.search(&query, &o).map_err(err)?;
    Ok(hits_out(&hits))
}

/// `searchBatch`: `n` queries (`n × dim` row-major), an array of per-query hits.
pub(crate) fn search_batch(
    col: &Collection,
    queries: &Float32Array,
    options: &JsValue,
) -> Result<Array, JsValue> {
    let o = opts(options)?;
    let queries = f32s_in(queries).map_err(err)?;
    let all = col.search_batch(&queries, &o).map_err(err)?;
    Ok(all.iter().map(|h| hits_out(h)).collect())
}
