//! Segment files with half-precision rows (header byte 22 = 1): written from `RowSlice::F16`,
//! read in place (`view()` hands out `RowSlice::F16`), `vector` widening exactly, searched by
//! the index, checked by `verify`, and damaged or truncated files refused with `HV_CORRUPT`.

use std::sync::atomic::AtomicBool;

use half::f16;
use horosvec_core::ann::AnnSearch;
use horosvec_core::flat::FlatView;
use horosvec_core::rowdata::RowSlice;
use horosvec_core::segment::{segment_bytes, Segment, SegmentRows, HEADER_LEN};
use horosvec_core::{AnnIndex, ErrorCode, IndexParams, Metric, Precision, VectorId};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const DIM: usize = 24;
const N: usize = 1_500;

struct Fixture {
    half: Vec<f16>,
    wide: Vec<f32>,
    ids: Vec<VectorId>,
    seqs: Vec<u64>,
    metadata: Vec<Option<String>>,
}

fn fixture() -> Fixture {
    let mut rng = ChaCha8Rng::seed_from_u64(16);
    let half: Vec<f16> = (0..N * DIM)
        .map(|_| f16::from_f32(rng.random_range(-1.0f32..1.0)))
        .collect();
    let wide = half.iter().map(|x| x.to_f32()).collect();
    Fixture {
        half,
        wide,
        ids: (0..N as u64).map(VectorId::Int).collect(),
        seqs: (1..=N as u64).collect(),
        metadata: (0..N).map(|i| Some(format!("{{\"i\":{i}}}"))).collect(),
    }
}

/// The bytes of generation 3 holding the fixture's rows in `vectors`, indexed.
fn bytes_of(f: &Fixture, vectors: RowSlice<'_>) -> Vec<u8> {
    let view = FlatView {
        dim: DIM,
        metric: Metric::L2,
        vectors,
        inv_norms: &[],
        seqs: &f.seqs,
        deleted: &[],
        kernels: horosvec_core::kernels(),
        pages: None,
    };
    let ix = AnnIndex::build(
        &view,
        IndexParams::default(),
        &|_, _| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    let rows = SegmentRows {
        dim: DIM,
        metric: Metric::L2,
        ids: &f.ids,
        seqs: &f.seqs,
        vectors,
        inv_norms: &[],
        metadata: &f.metadata,
    };
    segment_bytes(3, &rows, &ix).unwrap()
}

fn open(bytes: &[u8]) -> horosvec_core::Result<Segment> {
    Segment::from_bytes(bytes, (3, DIM, Metric::L2))
}

fn code(r: horosvec_core::Result<impl Sized>) -> ErrorCode {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.code(),
    }
}

/// Rewrites header byte `at` to `v` and the header checksum after it.
fn patch_header(bytes: &mut [u8], at: usize, v: u8) {
    bytes[at] = v;
    let crc = crc32fast::hash(&bytes[..508]);
    bytes[508..512].copy_from_slice(&crc.to_le_bytes());
}

#[test]
fn an_f16_segment_round_trips_in_place_at_half_the_row_bytes() {
    let f = fixture();
    let half = bytes_of(&f, RowSlice::F16(&f.half));
    let wide = bytes_of(&f, RowSlice::F32(&f.wide));
    assert_eq!(half[22], 1, "row precision byte");
    assert_eq!(wide[22], 0, "f32 files keep byte 22 zero");
    let rows_saved = (N * DIM * 2) as i64;
    let saved = wide.len() as i64 - half.len() as i64;
    assert!(
        (saved - rows_saved).abs() < 64,
        "{saved} bytes saved, {rows_saved} expected"
    );
    let seg = open(&half).unwrap();
    seg.verify().unwrap();
    assert_eq!(seg.precision(), Precision::F16);
    assert_eq!(open(&wide).unwrap().precision(), Precision::F32);
    for row in [0u32, 1, 777, N as u32 - 1] {
        let r = row as usize;
        assert_eq!(&*seg.vector(row), &f.wide[r * DIM..(r + 1) * DIM]);
        assert!(matches!(seg.row(row), RowSlice::F16(v) if v == &f.half[r * DIM..(r + 1) * DIM]));
        assert_eq!(seg.id(row).unwrap(), VectorId::Int(row as u64));
        assert_eq!(seg.metadata(row).unwrap(), f.metadata[r]);
    }
    // the views read the mapped half rows themselves (no widened copy)
    assert!(matches!(
        seg.view(&[], horosvec_core::kernels()).vectors,
        RowSlice::F16(v) if v.len() == N * DIM
    ));
    assert!(matches!(
        seg.index_view(&[], horosvec_core::kernels()).vectors,
        RowSlice::F16(_)
    ));
}

#[test]
fn an_f16_segment_searches_like_the_f32_segment_of_its_widened_rows() {
    let f = fixture();
    let half = open(&bytes_of(&f, RowSlice::F16(&f.half))).unwrap();
    let wide = open(&bytes_of(&f, RowSlice::F32(&f.wide))).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let (mut found, mut total) = (0usize, 0usize);
    for _ in 0..30 {
        let q: Vec<f32> = (0..DIM).map(|_| rng.random_range(-1.0f32..1.0)).collect();
        let k = horosvec_core::kernels();
        let search = |s: &Segment| {
            let view = s.index_view(&[], k);
            s.index()
                .search(&view, &q, &q, 10, AnnSearch { ef: 64, rerank: 64 })
                .unwrap()
        };
        let (h, w) = (search(&half), search(&wide));
        // same graph (built over the same values), same rows: the same answers
        assert_eq!(
            h.iter().map(|x| x.row).collect::<Vec<_>>(),
            w.iter().map(|x| x.row).collect::<Vec<_>>()
        );
        for (a, b) in h.iter().zip(&w) {
            assert!((a.dist - b.dist).abs() <= 1e-4 * b.dist.abs().max(1.0));
        }
        // and against brute force over the widened values
        let mut all: Vec<(f32, u32)> = (0..N)
            .map(|r| {
                let v = &f.wide[r * DIM..(r + 1) * DIM];
                (
                    v.iter().zip(&q).map(|(a, b)| (a - b) * (a - b)).sum(),
                    r as u32,
                )
            })
            .collect();
        all.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let truth: Vec<u32> = all[..10].iter().map(|x| x.1).collect();
        found += h.iter().filter(|x| truth.contains(&x.row)).count();
        total += 10;
    }
    assert!(found * 100 >= total * 90, "recall {found}/{total}");
}

#[test]
fn damaged_f16_segment_files_are_corrupt_never_a_panic() {
    let f = fixture();
    let good = bytes_of(&f, RowSlice::F16(&f.half));
    // truncated anywhere: inside the header, inside the rows, at the last byte
    for cut in [
        0,
        21,
        HEADER_LEN - 1,
        HEADER_LEN + 100,
        good.len() / 2,
        good.len() - 1,
    ] {
        assert_eq!(code(open(&good[..cut])), ErrorCode::Corrupt, "cut at {cut}");
    }
    // an unknown precision code, and an f16 file relabelled f32 (its rows section is half the
    // length the header then implies)
    for v in [2u8, 0, 255] {
        let mut b = good.clone();
        patch_header(&mut b, 22, v);
        assert_eq!(code(open(&b)), ErrorCode::Corrupt, "precision byte {v}");
    }
    // a flipped bit in the rows: the open does not read them, verify does
    let mut b = good.clone();
    let rows_at = u64::from_le_bytes(b[80 + 24..80 + 32].try_into().unwrap()) as usize;
    b[rows_at + 5] ^= 0x10;
    let seg = open(&b).unwrap();
    assert_eq!(code(seg.verify()), ErrorCode::Corrupt);
    // a non-finite half value with a matching checksum: verify names it
    let mut b = good.clone();
    b[rows_at..rows_at + 2].copy_from_slice(&0x7e00u16.to_le_bytes()); // NaN
    let rows_len = N * DIM * 2;
    let crc = crc32fast::hash(&b[rows_at..rows_at + rows_len]);
    b[80 + 24 + 16..80 + 24 + 20].copy_from_slice(&crc.to_le_bytes());
    let crc = crc32fast::hash(&b[..508]);
    b[508..512].copy_from_slice(&crc.to_le_bytes());
    let seg = open(&b).unwrap();
    let e = seg.verify().unwrap_err();
    assert_eq!(e.code(), ErrorCode::Corrupt);
    assert!(e.to_string().contains("not finite"), "{e}");
}
