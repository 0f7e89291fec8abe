//! The metadata index of one segment: per field path, the rows where it is present, an
//! inverted index (value → rows, for `$eq` / `$in` / `$contains` and string ranges) and a
//! sorted run of (number, row) pairs (numeric ranges). It answers a [`Filter`] with the
//! exact [`RowSet`] of matching rows, from which a search takes the match count before it
//! starts and its membership test during the walk.
//!
//! Kept incrementally by the mutable segment (`insert`, `remove`; rows appended in order are
//! the cheap case), built once for a sealed segment.

use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;

use super::leaf::{self, Kind, Leaf};
use super::rowset::RowSet;
use super::{Cmp, Filter, Node, Op, Scalar};

/// A sorted list of rows.
#[derive(Clone, Debug, Default)]
struct Postings(Vec<u32>);

impl Postings {
    fn insert(&mut self, r: u32) {
        match self.0.last() {
            Some(&last) if last >= r => {
                if let Err(at) = self.0.binary_search(&r) {
                    self.0.insert(at, r);
                }
            }
            _ => self.0.push(r),
        }
    }

    fn remove(&mut self, r: u32) {
        if let Ok(at) = self.0.binary_search(&r) {
            self.0.remove(at);
        }
    }

    fn add_to(&self, set: &mut RowSet) {
        for &r in &self.0 {
            set.insert(r);
        }
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A value's rows: where a field holds it, and where an array field holds it as an element.
#[derive(Clone, Debug, Default)]
struct Entry {
    direct: Postings,
    element: Postings,
}

/// (number, row) pairs: a sorted run plus a short unsorted tail of recent inserts, merged
/// into the run once it passes an eighth of it.
#[derive(Clone, Debug, Default)]
struct Numbers {
    run: Vec<(f64, u32)>,
    tail: Vec<(f64, u32)>,
}

fn pair_cmp(a: &(f64, u32), b: &(f64, u32)) -> std::cmp::Ordering {
    a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
}

impl Numbers {
    fn insert(&mut self, v: f64, r: u32) {
        self.tail.push((v, r));
        if self.tail.len() > 64 && self.tail.len() * 8 > self.run.len() {
            self.run.append(&mut self.tail);
            self.run.sort_unstable_by(pair_cmp);
        }
    }

    fn remove(&mut self, v: f64, r: u32) {
        if let Ok(at) = self.run.binary_search_by(|p| pair_cmp(p, &(v, r))) {
            self.run.remove(at);
        } else if let Some(at) = self.tail.iter().position(|&p| p.1 == r && p.0 == v) {
            self.tail.swap_remove(at);
        }
    }

    /// Adds the rows whose number satisfies `c` against `x`.
    fn add_range(&self, c: Cmp, x: f64, set: &mut RowSet) {
        let (lo, hi) = match c {
            Cmp::Gt => (self.run.partition_point(|p| p.0 <= x), self.run.len()),
            Cmp::Gte => (self.run.partition_point(|p| p.0 < x), self.run.len()),
            Cmp::Lt => (0, self.run.partition_point(|p| p.0 < x)),
            Cmp::Lte => (0, self.run.partition_point(|p| p.0 <= x)),
        };
        for &(_, r) in &self.run[lo..hi.max(lo)] {
            set.insert(r);
        }
        let op = Scalar::Num(x);
        for &(v, r) in &self.tail {
            if c.holds(&Scalar::Num(v), &op) {
                set.insert(r);
            }
        }
    }
}

/// One field path's index.
#[derive(Clone, Debug, Default)]
struct PathIndex {
    present: Postings,
    values: BTreeMap<Scalar, Entry>,
    numbers: Numbers,
}

/// The metadata index of rows `0..rows()` of one segment.
#[derive(Clone, Debug, Default)]
pub(crate) struct MetaIndex {
    paths: HashMap<Box<str>, PathIndex>,
    /// The rows indexed (inserted and not removed): the universe of `$not` and `$exists: false`.
    members: RowSet,
}

impl Default for RowSet {
    fn default() -> RowSet {
        RowSet::empty(0)
    }
}

impl MetaIndex {
    /// The index of rows whose metadata texts are `metadata`, in row order.
    pub(crate) fn build<'a>(metadata: impl IntoIterator<Item = Option<&'a str>>) -> MetaIndex {
        let mut ix = MetaIndex::default();
        for (r, m) in metadata.into_iter().enumerate() {
            ix.insert(r as u32, m);
        }
        ix
    }

    /// The number of rows the index ranges over.
    pub(crate) fn rows(&self) -> usize {
        self.members.universe()
    }

    /// Indexes row `r` with metadata `meta` (the row must hold no metadata in the index yet).
    pub(crate) fn insert(&mut self, r: u32, meta: Option<&str>) {
        if r as usize >= self.members.universe() {
            self.members.resize(r as usize + 1);
        }
        self.members.insert(r);
        for l in leaf::leaves_of_text(meta) {
            let p = self.paths.entry(l.path.clone()).or_default();
            p.apply(&l, r, true);
        }
    }

    /// Forgets row `r`'s metadata `meta` (as inserted); the row stays in the universe.
    pub(crate) fn remove(&mut self, r: u32, meta: Option<&str>) {
        if !self.members.contains(r) {
            return;
        }
        self.members.remove(r);
        for l in leaf::leaves_of_text(meta) {
            if let Some(p) = self.paths.get_mut(&l.path) {
                p.apply(&l, r, false);
            }
        }
    }

    /// Shrinks the universe to `rows` rows (the rows past it must hold no metadata).
    pub(crate) fn truncate(&mut self, rows: usize) {
        self.members.resize(rows);
    }

    /// Whether row `r` is indexed (inserted and not removed).
    pub(crate) fn is_member(&self, r: u32) -> bool {
        self.members.contains(r)
    }

    /// The rows (of `0..rows()`, tombstones included) that match `f`.
    pub(crate) fn select(&self, f: &Filter) -> RowSet {
        let mut s = self.node(&f.root);
        s.and(&self.members);
        s
    }

    fn node(&self, n: &Node) -> RowSet {
        match n {
            Node::And(v) => {
                let mut it = v.iter();
                let Some(first) = it.next() else {
                    return self.members.clone();
                };
                let mut s = self.node(first);
                for c in it {
                    if s.count() == 0 {
                        break;
                    }
                    s.and(&self.node(c));
                }
                s
            }
            Node::Or(v) => {
                let mut s = RowSet::empty(self.rows());
                for c in v {
                    s.or(&self.node(c));
                }
                s
            }
            Node::Not(c) => {
                let mut s = self.node(c);
                s.not();
                s.and(&self.members);
                s
            }
            Node::Field(path, op) => {
                let mut s = RowSet::empty(self.rows());
                match self.paths.get(path) {
                    Some(p) => p.select(op, &mut s),
                    None if *op == Op::Exists(false) => s = self.members.clone(),
                    None => {}
                }
                s
            }
        }
    }
}

impl PathIndex {
    /// Adds (`add`) or removes one leaf of row `r`.
    fn apply(&mut self, l: &Leaf, r: u32, add: bool) {
        let post = |p: &mut Postings| if add { p.insert(r) } else { p.remove(r) };
        post(&mut self.present);
        let Some(v) = &l.value else {
            return;
        };
        let e = self.values.entry(v.clone()).or_default();
        match l.kind {
            Kind::Direct => post(&mut e.direct),
            Kind::Element => post(&mut e.element),
        }
        if !add && e.direct.is_empty() && e.element.is_empty() {
            self.values.remove(v);
        }
        if let Scalar::Num(x) = v {
            if add {
                self.numbers.insert(*x, r);
            } else {
                self.numbers.remove(*x, r);
            }
        }
    }

    fn select(&self, op: &Op, s: &mut RowSet) {
        match op {
            Op::Exists(true) => self.present.add_to(s),
            // the complement is taken within the members by the caller's `$not`; here within all
            Op::Exists(false) => {
                self.present.add_to(s);
                s.not();
            }
            Op::Eq(v) => self.eq(v, s),
            Op::In(set) => set.iter().for_each(|v| self.eq(v, s)),
            Op::Cmp(c, Scalar::Num(x)) => self.numbers.add_range(*c, *x, s),
            Op::Cmp(c, v) => {
                // strings (the parser admits numbers and strings only): the string keys in range
                let lo = Scalar::Str("".into());
                let range = match c {
                    Cmp::Gt => (Bound::Excluded(v), Bound::Unbounded),
                    Cmp::Gte => (Bound::Included(v), Bound::Unbounded),
                    Cmp::Lt => (Bound::Included(&lo), Bound::Excluded(v)),
                    Cmp::Lte => (Bound::Included(&lo), Bound::Included(v)),
                };
                for (_, e) in self.values.range::<Scalar, _>(range) {
                    e.direct.add_to(s);
                    e.element.add_to(s);
                }
            }
            Op::Contains(v) => {
                if let Some(e) = self.values.get(v) {
                    e.element.add_to(s);
                }
                if let Scalar::Str(sub) = v {
                    let lo = Scalar::Str("".into());
                    for (k, e) in self.values.range(lo..) {
                        if let Scalar::Str(text) = k {
                            if text.contains(&**sub) {
                                e.direct.add_to(s);
                            }
                        }
                    }
                }
            }
        }
    }

    fn eq(&self, v: &Scalar, s: &mut RowSet) {
        if let Some(e) = self.values.get(v) {
            e.direct.add_to(s);
            e.element.add_to(s);
        }
    }
}
