//! Reading a snapshot ([`super`] draws the layout): the codec returns the parts (header,
//! records, index) in file order; the collection installs them.

use super::{
    metric_from, FLAG_F16, FLAG_INDEX, FLAG_META_INDEX, MAGIC, MIN_READ_VERSION, NO_METADATA,
    VERSION, VERSION_F16,
};
use crate::ann::IndexParams;
use crate::error::{Error, Result};
use crate::filter::{codec, index::MetaIndex};
use crate::graph::Graph;
use crate::quant::RabitqIndex;
use crate::types::{Metric, VectorId};
use half::f16;

/// Receives each record a [`Decoder`] reads: `(id, seq, vector, halves, metadata)`: the vector
/// as `f32` values and, in a stream of `f16` rows, the stored half floats themselves (an `f16`
/// collection keeps them as they are, without narrowing the widened values again).
pub type RecordSink<'s> =
    dyn FnMut(VectorId, u64, &[f32], Option<&[f16]>, Option<String>) -> Result<()> + 's;

/// A bounds-checked reader: every read checks the bytes left first.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        if self.b.len() - self.at < n {
            return Err(Error::Corrupt(format!(
                "snapshot truncated: {what} needs {n} bytes, {} left",
                self.b.len() - self.at
            )));
        }
        let s = &self.b[self.at..self.at + n];
        self.at += n;
        Ok(s)
    }
    fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.take(1, what)?[0])
    }
    fn u32(&mut self, what: &str) -> Result<u32> {
        let s = self.take(4, what)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn u64(&mut self, what: &str) -> Result<u64> {
        let s = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(s);
        Ok(u64::from_le_bytes(a))
    }
    fn left(&self) -> usize {
        self.b.len() - self.at
    }
}

/// An index decoded from a snapshot, for the collection to install: build parameters (bits
/// resolved, checked), the graph (node `i` = record `i`) and, from version 2 and except under
/// L1, the RaBitQ codes (sizes checked here, values by the installer).
pub struct LoadedIndex {
    /// Build parameters.
    pub params: IndexParams,
    /// The graph over the records.
    pub graph: Graph,
    /// The codes, when the snapshot stores them.
    pub codes: Option<RabitqIndex>,
}

/// Reads a snapshot in its order: [`Decoder::new`] checks the magic, the version and the
/// checksum and reads the header; [`Decoder::records`] streams the records; the metadata index
/// (version 3) is decoded next (`Decoder::meta_index`; [`Decoder::index`] skips it if not);
/// [`Decoder::index`] decodes the index part. The caller builds the collection from the parts,
/// so the codec does not depend on it.
pub struct Decoder<'a> {
    r: Reader<'a>,
    version: u32,
    flags: u32,
    dim: usize,
    metric: Metric,
    count: u64,
    /// The metadata index was read (or there is none).
    meta_read: bool,
}

impl<'a> Decoder<'a> {
    /// Checks the magic, the version and the checksum of `bytes` and reads the header.
    ///
    /// # Errors
    /// `HV_CORRUPT` (bad magic, checksum, truncation, unknown metric), `HV_VERSION` (another
    /// format version).
    pub fn new(bytes: &'a [u8]) -> Result<Decoder<'a>> {
        if bytes.len() < MAGIC.len() + 4 + 4 || &bytes[..8] != MAGIC {
            return Err(Error::Corrupt("not a horosvec snapshot (bad magic)".into()));
        }
        let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
        if !(MIN_READ_VERSION..=VERSION_F16).contains(&version) {
            return Err(Error::Version(format!(
                "snapshot format version {version}; this build reads {MIN_READ_VERSION} to {VERSION}"
            )));
        }
        let (body, tail) = bytes.split_at(bytes.len() - 4);
        let want = u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
        if crc32fast::hash(body) != want {
            return Err(Error::Corrupt(
                "snapshot checksum mismatch (damaged or truncated)".into(),
            ));
        }
        let mut r = Reader { b: body, at: 12 };
        let flags = r.u32("flags")?;
        let dim = r.u32("dim")? as usize;
        let metric = metric_from(r.u32("metric")?)?;
        let count = r.u64("count")?;
        if flags & FLAG_META_INDEX != 0 && version < 3 {
            return Err(Error::Corrupt(format!(
                "snapshot version {version} with a metadata index flag"
            )));
        }
        if flags & FLAG_F16 != 0 && version < 4 {
            return Err(Error::Corrupt(format!(
                "snapshot version {version} with an f16 rows flag"
            )));
        }
        Ok(Decoder {
            r,
            version,
            flags,
            dim,
            metric,
            count,
            meta_read: flags & FLAG_META_INDEX == 0,
        })
    }

    /// The snapshot's `(dim, metric)` (not checked against [`crate::MAX_DIM`]: the caller's
    /// constructor does).
    pub fn shape(&self) -> (usize, Metric) {
        (self.dim, self.metric)
    }

    /// How the snapshot's rows are stored (`f16`: version 4 with flag bit 2).
    pub fn precision(&self) -> crate::rowdata::Precision {
        if self.flags & FLAG_F16 != 0 {
            crate::rowdata::Precision::F16
        } else {
            crate::rowdata::Precision::F32
        }
    }

    /// How many records [`Decoder::records`] will pass to its sink, once checked against the
    /// bytes left (so that a caller can reserve room for them first).
    ///
    /// # Errors
    /// `HV_CORRUPT`: a count the bytes cannot hold.
    pub fn record_count(&self) -> Result<usize> {
        // each record takes at least 1 (kind) + 4 (empty string id) + 8 (seq) + 4 (metadata) + 4·dim
        // (2·dim for f16 rows) bytes
        let min_record = 17 + (self.precision().bytes() * self.dim) as u64;
        if self.count.saturating_mul(min_record) > self.r.left() as u64 {
            return Err(Error::Corrupt(format!(
                "snapshot announces {} records, more than its {} bytes can hold",
                self.count,
                self.r.left()
            )));
        }
        Ok(self.count as usize)
    }

    /// Calls `sink(id, seq, vector, metadata)` for every record, in order (the sink checks each
    /// record; its error stops the read).
    ///
    /// # Errors
    /// `HV_CORRUPT` (a count the bytes cannot hold, truncation, an id or metadata that is not
    /// UTF-8, an unknown id kind), or the sink's error.
    pub fn records(&mut self, sink: &mut RecordSink<'_>) -> Result<()> {
        let vb = self.precision().bytes();
        self.record_count()?;
        let (dim, count, r) = (self.dim, self.count, &mut self.r);
        let mut v = vec![0f32; dim];
        let mut h = vec![f16::ZERO; if vb == 2 { dim } else { 0 }];
        let widen = crate::distance::kernels().widen_f16;
        for i in 0..count {
            let id = match r.u8("id kind")? {
                VectorId::KIND_INT => VectorId::from_u64(r.u64("integer id")?)
                    .map_err(|e| Error::Corrupt(format!("snapshot record {i}: {e}")))?,
                VectorId::KIND_STR => {
                    let n = r.u32("string id length")? as usize;
                    let s = r.take(n, "string id")?;
                    VectorId::Str(String::from_utf8(s.to_vec()).map_err(|_| {
                        Error::Corrupt(format!("snapshot record {i}: id is not UTF-8"))
                    })?)
                }
                k => {
                    return Err(Error::Corrupt(format!(
                        "snapshot record {i}: unknown id kind {k}"
                    )))
                }
            };
            let seq = r.u64("seq")?;
            let mlen = r.u32("metadata length")?;
            let meta = if mlen == NO_METADATA {
                None
            } else {
                let m = r.take(mlen as usize, "metadata")?;
                Some(String::from_utf8(m.to_vec()).map_err(|_| {
                    Error::Corrupt(format!("snapshot record {i}: metadata is not UTF-8"))
                })?)
            };
            let raw = r.take(vb * dim, "vector")?;
            if vb == 2 {
                for (x, b) in h.iter_mut().zip(raw.chunks_exact(2)) {
                    *x = f16::from_le_bytes([b[0], b[1]]);
                }
                // widened a slice at a time (the kernels' `widen_f16`: F16C, NEON or SIMD128)
                widen(&h, &mut v);
                sink(id, seq, &v, Some(&h), meta)?;
            } else {
                for (x, b) in v.iter_mut().zip(raw.chunks_exact(4)) {
                    *x = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                }
                sink(id, seq, &v, None, meta)?;
            }
        }
        Ok(())
    }

    /// Whether the snapshot carries the metadata index of its records (version 3).
    pub fn has_meta_index(&self) -> bool {
        self.flags & FLAG_META_INDEX != 0
    }

    /// The bytes of the metadata index, after [`Decoder::records`] (`None`: none, or read).
    fn meta_bytes(&mut self) -> Result<Option<&'a [u8]>> {
        if self.meta_read {
            return Ok(None);
        }
        self.meta_read = true;
        let len = self.r.u64("metadata index length")?;
        if len > self.r.left() as u64 {
            return Err(Error::Corrupt(format!(
                "snapshot metadata index: {len} bytes announced, {} left",
                self.r.left()
            )));
        }
        self.r.take(len as usize, "metadata index").map(Some)
    }

    /// The metadata index of the records, after [`Decoder::records`] (`None` when the snapshot
    /// has none: versions 1 and 2): decoded and checked to range over the `count` records.
    ///
    /// # Errors
    /// `HV_CORRUPT` (truncation, an encoding that fails a check of `crate::filter::codec`,
    /// another number of rows).
    pub(crate) fn meta_index(&mut self) -> Result<Option<MetaIndex>> {
        let rows = usize::try_from(self.count).unwrap_or(usize::MAX);
        match self.meta_bytes()? {
            None => Ok(None),
            Some(b) => codec::decode_rows(b, rows)
                .map(Some)
                .map_err(|e| Error::Corrupt(format!("snapshot {e}"))),
        }
    }

    /// The index part, after [`Decoder::records`]; `None` when the snapshot has none.
    ///
    /// # Errors
    /// `HV_CORRUPT` (truncation, impossible sizes, invalid parameters or graph, bytes after the
    /// records of a snapshot without an index), `HV_OUT_OF_MEMORY`.
    pub fn index(&mut self) -> Result<Option<LoadedIndex>> {
        self.meta_bytes()?; // skipped when not read
        let (dim, metric, version, r) = (self.dim, self.metric, self.version, &mut self.r);
        if self.flags & FLAG_INDEX == 0 {
            if r.left() != 0 {
                return Err(Error::Corrupt(format!(
                    "snapshot has {} unexpected bytes after the records",
                    r.left()
                )));
            }
            return Ok(None);
        }
        let n = self.count as usize;
        let r_max = r.u32("R")? as usize;
        let l = r.u32("L")? as usize;
        let alpha = f32::from_bits(r.u32("alpha")?);
        let passes = r.u32("passes")? as usize;
        let bits = r.u32("bits")?;
        let seed = r.u64("seed")?;
        let entry = r.u32("entry")?;
        if (n as u64).saturating_mul(4) > r.left() as u64 {
            return Err(Error::Corrupt("snapshot index: degrees truncated".into()));
        }
        // the graph, its fixed-stride copy and the codes are built from what is left of the body
        let stride = r_max.saturating_add(1).min(4097);
        crate::mem::ensure_headroom(
            || {
                n.saturating_mul(stride * 4 + 8)
                    .saturating_add(r.left().saturating_mul(2))
            },
            "loading the snapshot's index",
        )?;
        let degrees: Vec<u32> = (0..n).map(|_| r.u32("degree")).collect::<Result<_>>()?;
        let total: u64 = degrees.iter().map(|&d| u64::from(d)).sum();
        // version 1 ends with the neighbours; version 2 has the codes after them (except under L1)
        let codes_follow = version >= 2 && metric != Metric::L1;
        let fits = if codes_follow {
            total.saturating_mul(4) <= r.left() as u64
        } else {
            total.saturating_mul(4) == r.left() as u64
        };
        if !fits {
            return Err(Error::Corrupt(format!(
                "snapshot index: {total} neighbours announced, {} bytes left",
                r.left()
            )));
        }
        let neighbors: Vec<u32> = (0..total)
            .map(|_| r.u32("neighbour"))
            .collect::<Result<_>>()?;
        let bits = u8::try_from(bits)
            .ok()
            .filter(|b| (1..=8).contains(b))
            .ok_or_else(|| Error::Corrupt(format!("snapshot index: bits {bits}")))?;
        let params = IndexParams {
            r: r_max,
            l,
            alpha,
            passes,
            bits,
            seed,
        };
        params
            .validate()
            .map_err(|e| Error::Corrupt(format!("snapshot index parameters: {e}")))?;
        let graph = Graph::from_parts(r_max, &degrees, &neighbors, entry)
            .map_err(|e| Error::Corrupt(format!("snapshot graph: {e}")))?;
        // read_codes takes exactly the bytes left; the installer checks their values
        let codes = if codes_follow {
            Some(read_codes(r, dim, metric, &params, n)?)
        } else {
            None
        };
        Ok(Some(LoadedIndex {
            params,
            graph,
            codes,
        }))
    }
}

/// The codes section of a version-2 snapshot, the rest of the body: `n` RaBitQ records for
/// `params` (checked here: sizes and record width; the values by
/// `Collection::install_index_parts`).
fn read_codes(
    r: &mut Reader<'_>,
    dim: usize,
    metric: Metric,
    params: &IndexParams,
    n: usize,
) -> Result<RabitqIndex> {
    let raw = r.take(4 * dim, "codes centroid")?;
    let centroid: Vec<f32> = raw
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let words = r.u32("record words")? as usize;
    if (n as u64).saturating_mul(words as u64).saturating_mul(8) != r.left() as u64 {
        return Err(Error::Corrupt(format!(
            "snapshot codes: {n} records of {words} words announced, {} bytes left",
            r.left()
        )));
    }
    let bytes = r.take(n * words * 8, "codes")?;
    let records: Vec<u64> = bytes
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
        .collect();
    let codes = RabitqIndex::from_parts(
        dim,
        metric,
        crate::ann::code_params(params),
        centroid,
        &records,
    )
    .map_err(|e| Error::Corrupt(format!("snapshot codes: {e}")))?;
    if codes.record_words() != words {
        return Err(Error::Corrupt(format!(
            "snapshot codes: {words}-word records do not match {}-bit codes of {dim} dimensions",
            params.bits
        )));
    }
    Ok(codes)
}
