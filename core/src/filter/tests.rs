use super::index::MetaIndex;
use super::Filter;

const RECORDS: &[Option<&str>] = &[
    Some(r#"{"source":"wordnet","year":1994,"tags":["a","b"],"user":{"id":7,"name":"Ann"}}"#),
    Some(r#"{"source":"gcide","year":2001.5,"tags":["b"],"user":{"id":8},"note":null}"#),
    Some(r#"{"source":"fortune","year":"1994","tags":"abc","flag":true}"#),
    None,
    Some(r#"[1,2,3]"#),
    Some(r#"{"source":"wordnet","year":1990,"items":[{"k":1},{"k":2}],"flag":false}"#),
    Some(r#"{"year":-0.0,"nested":[[5,6]]}"#),
];

fn rows(f: &str) -> Vec<usize> {
    let f = Filter::parse(f).unwrap_or_else(|e| panic!("{f}: {e}"));
    let reference: Vec<usize> = (0..RECORDS.len())
        .filter(|&r| f.matches(RECORDS[r]))
        .collect();
    let ix = MetaIndex::build(RECORDS.iter().copied());
    let indexed: Vec<usize> = ix.select(&f).iter().map(|r| r as usize).collect();
    assert_eq!(indexed, reference, "index vs reference for {f:?}");
    reference
}

#[test]
fn operators() {
    for (f, want) in [
        (r#"{}"#, vec![0, 1, 2, 3, 4, 5, 6]),
        (r#"{"source":"wordnet"}"#, vec![0, 5]),
        (r#"{"source":{"$eq":"wordnet"}}"#, vec![0, 5]),
        (r#"{"source":{"$ne":"wordnet"}}"#, vec![1, 2, 3, 4, 6]),
        (r#"{"year":{"$gte":1990,"$lt":2000}}"#, vec![0, 5]),
        (r#"{"year":{"$gt":1994}}"#, vec![1]),
        (r#"{"year":{"$lte":1990}}"#, vec![5, 6]),
        (r#"{"year":0}"#, vec![6]),
        (r#"{"year":{"$gte":"1"}}"#, vec![2]),
        (r#"{"year":1994}"#, vec![0]),
        (r#"{"tags":"b"}"#, vec![0, 1]),
        (r#"{"tags":{"$in":["a","zz"]}}"#, vec![0]),
        (r#"{"tags":{"$nin":["a","zz"]}}"#, vec![1, 2, 3, 4, 5, 6]),
        (r#"{"tags":{"$contains":"b"}}"#, vec![0, 1, 2]),
        (r#"{"tags":{"$contains":"bc"}}"#, vec![2]),
        (r#"{"user.id":7}"#, vec![0]),
        (r#"{"user":{"id":{"$gt":7}}}"#, vec![1]),
        (r#"{"user.name":{"$exists":true}}"#, vec![0]),
        (r#"{"user":{"$exists":true}}"#, vec![0, 1]),
        (r#"{"note":{"$exists":true}}"#, vec![1]),
        (r#"{"note":null}"#, vec![1]),
        (r#"{"flag":{"$exists":false}}"#, vec![0, 1, 3, 4, 6]),
        (r#"{"flag":true}"#, vec![2]),
        (r#"{"flag":false}"#, vec![5]),
        (r#"{"items.k":2}"#, vec![5]),
        (r#"{"nested":6}"#, vec![6]),
        (r#"{"$or":[{"source":"gcide"},{"flag":true}]}"#, vec![1, 2]),
        (
            r#"{"$and":[{"source":"wordnet"},{"year":{"$lt":1991}}]}"#,
            vec![5],
        ),
        (r#"{"$not":{"source":"wordnet"}}"#, vec![1, 2, 3, 4, 6]),
        (r#"{"year":{"$not":{"$gt":1991}}}"#, vec![2, 3, 4, 5, 6]),
        (r#"{"source":"nope"}"#, vec![]),
        (r#"{"nope":{"$exists":false}}"#, vec![0, 1, 2, 3, 4, 5, 6]),
        (
            r#"{"$not":{"nope":{"$exists":true}}}"#,
            vec![0, 1, 2, 3, 4, 5, 6],
        ),
    ] {
        assert_eq!(rows(f), want, "{f}");
    }
}

#[test]
fn bad_filters_name_their_part() {
    for (f, part) in [
        (r#"{"year":{"$gtt":1}}"#, "filter.year.$gtt"),
        (r#"{"$nor":[]}"#, "filter.$nor"),
        (r#"{"year":{"$gt":true}}"#, "filter.year.$gt"),
        (r#"{"tag":{"$in":"a"}}"#, "filter.tag.$in"),
        (r#"{"tag":{"$in":[[1]]}}"#, "filter.tag.$in[0]"),
        (r#"{"tag":{"$exists":1}}"#, "filter.tag.$exists"),
        (r#"{"$or":[]}"#, "filter.$or"),
        (r#"{"$or":[{"a":1},3]}"#, "filter.$or[1]"),
        (r#"{"tag":["a"]}"#, "filter.tag"),
        (r#"{"tag":{}}"#, "filter.tag"),
        (r#"{"tag":{"$eq":1,"x":2}}"#, "filter.tag"),
        (r#"{"a..b":1}"#, "filter.a..b"),
        (r#"[1]"#, "filter"),
        (r#"{"a":{"$not":3}}"#, "filter.a.$not"),
    ] {
        let e = Filter::parse(f).expect_err(f);
        assert_eq!(e.code().as_str(), "HV_INVALID_ARGUMENT", "{f}");
        assert!(e.to_string().contains(part), "{f}: {e}");
    }
    let e = Filter::parse("{").expect_err("not json");
    assert_eq!(e.code().as_str(), "HV_INVALID_ARGUMENT");
    let deep = format!("{}1{}", r#"{"$not":"#.repeat(40), "}".repeat(40));
    assert!(Filter::parse(&deep)
        .expect_err("deep")
        .to_string()
        .contains("deeper"));
    let many: Vec<String> = (0..2000).map(|i| i.to_string()).collect();
    let wide = format!(r#"{{"a":{{"$in":[{}]}}}}"#, many.join(","));
    assert!(Filter::parse(&wide)
        .expect_err("wide")
        .to_string()
        .contains("more than"));
}

#[test]
fn incremental_index_equals_a_rebuilt_one() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let filters = [
        r#"{"g":1}"#,
        r#"{"n":{"$gte":10,"$lt":40}}"#,
        r#"{"t":{"$contains":"x"}}"#,
        r#"{"$or":[{"g":2},{"n":{"$lt":5}}]}"#,
        r#"{"g":{"$ne":0}}"#,
    ]
    .map(|f| Filter::parse(f).unwrap());
    let mut meta: Vec<Option<String>> = Vec::new();
    let mut ix = MetaIndex::default();
    for step in 0..3000 {
        let m = Some(format!(
            r#"{{"g":{},"n":{},"t":["{}","y"]}}"#,
            rng.random_range(0..4),
            rng.random_range(0..100),
            ["x", "z"][rng.random_range(0..2)]
        ));
        if meta.is_empty() || rng.random_range(0..4) > 0 {
            ix.insert(meta.len() as u32, m.as_deref());
            meta.push(m);
        } else {
            // swap_remove as the mutable segment does it
            let r = rng.random_range(0..meta.len());
            let last = meta.len() - 1;
            ix.remove(r as u32, meta[r].as_deref());
            if r != last {
                ix.remove(last as u32, meta[last].as_deref());
                ix.insert(r as u32, meta[last].as_deref());
            }
            meta.swap_remove(r);
            ix.truncate(meta.len());
        }
        if step % 500 == 499 {
            let fresh = MetaIndex::build(meta.iter().map(|m| m.as_deref()));
            for f in &filters {
                assert_eq!(ix.select(f), fresh.select(f), "step {step} {f:?}");
                let want = meta.iter().filter(|m| f.matches(m.as_deref())).count();
                assert_eq!(ix.select(f).count(), want);
            }
        }
    }
}

#[test]
fn deep_metadata_is_indexed_to_the_parser_limit() {
    // 120 levels: below serde_json's limit of 128, so writes accept it and filters must see it
    let depth = 120;
    let meta = format!(
        "{}{{\"v\":1}}{}",
        "{\"d\":".repeat(depth),
        "}".repeat(depth)
    );
    assert!(crate::metadata::is_json(&meta));
    let path = format!("{}v", "d.".repeat(depth));
    let ix = MetaIndex::build([Some(meta.as_str())]);
    for (f, want) in [
        (format!(r#"{{"{path}":1}}"#), 1),
        (format!(r#"{{"{path}":{{"$exists":false}}}}"#), 0),
        (format!(r#"{{"{path}":{{"$ne":1}}}}"#), 0),
    ] {
        let f = Filter::parse(&f).unwrap();
        assert_eq!(ix.select(&f).count(), want, "{}", f.text());
        assert_eq!(usize::from(f.matches(Some(&meta))), want);
    }
    // past the parser's limit the metadata is refused at write time
    let too_deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    let mut col = crate::Collection::new(1, crate::Metric::L2).unwrap();
    let e = col
        .add(
            vec![crate::VectorId::Int(1)],
            &[1.0],
            Some(vec![Some(too_deep)]),
        )
        .unwrap_err();
    assert_eq!(e.code().as_str(), "HV_INVALID_ARGUMENT");
    assert!(e.to_string().contains("deeper than 128"), "{e}");
    let ok = format!("{}1{}", "[".repeat(128), "]".repeat(128));
    col.add(vec![crate::VectorId::Int(2)], &[1.0], Some(vec![Some(ok)]))
        .unwrap();
}
