//! The arguments of the metadata queries: filters, id allow-lists, list pages.

use std::sync::Arc;

use super::{id, int_in};
use crate::collection::{ListQuery, MAX_LIST_LIMIT};
use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::types::VectorId;

/// A filter from its JSON text (see [`crate::filter`]).
///
/// # Errors
/// `HV_INVALID_ARGUMENT` naming the offending part.
pub fn filter(json: &str) -> Result<Filter> {
    Filter::parse(json)
}

/// An allow-list of ids from a JSON array (numbers: numeric ids, checked as [`id`]; strings:
/// string ids).
///
/// # Errors
/// `HV_INVALID_ARGUMENT` (not an array, an element that is neither a string nor a safe
/// non-negative integer).
pub fn id_list(json: &str) -> Result<Vec<VectorId>> {
    let v: serde_json::Value = serde_json::from_str(json)
        .map_err(|e| Error::invalid_argument(format!("ids is not a JSON array: {e}")))?;
    let serde_json::Value::Array(items) = v else {
        return Err(Error::invalid_argument("ids must be an array of ids"));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, x)| match x {
            serde_json::Value::String(s) => Ok(VectorId::Str(s.clone())),
            serde_json::Value::Number(n) => n
                .as_f64()
                .ok_or_else(|| Error::invalid_argument(format!("ids[{i}] is not a number")))
                .and_then(id),
            _ => Err(Error::invalid_argument(format!(
                "ids[{i}] must be a string or a non-negative safe integer"
            ))),
        })
        .collect()
}

/// The options of one [`Collection::list`](crate::Collection::list) page from JS values:
/// `filter` (JSON text), `limit` (default 100, 1..=10,000), `cursor` (the previous page's),
/// `includeVectors` (default false).
///
/// # Errors
/// `HV_INVALID_ARGUMENT` (a bad filter, limit or cursor).
pub fn list_query(
    filter: Option<&str>,
    limit: Option<f64>,
    cursor: Option<&str>,
    include_vectors: Option<bool>,
) -> Result<ListQuery> {
    let limit = match limit {
        None => 100,
        Some(l) if int_in(l, 1.0, MAX_LIST_LIMIT as f64) => l as usize,
        Some(l) => {
            return Err(Error::invalid_argument(format!(
                "limit must be an integer in 1..={MAX_LIST_LIMIT}, got {l}"
            )))
        }
    };
    let after = cursor
        .map(|c| {
            c.parse::<u64>().map_err(|_| {
                Error::invalid_argument(format!(
                    "cursor {c:?} is not a list() cursor (the string a previous page returned)"
                ))
            })
        })
        .transpose()?;
    Ok(ListQuery {
        filter: filter.map(Filter::parse).transpose()?.map(Arc::new),
        limit,
        after,
        include_vectors: include_vectors.unwrap_or(false),
    })
}
