//! Small shared types: the distance [`Metric`] and the external record id [`VectorId`], with
//! their stored codes ([`Metric::code`], [`VectorId::encode`] / [`VectorId::decode`]), the one
//! place every file format takes them from.

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
    /// Cosine distance 1 − q·x / (‖q‖‖x‖), in [0, 2]. A zero vector has no direction: it is at distance 1 from every vector (hnswlib's convention). JS name `"cosine"`.
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

    /// The metric's code in every file format (segment header byte, snapshot header word):
    /// 0 l2, 1 cosine, 2 ip, 3 l1. Part of the formats: never renumber.
    pub const fn code(self) -> u8 {
        match self {
            Metric::L2 => 0,
            Metric::Cosine => 1,
            Metric::InnerProduct => 2,
            Metric::L1 => 3,
        }
    }

    /// The metric of a stored code ([`Metric::code`]); `None` for an unknown code (the reader
    /// reports its file as corrupt).
    pub const fn from_code(code: u8) -> Option<Metric> {
        match code {
            0 => Some(Metric::L2),
            1 => Some(Metric::Cosine),
            2 => Some(Metric::InnerProduct),
            3 => Some(Metric::L1),
            _ => None,
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

/// Byte order of an integer id's 8 bytes in an encoded [`VectorId`] ([`VectorId::encode`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdByteOrder {
    /// Little-endian: segment files (`id_bytes`) and snapshots.
    Little,
    /// Big-endian: record-store keys, which then sort numerically by integer id.
    Big,
}

/// Why bytes are not an encoded [`VectorId`] ([`VectorId::decode`]).
#[derive(Clone, Debug, PartialEq)]
pub enum IdDecodeError {
    /// The kind byte is neither [`VectorId::KIND_INT`] nor [`VectorId::KIND_STR`], or an integer
    /// payload is not 8 bytes (or the bytes are empty).
    UnknownKind,
    /// An integer above 2⁵³ − 1 (the error of [`VectorId::from_u64`]).
    IntOutOfRange(Error),
    /// A string payload that is not UTF-8.
    NotUtf8,
}

impl fmt::Display for IdDecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdDecodeError::UnknownKind => f.write_str("unknown id encoding"),
            IdDecodeError::IntOutOfRange(e) => write!(f, "{e}"),
            IdDecodeError::NotUtf8 => f.write_str("string id is not UTF-8"),
        }
    }
}

impl VectorId {
    /// Kind byte of an integer id in every stored encoding (segments, snapshots, store keys).
    pub const KIND_INT: u8 = 1;
    /// Kind byte of a string id in every stored encoding.
    pub const KIND_STR: u8 = 2;

    /// The kind byte of this id ([`VectorId::KIND_INT`] or [`VectorId::KIND_STR`]).
    pub const fn kind(&self) -> u8 {
        match self {
            VectorId::Int(_) => VectorId::KIND_INT,
            VectorId::Str(_) => VectorId::KIND_STR,
        }
    }

    /// Appends the stored encoding of the id: its kind byte, then the integer as 8 bytes in
    /// `order`, or the string's UTF-8 bytes (a container that holds several ids frames them: the
    /// segment with an offset table, a snapshot with a `u32` length before a string).
    pub fn encode(&self, order: IdByteOrder, out: &mut Vec<u8>) {
        out.push(self.kind());
        match self {
            VectorId::Int(i) => out.extend_from_slice(&match order {
                IdByteOrder::Little => i.to_le_bytes(),
                IdByteOrder::Big => i.to_be_bytes(),
            }),
            VectorId::Str(s) => out.extend_from_slice(s.as_bytes()),
        }
    }

    /// Decodes one whole [`VectorId::encode`] encoding.
    ///
    /// # Errors
    /// [`IdDecodeError`] when `bytes` are not the encoding of an id.
    pub fn decode(
        bytes: &[u8],
        order: IdByteOrder,
    ) -> std::result::Result<VectorId, IdDecodeError> {
        match bytes.split_first() {
            Some((&VectorId::KIND_INT, rest)) if rest.len() == 8 => {
                let mut a = [0u8; 8];
                a.copy_from_slice(rest);
                let v = match order {
                    IdByteOrder::Little => u64::from_le_bytes(a),
                    IdByteOrder::Big => u64::from_be_bytes(a),
                };
                VectorId::from_u64(v).map_err(IdDecodeError::IntOutOfRange)
            }
            Some((&VectorId::KIND_STR, rest)) => std::str::from_utf8(rest)
                .map(|s| VectorId::Str(s.to_string()))
                .map_err(|_| IdDecodeError::NotUtf8),
            _ => Err(IdDecodeError::UnknownKind),
        }
    }
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
        assert_eq!(
            VectorId::from_u64(MAX_SAFE_INTEGER),
            Ok(VectorId::Int(MAX_SAFE_INTEGER))
        );
        assert!(VectorId::from_u64(MAX_SAFE_INTEGER + 1).is_err());
    }

    #[test]
    fn metric_codes_round_trip() {
        for (m, c) in [
            (Metric::L2, 0),
            (Metric::Cosine, 1),
            (Metric::InnerProduct, 2),
            (Metric::L1, 3),
        ] {
            assert_eq!(m.code(), c);
            assert_eq!(Metric::from_code(c), Some(m));
        }
        assert_eq!(Metric::from_code(4), None);
    }

    #[test]
    fn id_encodings_round_trip() {
        let ids = [
            VectorId::Int(0),
            VectorId::Int(7),
            VectorId::Int(MAX_SAFE_INTEGER),
            VectorId::from("7"),
            VectorId::from(""),
            VectorId::from("é\u{1F600}"),
        ];
        for order in [IdByteOrder::Little, IdByteOrder::Big] {
            for id in &ids {
                let mut b = Vec::new();
                id.encode(order, &mut b);
                assert_eq!(b[0], id.kind());
                assert_eq!(VectorId::decode(&b, order).as_ref(), Ok(id));
            }
        }
        let mut b = Vec::new();
        VectorId::Int(0x0102).encode(IdByteOrder::Little, &mut b);
        assert_eq!(b, [1, 2, 1, 0, 0, 0, 0, 0, 0]);
        b.clear();
        VectorId::Int(0x0102).encode(IdByteOrder::Big, &mut b);
        assert_eq!(b, [1, 0, 0, 0, 0, 0, 0, 1, 2]);
        let too_big = [&[1u8][..], &(MAX_SAFE_INTEGER + 1).to_le_bytes()].concat();
        assert!(matches!(
            VectorId::decode(&too_big, IdByteOrder::Little),
            Err(IdDecodeError::IntOutOfRange(_))
        ));
        for bad in [&[][..], &[3, 1], &[1, 0, 0]] {
            assert_eq!(
                VectorId::decode(bad, IdByteOrder::Big),
                Err(IdDecodeError::UnknownKind)
            );
        }
        assert_eq!(
            VectorId::decode(&[2, 0xff], IdByteOrder::Little),
            Err(IdDecodeError::NotUtf8)
        );
    }

    #[test]
    fn metric_names_round_trip() {
        for m in [Metric::L2, Metric::Cosine, Metric::InnerProduct, Metric::L1] {
            assert_eq!(Metric::parse(m.as_str()), Ok(m));
        }
        assert!(Metric::parse("euclid").is_err());
    }
}
