//! What both wasm classes (`CoreCollection`, in memory, and `CoreDurable`, in the browser's
//! file system) do the same way: the reads of a collection and the conversion of a write's
//! arguments. Each function checks the heap's headroom before copying out of JS (strings are
//! counted against a [`Budget`]), unpacks its arguments, calls one core method and converts back.

use horosvec_core::filter::Filter;
use horosvec_core::{args, mem, Collection, Error, SearchOptions, VectorId};
use js_sys::{Array, Float32Array};
use wasm_bindgen::prelude::*;

use crate::convert::{
    err, f32s_in, hits_out, id_in, ids_in, metadata_in, page_out, record_out, Budget,
};

/// Reads `{ k, includeMetadata, ef?, rerank?, exact, filter?, ids? }` (the same fields as the
/// Node binding's `RawSearchOptions`; `filter` and `ids` as JSON text).
pub(crate) fn opts(o: &JsValue, what: &'static str) -> Result<SearchOptions, JsValue> {
    let get = |k: &str| js_sys::Reflect::get(o, &k.into()).unwrap_or(JsValue::UNDEFINED);
    let mut budget = Budget::read(what);
    let filter = std::cell::Cell::new(text_in(&get("filter"), &mut budget)?);
    let ids = std::cell::Cell::new(text_in(&get("ids"), &mut budget)?);
    let a = args::SearchArgs::from_lookup(
        |k| get(k).as_f64(),
        |k| get(k).as_bool(),
        |k| match k {
            "filter" => filter.take(),
            "ids" => ids.take(),
            _ => None,
        },
    );
    args::search_options(&a).map_err(err)
}

/// A string argument (absent: `None`), copied within `budget`.
pub(crate) fn text_in(v: &JsValue, budget: &mut Budget) -> Result<Option<String>, JsValue> {
    budget.string(v).map_err(err)
}

/// The filter of `count` / `list` (absent: every record).
pub(crate) fn filter_in(filter: &JsValue, budget: &mut Budget) -> Result<Option<Filter>, JsValue> {
    text_in(filter, budget)?
        .as_deref()
        .map(Filter::parse)
        .transpose()
        .map_err(err)
}

/// The filter of `deleteWhere` (JSON text, required).
pub(crate) fn delete_filter(filter: &JsValue) -> Result<Filter, JsValue> {
    let mut budget = Budget::write("deleteWhere");
    let filter = text_in(filter, &mut budget)?
        .ok_or_else(|| err(Error::invalid_argument("the filter must be JSON text")))?;
    Filter::parse(&filter).map_err(err)
}

/// The ids of `delete`.
pub(crate) fn delete_ids(ids: &JsValue) -> Result<Vec<VectorId>, JsValue> {
    mem::ensure_headroom(|| 0, "delete").map_err(err)?;
    ids_in(ids, &mut Budget::write("delete")).map_err(err)
}

/// The ids, `n × dim` vectors (copied into wasm memory, fallibly) and metadata of a write.
pub(crate) type WriteInput = (Vec<VectorId>, Vec<f32>, Option<Vec<Option<String>>>);

/// Converts a write's arguments (`what`: the method, for the error messages).
pub(crate) fn write_input(
    ids: &JsValue,
    vectors: &Float32Array,
    metadata: Option<Array>,
    what: &'static str,
) -> Result<WriteInput, JsValue> {
    mem::ensure_headroom(|| vectors.length() as usize * 4, what).map_err(err)?;
    let vectors = f32s_in(vectors).map_err(err)?;
    let mut budget = Budget::write(what);
    let ids = ids_in(ids, &mut budget).map_err(err)?;
    let metadata = metadata_in(metadata, &mut budget).map_err(err)?;
    Ok((ids, vectors, metadata))
}

/// `count`: the live records the filter (JSON text; absent: every record) matches.
pub(crate) fn count(col: &Collection, filter: &JsValue) -> Result<f64, JsValue> {
    let f = filter_in(filter, &mut Budget::read("count"))?;
    Ok(col.count(f.as_ref()) as f64)
}

/// `list`: one page of the live records the filter matches.
pub(crate) fn list(
    col: &Collection,
    filter: &JsValue,
    limit: Option<f64>,
    cursor: &JsValue,
    include_vectors: bool,
) -> Result<JsValue, JsValue> {
    let mut budget = Budget::read("list");
    let filter = text_in(filter, &mut budget)?;
    let cursor = text_in(cursor, &mut budget)?;
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
    let id = id_in(id, &mut Budget::read("get")).map_err(err)?;
    Ok(col
        .get(&id)
        .map_err(err)?
        .map(|(v, m)| record_out(&v, m.as_deref()))
        .unwrap_or(JsValue::UNDEFINED))
}

/// `search`: one query.
pub(crate) fn search(
    col: &Collection,
    query: &Float32Array,
    options: &JsValue,
) -> Result<JsValue, JsValue> {
    mem::ensure_read_headroom(|| query.length() as usize * 4, "search").map_err(err)?;
    let o = opts(options, "search")?;
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
    mem::ensure_read_headroom(|| queries.length() as usize * 4, "searchBatch").map_err(err)?;
    let o = opts(options, "searchBatch")?;
    let queries = f32s_in(queries).map_err(err)?;
    let all = col.search_batch(&queries, &o).map_err(err)?;
    Ok(all.iter().map(|h| hits_out(h)).collect())
}
