//! Bounded top-k selection with a deterministic tie-break.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// One scored row: `dist` (lower is closer), the row's insertion `seq` (tie-breaker: lower
/// first) and its current `row` index in the scanned matrix.
#[derive(Clone, Copy, Debug)]
pub struct Hit {
    /// Distance under the collection's metric; lower is closer.
    pub dist: f32,
    /// Insertion sequence of the record (earlier wins ties).
    pub seq: u64,
    /// Row index in the scanned matrix.
    pub row: u32,
}

impl Hit {
    fn key_cmp(&self, other: &Self) -> Ordering {
        self.dist
            .total_cmp(&other.dist)
            .then(self.seq.cmp(&other.seq))
    }
}

impl PartialEq for Hit {
    fn eq(&self, other: &Self) -> bool {
        self.key_cmp(other) == Ordering::Equal
    }
}
impl Eq for Hit {}
impl PartialOrd for Hit {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Hit {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key_cmp(other)
    }
}

/// Keeps the `k` smallest hits by (distance, seq). A NaN distance (possible only when huge finite
/// inputs overflow, e.g. +∞ + −∞ in an inner product) is stored as +∞, so it ranks last and never
/// panics.
pub struct TopK {
    k: usize,
    heap: BinaryHeap<Hit>,
}

impl TopK {
    /// An empty selection of capacity `k` (k ≥ 1 is the caller's contract).
    pub fn new(k: usize) -> Self {
        TopK {
            k,
            heap: BinaryHeap::with_capacity(k.min(1 << 16) + 1),
        }
    }

    /// Offers a hit; kept if it is among the `k` best so far.
    #[inline]
    pub fn push(&mut self, dist: f32, seq: u64, row: u32) {
        let dist = if dist.is_nan() { f32::INFINITY } else { dist };
        let h = Hit { dist, seq, row };
        if self.heap.len() < self.k {
            self.heap.push(h);
        } else if let Some(mut worst) = self.heap.peek_mut() {
            if h < *worst {
                *worst = h;
            }
        }
    }

    /// The largest kept distance once `k` hits are held (what a new hit must beat), else `None`.
    #[inline]
    pub fn worst(&self) -> Option<f32> {
        if self.heap.len() < self.k {
            None
        } else {
            self.heap.peek().map(|h| h.dist)
        }
    }

    /// The kept hits, best first.
    pub fn into_sorted(self) -> Vec<Hit> {
        self.heap.into_sorted_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_k_best_with_seq_tiebreak() {
        let mut t = TopK::new(3);
        for (i, d) in [5.0, 1.0, 3.0, 1.0, 0.5, 3.0].iter().enumerate() {
            t.push(*d, i as u64, i as u32);
        }
        let got: Vec<u64> = t.into_sorted().iter().map(|h| h.seq).collect();
        assert_eq!(got, vec![4, 1, 3]);
    }
}
