//! `HVSNAP01` snapshots: round trip with the index, its codes and the metadata index, versions 1
//! and 2 compatibility, and every damaged form fails with a code. The record stream (version 3)
//! is written by `to_bytes_stream` (`to_bytes` writes version 5 for an indexed collection:
//! `snapshot_parts.rs`).

mod support;
use support::{build_and_install, seeded};

use std::sync::atomic::AtomicBool;

use std::sync::Arc;

use horosvec_core::{Collection, ErrorCode, Filter, IndexParams, Metric, SearchOptions, VectorId};

fn indexed(n: usize, dim: usize) -> Collection {
    let mut c = Collection::new(dim, Metric::L2).unwrap();
    let ids: Vec<VectorId> = (0..n as u64)
        .map(|i| {
            if i % 2 == 0 {
                VectorId::Int(i)
            } else {
                VectorId::Str(format!("s{i}"))
            }
        })
        .collect();
    let meta = (0..n)
        .map(|i| (i % 3 == 0).then(|| format!("{{\"i\":{i}}}")))
        .collect();
    c.add(ids, &seeded(n, dim, 3), Some(meta)).unwrap();
    build_and_install(&mut c, 5);
    c
}

#[test]
fn round_trip_keeps_records_and_index() {
    let mut c = indexed(2500, 24);
    c.delete(&[VectorId::Int(10)]);
    let bytes = c.to_bytes().unwrap();
    let mut d = Collection::from_bytes(&bytes).unwrap();
    assert_eq!(d.len(), 2499);
    assert!(d.has_index());
    assert_eq!(d.stats().mode, c.stats().mode);
    assert_eq!(
        d.get(&VectorId::from("s3")).unwrap(),
        c.get(&VectorId::from("s3")).unwrap()
    );
    assert_eq!(d.seq_of(&VectorId::Int(12)), c.seq_of(&VectorId::Int(12)));
    let q = seeded(1, 24, 99);
    let o = SearchOptions::new(10).unwrap();
    assert_eq!(d.search(&q, &o).unwrap(), c.search(&q, &o).unwrap());
    assert_eq!(
        d.to_bytes().unwrap(),
        bytes,
        "a snapshot of a loaded snapshot is the same bytes"
    );
}

#[test]
fn damaged_snapshots_fail_with_codes() {
    let mut c = indexed(2100, 8);
    let good = c.to_bytes().unwrap();
    for cut in [0, 7, 8, 12, 40, good.len() / 2, good.len() - 1] {
        let e = Collection::from_bytes(&good[..cut]).err().unwrap();
        assert_eq!(e.code(), ErrorCode::Corrupt, "cut at {cut}: {e}");
    }
    for at in [16, 30, 200, good.len() - 10] {
        let mut b = good.clone();
        b[at] ^= 0x40;
        assert_eq!(
            Collection::from_bytes(&b).err().unwrap().code(),
            ErrorCode::Corrupt,
            "flip at {at}"
        );
    }
    let mut v = good.clone();
    v[8] = 9;
    assert_eq!(
        Collection::from_bytes(&v).err().unwrap().code(),
        ErrorCode::Version
    );
}

#[test]
fn short_string_ids_and_empty_indexes_round_trip() {
    let mut c = Collection::new(2, Metric::L2).unwrap();
    c.add(
        vec![VectorId::from(""), VectorId::from("a"), VectorId::Int(1)],
        &[0.0, 1.0, 1.0, 0.0, 1.0, 1.0],
        None,
    )
    .unwrap();
    let d = Collection::from_bytes(&c.to_bytes().unwrap()).unwrap();
    assert_eq!(d.len(), 3);
    assert!(d.contains(&VectorId::from("")));
    // an index over no live record: export and snapshot work, nothing panics
    let mut e = Collection::new(2, Metric::L2).unwrap();
    let (ix, v) = e
        .build_index(IndexParams::default(), &|_, _| {}, &AtomicBool::new(false))
        .unwrap();
    e.install_index(ix, v).unwrap();
    let g = e.export_graph().unwrap();
    assert!(g.adjacency.is_empty() && g.ids.is_empty());
    assert_eq!(
        Collection::from_bytes(&e.to_bytes().unwrap())
            .unwrap()
            .len(),
        0
    );
    let mut f = indexed(2100, 4);
    let all: Vec<VectorId> = (0..2100u64)
        .map(|i| {
            if i % 2 == 0 {
                VectorId::Int(i)
            } else {
                VectorId::Str(format!("s{i}"))
            }
        })
        .collect();
    f.delete(&all);
    assert!(f.export_graph().unwrap().ids.is_empty());
    f.add(vec![VectorId::Int(7)], &[1.0, 2.0, 3.0, 4.0], None)
        .unwrap();
    assert_eq!(f.len(), 1);
}

/// Splits a version-2 snapshot of `n` records (index present, metric other than L1) into the
/// bytes before its codes section and the record width of that section.
fn codes_section(bytes: &[u8], n: usize, dim: usize) -> (usize, usize) {
    let body = bytes.len() - 4;
    (1..=256)
        .find_map(|words| {
            let at = body.checked_sub(n * words * 8 + 4 + 4 * dim)?;
            let w = u32::from_le_bytes(bytes[at + 4 * dim..at + 4 * dim + 4].try_into().unwrap())
                as usize;
            (w == words).then_some((at, words))
        })
        .expect("a codes section")
}

fn with_crc(mut body: Vec<u8>) -> Vec<u8> {
    let crc = crc32fast::hash(&body);
    body.extend_from_slice(&crc.to_le_bytes());
    body
}

#[test]
fn version_2_stores_the_codes_and_version_1_still_loads() {
    let (n, dim) = (2200, 24);
    let mut c = indexed(n, dim);
    // rows added after the build: their codes use the build's centroid, which a re-encode would not
    c.add(
        (0..50u64).map(|i| VectorId::Int(100_000 + i)).collect(),
        &seeded(50, dim, 8),
        None,
    )
    .unwrap();
    let n = n + 50;
    let v3 = c.to_bytes_stream().unwrap();
    assert_eq!(u32::from_le_bytes(v3[8..12].try_into().unwrap()), 3);
    let v2 = as_version_2(&v3, dim);
    let o = SearchOptions::new(10).unwrap();
    let queries: Vec<Vec<f32>> = (0..20).map(|i| seeded(1, dim, 1000 + i)).collect();
    let mut d = Collection::from_bytes(&v2).unwrap();
    for q in &queries {
        assert_eq!(
            d.search(q, &o).unwrap(),
            c.search(q, &o).unwrap(),
            "the stored codes give the same answers"
        );
    }
    assert_eq!(d.to_bytes_stream().unwrap(), v3);

    // the same snapshot as version 1 (no codes section): loads, codes recomputed
    let (at, _) = codes_section(&v2, n, dim);
    let mut v1 = v2[..at].to_vec();
    v1[8..12].copy_from_slice(&1u32.to_le_bytes());
    let mut e = Collection::from_bytes(&with_crc(v1)).unwrap();
    assert_eq!(e.len(), n);
    assert!(e.has_index());
    let hits = e.search(&queries[0], &o).unwrap();
    assert_eq!(hits.len(), 10);
    assert_eq!(
        u32::from_le_bytes(e.to_bytes_stream().unwrap()[8..12].try_into().unwrap()),
        3,
        "written back as version 3"
    );

    // damaged codes sections with a valid checksum: a clear HV_CORRUPT
    let (at, words) = codes_section(&v2, n, dim);
    let body = &v2[..v2.len() - 4];
    let w = at + 4 * dim;
    let mut wrong_width = body.to_vec();
    wrong_width[w..w + 4].copy_from_slice(&(words as u32 + 1).to_le_bytes());
    let short = body[..body.len() - 8].to_vec();
    let mut nan_centroid = body.to_vec();
    nan_centroid[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    let mut huge_centroid = body.to_vec();
    huge_centroid[at..at + 4].copy_from_slice(&3e38f32.to_le_bytes());
    let mut nan_factor = body.to_vec();
    let last = nan_factor.len() - 4; // the error factor of the last record
    nan_factor[last..].copy_from_slice(&f32::NAN.to_le_bytes());
    // the codes of the same rows made with another seed (another rotation): every size matches
    let mut other = Collection::new(dim, Metric::L2).unwrap();
    let mut rows = seeded(n - 50, dim, 3);
    rows.extend(seeded(50, dim, 8));
    other
        .add((0..n as u64).map(VectorId::Int).collect(), &rows, None)
        .unwrap();
    let (ix, ver) = other
        .build_index(
            IndexParams {
                seed: 6,
                ..IndexParams::default()
            },
            &|_, _| {},
            &AtomicBool::new(false),
        )
        .unwrap();
    other.install_index(ix, ver).unwrap();
    let theirs = other.to_bytes_stream().unwrap();
    let (their_at, _) = codes_section(&theirs, n, dim);
    let mut other_seed = body[..at].to_vec();
    other_seed.extend_from_slice(&theirs[their_at..theirs.len() - 4]);
    assert_eq!(other_seed.len(), body.len());
    let no_codes = body[..at].to_vec();
    for (what, b) in [
        ("record width", wrong_width),
        ("truncated", short),
        ("centroid", nan_centroid),
        ("huge centroid", huge_centroid),
        ("factor", nan_factor),
        ("another seed", other_seed),
        ("missing", no_codes),
    ] {
        let e = Collection::from_bytes(&with_crc(b))
            .err()
            .unwrap_or_else(|| panic!("{what}: loaded"));
        assert_eq!(e.code(), ErrorCode::Corrupt, "{what}: {e}");
    }
}

/// The end of the records of a snapshot (its metadata index starts there in version 3).
fn records_end(b: &[u8], dim: usize) -> usize {
    let u32_at = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize;
    let count = u64::from_le_bytes(b[24..32].try_into().unwrap());
    let mut at = 32;
    for _ in 0..count {
        at += 1 + if b[at] == 1 { 8 } else { 4 + u32_at(at + 1) };
        at += 8; // seq
        let m = u32_at(at);
        at += 4 + if m == u32::MAX as usize { 0 } else { m };
        at += 4 * dim;
    }
    at
}

/// A version-3 snapshot as version 2 wrote it: without the metadata index and its flag.
fn as_version_2(v3: &[u8], dim: usize) -> Vec<u8> {
    assert_eq!(u32::from_le_bytes(v3[8..12].try_into().unwrap()), 3);
    let at = records_end(v3, dim);
    let len = u64::from_le_bytes(v3[at..at + 8].try_into().unwrap()) as usize;
    let mut b = v3[..at].to_vec();
    b.extend_from_slice(&v3[at + 8 + len..v3.len() - 4]);
    b[8..12].copy_from_slice(&2u32.to_le_bytes());
    b[12] &= !2;
    with_crc(b)
}

/// A collection of `n` records with metadata (some without), `rounds` of deletes and upserts.
fn with_metadata(n: usize, dim: usize, index: bool) -> Collection {
    let mut c = Collection::new(dim, Metric::Cosine).unwrap();
    let meta = (0..n)
        .map(|i| {
            (i % 11 != 0).then(|| {
                format!(
                    r#"{{"g":{},"r":{},"tags":["t{}","u"],"user":{{"id":"u{}"}}}}"#,
                    i % 5,
                    (i * 7919) % 1000,
                    i % 3,
                    i % 17
                )
            })
        })
        .collect();
    c.add(
        (0..n as u64).map(VectorId::Int).collect(),
        &seeded(n, dim, 4),
        Some(meta),
    )
    .unwrap();
    if index {
        let (ix, v) = c
            .build_index(IndexParams::default(), &|_, _| {}, &AtomicBool::new(false))
            .unwrap();
        c.install_index(ix, v).unwrap();
    }
    // history: deletes and upserts (tombstones, moved rows, removed index entries)
    c.delete(
        &(0..n as u64)
            .step_by(13)
            .map(VectorId::Int)
            .collect::<Vec<_>>(),
    );
    c.upsert(
        (0..n as u64).step_by(29).map(VectorId::Int).collect(),
        &seeded(n.div_ceil(29), dim, 6),
        Some(vec![
            Some(r#"{"g":9,"tags":["new"]}"#.into());
            n.div_ceil(29)
        ]),
    )
    .unwrap();
    c
}

const FILTERS: &[&str] = &[
    r#"{"g":1}"#,
    r#"{"g":9}"#,
    r#"{"r":{"$gte":100,"$lt":300}}"#,
    r#"{"tags":{"$contains":"t2"}}"#,
    r#"{"user.id":{"$in":["u3","u4"]}}"#,
    r#"{"g":{"$exists":false}}"#,
    r#"{"$not":{"tags":"u"}}"#,
];

fn assert_same_filters(a: &Collection, b: &Collection, dim: usize, what: &str) {
    let q = seeded(1, dim, 77);
    for f in FILTERS {
        let filter = Filter::parse(f).unwrap();
        assert_eq!(
            a.count(Some(&filter)),
            b.count(Some(&filter)),
            "{what}: {f}"
        );
        let mut o = SearchOptions::new(10).unwrap();
        o.filter = Some(Arc::new(filter));
        o.exact = Some(true);
        assert_eq!(
            a.search(&q, &o).unwrap(),
            b.search(&q, &o).unwrap(),
            "{what}: {f}"
        );
    }
}

#[test]
fn snapshots_carry_the_metadata_index_and_older_versions_rebuild_it() {
    let dim = 12;
    for index in [false, true] {
        let what = if index { "indexed" } else { "flat" };
        let mut c = with_metadata(2300, dim, index);
        let v3 = c.to_bytes_stream().unwrap();
        assert_eq!(u32::from_le_bytes(v3[8..12].try_into().unwrap()), 3);
        assert_eq!(v3[12] & 2, 2, "the metadata index flag");
        let mut d = Collection::from_bytes(&v3).unwrap();
        assert_same_filters(&c, &d, dim, what);
        assert!(d.count(Some(&Filter::parse(FILTERS[1]).unwrap())) > 0);
        assert_eq!(
            d.to_bytes_stream().unwrap(),
            v3,
            "{what}: the same bytes again"
        );
        // the installed index keeps being maintained
        for x in [&mut c, &mut d] {
            x.add(
                vec![VectorId::Int(1_000_000)],
                &seeded(1, dim, 9),
                Some(vec![Some(r#"{"g":9}"#.into())]),
            )
            .unwrap();
            x.delete(&[VectorId::Int(29)]);
        }
        assert_same_filters(&c, &d, dim, what);
        c.delete(&[VectorId::Int(1_000_000)]);
        d.delete(&[VectorId::Int(1_000_000)]);
        c.add(vec![VectorId::Int(29)], &seeded(1, dim, 5), None)
            .unwrap();
        d.add(vec![VectorId::Int(29)], &seeded(1, dim, 5), None)
            .unwrap();

        // version 2 and version 1 (no metadata index): the index is built from the metadata
        let v3 = c.to_bytes_stream().unwrap();
        let v2 = as_version_2(&v3, dim);
        let e = Collection::from_bytes(&v2).unwrap();
        assert_same_filters(&c, &e, dim, &format!("{what} v2"));
        let mut v1 = v2[..v2.len() - 4].to_vec();
        if index {
            let n = c.len();
            let (at, _) = codes_section(&v2, n, dim);
            v1.truncate(at);
        }
        v1[8..12].copy_from_slice(&1u32.to_le_bytes());
        let mut f = Collection::from_bytes(&with_crc(v1)).unwrap();
        assert_same_filters(&c, &f, dim, &format!("{what} v1"));
        assert_eq!(f.to_bytes_stream().unwrap()[8..12], 3u32.to_le_bytes());

        // damaged metadata indexes with a valid checksum: HV_CORRUPT
        let body = &v3[..v3.len() - 4];
        let at = records_end(&v3, dim);
        let len = u64::from_le_bytes(v3[at..at + 8].try_into().unwrap()) as usize;
        let mut universe = body.to_vec();
        universe[at + 8 + 1] ^= 1; // the universe's first varint byte: another row count
        let mut length = body.to_vec();
        length[at..at + 8].copy_from_slice(&(len as u64 + 1).to_le_bytes());
        let mut huge = body.to_vec();
        huge[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        let mut flag_v2 = as_version_2(&v3, dim);
        flag_v2.truncate(flag_v2.len() - 4);
        flag_v2[12] |= 2;
        let mut tail = body.to_vec();
        tail[at + 8 + len - 1] ^= 0x55; // the last posting
        for (name, b) in [
            ("universe", universe),
            ("length", length),
            ("huge length", huge),
            ("flag in version 2", flag_v2),
        ] {
            let e = Collection::from_bytes(&with_crc(b))
                .err()
                .unwrap_or_else(|| panic!("{what} {name}: loaded"));
            assert_eq!(e.code(), ErrorCode::Corrupt, "{what} {name}: {e}");
        }
        // a flipped posting either fails a check or decodes into another valid index
        if let Err(e) = Collection::from_bytes(&with_crc(tail)) {
            assert_eq!(e.code(), ErrorCode::Corrupt, "{what}: {e}");
        }
    }
}
