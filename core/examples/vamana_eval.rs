//! Measures the Vamana graph (`horosvec_core::graph`) on a real dataset: build time with 1 and 2
//! threads, then recall@10 against the ground truth, single-thread QPS, distance computations and
//! hops per query at several list sizes `ef`, all with exact distances.
//!
//! ```text
//! cargo run --release --example vamana_eval -- [options]
//!   --set minilm|sift|glove|sample   dataset (default minilm): ../shared/data/<set>, or data/sample
//!   --data DIR                       folder of the shared datasets (default: ../shared/data, then /work/shared/data)
//!   --sample DIR                     folder of the sample set (default: <repository>/data/sample)
//!   --n N                            use the first N base rows (ground truth recomputed exactly)
//!   --queries N                      use the first N queries (default: all)
//!   --r 24,32,48  --l 64,100  --alpha A  --passes P  --seed S   (defaults: VamanaParams's)
//!   --ef 10,16,24,32,48,64,96,128,200
//!   --threads 1,2                    build with each thread count (the graphs must be identical)
//!   --start random|empty             start graph of the first pass (default: VamanaParams's)
//!   --ab-prefetch                    also measure QPS with prefetch hints ignored
//! ```
//!
//! Files: `.fvecs` / `.ivecs` (per row an int32 count then that many f32 / i32, little-endian) and
//! `.f16vecs` (per row an int32 count then IEEE halfs). Output: one markdown table per (R, L).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use horosvec_core::graph::{
    search_unfiltered, FlatNodes, FlatQuery, Graph, QueryDistance, SearchScratch, StartGraph,
    VamanaParams,
};
use horosvec_core::Metric;

/// Rows of a `.fvecs`/`.ivecs`-style file: (values, dim). `conv` turns 4 bytes into a value.
fn read_vecs<T>(path: &Path, width: usize, conv: impl Fn(&[u8]) -> T) -> (Vec<T>, usize) {
    let bytes = fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    let mut at = 0;
    let mut dim = 0;
    while at + 4 <= bytes.len() {
        let d = i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        assert!(dim == 0 || d == dim, "{}: mixed dimensions", path.display());
        dim = d;
        at += 4;
        for j in 0..d {
            out.push(conv(&bytes[at + j * width..at + (j + 1) * width]));
        }
        at += d * width;
    }
    (out, dim)
}

fn read_fvecs(p: &Path) -> (Vec<f32>, usize) {
    read_vecs(p, 4, |b| f32::from_le_bytes(b.try_into().unwrap()))
}

fn read_ivecs(p: &Path) -> (Vec<u32>, usize) {
    read_vecs(p, 4, |b| i32::from_le_bytes(b.try_into().unwrap()) as u32)
}

fn read_f16vecs(p: &Path) -> (Vec<f32>, usize) {
    read_vecs(p, 2, |b| {
        half::f16::from_le_bytes(b.try_into().unwrap()).to_f32()
    })
}

struct Args {
    set: String,
    data: Option<PathBuf>,
    sample: Option<PathBuf>,
    n: Option<usize>,
    queries: Option<usize>,
    r: Vec<usize>,
    l: Vec<usize>,
    alpha: f32,
    passes: usize,
    seed: u64,
    ef: Vec<usize>,
    threads: Vec<usize>,
    start: StartGraph,
    ab_prefetch: bool,
}

/// A query that ignores prefetch hints (to measure what prefetching buys).
struct NoPrefetch<Q>(Q);

impl<Q: QueryDistance> QueryDistance for NoPrefetch<Q> {
    fn distance(&mut self, node: u32) -> f32 {
        self.0.distance(node)
    }
}

fn list(s: &str) -> Vec<usize> {
    s.split(',')
        .map(|x| x.trim().parse().expect("a number"))
        .collect()
}

fn parse_args() -> Args {
    let d = VamanaParams::default();
    let mut a = Args {
        set: "minilm".into(),
        data: None,
        sample: None,
        n: None,
        queries: None,
        r: vec![d.r],
        l: vec![d.l],
        alpha: d.alpha,
        passes: d.passes,
        seed: d.seed,
        ef: vec![10, 16, 24, 32, 48, 64, 96, 128, 200],
        threads: vec![1, 2],
        start: d.start,
        ab_prefetch: false,
    };
    let v: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < v.len() {
        if v[i] == "--ab-prefetch" {
            a.ab_prefetch = true;
            i += 1;
            continue;
        }
        let val = v.get(i + 1).cloned().unwrap_or_default();
        match v[i].as_str() {
            "--set" => a.set = val,
            "--data" => a.data = Some(val.into()),
            "--sample" => a.sample = Some(val.into()),
            "--n" => a.n = Some(val.parse().unwrap()),
            "--queries" => a.queries = Some(val.parse().unwrap()),
            "--r" => a.r = list(&val),
            "--l" => a.l = list(&val),
            "--alpha" => a.alpha = val.parse().unwrap(),
            "--passes" => a.passes = val.parse().unwrap(),
            "--seed" => a.seed = val.parse().unwrap(),
            "--ef" => a.ef = list(&val),
            "--threads" => a.threads = list(&val),
            "--start" => {
                a.start = match val.as_str() {
                    "random" => StartGraph::Random,
                    "empty" => StartGraph::Empty,
                    other => panic!("unknown start {other}"),
                }
            }
            other => panic!("unknown option {other}"),
        }
        i += 2;
    }
    a
}

/// Base (row-normalised for cosine), queries, dim, metric, ground truth (top ≥ 10 per query).
struct Dataset {
    base: Vec<f32>,
    queries: Vec<f32>,
    dim: usize,
    metric: Metric,
    gt: Vec<u32>,
    gt_k: usize,
}

fn load(a: &Args) -> Dataset {
    let shared = a.data.clone().unwrap_or_else(|| {
        let rel = PathBuf::from("../shared/data");
        if rel.exists() {
            rel
        } else {
            PathBuf::from("/work/shared/data")
        }
    });
    let sample = a
        .sample
        .clone()
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/sample"));
    let (base, dim, queries, gt, gt_k, metric) = match a.set.as_str() {
        "sample" => {
            let (b, d) = read_f16vecs(&sample.join("base.f16vecs"));
            let (q, _) = read_fvecs(&sample.join("queries.fvecs"));
            let (g, k) = read_ivecs(&sample.join("groundtruth.ivecs"));
            (b, d, q, g, k, Metric::Cosine)
        }
        set => {
            let (dir, metric) = match set {
                "minilm" => ("minilm384", Metric::Cosine),
                "sift" => ("sift128", Metric::L2),
                "glove" => ("glove50", Metric::Cosine),
                other => panic!("unknown set {other}"),
            };
            let dir = shared.join(dir);
            let (b, d) = read_fvecs(&dir.join("base.fvecs"));
            let (q, _) = read_fvecs(&dir.join("query.fvecs"));
            let (g, k) = read_ivecs(&dir.join("groundtruth.ivecs"));
            (b, d, q, g, k, metric)
        }
    };
    let mut ds = Dataset {
        base,
        queries,
        dim,
        metric,
        gt,
        gt_k,
    };
    if metric == Metric::Cosine {
        for r in ds
            .base
            .chunks_exact_mut(dim)
            .chain(ds.queries.chunks_exact_mut(dim))
        {
            let n = r.iter().map(|x| x * x).sum::<f32>().sqrt();
            if n > 0.0 {
                r.iter_mut().for_each(|x| *x /= n);
            }
        }
    }
    if let Some(nq) = a.queries {
        ds.queries.truncate(nq * dim);
        ds.gt.truncate(nq * ds.gt_k);
    }
    if let Some(n) = a.n {
        if n * dim < ds.base.len() {
            ds.base.truncate(n * dim);
            // Exact top-10 over the prefix.
            let nodes = FlatNodes::new(&ds.base, dim, metric);
            let mut gt = Vec::new();
            for q in ds.queries.chunks_exact(dim) {
                let mut fq = FlatQuery::new(nodes, q);
                let mut all: Vec<(f32, u32)> = (0..n as u32).map(|i| (fq.distance(i), i)).collect();
                all.select_nth_unstable_by(10, |x, y| x.0.total_cmp(&y.0));
                all.truncate(10);
                all.sort_by(|x, y| x.0.total_cmp(&y.0));
                gt.extend(all.iter().map(|c| c.1));
            }
            ds.gt = gt;
            ds.gt_k = 10;
        }
    }
    ds
}

/// (busy jiffies of the whole machine, jiffies of this process) from /proc (Linux; else zeros):
/// their difference over an interval is the CPU time other processes took meanwhile.
fn cpu_jiffies() -> (u64, u64) {
    let all = fs::read_to_string("/proc/stat").unwrap_or_default();
    let busy = all
        .lines()
        .next()
        .map(|l| {
            let v: Vec<u64> = l
                .split_whitespace()
                .skip(1)
                .filter_map(|x| x.parse().ok())
                .collect();
            v.iter().sum::<u64>() - v.get(3).copied().unwrap_or(0) - v.get(4).copied().unwrap_or(0)
        })
        .unwrap_or(0);
    let me = fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let f: Vec<&str> = me
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let mine = f.get(11).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0)
        + f.get(12).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0);
    (busy, mine)
}

/// Builds with `threads` threads; returns the graph, the wall time and the mean number of cores
/// other processes kept busy meanwhile (a shared machine makes timings noisy).
fn build(nodes: &FlatNodes<'_>, p: &VamanaParams, threads: usize) -> (Graph, f64, f64) {
    let (b0, m0) = cpu_jiffies();
    let t = Instant::now();
    let cancel = AtomicBool::new(false);
    let run = || Graph::build_with(nodes, p, &|_, _| {}, &cancel).expect("build");
    #[cfg(feature = "parallel")]
    let g = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(run);
    #[cfg(not(feature = "parallel"))]
    let g = {
        let _ = threads;
        run()
    };
    let secs = t.elapsed().as_secs_f64();
    let (b1, m1) = cpu_jiffies();
    let others = (b1 - b0).saturating_sub(m1 - m0) as f64 / 100.0 / secs;
    (g, secs, others)
}

fn main() {
    let a = parse_args();
    let t = Instant::now();
    let ds = load(&a);
    let n = ds.base.len() / ds.dim;
    let nq = ds.queries.len() / ds.dim;
    println!(
        "# {}: {n} × {} ({}), {nq} queries, kernels {}, loaded in {:.1} s",
        a.set,
        ds.dim,
        ds.metric,
        horosvec_core::kernels().name,
        t.elapsed().as_secs_f64()
    );
    let nodes = FlatNodes::new(&ds.base, ds.dim, ds.metric);
    for &r in &a.r {
        for &l in &a.l {
            let p = VamanaParams {
                r,
                l,
                alpha: a.alpha,
                passes: a.passes,
                seed: a.seed,
                start: a.start,
            };
            let mut graph: Option<Graph> = None;
            let mut times = Vec::new();
            for &th in &a.threads {
                let (g, secs, others) = build(&nodes, &p, th);
                times.push(format!(
                    "{th} thr {secs:.1} s (others busy {others:.1} cores)"
                ));
                if let Some(prev) = &graph {
                    assert!(
                        *prev == g,
                        "graphs built with different thread counts differ"
                    );
                }
                graph = Some(g);
            }
            let g = graph.expect("at least one thread count");
            let avg_deg = g.edge_count() as f64 / n as f64;
            println!(
                "\n## R={r} L={l} α={} passes={} start={:?}: build {}; mean degree {avg_deg:.1}; graph {:.1} MB",
                a.alpha,
                a.passes,
                a.start,
                times.join(", "),
                g.bytes() as f64 / 1e6
            );
            if a.ab_prefetch {
                println!("| ef | recall@10 | QPS (1 thread) | dist/query | hops/query | QPS, no prefetch |");
                println!("|---:|---:|---:|---:|---:|---:|");
            } else {
                println!("| ef | recall@10 | QPS (1 thread) | dist/query | hops/query |");
                println!("|---:|---:|---:|---:|---:|");
            }
            let mut scratch = SearchScratch::with_capacity(n, 256);
            let mut curve: Vec<(f64, f64, usize)> = Vec::new();
            for &ef in &a.ef {
                let ef = ef.max(10);
                // Recall and counters.
                let (mut hits, mut dist, mut hops) = (0usize, 0u64, 0u64);
                for (qi, q) in ds.queries.chunks_exact(ds.dim).enumerate() {
                    let mut fq = FlatQuery::new(nodes, q);
                    let res = search_unfiltered(&g, &mut fq, ef, &mut scratch);
                    let truth = &ds.gt[qi * ds.gt_k..qi * ds.gt_k + 10];
                    hits += res.iter().take(10).filter(|c| truth.contains(&c.1)).count();
                    dist += scratch.stats().distances;
                    hops += scratch.stats().hops;
                }
                // QPS: best of 3 passes over all queries.
                let mut best = f64::INFINITY;
                for _ in 0..3 {
                    let t = Instant::now();
                    let mut sink = 0u32;
                    for q in ds.queries.chunks_exact(ds.dim) {
                        let mut fq = FlatQuery::new(nodes, q);
                        sink ^= search_unfiltered(&g, &mut fq, ef, &mut scratch)[0].1;
                    }
                    std::hint::black_box(sink);
                    best = best.min(t.elapsed().as_secs_f64());
                }
                let mut extra = String::new();
                if a.ab_prefetch {
                    let mut best_np = f64::INFINITY;
                    for _ in 0..3 {
                        let t = Instant::now();
                        let mut sink = 0u32;
                        for q in ds.queries.chunks_exact(ds.dim) {
                            let mut fq = NoPrefetch(FlatQuery::new(nodes, q));
                            sink ^= search_unfiltered(&g, &mut fq, ef, &mut scratch)[0].1;
                        }
                        std::hint::black_box(sink);
                        best_np = best_np.min(t.elapsed().as_secs_f64());
                    }
                    extra = format!(" {:.0} |", nq as f64 / best_np);
                }
                curve.push((hits as f64 / (nq * 10) as f64, nq as f64 / best, ef));
                println!(
                    "| {ef} | {:.4} | {:.0} | {:.0} | {:.1} |{extra}",
                    hits as f64 / (nq * 10) as f64,
                    nq as f64 / best,
                    dist as f64 / nq as f64,
                    hops as f64 / nq as f64
                );
            }
            for target in [0.90, 0.95, 0.99] {
                match curve.iter().position(|c| c.0 >= target) {
                    Some(0) => println!(
                        "recall {target}: reached at ef {} ({:.0} QPS)",
                        curve[0].2, curve[0].1
                    ),
                    Some(i) => {
                        let (r0, q0, _) = curve[i - 1];
                        let (r1, q1, e1) = curve[i];
                        let t = (target - r0) / (r1 - r0);
                        println!(
                            "recall {target}: ≈ {:.0} QPS (interpolated; ef {e1} gives {r1:.4})",
                            q0 + t * (q1 - q0)
                        );
                    }
                    None => println!("recall {target}: not reached"),
                }
            }
        }
    }
}
