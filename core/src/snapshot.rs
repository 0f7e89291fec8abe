//! Versioned binary snapshots of a collection (`toBytes` / `fromBytes`): the same bytes load in
//! the native and the wasm build, so an index built natively can be shipped to a browser.
//!
//! Layout (all integers little-endian; drawn in `docs/format.md`):
//!
//! ```text
//! magic "HVSNAP01" (8) | version u32 = 2 | flags u32 (bit 0: index present)
//! dim u32 | metric u32 (0 l2, 1 cosine, 2 ip, 3 l1) | count u64
//! count × record:
//!   id kind u8 (1 integer, 2 string) | integer: u64 | string: len u32 + UTF-8 bytes
//!   seq u64 | metadata len u32 (0xFFFFFFFF = none) + UTF-8 JSON bytes | dim × f32
//! index (flag bit 0):
//!   R u32 | L u32 | alpha f32 | passes u32 | bits u32 | seed u64 | entry u32
//!   count × degree u32 | Σ degree × neighbour u32
//!   codes (version 2, metric other than L1): centroid dim × f32 | record words u32 |
//!     count × record words × u64 (RaBitQ records: code and factors, as in a segment file)
//! crc32 (IEEE) of every byte before it: u32
//! ```
//!
//! Version 2 stores the RaBitQ codes, so loading installs them instead of encoding every vector
//! again (a random rotation per vector: most of a version-1 load, and single-threaded in the
//! browser). Version 1 snapshots (no codes) still load: their codes are recomputed from the
//! vectors and the stored seed, as a build computes them. Loading checks the magic, the version
//! (`HV_VERSION`), the checksum and every length against the bytes left before it allocates
//! (`HV_CORRUPT`), every record as `restore_row` does, and that the codes match the parameters
//! and the record count.

use crate::ann::IndexParams;
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::quant::RabitqIndex;
use crate::types::{Metric, VectorId};

/// The 8-byte magic at the start of a snapshot.
pub const MAGIC: &[u8; 8] = b"HVSNAP01";
/// The snapshot format version this build writes (it also reads version 1).
pub const VERSION: u32 = 2;
/// The oldest snapshot version this build reads.
pub const MIN_READ_VERSION: u32 = 1;
const FLAG_INDEX: u32 = 1;
const NO_METADATA: u32 = u32::MAX;

fn metric_code(m: Metric) -> u32 {
    match m {
        Metric::L2 => 0,
        Metric::Cosine => 1,
        Metric::InnerProduct => 2,
        Metric::L1 => 3,
    }
}

fn metric_from(c: u32) -> Result<Metric> {
    Ok(match c {
        0 => Metric::L2,
        1 => Metric::Cosine,
        2 => Metric::InnerProduct,
        3 => Metric::L1,
        other => {
            return Err(Error::Corrupt(format!(
                "snapshot: unknown metric code {other}"
            )))
        }
    })
}

/// One record as the snapshot writer reads it: id, seq, vector, metadata.
pub type RecordRef<'a> = (&'a VectorId, u64, &'a [f32], Option<&'a str>);

/// Receives each record a [`Decoder`] reads: `(id, seq, vector, metadata)`.
pub type RecordSink<'s> = dyn FnMut(VectorId, u64, &[f32], Option<String>) -> Result<()> + 's;

/// The index part of a snapshot: build parameters and graph.
pub struct IndexPart<'a> {
    /// Build parameters (bits resolved).
    pub params: IndexParams,
    /// The graph over the records, node `i` = record `i` of the snapshot.
    pub graph: &'a Graph,
    /// The RaBitQ codes of the records (none under L1), record `i` = record `i`.
    pub codes: Option<&'a RabitqIndex>,
}

/// Writes a snapshot of `count` records (from `records`, in row order) and optionally the index.
pub fn write<'a>(
    dim: usize,
    metric: Metric,
    count: usize,
    records: impl Iterator<Item = RecordRef<'a>>,
    index: Option<IndexPart<'_>>,
) -> Result<Vec<u8>> {
    let mut out: Vec<u8> = Vec::new();
    out.try_reserve(64 + count * (dim * 4 + 32))
        .map_err(|_| Error::OutOfMemory("snapshot buffer".into()))?;
    out.extend_from_slice(MAGIC);
    put_u32(&mut out, VERSION);
    put_u32(&mut out, if index.is_some() { FLAG_INDEX } else { 0 });
    put_u32(&mut out, dim as u32);
    put_u32(&mut out, metric_code(metric));
    put_u64(&mut out, count as u64);
    let oom = |_| Error::OutOfMemory("snapshot buffer".into());
    let mut written = 0usize;
    for (id, seq, v, meta) in records {
        // every growth of the buffer is fallible (a wasm heap at its ceiling gives
        // HV_OUT_OF_MEMORY, not an abort); within the first estimate this only checks
        let id_len = match id {
            VectorId::Int(_) => 8,
            VectorId::Str(s) => 4 + s.len(),
        };
        out.try_reserve(1 + id_len + 8 + 4 + meta.map_or(0, str::len) + 4 * v.len() + 4)
            .map_err(oom)?;
        match id {
            VectorId::Int(i) => {
                out.push(1);
                put_u64(&mut out, *i);
            }
            VectorId::Str(s) => {
                out.push(2);
                put_u32(&mut out, s.len() as u32);
                out.extend_from_slice(s.as_bytes());
            }
        }
        put_u64(&mut out, seq);
        match meta {
            Some(m) => {
                put_u32(&mut out, m.len() as u32);
                out.extend_from_slice(m.as_bytes());
            }
            None => put_u32(&mut out, NO_METADATA),
        }
        for x in v {
            out.extend_from_slice(&x.to_le_bytes());
        }
        written += 1;
    }
    if written != count {
        return Err(Error::Internal(format!(
            "snapshot: {written} records written, {count} announced"
        )));
    }
    if let Some(ix) = index {
        let edges: usize = (0..count as u32).map(|i| ix.graph.degree(i)).sum();
        let codes = ix.codes.map_or(0, |c| 4 * dim + 4 + c.records().len() * 8);
        out.try_reserve(32 + 4 * count + 4 * edges + codes + 4)
            .map_err(oom)?;
        let p = ix.params;
        put_u32(&mut out, p.r as u32);
        put_u32(&mut out, p.l as u32);
        out.extend_from_slice(&p.alpha.to_le_bytes());
        put_u32(&mut out, p.passes as u32);
        put_u32(&mut out, u32::from(p.bits));
        put_u64(&mut out, p.seed);
        put_u32(&mut out, ix.graph.entry_point());
        for i in 0..count as u32 {
            put_u32(&mut out, ix.graph.degree(i) as u32);
        }
        for i in 0..count as u32 {
            for &v in ix.graph.neighbors(i) {
                put_u32(&mut out, v);
            }
        }
        if let Some(c) = ix.codes {
            if c.len() != count {
                return Err(Error::Internal(format!(
                    "snapshot: {} codes for {count} records",
                    c.len()
                )));
            }
            for x in c.centroid() {
                out.extend_from_slice(&x.to_le_bytes());
            }
            put_u32(&mut out, c.record_words() as u32);
            for w in c.records() {
                put_u64(&mut out, *w);
            }
        }
    }
    let crc = crc32fast::hash(&out);
    put_u32(&mut out, crc);
    Ok(out)
}

fn put_u32(out: &mut Vec<u8>, x: u32) {
    out.extend_from_slice(&x.to_le_bytes());
}

fn put_u64(out: &mut Vec<u8>, x: u64) {
    out.extend_from_slice(&x.to_le_bytes());
}

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
/// checksum and reads the header; [`Decoder::records`] streams the records;
/// [`Decoder::index`] decodes the index part. The caller builds the collection from the parts,
/// so the codec does not depend on it.
pub struct Decoder<'a> {
    r: Reader<'a>,
    version: u32,
    flags: u32,
    dim: usize,
    metric: Metric,
    count: u64,
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
        if !(MIN_READ_VERSION..=VERSION).contains(&version) {
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
        Ok(Decoder {
            r,
            version,
            flags,
            dim,
            metric,
            count,
        })
    }

    /// The snapshot's `(dim, metric)` (not checked against [`crate::MAX_DIM`]: the caller's
    /// constructor does).
    pub fn shape(&self) -> (usize, Metric) {
        (self.dim, self.metric)
    }

    /// Calls `sink(id, seq, vector, metadata)` for every record, in order (the sink checks each
    /// record; its error stops the read).
    ///
    /// # Errors
    /// `HV_CORRUPT` (a count the bytes cannot hold, truncation, an id or metadata that is not
    /// UTF-8, an unknown id kind), or the sink's error.
    pub fn records(&mut self, sink: &mut RecordSink<'_>) -> Result<()> {
        let (dim, count, r) = (self.dim, self.count, &mut self.r);
        // each record takes at least 1 (kind) + 4 (empty string id) + 8 (seq) + 4 (metadata) + 4·dim bytes
        let min_record = 17 + 4 * dim as u64;
        if count.saturating_mul(min_record) > r.left() as u64 {
            return Err(Error::Corrupt(format!(
                "snapshot announces {count} records, more than its {} bytes can hold",
                r.left()
            )));
        }
        let mut v = vec![0f32; dim];
        for i in 0..count {
            let id = match r.u8("id kind")? {
                1 => VectorId::from_u64(r.u64("integer id")?)
                    .map_err(|e| Error::Corrupt(format!("snapshot record {i}: {e}")))?,
                2 => {
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
            let raw = r.take(4 * dim, "vector")?;
            for (x, b) in v.iter_mut().zip(raw.chunks_exact(4)) {
                *x = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
            sink(id, seq, &v, meta)?;
        }
        Ok(())
    }

    /// The index part, after [`Decoder::records`]; `None` when the snapshot has none.
    ///
    /// # Errors
    /// `HV_CORRUPT` (truncation, impossible sizes, invalid parameters or graph, bytes after the
    /// records of a snapshot without an index), `HV_OUT_OF_MEMORY`.
    pub fn index(&mut self) -> Result<Option<LoadedIndex>> {
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
