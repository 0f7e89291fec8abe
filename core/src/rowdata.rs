//! The precision of stored vector rows: `f32` (the default, stored as supplied) or IEEE-754 half
//! precision (`f16`, half the bytes; every value rounded to nearest, ties to even, on write).
//!
//! One enum over the two arenas (`RowBuf`, owned) and their borrowed form ([`RowSlice`]), so a
//! scan, a rerank or a `get` picks its kernel once per call. Queries always stay `f32`; the
//! `_f16` kernels of [`crate::distance`] widen each stored value exactly, so an `f16` row scores
//! exactly like the `f32` row of its widened values.

use std::borrow::Cow;

use half::f16;
use half::slice::HalfFloatSliceExt;

use crate::error::{Error, Result};

/// How a collection stores its vector rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precision {
    /// 4 bytes per value, exactly as supplied.
    #[default]
    F32,
    /// 2 bytes per value (IEEE-754 binary16): finite values with |x| above 65,504 after
    /// rounding are refused (`HV_INVALID_VECTOR`).
    F16,
}

impl Precision {
    /// `"f32"` or `"f16"`.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` for any other text.
    pub fn parse(s: &str) -> Result<Precision> {
        match s {
            "f32" => Ok(Precision::F32),
            "f16" => Ok(Precision::F16),
            other => Err(Error::invalid_argument(format!(
                "vectors must be \"f32\" or \"f16\", got {other:?}"
            ))),
        }
    }

    /// The option's text: `"f32"` or `"f16"`.
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F16 => "f16",
        }
    }

    /// The row precision code of the file formats (segment header byte 22, log header byte 17):
    /// 0 `f32` (every file before half rows), 1 `f16`.
    pub fn code(self) -> u8 {
        match self {
            Precision::F32 => 0,
            Precision::F16 => 1,
        }
    }

    /// The precision of row precision code `code` ([`Precision::code`]); `None` for an unknown
    /// code.
    pub fn from_code(code: u8) -> Option<Precision> {
        match code {
            0 => Some(Precision::F32),
            1 => Some(Precision::F16),
            _ => None,
        }
    }

    /// Bytes per stored value.
    pub fn bytes(self) -> usize {
        match self {
            Precision::F32 => 4,
            Precision::F16 => 2,
        }
    }

    /// Rounds the `n × dim` values of `v` to this precision in place (nothing for `f32`).
    ///
    /// # Errors
    /// `HV_INVALID_VECTOR` naming the record (`position / dim`) when a finite value rounds to
    /// ±∞ in `f16` (|x| ≥ 65,520); `v` is then unchanged. NaN and ±∞ are left for
    /// [`crate::vector::check_vector`].
    pub(crate) fn round(self, v: &mut [f32], dim: usize) -> Result<()> {
        if self == Precision::F32 {
            return Ok(());
        }
        if let Some(pos) = v
            .iter()
            .position(|&x| x.is_finite() && f16::from_f32(x).is_infinite())
        {
            return Err(Error::InvalidVector {
                index: pos / dim.max(1),
                reason: format!(
                    "component {} is {}, outside the f16 range (|x| <= 65504) of vectors: \"f16\"",
                    pos % dim.max(1),
                    v[pos]
                ),
            });
        }
        for x in v.iter_mut() {
            *x = f16::from_f32(*x).to_f32();
        }
        Ok(())
    }
}

/// Borrowed rows: `n × dim` values, row-major, in one precision.
#[derive(Clone, Copy, Debug)]
pub enum RowSlice<'a> {
    /// `f32` values.
    F32(&'a [f32]),
    /// Half-precision values.
    F16(&'a [f16]),
}

impl<'a> RowSlice<'a> {
    /// Values held (rows × dim).
    pub fn len(&self) -> usize {
        match self {
            RowSlice::F32(v) => v.len(),
            RowSlice::F16(v) => v.len(),
        }
    }

    /// True when no value is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The precision of the values.
    pub fn precision(&self) -> Precision {
        match self {
            RowSlice::F32(_) => Precision::F32,
            RowSlice::F16(_) => Precision::F16,
        }
    }

    /// Values `a..b`.
    ///
    /// # Panics
    /// If the range is out of bounds.
    pub fn range(self, a: usize, b: usize) -> RowSlice<'a> {
        match self {
            RowSlice::F32(v) => RowSlice::F32(&v[a..b]),
            RowSlice::F16(v) => RowSlice::F16(&v[a..b]),
        }
    }

    /// Row `i` of `dim` values.
    ///
    /// # Panics
    /// If row `i` is out of bounds.
    #[inline]
    pub fn row(self, i: usize, dim: usize) -> RowSlice<'a> {
        self.range(i * dim, (i + 1) * dim)
    }

    /// The values as `f32`: borrowed for `f32` rows, widened (exactly) for `f16` rows.
    pub fn to_f32(self) -> Cow<'a, [f32]> {
        match self {
            RowSlice::F32(v) => Cow::Borrowed(v),
            RowSlice::F16(v) => {
                // a slice at a time (the kernels' `widen_f16`: F16C, NEON or SIMD128)
                let mut out = vec![0f32; v.len()];
                (crate::distance::kernels().widen_f16)(v, &mut out);
                Cow::Owned(out)
            }
        }
    }

    /// Asks the CPU to load row `i` into cache (a hint; nothing when out of range).
    #[inline]
    pub fn prefetch(&self, i: usize, dim: usize) {
        match self {
            RowSlice::F32(v) => {
                if let Some(r) = v.get(i * dim..(i + 1) * dim) {
                    crate::region::prefetch(r);
                }
            }
            RowSlice::F16(v) => {
                if let Some(r) = v.get(i * dim..(i + 1) * dim) {
                    crate::region::prefetch(r);
                }
            }
        }
    }
}

/// Owned rows (the mutable segment's vector column), `n × dim` row-major values.
#[derive(Debug)]
pub(crate) enum RowBuf {
    F32(Vec<f32>),
    F16(Vec<f16>),
}

impl RowBuf {
    /// No rows, in precision `p`.
    pub(crate) fn new(p: Precision) -> RowBuf {
        match p {
            Precision::F32 => RowBuf::F32(Vec::new()),
            Precision::F16 => RowBuf::F16(Vec::new()),
        }
    }

    pub(crate) fn precision(&self) -> Precision {
        self.as_slice().precision()
    }

    /// Values held.
    pub(crate) fn len(&self) -> usize {
        self.as_slice().len()
    }

    /// Bytes of the values held.
    pub(crate) fn bytes(&self) -> usize {
        self.len() * self.precision().bytes()
    }

    pub(crate) fn as_slice(&self) -> RowSlice<'_> {
        match self {
            RowBuf::F32(v) => RowSlice::F32(v),
            RowBuf::F16(v) => RowSlice::F16(v),
        }
    }

    /// Appends `v` (narrowed to `f16` for half rows: callers round and check first, see
    /// [`Precision::round`], so the narrowing is exact).
    pub(crate) fn extend(&mut self, v: &[f32]) {
        match self {
            RowBuf::F32(b) => b.extend_from_slice(v),
            RowBuf::F16(b) => {
                // narrowed a slice at a time (F16C / NEON where the CPU has them)
                let at = b.len();
                b.resize(at + v.len(), f16::ZERO);
                b[at..].convert_from_f32_slice(v);
            }
        }
    }

    /// Appends `v` (same precision: copied as stored; else widened, or narrowed: callers
    /// narrowing have rounded the values, as for [`RowBuf::extend`]).
    pub(crate) fn extend_rows(&mut self, v: RowSlice<'_>) {
        match (self, v) {
            (RowBuf::F16(b), RowSlice::F16(v)) => b.extend_from_slice(v),
            (b, v) => b.extend(&v.to_f32()),
        }
    }

    /// Overwrites values `at..at + v.len()` with `v`.
    pub(crate) fn write_at(&mut self, at: usize, v: &[f32]) {
        match self {
            RowBuf::F32(b) => b[at..at + v.len()].copy_from_slice(v),
            RowBuf::F16(b) => {
                for (d, &x) in b[at..at + v.len()].iter_mut().zip(v) {
                    *d = f16::from_f32(x);
                }
            }
        }
    }

    /// `copy_within` of the values.
    pub(crate) fn copy_within(&mut self, src: std::ops::Range<usize>, dest: usize) {
        match self {
            RowBuf::F32(b) => b.copy_within(src, dest),
            RowBuf::F16(b) => b.copy_within(src, dest),
        }
    }

    pub(crate) fn truncate(&mut self, n: usize) {
        match self {
            RowBuf::F32(b) => b.truncate(n),
            RowBuf::F16(b) => b.truncate(n),
        }
    }

    pub(crate) fn capacity(&self) -> usize {
        match self {
            RowBuf::F32(b) => b.capacity(),
            RowBuf::F16(b) => b.capacity(),
        }
    }

    /// `Vec::try_reserve_exact` of the values; `Err(())` when memory is exhausted.
    pub(crate) fn try_reserve_exact(&mut self, n: usize) -> std::result::Result<(), ()> {
        match self {
            RowBuf::F32(b) => b.try_reserve_exact(n).map_err(|_| ()),
            RowBuf::F16(b) => b.try_reserve_exact(n).map_err(|_| ()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_names() {
        for (text, p) in [("f32", Precision::F32), ("f16", Precision::F16)] {
            assert_eq!(Precision::parse(text).unwrap(), p);
            assert_eq!(p.name(), text);
        }
        for bad in ["F16", "f64", "", "half"] {
            assert_eq!(
                Precision::parse(bad).unwrap_err().code().as_str(),
                "HV_INVALID_ARGUMENT"
            );
        }
    }

    #[test]
    fn rounding_table() {
        // (input, rounded to f16 and widened)
        let table: [(f32, f32); 5] = [
            (1.0, 1.0),
            (0.1, 0.099_975_586),
            (65504.0, 65504.0),
            (-65519.0, -65504.0),
            (1e-8, 0.0),
        ];
        for (x, want) in table {
            let mut v = [x];
            Precision::F16.round(&mut v, 1).unwrap();
            assert_eq!(v[0], want, "{x}");
        }
        let mut v = [0.5, 1.0, 7.0e4, 2.0];
        let e = Precision::F16.round(&mut v, 2).unwrap_err();
        assert_eq!(e.code().as_str(), "HV_INVALID_VECTOR");
        assert!(matches!(e, Error::InvalidVector { index: 1, .. }));
        assert_eq!(v, [0.5, 1.0, 7.0e4, 2.0], "unchanged on error");
        let mut w = [0.1f32];
        Precision::F32.round(&mut w, 1).unwrap();
        assert_eq!(w[0], 0.1);
    }

    #[test]
    fn buffers_round_trip() {
        let mut b = RowBuf::new(Precision::F16);
        b.extend(&[1.0, 0.5, -2.0, 3.0]);
        b.write_at(2, &[4.0, 8.0]);
        assert_eq!(b.len(), 4);
        assert_eq!(b.bytes(), 8);
        assert_eq!(&*b.as_slice().row(1, 2).to_f32(), &[4.0, 8.0]);
        b.copy_within(2..4, 0);
        b.truncate(2);
        assert_eq!(&*b.as_slice().to_f32(), &[4.0, 8.0]);
    }
}
