//! The metadata index codec: round trips over random metadata (the decoded index answers every
//! filter as the original, and encodes to the same bytes), and damaged bytes give `HV_CORRUPT`
//! without a panic.

use proptest::prelude::*;

use super::codec;
use super::index::MetaIndex;
use super::Filter;
use crate::error::ErrorCode;

const FILTERS: &[&str] = &[
    r#"{}"#,
    r#"{"g":1}"#,
    r#"{"g":{"$in":[0,2,"x",null,true]}}"#,
    r#"{"n":{"$gte":-3.5,"$lt":40}}"#,
    r#"{"n":{"$gt":10}}"#,
    r#"{"s":{"$lte":"m"}}"#,
    r#"{"s":{"$gt":"b"}}"#,
    r#"{"t":{"$contains":"x"}}"#,
    r#"{"t":{"$contains":3}}"#,
    r#"{"u.id":{"$exists":true}}"#,
    r#"{"u.id":{"$exists":false}}"#,
    r#"{"$or":[{"g":2},{"n":{"$lt":5}}]}"#,
    r#"{"g":{"$ne":0}}"#,
    r#"{"$not":{"t":"y"}}"#,
    r#"{"missing":{"$exists":false}}"#,
];

fn scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("null".to_string()),
        any::<bool>().prop_map(|b| b.to_string()),
        (-50i32..50).prop_map(|i| i.to_string()),
        (-100.0f64..100.0).prop_map(|x| format!("{x}")),
        "[a-z]{0,3}".prop_map(|s| format!("{s:?}")),
    ]
}

/// One record's metadata: absent, not an object, or an object over a few fields.
fn metadata() -> impl Strategy<Value = Option<String>> {
    let field = (0usize..6, scalar(), prop::collection::vec(scalar(), 0..4));
    let object = prop::collection::vec(field, 0..5).prop_map(|fields| {
        let parts: Vec<String> = fields
            .into_iter()
            .map(|(k, v, arr)| match k {
                0 => format!(r#""g":{v}"#),
                1 => format!(r#""n":{v}"#),
                2 => format!(r#""s":{v}"#),
                3 => format!(r#""t":[{}]"#, arr.join(",")),
                4 => format!(r#""u":{{"id":{v},"x":[[{}]]}}"#, arr.join(",")),
                _ => format!(r#""t":[{{"k":{v}}},{}]"#, arr.join(",")),
            })
            .collect();
        Some(format!("{{{}}}", parts.join(",")))
    });
    prop_oneof![
        1 => Just(None),
        1 => Just(Some("[1,2]".to_string())),
        8 => object,
    ]
}

fn same_answers(a: &MetaIndex, b: &MetaIndex) {
    assert_eq!(a.rows(), b.rows());
    for f in FILTERS {
        let f = Filter::parse(f).unwrap();
        assert_eq!(a.select(&f), b.select(&f), "{}", f.text());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn round_trip(
        meta in prop::collection::vec(metadata(), 0..120),
        removes in prop::collection::vec(any::<prop::sample::Index>(), 0..30),
    ) {
        // built in one go
        let built = MetaIndex::build(meta.iter().map(|m| m.as_deref()));
        let bytes = codec::to_vec(&built);
        let back = codec::decode(&bytes).unwrap();
        same_answers(&built, &back);
        prop_assert_eq!(codec::to_vec(&back), bytes.clone());
        prop_assert_eq!(codec::decode_rows(&bytes, meta.len()).unwrap().rows(), meta.len());
        prop_assert_eq!(
            codec::decode_rows(&bytes, meta.len() + 1).err().map(|e| e.code()),
            Some(ErrorCode::Corrupt)
        );
        // with history: rows removed (still in the universe, no longer members)
        let mut ix = built.clone();
        if !meta.is_empty() {
            for i in &removes {
                let r = i.index(meta.len());
                ix.remove(r as u32, meta[r].as_deref());
            }
        }
        let bytes = codec::to_vec(&ix);
        let back = codec::decode(&bytes).unwrap();
        same_answers(&ix, &back);
        for r in 0..meta.len() as u32 {
            prop_assert_eq!(ix.is_member(r), back.is_member(r));
        }
        prop_assert_eq!(codec::to_vec(&back), bytes.clone());
        // the decoded index keeps being maintained like the original
        let (mut a, mut b) = (ix, back);
        for (r, m) in meta.iter().enumerate() {
            if !a.is_member(r as u32) {
                a.insert(r as u32, m.as_deref());
                b.insert(r as u32, m.as_deref());
            } else if r % 3 == 0 {
                a.remove(r as u32, m.as_deref());
                b.remove(r as u32, m.as_deref());
            }
        }
        a.insert(meta.len() as u32, Some(r#"{"n":7,"g":1,"t":["x"]}"#));
        b.insert(meta.len() as u32, Some(r#"{"n":7,"g":1,"t":["x"]}"#));
        same_answers(&a, &b);
        prop_assert_eq!(codec::to_vec(&a), codec::to_vec(&b));
    }

    #[test]
    fn damaged_bytes_are_corrupt_never_a_panic(
        meta in prop::collection::vec(metadata(), 1..40),
        at in any::<prop::sample::Index>(),
        xor in 1u8..=255,
    ) {
        let ix = MetaIndex::build(meta.iter().map(|m| m.as_deref()));
        let good = codec::to_vec(&ix);
        let mut b = good.clone();
        let i = at.index(b.len());
        b[i] ^= xor;
        // a flip may leave a valid index (another value, another row): then it decodes whole
        if let Err(e) = codec::decode_rows(&b, meta.len()) {
            prop_assert_eq!(e.code(), ErrorCode::Corrupt);
        }
        if let Err(e) = codec::decode(&b) {
            prop_assert_eq!(e.code(), ErrorCode::Corrupt);
        }
        prop_assert_eq!(
            codec::decode_rows(&good[..i], meta.len()).err().map(|e| e.code()),
            Some(ErrorCode::Corrupt)
        );
        let mut longer = good.clone();
        longer.push(0);
        prop_assert_eq!(
            codec::decode_rows(&longer, meta.len()).err().map(|e| e.code()),
            Some(ErrorCode::Corrupt)
        );
    }

    #[test]
    fn garbage_is_corrupt(mut b in prop::collection::vec(any::<u8>(), 0..200)) {
        if let Err(e) = codec::decode(&b) {
            prop_assert_eq!(e.code(), ErrorCode::Corrupt);
        }
        if !b.is_empty() {
            b[0] = codec::VERSION;
        }
        if let Err(e) = codec::decode_rows(&b, 50) {
            prop_assert_eq!(e.code(), ErrorCode::Corrupt);
        }
    }
}

#[test]
fn inconsistent_encodings_are_refused() {
    let ix = MetaIndex::build([Some(r#"{"a":1,"b":"x"}"#), None, Some(r#"{"a":[2,1]}"#)]);
    let good = codec::to_vec(&ix);
    assert!(codec::decode_rows(&good, 3).is_ok());
    let corrupt = |b: &[u8]| {
        let e = codec::decode_rows(b, 3).expect_err("refused");
        assert_eq!(e.code(), ErrorCode::Corrupt, "{e}");
        e.to_string()
    };
    // hand-made: version, universe 3, no absent row, then the given paths
    let with_paths = |paths: &[u8]| [&[codec::VERSION, 3, 0][..], paths].concat();
    assert!(codec::decode_rows(&with_paths(&[0]), 3).is_ok());
    // version
    let mut b = good.clone();
    b[0] = 2;
    assert!(corrupt(&b).contains("version"));
    // a row past the universe; unsorted postings (gaps are unsigned: a repeat needs a wrap)
    assert!(corrupt(&with_paths(&[1, 1, b'a', 1, 3, 0])).contains("outside"));
    // a path with no row
    assert!(corrupt(&with_paths(&[1, 1, b'a', 0, 0])).contains("no row"));
    // paths out of order, a repeated path
    let p = |name: u8| [1, name, 1, 0, 0];
    assert!(corrupt(&with_paths(&[&[2][..], &p(b'b'), &p(b'a')].concat())).contains("order"));
    assert!(corrupt(&with_paths(&[&[2][..], &p(b'a'), &p(b'a')].concat())).contains("order"));
    // a value out of order, a value with no row, an unknown tag, a NaN, a -0
    let path_a = [1, b'a', 1, 0];
    let v = |tag: u8| [tag, 1, 0, 0];
    assert!(corrupt(&with_paths(
        &[&[1][..], &path_a, &[2], &v(2), &v(1)].concat()
    ))
    .contains("order"));
    assert!(corrupt(&with_paths(&[&[1][..], &path_a, &[1, 0, 0, 0]].concat())).contains("no row"));
    assert!(corrupt(&with_paths(&[&[1][..], &path_a, &[1], &v(9)].concat())).contains("tag"));
    for x in [f64::NAN, f64::INFINITY, -0.0] {
        let mut val = vec![3];
        val.extend_from_slice(&x.to_le_bytes());
        val.extend_from_slice(&[1, 0, 0]);
        let b = with_paths(&[&[1][..], &path_a, &[1], &val].concat());
        assert!(corrupt(&b).contains("number"), "{x}");
    }
    // a row that is not a member (row 0 absent, named present)
    let b = [&[codec::VERSION, 3, 1, 0, 1][..], &path_a, &[0]].concat();
    assert!(corrupt(&b).contains("not a member"));
    // a path that is not UTF-8; an overlong varint; a count past the bytes left
    assert!(corrupt(&with_paths(&[1, 1, 0xff, 1, 0, 0])).contains("UTF-8"));
    assert!(corrupt(&[codec::VERSION, 0x83, 0x00, 0, 0]).contains("varint"));
    assert!(corrupt(&with_paths(&[0xff, 0xff, 0x03])).contains("announced"));
    // another universe; bytes after the end
    assert!(corrupt(&[codec::VERSION, 4, 0, 0]).contains("rows"));
    assert!(corrupt(&[&good[..], &[0]].concat()).contains("after the end"));
}
