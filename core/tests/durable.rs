//! Durable collections: the SQLite record store, the committer (group commit) and reopen.
#![cfg(feature = "durable")]

use std::sync::mpsc::channel;
use std::sync::Arc;

use horosvec_core::durable::{DurableCollection, WriteRequest};
use horosvec_core::store::{Durability, SqliteStore, DB_FILE};
use horosvec_core::{ErrorCode, Metric, SearchOptions, VectorId, WriteKind};

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("horosvec-durable-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn open(dir: &std::path::Path) -> DurableCollection {
    open_with(dir, Durability::Full)
}

fn open_with(dir: &std::path::Path, durability: Durability) -> DurableCollection {
    let s = SqliteStore::open(dir, Some(3), Some(Metric::L2), durability, false).unwrap();
    DurableCollection::open(s, false, Some(dir.to_path_buf()), Default::default()).unwrap()
}

/// Submits and waits.
fn write(d: &DurableCollection, req: WriteRequest) -> horosvec_core::Result<usize> {
    let (tx, rx) = channel();
    d.submit(req, Box::new(move |r| tx.send(r).unwrap()));
    rx.recv().unwrap()
}

fn put(kind: WriteKind, ids: &[u64], base: f32) -> WriteRequest {
    WriteRequest::Put {
        kind,
        ids: ids.iter().map(|&i| VectorId::Int(i)).collect(),
        vectors: ids
            .iter()
            .flat_map(|&i| [i as f32 + base, 0.0, 1.0])
            .collect(),
        metadata: Some(ids.iter().map(|i| Some(format!("{{\"i\":{i}}}"))).collect()),
    }
}

#[test]
fn writes_survive_reopen_with_sequences_and_metadata() {
    let dir = tmp("reopen");
    {
        let d = open(&dir);
        assert_eq!(write(&d, put(WriteKind::Add, &[1, 2, 3], 0.0)).unwrap(), 3);
        assert_eq!(write(&d, put(WriteKind::Upsert, &[2], 10.0)).unwrap(), 1);
        assert_eq!(
            write(
                &d,
                WriteRequest::Delete {
                    ids: vec![VectorId::Int(3), VectorId::Int(99)]
                }
            )
            .unwrap(),
            1
        );
        // a failing request changes nothing, in memory or on disk
        let e = write(&d, put(WriteKind::Add, &[4, 1], 0.0)).unwrap_err();
        assert_eq!(e.code(), ErrorCode::DuplicateId);
        d.close();
    }
    let d = open(&dir);
    let g = d.shared().read().unwrap();
    let c = g.as_ref().unwrap();
    assert_eq!(c.len(), 2);
    assert!(!c.contains(&VectorId::Int(4)));
    let (v, m) = c.get(&VectorId::Int(2)).unwrap().unwrap();
    assert_eq!(&*v, &[12.0, 0.0, 1.0]);
    assert_eq!(m.as_deref(), Some("{\"i\":2}"));
    // the upserted record keeps its original sequence (tie-break rank)
    assert!(c.seq_of(&VectorId::Int(1)).unwrap() < c.seq_of(&VectorId::Int(2)).unwrap());
    let hits = c
        .search(&[1.0, 0.0, 1.0], &SearchOptions::new(2).unwrap())
        .unwrap();
    assert_eq!(hits[0].id, VectorId::Int(1));
    drop(g);
    d.close();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn concurrent_writers_share_commits_and_all_land() {
    let dir = tmp("group");
    let d = Arc::new(open(&dir));
    let (tx, rx) = channel();
    // hold the collection's write lock: the committer stops at its first group while the other
    // requests queue up, so they must be committed together afterwards
    let guard = d.shared().write().unwrap();
    for i in 0..200u64 {
        let tx = tx.clone();
        d.submit(
            put(WriteKind::Add, &[i], 0.0),
            Box::new(move |r| tx.send(r).unwrap()),
        );
    }
    std::thread::sleep(std::time::Duration::from_millis(50));
    drop(guard);
    drop(tx);
    let results: Vec<_> = rx.iter().collect();
    assert_eq!(results.len(), 200);
    assert!(results.iter().all(|r| r.as_ref().is_ok_and(|&n| n == 1)));
    assert!(
        d.commits() <= 3,
        "200 queued writes took {} commits",
        d.commits()
    );
    d.close();
    let d = open(&dir);
    assert_eq!(d.shared().read().unwrap().as_ref().unwrap().len(), 200);
    d.close();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn one_writer_per_directory_and_read_only_views() {
    let dir = tmp("lock");
    let d = open(&dir);
    write(&d, put(WriteKind::Add, &[1], 0.0)).unwrap();
    let e = SqliteStore::open(&dir, None, None, Durability::Full, false)
        .err()
        .unwrap();
    assert_eq!(e.code(), ErrorCode::Locked);
    let ro = DurableCollection::open(
        SqliteStore::open(&dir, None, None, Durability::Full, true).unwrap(),
        true,
        Some(dir.clone()),
        Default::default(),
    )
    .unwrap();
    assert_eq!(ro.shared().read().unwrap().as_ref().unwrap().len(), 1);
    assert_eq!(
        write(&ro, put(WriteKind::Add, &[2], 0.0))
            .unwrap_err()
            .code(),
        ErrorCode::ReadOnly
    );
    d.close();
    // the lock is released by close
    let d2 = open(&dir);
    d2.close();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_files_and_options_give_stable_codes() {
    let dir = tmp("bad");
    // options that differ from the stored ones
    open(&dir).close();
    let e = SqliteStore::open(&dir, Some(4), None, Durability::Full, false)
        .err()
        .unwrap();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    let e = SqliteStore::open(&dir, None, Some(Metric::Cosine), Durability::Full, false)
        .err()
        .unwrap();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    // a flipped bit inside a stored vector fails the record's checksum
    {
        let d = open(&dir);
        write(&d, put(WriteKind::Add, &[1], 0.0)).unwrap();
        d.close();
        let c = rusqlite::Connection::open(dir.join(DB_FILE)).unwrap();
        let mut v: Vec<u8> = c
            .query_row("SELECT vector FROM records", [], |r| r.get(0))
            .unwrap();
        v[1] ^= 0x01;
        c.execute("UPDATE records SET vector = ?1", [v]).unwrap();
    }
    let s = SqliteStore::open(&dir, None, None, Durability::Full, false).unwrap();
    let e = DurableCollection::open(s, false, Some(dir.clone()), Default::default())
        .err()
        .unwrap();
    assert_eq!(e.code(), ErrorCode::Corrupt, "{e}");
    // another format version
    {
        let c = rusqlite::Connection::open(dir.join(DB_FILE)).unwrap();
        c.execute(
            "UPDATE meta SET value = '99' WHERE key = 'format_version'",
            [],
        )
        .unwrap();
    }
    let e = SqliteStore::open(&dir, None, None, Durability::Full, false)
        .err()
        .unwrap();
    assert_eq!(e.code(), ErrorCode::Version);
    // a foreign file
    std::fs::write(
        dir.join(DB_FILE),
        b"this is not a database at all, just text, long enough to look like a header.....",
    )
    .unwrap();
    let _ = std::fs::remove_file(dir.join(format!("{DB_FILE}-wal")));
    let _ = std::fs::remove_file(dir.join(format!("{DB_FILE}-shm")));
    let e = SqliteStore::open(&dir, None, None, Durability::Full, false)
        .err()
        .unwrap();
    assert_eq!(e.code(), ErrorCode::Corrupt, "{e}");
    // no collection and no dim
    let e = SqliteStore::open(&tmp("none"), None, None, Durability::Full, false)
        .err()
        .unwrap();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    // a path under a regular file cannot be created
    let e = SqliteStore::open(
        &dir.join(DB_FILE).join("sub"),
        Some(3),
        None,
        Durability::Full,
        false,
    )
    .err()
    .unwrap();
    assert_eq!(e.code(), ErrorCode::Io);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Writes committed on the caller's thread (`submit_now`) answer as `submit` does, keep the
/// call order with queued writes, are durable, and give the request back when it cannot be
/// committed now (read-only answers at once; after close the request comes back and `submit`
/// answers `HV_CLOSED`).
#[test]
fn submit_now_commits_on_the_callers_thread_in_call_order() {
    let dir = tmp("now");
    let now = |d: &DurableCollection, req| match d.submit_now(req) {
        Ok(r) => r,
        Err(req) => write(d, req), // the committer was busy: queued instead
    };
    {
        // durability off: a commit writes without a sync, so its time stays far below the 1 ms
        // average past which writes go to the committer (pace.rs) even on a loaded machine, where
        // synced commits on this disk can average more and no write would be committed here
        let d = open_with(&dir, Durability::Off);
        assert_eq!(now(&d, put(WriteKind::Add, &[1, 2], 0.0)).unwrap(), 2);
        let e = now(&d, put(WriteKind::Add, &[3, 1], 0.0)).unwrap_err();
        assert_eq!(e.code(), ErrorCode::DuplicateId);
        // queued writes, then one submitted now: it is applied after them, whichever thread
        // commits it
        let (tx, rx) = channel();
        for base in [20.0, 30.0] {
            let tx = tx.clone();
            d.submit(
                put(WriteKind::Upsert, &[2], base),
                Box::new(move |r| tx.send(r).unwrap()),
            );
        }
        assert_eq!(now(&d, put(WriteKind::Upsert, &[2], 40.0)).unwrap(), 1);
        assert_eq!(rx.recv().unwrap().unwrap(), 1);
        assert_eq!(rx.recv().unwrap().unwrap(), 1);
        let del = WriteRequest::Delete {
            ids: vec![VectorId::Int(1), VectorId::Int(7)],
        };
        assert_eq!(now(&d, del).unwrap(), 1);
        // most of these are committed on this thread, each with its own transaction
        let before = d.commits();
        let mut inline = 0;
        for i in 10..60 {
            let r = match d.submit_now(put(WriteKind::Add, &[i], 0.0)) {
                Ok(r) => {
                    inline += 1;
                    r
                }
                Err(req) => {
                    // queued: its answer comes while the committer still ends its round under
                    // the lock, which the next write would find taken, and so on; let it finish
                    let r = write(&d, req);
                    std::thread::sleep(std::time::Duration::from_millis(2));
                    r
                }
            };
            assert_eq!(r.unwrap(), 1);
        }
        assert_eq!(d.commits() - before, 50);
        assert!(inline > 0, "no write was committed on the caller's thread");
        d.close();
        let back = d.submit_now(put(WriteKind::Add, &[99], 0.0)).unwrap_err();
        assert_eq!(write(&d, back).unwrap_err().code(), ErrorCode::Closed);
    }
    let d = open(&dir);
    let g = d.shared().read().unwrap();
    let col = g.as_ref().unwrap();
    assert_eq!(col.len(), 51);
    assert!(col.get(&VectorId::Int(1)).unwrap().is_none());
    let (two, _) = col.get(&VectorId::Int(2)).unwrap().unwrap();
    assert_eq!(&*two, &[42.0, 0.0, 1.0]);
    drop(g);
    d.close();
    let s = SqliteStore::open(&dir, None, None, Durability::Full, true).unwrap();
    let ro = DurableCollection::open(s, true, Some(dir.clone()), Default::default()).unwrap();
    let e = ro
        .submit_now(put(WriteKind::Add, &[5], 0.0))
        .ok()
        .unwrap()
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::ReadOnly);
    ro.close();
    std::fs::remove_dir_all(&dir).unwrap();
}
