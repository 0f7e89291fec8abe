//! The filter parser: JSON value → [`Node`], every error naming the offending part.

use serde_json::{Map, Value};

use super::{Cmp, Node, Op, Scalar};
use crate::error::{Error, Result};

/// Deepest nesting of filter objects (`$and`/`$or`/`$not` and nested fields).
pub const MAX_DEPTH: usize = 32;
/// Most operators and operand values in one filter.
pub const MAX_TERMS: usize = 1024;
/// Longest dotted field path, in bytes.
pub const MAX_PATH: usize = 1024;

const FIELD_OPS: &str = "$eq $ne $gt $gte $lt $lte $in $nin $exists $contains $not";
const LOGICAL_OPS: &str = "$and $or $not";

struct Parser {
    terms: usize,
}

fn bad(at: &str, what: impl std::fmt::Display) -> Error {
    Error::invalid_argument(format!("{at}: {what}"))
}

/// Parses a whole filter.
pub(super) fn parse(v: &Value) -> Result<Node> {
    Parser { terms: 0 }.filter(v, "filter", 0)
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Parser {
    fn count(&mut self, at: &str, n: usize) -> Result<()> {
        self.terms += n;
        if self.terms > MAX_TERMS {
            return Err(bad(
                at,
                format!("the filter has more than {MAX_TERMS} operators and values"),
            ));
        }
        Ok(())
    }

    fn depth(at: &str, depth: usize) -> Result<()> {
        if depth > MAX_DEPTH {
            return Err(bad(at, format!("nested deeper than {MAX_DEPTH} levels")));
        }
        Ok(())
    }

    /// A filter object: field conditions and logical operators, all of which must hold.
    fn filter(&mut self, v: &Value, at: &str, depth: usize) -> Result<Node> {
        Self::depth(at, depth)?;
        let Value::Object(map) = v else {
            return Err(bad(
                at,
                format!("a filter must be an object, got {}", kind(v)),
            ));
        };
        let mut all = Vec::with_capacity(map.len());
        for (key, child) in map {
            let here = format!("{at}.{key}");
            match key.as_str() {
                "$and" | "$or" => {
                    let Value::Array(items) = child else {
                        return Err(bad(
                            &here,
                            format!("expects an array of filters, got {}", kind(child)),
                        ));
                    };
                    if items.is_empty() {
                        return Err(bad(&here, "expects at least one filter"));
                    }
                    self.count(&here, 1)?;
                    let nodes = items
                        .iter()
                        .enumerate()
                        .map(|(i, f)| self.filter(f, &format!("{here}[{i}]"), depth + 1))
                        .collect::<Result<Vec<_>>>()?;
                    all.push(if key == "$and" {
                        Node::And(nodes)
                    } else {
                        Node::Or(nodes)
                    });
                }
                "$not" => {
                    self.count(&here, 1)?;
                    all.push(Node::Not(Box::new(self.filter(child, &here, depth + 1)?)));
                }
                k if k.starts_with('$') => {
                    return Err(bad(
                        &here,
                        format!("unknown operator {k} (logical operators: {LOGICAL_OPS}; field operators go inside a field: {{ \"year\": {{ \"$gte\": 1990 }} }})"),
                    ));
                }
                _ => all.push(self.field(key, child, &here, depth + 1)?),
            }
        }
        Ok(one(all))
    }

    /// The condition on field `path`: a scalar (implicit `$eq`), an object of operators, or an
    /// object of nested fields.
    fn field(&mut self, path: &str, v: &Value, at: &str, depth: usize) -> Result<Node> {
        Self::depth(at, depth)?;
        if path.is_empty() || path.split('.').any(str::is_empty) {
            return Err(bad(at, "a field path needs a name between its dots"));
        }
        if path.len() > MAX_PATH {
            return Err(bad(at, format!("field path longer than {MAX_PATH} bytes")));
        }
        match v {
            Value::Object(map) => {
                let ops = map.keys().filter(|k| k.starts_with('$')).count();
                if map.is_empty() {
                    Err(bad(at, "an empty condition: give an operator such as { \"$eq\": 1 }"))
                } else if ops == map.len() {
                    self.ops(path, map, at, depth)
                } else if ops == 0 {
                    let mut all = Vec::with_capacity(map.len());
                    for (k, child) in map {
                        all.push(self.field(&format!("{path}.{k}"), child, &format!("{at}.{k}"), depth + 1)?);
                    }
                    Ok(one(all))
                } else {
                    Err(bad(at, "mixes operators ($…) and nested field names"))
                }
            }
            Value::Array(_) => Err(bad(
                at,
                "an array is not a condition: use { \"$in\": [...] } to match any of several values, or { \"$contains\": value } for an array field holding a value",
            )),
            s => {
                self.count(at, 1)?;
                Ok(Node::Field(path.into(), Op::Eq(scalar(s, at)?)))
            }
        }
    }

    /// An object of field operators, all of which must hold.
    fn ops(
        &mut self,
        path: &str,
        map: &Map<String, Value>,
        at: &str,
        depth: usize,
    ) -> Result<Node> {
        let mut all = Vec::with_capacity(map.len());
        for (op, v) in map {
            let here = format!("{at}.{op}");
            self.count(&here, 1)?;
            let field = |o| Node::Field(path.into(), o);
            all.push(match op.as_str() {
                "$eq" => field(Op::Eq(scalar(v, &here)?)),
                "$ne" => Node::Not(Box::new(field(Op::Eq(scalar(v, &here)?)))),
                "$gt" | "$gte" | "$lt" | "$lte" => {
                    let c = match op.as_str() {
                        "$gt" => Cmp::Gt,
                        "$gte" => Cmp::Gte,
                        "$lt" => Cmp::Lt,
                        _ => Cmp::Lte,
                    };
                    match v {
                        Value::Number(_) | Value::String(_) => field(Op::Cmp(c, scalar(v, &here)?)),
                        _ => {
                            return Err(bad(
                                &here,
                                format!("expects a number or a string, got {}", kind(v)),
                            ))
                        }
                    }
                }
                "$in" | "$nin" => {
                    let Value::Array(items) = v else {
                        return Err(bad(
                            &here,
                            format!("expects an array of values, got {}", kind(v)),
                        ));
                    };
                    self.count(&here, items.len())?;
                    let set = items
                        .iter()
                        .enumerate()
                        .map(|(i, s)| scalar(s, &format!("{here}[{i}]")))
                        .collect::<Result<Vec<_>>>()?;
                    let node = field(Op::In(set));
                    if op == "$in" {
                        node
                    } else {
                        Node::Not(Box::new(node))
                    }
                }
                "$exists" => match v {
                    Value::Bool(b) => field(Op::Exists(*b)),
                    _ => {
                        return Err(bad(
                            &here,
                            format!("expects true or false, got {}", kind(v)),
                        ))
                    }
                },
                "$contains" => field(Op::Contains(scalar(v, &here)?)),
                "$not" => match v {
                    Value::Object(inner)
                        if !inner.is_empty() && inner.keys().all(|k| k.starts_with('$')) =>
                    {
                        Self::depth(&here, depth + 1)?;
                        Node::Not(Box::new(self.ops(path, inner, &here, depth + 1)?))
                    }
                    _ => return Err(bad(
                        &here,
                        "expects an object of field operators, e.g. { \"$not\": { \"$gt\": 5 } }",
                    )),
                },
                other => {
                    return Err(bad(
                        &here,
                        format!("unknown operator {other} (field operators: {FIELD_OPS})"),
                    ))
                }
            });
        }
        Ok(one(all))
    }
}

/// One node for a list that must all hold.
fn one(mut all: Vec<Node>) -> Node {
    if all.len() == 1 {
        all.pop().unwrap_or(Node::And(Vec::new()))
    } else {
        Node::And(all)
    }
}

fn scalar(v: &Value, at: &str) -> Result<Scalar> {
    Scalar::of(v).ok_or_else(|| {
        bad(
            at,
            format!("expects a string, number, boolean or null, got {}", kind(v)),
        )
    })
}
