//! What the committer asks of the store: the mutations of a write group and of a swap, each
//! built in one function, and the application of one write request to the collection.

use super::request::WriteRequest;
use crate::collection::{Collection, SwapOutcome};
use crate::error::Result;
use crate::segment::Segment;
use crate::store::Mutation;
use crate::types::VectorId;

/// What one applied write request changed, for the store.
pub(crate) enum Applied {
    /// Records written: ids, their insertion sequences, `n × dim` vectors, metadata, and the
    /// sealed rows they tombstoned (`(generation, row)`).
    Put {
        ids: Vec<VectorId>,
        seqs: Vec<u64>,
        vectors: Vec<f32>,
        metadata: Vec<Option<String>>,
        dim: usize,
        tombstones: Vec<(u64, u32)>,
    },
    /// Records deleted (those that were present) and the sealed rows tombstoned.
    Delete {
        ids: Vec<VectorId>,
        tombstones: Vec<(u64, u32)>,
    },
}

fn tombstones(t: &[(u64, u32)]) -> impl Iterator<Item = Mutation<'_>> {
    t.iter()
        .map(|&(generation, row)| Mutation::Tombstone { generation, row })
}

/// The mutations of a write group, in request order.
pub(crate) fn group_mutations<'a>(applied: impl Iterator<Item = &'a Applied>) -> Vec<Mutation<'a>> {
    let mut muts = Vec::new();
    for a in applied {
        match a {
            Applied::Put {
                ids,
                seqs,
                vectors,
                metadata,
                dim,
                tombstones: t,
            } => {
                for (i, id) in ids.iter().enumerate() {
                    muts.push(Mutation::Put {
                        id,
                        seq: seqs[i],
                        vector: &vectors[i * dim..(i + 1) * dim],
                        metadata: metadata[i].as_deref(),
                    });
                }
                muts.extend(tombstones(t));
            }
            Applied::Delete { ids, tombstones: t } => {
                muts.extend(ids.iter().map(|id| Mutation::Delete { id }));
                muts.extend(tombstones(t));
            }
        }
    }
    muts
}

/// The one manifest transaction of a swap: add the new segment `seg` (if any) with its rows
/// that start as tombstones, delete the records that moved into it (a seal), remove the merged
/// segments (a compaction).
pub(crate) fn swap_mutations<'a>(seg: Option<&Segment>, out: &'a SwapOutcome) -> Vec<Mutation<'a>> {
    let mut muts = Vec::new();
    if let Some(seg) = seg {
        let generation = seg.generation();
        muts.push(Mutation::AddSegment {
            generation,
            rows: seg.len() as u64,
        });
        muts.extend(
            out.new_tombstones
                .iter()
                .map(|&row| Mutation::Tombstone { generation, row }),
        );
    }
    muts.extend(out.moved.iter().map(|id| Mutation::Delete { id }));
    muts.extend(
        out.removed
            .iter()
            .map(|&generation| Mutation::RemoveSegment { generation }),
    );
    muts
}

/// Applies one request to the collection (all or nothing); returns what changed and the count.
pub(crate) fn apply(col: &mut Collection, req: WriteRequest) -> Result<(Applied, usize)> {
    match req {
        WriteRequest::Put {
            kind,
            ids,
            vectors,
            metadata,
        } => {
            let w = col.prepare(kind, ids, vectors, metadata)?;
            let n = w.len();
            let ids = w.ids().to_vec();
            let (vectors, metadata) = w.payload();
            let (vectors, metadata) = (vectors.to_vec(), metadata.to_vec());
            col.commit(w)?;
            let seqs = ids.iter().map(|id| col.seq_of(id).unwrap_or(0)).collect();
            let tombstones = col.take_tombstones();
            Ok((
                Applied::Put {
                    ids,
                    seqs,
                    vectors,
                    metadata,
                    dim: col.dim(),
                    tombstones,
                },
                n,
            ))
        }
        WriteRequest::DeleteWhere { filter } => {
            let ids = col.matching_ids(&filter)?;
            apply(col, WriteRequest::Delete { ids })
        }
        WriteRequest::Delete { ids } => {
            let present: Vec<VectorId> =
                ids.iter().filter(|id| col.contains(id)).cloned().collect();
            let n = col.delete(&ids);
            let tombstones = col.take_tombstones();
            Ok((
                Applied::Delete {
                    ids: present,
                    tombstones,
                },
                n,
            ))
        }
    }
}
