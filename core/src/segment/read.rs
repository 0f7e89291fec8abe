//! Opening a segment from the bytes of its file: the header and section checks at open
//! ([`Segment::from_backing`]), and the full check of the bulk sections ([`Segment::verify`]).

use std::sync::Arc;

use super::layout::{
    le_u32, le_u64, magic_of, Section, BULK, FORMAT_VERSION, HEADER_CRC_AT, HEADER_LEN,
    MAGIC_PREFIX, MIN_FORMAT_VERSION, SECTIONS, SECTIONS_V1, SECTION_NAMES, S_CENTROID, S_CODES,
    S_GRAPH, S_ID_BYTES, S_ID_OFFSETS, S_ID_ORDER, S_INV_NORMS, S_META_BYTES, S_META_INDEX,
    S_META_OFFSETS, S_SEQS, S_VECTORS, TABLE_AT,
};
use super::{warm, Segment};
use crate::ann::{code_params, AnnIndex, IndexParams};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::quant::RabitqIndex;
use crate::region::{Backing, RecordPages, Region};
use crate::rowdata::Precision;
use crate::types::Metric;

impl Segment {
    /// Reads a segment from a copy of the bytes of its file, held in memory (the wasm build's
    /// durable collections read their segment files whole): as [`Segment::from_backing`],
    /// without a rebuild of anything.
    ///
    /// # Errors
    /// As [`Segment::from_backing`]; `HV_OUT_OF_MEMORY`.
    pub fn from_bytes(bytes: &[u8], expect: (u64, usize, Metric)) -> Result<Segment> {
        let buf = crate::region::AlignedBuf::try_from_bytes(bytes)?;
        Segment::from_backing(Arc::new(buf), expect)
    }

    /// Reads a segment from the bytes of its file (a memory map natively). `expect` is the
    /// `(generation, dim, metric)` the manifest names, checked against the header.
    ///
    /// # Errors
    /// `HV_CORRUPT` (not a segment, a failed checksum or structure check, a mismatch with
    /// `expect`), `HV_VERSION` (a format version other than 1 and 2). The metadata index
    /// section of a version-2 file is not read here: on first filtered use and by `verify`.
    pub fn from_backing(
        backing: Arc<dyn Backing>,
        expect: (u64, usize, Metric),
    ) -> Result<Segment> {
        Segment::read(backing, expect, true)
    }

    /// [`Segment::from_backing`] (same errors) for a segment image inside a snapshot whose
    /// checksum covered every byte already (`crate::snapshot`): the small sections' CRC-32s are
    /// not computed again (crc32fast is slow in wasm); every structure check still runs.
    pub fn from_checked_image(
        backing: Arc<dyn Backing>,
        expect: (u64, usize, Metric),
    ) -> Result<Segment> {
        Segment::read(backing, expect, false)
    }

    fn read(
        backing: Arc<dyn Backing>,
        expect: (u64, usize, Metric),
        crcs: bool,
    ) -> Result<Segment> {
        let b = backing.bytes();
        if b.len() < HEADER_LEN || &b[..5] != MAGIC_PREFIX {
            return Err(Error::Corrupt(format!(
                "segment {}: not a horosvec segment file (bad magic or shorter than its header)",
                expect.0
            )));
        }
        let version = le_u32(b, 8);
        if !(MIN_FORMAT_VERSION..=FORMAT_VERSION).contains(&version) {
            return Err(Error::Version(format!(
                "segment {} has format version {version}; this build reads {MIN_FORMAT_VERSION} to {FORMAT_VERSION}",
                expect.0
            )));
        }
        if crc32fast::hash(&b[..HEADER_CRC_AT]) != le_u32(b, HEADER_CRC_AT)
            || le_u32(b, 12) as usize != HEADER_LEN
        {
            return Err(Error::Corrupt(format!(
                "segment {}: header checksum mismatch",
                expect.0
            )));
        }
        if &b[..8] != magic_of(version) {
            return Err(Error::Corrupt(format!(
                "segment {}: magic {:?} with format version {version}",
                expect.0,
                String::from_utf8_lossy(&b[..8])
            )));
        }
        let corrupt = |what: String| Error::Corrupt(format!("segment {}: {what}", expect.0));
        let dim = le_u32(b, 16) as usize;
        let metric = Metric::from_code(b[20])
            .ok_or_else(|| Error::Corrupt(format!("segment: unknown metric code {}", b[20])))?;
        let bits = b[21];
        let precision = Precision::from_code(b[22])
            .ok_or_else(|| corrupt(format!("unknown row precision code {}", b[22])))?;
        let n64 = le_u64(b, 24);
        let generation = le_u64(b, 64);
        if (generation, dim, metric) != expect {
            return Err(corrupt(format!(
                "header says generation {generation}, {dim}-d {metric}; the manifest expects generation {}, {}-d {}",
                expect.0, expect.1, expect.2
            )));
        }
        let r = le_u32(b, 32) as usize;
        let params = IndexParams {
            r,
            l: le_u32(b, 36) as usize,
            alpha: f32::from_bits(le_u32(b, 40)),
            passes: le_u32(b, 44) as usize,
            bits: if bits == 0 { 1 } else { bits },
            seed: le_u64(b, 48),
        };
        params
            .validate()
            .map_err(|e| corrupt(format!("index parameters: {e}")))?;
        let entry = le_u32(b, 56);
        let norm_y_max = f32::from_bits(le_u32(b, 60));
        let max_seq = le_u64(b, 72);
        let mut table = [Section::default(); SECTIONS];
        for (i, s) in table.iter_mut().enumerate() {
            let at = TABLE_AT + i * 24;
            *s = Section {
                offset: le_u64(b, at),
                len: le_u64(b, at + 8),
                crc: le_u32(b, at + 16),
            };
        }
        // Expected lengths (checked in u128 so that a forged n cannot overflow).
        let n = usize::try_from(n64).map_err(|_| corrupt(format!("{n64} rows")))?;
        if n == 0 || n > crate::graph::MAX_NODES {
            return Err(corrupt(format!("{n} rows")));
        }
        let want = |s: usize, len: u128| -> Result<()> {
            if u128::from(table[s].len) != len {
                return Err(corrupt(format!(
                    "section {} is {} bytes, expected {len}",
                    SECTION_NAMES[s], table[s].len
                )));
            }
            Ok(())
        };
        let (n128, d128) = (n as u128, dim as u128);
        want(S_SEQS, n128 * 8)?;
        want(S_VECTORS, n128 * d128 * precision.bytes() as u128)?;
        want(
            S_INV_NORMS,
            if metric == Metric::Cosine {
                n128 * 4
            } else {
                0
            },
        )?;
        want(S_ID_OFFSETS, (n128 + 1) * 8)?;
        want(S_ID_ORDER, n128 * 4)?;
        want(S_META_OFFSETS, (n128 + 1) * 8)?;
        want(S_GRAPH, n128 * (r as u128 + 1) * 4)?;
        let has_codes = metric != Metric::L1;
        if has_codes != (bits != 0) {
            return Err(corrupt(format!("code width {bits} under {metric}")));
        }
        want(S_CENTROID, if has_codes { d128 * 4 } else { 0 })?;
        let region = |s: usize, align: usize| -> Result<Region> {
            let what = format!("segment {} section {}", expect.0, SECTION_NAMES[s]);
            let sec = table[s];
            match align {
                8 => Region::new::<u64>(&backing, sec.offset, sec.len, &what),
                4 => Region::new::<u32>(&backing, sec.offset, sec.len, &what),
                2 => Region::new::<u16>(&backing, sec.offset, sec.len, &what),
                _ => Region::new::<u8>(&backing, sec.offset, sec.len, &what),
            }
        };
        // a version-1 table has 11 entries, the twelfth slot is zero
        let sections = if version == 1 { SECTIONS_V1 } else { SECTIONS };
        if table[sections..].iter().any(|s| *s != Section::default()) {
            return Err(corrupt(format!(
                "a version-{version} section table with more than {sections} entries"
            )));
        }
        let regions: Vec<Region> = (0..SECTIONS)
            .map(|s| match s {
                S_SEQS | S_ID_OFFSETS | S_META_OFFSETS | S_CODES => region(s, 8),
                S_ID_BYTES | S_META_BYTES | S_META_INDEX => region(s, 1),
                S_VECTORS => region(s, precision.bytes()),
                _ => region(s, 4),
            })
            .collect::<Result<_>>()?;
        for s in 0..SECTIONS {
            if crcs
                && !BULK.contains(&s)
                && s != S_META_INDEX
                && crc32fast::hash(regions[s].bytes()) != table[s].crc
            {
                return Err(corrupt(format!(
                    "section {} checksum mismatch",
                    SECTION_NAMES[s]
                )));
            }
        }
        // Structure of the small sections.
        let check_offsets = |s: usize, bytes: &Region| -> Result<()> {
            let offs = regions[s].as_slice::<u64>();
            if offs[0] != 0 || offs[n] != bytes.len() as u64 || offs.windows(2).any(|w| w[0] > w[1])
            {
                return Err(corrupt(format!(
                    "section {} is not a sorted offset table",
                    SECTION_NAMES[s]
                )));
            }
            Ok(())
        };
        check_offsets(S_ID_OFFSETS, &regions[S_ID_BYTES])?;
        check_offsets(S_META_OFFSETS, &regions[S_META_BYTES])?;
        let seqs = regions[S_SEQS].as_slice::<u64>();
        if seqs.iter().any(|&s| s > max_seq) || max_seq > crate::types::MAX_SAFE_INTEGER {
            return Err(corrupt(
                "a sequence number exceeds the header's maximum".into(),
            ));
        }
        if regions[S_ID_ORDER]
            .as_slice::<u32>()
            .iter()
            .any(|&row| row as usize >= n)
        {
            return Err(corrupt("id order names a row out of range".into()));
        }
        if regions[S_INV_NORMS]
            .as_slice::<f32>()
            .iter()
            .any(|x| !x.is_finite())
        {
            return Err(corrupt("a stored norm is not finite".into()));
        }
        let graph = Graph::from_mapped(r, regions[S_GRAPH].clone(), entry)
            .map_err(|e| corrupt(format!("graph: {e}")))?;
        let codes = if has_codes {
            let centroid = regions[S_CENTROID].as_slice::<f32>().to_vec();
            let c = RabitqIndex::from_mapped(
                dim,
                metric,
                code_params(&params),
                centroid,
                regions[S_CODES].clone(),
                norm_y_max,
            )
            .map_err(|e| corrupt(format!("codes: {e}")))?;
            if c.len() != n {
                return Err(corrupt(format!("{} codes for {n} rows", c.len())));
            }
            Some(c)
        } else {
            want(S_CODES, 0)?;
            None
        };
        let mut index = AnnIndex::from_mapped(metric, params, graph, codes)
            .map_err(|e| corrupt(e.to_string()))?;
        // searches while the file is cold hold the warm-up back (`warm.rs`)
        index.count_cold_searches_in(&warm::COLD_SEARCHES);
        let bulk = BULK
            .iter()
            .map(|&s| (s, regions[s].clone(), table[s].crc))
            .collect();
        let rerank_vectors = regions[S_VECTORS].clone();
        let meta_section =
            (version >= 2).then(|| (regions[S_META_INDEX].clone(), table[S_META_INDEX].crc));
        let mut it = regions.into_iter();
        let mut next = || it.next().expect("one region per section");
        Ok(Segment {
            generation,
            dim,
            metric,
            precision,
            n,
            max_seq,
            file_bytes: b.len() as u64,
            seqs: next(),
            vectors: next(),
            rerank_vectors: RecordPages::new(rerank_vectors, dim * precision.bytes()),
            inv_norms: next(),
            id_offsets: next(),
            id_bytes: next(),
            id_order: next(),
            meta_offsets: next(),
            meta_bytes: next(),
            bulk,
            index,
            meta_section,
            meta_index: std::sync::OnceLock::new(),
            image: backing,
        })
    }

    /// Reads the rows for the rerank of index searches from `backing` instead: another mapping
    /// of the same file (same bytes, same length), so that the two access patterns can get
    /// different paging advice (random reads of a few rows per search; sequential scans).
    ///
    /// # Errors
    /// `HV_CORRUPT` when `backing` is not the same length as this segment's file.
    pub fn with_rerank_backing(mut self, backing: Arc<dyn Backing>) -> Result<Segment> {
        if backing.bytes().len() as u64 != self.file_bytes {
            return Err(Error::Corrupt(format!(
                "segment {}: second mapping is {} bytes, the file {}",
                self.generation,
                backing.bytes().len(),
                self.file_bytes
            )));
        }
        let (at, len) = (self.vectors.offset() as u64, self.vectors.len() as u64);
        let region = match self.precision {
            Precision::F32 => Region::new::<f32>(&backing, at, len, "vectors")?,
            Precision::F16 => Region::new::<u16>(&backing, at, len, "vectors")?,
        };
        self.rerank_vectors = RecordPages::new(region, self.dim * self.precision.bytes());
        Ok(self)
    }
}
