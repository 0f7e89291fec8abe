//! Read-only views that follow the writer: `refresh()` after commits, across seals and
//! compactions (files removed under the reader), never a partial group, the background poller.
#![cfg(feature = "durable")]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::channel;
use std::sync::Arc;
use std::time::{Duration, Instant};

use horosvec_core::durable::{DurableCollection, SegmentConfig, WriteRequest};
use horosvec_core::store::{Durability, MemoryStore, SqliteStore};
use horosvec_core::{ErrorCode, Metric, SearchOptions, VectorId, WriteKind};

const DIM: usize = 8;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("horosvec-follow-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn cfg(max_mutable: usize) -> SegmentConfig {
    SegmentConfig {
        max_mutable_records: max_mutable,
        ..SegmentConfig::default()
    }
}

fn writer(dir: &Path, c: SegmentConfig) -> DurableCollection {
    let s = SqliteStore::open(dir, Some(DIM), Some(Metric::L2), Durability::Normal, false).unwrap();
    DurableCollection::open(s, false, Some(dir.to_path_buf()), c).unwrap()
}

fn reader(dir: &Path) -> DurableCollection {
    let s = SqliteStore::open(dir, None, None, Durability::Normal, true).unwrap();
    DurableCollection::open(s, true, Some(dir.to_path_buf()), SegmentConfig::default()).unwrap()
}

fn wait(f: impl FnOnce(horosvec_core::durable::Reply)) -> horosvec_core::Result<usize> {
    let (tx, rx) = channel();
    f(Box::new(move |r| tx.send(r).unwrap()));
    rx.recv().unwrap()
}

fn vector(i: u64, version: u64) -> Vec<f32> {
    (0..DIM)
        .map(|d| ((i * 31 + d as u64 * 7 + version * 13) % 97) as f32 / 97.0)
        .collect()
}

fn put(d: &DurableCollection, kind: WriteKind, ids: &[u64], version: u64) -> usize {
    let req = WriteRequest::Put {
        kind,
        ids: ids.iter().map(|&i| VectorId::Int(i)).collect(),
        vectors: ids.iter().flat_map(|&i| vector(i, version)).collect(),
        metadata: Some(
            ids.iter()
                .map(|i| Some(format!("{{\"v\":{version},\"i\":{i}}}")))
                .collect(),
        ),
    };
    wait(|r| d.submit(req, r)).unwrap()
}

fn del(d: &DurableCollection, ids: &[u64]) -> usize {
    let req = WriteRequest::Delete {
        ids: ids.iter().map(|&i| VectorId::Int(i)).collect(),
    };
    wait(|r| d.submit(req, r)).unwrap()
}

/// Every record of the view: id → (vector, metadata), read by listing the ids it can find with
/// an exact search over everything (`k` = size).
fn contents(d: &DurableCollection) -> BTreeMap<u64, (Vec<f32>, Option<String>)> {
    let g = d.shared().read().unwrap();
    let c = g.as_ref().unwrap();
    let n = c.len();
    let mut out = BTreeMap::new();
    if n == 0 {
        return out;
    }
    let mut o = SearchOptions::new(n).unwrap();
    o.exact = Some(true);
    for h in c.search(&[0.0; DIM], &o).unwrap() {
        let VectorId::Int(i) = h.id else {
            unreachable!()
        };
        let (v, m) = c.get(&h.id).unwrap().unwrap();
        out.insert(i, (v.to_vec(), m));
    }
    assert_eq!(out.len(), n, "every record is found once");
    out
}

type Truth = BTreeMap<u64, u64>; // id → version

fn check(d: &DurableCollection, truth: &Truth, label: &str) {
    let got = contents(d);
    assert_eq!(
        got.keys().copied().collect::<Vec<_>>(),
        truth.keys().copied().collect::<Vec<_>>(),
        "{label}: the ids"
    );
    for (id, version) in truth {
        let (v, m) = &got[id];
        assert_eq!(v, &vector(*id, *version), "{label}: vector of {id}");
        assert_eq!(
            m.as_deref(),
            Some(format!("{{\"v\":{version},\"i\":{id}}}").as_str()),
            "{label}: metadata of {id}"
        );
    }
}

#[test]
fn a_refreshed_reader_sees_exactly_the_acknowledged_writes() {
    let dir = tmp("ack");
    let w = writer(&dir, cfg(20_000));
    let r = reader(&dir);
    let mut truth = Truth::new();
    check(&r, &truth, "empty");
    assert!(!r.refresh().unwrap(), "nothing changed since open");
    assert!(!w.refresh().unwrap(), "a writer's refresh is a no-op");

    put(&w, WriteKind::Add, &(0..50).collect::<Vec<_>>(), 0);
    truth.extend((0..50).map(|i| (i, 0)));
    check(&r, &Truth::new(), "before refresh the view is unchanged");
    assert!(r.refresh().unwrap());
    check(&r, &truth, "after the adds");
    assert!(!r.refresh().unwrap(), "a second refresh finds nothing new");

    put(&w, WriteKind::Upsert, &[3, 4, 60], 1);
    del(&w, &[10, 11, 999]);
    truth.extend([(3, 1), (4, 1), (60, 1)]);
    truth.remove(&10);
    truth.remove(&11);
    assert!(r.refresh().unwrap());
    check(&r, &truth, "after upserts and deletes");

    // writes fail on the view; a closed view refuses refresh
    let e = wait(|rep| r.submit(WriteRequest::Delete { ids: vec![] }, rep)).unwrap_err();
    assert_eq!(e.code(), ErrorCode::ReadOnly);
    r.close();
    assert_eq!(r.refresh().unwrap_err().code(), ErrorCode::Closed);
    r.follow(Duration::from_millis(5)).unwrap_err();
    w.close();
    assert_eq!(w.refresh().unwrap_err().code(), ErrorCode::Closed);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_view_over_a_memory_store_never_changes() {
    let s = MemoryStore::new(DIM, Metric::L2);
    let r = DurableCollection::open(s, true, None, SegmentConfig::default()).unwrap();
    assert!(!r.refresh().unwrap());
    r.follow(Duration::from_millis(1)).unwrap();
    std::thread::sleep(Duration::from_millis(10));
    assert_eq!(r.follow_stats().refreshes.load(Ordering::Relaxed), 0);
}

#[test]
fn refresh_follows_seals_and_compactions_whose_files_are_removed() {
    let dir = tmp("seal");
    let w = writer(&dir, cfg(100_000));
    let r = reader(&dir);
    let mut truth = Truth::new();
    let mut next = 0u64;
    for round in 0..3 {
        let ids: Vec<u64> = (next..next + 200).collect();
        next += 200;
        put(&w, WriteKind::Add, &ids, 0);
        truth.extend(ids.iter().map(|&i| (i, 0)));
        assert_eq!(wait(|rep| w.seal(rep)).unwrap(), 200);
        // a delete of a sealed record: a tombstone in the manifest
        del(&w, &[round * 200 + 7]);
        truth.remove(&(round * 200 + 7));
        assert!(r.refresh().unwrap());
        check(&r, &truth, &format!("after seal {round}"));
        let s = r.shared().read().unwrap().as_ref().unwrap().stats();
        assert_eq!(s.sealed_segments as u64, round + 1);
    }
    // the compaction removes the three files the reader has mapped
    assert_eq!(wait(|rep| w.compact(rep)).unwrap(), 3);
    put(&w, WriteKind::Upsert, &[1, 2], 5);
    truth.extend([(1, 5), (2, 5)]);
    assert!(r.refresh().unwrap());
    check(&r, &truth, "after the compaction");
    let s = r.shared().read().unwrap().as_ref().unwrap().stats();
    assert_eq!((s.sealed_segments, s.tombstones), (1, 2), "{s:?}");

    // a second view opened now, and the first, agree after more compactions
    let r2 = reader(&dir);
    check(&r2, &truth, "a view opened after the compaction");
    put(
        &w,
        WriteKind::Add,
        &(next..next + 50).collect::<Vec<_>>(),
        0,
    );
    truth.extend((next..next + 50).map(|i| (i, 0)));
    wait(|rep| w.seal(rep)).unwrap();
    wait(|rep| w.compact(rep)).unwrap();
    for (v, label) in [(&r, "first view"), (&r2, "second view")] {
        assert!(v.refresh().unwrap());
        check(v, &truth, label);
    }
    drop((r, r2, w));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A writer commits batches of BATCH records (with seals and compactions running); readers,
/// refreshing explicitly or by their poller, only ever see whole batches.
#[test]
fn a_racing_reader_never_sees_part_of_a_batch() {
    const BATCH: u64 = 10;
    const BATCHES: u64 = 150;
    let dir = tmp("race");
    let w = Arc::new(writer(&dir, cfg(300)));
    let polled = reader(&dir);
    polled.follow(Duration::from_millis(1)).unwrap();
    let manual = reader(&dir);
    let done = Arc::new(AtomicBool::new(false));
    let wr = {
        let (w, done) = (w.clone(), done.clone());
        std::thread::spawn(move || {
            for b in 0..BATCHES {
                let ids: Vec<u64> = (b * BATCH..(b + 1) * BATCH).collect();
                put(&w, WriteKind::Add, &ids, 0);
                if b % 3 == 2 {
                    // the oldest batch still there goes, whole, in one request
                    let old = b / 3 * BATCH;
                    del(&w, &(old..old + BATCH).collect::<Vec<_>>());
                }
                if b % 40 == 39 {
                    wait(|r| w.compact(r)).unwrap();
                }
            }
            done.store(true, Ordering::Release);
        })
    };
    let whole = |d: &DurableCollection, label: &str| {
        let got = contents(d);
        let mut per_batch: BTreeMap<u64, u64> = BTreeMap::new();
        for id in got.keys() {
            *per_batch.entry(id / BATCH).or_default() += 1;
        }
        for (b, n) in per_batch {
            assert_eq!(n, BATCH, "{label}: batch {b} is partly visible");
        }
    };
    let mut views = 0;
    while !done.load(Ordering::Acquire) {
        manual.refresh().unwrap();
        whole(&manual, "manual refresh");
        whole(&polled, "poller");
        views += 1;
    }
    wr.join().unwrap();
    assert!(views > 0);
    // at the end both views converge on the writer's state
    let truth = contents(&w);
    manual.refresh().unwrap();
    assert_eq!(
        contents(&manual).keys().collect::<Vec<_>>(),
        truth.keys().collect::<Vec<_>>()
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    while contents(&polled).keys().ne(truth.keys()) {
        assert!(Instant::now() < deadline, "the poller never caught up");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(polled.follow_stats().refreshes.load(Ordering::Relaxed) > 0);
    assert_eq!(polled.follow_stats().errors.load(Ordering::Relaxed), 0);
    polled.close(); // stops and joins the poller
    drop((manual, w));
    let _ = std::fs::remove_dir_all(&dir);
}
