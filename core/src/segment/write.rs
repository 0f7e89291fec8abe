//! Writing a segment file (layout in `layout.rs` and in `docs/format.md`).

use std::io::{Seek, SeekFrom, Write};

use super::layout::{
    Section, FORMAT_VERSION, HEADER_CRC_AT, HEADER_LEN, MAGIC, SECTIONS, SECTION_ALIGN, TABLE_AT,
};
use crate::ann::AnnIndex;
use crate::error::{Error, Result};
use crate::filter::{codec, index::MetaIndex};
use crate::rowdata::RowSlice;
use crate::types::{IdByteOrder, Metric, VectorId};

/// The records of a segment to write, in row order (row `i` is graph node `i`).
pub struct SegmentRows<'a> {
    /// Vector dimension.
    pub dim: usize,
    /// Metric.
    pub metric: Metric,
    /// One id per row.
    pub ids: &'a [VectorId],
    /// One insertion sequence per row.
    pub seqs: &'a [u64],
    /// `n × dim` row-major values, in the precision the file stores them in (header byte 22).
    pub vectors: RowSlice<'a>,
    /// 1/‖x‖ per row under cosine, else empty.
    pub inv_norms: &'a [f32],
    /// Metadata JSON text per row.
    pub metadata: &'a [Option<String>],
}

fn io(e: std::io::Error) -> Error {
    Error::Io(format!("writing a segment: {e}"))
}

/// Streams sections, each 64-byte aligned, and remembers their offsets, lengths and CRCs.
struct SectionWriter<'w, W: Write + Seek> {
    out: &'w mut W,
    at: u64,
    table: [Section; SECTIONS],
}

impl<W: Write + Seek> SectionWriter<'_, W> {
    fn section(&mut self, s: usize, parts: &[&[u8]]) -> Result<()> {
        let pad = (SECTION_ALIGN - self.at % SECTION_ALIGN) % SECTION_ALIGN;
        self.out
            .write_all(&[0u8; SECTION_ALIGN as usize][..pad as usize])
            .map_err(io)?;
        self.at += pad;
        let mut h = crc32fast::Hasher::new();
        let mut len = 0u64;
        for p in parts {
            self.out.write_all(p).map_err(io)?;
            h.update(p);
            len += p.len() as u64;
        }
        self.table[s] = Section {
            offset: self.at,
            len,
            crc: h.finalize(),
        };
        self.at += len;
        Ok(())
    }
}

/// Writes segment `generation` holding `rows` and their index (built over exactly these rows,
/// node `i` = row `i`) to `out`, positioned at its start, in format version 2 (the metadata
/// index of the rows is built here and stored in its section). Returns the bytes written. The
/// caller syncs and renames the file.
///
/// # Errors
/// `HV_IO` from the writer; `HV_INVALID_ARGUMENT` when the parts disagree in size or there is no
/// row; `HV_INTERNAL` on a little-endian-only build running big-endian.
pub fn write_segment<W: Write + Seek>(
    out: &mut W,
    generation: u64,
    rows: &SegmentRows<'_>,
    index: &AnnIndex,
) -> Result<u64> {
    if cfg!(target_endian = "big") {
        return Err(Error::Internal(
            "segment files are little-endian; big-endian targets are not supported".into(),
        ));
    }
    let n = rows.ids.len();
    let dim = rows.dim;
    let cos = rows.metric == Metric::Cosine;
    if n == 0
        || rows.seqs.len() != n
        || rows.vectors.len() != n * dim
        || rows.metadata.len() != n
        || rows.inv_norms.len() != if cos { n } else { 0 }
        || index.len() != n
    {
        return Err(Error::invalid_argument("segment parts disagree in size"));
    }
    let graph = index.graph();
    let params = index.params();
    let r = graph.max_degree();
    out.write_all(&[0u8; HEADER_LEN]).map_err(io)?;
    let mut w = SectionWriter {
        out,
        at: HEADER_LEN as u64,
        table: [Section::default(); SECTIONS],
    };

    w.section(super::layout::S_SEQS, &[bytemuck::cast_slice(rows.seqs)])?;
    let vectors: &[u8] = match rows.vectors {
        RowSlice::F32(v) => bytemuck::cast_slice(v),
        RowSlice::F16(v) => {
            use half::slice::HalfFloatSliceExt;
            bytemuck::cast_slice(v.reinterpret_cast())
        }
    };
    w.section(super::layout::S_VECTORS, &[vectors])?;
    w.section(
        super::layout::S_INV_NORMS,
        &[bytemuck::cast_slice(rows.inv_norms)],
    )?;
    let mut id_bytes = Vec::with_capacity(n * 10);
    let mut id_offsets = Vec::with_capacity(n + 1);
    for id in rows.ids {
        id_offsets.push(id_bytes.len() as u64);
        id.encode(IdByteOrder::Little, &mut id_bytes);
    }
    id_offsets.push(id_bytes.len() as u64);
    w.section(
        super::layout::S_ID_OFFSETS,
        &[bytemuck::cast_slice(&id_offsets)],
    )?;
    w.section(super::layout::S_ID_BYTES, &[&id_bytes])?;
    let key = |row: u32| {
        &id_bytes[id_offsets[row as usize] as usize..id_offsets[row as usize + 1] as usize]
    };
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_unstable_by(|&a, &b| key(a).cmp(key(b)));
    if order.windows(2).any(|p| key(p[0]) == key(p[1])) {
        return Err(Error::invalid_argument("segment rows hold an id twice"));
    }
    w.section(super::layout::S_ID_ORDER, &[bytemuck::cast_slice(&order)])?;
    let mut meta_bytes = Vec::new();
    let mut meta_offsets = Vec::with_capacity(n + 1);
    for m in rows.metadata {
        meta_offsets.push(meta_bytes.len() as u64);
        if let Some(m) = m {
            meta_bytes.extend_from_slice(m.as_bytes());
        }
    }
    meta_offsets.push(meta_bytes.len() as u64);
    w.section(
        super::layout::S_META_OFFSETS,
        &[bytemuck::cast_slice(&meta_offsets)],
    )?;
    w.section(super::layout::S_META_BYTES, &[&meta_bytes])?;
    let codes = index.codes();
    match codes {
        Some(c) => {
            w.section(
                super::layout::S_CENTROID,
                &[bytemuck::cast_slice(c.centroid())],
            )?;
            w.section(super::layout::S_CODES, &[bytemuck::cast_slice(c.records())])?;
        }
        None => {
            w.section(super::layout::S_CENTROID, &[])?;
            w.section(super::layout::S_CODES, &[])?;
        }
    }
    // the graph with stride R + 1 (a build may leave a wider stride in memory)
    let mut adj = vec![0u32; n * (r + 1)];
    for (i, row) in adj.chunks_exact_mut(r + 1).enumerate() {
        let nb = graph.neighbors(i as u32);
        row[0] = nb.len() as u32;
        row[1..1 + nb.len()].copy_from_slice(nb);
    }
    w.section(super::layout::S_GRAPH, &[bytemuck::cast_slice(&adj)])?;
    drop(adj);
    // the metadata index, last: a version-1 file is this file without it
    let meta_index = MetaIndex::build(rows.metadata.iter().map(Option::as_deref));
    w.section(super::layout::S_META_INDEX, &[&codec::to_vec(&meta_index)])?;
    let (table, total) = (w.table, w.at);

    let mut h = vec![0u8; HEADER_LEN];
    h[..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&(HEADER_LEN as u32).to_le_bytes());
    h[16..20].copy_from_slice(&(dim as u32).to_le_bytes());
    h[20] = rows.metric.code();
    h[21] = codes.map_or(0, |c| c.params().bits);
    h[22] = rows.vectors.precision().code();
    h[24..32].copy_from_slice(&(n as u64).to_le_bytes());
    h[32..36].copy_from_slice(&(r as u32).to_le_bytes());
    h[36..40].copy_from_slice(&(params.l as u32).to_le_bytes());
    h[40..44].copy_from_slice(&params.alpha.to_bits().to_le_bytes());
    h[44..48].copy_from_slice(&(params.passes as u32).to_le_bytes());
    h[48..56].copy_from_slice(&params.seed.to_le_bytes());
    h[56..60].copy_from_slice(&graph.entry_point().to_le_bytes());
    h[60..64].copy_from_slice(
        &codes
            .map_or(0.0, |c| c.norm_y_max())
            .to_bits()
            .to_le_bytes(),
    );
    h[64..72].copy_from_slice(&generation.to_le_bytes());
    h[72..80].copy_from_slice(&rows.seqs.iter().copied().max().unwrap_or(0).to_le_bytes());
    for (i, s) in table.iter().enumerate() {
        let at = TABLE_AT + i * 24;
        h[at..at + 8].copy_from_slice(&s.offset.to_le_bytes());
        h[at + 8..at + 16].copy_from_slice(&s.len.to_le_bytes());
        h[at + 16..at + 20].copy_from_slice(&s.crc.to_le_bytes());
    }
    let crc = crc32fast::hash(&h[..HEADER_CRC_AT]);
    h[HEADER_CRC_AT..HEADER_CRC_AT + 4].copy_from_slice(&crc.to_le_bytes());
    let out = w.out;
    out.seek(SeekFrom::Start(0)).map_err(io)?;
    out.write_all(&h).map_err(io)?;
    out.seek(SeekFrom::Start(total)).map_err(io)?;
    out.flush().map_err(io)?;
    Ok(total)
}

/// [`write_segment`] into memory: the bytes of segment `generation`'s file (the wasm build
/// hands them to the page's file system).
///
/// # Errors
/// As [`write_segment`].
pub fn segment_bytes(generation: u64, rows: &SegmentRows<'_>, index: &AnnIndex) -> Result<Vec<u8>> {
    let mut out = std::io::Cursor::new(Vec::new());
    write_segment(&mut out, generation, rows, index)?;
    Ok(out.into_inner())
}
