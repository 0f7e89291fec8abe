//! A compact, versioned binary encoding of a [`MetaIndex`]: the `meta_index` section of a
//! segment file and the metadata index of a snapshot (drawn in `docs/format.md`).
//!
//! ```text
//! version u8 = 1
//! universe         varint: the rows the index ranges over
//! absent           postings: the rows of the universe that are not members
//! paths            varint count, then per path, in strictly increasing byte order:
//!   path           varint length + UTF-8 bytes
//!   present        postings (not empty)
//!   values         varint count, then per value, in strictly increasing scalar order:
//!     tag u8       0 null | 1 false | 2 true | 3 number: f64 (finite, not −0) | 4 string:
//!                  varint length + UTF-8 bytes
//!     direct       postings: rows where the field holds the value
//!     element      postings: rows where an array field holds it (one of the two not empty)
//! postings         varint count, then the first row and each following row's gap minus one
//! varint           unsigned LEB128, at most 10 bytes, no superfluous zero byte
//! ```
//!
//! The encoding is canonical: it depends on what the index answers, not on its history (paths
//! are sorted, paths no row holds any more are left out, the numeric runs are not stored but
//! rebuilt from the number values, which also orders them), so the index built from a
//! segment's metadata and the one decoded from its file encode to the same bytes.
//!
//! [`decode`] checks every byte: bounds, rows below the universe, strictly increasing postings
//! and keys, every row named a member, valid UTF-8, finite numbers, no byte left over. Any
//! failure is `HV_CORRUPT`; no input panics, and counts are checked against the bytes left
//! before anything is allocated for them.

use std::collections::{BTreeMap, HashMap};

use super::index::{Entry, MetaIndex, Numbers, PathIndex, Postings};
use super::rowset::RowSet;
use super::Scalar;
use crate::error::{Error, Result};

/// The encoding version [`encode`] writes and [`decode`] reads.
pub(crate) const VERSION: u8 = 1;

const T_NULL: u8 = 0;
const T_FALSE: u8 = 1;
const T_TRUE: u8 = 2;
const T_NUM: u8 = 3;
const T_STR: u8 = 4;

/// Appends the encoding of `ix` to `out`.
pub(crate) fn encode(ix: &MetaIndex, out: &mut Vec<u8>) {
    out.push(VERSION);
    let n = ix.members.universe();
    varint(out, n as u64);
    let absent: Vec<u32> = (0..n as u32).filter(|&r| !ix.members.contains(r)).collect();
    postings(out, &absent);
    let mut paths: Vec<(&str, &PathIndex)> = ix
        .paths
        .iter()
        .filter(|(_, p)| !p.present.is_empty())
        .map(|(k, p)| (&**k, p))
        .collect();
    paths.sort_unstable_by(|a, b| a.0.cmp(b.0));
    varint(out, paths.len() as u64);
    for (path, p) in paths {
        bytes(out, path.as_bytes());
        postings(out, &p.present.0);
        varint(out, p.values.len() as u64);
        for (v, e) in &p.values {
            match v {
                Scalar::Null => out.push(T_NULL),
                Scalar::Bool(false) => out.push(T_FALSE),
                Scalar::Bool(true) => out.push(T_TRUE),
                Scalar::Num(x) => {
                    out.push(T_NUM);
                    out.extend_from_slice(&x.to_le_bytes());
                }
                Scalar::Str(s) => {
                    out.push(T_STR);
                    bytes(out, s.as_bytes());
                }
            }
            postings(out, &e.direct.0);
            postings(out, &e.element.0);
        }
    }
}

/// The encoding of `ix` (see [`encode`]).
pub(crate) fn to_vec(ix: &MetaIndex) -> Vec<u8> {
    let mut out = Vec::new();
    encode(ix, &mut out);
    out
}

fn varint(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push((x as u8) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

fn bytes(out: &mut Vec<u8>, b: &[u8]) {
    varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

fn postings(out: &mut Vec<u8>, rows: &[u32]) {
    varint(out, rows.len() as u64);
    let mut prev: Option<u32> = None;
    for &r in rows {
        varint(out, u64::from(prev.map_or(r, |p| r - p - 1)));
        prev = Some(r);
    }
}

/// Decodes an index encoded by [`encode`] (a universe of at most
/// [`crate::graph::MAX_NODES`] rows).
///
/// # Errors
/// `HV_CORRUPT` on any inconsistency (see the module docs).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn decode(b: &[u8]) -> Result<MetaIndex> {
    decode_inner(b, None)
}

/// Decodes an index that must range over exactly `rows` rows (checked before anything is
/// allocated for them).
///
/// # Errors
/// `HV_CORRUPT` on any inconsistency, or another universe.
pub(crate) fn decode_rows(b: &[u8], rows: usize) -> Result<MetaIndex> {
    decode_inner(b, Some(rows))
}

fn corrupt(what: impl std::fmt::Display) -> Error {
    Error::Corrupt(format!("metadata index: {what}"))
}

/// A bounds-checked reader.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn left(&self) -> usize {
        self.b.len() - self.at
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        if self.left() < n {
            return Err(corrupt(format!("truncated in {what}")));
        }
        let s = &self.b[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }

    fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.take(1, what)?[0])
    }

    fn varint(&mut self, what: &str) -> Result<u64> {
        let mut x = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.u8(what)?;
            if byte == 0 && shift > 0 {
                return Err(corrupt(format!("{what}: superfluous varint byte")));
            }
            let part = u64::from(byte & 0x7f);
            if shift == 63 && part > 1 {
                return Err(corrupt(format!("{what}: varint overflows 64 bits")));
            }
            x |= part << shift;
            if byte & 0x80 == 0 {
                return Ok(x);
            }
        }
        Err(corrupt(format!("{what}: varint longer than 10 bytes")))
    }

    /// A count of items of at least `min` bytes each, checked against the bytes left.
    fn count(&mut self, min: usize, what: &str) -> Result<usize> {
        let c = self.varint(what)?;
        if c.saturating_mul(min as u64) > self.left() as u64 {
            return Err(corrupt(format!(
                "{what}: {c} announced, {} bytes left",
                self.left()
            )));
        }
        Ok(c as usize)
    }

    fn text(&mut self, what: &str) -> Result<&'a str> {
        let n = self.count(1, what)?;
        std::str::from_utf8(self.take(n, what)?)
            .map_err(|_| corrupt(format!("{what} is not UTF-8")))
    }

    /// Strictly increasing rows below `universe`.
    fn postings(&mut self, universe: usize, what: &str) -> Result<Vec<u32>> {
        let c = self.count(1, what)?;
        let mut rows = Vec::with_capacity(c);
        let mut next = 0u64; // the smallest row the next one may be
        for _ in 0..c {
            let r = next.saturating_add(self.varint(what)?);
            if r >= universe as u64 {
                return Err(corrupt(format!(
                    "{what}: row {r} outside the {universe} rows"
                )));
            }
            rows.push(r as u32);
            next = r + 1;
        }
        Ok(rows)
    }

    fn scalar(&mut self, what: &str) -> Result<Scalar> {
        Ok(match self.u8(what)? {
            T_NULL => Scalar::Null,
            T_FALSE => Scalar::Bool(false),
            T_TRUE => Scalar::Bool(true),
            T_NUM => {
                let mut a = [0u8; 8];
                a.copy_from_slice(self.take(8, what)?);
                let x = f64::from_le_bytes(a);
                if !x.is_finite() || x.to_bits() == (-0.0f64).to_bits() {
                    return Err(corrupt(format!("{what}: number {x} (not finite, or -0)")));
                }
                Scalar::Num(x)
            }
            T_STR => Scalar::Str(self.text(what)?.into()),
            t => return Err(corrupt(format!("{what}: unknown value tag {t}"))),
        })
    }
}

fn decode_inner(b: &[u8], rows: Option<usize>) -> Result<MetaIndex> {
    let mut r = Reader { b, at: 0 };
    let version = r.u8("version")?;
    if version != VERSION {
        return Err(corrupt(format!(
            "encoding version {version}; this build reads {VERSION}"
        )));
    }
    let universe = r.varint("universe")?;
    let fits = match rows {
        Some(n) => universe == n as u64,
        None => universe <= crate::graph::MAX_NODES as u64,
    };
    if !fits {
        let want = rows.map_or_else(|| "at most 2^31 - 1".into(), |n| n.to_string());
        return Err(corrupt(format!(
            "ranges over {universe} rows, expected {want}"
        )));
    }
    let universe = universe as usize;
    let mut members = RowSet::full(universe);
    for row in r.postings(universe, "absent rows")? {
        members.remove(row);
    }
    let member_rows = |rows: &[u32], what: &str| -> Result<()> {
        match rows.iter().find(|&&row| !members.contains(row)) {
            Some(row) => Err(corrupt(format!("{what} names row {row}, not a member"))),
            None => Ok(()),
        }
    };
    // a path takes at least 4 bytes: length, one byte, a present count and a value count
    let n_paths = r.count(4, "paths")?;
    let mut paths = HashMap::with_capacity(n_paths);
    let mut prev_path: Option<&str> = None;
    for _ in 0..n_paths {
        let path = r.text("path")?;
        if prev_path.is_some_and(|p| p >= path) {
            return Err(corrupt(format!("path {path:?} out of order")));
        }
        prev_path = Some(path);
        let present = r.postings(universe, "present rows")?;
        if present.is_empty() {
            return Err(corrupt(format!("path {path:?} holds no row")));
        }
        member_rows(&present, "present rows")?;
        // a value takes at least 3 bytes: a tag and two counts
        let n_values = r.count(3, "values")?;
        let mut values = BTreeMap::new();
        let mut run = Vec::new();
        for _ in 0..n_values {
            let v = r.scalar("value")?;
            if values.last_key_value().is_some_and(|(p, _)| *p >= v) {
                return Err(corrupt(format!("path {path:?}: value {v:?} out of order")));
            }
            let direct = r.postings(universe, "direct rows")?;
            let element = r.postings(universe, "element rows")?;
            if direct.is_empty() && element.is_empty() {
                return Err(corrupt(format!("path {path:?}: value {v:?} holds no row")));
            }
            member_rows(&direct, "direct rows")?;
            member_rows(&element, "element rows")?;
            if let Scalar::Num(x) = v {
                merge_rows(&direct, &element, |row| run.push((x, row)));
            }
            let entry = Entry {
                direct: Postings(direct),
                element: Postings(element),
            };
            values.insert(v, entry);
        }
        let numbers = Numbers {
            run,
            tail: Vec::new(),
        };
        let p = PathIndex {
            present: Postings(present),
            values,
            numbers,
        };
        paths.insert(Box::<str>::from(path), p);
    }
    if r.left() != 0 {
        return Err(corrupt(format!("{} bytes after the end", r.left())));
    }
    Ok(MetaIndex { paths, members })
}

/// Calls `f` for every row of the union of two sorted lists, ascending, once each.
fn merge_rows(a: &[u32], b: &[u32], mut f: impl FnMut(u32)) {
    let (mut i, mut j) = (0, 0);
    loop {
        let row = match (a.get(i), b.get(j)) {
            (None, None) => return,
            (Some(&x), None) => {
                i += 1;
                x
            }
            (None, Some(&y)) => {
                j += 1;
                y
            }
            (Some(&x), Some(&y)) => {
                i += usize::from(x <= y);
                j += usize::from(y <= x);
                x.min(y)
            }
        };
        f(row);
    }
}
