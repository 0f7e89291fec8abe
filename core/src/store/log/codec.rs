//! The bytes of a log file (`HVLOG001`, drawn in `docs/format.md`): a 32-byte header, then
//! frames `[len u32][crc32 u32][payload]`. A payload is a kind byte (a committed group, or the
//! base state a checkpoint starts from), a mutation count and the mutations of
//! [`crate::store::Mutation`]. All integers little-endian.

use crate::error::{Error, Result};
use crate::rowdata::Precision;
use crate::store::{decode_id, encode_id, Mutation};
use crate::types::{Metric, VectorId};

/// The magic of a log file.
pub const LOG_MAGIC: &[u8; 8] = b"HVLOG001";
/// The log format version of `f32` collections.
pub const LOG_VERSION: u32 = 1;
/// The log format version of `f16` collections (header byte 17 = 1): the same layout, stamped
/// apart so that a build from before half rows (which reads only version 1) refuses it.
pub const LOG_VERSION_F16: u32 = 2;
/// Bytes of the header.
pub const HEADER_LEN: u64 = 32;
/// Bytes before a frame's payload (length, checksum).
pub const FRAME_HEAD: u64 = 8;

/// A frame holding one committed group.
pub(super) const KIND_GROUP: u8 = 1;
/// The first frame of a file: the whole state the file starts from.
pub(super) const KIND_BASE: u8 = 2;

const PUT: u8 = 1;
const DELETE: u8 = 2;
const TOMBSTONE: u8 = 3;
const ADD_SEGMENT: u8 = 4;
const REMOVE_SEGMENT: u8 = 5;
const NO_METADATA: u32 = u32::MAX;

/// What a header says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Header {
    pub(super) dim: usize,
    pub(super) metric: Metric,
    /// How the collection stores its rows (its segment files' precision; the log's records
    /// hold `f32` values, rounded to half precision for `f16`).
    pub(super) precision: Precision,
    /// The checkpoint number: the file with the larger one (and a whole base frame) is current.
    pub(super) checkpoint: u64,
}

impl Header {
    pub(super) fn encode(&self) -> [u8; HEADER_LEN as usize] {
        let mut b = [0u8; HEADER_LEN as usize];
        b[..8].copy_from_slice(LOG_MAGIC);
        b[8..12].copy_from_slice(&log_version(self.precision).to_le_bytes());
        b[12..16].copy_from_slice(&(self.dim as u32).to_le_bytes());
        b[16] = self.metric.code();
        b[17] = self.precision.code();
        b[20..28].copy_from_slice(&self.checkpoint.to_le_bytes());
        let crc = crc32fast::hash(&b[..28]);
        b[28..32].copy_from_slice(&crc.to_le_bytes());
        b
    }

    /// `Ok(None)`: not a whole header (torn or never written). `HV_VERSION` for another
    /// version of a valid header.
    pub(super) fn decode(b: &[u8]) -> Result<Option<Header>> {
        if b.len() < HEADER_LEN as usize || &b[..8] != LOG_MAGIC {
            return Ok(None);
        }
        if crc32fast::hash(&b[..28]) != u32::from_le_bytes(b[28..32].try_into().unwrap_or([0; 4])) {
            return Ok(None);
        }
        let version = u32::from_le_bytes([b[8], b[9], b[10], b[11]]);
        if version != LOG_VERSION && version != LOG_VERSION_F16 {
            return Err(Error::Version(format!(
                "log file version {version}; this build reads {LOG_VERSION} and {LOG_VERSION_F16}"
            )));
        }
        let precision = Precision::from_code(b[17])
            .filter(|&p| log_version(p) == version)
            .ok_or_else(|| {
                Error::Corrupt(format!(
                    "log file version {version} with row precision code {}",
                    b[17]
                ))
            })?;
        let metric = Metric::from_code(b[16])
            .ok_or_else(|| Error::Corrupt(format!("log file: unknown metric code {}", b[16])))?;
        Ok(Some(Header {
            dim: u32::from_le_bytes([b[12], b[13], b[14], b[15]]) as usize,
            metric,
            precision,
            checkpoint: u64::from_le_bytes(b[20..28].try_into().unwrap_or([0; 8])),
        }))
    }
}

/// The format version a log of `precision` rows is stamped with.
fn log_version(precision: Precision) -> u32 {
    match precision {
        Precision::F32 => LOG_VERSION,
        Precision::F16 => LOG_VERSION_F16,
    }
}

/// A whole frame (head and payload) of `kind` holding `muts`.
pub(super) fn encode_frame(kind: u8, muts: &[Mutation<'_>], dim: usize) -> Result<Vec<u8>> {
    let mut p = vec![0u8; FRAME_HEAD as usize];
    p.push(kind);
    p.extend_from_slice(&(muts.len() as u32).to_le_bytes());
    for m in muts {
        encode_mutation(m, dim, &mut p)?;
    }
    let len = p.len() - FRAME_HEAD as usize;
    let len = u32::try_from(len)
        .map_err(|_| Error::invalid_argument("one write group is larger than 4 GiB"))?;
    let crc = crc32fast::hash(&p[FRAME_HEAD as usize..]);
    p[..4].copy_from_slice(&len.to_le_bytes());
    p[4..8].copy_from_slice(&crc.to_le_bytes());
    Ok(p)
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b);
}

fn encode_mutation(m: &Mutation<'_>, dim: usize, out: &mut Vec<u8>) -> Result<()> {
    match *m {
        Mutation::Put {
            id,
            seq,
            vector,
            metadata,
        } => {
            if vector.len() != dim {
                return Err(Error::Internal(format!(
                    "a stored vector of {} values in a {dim}-d log",
                    vector.len()
                )));
            }
            out.push(PUT);
            put_bytes(out, &encode_id(id));
            out.extend_from_slice(&seq.to_le_bytes());
            out.extend_from_slice(bytemuck::cast_slice(vector));
            match metadata {
                Some(m) => put_bytes(out, m.as_bytes()),
                None => out.extend_from_slice(&NO_METADATA.to_le_bytes()),
            }
        }
        Mutation::Delete { id } => {
            out.push(DELETE);
            put_bytes(out, &encode_id(id));
        }
        Mutation::Tombstone { generation, row } => {
            out.push(TOMBSTONE);
            out.extend_from_slice(&generation.to_le_bytes());
            out.extend_from_slice(&row.to_le_bytes());
        }
        Mutation::AddSegment { generation, rows } => {
            out.push(ADD_SEGMENT);
            out.extend_from_slice(&generation.to_le_bytes());
            out.extend_from_slice(&rows.to_le_bytes());
        }
        Mutation::RemoveSegment { generation } => {
            out.push(REMOVE_SEGMENT);
            out.extend_from_slice(&generation.to_le_bytes());
        }
    }
    Ok(())
}

/// A reader over one payload; every shortfall is `HV_CORRUPT` (the frame's checksum held, so it
/// is damage or a bug, not a torn write).
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let s = self
            .b
            .get(self.at..self.at.saturating_add(n))
            .ok_or_else(|| Error::Corrupt("log frame shorter than its contents".into()))?;
        self.at += n;
        Ok(s)
    }
    fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().unwrap_or([0; 4]),
        ))
    }
    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().unwrap_or([0; 8]),
        ))
    }
    fn id(&mut self) -> Result<VectorId> {
        let n = self.u32()? as usize;
        decode_id(self.take(n)?).ok_or_else(|| Error::Corrupt("log frame: bad record id".into()))
    }
}

/// Calls `sink` with each mutation of a payload, in order, and returns the payload's kind.
///
/// # Errors
/// `HV_CORRUPT`, or the sink's error.
pub(super) fn decode_payload(
    payload: &[u8],
    dim: usize,
    sink: &mut dyn FnMut(Mutation<'_>) -> Result<()>,
) -> Result<u8> {
    let mut r = Reader { b: payload, at: 0 };
    let kind = r.u8()?;
    if kind != KIND_GROUP && kind != KIND_BASE {
        return Err(Error::Corrupt(format!("log frame of unknown kind {kind}")));
    }
    let n = r.u32()?;
    let mut vector = vec![0f32; dim];
    for _ in 0..n {
        match r.u8()? {
            PUT => {
                let id = r.id()?;
                let seq = r.u64()?;
                for (v, b) in vector.iter_mut().zip(r.take(dim * 4)?.chunks_exact(4)) {
                    *v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                }
                let len = r.u32()?;
                let metadata =
                    if len == NO_METADATA {
                        None
                    } else {
                        Some(std::str::from_utf8(r.take(len as usize)?).map_err(|_| {
                            Error::Corrupt("log frame: metadata is not UTF-8".into())
                        })?)
                    };
                sink(Mutation::Put {
                    id: &id,
                    seq,
                    vector: &vector,
                    metadata,
                })?;
            }
            DELETE => sink(Mutation::Delete { id: &r.id()? })?,
            TOMBSTONE => {
                let generation = r.u64()?;
                let row = r.u32()?;
                sink(Mutation::Tombstone { generation, row })?;
            }
            ADD_SEGMENT => {
                let generation = r.u64()?;
                let rows = r.u64()?;
                sink(Mutation::AddSegment { generation, rows })?;
            }
            REMOVE_SEGMENT => sink(Mutation::RemoveSegment {
                generation: r.u64()?,
            })?,
            t => return Err(Error::Corrupt(format!("log frame: unknown mutation {t}"))),
        }
    }
    if r.at != payload.len() {
        return Err(Error::Corrupt("log frame longer than its contents".into()));
    }
    Ok(kind)
}
