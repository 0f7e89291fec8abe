//! Regression tests for the defects of issue 12 (a break-it pass at 1af4746). Each test failed
//! before its fix; the JS-facing twins (both backends) are in `tests-js/regressions.test.ts`.
#![cfg(feature = "durable")]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::channel;
use std::sync::Arc;
use std::time::{Duration, Instant};

use horosvec_core::args::{self, SearchArgs};
use horosvec_core::durable::{DurableCollection, Reply, SegmentConfig, WriteRequest};
use horosvec_core::store::{Durability, SqliteStore, DB_FILE};
use horosvec_core::{
    Collection, ErrorCode, IndexParams, Metric, SearchOptions, VectorId, WriteKind,
};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("horosvec-regress-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn open(dir: &Path, dim: usize, cfg: SegmentConfig) -> horosvec_core::Result<DurableCollection> {
    let s = SqliteStore::open(dir, Some(dim), Some(Metric::L2), Durability::Normal, false)?;
    DurableCollection::open(s, false, Some(dir.to_path_buf()), cfg)
}

fn open_ro(dir: &Path) -> horosvec_core::Result<DurableCollection> {
    let s = SqliteStore::open(dir, None, None, Durability::Normal, true)?;
    DurableCollection::open(s, true, Some(dir.to_path_buf()), SegmentConfig::default())
}

fn wait(f: impl FnOnce(Reply)) -> horosvec_core::Result<usize> {
    let (tx, rx) = channel();
    f(Box::new(move |r| {
        let _ = tx.send(r);
    }));
    rx.recv().unwrap()
}

fn put(
    d: &DurableCollection,
    kind: WriteKind,
    ids: std::ops::Range<u64>,
    dim: usize,
    base: f32,
) -> horosvec_core::Result<usize> {
    let vectors: Vec<f32> = ids
        .clone()
        .flat_map(|i| (0..dim).map(move |j| ((i * 7 + j as u64) % 13) as f32 + base))
        .collect();
    let req = WriteRequest::Put {
        kind,
        ids: ids.map(VectorId::Int).collect(),
        vectors,
        metadata: None,
    };
    wait(|r| d.submit(req, r))
}

fn size(d: &DurableCollection) -> usize {
    d.shared()
        .read()
        .unwrap()
        .as_ref()
        .map_or(0, Collection::len)
}

/// Bytes of the database and its write-ahead log.
fn store_bytes(dir: &Path) -> u64 {
    std::fs::metadata(dir.join(DB_FILE)).unwrap().len()
        + std::fs::metadata(dir.join(format!("{DB_FILE}-wal"))).map_or(0, |m| m.len())
}

fn segment_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("seg-"))
        .count()
}

/// Item 1: An empty (0-byte) `collection.db` beside sealed segments: `HV_CORRUPT`, no file removed.
#[test]
fn an_empty_database_beside_segments_is_corrupt_and_removes_nothing() {
    let dir = tmp("empty-db");
    let d = open(&dir, 4, SegmentConfig::default()).unwrap();
    put(&d, WriteKind::Add, 0..300, 4, 0.0).unwrap();
    assert_eq!(wait(|r| d.seal(r)).unwrap(), 300);
    d.close();
    drop(d);
    let before = segment_files(&dir);
    assert!(before >= 1);
    for wal in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(dir.join(format!("{DB_FILE}{wal}")));
    }
    std::fs::File::create(dir.join(DB_FILE)).unwrap(); // truncate to 0 bytes
    for opts in [(Some(4), Some(Metric::L2)), (None, None)] {
        let e = SqliteStore::open(&dir, opts.0, opts.1, Durability::Normal, false)
            .err()
            .expect("must be refused");
        assert_eq!(e.code(), ErrorCode::Corrupt, "{e}");
    }
    assert_eq!(
        segment_files(&dir),
        before,
        "no segment file may be removed"
    );
    assert_eq!(
        std::fs::metadata(dir.join(DB_FILE)).unwrap().len(),
        0,
        "the database file is left as it was"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Items 1 and 7: a valid database whose manifest or records table was dropped is damage, not an
/// empty collection: the segments are never treated as orphans.
#[test]
fn dropped_tables_are_corrupt_and_keep_the_segments() {
    for table in ["segments", "records"] {
        let dir = tmp(&format!("dropped-{table}"));
        let d = open(&dir, 4, SegmentConfig::default()).unwrap();
        put(&d, WriteKind::Add, 0..300, 4, 0.0).unwrap();
        wait(|r| d.seal(r)).unwrap();
        put(&d, WriteKind::Add, 300..310, 4, 0.0).unwrap();
        d.close();
        drop(d);
        let before = segment_files(&dir);
        let c = rusqlite::Connection::open(dir.join(DB_FILE)).unwrap();
        c.execute_batch(&format!("DROP TABLE {table};")).unwrap();
        drop(c);
        let e = open(&dir, 4, SegmentConfig::default())
            .err()
            .expect("must be refused");
        assert_eq!(e.code(), ErrorCode::Corrupt, "{table}: {e}");
        assert_eq!(
            segment_files(&dir),
            before,
            "{table}: no segment file may be removed"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Item 7: A NULL where the schema has a value (flipped bytes) is `HV_CORRUPT`, not `HV_IO`.
#[test]
fn a_null_in_the_manifest_is_corrupt() {
    let dir = tmp("null-manifest");
    let d = open(&dir, 4, SegmentConfig::default()).unwrap();
    put(&d, WriteKind::Add, 0..300, 4, 0.0).unwrap();
    wait(|r| d.seal(r)).unwrap();
    d.close();
    drop(d);
    let c = rusqlite::Connection::open(dir.join(DB_FILE)).unwrap();
    c.execute_batch("PRAGMA ignore_check_constraints = ON; CREATE TABLE s2 AS SELECT generation, NULL AS rows FROM segments; DROP TABLE segments; ALTER TABLE s2 RENAME TO segments;").unwrap();
    drop(c);
    let e = open(&dir, 4, SegmentConfig::default())
        .err()
        .expect("must be refused");
    assert_eq!(e.code(), ErrorCode::Corrupt, "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 2: A huge `k` or `ef` on an indexed collection is bounded by the collection's size before
/// anything is allocated: every record comes back, the process lives.
#[test]
fn huge_k_and_ef_return_every_record() {
    for n in [3usize, 2_500] {
        let dim = 8;
        let mut col = Collection::new(dim, Metric::L2).unwrap();
        let ids: Vec<VectorId> = (0..n as u64).map(VectorId::Int).collect();
        let v: Vec<f32> = (0..n * dim)
            .map(|i| ((i as u64).wrapping_mul(2_654_435_761) % 1_000) as f32 / 1e3)
            .collect();
        col.add(ids, &v, None).unwrap();
        let (ix, ver) = col
            .build_index(IndexParams::default(), &|_, _| {}, &AtomicBool::new(false))
            .unwrap();
        col.install_index(ix, ver).unwrap();
        for (k, ef) in [
            (2f64.powi(32), None),
            (9_007_199_254_740_991.0, None),
            (5.0, Some(1e9)),
            (2f64.powi(32), Some(1e15)),
        ] {
            let o = args::search_options(&SearchArgs {
                k: Some(k),
                ef,
                ..SearchArgs::default()
            })
            .unwrap();
            let hits = col.search(&v[..dim], &o).unwrap();
            assert_eq!(hits.len(), n.min(k as usize), "n {n} k {k} ef {ef:?}");
            assert_eq!(
                col.search_batch(&v[..2 * dim], &o).unwrap()[1].len(),
                n.min(k as usize)
            );
        }
    }
}

/// Item 3: A read-only view opened while the writer seals and compacts is one consistent state:
/// exactly the writer's records, never an error.
#[test]
fn read_only_views_during_seals_and_compactions_are_consistent() {
    let dir = tmp("torn");
    let dim = 4;
    let d = Arc::new(
        open(
            &dir,
            dim,
            SegmentConfig {
                max_mutable_records: 1_000_000,
                ..SegmentConfig::default()
            },
        )
        .unwrap(),
    );
    const N: u64 = 600;
    put(&d, WriteKind::Add, 0..N, dim, 0.0).unwrap();
    wait(|r| d.seal(r)).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (d, stop) = (d.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut i = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let from = (i * 37) % (N - 20);
                put(&d, WriteKind::Upsert, from..from + 20, dim, i as f32).unwrap();
                i += 1;
                if i.is_multiple_of(10) {
                    wait(|r| d.seal(r)).unwrap();
                }
                if i.is_multiple_of(40) {
                    wait(|r| d.compact(r)).unwrap();
                }
            }
            i
        })
    };
    let (mut opens, mut bad) = (0, Vec::new());
    let until = Instant::now() + Duration::from_secs(6);
    while Instant::now() < until {
        match open_ro(&dir) {
            Ok(v) => {
                let n = size(&v);
                if n != N as usize {
                    bad.push(format!("opened with {n} records"));
                }
            }
            Err(e) => bad.push(e.to_string()),
        }
        opens += 1;
    }
    stop.store(true, Ordering::Relaxed);
    let writes = writer.join().unwrap();
    assert!(
        writes > 40 && opens > 50,
        "{writes} writes, {opens} opens: too few to exercise the race"
    );
    eprintln!(
        "read-only views: {opens} opens during {writes} writer steps, {} torn",
        bad.len()
    );
    assert!(
        bad.is_empty(),
        "{} of {opens} views were torn: {:?}",
        bad.len(),
        &bad[..bad.len().min(5)]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 5: Parameters read back from a snapshot are checked as strictly as the API checks them: a
/// forged L (with a valid CRC) is `HV_CORRUPT`, not an abort at the next insert.
#[test]
fn a_snapshot_with_a_forged_l_is_corrupt() {
    let dim = 4;
    let mut col = Collection::new(dim, Metric::L2).unwrap();
    let v: Vec<f32> = (0..300 * dim).map(|i| ((i * 13) % 29) as f32).collect();
    col.add((0..300).map(VectorId::Int).collect(), &v, None)
        .unwrap();
    let (ix, ver) = col
        .build_index(IndexParams::default(), &|_, _| {}, &AtomicBool::new(false))
        .unwrap();
    col.install_index(ix, ver).unwrap();
    let bytes = col.to_bytes_stream().unwrap(); // the record stream (version 3) carries L here
    let l = IndexParams::default().l as u32;
    let r = IndexParams::default().r as u32;
    // the index section starts with R then L (u32 LE): find R followed by L after the records
    let at = (0..bytes.len() - 8)
        .rev()
        .find(|&i| bytes[i..i + 4] == r.to_le_bytes() && bytes[i + 4..i + 8] == l.to_le_bytes())
        .expect("R and L in the snapshot");
    for forged in [u32::MAX, 100_001] {
        let mut b = bytes.clone();
        b[at + 4..at + 8].copy_from_slice(&forged.to_le_bytes());
        let n = b.len();
        let crc = crc32fast::hash(&b[..n - 4]);
        b[n - 4..].copy_from_slice(&crc.to_le_bytes());
        let e = Collection::from_bytes(&b)
            .err()
            .expect("forged L must be refused");
        assert_eq!(e.code(), ErrorCode::Corrupt, "L = {forged}: {e}");
    }
}

/// Item 6: Cosine distances of huge finite vectors are exact (computed where f32 overflows), in
/// memory and in a sealed segment.
#[test]
fn cosine_of_huge_vectors_is_exact() {
    let dim = 16;
    let huge = vec![3e38f32; dim];
    let mut mixed = vec![1f32; dim];
    mixed[0] = 3e38;
    mixed[1] = -3e38;
    let q: Vec<f32> = (0..dim).map(|i| 1.0 + i as f32).collect();
    let exact = |a: &[f32], b: &[f32]| {
        let dot: f64 = a
            .iter()
            .zip(b)
            .map(|(&x, &y)| f64::from(x) * f64::from(y))
            .sum();
        let na: f64 = a
            .iter()
            .map(|&x| f64::from(x) * f64::from(x))
            .sum::<f64>()
            .sqrt();
        let nb: f64 = b
            .iter()
            .map(|&x| f64::from(x) * f64::from(x))
            .sum::<f64>()
            .sqrt();
        (1.0 - dot / (na * nb)) as f32
    };
    let check = |hits: &[horosvec_core::SearchHit]| {
        for h in hits {
            let want = match h.id {
                VectorId::Int(0) => exact(&huge, &q),
                VectorId::Int(1) => exact(&mixed, &q),
                VectorId::Int(2) => 0.0,
                _ => unreachable!(),
            };
            assert!(
                (h.distance - want).abs() < 1e-5,
                "{}: {} vs {want}",
                h.id,
                h.distance
            );
        }
        assert_eq!(hits[0].id, VectorId::Int(2), "the exact match comes first");
    };
    let rows: Vec<f32> = [huge.clone(), mixed.clone(), q.clone()].concat();
    let mut col = Collection::new(dim, Metric::Cosine).unwrap();
    col.add((0..3).map(VectorId::Int).collect(), &rows, None)
        .unwrap();
    let o = SearchOptions::new(3).unwrap();
    check(&col.search(&q, &o).unwrap());
    check(
        &col.search_batch(&[q.clone(), q.clone()].concat(), &o)
            .unwrap()[1],
    );
    // sealed
    let dir = tmp("cosine-huge");
    let s = SqliteStore::open(
        &dir,
        Some(dim),
        Some(Metric::Cosine),
        Durability::Normal,
        false,
    )
    .unwrap();
    let d = DurableCollection::open(s, false, Some(dir.clone()), SegmentConfig::default()).unwrap();
    let req = WriteRequest::Put {
        kind: WriteKind::Add,
        ids: (0..3).map(VectorId::Int).collect(),
        vectors: rows,
        metadata: None,
    };
    wait(|r| d.submit(req, r)).unwrap();
    wait(|r| d.seal(r)).unwrap();
    check(
        &d.shared()
            .read()
            .unwrap()
            .as_ref()
            .unwrap()
            .search(&q, &o)
            .unwrap(),
    );
    d.close();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 9: Sustained writes while a seal runs: the mutable segment stays within its bound (writers
/// wait), every write lands; the WAL is truncated after seals.
#[test]
fn sustained_writes_are_bounded_and_space_comes_back() {
    let dir = tmp("bounded");
    let dim = 32;
    let cfg = SegmentConfig {
        max_mutable_records: 2_000,
        ..SegmentConfig::default()
    };
    let bound = cfg.mutable_bound();
    let d = Arc::new(open(&dir, dim, cfg).unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let peak = {
        let (d, stop) = (d.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut peak = 0;
            while !stop.load(Ordering::Relaxed) {
                peak = peak.max(
                    d.shared()
                        .read()
                        .unwrap()
                        .as_ref()
                        .map_or(0, Collection::mutable_len),
                );
                std::thread::sleep(Duration::from_micros(200));
            }
            peak
        })
    };
    // 8 writers, each keeping 4 batches of 100 in flight: far faster than a seal of 2,000 rows
    let total = 40_000u64;
    let writers: Vec<_> = (0..8u64)
        .map(|w| {
            let d = d.clone();
            std::thread::spawn(move || {
                let mut pending = Vec::new();
                let mut from = w * (total / 8);
                while from < (w + 1) * (total / 8) {
                    let (tx, rx) = channel();
                    let ids = from..from + 100;
                    let vectors: Vec<f32> = ids
                        .clone()
                        .flat_map(|i| (0..dim).map(move |j| ((i + j as u64) % 97) as f32))
                        .collect();
                    d.submit(
                        WriteRequest::Put {
                            kind: WriteKind::Add,
                            ids: ids.map(VectorId::Int).collect(),
                            vectors,
                            metadata: None,
                        },
                        Box::new(move |r| {
                            let _ = tx.send(r);
                        }),
                    );
                    pending.push(rx);
                    if pending.len() >= 4 {
                        pending.remove(0).recv().unwrap().unwrap();
                    }
                    from += 100;
                }
                for p in pending {
                    p.recv().unwrap().unwrap();
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    let peak = peak.join().unwrap();
    assert_eq!(size(&d), total as usize, "every write landed");
    eprintln!("sustained writes: mutable segment peaked at {peak} records (bound {bound})");
    assert!(
        peak <= bound + 100,
        "mutable segment peaked at {peak}, bound {bound}"
    );
    // the WAL after a seal is truncated
    wait(|r| d.seal(r)).unwrap();
    let wal = std::fs::metadata(dir.join(format!("{DB_FILE}-wal"))).map_or(0, |m| m.len());
    eprintln!("WAL after a seal: {wal} bytes");
    assert!(wal < 4 << 20, "WAL is {wal} bytes after a seal");
    d.close();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A collection of 64-d records `0..n` in `dir`, all in the mutable segment (added 2,000 at a time).
fn filled(dir: &Path, n: u64) -> DurableCollection {
    let d = open(
        dir,
        64,
        SegmentConfig {
            max_mutable_records: 1_000_000,
            ..SegmentConfig::default()
        },
    )
    .unwrap();
    for from in (0..n).step_by(2_000) {
        put(&d, WriteKind::Add, from..from + 2_000, 64, 0.0).unwrap();
    }
    d
}

/// The pages freed by a run of deletes are given back once writes pause (the committer's idle
/// reclaim), without a close and without a vacuum inside a write.
#[test]
fn a_pause_after_many_deletes_gives_the_space_back() {
    let dir = tmp("idle-reclaim");
    let n = 8_000u64;
    let d = filled(&dir, n);
    let big = store_bytes(&dir);
    let ids: Vec<VectorId> = (0..n).map(VectorId::Int).collect();
    for chunk in ids.chunks(500) {
        let req = WriteRequest::Delete {
            ids: chunk.to_vec(),
        };
        // committed on this thread when the committer is idle (which must wake it for the
        // reclaim), else queued
        match d.submit_now(req) {
            Ok(r) => r.unwrap(),
            Err(req) => wait(|r| d.submit(req, r)).unwrap(),
        };
    }
    assert_eq!(size(&d), 0);
    // no write follows: the committer gives the pages back on its own (polled, generously)
    let deadline = Instant::now() + Duration::from_secs(60);
    while store_bytes(&dir) * 4 >= big && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let small = store_bytes(&dir);
    eprintln!("after a pause: database + WAL {big} -> {small} bytes");
    assert!(small * 4 < big, "{small} bytes kept of {big}");
    d.close();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 9: A collection emptied by deletes gives its database's space back.
#[test]
fn deleting_every_record_gives_the_space_back() {
    let dir = tmp("emptied");
    let n = 20_000u64;
    let d = filled(&dir, n);
    let big = store_bytes(&dir);
    assert!(big > 4 << 20, "{big} bytes");
    let ids: Vec<VectorId> = (0..n).map(VectorId::Int).collect();
    for chunk in ids.chunks(1_000) {
        let req = WriteRequest::Delete {
            ids: chunk.to_vec(),
        };
        wait(|r| d.submit(req, r)).unwrap();
    }
    assert_eq!(size(&d), 0);
    // the pages of the last deletes are given back once writes pause, at the latest at close
    d.close();
    let small = store_bytes(&dir);
    eprintln!("emptied collection: database + WAL {big} -> {small} bytes");
    assert!(
        small * 4 < big,
        "database and WAL kept {small} of {big} bytes after every record was deleted"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A reclaim during a stream of deletes (`Reclaim::DuringWrites`, the committer's after 8,192
/// deletes without a pause) leaves a few MiB of free pages in place (no vacuum and checkpoint of
/// tens of ms inside a write); the reclaim once writes pause (`WhenWorthwhile`) gives them back.
#[test]
fn a_reclaim_during_writes_waits_for_much_free_space() {
    use horosvec_core::store::{Mutation, Reclaim, RecordStore};
    let dir = tmp("reclaim-during-writes");
    std::fs::create_dir_all(&dir).unwrap();
    let dim = 256;
    let mut s =
        SqliteStore::open(&dir, Some(dim), Some(Metric::L2), Durability::Normal, false).unwrap();
    let ids: Vec<VectorId> = (0..8_000u64).map(VectorId::Int).collect();
    let v = vec![0.5f32; dim];
    for chunk in ids.chunks(1_000) {
        let muts: Vec<Mutation<'_>> = chunk
            .iter()
            .enumerate()
            .map(|(i, id)| Mutation::Put {
                id,
                seq: i as u64,
                vector: &v,
                metadata: None,
            })
            .collect();
        s.commit(&muts).unwrap();
    }
    s.reclaim(Reclaim::Always).unwrap();
    let big = store_bytes(&dir);
    let dels: Vec<Mutation<'_>> = ids.iter().map(|id| Mutation::Delete { id }).collect();
    s.commit(&dels).unwrap();
    let with_free = store_bytes(&dir);
    // about 8 MiB free: under the 64 MiB floor of a reclaim during writes
    s.reclaim(Reclaim::DuringWrites).unwrap();
    assert_eq!(store_bytes(&dir), with_free, "no vacuum during writes");
    s.reclaim(Reclaim::WhenWorthwhile).unwrap();
    let small = store_bytes(&dir);
    assert!(
        small * 4 < big,
        "{small} bytes kept of {big} after the idle reclaim"
    );
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}
