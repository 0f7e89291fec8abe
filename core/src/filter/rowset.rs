//! A set of rows of one segment as a bitmap: what a filter selects, with its exact size.

/// Rows `0..len` of one segment, one bit each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowSet {
    words: Vec<u64>,
    len: usize,
}

impl RowSet {
    /// No row of `len`.
    pub fn empty(len: usize) -> RowSet {
        RowSet {
            words: vec![0; len.div_ceil(64)],
            len,
        }
    }

    /// Every row of `len`.
    pub fn full(len: usize) -> RowSet {
        let mut s = RowSet {
            words: vec![!0; len.div_ceil(64)],
            len,
        };
        s.trim();
        s
    }

    /// The rows `rows` (each `< len`; others are ignored).
    pub fn of_rows(len: usize, rows: impl IntoIterator<Item = u32>) -> RowSet {
        let mut s = RowSet::empty(len);
        for r in rows {
            s.insert(r);
        }
        s
    }

    /// The number of rows the set ranges over.
    pub fn universe(&self) -> usize {
        self.len
    }

    fn trim(&mut self) {
        if !self.len.is_multiple_of(64) {
            if let Some(last) = self.words.last_mut() {
                *last &= (1u64 << (self.len % 64)) - 1;
            }
        }
    }

    /// Adds row `r` (ignored when out of range).
    #[inline]
    pub fn insert(&mut self, r: u32) {
        let r = r as usize;
        if r < self.len {
            self.words[r >> 6] |= 1 << (r & 63);
        }
    }

    /// Removes row `r`.
    #[inline]
    pub fn remove(&mut self, r: u32) {
        let r = r as usize;
        if r < self.len {
            self.words[r >> 6] &= !(1 << (r & 63));
        }
    }

    /// Sets the universe to `0..len` (rows past a smaller `len` leave the set).
    pub fn resize(&mut self, len: usize) {
        self.words.resize(len.div_ceil(64), 0);
        self.len = len;
        self.trim();
    }

    /// Whether row `r` is in the set.
    #[inline]
    pub fn contains(&self, r: u32) -> bool {
        let r = r as usize;
        r < self.len && self.words[r >> 6] & (1 << (r & 63)) != 0
    }

    /// The number of rows in the set.
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Keeps the rows also in `o`.
    pub fn and(&mut self, o: &RowSet) {
        for (a, b) in self.words.iter_mut().zip(&o.words) {
            *a &= b;
        }
    }

    /// Adds the rows of `o`.
    pub fn or(&mut self, o: &RowSet) {
        for (a, b) in self.words.iter_mut().zip(&o.words) {
            *a |= b;
        }
    }

    /// The complement within `0..len`.
    pub fn not(&mut self) {
        for w in &mut self.words {
            *w = !*w;
        }
        self.trim();
    }

    /// Removes the rows flagged in `deleted` (a tombstone flag per row; may be shorter).
    pub fn remove_flagged(&mut self, deleted: &[bool]) {
        for (r, _) in deleted.iter().enumerate().filter(|(_, d)| **d) {
            if r < self.len {
                self.words[r >> 6] &= !(1 << (r & 63));
            }
        }
    }

    /// Up to `n` rows of the set spread over its range: the first at or after each of `n`
    /// evenly spaced rows.
    pub fn spread(&self, n: usize) -> Vec<u32> {
        let mut out = Vec::with_capacity(n);
        if self.words.is_empty() {
            return out;
        }
        for i in 0..n {
            let start = i * self.words.len() / n;
            if let Some((w, bits)) = self.words[start..]
                .iter()
                .enumerate()
                .find(|(_, w)| **w != 0)
            {
                let r = ((start + w) * 64) as u32 + bits.trailing_zeros();
                if out.last() != Some(&r) {
                    out.push(r);
                }
            }
        }
        out.dedup();
        out
    }

    /// The rows in the set, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros();
                w &= w - 1;
                Some((i as u32) * 64 + b)
            })
        })
    }
}
