//! The log store against a model: every acknowledged group is there after a reopen, no part of
//! a group ever is, whatever byte a crash tears a write at, and a refused write or flush (a full
//! quota) leaves the store as before. Seeded.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::error::ErrorCode;
use crate::types::VectorId;

const DIM: usize = 3;

/// The logical state: records in seq order and the manifest.
type State = (Vec<StoredRecord>, Vec<ManifestEntry>);

fn state(s: &mut dyn RecordStore) -> State {
    let mut recs = Vec::new();
    s.load(&mut |r| {
        recs.push(r);
        Ok(())
    })
    .unwrap();
    (recs, s.segments().unwrap())
}

/// An owned mutation (a group is kept to be replayed into the model and the store).
#[derive(Clone, Debug)]
enum Op {
    Put(VectorId, u64, Vec<f32>, Option<String>),
    Delete(VectorId),
    Tombstone(u64, u32),
    AddSegment(u64, u64),
    RemoveSegment(u64),
}

fn muts(g: &[Op]) -> Vec<Mutation<'_>> {
    g.iter()
        .map(|o| match o {
            Op::Put(id, seq, v, m) => Mutation::Put {
                id,
                seq: *seq,
                vector: v,
                metadata: m.as_deref(),
            },
            Op::Delete(id) => Mutation::Delete { id },
            Op::Tombstone(g, r) => Mutation::Tombstone {
                generation: *g,
                row: *r,
            },
            Op::AddSegment(g, n) => Mutation::AddSegment {
                generation: *g,
                rows: *n,
            },
            Op::RemoveSegment(g) => Mutation::RemoveSegment { generation: *g },
        })
        .collect()
}

fn random_group(rng: &mut ChaCha8Rng, seq: &mut u64) -> Vec<Op> {
    (0..rng.random_range(1..6))
        .map(|_| {
            let id = if rng.random_bool(0.5) {
                VectorId::Int(rng.random_range(0..20))
            } else {
                VectorId::from(format!("k{}", rng.random_range(0..20)).as_str())
            };
            match rng.random_range(0..10) {
                0..=5 => {
                    *seq += 1;
                    let v = (0..DIM).map(|_| rng.random_range(-1.0..1.0)).collect();
                    let m = rng.random_bool(0.5).then(|| format!("{{\"n\":{seq}}}"));
                    Op::Put(id, *seq, v, m)
                }
                6 | 7 => Op::Delete(id),
                8 => Op::AddSegment(rng.random_range(1..4), 10),
                _ if rng.random_bool(0.5) => Op::RemoveSegment(rng.random_range(1..4)),
                _ => Op::Tombstone(rng.random_range(1..4), rng.random_range(0..10)),
            }
        })
        .collect()
}

fn open(f: &[MemFile; 2]) -> Result<LogStore<MemFile>> {
    LogStore::open(
        [f[0].clone(), f[1].clone()],
        Some(DIM),
        Some(Metric::Cosine),
        None,
    )
}

/// A store holding `pre` groups (a checkpoint after the second when `checkpointed`), its files
/// and the model of it.
fn history(pre: &[Vec<Op>], checkpointed: bool) -> ([MemFile; 2], MemoryStore) {
    let files = [MemFile::new(), MemFile::new()];
    let mut s = open(&files).unwrap();
    let mut model = MemoryStore::new(DIM, Metric::Cosine);
    for (i, g) in pre.iter().enumerate() {
        s.commit(&muts(g)).unwrap();
        model.commit(&muts(g)).unwrap();
        if checkpointed && i == 1 {
            s.checkpoint().unwrap();
        }
    }
    (files, model)
}

fn bytes_of(f: &[MemFile; 2]) -> usize {
    f.iter().map(|f| f.bytes().len()).sum()
}

#[test]
fn a_write_torn_at_every_byte_keeps_whole_groups_only() {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let mut seq = 0;
    let pre: Vec<Vec<Op>> = (0..4).map(|_| random_group(&mut rng, &mut seq)).collect();
    let next = random_group(&mut rng, &mut seq);
    for checkpointed in [false, true] {
        let (_, model) = history(&pre, checkpointed);
        let before = state(&mut { model });
        let mut after_model = history(&pre, checkpointed).1;
        after_model.commit(&muts(&next)).unwrap();
        let after = state(&mut after_model);
        let frame = encode_frame(codec::KIND_GROUP, &muts(&next), DIM)
            .unwrap()
            .len();
        for k in 0..=frame as u64 + 1 {
            let (files, _) = history(&pre, checkpointed);
            let mut s = open(&files).unwrap();
            let active = s.active;
            files[active].die_after(k);
            let acked = s.commit(&muts(&next)).is_ok();
            files[active].crash();
            drop(s);
            let got = state(&mut open(&files).unwrap());
            if acked {
                assert_eq!(got, after, "acknowledged group lost (tear at {k})");
            } else if got != before {
                // every byte of the frame reached the file, only the flush failed
                assert_eq!(got, after, "partial group visible (tear at {k})");
                assert!(k >= frame as u64);
            }
        }
    }
}

#[test]
fn a_checkpoint_torn_at_every_byte_loses_nothing() {
    let mut rng = ChaCha8Rng::seed_from_u64(18);
    let mut seq = 0;
    let pre: Vec<Vec<Op>> = (0..5).map(|_| random_group(&mut rng, &mut seq)).collect();
    let (files, mut model) = history(&pre, false);
    let want = state(&mut model);
    let total = {
        let mut s = open(&files).unwrap();
        let before = bytes_of(&files);
        s.checkpoint().unwrap();
        bytes_of(&files).max(before) as u64
    };
    for k in 0..=total {
        for checkpointed in [false, true] {
            let (files, _) = history(&pre, checkpointed);
            let mut s = open(&files).unwrap();
            for f in &files {
                f.die_after(k);
            }
            let _ = s.checkpoint();
            for f in &files {
                f.crash();
            }
            drop(s);
            let mut s = open(&files).unwrap();
            assert_eq!(state(&mut s), want, "tear at {k}");
            // and the store goes on taking writes
            s.commit(&muts(&pre[0])).unwrap();
        }
    }
}

#[test]
fn random_faults_never_lose_an_acknowledged_group() {
    for seed in 0..24u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let files = [MemFile::new(), MemFile::new()];
        let mut s = open(&files).unwrap();
        let mut model = MemoryStore::new(DIM, Metric::Cosine);
        let mut seq = 0;
        for step in 0..150 {
            let g = random_group(&mut rng, &mut seq);
            match rng.random_range(0..10) {
                0 => s.checkpoint().unwrap(),
                1 => {
                    // a full quota: refused, the store as before and still usable
                    files[s.active].limit_writes(Some(rng.random_range(0..12)), true);
                    let e = s.commit(&muts(&g)).unwrap_err();
                    assert_eq!(e.code(), ErrorCode::Quota);
                    files[s.active].limit_writes(None, false);
                    assert_eq!(state(&mut s), state(&mut model), "seed {seed} step {step}");
                }
                2 => {
                    // a crash in the middle of a commit, then a reopen
                    let active = s.active;
                    files[active].die_after(rng.random_range(0..60));
                    let acked = s.commit(&muts(&g)).is_ok();
                    files[active].crash();
                    drop(s);
                    s = open(&files).unwrap();
                    let got = state(&mut s);
                    if acked || got != state(&mut model) {
                        model.commit(&muts(&g)).unwrap();
                    }
                    assert_eq!(got, state(&mut model), "seed {seed} step {step}");
                }
                3 => {
                    drop(s);
                    s = open(&files).unwrap();
                    assert_eq!(state(&mut s), state(&mut model), "seed {seed} step {step}");
                }
                _ => {
                    s.commit(&muts(&g)).unwrap();
                    model.commit(&muts(&g)).unwrap();
                }
            }
            if s.reclaim(Reclaim::WhenWorthwhile).is_err() {
                panic!("reclaim failed");
            }
        }
        drop(s);
        assert_eq!(state(&mut open(&files).unwrap()), state(&mut model));
    }
}

#[test]
fn a_failed_flush_is_cut_off_or_refuses_until_reopened() {
    let files = [MemFile::new(), MemFile::new()];
    let mut s = open(&files).unwrap();
    let a = vec![Op::Put(VectorId::Int(1), 1, vec![1.0; DIM], None)];
    let b = vec![Op::Put(VectorId::Int(2), 2, vec![2.0; DIM], None)];
    s.commit(&muts(&a)).unwrap();
    let before = state(&mut s);
    files[s.active].fail_flush(true);
    assert_eq!(s.commit(&muts(&b)).unwrap_err().code(), ErrorCode::Io);
    files[s.active].fail_flush(false);
    // the undo's flush failed too: refused until reopened
    assert_eq!(s.commit(&muts(&b)).unwrap_err().code(), ErrorCode::Io);
    drop(s);
    let mut s = open(&files).unwrap();
    assert_eq!(state(&mut s), before);
    s.commit(&muts(&b)).unwrap();
    assert_eq!(state(&mut open(&files).unwrap()).0.len(), 2);
}

#[test]
fn open_checks_shape_and_refuses_foreign_bytes() {
    let files = [MemFile::new(), MemFile::new()];
    assert_eq!(
        LogStore::open([files[0].clone(), files[1].clone()], None, None, None)
            .err()
            .map(|e| e.code()),
        Some(ErrorCode::InvalidArgument)
    );
    drop(open(&files).unwrap());
    let reopen = |d, m| LogStore::open([files[0].clone(), files[1].clone()], d, m, None);
    assert_eq!(reopen(None, None).unwrap().shape(), (DIM, Metric::Cosine));
    assert_eq!(
        reopen(Some(4), None).err().map(|e| e.code()),
        Some(ErrorCode::InvalidArgument)
    );
    assert_eq!(
        reopen(None, Some(Metric::L2)).err().map(|e| e.code()),
        Some(ErrorCode::InvalidArgument)
    );
    let other = [MemFile::new(), MemFile::new()];
    other[0].set_bytes(vec![7u8; 200]);
    assert_eq!(
        open(&other).err().map(|e| e.code()),
        Some(ErrorCode::Corrupt)
    );
    assert_eq!(other[0].bytes(), vec![7u8; 200], "nothing was changed");
    // a later version
    let mut b = files[0].bytes();
    if b.is_empty() {
        b = files[1].bytes();
    }
    b[8] = 9;
    let crc = crc32fast::hash(&b[..28]);
    b[28..32].copy_from_slice(&crc.to_le_bytes());
    let v = [MemFile::new(), MemFile::new()];
    v[0].set_bytes(b.clone());
    assert_eq!(open(&v).err().map(|e| e.code()), Some(ErrorCode::Version));
    // version 2 (f16 rows) must say f16 in byte 17, version 1 f32: else corrupt
    for (version, code) in [(LOG_VERSION_F16, 0u8), (LOG_VERSION, 1)] {
        b[8..12].copy_from_slice(&version.to_le_bytes());
        b[17] = code;
        let crc = crc32fast::hash(&b[..28]);
        b[28..32].copy_from_slice(&crc.to_le_bytes());
        let v = [MemFile::new(), MemFile::new()];
        v[0].set_bytes(b.clone());
        assert_eq!(
            open(&v).err().map(|e| e.code()),
            Some(ErrorCode::Corrupt),
            "version {version}, code {code}"
        );
    }
}

#[test]
fn the_row_precision_is_stored_and_checked() {
    let files = [MemFile::new(), MemFile::new()];
    let with = |p| LogStore::open([files[0].clone(), files[1].clone()], Some(DIM), None, p);
    assert_eq!(
        with(Some(Precision::F16)).unwrap().precision(),
        Precision::F16
    );
    assert_eq!(with(None).unwrap().precision(), Precision::F16);
    assert_eq!(
        with(Some(Precision::F32)).err().map(|e| e.code()),
        Some(ErrorCode::InvalidArgument)
    );
    let f32s = [MemFile::new(), MemFile::new()];
    assert_eq!(open(&f32s).unwrap().precision(), Precision::F32);
}

#[test]
fn checkpoints_bound_the_log() {
    let files = [MemFile::new(), MemFile::new()];
    let mut s = open(&files).unwrap();
    let id = VectorId::Int(1);
    let meta = "x".repeat(200);
    for seq in 0..50_000u64 {
        // the same record upserted again and again
        let v = vec![seq as f32; DIM];
        s.commit(&[Mutation::Put {
            id: &id,
            seq,
            vector: &v,
            metadata: Some(&meta),
        }])
        .unwrap();
        s.reclaim(Reclaim::WhenWorthwhile).unwrap();
    }
    assert!(s.checkpoint_number() > 1);
    assert!(s.log_bytes() < 2 * CHECKPOINT_MIN_GROWTH);
    assert_eq!(state(&mut s).0.len(), 1);
}
