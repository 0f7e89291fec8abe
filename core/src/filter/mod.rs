//! Metadata filters: the filter language (`parse`), the leaves of a record's metadata
//! (`leaf`), the metadata index of a segment (`index`) and the row sets a filter selects
//! (`rowset`).
//!
//! A filter is a JSON object in the style of MongoDB, Pinecone and Chroma:
//! `{ "source": "wordnet" }` (implicit `$eq`), `{ "year": { "$gte": 1990, "$lt": 2000 } }`,
//! `{ "tag": { "$in": ["a", "b"] } }`, `{ "$or": [{...}, {...}] }`, with dotted paths for
//! nested fields (`"user.id"`; a nested object without `$` keys means the same). The
//! operators: `$eq $ne $gt $gte $lt $lte $in $nin $exists $contains` on a field, `$and $or
//! $not` over filters (`$not` also over one field's operators).
//!
//! Semantics (one definition, `leaf::leaves`, shared by the index and the reference
//! evaluator [`Filter::matches`]):
//! - a record whose metadata is absent or not a JSON object has no fields;
//! - a field holding an array matches `$eq`, `$in` and the comparisons on any element;
//!   `$contains` matches an array holding the value or a string holding the substring;
//! - numbers compare numerically (`1` equals `1.0`), strings by code point (UTF-8 byte order
//!   is code point order), booleans and null by equality; a value of another type does not
//!   match, without error;
//! - `$ne`, `$nin` and `$not` are the negations of `$eq`, `$in` and their operand, so they
//!   match records that lack the field (MongoDB's rule);
//! - `$exists: true` matches a field that is present, whatever its value (null included).
//!
//! Bounds (a bad filter is `HV_INVALID_ARGUMENT` naming the offending part, e.g.
//! `filter.year.$gte`): nesting depth at most [`MAX_DEPTH`], at most [`MAX_TERMS`] operators
//! and operand values in all, paths of at most [`MAX_PATH`] bytes.

pub(crate) mod index;
pub(crate) mod leaf;
mod parse;
pub(crate) mod rowset;
pub mod strategy;
#[cfg(test)]
mod tests;

pub use parse::{MAX_DEPTH, MAX_PATH, MAX_TERMS};

use std::cmp::Ordering;

use crate::error::Result;

/// A parsed filter over record metadata (see the [module docs](self)).
#[derive(Clone, Debug, PartialEq)]
pub struct Filter {
    pub(crate) root: Node,
    /// The filter's canonical JSON text (the input re-serialised).
    text: String,
}

impl Filter {
    /// Parses a filter from its JSON text.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT`: not JSON, not an object, an unknown operator, an operand of the
    /// wrong type, or past a bound; the message names the offending part (`filter.a.$gt`).
    pub fn parse(json: &str) -> Result<Filter> {
        let value: serde_json::Value = serde_json::from_str(json).map_err(|e| {
            crate::error::Error::invalid_argument(format!("filter is not valid JSON: {e}"))
        })?;
        Filter::from_value(&value)
    }

    /// Parses a filter from a JSON value (see [`Filter::parse`]).
    ///
    /// # Errors
    /// As [`Filter::parse`].
    pub fn from_value(value: &serde_json::Value) -> Result<Filter> {
        let root = parse::parse(value)?;
        Ok(Filter {
            root,
            text: value.to_string(),
        })
    }

    /// The filter `{}`, which matches every record.
    pub fn all() -> Filter {
        Filter {
            root: Node::And(Vec::new()),
            text: "{}".into(),
        }
    }

    /// True when the filter matches every record (`{}`).
    pub fn is_all(&self) -> bool {
        matches!(&self.root, Node::And(v) if v.is_empty())
    }

    /// The filter's JSON text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The reference evaluator: whether a record with metadata JSON `metadata` matches. It
    /// parses the text on every call; searches use the segments' `index::MetaIndex`.
    pub fn matches(&self, metadata: Option<&str>) -> bool {
        let leaves = leaf::leaves_of_text(metadata);
        self.root.eval(&leaves)
    }
}

/// A scalar JSON value: what an operator compares with.
#[derive(Clone, Debug)]
pub(crate) enum Scalar {
    Null,
    Bool(bool),
    Num(f64),
    Str(Box<str>),
}

impl Scalar {
    /// The scalar of a JSON value, `None` for arrays and objects.
    pub(crate) fn of(v: &serde_json::Value) -> Option<Scalar> {
        use serde_json::Value as V;
        Some(match v {
            V::Null => Scalar::Null,
            V::Bool(b) => Scalar::Bool(*b),
            // serde_json numbers are finite; -0 equals 0
            V::Number(n) => Scalar::Num(n.as_f64()? + 0.0),
            V::String(s) => Scalar::Str(s.as_str().into()),
            V::Array(_) | V::Object(_) => return None,
        })
    }

    /// The type rank of the total order: null < booleans < numbers < strings.
    fn rank(&self) -> u8 {
        match self {
            Scalar::Null => 0,
            Scalar::Bool(_) => 1,
            Scalar::Num(_) => 2,
            Scalar::Str(_) => 3,
        }
    }

    /// Whether `self` and `o` have the same type (only then do comparisons match).
    pub(crate) fn same_type(&self, o: &Scalar) -> bool {
        self.rank() == o.rank()
    }
}

// A total order (types by rank, numbers by value, strings by code point), so scalars can key an
// ordered map; comparisons in filters only match within one type.
impl Ord for Scalar {
    fn cmp(&self, o: &Scalar) -> Ordering {
        match (self, o) {
            (Scalar::Bool(a), Scalar::Bool(b)) => a.cmp(b),
            (Scalar::Num(a), Scalar::Num(b)) => a.total_cmp(b),
            (Scalar::Str(a), Scalar::Str(b)) => a.cmp(b),
            _ => self.rank().cmp(&o.rank()),
        }
    }
}

impl PartialOrd for Scalar {
    fn partial_cmp(&self, o: &Scalar) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl PartialEq for Scalar {
    fn eq(&self, o: &Scalar) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}

impl Eq for Scalar {}

/// A range comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cmp {
    Gt,
    Gte,
    Lt,
    Lte,
}

impl Cmp {
    /// Whether `v` (of the operand's type) satisfies `v <op> operand`.
    pub(crate) fn holds(self, v: &Scalar, operand: &Scalar) -> bool {
        let o = v.cmp(operand);
        match self {
            Cmp::Gt => o == Ordering::Greater,
            Cmp::Gte => o != Ordering::Less,
            Cmp::Lt => o == Ordering::Less,
            Cmp::Lte => o != Ordering::Greater,
        }
    }
}

/// One field condition.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Op {
    Eq(Scalar),
    Cmp(Cmp, Scalar),
    In(Vec<Scalar>),
    Exists(bool),
    Contains(Scalar),
}

/// A node of a parsed filter. `$ne`/`$nin` parse to `Not(Field(Eq/In))`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Node {
    /// All children match (`[]`: every record).
    And(Vec<Node>),
    /// Some child matches (`[]` is refused by the parser).
    Or(Vec<Node>),
    Not(Box<Node>),
    Field(Box<str>, Op),
}

impl Node {
    /// The reference evaluation over one record's leaves.
    fn eval(&self, leaves: &[leaf::Leaf]) -> bool {
        match self {
            Node::And(v) => v.iter().all(|n| n.eval(leaves)),
            Node::Or(v) => v.iter().any(|n| n.eval(leaves)),
            Node::Not(n) => !n.eval(leaves),
            Node::Field(path, op) => {
                let at = leaves.iter().filter(|l| *l.path == **path);
                match op {
                    Op::Exists(want) => at.clone().next().is_some() == *want,
                    Op::Eq(s) => at.clone().any(|l| l.value.as_ref() == Some(s)),
                    Op::In(set) => at
                        .clone()
                        .any(|l| l.value.as_ref().is_some_and(|v| set.contains(v))),
                    Op::Cmp(c, s) => at.clone().any(|l| {
                        l.value
                            .as_ref()
                            .is_some_and(|v| v.same_type(s) && c.holds(v, s))
                    }),
                    Op::Contains(s) => at.clone().any(|l| match (&l.value, l.kind) {
                        (Some(v), leaf::Kind::Element) => v == s,
                        (Some(Scalar::Str(v)), leaf::Kind::Direct) => match s {
                            Scalar::Str(sub) => v.contains(&**sub),
                            _ => false,
                        },
                        _ => false,
                    }),
                }
            }
        }
    }
}
