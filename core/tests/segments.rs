//! Sealed segments of durable collections: seal, merged search, tombstones, compaction, reopen,
//! orphan cleanup and damaged files.
#![cfg(feature = "durable")]

use std::path::{Path, PathBuf};
use std::sync::mpsc::channel;

use horosvec_core::durable::{DurableCollection, SegmentConfig, WriteRequest};
use horosvec_core::segment::segment_file_name;
use horosvec_core::store::{Durability, SqliteStore};
use horosvec_core::{AnnIndex, ErrorCode, IndexParams, Metric, SearchOptions, VectorId, WriteKind};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const DIM: usize = 16;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("horosvec-seg-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn cfg(max_mutable: usize) -> SegmentConfig {
    SegmentConfig {
        max_mutable_records: max_mutable,
        ..SegmentConfig::default()
    }
}

fn open_with(
    dir: &Path,
    metric: Metric,
    c: SegmentConfig,
) -> horosvec_core::Result<DurableCollection> {
    let s = SqliteStore::open(dir, Some(DIM), Some(metric), Durability::Normal, false)?;
    DurableCollection::open(s, false, Some(dir.to_path_buf()), c)
}

fn wait(f: impl FnOnce(horosvec_core::durable::Reply)) -> horosvec_core::Result<usize> {
    let (tx, rx) = channel();
    f(Box::new(move |r| tx.send(r).unwrap()));
    rx.recv().unwrap()
}

fn vec_of(rng: &mut ChaCha8Rng) -> Vec<f32> {
    (0..DIM).map(|_| rng.random_range(-1.0f32..1.0)).collect()
}

fn put(
    d: &DurableCollection,
    kind: WriteKind,
    ids: &[u64],
    vs: &[Vec<f32>],
) -> horosvec_core::Result<usize> {
    let req = WriteRequest::Put {
        kind,
        ids: ids.iter().map(|&i| VectorId::Int(i)).collect(),
        vectors: vs.iter().flatten().copied().collect(),
        metadata: Some(ids.iter().map(|i| Some(format!("{{\"i\":{i}}}"))).collect()),
    };
    wait(|r| d.submit(req, r))
}

/// Writes records `ids` with seeded random vectors (recording them in `truth` if given) and
/// returns the vectors.
fn put_random(
    d: &DurableCollection,
    kind: WriteKind,
    ids: &[u64],
    rng: &mut ChaCha8Rng,
    truth: Option<&mut Truth>,
) -> Vec<Vec<f32>> {
    let vs: Vec<Vec<f32>> = ids.iter().map(|_| vec_of(rng)).collect();
    put(d, kind, ids, &vs).unwrap();
    if let Some(t) = truth {
        t.extend(ids.iter().copied().zip(vs.iter().cloned()));
    }
    vs
}

type Truth = std::collections::BTreeMap<u64, Vec<f32>>;

fn del(d: &DurableCollection, ids: &[u64]) -> usize {
    let req = WriteRequest::Delete {
        ids: ids.iter().map(|&i| VectorId::Int(i)).collect(),
    };
    wait(|r| d.submit(req, r)).unwrap()
}

/// Brute-force top-k ids over `truth` (squared L2).
fn brute(truth: &std::collections::BTreeMap<u64, Vec<f32>>, q: &[f32], k: usize) -> Vec<u64> {
    let mut all: Vec<(f32, u64)> = truth
        .iter()
        .map(|(&id, v)| (v.iter().zip(q).map(|(a, b)| (a - b) * (a - b)).sum(), id))
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    all.into_iter().take(k).map(|x| x.1).collect()
}

fn ids_of(d: &DurableCollection, q: &[f32], k: usize, exact: Option<bool>) -> Vec<u64> {
    let g = d.shared().read().unwrap();
    let mut o = SearchOptions::new(k).unwrap();
    o.exact = exact;
    g.as_ref()
        .unwrap()
        .search(q, &o)
        .unwrap()
        .into_iter()
        .map(|h| match h.id {
            VectorId::Int(i) => i,
            VectorId::Str(_) => unreachable!(),
        })
        .collect()
}

fn stats(d: &DurableCollection) -> horosvec_core::Stats {
    d.shared().read().unwrap().as_ref().unwrap().stats()
}

#[test]
fn seal_upsert_delete_compact_reopen_match_brute_force() {
    let dir = tmp("life");
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut truth = std::collections::BTreeMap::new();
    let d = open_with(&dir, Metric::L2, cfg(1_000_000)).unwrap();
    // three sealed segments of 600 and a mutable tail
    for s in 0..3u64 {
        let ids: Vec<u64> = (s * 600..(s + 1) * 600).collect();
        put_random(&d, WriteKind::Add, &ids, &mut rng, Some(&mut truth));
        assert_eq!(wait(|r| d.seal(r)).unwrap(), 600);
    }
    let tail: Vec<u64> = (1800..1900).collect();
    put_random(&d, WriteKind::Add, &tail, &mut rng, Some(&mut truth));
    let s = stats(&d);
    assert_eq!(
        (s.size, s.sealed_segments, s.mutable_records),
        (1900, 3, 100)
    );
    assert!(s.mode.starts_with("segmented-vamana"), "{}", s.mode);
    // add of a sealed id is a duplicate; upsert replaces it (new version in the mutable segment)
    let e = put(&d, WriteKind::Add, &[5], &[vec_of(&mut rng)]).unwrap_err();
    assert_eq!(e.code(), ErrorCode::DuplicateId);
    let seq5 = d
        .shared()
        .read()
        .unwrap()
        .as_ref()
        .unwrap()
        .seq_of(&VectorId::Int(5))
        .unwrap();
    let v5 = vec_of(&mut rng);
    put(&d, WriteKind::Upsert, &[5], std::slice::from_ref(&v5)).unwrap();
    truth.insert(5, v5.clone());
    // deletes across segments and the mutable tail
    let gone: Vec<u64> = (0..1900).step_by(7).collect();
    assert_eq!(del(&d, &gone), gone.len());
    for g in &gone {
        truth.remove(g);
    }
    let check =
        |d: &DurableCollection, truth: &std::collections::BTreeMap<u64, Vec<f32>>, label: &str| {
            let g = d.shared().read().unwrap();
            let c = g.as_ref().unwrap();
            assert_eq!(c.len(), truth.len(), "{label}");
            drop(g);
            let mut rng = ChaCha8Rng::seed_from_u64(99);
            let mut hit = 0usize;
            for _ in 0..50 {
                let q = vec_of(&mut rng);
                let want = brute(truth, &q, 10);
                assert_eq!(
                    ids_of(d, &q, 10, Some(true)),
                    want,
                    "{label}: exact search must be exact across segments"
                );
                let got = ids_of(d, &q, 10, Some(false));
                hit += got.iter().filter(|i| want.contains(i)).count();
                for id in got {
                    assert!(truth.contains_key(&id), "{label}: deleted id {id} returned");
                }
            }
            assert!(
                hit as f64 / 500.0 > 0.9,
                "{label}: recall@10 {}",
                hit as f64 / 500.0
            );
            let g = d.shared().read().unwrap();
            let c = g.as_ref().unwrap();
            if truth.contains_key(&5) {
                let (v, m) = c.get(&VectorId::Int(5)).unwrap().unwrap();
                assert_eq!(v, &truth[&5][..], "{label}");
                assert_eq!(m.as_deref(), Some("{\"i\":5}"));
            }
            let (v, _) = c.get(&VectorId::Int(601)).unwrap().unwrap();
            assert_eq!(v, &truth[&601][..], "{label}: a sealed record reads back");
            assert!(c.get(&VectorId::Int(0)).unwrap().is_none(), "{label}");
        };
    check(&d, &truth, "before reopen");
    d.close();
    let d = open_with(&dir, Metric::L2, cfg(1_000_000)).unwrap();
    check(&d, &truth, "after reopen");
    assert_eq!(
        d.shared()
            .read()
            .unwrap()
            .as_ref()
            .unwrap()
            .seq_of(&VectorId::Int(5)),
        Some(seq5),
        "upsert keeps the sequence"
    );
    // compaction merges everything and drops tombstones
    assert_eq!(wait(|r| d.compact(r)).unwrap(), 3);
    let s = stats(&d);
    assert_eq!((s.sealed_segments, s.tombstones), (1, 0));
    check(&d, &truth, "after compaction");
    // the tail: 100 added, 14 deleted (multiples of 7), plus the upserted id 5
    assert_eq!(wait(|r| d.seal(r)).unwrap(), 87);
    check(&d, &truth, "after sealing the tail");
    d.close();
    // only the live segment files remain
    let files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("seg-"))
        .collect();
    assert_eq!(files.len(), 2, "{files:?}");
    let d = open_with(
        &dir,
        Metric::L2,
        SegmentConfig {
            verify: true,
            ..cfg(1_000_000)
        },
    )
    .unwrap();
    check(&d, &truth, "after compaction and reopen");
    d.close();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn automatic_seal_and_compaction_keep_every_record() {
    let dir = tmp("auto");
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let c = SegmentConfig {
        max_mutable_records: 200,
        max_sealed_segments: 2,
        ..SegmentConfig::default()
    };
    let d = open_with(&dir, Metric::Cosine, c).unwrap();
    for b in 0..10u64 {
        let ids: Vec<u64> = (b * 100..(b + 1) * 100).collect();
        put_random(&d, WriteKind::Add, &ids, &mut rng, None);
    }
    // let the background work settle: a seal request waits for the running job first
    wait(|r| d.seal(r)).unwrap();
    wait(|r| d.seal(r)).unwrap();
    let s = stats(&d);
    assert_eq!(s.size, 1000);
    assert!(s.sealed_segments <= 4 && s.sealed_segments >= 1, "{s:?}"); // max + 1 before a merge, + 1 for seal()
    d.close();
    let d = open_with(&dir, Metric::Cosine, c).unwrap();
    let g = d.shared().read().unwrap();
    let col = g.as_ref().unwrap();
    assert_eq!(col.len(), 1000);
    for i in 0..1000 {
        assert!(col.contains(&VectorId::Int(i)), "{i}");
    }
    drop(g);
    d.close();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A collection with one sealed segment; returns its directory and the segment file.
fn sealed_fixture(name: &str) -> (PathBuf, PathBuf) {
    let dir = tmp(name);
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let d = open_with(&dir, Metric::L2, cfg(1_000_000)).unwrap();
    let ids: Vec<u64> = (0..300).collect();
    put_random(&d, WriteKind::Add, &ids, &mut rng, None);
    wait(|r| d.seal(r)).unwrap();
    d.close();
    let f = dir.join(segment_file_name(1));
    assert!(f.exists());
    (dir, f)
}

fn open_code(dir: &Path, verify: bool) -> Option<ErrorCode> {
    open_with(
        dir,
        Metric::L2,
        SegmentConfig {
            verify,
            ..cfg(1_000_000)
        },
    )
    .err()
    .map(|e| e.code())
}

#[test]
fn orphans_are_removed_and_damaged_segments_fail_loud() {
    let (dir, f) = sealed_fixture("damage");
    let good = std::fs::read(&f).unwrap();
    // orphans of an interrupted seal or compaction
    std::fs::write(dir.join(segment_file_name(77)), b"half").unwrap();
    std::fs::write(dir.join("seg-0000000000000078.hvseg.tmp"), b"half").unwrap();
    assert_eq!(open_code(&dir, false), None);
    assert!(!dir.join(segment_file_name(77)).exists());
    assert!(!dir.join("seg-0000000000000078.hvseg.tmp").exists());
    // a damaged header
    let mut b = good.clone();
    b[30] ^= 1;
    std::fs::write(&f, &b).unwrap();
    assert_eq!(open_code(&dir, false), Some(ErrorCode::Corrupt));
    // foreign bytes
    std::fs::write(&f, vec![7u8; good.len()]).unwrap();
    assert_eq!(open_code(&dir, false), Some(ErrorCode::Corrupt));
    // truncated
    std::fs::write(&f, &good[..good.len() - 100]).unwrap();
    assert_eq!(open_code(&dir, false), Some(ErrorCode::Corrupt));
    std::fs::write(&f, &good[..100]).unwrap();
    assert_eq!(open_code(&dir, false), Some(ErrorCode::Corrupt));
    // another format version (header checksum recomputed)
    let mut b = good.clone();
    b[8] = 9;
    let crc = crc32fast::hash(&b[..508]);
    b[508..512].copy_from_slice(&crc.to_le_bytes());
    std::fs::write(&f, &b).unwrap();
    assert_eq!(open_code(&dir, false), Some(ErrorCode::Version));
    // a flipped bit in the vectors: found by verify
    let mut b = good.clone();
    let vectors_at = u64::from_le_bytes(b[104..112].try_into().unwrap()) as usize;
    b[vectors_at + 10] ^= 0x10;
    std::fs::write(&f, &b).unwrap();
    assert_eq!(
        open_code(&dir, false),
        None,
        "a plain open does not read the bulk sections"
    );
    assert_eq!(open_code(&dir, true), Some(ErrorCode::Corrupt));
    // missing
    std::fs::remove_file(&f).unwrap();
    assert_eq!(open_code(&dir, false), Some(ErrorCode::Corrupt));
    // consistent checksums over wrong structure (id order all zeros, metadata not JSON): a plain
    // open does not look, verify does
    for (section, fill) in [(5usize, 0u8), (7, b'{')] {
        let mut b = good.clone();
        let at = 80 + section * 24;
        let off = u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize;
        let len = u64::from_le_bytes(b[at + 8..at + 16].try_into().unwrap()) as usize;
        b[off..off + len].fill(fill);
        let crc = crc32fast::hash(&b[off..off + len]);
        b[at + 16..at + 20].copy_from_slice(&crc.to_le_bytes());
        let hcrc = crc32fast::hash(&b[..508]);
        b[508..512].copy_from_slice(&hcrc.to_le_bytes());
        std::fs::write(&f, &b).unwrap();
        assert_eq!(
            open_code(&dir, true),
            Some(ErrorCode::Corrupt),
            "section {section}"
        );
    }
    // the database lost, the segment kept: never a fresh collection that deletes the segment
    std::fs::write(&f, &good).unwrap();
    let db = dir.join(horosvec_core::store::DB_FILE);
    let saved = std::fs::read(&db).unwrap();
    std::fs::remove_file(&db).unwrap();
    let _ = std::fs::remove_file(dir.join(format!("{}-wal", horosvec_core::store::DB_FILE)));
    let _ = std::fs::remove_file(dir.join(format!("{}-shm", horosvec_core::store::DB_FILE)));
    assert_eq!(open_code(&dir, false), Some(ErrorCode::Corrupt));
    assert!(f.exists(), "the segment file must survive");
    std::fs::write(&db, saved).unwrap();
    // restored: everything is back
    std::fs::write(&f, &good).unwrap();
    let d = open_with(
        &dir,
        Metric::L2,
        SegmentConfig {
            verify: true,
            ..cfg(1_000_000)
        },
    )
    .unwrap();
    assert_eq!(d.shared().read().unwrap().as_ref().unwrap().len(), 300);
    d.close();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Waits (bounded) until the mutable segment's interim index covers at least `rows` rows.
fn wait_indexed(d: &DurableCollection, rows: usize) -> usize {
    for _ in 0..600 {
        let s = stats(d);
        if s.mutable_indexed >= rows {
            return s.mutable_indexed;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    stats(d).mutable_indexed
}

#[test]
fn the_mutable_segment_gets_an_interim_index_with_an_exact_tail() {
    let dir = tmp("interim");
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut truth = std::collections::BTreeMap::new();
    let d = open_with(&dir, Metric::L2, cfg(1_000_000)).unwrap();
    let ids: Vec<u64> = (0..3000).collect();
    put_random(&d, WriteKind::Add, &ids, &mut rng, Some(&mut truth));
    // the background build starts after the write group
    assert!(wait_indexed(&d, 3000) >= 3000, "interim index not built");
    // a tail (below the rebuild threshold), deletes of indexed and tail rows, upserts
    let tail: Vec<u64> = (3000..3300).collect();
    put_random(&d, WriteKind::Add, &tail, &mut rng, Some(&mut truth));
    let gone: Vec<u64> = (0..3300).filter(|i| i % 11 == 3).collect();
    del(&d, &gone);
    for g in &gone {
        truth.remove(g);
    }
    let up: Vec<u64> = vec![1, 2, 3001];
    put_random(&d, WriteKind::Upsert, &up, &mut rng, Some(&mut truth));
    let s = stats(&d);
    assert_eq!(s.size, truth.len());
    // covered and live: the first 3000 rows minus those deleted and the two upserted (their new
    // versions are in the tail)
    let dead_in_prefix = gone.iter().filter(|&&g| g < 3000).count() + 2;
    assert_eq!(s.mutable_indexed, 3000 - dead_in_prefix, "{s:?}");
    let mut q_rng = ChaCha8Rng::seed_from_u64(77);
    let mut found = 0;
    for _ in 0..50 {
        let q = vec_of(&mut q_rng);
        let want = brute(&truth, &q, 10);
        assert_eq!(ids_of(&d, &q, 10, Some(true)), want);
        let got = ids_of(&d, &q, 10, Some(false));
        for id in &got {
            assert!(truth.contains_key(id), "deleted id {id} returned");
        }
        found += got.iter().filter(|i| want.contains(i)).count();
    }
    assert!(
        found as f64 / 500.0 > 0.9,
        "recall {}",
        found as f64 / 500.0
    );
    // every tail row is reachable: search for it exactly
    for id in [3000u64, 3299, 3001] {
        let v = truth[&id].clone();
        assert_eq!(ids_of(&d, &v, 1, Some(false)), vec![id]);
    }
    // sealing drops the interim index with the rows it covered
    wait(|r| d.seal(r)).unwrap();
    let s = stats(&d);
    assert_eq!(
        (s.mutable_records, s.mutable_indexed, s.size),
        (0, 0, truth.len())
    );
    d.close();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sealing_gives_the_moved_records_pages_back() {
    let dir = tmp("vacuum");
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let d = open_with(&dir, Metric::L2, cfg(1_000_000)).unwrap();
    let ids: Vec<u64> = (0..4000).collect();
    put_random(&d, WriteKind::Add, &ids, &mut rng, None);
    let db = dir.join(horosvec_core::store::DB_FILE);
    let wal = dir.join(format!("{}-wal", horosvec_core::store::DB_FILE));
    let size = || {
        std::fs::metadata(&db).map_or(0, |m| m.len())
            + std::fs::metadata(&wal).map_or(0, |m| m.len())
    };
    let before = size();
    assert!(before > 4000 * DIM as u64 * 4, "{before}");
    wait(|r| d.seal(r)).unwrap();
    d.close();
    // the close checkpoints the log; the freed pages were given back
    let after = std::fs::metadata(&db).unwrap().len();
    assert!(
        after < before / 4,
        "database {after} bytes after the seal, {before} before"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_mutable_segment_of_mostly_tombstones_is_compacted_and_reindexed() {
    let dir = tmp("dead");
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let d = open_with(&dir, Metric::L2, cfg(1_000_000)).unwrap();
    let ids: Vec<u64> = (0..5000).collect();
    let vs = put_random(&d, WriteKind::Add, &ids, &mut rng, None);
    assert_eq!(wait_indexed(&d, 5000), 5000);
    del(&d, &(0..2500).collect::<Vec<u64>>());
    // the next committer round drops the dead rows and rebuilds the interim index over the rest
    put(&d, WriteKind::Add, &[10_000], &[vec_of(&mut rng)]).unwrap();
    // (the record added after the delete stays in the exactly scanned tail)
    assert_eq!(wait_indexed(&d, 2500), 2500);
    let s = stats(&d);
    assert_eq!(
        (s.size, s.mutable_records, s.tombstones),
        (2501, 2501, 0),
        "{s:?}"
    );
    let q = vs[3500].clone();
    assert_eq!(ids_of(&d, &q, 1, Some(false)), vec![3500]);
    d.close();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A segment file mapped at open starts in cold mode (its searches ask for their pages ahead of
/// use), answers exactly as after its warm-up, and leaves cold mode once `warm_up` has read it.
#[test]
fn a_cold_segment_searches_the_same_before_and_after_its_warm_up() {
    use horosvec_core::ann::AnnSearch;
    use horosvec_core::flat::FlatView;
    use horosvec_core::segment::{
        open_segment_file, warm_up, write_segment_file, Freshness, SegmentRows,
    };
    use std::sync::atomic::AtomicBool;

    let dir = tmp("cold");
    std::fs::create_dir_all(&dir).unwrap();
    let n = 3_000;
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    let vectors: Vec<f32> = (0..n * DIM).map(|_| rng.random::<f32>()).collect();
    let ids: Vec<VectorId> = (0..n as u64).map(VectorId::Int).collect();
    let seqs: Vec<u64> = (0..n as u64).collect();
    let metadata = vec![None; n];
    let view = FlatView {
        dim: DIM,
        metric: Metric::L2,
        vectors: horosvec_core::rowdata::RowSlice::F32(&vectors),
        inv_norms: &[],
        seqs: &seqs,
        deleted: &[],
        kernels: horosvec_core::kernels(),
        pages: None,
    };
    let ix = AnnIndex::build(
        &view,
        IndexParams::default(),
        &|_, _| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    let rows = SegmentRows {
        dim: DIM,
        metric: Metric::L2,
        ids: &ids,
        seqs: &seqs,
        vectors: horosvec_core::rowdata::RowSlice::F32(&vectors),
        inv_norms: &[],
        metadata: &metadata,
    };
    write_segment_file(&dir, 7, &rows, &ix).unwrap();

    assert!(
        !open_segment_file(&dir, 7, DIM, Metric::L2, Freshness::JustWritten)
            .unwrap()
            .index()
            .is_cold(),
        "a segment just written is not cold"
    );
    let seg = open_segment_file(&dir, 7, DIM, Metric::L2, Freshness::FromDisk).unwrap();
    assert!(
        seg.index().is_cold(),
        "a mapped segment is cold until warmed"
    );
    let search = |q: &[f32]| {
        let view = seg.index_view(&[], horosvec_core::kernels());
        seg.index()
            .search(&view, q, q, 10, AnnSearch { ef: 64, rerank: 64 })
            .unwrap()
    };
    let queries: Vec<Vec<f32>> = (0..20)
        .map(|_| (0..DIM).map(|_| rng.random::<f32>()).collect())
        .collect();
    let cold: Vec<_> = queries.iter().map(|q| search(q)).collect();
    warm_up(vec![seg.clone()]);
    let t0 = std::time::Instant::now();
    while seg.index().is_cold() {
        assert!(t0.elapsed().as_secs() < 60, "the warm-up never finished");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    for (q, before) in queries.iter().zip(&cold) {
        let after = search(q);
        assert_eq!(
            before.iter().map(|h| (h.row, h.dist)).collect::<Vec<_>>(),
            after.iter().map(|h| (h.row, h.dist)).collect::<Vec<_>>()
        );
        assert_eq!(after.len(), 10);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The same segment as format version 1, byte for byte what the version-1 writer wrote: the
/// file cut at the end of the graph (the metadata index section, last, dropped), magic
/// `HVSEG001`, version 1, the twelfth table entry zero, the header checksum recomputed.
fn as_version_1(v2: &[u8]) -> Vec<u8> {
    let entry = |s: usize| {
        let at = 80 + s * 24;
        let off = u64::from_le_bytes(v2[at..at + 8].try_into().unwrap()) as usize;
        let len = u64::from_le_bytes(v2[at + 8..at + 16].try_into().unwrap()) as usize;
        (off, len)
    };
    assert_eq!(&v2[..8], b"HVSEG002");
    let (graph_at, graph_len) = entry(10);
    assert!(
        entry(11).0 >= graph_at + graph_len,
        "meta_index is the last section"
    );
    let mut b = v2[..graph_at + graph_len].to_vec();
    b[..8].copy_from_slice(b"HVSEG001");
    b[8..12].copy_from_slice(&1u32.to_le_bytes());
    b[80 + 11 * 24..80 + 12 * 24].fill(0);
    let crc = crc32fast::hash(&b[..508]);
    b[508..512].copy_from_slice(&crc.to_le_bytes());
    b
}

fn segment_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "hvseg"))
        .collect();
    v.sort();
    v
}

fn count_where(d: &DurableCollection, f: &str) -> usize {
    let f = horosvec_core::Filter::parse(f).unwrap();
    d.shared().read().unwrap().as_ref().unwrap().count(Some(&f))
}

fn filtered_ids(d: &DurableCollection, q: &[f32], f: &str) -> Vec<u64> {
    let g = d.shared().read().unwrap();
    let mut o = SearchOptions::new(10).unwrap();
    o.filter = Some(std::sync::Arc::new(
        horosvec_core::Filter::parse(f).unwrap(),
    ));
    let hits = g.as_ref().unwrap().search(q, &o).unwrap();
    hits.into_iter()
        .map(|h| match h.id {
            VectorId::Int(i) => i,
            VectorId::Str(_) => unreachable!(),
        })
        .collect()
}

#[test]
fn segments_store_their_metadata_index_and_version_1_files_still_open() {
    // metadata {"i": id}; ids 0..300 sealed
    let (dir, f) = sealed_fixture("v1");
    let v2 = std::fs::read(&f).unwrap();
    assert_eq!(u32::from_le_bytes(v2[8..12].try_into().unwrap()), 2);
    let (mi_at, mi_len) = {
        let at = 80 + 11 * 24;
        let off = u64::from_le_bytes(v2[at..at + 8].try_into().unwrap()) as usize;
        let len = u64::from_le_bytes(v2[at + 8..at + 16].try_into().unwrap()) as usize;
        (off, len)
    };
    assert!(mi_len > 0 && mi_at % 64 == 0);
    let filters = [
        r#"{"i":{"$lt":100}}"#,
        r#"{"i":{"$in":[3,7,299,400]}}"#,
        r#"{"j":1}"#,
    ];
    let want = [100, 3, 0];
    let q = vec![0.1f32; DIM];
    let expect_hits = |d: &DurableCollection| {
        for (f, &n) in filters.iter().zip(&want) {
            assert_eq!(count_where(d, f), n, "{f}");
        }
        let hits = filtered_ids(d, &q, filters[0]);
        assert_eq!(hits.len(), 10);
        assert!(hits.iter().all(|&i| i < 100), "{hits:?}");
    };
    // version 2 (as written): the index comes from the section
    let d = open_with(
        &dir,
        Metric::L2,
        SegmentConfig {
            verify: true,
            ..cfg(1_000_000)
        },
    )
    .unwrap();
    expect_hits(&d);
    d.close();
    // a damaged section with a valid header: verify refuses it; a plain open answers exactly
    // anyway (the index is then built from the metadata)
    let mut b = v2.clone();
    b[mi_at + mi_len / 2] ^= 0x20;
    std::fs::write(&f, &b).unwrap();
    assert_eq!(open_code(&dir, true), Some(ErrorCode::Corrupt));
    let d = open_with(&dir, Metric::L2, cfg(1_000_000)).unwrap();
    expect_hits(&d);
    d.close();
    // a consistent checksum over another index (row 0 says {"i":1}): only verify can tell
    let mut b = v2.clone();
    let other = {
        let dir2 = tmp("v1-other");
        let d2 = open_with(&dir2, Metric::L2, cfg(1_000_000)).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let ids: Vec<u64> = (1..301).collect();
        put_random(&d2, WriteKind::Add, &ids, &mut rng, None);
        wait(|r| d2.seal(r)).unwrap();
        d2.close();
        let o = std::fs::read(dir2.join(segment_file_name(1))).unwrap();
        let _ = std::fs::remove_dir_all(&dir2);
        o
    };
    let at = 80 + 11 * 24;
    let o_off = u64::from_le_bytes(other[at..at + 8].try_into().unwrap()) as usize;
    let o_len = u64::from_le_bytes(other[at + 8..at + 16].try_into().unwrap()) as usize;
    assert_eq!(o_len, mi_len, "the same shape of index");
    b[mi_at..mi_at + mi_len].copy_from_slice(&other[o_off..o_off + o_len]);
    let crc = crc32fast::hash(&b[mi_at..mi_at + mi_len]);
    b[at + 16..at + 20].copy_from_slice(&crc.to_le_bytes());
    let hcrc = crc32fast::hash(&b[..508]);
    b[508..512].copy_from_slice(&hcrc.to_le_bytes());
    std::fs::write(&f, &b).unwrap();
    assert_eq!(open_code(&dir, false), None);
    assert_eq!(open_code(&dir, true), Some(ErrorCode::Corrupt));

    // version 1: opens (verify included), the index is built from the metadata on first use
    let v1 = as_version_1(&v2);
    std::fs::write(&f, &v1).unwrap();
    let d = open_with(
        &dir,
        Metric::L2,
        SegmentConfig {
            verify: true,
            ..cfg(1_000_000)
        },
    )
    .unwrap();
    expect_hits(&d);
    // a version-1 table with a twelfth entry is refused
    let mut bad = v1.clone();
    bad[80 + 11 * 24] = 64;
    let crc = crc32fast::hash(&bad[..508]);
    bad[508..512].copy_from_slice(&crc.to_le_bytes());
    // the next compaction writes version 2 (a second segment so that compaction merges)
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let ids: Vec<u64> = (300..400).collect();
    put_random(&d, WriteKind::Add, &ids, &mut rng, None);
    wait(|r| d.seal(r)).unwrap();
    assert_eq!(del(&d, &[5, 6, 350]), 3);
    assert_eq!(wait(|r| d.compact(r)).unwrap(), 2);
    assert_eq!(count_where(&d, filters[0]), 98);
    assert_eq!(count_where(&d, r#"{"i":{"$gte":300}}"#), 99);
    d.close();
    let files = segment_files(&dir);
    assert_eq!(files.len(), 1, "{files:?}");
    let compacted = std::fs::read(&files[0]).unwrap();
    assert_eq!(&compacted[..8], b"HVSEG002");
    assert_eq!(u32::from_le_bytes(compacted[8..12].try_into().unwrap()), 2);
    let d = open_with(
        &dir,
        Metric::L2,
        SegmentConfig {
            verify: true,
            ..cfg(1_000_000)
        },
    )
    .unwrap();
    assert_eq!(count_where(&d, filters[0]), 98);
    assert_eq!(count_where(&d, r#"{"i":{"$gte":300}}"#), 99);
    d.close();
    // the refused version-1 table, on the original file name
    std::fs::write(&files[0], &bad).unwrap();
    assert_eq!(open_code(&dir, false), Some(ErrorCode::Corrupt));
    let _ = std::fs::remove_dir_all(&dir);
}
