//! `HVSNAP01` snapshots: round trip with the index and its codes, version 1 compatibility, and
//! every damaged form fails with a code.

use std::sync::atomic::AtomicBool;

use horosvec_core::{Collection, ErrorCode, IndexParams, Metric, SearchOptions, VectorId};

fn seeded(n: usize, dim: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n * dim)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) - 0.5
        })
        .collect()
}

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
    let (ix, v) = c
        .build_index(
            IndexParams {
                seed: 5,
                ..IndexParams::default()
            },
            &|_, _| {},
            &AtomicBool::new(false),
        )
        .unwrap();
    c.install_index(ix, v).unwrap();
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
    let v2 = c.to_bytes().unwrap();
    assert_eq!(u32::from_le_bytes(v2[8..12].try_into().unwrap()), 2);
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
    assert_eq!(d.to_bytes().unwrap(), v2);

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
        u32::from_le_bytes(e.to_bytes().unwrap()[8..12].try_into().unwrap()),
        2,
        "written back as version 2"
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
    let theirs = other.to_bytes().unwrap();
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
