//! Times queries and diagnoses against a bundle; run by `bench/search-speed`, never by tests.
//!
//!     cargo run --release -p errata-search --example query_bench -- BUNDLE [LOG...]
//!
//! Prints the bundle load time, the median and 90th percentile of single queries (each query
//! run many times), and for each log the median time of a full diagnosis.

use std::time::Instant;

use errata_search::{diagnose, Searcher};

const QUERIES: [&str; 8] = [
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE)",
    "RuntimeError: Expected all tensors to be on the same device",
    "ncclUnhandledCudaError: Call to CUDA function failed.",
    "loss is nan",
    "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x8 and 16x2)",
    "AssertionError partition mismatch failed",
    "c10::Error",
];

fn median(mut xs: Vec<f64>) -> (f64, f64) {
    xs.sort_by(f64::total_cmp);
    (xs[xs.len() / 2], xs[xs.len() * 9 / 10])
}

fn main() {
    let mut args = std::env::args().skip(1);
    let bundle = args.next().expect("usage: query_bench BUNDLE [LOG...]");
    let bytes = std::fs::read(&bundle).expect("read bundle");
    let t = Instant::now();
    let searcher = Searcher::from_bundle(&bytes).expect("open bundle");
    println!(
        "bundle: {} entries, {} bytes, opened in {:.1} ms",
        searcher.len(),
        bytes.len(),
        t.elapsed().as_secs_f64() * 1e3
    );
    let mut times = Vec::new();
    for _ in 0..50 {
        for q in QUERIES {
            let t = Instant::now();
            let _ = std::hint::black_box(searcher.search(q, 10));
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    let (p50, p90) = median(times);
    println!(
        "query (top 10, {} runs): median {p50:.3} ms, p90 {p90:.3} ms",
        50 * QUERIES.len()
    );
    for log in args {
        let text = std::fs::read_to_string(&log).expect("read log");
        let mut times = Vec::new();
        let mut summary = String::new();
        for _ in 0..3 {
            let t = Instant::now();
            let d = diagnose(&searcher, &text).expect("the index is sound");
            times.push(t.elapsed().as_secs_f64() * 1e3);
            summary = format!(
                "{} lines, {} error lines, top {:?}",
                d.lines_read,
                d.error_lines,
                d.entries.first().map(|e| &e.slug)
            );
        }
        let (p50, _) = median(times);
        println!(
            "diagnose {log} ({} MB): median {p50:.0} ms of 3 ({summary})",
            text.len() / 1_000_000
        );
    }
}
