//! Durable storage of a collection's records, behind the [`RecordStore`] trait so that the
//! collection logic does not depend on where bytes live: [`MemoryStore`] keeps them in memory
//! (tests, among them [`FaultyStore`]'s, which wraps it); `SqliteStore` (feature `durable`, native only) keeps them in one SQLite
//! database per collection directory; [`LogStore`] (every build) in two plain files behind
//! [`LogFile`], the wasm build's OPFS collections. The layouts are drawn in `docs/format.md`.
//!
//! A store sees two things: `load` once at open, streaming every record in insertion-sequence
//! order, and `commit`, which makes a group of mutations durable as one atomic transaction with
//! (at most) one sync: the unit of group commit. [`FaultyStore`] wraps a store and fails chosen
//! commits, so that the committer's path after a failed commit is tested.

mod faulty;
pub mod log;
#[cfg(feature = "durable")]
mod sqlite;

use std::collections::BTreeMap;

pub use faulty::{FaultSwitch, FaultyStore};
pub use log::{LogFile, LogStore, MemFile};
#[cfg(feature = "durable")]
pub use sqlite::{SqliteStore, DB_FILE, F16_FORMAT_VERSION, FORMAT_VERSION, LOCK_FILE};

use crate::error::Result;
use crate::types::{IdByteOrder, Metric, VectorId};

/// How hard a commit pushes data to the storage medium before it is acknowledged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Durability {
    /// Every acknowledged write survives a process crash and a power loss: the commit waits for
    /// a full sync of the log (SQLite `synchronous = FULL` in WAL mode). The default.
    #[default]
    Full,
    /// Survives a process crash; a power loss may lose the last commits, never corrupt the file
    /// (SQLite `synchronous = NORMAL` in WAL mode: syncs only at checkpoints).
    Normal,
    /// No sync at all (SQLite `synchronous = OFF`): fastest; a power loss or OS crash may lose
    /// recent commits; a process crash does not.
    Off,
}

impl Durability {
    /// Parses `"full"`, `"normal"` or `"off"`.
    ///
    /// # Errors
    /// `HV_INVALID_ARGUMENT` for any other text.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "full" => Ok(Durability::Full),
            "normal" => Ok(Durability::Normal),
            "off" => Ok(Durability::Off),
            other => Err(crate::Error::invalid_argument(format!(
                "durability must be \"full\", \"normal\" or \"off\", got {other:?}"
            ))),
        }
    }

    /// The option's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Durability::Full => "full",
            Durability::Normal => "normal",
            Durability::Off => "off",
        }
    }
}

/// One change of a committed group.
#[derive(Clone, Copy, Debug)]
pub enum Mutation<'a> {
    /// Insert or replace record `id` (its insertion sequence `seq`, `dim` values, metadata JSON).
    Put {
        /// The record's id.
        id: &'a VectorId,
        /// Its insertion sequence number (tie-break rank; kept by an upsert).
        seq: u64,
        /// Its vector.
        vector: &'a [f32],
        /// Its metadata JSON text.
        metadata: Option<&'a str>,
    },
    /// Remove record `id` (a no-op when absent).
    Delete {
        /// The record's id.
        id: &'a VectorId,
    },
    /// Tombstone row `row` of sealed segment `generation`.
    Tombstone {
        /// The segment's generation.
        generation: u64,
        /// The row.
        row: u32,
    },
    /// Add sealed segment `generation` (its file is already written and synced) to the manifest.
    AddSegment {
        /// The segment's generation (its file name).
        generation: u64,
        /// Rows in the segment.
        rows: u64,
    },
    /// Remove sealed segment `generation` and its tombstones from the manifest.
    RemoveSegment {
        /// The segment's generation.
        generation: u64,
    },
}

/// A record as `load` returns it.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredRecord {
    /// The record's id.
    pub id: VectorId,
    /// Its insertion sequence number.
    pub seq: u64,
    /// Its vector (`dim` values).
    pub vector: Vec<f32>,
    /// Its metadata JSON text.
    pub metadata: Option<String>,
}

/// A sealed segment as the manifest lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestEntry {
    /// Generation (file name and order).
    pub generation: u64,
    /// Rows in the segment.
    pub rows: u64,
    /// Tombstoned rows, ascending.
    pub tombstones: Vec<u32>,
}

/// Where a collection's records live. (Not `Send` itself: a store over the browser's file
/// handles cannot leave its thread; the threaded committer asks for `RecordStore + Send`.)
pub trait RecordStore {
    /// The stored collection's `(dim, metric)`.
    fn shape(&self) -> (usize, Metric);

    /// How the stored collection keeps its vector rows (`vectors`: `f32` unless the collection
    /// was created with `f16`). The records' vectors are `f32` in every store; an `f16`
    /// collection stores the rounded values, and its segment files half rows.
    fn precision(&self) -> crate::rowdata::Precision {
        crate::rowdata::Precision::F32
    }

    /// The manifest: sealed segments, oldest generation first, with their tombstones.
    ///
    /// # Errors
    /// `HV_IO`, `HV_CORRUPT`.
    fn segments(&mut self) -> Result<Vec<ManifestEntry>>;

    /// Calls `sink` with every stored record in ascending `seq`.
    ///
    /// # Errors
    /// `HV_IO`, `HV_CORRUPT` (a record that cannot be decoded), or the sink's error.
    fn load(&mut self, sink: &mut dyn FnMut(StoredRecord) -> Result<()>) -> Result<()>;

    /// Starts one consistent read: the [`segments`](RecordStore::segments) and
    /// [`load`](RecordStore::load) calls until [`end_read`](RecordStore::end_read) see one
    /// committed state, even while another process commits (a read-only view beside a writer
    /// that seals or compacts). Default: nothing (a store only this handle writes).
    ///
    /// # Errors
    /// `HV_IO`, `HV_CORRUPT`.
    fn begin_read(&mut self) -> Result<()> {
        Ok(())
    }

    /// Ends the read begun by [`begin_read`](RecordStore::begin_read). Default: nothing.
    fn end_read(&mut self) {}

    /// A token that changes whenever the stored state may have changed since the previous call
    /// (a commit by any handle of the store, in this process or another): a read-only view
    /// compares it with the token it read before its last load to skip a reload when nothing
    /// changed. A spurious change only costs a reload; a change must never be missed. Call it
    /// outside a read. Default: `0` (a store only this handle writes never changes under it).
    ///
    /// # Errors
    /// `HV_IO`.
    fn change_token(&mut self) -> Result<u64> {
        Ok(0)
    }

    /// Returns free space to the file system after many records left the store (a seal, a
    /// compaction, many deletes): free pages (as `when` says), and the write-ahead log's space.
    /// Best effort. Default: nothing.
    ///
    /// # Errors
    /// `HV_IO`.
    fn reclaim(&mut self, when: Reclaim) -> Result<()> {
        let _ = when;
        Ok(())
    }

    /// Makes `muts` durable, in order, as one atomic transaction: after an error none of them is
    /// stored.
    ///
    /// # Errors
    /// `HV_IO` (the medium refused the write or the sync), `HV_READ_ONLY`.
    fn commit(&mut self, muts: &[Mutation<'_>]) -> Result<()>;
}

/// When [`RecordStore::reclaim`] gives free pages back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reclaim {
    /// Always (after a swap moved many records out).
    Always,
    /// Only when enough of the file is free to be worth the work (after many deletes, once
    /// writes have paused).
    WhenWorthwhile,
    /// As [`Reclaim::WhenWorthwhile`] with a higher floor, for a stream of deletes that never
    /// pauses: the work (tens of ms) then delays the writes waiting behind it, so it is done
    /// only when much is free (the SQLite store: 64 MiB as well as a quarter of the file; free
    /// pages are reused by later writes meanwhile).
    DuringWrites,
}

/// Encodes an id as the store's key ([`VectorId::encode`], big-endian): `0x01` + 8 bytes for an integer, `0x02` + UTF-8
/// for a string (so integer keys sort numerically, and `7` and `"7"` differ).
pub fn encode_id(id: &VectorId) -> Vec<u8> {
    let mut k = Vec::with_capacity(9);
    id.encode(IdByteOrder::Big, &mut k);
    k
}

/// Decodes [`encode_id`]'s key; `None` when the bytes are not a valid key.
pub fn decode_id(k: &[u8]) -> Option<VectorId> {
    VectorId::decode(k, IdByteOrder::Big).ok()
}

/// Records kept in memory, in a map ordered by key: what tests use (among them
/// [`FaultyStore`]'s, wrapped around it), and the one definition of what a mutation does, into
/// which [`LogStore`] replays its frames.
pub struct MemoryStore {
    dim: usize,
    metric: Metric,
    records: BTreeMap<Vec<u8>, StoredRecord>,
    segments: BTreeMap<u64, (u64, std::collections::BTreeSet<u32>)>,
    commits: u64,
}

impl MemoryStore {
    /// An empty store for `dim`-dimensional vectors under `metric`.
    pub fn new(dim: usize, metric: Metric) -> Self {
        MemoryStore {
            dim,
            metric,
            records: BTreeMap::new(),
            segments: BTreeMap::new(),
            commits: 0,
        }
    }

    /// Number of stored records.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// True when nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The manifest, oldest generation first.
    pub fn manifest(&self) -> Vec<ManifestEntry> {
        self.segments
            .iter()
            .map(|(&generation, (rows, t))| ManifestEntry {
                generation,
                rows: *rows,
                tombstones: t.iter().copied().collect(),
            })
            .collect()
    }

    /// The records in ascending `seq`.
    pub fn records_by_seq(&self) -> Vec<&StoredRecord> {
        let mut all: Vec<&StoredRecord> = self.records.values().collect();
        all.sort_by_key(|r| r.seq);
        all
    }
}

impl RecordStore for MemoryStore {
    fn shape(&self) -> (usize, Metric) {
        (self.dim, self.metric)
    }

    fn segments(&mut self) -> Result<Vec<ManifestEntry>> {
        Ok(self.manifest())
    }

    fn load(&mut self, sink: &mut dyn FnMut(StoredRecord) -> Result<()>) -> Result<()> {
        for r in self.records_by_seq() {
            sink(r.clone())?;
        }
        Ok(())
    }

    /// The number of commits so far.
    fn change_token(&mut self) -> Result<u64> {
        Ok(self.commits)
    }

    fn commit(&mut self, muts: &[Mutation<'_>]) -> Result<()> {
        self.commits += 1;
        for m in muts {
            match *m {
                Mutation::Put {
                    id,
                    seq,
                    vector,
                    metadata,
                } => {
                    let rec = StoredRecord {
                        id: id.clone(),
                        seq,
                        vector: vector.to_vec(),
                        metadata: metadata.map(str::to_owned),
                    };
                    self.records.insert(encode_id(id), rec);
                }
                Mutation::Delete { id } => {
                    self.records.remove(&encode_id(id));
                }
                Mutation::Tombstone { generation, row } => {
                    if let Some(s) = self.segments.get_mut(&generation) {
                        s.1.insert(row);
                    }
                }
                Mutation::AddSegment { generation, rows } => {
                    self.segments.insert(generation, (rows, Default::default()));
                }
                Mutation::RemoveSegment { generation } => {
                    self.segments.remove(&generation);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_keys_round_trip_and_differ_by_type() {
        for id in [
            VectorId::Int(0),
            VectorId::Int(crate::types::MAX_SAFE_INTEGER),
            VectorId::from("7"),
            VectorId::from(""),
        ] {
            assert_eq!(decode_id(&encode_id(&id)), Some(id));
        }
        assert_ne!(
            encode_id(&VectorId::Int(7)),
            encode_id(&VectorId::from("7"))
        );
        assert_eq!(decode_id(&[3, 1]), None);
        assert_eq!(decode_id(&[1, 0, 0]), None);
        assert_eq!(decode_id(&[]), None);
    }

    #[test]
    fn memory_store_loads_in_seq_order() {
        let mut s = MemoryStore::new(1, Metric::L2);
        let (a, b) = (VectorId::from("a"), VectorId::Int(9));
        s.commit(&[
            Mutation::Put {
                id: &a,
                seq: 5,
                vector: &[1.0],
                metadata: None,
            },
            Mutation::Put {
                id: &b,
                seq: 2,
                vector: &[2.0],
                metadata: Some("{}"),
            },
        ])
        .unwrap();
        s.commit(&[Mutation::Delete {
            id: &VectorId::from("zz"),
        }])
        .unwrap();
        let mut seen = Vec::new();
        s.load(&mut |r| {
            seen.push(r.seq);
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, vec![2, 5]);
    }
}
