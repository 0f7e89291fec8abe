//! Small shared types: the distance [`Metric`] and the external record id [`VectorId`].

use crate::error::{Error, Result};
use std::fmt;

/// Largest integer id: JavaScript's `Number.MAX_SAFE_INTEGER` (2⁵³ − 1), so integer ids survive
/// the round trip through a JS number unchanged.
pub const MAX_SAFE_INTEGER: u64 = (1u64 << 53) - 1;

/// How distance is measured. Every metric is reported so that **lower is closer**.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Metric {
    /// Squared Euclidean distance Σ (qᵢ − xᵢ)² (not square-rooted). JS name `"l2"`.
    L2,
    /// Cosine distance 1 − q·x / (‖q‖‖x‖), in [0, 2]. Zero vectors are rejected. JS name `"cosine"`.
    Cosine,
    /// Negative inner product −q·x (so that lower is closer). JS name `"ip"`.
    InnerProduct,
    /// Manhattan distance Σ |qᵢ − xᵢ|. JS name `"l1"`.
    L1,
}

impl Metric {
    /// Parses the JS name (`"l2"`, `"cosine"`, `"ip"`, `"l1"`).
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` for any other string.
    pub fn parse(s: &str) -> Result<Metric> {
        match s {
            "l2" => Ok(Metric::L2),
            "cosine" => Ok(Metric::Cosine),
            "ip" => Ok(Metric::InnerProduct),
            "l1" => Ok(Metric::L1),
            other => Err(Error::invalid_argument(format!(
                "unknown metric {other:?}: expected \"l2\", \"cosine\", \"ip\" or \"l1\""
            ))),
        }
    }

    /// The JS name of the metric.
    pub const fn as_str(self) -> &'static str {
        match self {
            Metric::L2 => "l2",
            Metric::Cosine => "cosine",
            Metric::InnerProduct => "ip",
            Metric::L1 => "l1",
        }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A record's external id: a string, or a non-negative integer ≤ 2⁵³ − 1. The two kinds are
/// distinct (`7` and `"7"` name different records) and each comes back as the kind it went in as.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VectorId {
    /// An integer id in 0..=[`MAX_SAFE_INTEGER`].
    Int(u64),
    /// A string id (any UTF-8 string, the empty string included).
    Str(String),
}

impl VectorId {
    /// Builds an integer id from a JS number.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` if `v` is not an integer in 0..=2⁵³ − 1 (NaN, negative, fractional, too large).
    pub fn from_f64(v: f64) -> Result<VectorId> {
        if v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v <= MAX_SAFE_INTEGER as f64 {
            Ok(VectorId::Int(v as u64))
        } else {
            Err(Error::invalid_argument(format!(
                "id {v} is not a non-negative safe integer (0..=2^53-1); use a string id instead"
            )))
        }
    }

    /// Builds an integer id.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` if `v` > 2⁵³ − 1.
    pub fn from_u64(v: u64) -> Result<VectorId> {
        if v <= MAX_SAFE_INTEGER {
            Ok(VectorId::Int(v))
        } else {
            Err(Error::invalid_argument(format!("id {v} exceeds 2^53-1")))
        }
    }
}

/// Splits `text` into string ids of the given UTF-16 lengths (the packed form in which the JS
/// layer passes many string ids across the boundary at once: one string plus one length each).
///
/// # Errors
/// `HV_INVALID_ARGUMENT` if the lengths do not add up to the text or cut a character in two.
pub fn split_utf16(text: &str, lengths: &[u32]) -> Result<Vec<VectorId>> {
    let bad = || Error::invalid_argument("packed ids: lengths do not match the text");
    let mut out = Vec::with_capacity(lengths.len());
    let mut chars = text.char_indices();
    let mut pos = 0usize;
    for &len in lengths {
        let start = pos;
        let mut units = 0u32;
        while units < len {
            let (_, c) = chars.next().ok_or_else(bad)?;
            units += c.len_utf16() as u32;
            pos += c.len_utf8();
        }
        if units != len {
            return Err(bad());
        }
        out.push(VectorId::Str(text[start..pos].to_owned()));
    }
    if pos != text.len() {
        return Err(bad());
    }
    Ok(out)
}

impl From<&str> for VectorId {
    fn from(s: &str) -> Self {
        VectorId::Str(s.to_owned())
    }
}

impl fmt::Display for VectorId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VectorId::Int(v) => write!(f, "{v}"),
            VectorId::Str(s) => write!(f, "{s:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_ids_are_checked() {
        assert_eq!(VectorId::from_f64(3.0), Ok(VectorId::Int(3)));
        assert_eq!(
            VectorId::from_f64(MAX_SAFE_INTEGER as f64),
            Ok(VectorId::Int(MAX_SAFE_INTEGER))
        );
        for bad in [-1.0, 1.5, f64::NAN, f64::INFINITY, 9007199254740992.0] {
            assert_eq!(
                VectorId::from_f64(bad).unwrap_err().code().as_str(),
                "HV_INVALID_ARGUMENT"
            );
        }
        assert!(VectorId::from_u64(MAX_SAFE_INTEGER + 1).is_err());
    }

    #[test]
    fn packed_ids_split_on_utf16_lengths() {
        let ids = split_utf16("ab\u{1F600}éz", &[2, 0, 2, 1, 1]).unwrap();
        let want: Vec<VectorId> = ["ab", "", "\u{1F600}", "é", "z"]
            .into_iter()
            .map(VectorId::from)
            .collect();
        assert_eq!(ids, want);
        assert!(split_utf16("abc", &[1, 1]).is_err());
        assert!(split_utf16("\u{1F600}", &[1]).is_err());
        assert!(split_utf16("ab", &[3]).is_err());
    }

    #[test]
    fn metric_names_round_trip() {
        for m in [Metric::L2, Metric::Cosine, Metric::InnerProduct, Metric::L1] {
            assert_eq!(Metric::parse(m.as_str()), Ok(m));
        }
        assert!(Metric::parse("euclid").is_err());
    }
}
