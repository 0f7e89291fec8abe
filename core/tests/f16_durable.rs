//! Durable collections with `f16` rows: the precision stored in `meta.vectors`, a reopen with
//! the other one refused, rounded values in the mutable segment, seals and compactions writing
//! half-row segment files, exact search and `get` on the rounded values across reopen, read-only
//! views, and out-of-range values refused with nothing written.
#![cfg(feature = "durable")]

use std::path::{Path, PathBuf};
use std::sync::mpsc::channel;

use horosvec_core::durable::{DurableCollection, SegmentConfig, WriteRequest};
use horosvec_core::store::{Durability, SqliteStore};
use horosvec_core::{ErrorCode, Metric, Precision, SearchOptions, VectorId, WriteKind};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const DIM: usize = 16;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("horosvec-f16d-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn open(
    dir: &Path,
    vectors: Option<Precision>,
    read_only: bool,
) -> horosvec_core::Result<DurableCollection> {
    let s = SqliteStore::open_with(
        dir,
        (Some(DIM), Some(Metric::Cosine), vectors),
        Durability::Normal,
        read_only,
    )?;
    let cfg = SegmentConfig {
        max_mutable_records: 1_000_000,
        ..SegmentConfig::default()
    };
    DurableCollection::open(s, read_only, Some(dir.to_path_buf()), cfg)
}

fn wait(f: impl FnOnce(horosvec_core::durable::Reply)) -> horosvec_core::Result<usize> {
    let (tx, rx) = channel();
    f(Box::new(move |r| tx.send(r).unwrap()));
    rx.recv().unwrap()
}

fn put(
    d: &DurableCollection,
    kind: WriteKind,
    ids: &[u64],
    flat: Vec<f32>,
) -> horosvec_core::Result<usize> {
    let req = WriteRequest::Put {
        kind,
        ids: ids.iter().map(|&i| VectorId::Int(i)).collect(),
        vectors: flat,
        metadata: None,
    };
    wait(|r| d.submit(req, r))
}

fn rounded(v: &[f32]) -> Vec<f32> {
    v.iter().map(|&x| half::f16::from_f32(x).to_f32()).collect()
}

type Truth = std::collections::BTreeMap<u64, Vec<f32>>;

fn add_random(
    d: &DurableCollection,
    ids: std::ops::Range<u64>,
    rng: &mut ChaCha8Rng,
    truth: &mut Truth,
) {
    let ids: Vec<u64> = ids.collect();
    let vs: Vec<Vec<f32>> = ids
        .iter()
        .map(|_| (0..DIM).map(|_| rng.random_range(-1.0f32..1.0)).collect())
        .collect();
    put(d, WriteKind::Upsert, &ids, vs.concat()).unwrap();
    for (i, v) in ids.into_iter().zip(vs) {
        truth.insert(i, rounded(&v));
    }
}

/// Exact search over the rounded values is exact; `get` returns them; the stats say f16.
fn check(d: &DurableCollection, truth: &Truth, label: &str) {
    let g = d.shared().read().unwrap();
    let c = g.as_ref().unwrap();
    assert_eq!(c.len(), truth.len(), "{label}");
    let s = c.stats();
    assert_eq!(s.vectors, Precision::F16, "{label}");
    // 2 bytes per value, sealed rows included (tombstoned rows are counted too)
    assert!(
        s.vector_bytes >= s.size * DIM * 2 && s.vector_bytes < s.size * DIM * 4,
        "{label}: {} vector bytes for {} records",
        s.vector_bytes,
        s.size
    );
    for (id, v) in truth.iter().step_by(37) {
        let (got, _) = c.get(&VectorId::Int(*id)).unwrap().unwrap();
        assert_eq!(&*got, &v[..], "{label}: get of {id}");
    }
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let cos = |a: &[f32], b: &[f32]| {
        let dot: f64 = a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum();
        let n = |x: &[f32]| x.iter().map(|v| (*v as f64).powi(2)).sum::<f64>().sqrt();
        1.0 - dot / (n(a) * n(b))
    };
    let mut hit = 0;
    for _ in 0..20 {
        let q: Vec<f32> = (0..DIM).map(|_| rng.random_range(-1.0f32..1.0)).collect();
        let mut all: Vec<(f64, u64)> = truth.iter().map(|(i, v)| (cos(&q, v), *i)).collect();
        all.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let want: Vec<u64> = all[..10].iter().map(|x| x.1).collect();
        let ids = |exact| {
            let mut o = SearchOptions::new(10).unwrap();
            o.exact = Some(exact);
            c.search(&q, &o)
                .unwrap()
                .into_iter()
                .map(|h| match h.id {
                    VectorId::Int(i) => i,
                    VectorId::Str(_) => unreachable!(),
                })
                .collect::<Vec<_>>()
        };
        let exact = ids(true);
        // ties within float noise may swap neighbours: compare as sets
        let mut a = exact.clone();
        let mut b = want.clone();
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b, "{label}: exact search over the rounded rows");
        hit += ids(false).iter().filter(|i| want.contains(i)).count();
    }
    assert!(hit >= 180, "{label}: recall {hit}/200");
}

fn segment_headers(dir: &Path) -> Vec<(u8, u64)> {
    let mut out: Vec<(u8, u64)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "hvseg"))
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (b[22], b.len() as u64)
        })
        .collect();
    out.sort_unstable();
    out
}

#[test]
fn an_f16_durable_collection_seals_compacts_and_reopens_with_half_rows() {
    let dir = tmp("life");
    let mut rng = ChaCha8Rng::seed_from_u64(16);
    let mut truth = Truth::new();
    let d = open(&dir, Some(Precision::F16), false).unwrap();
    for s in 0..2u64 {
        add_random(&d, s * 500..(s + 1) * 500, &mut rng, &mut truth);
        assert_eq!(wait(|r| d.seal(r)).unwrap(), 500);
    }
    add_random(&d, 1000..1100, &mut rng, &mut truth); // the mutable tail
    add_random(&d, 10..20, &mut rng, &mut truth); // upserts of sealed records
    let gone: Vec<VectorId> = (0..1100).step_by(9).map(VectorId::Int).collect();
    let n = wait(|r| d.submit(WriteRequest::Delete { ids: gone.clone() }, r)).unwrap();
    assert_eq!(n, gone.len());
    for g in &gone {
        let VectorId::Int(i) = g else { unreachable!() };
        truth.remove(i);
    }
    // out of the f16 range: refused, nothing written
    let mut bad = vec![0.5f32; 2 * DIM];
    bad[DIM + 3] = 7.0e4;
    let e = put(&d, WriteKind::Add, &[5000, 5001], bad).unwrap_err();
    assert_eq!(e.code(), ErrorCode::InvalidVector);
    assert!(e.to_string().contains("f16"), "{e}");
    check(&d, &truth, "before reopen");
    let segs = segment_headers(&dir);
    assert_eq!(segs.len(), 2);
    assert!(
        segs.iter().all(|s| s.0 == 1),
        "half-row segment files: {segs:?}"
    );
    // 500 rows × 16 values × 2 bytes of rows: the file is well under the f32 rows' 32,000 bytes
    d.close();

    // the stored precision: a reopen without vectors uses it, one naming f32 is refused
    let e = open(&dir, Some(Precision::F32), false).err().unwrap();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    assert!(e.to_string().contains("f16"), "{e}");
    let d = open(&dir, None, false).unwrap();
    check(&d, &truth, "after reopen");
    let ro = open(&dir, None, true).unwrap();
    check(&ro, &truth, "read-only view");
    drop(ro);
    assert_eq!(wait(|r| d.compact(r)).unwrap(), 2);
    check(&d, &truth, "after compaction");
    assert!(wait(|r| d.seal(r)).unwrap() > 0);
    check(&d, &truth, "after sealing the tail");
    assert!(segment_headers(&dir).iter().all(|s| s.0 == 1));
    d.close();
    let s = SqliteStore::open_with(&dir, (None, None, None), Durability::Normal, false).unwrap();
    let d = DurableCollection::open(
        s,
        false,
        Some(dir.clone()),
        SegmentConfig {
            verify: true,
            ..SegmentConfig::default()
        },
    )
    .unwrap();
    check(&d, &truth, "after a verified reopen");
    d.close();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn f32_collections_keep_f32_segments_and_refuse_f16() {
    let dir = tmp("f32");
    let d = open(&dir, None, false).unwrap();
    put(&d, WriteKind::Add, &[1, 2], vec![0.25; 2 * DIM]).unwrap();
    assert_eq!(wait(|r| d.seal(r)).unwrap(), 2);
    assert!(segment_headers(&dir).iter().all(|s| s.0 == 0));
    d.close();
    let e = open(&dir, Some(Precision::F16), false).err().unwrap();
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    let d = open(&dir, Some(Precision::F32), false).unwrap();
    assert_eq!(
        d.shared().read().unwrap().as_ref().unwrap().stats().vectors,
        Precision::F32
    );
    d.close();
    let _ = std::fs::remove_dir_all(&dir);
}

/// An f16 collection's database is stamped with its own format version, so a build from before
/// f16 rows (which reads version 1 only) refuses it with `HV_VERSION` instead of writing f32
/// segment files into it; that version with `meta.vectors` other than f16 is damage.
#[test]
fn f16_collections_carry_their_own_format_version() {
    use horosvec_core::store::{DB_FILE, F16_FORMAT_VERSION, FORMAT_VERSION};
    let dir = tmp("version");
    let meta = |dir: &Path, key: &str| -> String {
        let c = rusqlite::Connection::open(dir.join(DB_FILE)).unwrap();
        c.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .unwrap()
    };
    let d = open(&dir, Some(Precision::F16), false).unwrap();
    put(&d, WriteKind::Add, &[1], vec![0.5; DIM]).unwrap();
    d.close();
    assert_eq!(meta(&dir, "format_version"), F16_FORMAT_VERSION.to_string());
    let d = open(&dir, None, false).unwrap();
    d.close();
    {
        let c = rusqlite::Connection::open(dir.join(DB_FILE)).unwrap();
        c.execute("UPDATE meta SET value = 'f32' WHERE key = 'vectors'", [])
            .unwrap();
    }
    let e = open(&dir, None, false).err().unwrap();
    assert_eq!(e.code(), ErrorCode::Corrupt, "{e}");
    let f32_dir = tmp("version-f32");
    open(&f32_dir, None, false).unwrap().close();
    assert_eq!(meta(&f32_dir, "format_version"), FORMAT_VERSION.to_string());
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&f32_dir);
}
