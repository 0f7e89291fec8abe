//! The single-threaded durable driver over the log store (what the wasm build runs in a Web
//! Worker over OPFS files): writes, seals and compactions with segment files kept by the caller,
//! reopen without a rebuild, a full quota on a write and on a seal's manifest commit, orphans,
//! `f16` rows (log version 2, half-row segment files).

use std::collections::HashMap;

use horosvec_core::durable::{LocalDurable, SegmentConfig, WriteRequest};
use horosvec_core::store::{LogStore, MemFile};
use horosvec_core::{ErrorCode, Metric, Precision, SearchOptions, VectorId, WriteKind};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const DIM: usize = 8;

type Files = ([MemFile; 2], HashMap<u64, Vec<u8>>);
type Driver = LocalDurable<LogStore<MemFile>>;

fn cfg() -> SegmentConfig {
    SegmentConfig {
        max_mutable_records: 300,
        ..SegmentConfig::default()
    }
}

fn open(f: &Files) -> horosvec_core::Result<Driver> {
    open_as(f, None)
}

/// Opens (or creates) with the `vectors` option (`None`: the stored precision, `f32` to create).
fn open_as(f: &Files, vectors: Option<Precision>) -> horosvec_core::Result<Driver> {
    let store = LogStore::open(
        [f.0[0].clone(), f.0[1].clone()],
        Some(DIM),
        Some(Metric::Cosine),
        vectors,
    )?;
    LocalDurable::open(store, cfg(), &mut |g| Ok(f.1.get(&g).cloned()))
}

/// Runs every job the policy asks for, writing segment files into `f.1` (as the JS layer does).
fn maintain(d: &mut Driver, f: &mut Files) -> usize {
    let mut sealed = 0;
    while let Some(job) = d.start_job().unwrap() {
        if let Some(g) = job.generation {
            f.1.insert(g, job.bytes.to_vec());
        }
        let s = d.install().unwrap();
        if s.seal {
            sealed += s.count;
        }
        for g in s.removed {
            f.1.remove(&g);
        }
    }
    sealed
}

fn batch(rng: &mut ChaCha8Rng, from: u64, n: u64, kind: WriteKind) -> WriteRequest {
    WriteRequest::Put {
        kind,
        ids: (from..from + n).map(VectorId::Int).collect(),
        vectors: (0..n as usize * DIM)
            .map(|_| rng.random_range(-1.0f32..1.0))
            .collect(),
        metadata: Some(
            (from..from + n)
                .map(|i| Some(format!("{{\"b\":{}}}", i / 10)))
                .collect(),
        ),
    }
}

fn top(d: &Driver, q: &[f32]) -> Vec<(VectorId, f32)> {
    let mut o = SearchOptions::new(10).unwrap();
    o.exact = Some(true);
    let c = d.collection().unwrap();
    c.search(q, &o)
        .unwrap()
        .into_iter()
        .map(|h| (h.id, h.distance))
        .collect()
}

#[test]
fn writes_seals_and_compactions_survive_a_reopen_without_a_rebuild() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut f: Files = Default::default();
    let mut d = open(&f).unwrap();
    let mut sealed = 0;
    for b in 0..100u64 {
        d.write(batch(&mut rng, b * 10, 10, WriteKind::Add))
            .unwrap();
        sealed += maintain(&mut d, &mut f);
    }
    assert!(sealed >= 600, "sealed {sealed}");
    let st = d.collection().unwrap().stats();
    assert!(st.sealed_segments >= 2);
    // upserts and deletes across the segments
    d.write(batch(&mut rng, 5, 10, WriteKind::Upsert)).unwrap();
    let n = d
        .write(WriteRequest::Delete {
            ids: (500..520).map(VectorId::Int).collect(),
        })
        .unwrap();
    assert_eq!(n, 20);
    let q: Vec<f32> = (0..DIM).map(|_| rng.random_range(-1.0f32..1.0)).collect();
    let want = top(&d, &q);
    let size = d.collection().unwrap().len();
    let live = d.live_segments();
    drop(d);

    let d = open(&f).unwrap();
    assert_eq!(d.collection().unwrap().len(), size);
    assert_eq!(d.live_segments(), live);
    assert_eq!(d.collection().unwrap().stats().sealed_segments, live.len());
    assert_eq!(top(&d, &q), want);

    // a compaction asked for merges them all; the old files are released
    let mut d = d;
    d.ask_compact();
    maintain(&mut d, &mut f);
    assert_eq!(d.collection().unwrap().stats().sealed_segments, 1);
    assert_eq!(f.1.len(), 1);
    assert_eq!(top(&d, &q), want);
    drop(d);
    assert_eq!(top(&open(&f).unwrap(), &q), want);
}

#[test]
fn a_full_quota_refuses_the_write_and_keeps_what_was_acknowledged() {
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let mut f: Files = Default::default();
    let mut d = open(&f).unwrap();
    d.write(batch(&mut rng, 0, 10, WriteKind::Add)).unwrap();
    for file in &f.0 {
        file.limit_writes(Some(20), true);
    }
    let e = d
        .write(batch(&mut rng, 10, 10, WriteKind::Add))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Quota);
    assert_eq!(
        d.collection().unwrap().len(),
        10,
        "nothing of the refused batch"
    );
    // reads and a retry once space is back
    assert!(d
        .collection()
        .unwrap()
        .get(&VectorId::Int(3))
        .unwrap()
        .is_some());
    for file in &f.0 {
        file.limit_writes(None, false);
    }
    d.write(batch(&mut rng, 10, 10, WriteKind::Add)).unwrap();
    drop(d);
    assert_eq!(open(&f).unwrap().collection().unwrap().len(), 20);

    // a seal whose manifest commit is refused: reloaded, the file an orphan, nothing lost
    let mut d = open(&f).unwrap();
    for b in 2..40u64 {
        d.write(batch(&mut rng, b * 10, 10, WriteKind::Add))
            .unwrap();
    }
    let job = d.start_job().unwrap().expect("a seal is due");
    let g = job.generation.unwrap();
    f.1.insert(g, job.bytes.to_vec());
    for file in &f.0 {
        file.limit_writes(Some(0), true);
    }
    assert_eq!(d.install().unwrap_err().code(), ErrorCode::Quota);
    for file in &f.0 {
        file.limit_writes(None, false);
    }
    assert_eq!(d.collection().unwrap().len(), 400);
    assert!(d.live_segments().is_empty());
    drop(d);
    let d = open(&f).unwrap();
    assert_eq!(d.collection().unwrap().len(), 400);
    assert!(!d.live_segments().contains(&g), "the file is an orphan");
}

#[test]
fn a_missing_segment_file_is_corrupt() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut f: Files = Default::default();
    let mut d = open(&f).unwrap();
    d.write(batch(&mut rng, 0, 10, WriteKind::Add)).unwrap();
    d.ask_seal();
    assert_eq!(maintain(&mut d, &mut f), 10);
    drop(d);
    f.1.clear();
    assert_eq!(open(&f).err().map(|e| e.code()), Some(ErrorCode::Corrupt));
}

#[test]
fn f16_rows_are_kept_through_seals_and_reopens() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut f: Files = Default::default();
    let mut d = open_as(&f, Some(Precision::F16)).unwrap();
    for b in 0..40u64 {
        d.write(batch(&mut rng, b * 10, 10, WriteKind::Add))
            .unwrap();
        maintain(&mut d, &mut f);
    }
    assert!(!f.1.is_empty(), "a seal wrote a segment file");
    for bytes in f.1.values() {
        assert_eq!(
            bytes[22], 1,
            "segment files hold half rows (header byte 22)"
        );
    }
    let version = |b: &[u8]| u32::from_le_bytes(b[8..12].try_into().unwrap());
    let logs: Vec<u32> =
        f.0.iter()
            .map(|m| m.bytes())
            .filter(|b| b.len() >= 32)
            .map(|b| version(&b))
            .collect();
    assert!(
        !logs.is_empty() && logs.iter().all(|&v| v == 2),
        "log version 2: {logs:?}"
    );
    let q: Vec<f32> = (0..DIM).map(|_| rng.random_range(-1.0f32..1.0)).collect();
    let want = top(&d, &q);
    let (v, _) = d
        .collection()
        .unwrap()
        .get(&VectorId::Int(5))
        .unwrap()
        .unwrap();
    let v = v.into_owned();
    assert!(
        v.iter().all(|&x| half::f16::from_f32(x).to_f32() == x),
        "values rounded"
    );
    drop(d);

    // the stored precision without the option; the other precision is refused, nothing changed
    let d = open(&f).unwrap();
    let c = d.collection().unwrap();
    assert_eq!(c.precision(), Precision::F16);
    assert!(c.stats().sealed_segments >= 1);
    assert_eq!(top(&d, &q), want);
    assert_eq!(
        c.get(&VectorId::Int(5)).unwrap().unwrap().0.as_ref(),
        v.as_slice()
    );
    drop(d);
    assert_eq!(
        open_as(&f, Some(Precision::F32)).err().map(|e| e.code()),
        Some(ErrorCode::InvalidArgument)
    );
    assert_eq!(top(&open_as(&f, Some(Precision::F16)).unwrap(), &q), want);
}

/// Regression (adversarial test, session 16): a stored value of an `f16` collection that is not a
/// half float (here beyond ±65,504, which would become ±∞) is damage: the open fails with
/// `HV_CORRUPT` instead of loading ∞.
#[test]
fn an_f16_log_record_that_is_not_a_half_float_is_corrupt() {
    use horosvec_core::store::{Mutation, RecordStore};
    let f: Files = Default::default();
    let mut s = LogStore::open(
        [f.0[0].clone(), f.0[1].clone()],
        Some(DIM),
        Some(Metric::Cosine),
        Some(Precision::F16),
    )
    .unwrap();
    let mut v = vec![0.25f32; DIM];
    v[0] = 70_000.0;
    s.commit(&[Mutation::Put {
        id: &VectorId::Int(1),
        seq: 0,
        vector: &v,
        metadata: None,
    }])
    .unwrap();
    drop(s);
    assert_eq!(open(&f).err().map(|e| e.code()), Some(ErrorCode::Corrupt));
}
