//! The adjacency values of a [`Graph`](super::Graph): owned, or read in place from a mapped file.

use crate::region::Region;

/// The adjacency values: owned, or read in place from a mapped segment file (copied on the
/// first mutable access).
#[derive(Clone, Debug, Default)]
pub(crate) struct Adj {
    owned: Vec<u32>,
    mapped: Option<Region>,
}

impl From<Vec<u32>> for Adj {
    fn from(owned: Vec<u32>) -> Adj {
        Adj {
            owned,
            mapped: None,
        }
    }
}

impl std::ops::Deref for Adj {
    type Target = [u32];
    #[inline]
    fn deref(&self) -> &[u32] {
        match &self.mapped {
            Some(r) => r.as_slice::<u32>(),
            None => &self.owned,
        }
    }
}

impl std::ops::DerefMut for Adj {
    fn deref_mut(&mut self) -> &mut [u32] {
        self.vec()
    }
}

impl Adj {
    /// The values of `region` (whole `u32`s, checked by [`Region::new`]), read in place.
    pub(crate) fn mapped(region: Region) -> Adj {
        Adj {
            owned: Vec::new(),
            mapped: Some(region),
        }
    }

    /// The owned values, copying mapped ones first.
    fn vec(&mut self) -> &mut Vec<u32> {
        if let Some(r) = self.mapped.take() {
            self.owned = r.as_slice::<u32>().to_vec();
        }
        &mut self.owned
    }

    /// `Vec::resize` of the owned values.
    pub(crate) fn resize(&mut self, n: usize, v: u32) {
        self.vec().resize(n, v);
    }

    /// `Vec::truncate` of the owned values.
    pub(crate) fn truncate(&mut self, n: usize) {
        self.vec().truncate(n);
    }

    /// `Vec::shrink_to_fit` of the owned values.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.vec().shrink_to_fit();
    }

    /// [`Region::will_need`] for values `at..at + len` when mapped; nothing when owned.
    #[inline]
    pub(crate) fn will_need(&self, at: usize, len: usize) {
        if let Some(r) = &self.mapped {
            r.will_need(at * 4, len * 4);
        }
    }

    /// Heap values held (0 when mapped).
    pub(crate) fn capacity(&self) -> usize {
        if self.mapped.is_some() {
            0
        } else {
            self.owned.capacity()
        }
    }
}
