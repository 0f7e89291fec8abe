//! Time to add many records with string ids (the cost of the id map), for profiling.
//! `cargo run --release -p horosvec-core --example ids_bench -- 800000`
use horosvec_core::{Collection, Metric, VectorId};
use std::time::Instant;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(800_000);
    let ids: Vec<VectorId> = (0..n).map(|i| VectorId::Str(format!("id-{i}"))).collect();
    let v = vec![1.0f32; n * 2];
    let mut col = Collection::new(2, Metric::L2).unwrap();
    let t = Instant::now();
    col.add(ids, &v, None).unwrap();
    println!("{n} string ids: {:.0} ms", t.elapsed().as_secs_f64() * 1e3);
}
