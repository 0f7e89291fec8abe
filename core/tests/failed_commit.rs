//! The committer after a failed commit, driven by a store that fails on demand
//! ([`FaultyStore`]): the whole group gets the error, memory is reloaded from the store (so no
//! unacknowledged write stays visible), the writes acknowledged before are intact, and later
//! writes work. For writes (a memory store) and for a seal's manifest transaction (SQLite and
//! segment files).
#![cfg(feature = "durable")]

use std::path::{Path, PathBuf};
use std::sync::mpsc::channel;

use horosvec_core::durable::{DurableCollection, Reply, WriteRequest};
use horosvec_core::segment::segment_file_name;
use horosvec_core::store::{Durability, FaultSwitch, FaultyStore, MemoryStore, SqliteStore};
use horosvec_core::{ErrorCode, Metric, VectorId, WriteKind};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("horosvec-failed-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn put(kind: WriteKind, ids: &[u64], base: f32) -> WriteRequest {
    WriteRequest::Put {
        kind,
        ids: ids.iter().map(|&i| VectorId::Int(i)).collect(),
        vectors: ids
            .iter()
            .flat_map(|&i| [i as f32 + base, 0.5, 1.0])
            .collect(),
        metadata: None,
    }
}

fn wait(f: impl FnOnce(Reply)) -> horosvec_core::Result<usize> {
    let (tx, rx) = channel();
    f(Box::new(move |r| tx.send(r).unwrap()));
    rx.recv().unwrap()
}

fn write(d: &DurableCollection, req: WriteRequest) -> horosvec_core::Result<usize> {
    wait(|r| d.submit(req, r))
}

/// The vector of `id` in memory, if live.
fn vector(d: &DurableCollection, id: u64) -> Option<Vec<f32>> {
    let g = d.shared().read().unwrap();
    let c = g.as_ref().unwrap();
    c.get(&VectorId::Int(id)).unwrap().map(|(v, _)| v.to_vec())
}

fn len(d: &DurableCollection) -> usize {
    d.shared().read().unwrap().as_ref().unwrap().len()
}

#[test]
fn a_failed_group_commit_fails_the_whole_group_and_reloads_memory() {
    let switch = FaultSwitch::new();
    let store = FaultyStore::new(MemoryStore::new(3, Metric::L2), switch.clone());
    let d = DurableCollection::open(store, false, None, Default::default()).unwrap();
    assert_eq!(write(&d, put(WriteKind::Add, &[1, 2], 0.0)).unwrap(), 2);

    // Hold the committer inside the reply of one write, queue three more behind it, then arm
    // the switch and let it go: the three are taken as one group, whose commit fails.
    let (acked_tx, acked_rx) = channel();
    let (gate_tx, gate_rx) = channel::<()>();
    d.submit(
        put(WriteKind::Add, &[3], 0.0),
        Box::new(move |r| {
            acked_tx.send(r).unwrap();
            gate_rx.recv().unwrap();
        }),
    );
    assert_eq!(acked_rx.recv().unwrap().unwrap(), 1);
    let mut replies = Vec::new();
    for req in [
        put(WriteKind::Add, &[10], 0.0),
        put(WriteKind::Upsert, &[1], 100.0),
        WriteRequest::Delete {
            ids: vec![VectorId::Int(2)],
        },
    ] {
        let (tx, rx) = channel();
        d.submit(req, Box::new(move |r| tx.send(r).unwrap()));
        replies.push(rx);
    }
    switch.fail_nth_from_now(1);
    gate_tx.send(()).unwrap();
    for rx in replies {
        assert_eq!(rx.recv().unwrap().unwrap_err().code(), ErrorCode::Io);
    }
    assert_eq!(switch.failed(), 1, "one group, one failed commit");

    // memory was reloaded: the acknowledged writes are intact, none of the group is visible
    assert_eq!(len(&d), 3);
    assert_eq!(vector(&d, 1), Some(vec![1.0, 0.5, 1.0]));
    assert!(vector(&d, 2).is_some());
    assert!(vector(&d, 3).is_some());
    assert!(vector(&d, 10).is_none());

    // and later writes work
    assert_eq!(
        write(&d, put(WriteKind::Upsert, &[1, 11], 50.0)).unwrap(),
        2
    );
    assert_eq!(len(&d), 4);
    assert_eq!(vector(&d, 1), Some(vec![51.0, 0.5, 1.0]));
    assert_eq!(d.commits(), 3);
    d.close();
}

fn open(dir: &Path, switch: &FaultSwitch) -> DurableCollection {
    let s = SqliteStore::open(dir, Some(3), Some(Metric::L2), Durability::Full, false).unwrap();
    let s = FaultyStore::new(s, switch.clone());
    DurableCollection::open(s, false, Some(dir.to_path_buf()), Default::default()).unwrap()
}

#[test]
fn a_failed_swap_commit_keeps_the_records_and_removes_the_segment_file() {
    let dir = tmp("seal");
    let switch = FaultSwitch::new();
    let ids: Vec<u64> = (0..60).collect();
    {
        let d = open(&dir, &switch);
        assert_eq!(write(&d, put(WriteKind::Add, &ids, 0.0)).unwrap(), 60);

        // the seal's manifest transaction fails: the records stay in the mutable segment
        switch.fail_nth_from_now(1);
        let e = wait(|r| d.seal(r)).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Io);
        let s = d.shared().read().unwrap().as_ref().unwrap().stats();
        assert_eq!((s.size, s.sealed_segments, s.mutable_records), (60, 0, 60));
        assert!(
            !dir.join(segment_file_name(1)).exists(),
            "the built file is removed"
        );

        // a later seal works, then a failed write beside the segment leaves its tombstone out
        assert_eq!(wait(|r| d.seal(r)).unwrap(), 60);
        switch.fail_nth_from_now(1);
        let e = write(&d, put(WriteKind::Upsert, &[7], 100.0)).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Io);
        assert_eq!(vector(&d, 7), Some(vec![7.0, 0.5, 1.0]));
        let s = d.shared().read().unwrap().as_ref().unwrap().stats();
        assert_eq!((s.size, s.sealed_segments, s.tombstones), (60, 1, 0));
        assert_eq!(write(&d, put(WriteKind::Upsert, &[7], 100.0)).unwrap(), 1);
        d.close();
    }
    // what was acknowledged is what reopens
    let d = open(&dir, &FaultSwitch::new());
    assert_eq!(len(&d), 60);
    assert_eq!(vector(&d, 7), Some(vec![107.0, 0.5, 1.0]));
    assert_eq!(vector(&d, 8), Some(vec![8.0, 0.5, 1.0]));
    d.close();
    let _ = std::fs::remove_dir_all(&dir);
}
