//! Snapshot format version 5 (segment images read in place): round trip, writes, index
//! operations and a second snapshot of a loaded collection, and damaged forms (with valid
//! checksums) that must fail with `HV_CORRUPT`, never panic.

mod support;
use support::{build_and_install, seeded};

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use horosvec_core::{
    Collection, ErrorCode, Filter, IndexParams, ListQuery, Metric, SearchOptions, VectorId,
    MAX_LIST_LIMIT,
};

const DIM: usize = 16;

fn id(i: u64) -> VectorId {
    if i.is_multiple_of(2) {
        VectorId::Int(i)
    } else {
        VectorId::Str(format!("s{i}"))
    }
}

/// An indexed cosine collection of `n` records with metadata on a third of them.
fn indexed(n: usize) -> Collection {
    let mut c = Collection::new(DIM, Metric::Cosine).unwrap();
    let meta = (0..n)
        .map(|i| (i.is_multiple_of(3)).then(|| format!(r#"{{"g":{},"i":{i}}}"#, i % 5)))
        .collect();
    c.add(
        (0..n as u64).map(id).collect(),
        &seeded(n, DIM, 3),
        Some(meta),
    )
    .unwrap();
    build_and_install(&mut c, 5);
    c
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn le_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// The bytes with their trailing xxh3-64 recomputed.
fn resealed(mut b: Vec<u8>) -> Vec<u8> {
    let n = b.len() - 8;
    let sum = xxhash_rust::xxh3::xxh3_64(&b[..n]);
    b[n..].copy_from_slice(&sum.to_le_bytes());
    b
}

/// `(offset, length)` of part `p`.
fn part(b: &[u8], p: usize) -> (usize, usize) {
    let e = 64 + 32 * p;
    (le_u64(b, e + 8) as usize, le_u64(b, e + 16) as usize)
}

/// `(offset, length)` in the snapshot of section `s` of the segment image at `at`.
fn section(b: &[u8], at: usize, s: usize) -> (usize, usize) {
    let e = at + 80 + 24 * s;
    (at + le_u64(b, e) as usize, le_u64(b, e + 8) as usize)
}

/// Recomputes every section checksum and the header checksum of the segment image at `at`.
fn fix_segment(b: &mut [u8], at: usize) {
    for s in 0..12 {
        let (o, l) = section(b, at, s);
        let crc = crc32fast::hash(&b[o..o + l]);
        let e = at + 80 + 24 * s + 16;
        b[e..e + 4].copy_from_slice(&crc.to_le_bytes());
    }
    let crc = crc32fast::hash(&b[at..at + 508]);
    b[at + 508..at + 512].copy_from_slice(&crc.to_le_bytes());
}

/// Same size, same exact (and, with `approx`, approximate) answers, counts and listings.
fn same_answers(a: &Collection, b: &Collection, approx: bool, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: size");
    for qi in 0..8 {
        let q = seeded(1, DIM, 1000 + qi);
        for exact in [!approx, true] {
            let mut o = SearchOptions::new(10).unwrap();
            o.exact = Some(exact);
            assert_eq!(
                a.search(&q, &o).unwrap(),
                b.search(&q, &o).unwrap(),
                "{what}: exact {exact}"
            );
        }
        let mut o = SearchOptions::new(5).unwrap();
        o.filter = Some(Arc::new(Filter::parse(r#"{"g":{"$in":[1,2]}}"#).unwrap()));
        let (x, y) = (a.search(&q, &o).unwrap(), b.search(&q, &o).unwrap());
        assert_eq!(x.len(), y.len(), "{what}: filtered");
    }
    let f = Filter::parse(r#"{"g":3}"#).unwrap();
    assert_eq!(a.count(Some(&f)), b.count(Some(&f)), "{what}: count");
    let all = |c: &Collection| {
        let mut out = Vec::new();
        let mut after = None;
        loop {
            let page = c
                .list(&ListQuery {
                    filter: None,
                    limit: MAX_LIST_LIMIT,
                    after,
                    include_vectors: true,
                })
                .unwrap();
            out.extend(
                page.records
                    .into_iter()
                    .map(|r| format!("{:?}", (r.id, r.metadata, r.vector))),
            );
            match page.cursor {
                Some(c) => after = Some(c),
                None => return out,
            }
        }
    };
    assert_eq!(all(a), all(b), "{what}: list");
}

#[test]
fn version_5_round_trips_in_place_and_writes_again_the_same_bytes() {
    let mut c = indexed(3000);
    c.delete(&[id(10), id(11)]); // tombstones: consolidated into the snapshot
    let bytes = c.to_bytes().unwrap();
    assert_eq!(&bytes[..8], b"HVSNAP01");
    assert_eq!(le_u32(&bytes, 8), 5);
    let (at, _) = part(&bytes, 0);
    assert_eq!(at % 64, 0);
    assert_eq!(&bytes[at..at + 8], b"HVSEG002");
    let mut d = Collection::from_bytes(&bytes).unwrap();
    let s = d.stats();
    assert_eq!((s.sealed_segments, s.mutable_records), (1, 0));
    assert_eq!(
        s.mode,
        c.stats().mode,
        "the loaded parts report their index's mode"
    );
    assert!(d.has_index());
    same_answers(&c, &d, true, "loaded");
    assert_eq!(d.seq_of(&id(12)), c.seq_of(&id(12)));
    assert_eq!(d.get(&id(3)).unwrap(), c.get(&id(3)).unwrap());
    assert_eq!(
        d.to_bytes().unwrap(),
        bytes,
        "a snapshot of a loaded snapshot"
    );
    // the record stream of the same collection still loads, and answers the same
    let v3 = c.to_bytes_stream().unwrap();
    assert_eq!(le_u32(&v3, 8), 3);
    same_answers(&d, &Collection::from_bytes(&v3).unwrap(), true, "version 3");
}

#[test]
fn a_loaded_collection_takes_writes_and_index_operations() {
    let mut c = indexed(2500);
    let mut d = Collection::from_bytes(&c.to_bytes().unwrap()).unwrap();
    // adds, upserts of loaded records, deletes of loaded and added records, on both
    for x in [&mut c, &mut d] {
        x.add(
            (5000..5100u64).map(id).collect(),
            &seeded(100, DIM, 7),
            Some(vec![Some(r#"{"g":3}"#.into()); 100]),
        )
        .unwrap();
        x.upsert((0..40u64).map(id).collect(), &seeded(40, DIM, 8), None)
            .unwrap();
        assert_eq!(x.delete(&[id(41), id(42), id(5001), id(999_999)]), 3);
    }
    assert_eq!(
        d.stats().tombstones,
        42,
        "40 upserted and 2 deleted loaded rows"
    );
    same_answers(&c, &d, false, "after writes");
    // a snapshot of the loaded, written collection: the part with its tombstones, the records
    let again = d.to_bytes().unwrap();
    assert_eq!(le_u32(&again, 8), 5);
    assert_eq!(le_u32(&again, 32), 2, "a segment image and a records part");
    let e = Collection::from_bytes(&again).unwrap();
    same_answers(&c, &e, false, "snapshot of the written collection");
    // enough records beside the parts: they get an index of their own
    let n = 2_100u64;
    for x in [&mut c, &mut d] {
        x.add(
            (10_000..10_000 + n).map(id).collect(),
            &seeded(n as usize, DIM, 9),
            None,
        )
        .unwrap();
    }
    assert!(d.stats().mutable_indexed > 2_000);
    let o = SearchOptions::new(10).unwrap();
    assert_eq!(d.search(&seeded(1, DIM, 5), &o).unwrap().len(), 10);
    // exportGraph and buildIndex move every record into memory first
    let mut f = Collection::from_bytes(&indexed(2500).to_bytes().unwrap()).unwrap();
    let mut g = indexed(2500);
    let (ef, eg) = (f.export_graph().unwrap(), g.export_graph().unwrap());
    assert_eq!((ef.adjacency, ef.ids), (eg.adjacency, eg.ids));
    assert_eq!(f.stats().sealed_segments, 0);
    same_answers(&f, &g, true, "moved into memory");
    let mut h = Collection::from_bytes(&indexed(2500).to_bytes().unwrap()).unwrap();
    h.unseal().unwrap();
    let (ix, v) = h
        .build_index(
            IndexParams {
                seed: 5,
                ..IndexParams::default()
            },
            &|_, _| {},
            &AtomicBool::new(false),
        )
        .unwrap();
    h.install_index(ix, v).unwrap();
    same_answers(&h, &g, true, "rebuilt");
}

#[test]
fn damaged_version_5_snapshots_fail_with_hv_corrupt() {
    let mut c = indexed(2200);
    c.delete(&[id(4)]);
    let mut d = Collection::from_bytes(&c.to_bytes().unwrap()).unwrap();
    d.delete(&[id(6)]);
    d.add(vec![id(10_000)], &seeded(1, DIM, 1), None).unwrap();
    let good = d.to_bytes().unwrap();
    assert!(Collection::from_bytes(&good).is_ok());
    for cut in [0, 12, 64, 100, good.len() / 2, good.len() - 1] {
        let e = Collection::from_bytes(&good[..cut]).err().unwrap();
        assert_eq!(e.code(), ErrorCode::Corrupt, "cut at {cut}: {e}");
    }
    for at in [20, 70, 600, good.len() / 2, good.len() - 3] {
        let mut b = good.clone();
        b[at] ^= 0x08;
        let e = Collection::from_bytes(&b).err().unwrap();
        assert_eq!(e.code(), ErrorCode::Corrupt, "flip at {at}: {e}");
    }
    let mut v = good.clone();
    v[8] = 6;
    assert_eq!(
        Collection::from_bytes(&v).err().unwrap().code(),
        ErrorCode::Version
    );
    let (seg, _) = part(&good, 0);
    let n = le_u64(&good, seg + 24) as usize;
    let r = le_u32(&good, seg + 32) as usize;
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    // a neighbour out of range (the graph is not checksummed at open: checked edge by edge)
    let (g, _) = section(&good, seg, 10);
    let mut b = good.clone();
    b[g..g + 4].copy_from_slice(&1u32.to_le_bytes());
    b[g + 4..g + 8].copy_from_slice(&(n as u32 + 7).to_le_bytes());
    cases.push(("neighbour", b));
    let mut b = good.clone();
    b[g..g + 4].copy_from_slice(&(r as u32 + 1).to_le_bytes());
    cases.push(("degree", b));
    // a NaN factor in the codes
    let (codes, len) = section(&good, seg, 9);
    let mut b = good.clone();
    b[codes + len - 4..codes + len].copy_from_slice(&f32::NAN.to_le_bytes());
    cases.push(("factor", b));
    // codes of other vectors (all bits flipped)
    let mut b = good.clone();
    for x in &mut b[codes..codes + len] {
        *x = !*x;
    }
    cases.push(("codes", b));
    // an id order that is not sorted (its checksum fixed, so the structure check must see it)
    let (order, _) = section(&good, seg, 5);
    let mut b = good.clone();
    b.copy_within(order..order + 4, order + 4);
    fix_segment(&mut b, seg);
    cases.push(("id order", b));
    // a tombstone out of range
    let tomb = le_u64(&good, 64 + 24) as usize;
    let mut b = good.clone();
    b[tomb..tomb + 4].copy_from_slice(&(n as u32).to_le_bytes());
    cases.push(("tombstone", b));
    // a part table entry misplaced or out of bounds, another count, an unknown kind
    let mut b = good.clone();
    b[64 + 8..64 + 16].copy_from_slice(&((seg + 4) as u64).to_le_bytes());
    cases.push(("misaligned part", b));
    let mut b = good.clone();
    b[64 + 16..64 + 24].copy_from_slice(&(u64::MAX - 8).to_le_bytes());
    cases.push(("part length", b));
    let mut b = good.clone();
    b[24..32].copy_from_slice(&(d.len() as u64 + 1).to_le_bytes());
    cases.push(("count", b));
    let mut b = good.clone();
    b[64..68].copy_from_slice(&9u32.to_le_bytes());
    cases.push(("kind", b));
    let mut b = good.clone();
    b[32..36].copy_from_slice(&u32::MAX.to_le_bytes());
    cases.push(("parts", b));
    // the segment's header checksum
    let mut b = good.clone();
    b[seg + 16] ^= 1;
    cases.push(("segment header", b));
    // the records part's id duplicates a loaded one
    let (rec, rlen) = part(&good, 1);
    let mut b = good.clone();
    let mut stream = b[rec..rec + rlen - 4].to_vec();
    // the stream's first record: kind at 32, then the id (an integer: 10000 → 0)
    assert_eq!(stream[32], 1);
    stream[33..41].copy_from_slice(&0u64.to_le_bytes());
    let crc = crc32fast::hash(&stream);
    b[rec..rec + rlen - 4].copy_from_slice(&stream);
    b[rec + rlen - 4..rec + rlen].copy_from_slice(&crc.to_le_bytes());
    cases.push(("duplicate id", b));
    for (what, b) in cases {
        let e = Collection::from_bytes(&resealed(b))
            .err()
            .unwrap_or_else(|| panic!("{what}: loaded"));
        assert_eq!(e.code(), ErrorCode::Corrupt, "{what}: {e}");
    }
}
