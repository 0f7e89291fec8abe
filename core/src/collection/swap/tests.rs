//! The tickets' rules: a dropped ticket aborts its swap, an install consumes it, a ticket of
//! another collection, a stale seal copy or a stale or foreign interim ticket is refused.

use super::*;
use crate::ann::IndexParams;
use crate::types::Metric;

fn col(n: u64) -> Collection {
    let mut c = Collection::new(2, Metric::L2).unwrap();
    c.set_deferred_index(true);
    for i in 0..n {
        c.add(vec![VectorId::Int(i)], &[i as f32, 1.0], None)
            .unwrap();
    }
    c
}

/// The segment of `input` as generation `generation`, in memory.
fn segment(input: &SealInput, generation: u64) -> Arc<Segment> {
    let ix = input
        .build_index(IndexParams::default(), &Default::default())
        .unwrap();
    let mut bytes = std::io::Cursor::new(Vec::new());
    crate::segment::write_segment(&mut bytes, generation, &input.rows(), &ix).unwrap();
    let buf = crate::region::AlignedBuf::from_bytes(bytes.get_ref());
    let expect = (generation, input.dim, input.metric);
    Arc::new(Segment::from_backing(Arc::new(buf), expect).unwrap())
}

#[test]
fn one_ticket_at_a_time_and_drop_aborts() {
    let mut c = col(3);
    let t = c.begin_seal(c.seal_input().unwrap()).unwrap();
    assert_eq!(t.input().len(), 3);
    // no second swap while the ticket is out
    assert!(c.seal_input().is_none());
    assert!(c.begin_compaction(&[0]).is_none());
    c.delete(&[VectorId::Int(1)]);
    assert!(c.dirty.busy());
    drop(t); // the build failed: the swap is aborted and tracking stops
    assert!(!c.dirty.busy());
    let t = c.begin_seal(c.seal_input().unwrap()).unwrap();
    assert_eq!(t.input().len(), 2);
}

#[test]
fn install_consumes_the_ticket_and_tombstones_dirty_rows() {
    let mut c = col(3);
    let t = c.begin_seal(c.seal_input().unwrap()).unwrap();
    // written meanwhile: its row in the new segment starts dead, the new version stays
    c.upsert(vec![VectorId::Int(2)], &[9.0, 9.0], None).unwrap();
    let seg = segment(t.input(), 1);
    let out = c.install_sealed(seg, t).unwrap(); // `t` moved: no second install
    assert_eq!(out.new_tombstones, vec![2]);
    assert_eq!(out.moved.len(), 2);
    assert!(!c.dirty.busy());
    assert_eq!((c.len(), c.mutable_len(), c.sealed().len()), (3, 1, 1));
    assert_eq!(&*c.get(&VectorId::Int(2)).unwrap().unwrap().0, &[9.0, 9.0]);

    // a compaction of that segment: a delete meanwhile tombstones its new row
    let t = c.begin_compaction(&[0]).unwrap();
    assert!(c.seal_input().is_none(), "one swap at a time");
    let (input, origin) = SealInput::from_parts(t.parts()).unwrap();
    c.delete(&[VectorId::Int(0)]);
    let out = c
        .install_compacted(Some(segment(&input, 2)), &origin, t)
        .unwrap();
    assert_eq!((out.removed, out.new_tombstones), (vec![1], vec![0]));
    assert_eq!((c.len(), c.sealed().len()), (2, 1));
    assert!(
        c.seal_input().is_some(),
        "the ticket is gone: a new swap may begin"
    );
}

#[test]
fn a_ticket_of_a_replaced_collection_is_refused() {
    let mut a = col(2);
    let mut b = col(2);
    assert!(
        a.begin_compaction(&[]).is_none(),
        "no part: nothing to compact"
    );
    let t = a.begin_seal(a.seal_input().unwrap()).unwrap();
    let seg = segment(t.input(), 1);
    let err = b.install_sealed(seg, t).unwrap_err();
    assert_eq!(err.code(), crate::ErrorCode::Internal);
    assert_eq!(b.sealed().len(), 0);
    assert!(
        !a.dirty.busy(),
        "the refused ticket was dropped: a's swap is aborted"
    );
}

#[test]
fn a_stale_interim_ticket_is_refused() {
    let mut c = col(3);
    let t = c.begin_interim();
    let ix = t
        .input()
        .build_index(IndexParams::default(), &Default::default())
        .unwrap();
    c.delete(&[VectorId::Int(0)]); // no index yet: a swap-remove moves rows
    assert!(!c.install_interim(ix, t));
    let t = c.begin_interim();
    let ix = t
        .input()
        .build_index(IndexParams::default(), &Default::default())
        .unwrap();
    assert!(c.install_interim(ix, t));
    assert!(c.has_index());
}

#[test]
fn a_copy_older_than_the_collection_is_refused() {
    let mut c = col(3);
    let copy = c.seal_input().unwrap();
    // a write between the copy and the begin: nothing tracked it, so the copy is stale
    c.upsert(vec![VectorId::Int(1)], &[7.0, 7.0], None).unwrap();
    assert!(c.begin_seal(copy).is_none());
    assert!(!c.dirty.busy(), "a refused copy tracks nothing");
    let t = c.begin_seal(c.seal_input().unwrap()).unwrap();
    assert_eq!(t.input().len(), 3);
}

#[test]
fn an_interim_ticket_of_another_collection_is_refused() {
    let a = col(3);
    let mut b = col(3);
    let t = a.begin_interim();
    let ix = t
        .input()
        .build_index(IndexParams::default(), &Default::default())
        .unwrap();
    assert!(!b.install_interim(ix, t), "same epoch, other collection");
    assert!(!b.has_index());
}
