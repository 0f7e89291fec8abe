//! The full check of a segment's bulk sections ([`Segment::verify`]) and the regions a graph
//! walk reads ([`Segment::hot_regions`]).

use super::layout::{SECTION_NAMES, S_VECTORS};
use super::Segment;
use crate::error::{Error, Result};
use crate::region::Region;
use crate::rowdata::RowSlice;

impl Segment {
    /// Reads the whole file and checks the bulk sections too: checksums of the rows, codes and
    /// graph, every row finite, and every edge of the graph in range.
    ///
    /// # Errors
    /// `HV_CORRUPT` naming the first failed check.
    pub fn verify(&self) -> Result<()> {
        // in chunks, asking for the next one while hashing this one: the codes and graph of a
        // mapped file are advised for random access, so the kernel would not read ahead
        const CHUNK: usize = 4 << 20;
        for (s, r, crc) in &self.bulk {
            let mut h = crc32fast::Hasher::new();
            r.will_need(0, CHUNK);
            for (i, chunk) in r.bytes().chunks(CHUNK).enumerate() {
                r.will_need((i + 1) * CHUNK, CHUNK);
                h.update(chunk);
            }
            if h.finalize() != *crc {
                return Err(Error::Corrupt(format!(
                    "segment {}: section {} checksum mismatch",
                    self.generation, SECTION_NAMES[*s]
                )));
            }
        }
        let finite = match self.rows_of(&self.vectors) {
            RowSlice::F32(v) => v.iter().all(|x| x.is_finite()),
            RowSlice::F16(v) => v.iter().all(|x| x.is_finite()),
        };
        if !finite {
            return Err(Error::Corrupt(format!(
                "segment {}: a stored vector is not finite",
                self.generation
            )));
        }
        self.index
            .graph()
            .validate()
            .map_err(|e| Error::Corrupt(format!("segment {}: graph: {e}", self.generation)))?;
        // structure whose checksums may be consistent with wrong content: the id order must be
        // a permutation of the rows sorted by strictly increasing id, every id must decode, and
        // every metadata text must be JSON
        let corrupt = |what: String| Error::Corrupt(format!("segment {}: {what}", self.generation));
        let order = self.id_order.as_slice::<u32>();
        let mut seen = vec![false; self.n];
        for (i, &row) in order.iter().enumerate() {
            let r = row as usize;
            if seen[r] {
                return Err(corrupt(format!("id order names row {row} twice")));
            }
            seen[r] = true;
            if i > 0 && self.id_bytes_of(order[i - 1] as usize) >= self.id_bytes_of(r) {
                return Err(corrupt(format!("id order is not strictly increasing at position {i} (an id twice, or unsorted)")));
            }
            self.id(row)?;
        }
        for row in 0..self.n as u32 {
            if let Some(m) = self.metadata(row)? {
                if !crate::metadata::is_json(&m) {
                    return Err(corrupt(format!("metadata of row {row} is not JSON")));
                }
            }
        }
        // the metadata index section (version 2): its checksum, its structure, and that it says
        // what the metadata says (the encoding is canonical)
        if let Some((region, _)) = &self.meta_section {
            self.stored_meta_index()?;
            let built = crate::filter::codec::to_vec(&self.build_meta_index());
            if built != region.bytes() {
                return Err(corrupt(
                    "section meta_index does not match the metadata".into(),
                ));
            }
        }
        Ok(())
    }

    /// The regions every graph walk reads: the RaBitQ codes and the graph adjacency (the rows
    /// are read only by the rerank, a few per search). A memory-mapped file advises these for
    /// random access and reads them in the background after open (`warm_up`).
    pub fn hot_regions(&self) -> Vec<Region> {
        self.bulk
            .iter()
            .filter(|(s, _, _)| *s != S_VECTORS)
            .map(|(_, r, _)| r.clone())
            .collect()
    }
}
