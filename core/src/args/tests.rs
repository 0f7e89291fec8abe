//! Table tests of the JS argument parsers: accepted values, refused values and their exact
//! messages (the bindings pass them to JS unchanged).

use super::*;

fn msg<T: std::fmt::Debug>(r: Result<T>) -> String {
    let e = r.unwrap_err();
    assert_eq!(e.code().as_str(), "HV_INVALID_ARGUMENT");
    e.to_string()
}

const BAD_INTS: [f64; 4] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1.5];

#[test]
fn dims() {
    for (v, want) in [(1.0, 1), (384.0, 384), (65_536.0, 65_536)] {
        assert_eq!(dim(v).unwrap(), want);
    }
    for v in BAD_INTS.into_iter().chain([0.0, -1.0, 65_537.0]) {
        assert_eq!(
            msg(dim(v)),
            format!("dim must be an integer in 1..=65536, got {v}")
        );
    }
}

#[test]
fn int_ids() {
    let max = MAX_SAFE_INTEGER as f64;
    for (v, want) in [(0.0, 0), (3.0, 3), (max, MAX_SAFE_INTEGER)] {
        assert_eq!(id(v).unwrap(), VectorId::Int(want));
    }
    for v in BAD_INTS.into_iter().chain([-1.0, max + 2.0, 1e300]) {
        assert_eq!(
            msg(id(v)),
            format!(
                "id {v} is not a non-negative safe integer (0..=2^53-1); use a string id instead"
            )
        );
    }
    assert_eq!(
        ids(&[1.0, 2.0]).unwrap(),
        vec![VectorId::Int(1), VectorId::Int(2)]
    );
    assert!(ids(&[1.0, 0.5]).is_err());
}

#[test]
fn packed() {
    let got = packed_ids("ab\u{1F600}éz", &[2, 0, 2, 1, 1]).unwrap();
    let want: Vec<VectorId> = ["ab", "", "\u{1F600}", "é", "z"]
        .into_iter()
        .map(VectorId::from)
        .collect();
    assert_eq!(got, want);
    for (text, lengths) in [
        ("abc", &[1u32, 1][..]),
        ("\u{1F600}", &[1][..]),
        ("ab", &[3][..]),
    ] {
        assert_eq!(
            msg(packed_ids(text, lengths)),
            "packed ids: lengths do not match the text"
        );
    }
}

#[test]
fn search() {
    let a = |k: f64| SearchArgs {
        k: Some(k),
        ..SearchArgs::default()
    };
    let o = search_options(&a(5.0)).unwrap();
    assert_eq!(
        (o.k, o.include_metadata, o.ef, o.rerank, o.exact),
        (5, true, None, None, None)
    );
    assert_eq!(search_options(&a(1e12)).unwrap().k, 1_000_000_000_000);
    assert_eq!(
        msg(search_options(&SearchArgs::default())),
        "k must be a positive integer"
    );
    for k in BAD_INTS.into_iter().chain([0.0, -3.0]) {
        assert_eq!(
            msg(search_options(&a(k))),
            format!("k must be a positive integer, got {k}")
        );
    }
    let full = SearchArgs {
        k: Some(2.0),
        include_metadata: Some(false),
        ef: Some(1e12),
        rerank: Some(7.0),
        exact: Some(true),
        filter: Some(r#"{"a":{"$gt":1}}"#.into()),
        ids: Some(r#"[1,"x"]"#.into()),
    };
    let o = search_options(&full).unwrap();
    assert_eq!(o.filter.as_ref().unwrap().text(), r#"{"a":{"$gt":1}}"#);
    assert_eq!(
        o.ids.as_deref().unwrap(),
        &vec![crate::VectorId::Int(1), crate::VectorId::Str("x".into())]
    );
    for (f, ids) in [
        (Some("{\"a\":{\"$bad\":1}}"), None),
        (Some("nope"), None),
        (None, Some("[-1]")),
        (None, Some("{}")),
        (None, Some("[true]")),
    ] {
        let r = search_options(&SearchArgs {
            filter: f.map(String::from),
            ids: ids.map(String::from),
            ..full.clone()
        });
        assert_eq!(r.unwrap_err().code().as_str(), "HV_INVALID_ARGUMENT");
    }
    assert_eq!(
        (o.k, o.include_metadata, o.ef, o.rerank, o.exact),
        (2, false, Some(1_000_000_000), Some(7), Some(true))
    );
    for (ef, rerank, name, v) in [
        (Some(0.0), None, "ef", 0.0),
        (Some(2.5), None, "ef", 2.5),
        (None, Some(f64::NAN), "rerank", f64::NAN),
    ] {
        let r = search_options(&SearchArgs {
            ef,
            rerank,
            ..a(1.0)
        });
        assert_eq!(
            msg(r),
            format!("{name} must be a positive integer, got {v}")
        );
    }
    let looked = SearchArgs::from_lookup(
        |n| (n == "k").then_some(3.0),
        |n| (n == "exact").then_some(false),
        |_| None,
    );
    assert_eq!(
        looked,
        SearchArgs {
            k: Some(3.0),
            exact: Some(false),
            ..SearchArgs::default()
        }
    );
}

#[test]
fn index() {
    assert_eq!(
        index_params(&IndexArgs::default()).unwrap(),
        IndexParams::default()
    );
    let p = index_params(&IndexArgs {
        r: Some(16.0),
        l: Some(50.0),
        alpha: Some(1.5),
        passes: Some(1.0),
        bits: Some(2.0),
        seed: Some(9.0),
    })
    .unwrap();
    assert_eq!(
        (p.r, p.l, p.alpha, p.passes, p.bits, p.seed),
        (16, 50, 1.5, 1, 2, 9)
    );
    let none = IndexArgs::default();
    let table = [
        (
            IndexArgs {
                r: Some(0.0),
                ..none
            },
            "R must be an integer in 1..=4096, got 0",
        ),
        (
            IndexArgs {
                r: Some(4097.0),
                ..none
            },
            "R must be an integer in 1..=4096, got 4097",
        ),
        (
            IndexArgs {
                l: Some(0.5),
                ..none
            },
            "L must be an integer in 1..=100000, got 0.5",
        ),
        (
            IndexArgs {
                passes: Some(9.0),
                ..none
            },
            "passes must be an integer in 1..=8, got 9",
        ),
        (
            IndexArgs {
                bits: Some(0.0),
                ..none
            },
            "bits must be an integer in 1..=8, got 0",
        ),
        (
            IndexArgs {
                seed: Some(-1.0),
                ..none
            },
            "seed must be an integer in 0..=9007199254740991, got -1",
        ),
        (
            IndexArgs {
                alpha: Some(0.9),
                ..none
            },
            "alpha must be a number in [1, 4], got 0.9",
        ),
        (
            IndexArgs {
                alpha: Some(f64::NAN),
                ..none
            },
            "alpha must be a number in [1, 4], got NaN",
        ),
        (
            IndexArgs {
                alpha: Some(4.5),
                ..none
            },
            "alpha must be a number in [1, 4], got 4.5",
        ),
    ];
    for (a, want) in table {
        assert_eq!(msg(index_params(&a)), want, "{a:?}");
    }
    let looked = IndexArgs::from_lookup(|n| (n == "seed").then_some(4.0));
    assert_eq!(
        looked,
        IndexArgs {
            seed: Some(4.0),
            ..IndexArgs::default()
        }
    );
}

#[test]
fn counts_and_graph_numbers() {
    assert_eq!(count("maxSealedSegments", 3.0, 1e6).unwrap(), 3);
    assert_eq!(count("maxSealedSegments", 0.0, 1e6).unwrap(), 0);
    for v in BAD_INTS.into_iter().chain([-1.0, 1e6 + 1.0]) {
        assert_eq!(
            msg(count("maxSealedSegments", v, 1e6)),
            format!("maxSealedSegments must be a non-negative integer, got {v}")
        );
    }
    let top = f64::from(u32::MAX);
    assert_eq!(graph_degree(top).unwrap(), u32::MAX as usize);
    assert_eq!(
        msg(graph_degree(top + 1.0)),
        "degree must be a non-negative integer, got 4294967296"
    );
    assert_eq!(graph_entry(top - 1.0).unwrap(), u32::MAX - 1);
    assert_eq!(
        msg(graph_entry(top)),
        "entry must be a non-negative integer, got 4294967295"
    );
}

#[test]
fn write_kinds() {
    use crate::collection::WriteKind;
    assert_eq!(write_kind("add").unwrap(), WriteKind::Add);
    assert_eq!(write_kind("upsert").unwrap(), WriteKind::Upsert);
    for bad in ["", "Add", "delete", "put"] {
        assert_eq!(msg(write_kind(bad)), format!("unknown write kind {bad:?}"));
    }
}

#[cfg(feature = "durable")]
#[test]
fn segment_options() {
    let d = crate::durable::SegmentConfig::default();
    let got = segment_config(&SegmentArgs::default()).unwrap();
    assert_eq!(
        (got.max_mutable_records, got.max_sealed_segments, got.verify),
        (d.max_mutable_records, d.max_sealed_segments, false)
    );
    let got = segment_config(&SegmentArgs {
        max_mutable_records: Some(5000.0),
        max_sealed_segments: Some(3.0),
        max_tombstone_ratio: Some(0.5),
        verify: Some(true),
    })
    .unwrap();
    assert_eq!(
        (got.max_mutable_records, got.max_sealed_segments, got.verify),
        (5000, 3, true)
    );
    assert!((got.max_tombstone_ratio - 0.5).abs() < 1e-12);
    for (a, want) in [
        (
            SegmentArgs {
                max_mutable_records: Some(1e9 + 1.0),
                ..SegmentArgs::default()
            },
            "maxMutableRecords must be a non-negative integer, got 1000000001",
        ),
        (
            SegmentArgs {
                max_sealed_segments: Some(0.5),
                ..SegmentArgs::default()
            },
            "maxSealedSegments must be a non-negative integer, got 0.5",
        ),
    ] {
        assert_eq!(msg(segment_config(&a)), want);
    }
    let e = segment_config(&SegmentArgs {
        max_tombstone_ratio: Some(0.0),
        ..SegmentArgs::default()
    })
    .unwrap_err();
    assert_eq!(e.code(), crate::ErrorCode::InvalidArgument);
}
