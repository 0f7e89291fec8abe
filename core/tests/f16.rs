//! `f16` vector rows (`Collection::with_precision(.., Precision::F16)`): values rounded on
//! write, out-of-range values refused, half the vector bytes, exact and indexed search on the
//! rounded rows, batch search, snapshots that keep the precision (version 5 with an index: segment
//! images of half rows, read in place; version 4: the record stream), `f32` record streams
//! unchanged (version 3).

mod support;
use support::{build_and_install, seeded};

use horosvec_core::{Collection, ErrorCode, Metric, Precision, SearchOptions, VectorId};

fn rounded(v: &[f32]) -> Vec<f32> {
    v.iter().map(|&x| half::f16::from_f32(x).to_f32()).collect()
}

fn ids(n: usize) -> Vec<VectorId> {
    (0..n as u64).map(VectorId::Int).collect()
}

fn filled(n: usize, dim: usize, metric: Metric, p: Precision, data: &[f32]) -> Collection {
    let mut c = Collection::with_precision(dim, metric, p).unwrap();
    c.add(ids(n), data, None).unwrap();
    c
}

/// A cosine `f16` collection of `n` seeded rows (seed `data_seed`, returned too) with a built
/// index (seed `build_seed`).
fn indexed_f16(n: usize, dim: usize, data_seed: u64, build_seed: u64) -> (Collection, Vec<f32>) {
    let data = seeded(n, dim, data_seed);
    let mut c = filled(n, dim, Metric::Cosine, Precision::F16, &data);
    build_and_install(&mut c, build_seed);
    (c, data)
}

#[test]
fn get_returns_the_rounded_value_and_bytes_halve() {
    let dim = 16;
    let data = seeded(50, dim, 1);
    let c = filled(50, dim, Metric::L2, Precision::F16, &data);
    let f = filled(50, dim, Metric::L2, Precision::F32, &data);
    assert_eq!(c.precision(), Precision::F16);
    assert_eq!(c.stats().vectors, Precision::F16);
    assert_eq!(f.stats().vectors, Precision::F32);
    let (v, _) = c.get(&VectorId::Int(3)).unwrap().unwrap();
    assert_eq!(&*v, &rounded(&data[3 * dim..4 * dim])[..]);
    let (w, _) = f.get(&VectorId::Int(3)).unwrap().unwrap();
    assert_eq!(&*w, &data[3 * dim..4 * dim]);
    assert_eq!(c.stats().vector_bytes, 50 * dim * 2);
    assert_eq!(f.stats().vector_bytes, 50 * dim * 4);
}

#[test]
fn out_of_range_is_invalid_vector_and_changes_nothing() {
    let mut c = Collection::with_precision(4, Metric::L2, Precision::F16).unwrap();
    c.add(ids(1), &[1.0, 2.0, 3.0, 4.0], None).unwrap();
    let e = c
        .add(
            vec![VectorId::Int(5), VectorId::Int(6)],
            &[0.0, 0.0, 0.0, 0.0, 1.0, 70_000.0, 0.0, 0.0],
            None,
        )
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidVector);
    assert!(e.to_string().contains("f16"), "{e}");
    assert_eq!(c.len(), 1);
    let e = c
        .upsert(ids(1), &[-65_520.0, 0.0, 0.0, 0.0], None)
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidVector);
    assert_eq!(
        &*c.get(&VectorId::Int(0)).unwrap().unwrap().0,
        &[1.0, 2.0, 3.0, 4.0]
    );
    // the largest half float is fine, and f32 collections keep accepting anything finite
    c.add(
        vec![VectorId::Int(9)],
        &[65_504.0, -65_504.0, 0.0, 0.0],
        None,
    )
    .unwrap();
    let mut f = Collection::new(4, Metric::L2).unwrap();
    f.add(ids(1), &[1e30, 0.0, 0.0, 0.0], None).unwrap();
}

#[test]
fn exact_search_scores_the_rounded_rows() {
    let (n, dim) = (300, 24);
    let data = seeded(n, dim, 2);
    for metric in [Metric::L2, Metric::Cosine, Metric::InnerProduct, Metric::L1] {
        let h = filled(n, dim, metric, Precision::F16, &data);
        let r = filled(n, dim, metric, Precision::F32, &rounded(&data));
        let q = seeded(1, dim, 77);
        let o = SearchOptions::new(10).unwrap();
        let a = h.search(&q, &o).unwrap();
        let b = r.search(&q, &o).unwrap();
        assert_eq!(
            a.iter().map(|x| x.id.clone()).collect::<Vec<_>>(),
            b.iter().map(|x| x.id.clone()).collect::<Vec<_>>(),
            "{metric:?}"
        );
        for (x, y) in a.iter().zip(&b) {
            assert!(
                (x.distance - y.distance).abs() <= 1e-4 * (1.0 + y.distance.abs()),
                "{metric:?}"
            );
        }
        // batch search (tiled, widened per tile) gives the single-query results
        let qs = seeded(9, dim, 78);
        let batch = h.search_batch(&qs, &o).unwrap();
        for (j, hits) in batch.iter().enumerate() {
            let one = h.search(&qs[j * dim..(j + 1) * dim], &o).unwrap();
            let ids_b: Vec<_> = hits.iter().map(|x| x.id.clone()).collect();
            let ids_o: Vec<_> = one.iter().map(|x| x.id.clone()).collect();
            assert_eq!(ids_b, ids_o, "{metric:?} query {j}");
        }
    }
}

#[test]
fn indexed_search_recall_matches_f32() {
    let (n, dim, k) = (3000, 32, 10);
    let data = seeded(n, dim, 4);
    for metric in [Metric::L2, Metric::Cosine] {
        let mut h = filled(n, dim, metric, Precision::F16, &data);
        let mut f = filled(n, dim, metric, Precision::F32, &data);
        build_and_install(&mut h, 7);
        build_and_install(&mut f, 7);
        // more rows after the build go through insert_rows
        let extra = seeded(200, dim, 5);
        let more: Vec<VectorId> = (n as u64..n as u64 + 200).map(VectorId::Int).collect();
        h.add(more.clone(), &extra, None).unwrap();
        f.add(more, &extra, None).unwrap();
        let qs = seeded(50, dim, 6);
        let mut exact = SearchOptions::new(k).unwrap();
        exact.exact = Some(true);
        let mut ann = SearchOptions::new(k).unwrap();
        ann.ef = Some(64);
        let recall = |c: &Collection| {
            let mut hit = 0usize;
            for q in qs.chunks_exact(dim) {
                let truth: Vec<_> = f
                    .search(q, &exact)
                    .unwrap()
                    .into_iter()
                    .map(|x| x.id)
                    .collect();
                hit += c
                    .search(q, &ann)
                    .unwrap()
                    .iter()
                    .filter(|x| truth.contains(&x.id))
                    .count();
            }
            hit as f64 / (qs.len() / dim * k) as f64
        };
        let (rh, rf) = (recall(&h), recall(&f));
        assert!(
            rh >= rf - 0.02,
            "{metric:?}: f16 recall {rh} against f32 {rf}"
        );
        assert!(rh > 0.8, "{metric:?}: f16 recall {rh}");
    }
}

#[test]
fn snapshots_keep_the_precision() {
    let (n, dim) = (2500, 16);
    let (mut h, data) = indexed_f16(n, dim, 8, 7);
    let version = |b: &[u8]| u32::from_le_bytes(b[8..12].try_into().unwrap());
    let q = seeded(1, dim, 9);
    let o = SearchOptions::new(10).unwrap();
    // version 5 (the index's segment image of half rows) and the record stream (version 4)
    let bytes = h.to_bytes().unwrap();
    let stream = h.to_bytes_stream().unwrap();
    assert_eq!((version(&bytes), version(&stream)), (5, 4));
    for b in [&bytes, &stream] {
        let mut d = Collection::from_bytes(b).unwrap();
        assert_eq!(d.precision(), Precision::F16);
        assert_eq!(d.search(&q, &o).unwrap(), h.search(&q, &o).unwrap());
        assert_eq!(
            d.get(&VectorId::Int(7)).unwrap(),
            h.get(&VectorId::Int(7)).unwrap()
        );
        assert_eq!(
            d.to_bytes().unwrap(),
            bytes,
            "a reloaded snapshot writes the same version-5 bytes"
        );
        // a write after the load: kept in the precision of the rows
        d.add(vec![VectorId::Int(n as u64)], &q, None).unwrap();
        assert_eq!(
            d.get(&VectorId::Int(n as u64)).unwrap().unwrap().0.as_ref(),
            rounded(&q).as_slice()
        );
    }
    assert!(
        Collection::from_bytes(&stream).unwrap().has_index(),
        "the stream carries the index"
    );
    // the records take 2 bytes per value: smaller than the f32 snapshots of the same rows
    let mut f = filled(n, dim, Metric::Cosine, Precision::F32, &data);
    build_and_install(&mut f, 7);
    assert!(bytes.len() < f.to_bytes().unwrap().len());
    let fb = f.to_bytes_stream().unwrap();
    assert_eq!(
        u32::from_le_bytes(fb[8..12].try_into().unwrap()),
        3,
        "the f32 record stream is version 3 (to_bytes writes version 5: snapshot_parts.rs)"
    );
    assert!(stream.len() < fb.len());
    assert_eq!(
        Collection::from_bytes(&fb).unwrap().precision(),
        Precision::F32
    );
}

#[test]
fn damaged_f16_snapshots_fail_with_a_code() {
    let mut h = filled(10, 8, Metric::L2, Precision::F16, &seeded(10, 8, 10));
    let bytes = h.to_bytes().unwrap();
    let cut = &bytes[..bytes.len() - 9];
    assert!(Collection::from_bytes(cut).is_err());
    // an f16 flag in a version-3 header is corrupt (checksum fixed up)
    let mut v3 = bytes.clone();
    v3[8..12].copy_from_slice(&3u32.to_le_bytes());
    let body = v3.len() - 4;
    let crc = crc32(&v3[..body]);
    v3[body..].copy_from_slice(&crc.to_le_bytes());
    assert_eq!(
        Collection::from_bytes(&v3).err().unwrap().code(),
        ErrorCode::Corrupt
    );
}

fn crc32(b: &[u8]) -> u32 {
    let mut c = !0u32;
    for &x in b {
        c ^= u32::from(x);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// Regression (adversarial test, session 16): `buildIndex` / `exportGraph` after loading a
/// version-5 snapshot moved the records into an `f32` collection (`unseal`), so the rows doubled,
/// out-of-range values were accepted and the next snapshot was `f32`.
#[test]
fn operations_after_loading_a_version_5_snapshot_keep_f16_rows() {
    let (n, dim) = (300, 8);
    let (mut h, _) = indexed_f16(n, dim, 21, 3);
    let bytes = h.to_bytes().unwrap();
    let mut d = Collection::from_bytes(&bytes).unwrap();
    build_and_install(&mut d, 3);
    assert_eq!(d.precision(), Precision::F16);
    assert_eq!(
        d.get(&VectorId::Int(9)).unwrap(),
        h.get(&VectorId::Int(9)).unwrap()
    );
    let mut big = vec![0.5f32; dim];
    big[0] = 1e6;
    assert_eq!(
        d.add(vec![VectorId::Int(n as u64)], &big, None)
            .err()
            .map(|e| e.code()),
        Some(ErrorCode::InvalidVector)
    );
    let again = d.to_bytes().unwrap();
    let e = Collection::from_bytes(&again).unwrap();
    assert_eq!(e.precision(), Precision::F16);
}

/// Part `i` of a version-5 snapshot: (offset, length), from its part table.
fn part(b: &[u8], i: usize) -> (usize, usize) {
    let e = 64 + 32 * i;
    let u64_at = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize;
    (u64_at(e + 8), u64_at(e + 16))
}

/// Recomputes a segment image's header CRC-32 and the snapshot's trailing xxh3-64 after an edit.
fn reseal(b: &mut [u8], seg_at: usize) {
    let crc = crc32fast::hash(&b[seg_at..seg_at + 508]);
    b[seg_at + 508..seg_at + 512].copy_from_slice(&crc.to_le_bytes());
    let end = b.len() - 8;
    let h = xxhash_rust::xxh3::xxh3_64(&b[..end]);
    b[end..].copy_from_slice(&h.to_le_bytes());
}

/// Crafted version-5 snapshots (checksums recomputed): a segment part whose rows are of another
/// precision than the first part's, and a non-finite value in a row the code check samples,
/// are `HV_CORRUPT`.
#[test]
fn crafted_f16_version_5_snapshots_are_corrupt() {
    let (mut h, _) = indexed_f16(300, 8, 31, 3);
    let bytes = h.to_bytes().unwrap();
    // more records than FLAT_THRESHOLD beside the loaded part: their own index, a second image
    let mut d = Collection::from_bytes(&bytes).unwrap();
    let ids: Vec<VectorId> = (1000..3100u64).map(VectorId::Int).collect();
    d.add(ids, &seeded(2100, 8, 32), None).unwrap();
    let two = d.to_bytes().unwrap();
    assert_eq!(u32::from_le_bytes(two[32..36].try_into().unwrap()), 2);
    Collection::from_bytes(&two).unwrap();
    let (at, _) = part(&two, 1);
    assert_eq!(two[at + 22], 1, "half rows");
    let mut mixed = two.clone();
    mixed[at + 22] = 0;
    reseal(&mut mixed, at);
    assert_eq!(
        Collection::from_bytes(&mixed).err().map(|e| e.code()),
        Some(ErrorCode::Corrupt)
    );
    // NaN halves in row 0 of the image (the code check samples row 0); section 1 (vectors) is
    // the second entry of the section table at byte 80 (24 bytes each: offset, length, crc)
    let mut nan = bytes.clone();
    let (at, _) = part(&nan, 0);
    let vectors_at = at + u64::from_le_bytes(nan[at + 104..at + 112].try_into().unwrap()) as usize;
    for j in 0..8 {
        nan[vectors_at + 2 * j..vectors_at + 2 * j + 2].copy_from_slice(&0x7E00u16.to_le_bytes());
    }
    reseal(&mut nan, at);
    assert_eq!(
        Collection::from_bytes(&nan).err().map(|e| e.code()),
        Some(ErrorCode::Corrupt)
    );
}
