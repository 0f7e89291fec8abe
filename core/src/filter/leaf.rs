//! The leaves of a record's metadata: the one definition of which (path, value) pairs a record
//! has, shared by the metadata index and the reference evaluator.
//!
//! For metadata `{"a": {"b": 1}, "t": ["x", {"c": 2}]}` the leaves are `a` (present), `a.b = 1`
//! (direct), `t` (present), `t = "x"` (element), `t.c = 2` (direct: objects inside arrays give
//! their fields to the array's path). Metadata that is absent or not an object has no leaves.

use super::Scalar;

/// How a leaf holds its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The field itself holds the value (or, with no value, an object or array: presence only).
    Direct,
    /// An element of an array field.
    Element,
}

/// One leaf: a dotted path and the scalar found there (`None`: an object or array).
#[derive(Clone, Debug)]
pub(crate) struct Leaf {
    pub(crate) path: Box<str>,
    pub(crate) value: Option<Scalar>,
    pub(crate) kind: Kind,
}

/// Deepest nesting of metadata that is indexed. Stored metadata is checked by serde_json, whose
/// parser refuses nesting deeper than 128 levels, so every stored value is indexed; the bound
/// only keeps the recursion finite.
const MAX_NESTING: usize = 130;

/// The leaves of metadata JSON text (none when absent or not valid JSON).
pub(crate) fn leaves_of_text(metadata: Option<&str>) -> Vec<Leaf> {
    let mut out = Vec::new();
    if let Some(text) = metadata {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
            leaves(&v, &mut out);
        }
    }
    out
}

/// Appends the leaves of one record's metadata to `out`.
pub(crate) fn leaves(v: &serde_json::Value, out: &mut Vec<Leaf>) {
    if let serde_json::Value::Object(map) = v {
        let mut path = String::new();
        for (k, child) in map {
            path.clear();
            path.push_str(k);
            field(&mut path, child, 0, out);
        }
    }
}

fn field(path: &mut String, v: &serde_json::Value, depth: usize, out: &mut Vec<Leaf>) {
    use serde_json::Value as V;
    if depth > MAX_NESTING {
        return;
    }
    let leaf = |path: &str, value, kind| Leaf {
        path: path.into(),
        value,
        kind,
    };
    match v {
        V::Object(map) => {
            out.push(leaf(path, None, Kind::Direct));
            children(path, map, depth, out);
        }
        V::Array(items) => {
            out.push(leaf(path, None, Kind::Direct));
            for item in items {
                match item {
                    V::Object(map) => children(path, map, depth, out),
                    // an array inside an array: its scalars are elements of the outer path
                    V::Array(inner) => {
                        for s in inner.iter().filter_map(Scalar::of) {
                            out.push(leaf(path, Some(s), Kind::Element));
                        }
                    }
                    s => out.push(leaf(path, Scalar::of(s), Kind::Element)),
                }
            }
        }
        s => out.push(leaf(path, Scalar::of(s), Kind::Direct)),
    }
}

fn children(
    path: &mut String,
    map: &serde_json::Map<String, serde_json::Value>,
    depth: usize,
    out: &mut Vec<Leaf>,
) {
    let len = path.len();
    for (k, child) in map {
        path.truncate(len);
        path.push('.');
        path.push_str(k);
        field(path, child, depth + 1, out);
    }
    path.truncate(len);
}
