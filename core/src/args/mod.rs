//! Arguments as they arrive from JavaScript → core values, in one place for both bindings.
//!
//! A JS number crosses every binding as an `f64`, an absent option as `None`. This module turns
//! them into the core's types and is the only place that does: the napi and the wasm binding
//! unpack their own JS values (typed arrays, objects) and call the functions below, so the two
//! builds accept the same values and raise the same error, code and message, by construction.
//! Every error is `HV_INVALID_ARGUMENT` ([`Error::InvalidArgument`]); the messages are part of
//! the tested surface (`tests-js/input-errors.test.ts`, `errors.test.ts`).
//!
//! Integers are refused when NaN, infinite, fractional or out of range (a JS `1.5` is never
//! truncated). Ranges:
//!
//! | value | function | range |
//! |---|---|---|
//! | `dim` | [`dim`] | 1..=[`MAX_DIM`] |
//! | integer id | [`id`] | 0..=[`MAX_SAFE_INTEGER`] (2⁵³ − 1) |
//! | `k` | [`search_options`] | ≥ 1 (values past `usize::MAX` saturate) |
//! | `ef`, `rerank` | [`search_options`] | ≥ 1 (saturate at 10⁹) |
//! | `R` / `L` / `passes` / `bits` | [`index_params`] | 1..=4096 / 1..=100,000 / 1..=8 / 1..=8 |
//! | `alpha` | [`index_params`] | finite, in [1, 4] |
//! | `seed` | [`index_params`] | 0..=2⁵³ − 1 |
//! | graph `degree` | [`graph_degree`] | 0..=2³² − 1 here; the import then requires 1..=4096 |
//! | graph `entry` | [`graph_entry`] | 0..=2³² − 2 (2³² − 1 is the padding value) |
//! | segment limits | [`count`] | 0..=the caller's maximum |

use crate::ann::{IndexParams, AUTO_BITS};
use std::sync::Arc;

use crate::collection::{SearchOptions, MAX_DIM};

mod query;
use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::types::{VectorId, MAX_SAFE_INTEGER};
pub use query::{filter, id_list, list_query};

/// True when `v` is an integer (finite, no fraction) in `lo..=hi`.
pub(super) fn int_in(v: f64, lo: f64, hi: f64) -> bool {
    v.is_finite() && v.fract() == 0.0 && v >= lo && v <= hi
}

/// A JS number as a vector dimension.
///
/// # Errors
/// `HV_INVALID_ARGUMENT` unless `dim` is an integer in 1..=[`MAX_DIM`].
pub fn dim(dim: f64) -> Result<usize> {
    if int_in(dim, 1.0, MAX_DIM as f64) {
        Ok(dim as usize)
    } else {
        Err(Error::invalid_argument(format!(
            "dim must be an integer in 1..={MAX_DIM}, got {dim}"
        )))
    }
}

/// A JS number as an integer record id.
///
/// # Errors
/// `HV_INVALID_ARGUMENT` unless `v` is an integer in 0..=2⁵³ − 1 (NaN, negative, fractional and
/// too large values are refused; the message suggests a string id).
pub fn id(v: f64) -> Result<VectorId> {
    if int_in(v, 0.0, MAX_SAFE_INTEGER as f64) {
        Ok(VectorId::Int(v as u64))
    } else {
        Err(Error::invalid_argument(format!(
            "id {v} is not a non-negative safe integer (0..=2^53-1); use a string id instead"
        )))
    }
}

/// Many JS numbers as integer ids ([`id`] each, first error wins).
///
/// # Errors
/// As [`id`].
pub fn ids(values: &[f64]) -> Result<Vec<VectorId>> {
    values.iter().map(|&v| id(v)).collect()
}

/// Splits `text` into string ids of the given UTF-16 lengths: the packed form in which the JS
/// layer passes many string ids across the boundary at once (one string plus one length each,
/// lengths in UTF-16 code units as JS `String.length` counts them).
///
/// # Errors
/// `HV_INVALID_ARGUMENT` if the lengths do not add up to the text or cut a character in two.
pub fn packed_ids(text: &str, lengths: &[u32]) -> Result<Vec<VectorId>> {
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

/// The fields of a JS search options object (`{ k, includeMetadata, ef?, rerank?, exact?,
/// filter?, ids? }`, as the package's JS layer passes it: `filter` as its JSON text, `ids` as a
/// JSON array of ids), before any check. `None` = absent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchArgs {
    /// `k`: how many hits (required).
    pub k: Option<f64>,
    /// `includeMetadata` (default true).
    pub include_metadata: Option<bool>,
    /// `ef` of the graph search (default: the core's).
    pub ef: Option<f64>,
    /// `rerank` candidates (default: the core's).
    pub rerank: Option<f64>,
    /// `exact` (see [`SearchOptions::exact`]).
    pub exact: Option<bool>,
    /// `filter`: the filter's JSON text (see [`crate::filter`]).
    pub filter: Option<String>,
    /// `ids`: the allow-list as a JSON array of ids (numbers and strings).
    pub ids: Option<String>,
}

impl SearchArgs {
    /// The JS names of the fields, in the order [`SearchArgs::from_lookup`] reads them.
    pub const NAMES: [&'static str; 7] = [
        "k",
        "includeMetadata",
        "ef",
        "rerank",
        "exact",
        "filter",
        "ids",
    ];

    /// Reads the fields by their JS names: `num(name)` is the field as a number, `flag(name)` as
    /// a boolean, `text(name)` as a string, `None` when absent or of another type.
    pub fn from_lookup(
        num: impl Fn(&str) -> Option<f64>,
        flag: impl Fn(&str) -> Option<bool>,
        text: impl Fn(&str) -> Option<String>,
    ) -> SearchArgs {
        SearchArgs {
            k: num("k"),
            include_metadata: flag("includeMetadata"),
            ef: num("ef"),
            rerank: num("rerank"),
            exact: flag("exact"),
            filter: text("filter"),
            ids: text("ids"),
        }
    }
}

/// The options of one search from JS values.
///
/// # Errors
/// `HV_INVALID_ARGUMENT` unless `k` is given and an integer ≥ 1, and `ef` and `rerank`, when
/// given, are integers ≥ 1.
pub fn search_options(a: &SearchArgs) -> Result<SearchOptions> {
    let k =
        a.k.ok_or_else(|| Error::invalid_argument("k must be a positive integer"))?;
    if !int_in(k, 1.0, f64::INFINITY) {
        return Err(Error::invalid_argument(format!(
            "k must be a positive integer, got {k}"
        )));
    }
    let mut o = SearchOptions::new(if k > usize::MAX as f64 {
        usize::MAX
    } else {
        k as usize
    })?;
    let graph = |name: &str, v: f64| -> Result<usize> {
        if int_in(v, 1.0, f64::INFINITY) {
            Ok(v.min(1e9) as usize)
        } else {
            Err(Error::invalid_argument(format!(
                "{name} must be a positive integer, got {v}"
            )))
        }
    };
    o.ef = a.ef.map(|v| graph("ef", v)).transpose()?;
    o.rerank = a.rerank.map(|v| graph("rerank", v)).transpose()?;
    o.include_metadata = a.include_metadata.unwrap_or(true);
    o.exact = a.exact;
    o.filter = a
        .filter
        .as_deref()
        .map(Filter::parse)
        .transpose()?
        .filter(|f| !f.is_all())
        .map(Arc::new);
    o.ids = a.ids.as_deref().map(id_list).transpose()?.map(Arc::new);
    Ok(o)
}

/// The fields of a JS index options object (`{ r?, l?, alpha?, passes?, bits?, seed? }` as the
/// JS layer passes them; the public names are `R` and `L`), before any check. `None` = absent.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct IndexArgs {
    /// R: maximum out-degree.
    pub r: Option<f64>,
    /// L: build list size.
    pub l: Option<f64>,
    /// α of RobustPrune.
    pub alpha: Option<f64>,
    /// Build passes.
    pub passes: Option<f64>,
    /// Bits per dimension of the codes.
    pub bits: Option<f64>,
    /// Build seed.
    pub seed: Option<f64>,
}

impl IndexArgs {
    /// The JS names of the fields, in the order [`IndexArgs::from_lookup`] reads them.
    pub const NAMES: [&'static str; 6] = ["r", "l", "alpha", "passes", "bits", "seed"];

    /// Reads the fields by their JS names: `num(name)` is the field as a number, `None` when
    /// absent or not a number.
    pub fn from_lookup(num: impl Fn(&str) -> Option<f64>) -> IndexArgs {
        IndexArgs {
            r: num("r"),
            l: num("l"),
            alpha: num("alpha"),
            passes: num("passes"),
            bits: num("bits"),
            seed: num("seed"),
        }
    }
}

/// Index build parameters from JS values; an absent field keeps [`IndexParams::default`]
/// (`bits` absent = [`AUTO_BITS`]).
///
/// # Errors
/// `HV_INVALID_ARGUMENT` when a value is not an integer in range (R in 1..=4096, L in
/// 1..=100,000, passes in 1..=8, bits in 1..=8, seed in 0..=2⁵³ − 1) or α is not a finite number
/// in [1, 4]; then as [`IndexParams::validate`].
pub fn index_params(a: &IndexArgs) -> Result<IndexParams> {
    let d = IndexParams::default();
    let int = |name: &str, v: Option<f64>, lo: f64, hi: f64, def: usize| -> Result<usize> {
        match v {
            None => Ok(def),
            Some(x) if int_in(x, lo, hi) => Ok(x as usize),
            Some(x) => Err(Error::invalid_argument(format!(
                "{name} must be an integer in {lo}..={hi}, got {x}"
            ))),
        }
    };
    let alpha = match a.alpha {
        None => d.alpha,
        Some(x) if x.is_finite() && (1.0..=4.0).contains(&x) => x as f32,
        Some(x) => {
            return Err(Error::invalid_argument(format!(
                "alpha must be a number in [1, 4], got {x}"
            )))
        }
    };
    let p = IndexParams {
        r: int("R", a.r, 1.0, 4096.0, d.r)?,
        l: int("L", a.l, 1.0, 100_000.0, d.l)?,
        alpha,
        passes: int("passes", a.passes, 1.0, 8.0, d.passes)?,
        bits: match a.bits {
            None => AUTO_BITS,
            b => int("bits", b, 1.0, 8.0, 0)? as u8,
        },
        seed: match a.seed {
            None => d.seed,
            s => int("seed", s, 0.0, MAX_SAFE_INTEGER as f64, 0)? as u64,
        },
    };
    p.validate()?;
    Ok(p)
}

/// A non-negative integer argument named `name`, at most `max` (segment limits such as
/// `maxMutableRecords`, the graph's `degree` and `entry`).
///
/// # Errors
/// `HV_INVALID_ARGUMENT` "`name` must be a non-negative integer, got `v`" otherwise.
pub fn count(name: &str, v: f64, max: f64) -> Result<usize> {
    if int_in(v, 0.0, max) {
        Ok(v as usize)
    } else {
        Err(Error::invalid_argument(format!(
            "{name} must be a non-negative integer, got {v}"
        )))
    }
}

/// The `degree` of an imported graph: any u32 here; the import itself then requires 1..=4096.
///
/// # Errors
/// As [`count`], past 2³² − 1.
pub fn graph_degree(v: f64) -> Result<usize> {
    count("degree", v, f64::from(u32::MAX))
}

/// The `entry` node of an imported graph: a u32 below the padding value 0xFFFFFFFF (the import
/// then requires it to be below the node count).
///
/// # Errors
/// As [`count`], past 2³² − 2.
pub fn graph_entry(v: f64) -> Result<u32> {
    count("entry", v, f64::from(u32::MAX) - 1.0).map(|e| e as u32)
}

/// Largest `maxMutableRecords` a durable collection accepts.
pub const MAX_MUTABLE_RECORDS: f64 = 1e9;
/// Largest `maxSealedSegments` a durable collection accepts.
pub const MAX_SEALED_SEGMENTS: f64 = 1e6;

/// The fields of a JS segment options object (`{ maxMutableRecords?, maxSealedSegments?,
/// maxTombstoneRatio?, verify? }` of `Collection.open`), before any check. `None` = absent.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SegmentArgs {
    /// Seal the mutable segment at this many records (count).
    pub max_mutable_records: Option<f64>,
    /// Merge sealed segments past this many (count).
    pub max_sealed_segments: Option<f64>,
    /// Rewrite a sealed segment past this tombstoned fraction, in (0, 1].
    pub max_tombstone_ratio: Option<f64>,
    /// Check every segment file whole at open.
    pub verify: Option<bool>,
}

/// The segment configuration of a durable collection from JS values; absent fields keep
/// [`crate::durable::SegmentConfig::default`].
///
/// # Errors
/// `HV_INVALID_ARGUMENT` unless `maxMutableRecords` is an integer in 0..=10⁹ and
/// `maxSealedSegments` in 0..=10⁶ (then as [`crate::durable::SegmentConfig::validate`]:
/// `maxTombstoneRatio` in (0, 1], and the configuration's other ranges).
pub fn segment_config(a: &SegmentArgs) -> Result<crate::durable::SegmentConfig> {
    let mut cfg = crate::durable::SegmentConfig::default();
    if let Some(v) = a.max_mutable_records {
        cfg.max_mutable_records = count("maxMutableRecords", v, MAX_MUTABLE_RECORDS)?;
    }
    if let Some(v) = a.max_sealed_segments {
        cfg.max_sealed_segments = count("maxSealedSegments", v, MAX_SEALED_SEGMENTS)?;
    }
    if let Some(v) = a.max_tombstone_ratio {
        cfg.max_tombstone_ratio = v;
    }
    cfg.verify = a.verify.unwrap_or(false);
    cfg.validate()?;
    Ok(cfg)
}

/// The kind of a put from its JS name: `"add"` (new ids only) or `"upsert"`.
///
/// # Errors
/// `HV_INVALID_ARGUMENT` for any other name.
pub fn write_kind(name: &str) -> Result<crate::collection::WriteKind> {
    use crate::collection::WriteKind;
    match name {
        "add" => Ok(WriteKind::Add),
        "upsert" => Ok(WriteKind::Upsert),
        other => Err(Error::invalid_argument(format!(
            "unknown write kind {other:?}"
        ))),
    }
}

#[cfg(test)]
mod tests;
