//! `errata search`, `errata diagnose` and the bundle, on the real `content/` and on logs the
//! project wrote (`tests/fixtures/logs/`).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use errata_search::{diagnose, Searcher};

use super::{run, Run, ERRATA};

pub(super) fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn log(name: &str) -> PathBuf {
    repo().join("tests/fixtures/logs").join(name)
}

/// The real content, indexed in memory.
fn searcher() -> (Searcher, Vec<errata_search::Document>) {
    let checked = errata::pipeline::check(&repo(), false, None).expect("content/ checks");
    let docs = errata::search::documents(&checked.site);
    (Searcher::from_documents(&docs).expect("indexes"), docs)
}

pub(crate) fn errata(args: &[&str]) -> Run {
    let mut c = Command::new(ERRATA);
    c.args(args)
        .arg("--root")
        .arg(repo())
        .env_remove("GITHUB_ACTIONS");
    run(c)
}

#[test]
fn every_signature_ranks_an_entry_that_has_it_first() {
    let (searcher, docs) = searcher();
    let mut checked = 0;
    for doc in &docs {
        for sig in &doc.signatures {
            let hits = searcher.search(sig, 3).unwrap();
            let top = hits.first().unwrap_or_else(|| panic!("no hit for {sig:?}"));
            let owner = docs.iter().find(|d| d.slug == top.slug).unwrap();
            assert!(
                owner
                    .signatures
                    .iter()
                    .any(|s| errata_search::tokenizer::terms(s)
                        == errata_search::tokenizer::terms(sig)),
                "signature {sig:?} of {} ranks {} first",
                doc.slug,
                top.slug
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} signatures");
}

#[test]
fn a_pasted_error_with_its_numbers_finds_its_entry() {
    let (searcher, _) = searcher();
    let cases = [
        ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.53 GiB. GPU 0 has a total capacity of 23.65 GiB", "memory/"),
        ("[rank3]:[E1201 10:00:00.1 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=BROADCAST, Timeout(ms)=1800000) ran for 1800044 milliseconds before timing out.", "nccl-watchdog-timeout"),
        ("RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!", "tensors-on-different-devices"),
        ("RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x512 and 256x10)", "matmul-shape-mismatch"),
    ];
    for (query, expected) in cases {
        let hits = searcher.search(query, 3).unwrap();
        assert!(
            hits.first()
                .is_some_and(|h| h.slug == expected || h.url.starts_with(expected)),
            "{query:?} -> {hits:#?}"
        );
        assert!(hits[0].matched_signature.is_some());
    }
}

#[test]
fn any_text_is_a_valid_query() {
    let (searcher, _) = searcher();
    let junk: String = (0..2_000)
        .map(|i| ["AND(", "\"", ":", "[x", "OR", "*", "~2", "\\", "🙂"][i % 9])
        .collect();
    for q in [
        "",
        "\"",
        "AND(",
        "title:",
        "foo:bar OR (baz",
        "[rank0]: ",
        "\u{0}\u{1}",
        "-",
        "****",
        junk.as_str(),
        &"x ".repeat(5_000),
    ] {
        searcher.search(q, 5).unwrap();
    }
    for q in ["\"unbalanced", "AND(OR", "title:(x", ""] {
        let r = errata(&["search", q]);
        assert!(matches!(r.code, Some(0) | Some(1)), "{q:?}: {r}");
        assert!(!r.stderr.contains("error"), "{q:?}: {r}");
    }
}

#[test]
fn search_json_is_data() {
    let r = errata(&[
        "search",
        "--json",
        "ncclUnhandledCudaError: Call to CUDA function failed.",
    ]);
    r.assert_exit(0);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(
        v["hits"][0]["slug"], "nccl-communicator-error",
        "{}",
        r.stdout
    );
    assert!(v["hits"][0]["score"].as_f64().unwrap() > 0.0);
}

#[test]
fn multi_rank_log_names_the_first_failing_rank_and_the_collateral() {
    let (searcher, _) = searcher();
    let text = std::fs::read_to_string(log("multi-rank-oom.log")).unwrap();
    let d = diagnose(&searcher, &text).unwrap();
    // The OOM message is several entries' (batch, activation spike, long sequences): named as
    // possible, with the batch entry first.
    assert_eq!(
        d.outcome,
        errata_search::diagnose::Outcome::Possible,
        "{d:#?}"
    );
    assert_eq!(d.entries[0].slug, "cuda-oom-batch-too-large");
    assert!(
        d.entries[0].url.starts_with("memory/"),
        "top entry {}",
        d.entries[0].slug
    );
    let first = d.first_failure.as_ref().unwrap();
    assert_eq!(first.ranks, [3]);
    assert!(
        first
            .text
            .starts_with("torch.OutOfMemoryError: CUDA out of memory."),
        "{first:?}"
    );
    let cause = &d.entries[0].evidence[0];
    assert_eq!((cause.line, cause.role.as_str()), (first.line, "cause"));
    let collateral: Vec<&str> = d.collateral.iter().map(|c| c.text.as_str()).collect();
    assert!(
        collateral
            .iter()
            .any(|t| t.starts_with("Watchdog caught collective operation timeout")),
        "{collateral:?}"
    );
    assert!(
        collateral.iter().any(|t| t.contains("ChildFailedError")),
        "{collateral:?}"
    );
    let watchdog = d
        .collateral
        .iter()
        .find(|c| c.text.starts_with("Watchdog"))
        .unwrap();
    assert_eq!(watchdog.ranks, [0, 1, 2, 4, 5, 6, 7], "folded across ranks");
    assert_eq!(watchdog.count, 7);
}

#[test]
fn diagnose_cli_text_and_json() {
    let path = log("multi-rank-oom.log");
    // A CUDA OOM and nothing else that tells its causes apart: candidates, no claim (exit 1).
    let r = errata(&["diagnose", path.to_str().unwrap()]);
    r.assert_exit(1)
        .stdout_has("Possibly CUDA Out of Memory")
        .stdout_has("1. possibly:")
        .stdout_has("first failing line")
        .stdout_has("(rank 3)")
        .stdout_has("collateral");
    assert!(
        !r.stdout.contains("score"),
        "raw scores in the human output\n{r}"
    );
    let r = errata(&["diagnose", "--json", path.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["first_failure"]["ranks"][0], 3);
    assert_eq!(
        (v["diagnosed"].clone(), v["outcome"].clone()),
        (false.into(), "possible".into())
    );
    assert!(
        v["entries"][0]["score"].is_number(),
        "--json keeps the scores"
    );
    // A reason against an entry says so, as the page does.
    let tmp = tempfile::tempdir().unwrap();
    let oom = tmp.path().join("oom.log");
    std::fs::write(&oom, "RuntimeError: CUDA out of memory. Tried to allocate 77.40 GiB (GPU 0; 38.61 GiB total capacity; 13.21 GiB already allocated; 8.81 GiB free; 26.90 GiB reserved in total by PyTorch)\n").unwrap();
    let r = errata(&["diagnose", oom.to_str().unwrap()]);
    r.stdout_has("ruled out: 77.40 GiB requested")
        .stdout_has("reasoning: line 1: one allocation");
}

#[test]
fn a_clean_log_says_so() {
    let r = errata(&["diagnose", log("clean-run.log").to_str().unwrap()]);
    r.assert_exit(1)
        .stdout_has("No entry explains this log: no error lines found in 200 lines.");
}

#[test]
fn diagnose_reads_stdin() {
    let mut c = Command::new(ERRATA);
    c.args(["diagnose", "-", "--root"]).arg(repo());
    c.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"[rank0]: RuntimeError: CUDA error: an illegal memory access was encountered\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("cuda-illegal-memory-access"), "{stdout}");
}

/// A reader that has gone (`| head -c 100`) ends the command quietly: no panic, no exit 101.
#[test]
fn a_closed_stdout_ends_diagnose_quietly() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(ERRATA)
        .args(["diagnose", "--json"])
        .arg(log("multi-rank-oom.log"))
        .arg("--root")
        .arg(repo())
        .stdout(writer)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(101), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        !out.status.success(),
        "a write to a closed pipe cannot succeed"
    );
}

/// The same for a build whose stderr is closed (`errata build 2>&1 | head -2`): the site is
/// still written, and the command ends without a panic.
#[test]
fn a_closed_stderr_ends_build_quietly() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let status = Command::new(ERRATA)
        .args(["build", "--root"])
        .arg(repo())
        .arg("--output")
        .arg(&out)
        .stderr(writer)
        .status()
        .unwrap();
    assert_ne!(status.code(), Some(101));
    assert!(out.join("index.html").is_file());
}

/// The repository's content built by the binary into a temporary folder (kept while the first
/// value lives).
pub(super) fn built_site() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let mut c = Command::new(ERRATA);
    c.args(["build", "--root"])
        .arg(repo())
        .arg("--output")
        .arg(&out);
    run(c).assert_exit(0);
    (tmp, out)
}

#[test]
fn bundle_and_memory_answer_alike() {
    let (_tmp, out) = built_site();
    let bundle = std::fs::read(out.join(errata::search::BUNDLE_PATH)).unwrap();
    let from_bundle = Searcher::from_bundle(&bundle).unwrap();
    let (in_memory, _) = searcher();
    let logs = [
        std::fs::read_to_string(log("multi-rank-oom.log")).unwrap(),
        "Killed\nexitcode  : -9 (pid: 12)".to_owned(),
    ];
    for q in [
        "CUDA out of memory",
        "ncclSystemError",
        "weights_only",
        "loss is nan",
        "c10::Error",
    ] {
        assert_eq!(
            serde_json::to_string(&from_bundle.search(q, 10).unwrap()).unwrap(),
            serde_json::to_string(&in_memory.search(q, 10).unwrap()).unwrap(),
            "{q}"
        );
    }
    for l in &logs {
        assert_eq!(
            serde_json::to_string(&diagnose(&from_bundle, l).unwrap()).unwrap(),
            serde_json::to_string(&diagnose(&in_memory, l).unwrap()).unwrap()
        );
    }
    // and the bundle is deterministic
    let documents =
        errata::search::documents(&errata::pipeline::check(&repo(), false, None).unwrap().site);
    let again = errata_search::build_bundle(&documents).unwrap();
    assert_eq!(bundle, again);
}

#[test]
fn a_corrupted_bundle_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.bundle");
    std::fs::write(&bad, b"ERRATAIX\x01\x00\x00\x00garbage").unwrap();
    let r = errata(&["search", "--bundle", bad.to_str().unwrap(), "oom"]);
    r.assert_exit(2)
        .stderr_has("bad.bundle: search bundle is truncated");
    let _ = Path::new(&bad);
}

/// Found by the bundle fuzz target, each with the bundle's checksum recomputed over damaged
/// index files: two made tantivy panic (opening, searching), three made it allocate more than
/// 2 GB or ask for a 140 TB buffer. The CRC-32 in each index file's footer is now checked
/// before tantivy reads the file, so each is an error naming the file, at once.
#[test]
fn bundles_damaged_inside_a_valid_checksum_are_errors() {
    for name in [
        "tantivy-panic",
        "damaged-terms",
        "oom-fast-columns",
        "oom-fast-columns-2",
        "alloc-store-skip-index",
    ] {
        let fixture = repo().join(format!("tests/fixtures/bundles/{name}.bundle"));
        let started = std::time::Instant::now();
        let r = errata(&[
            "search",
            "--bundle",
            fixture.to_str().unwrap(),
            "CUDA out of memory",
        ]);
        r.assert_exit(2).stderr_has(&format!(
            "{name}.bundle: search bundle is corrupted: its index files are damaged ("
        ));
        assert!(
            r.stderr.contains(": checksum mismatch)") || r.stderr.contains(": no valid footer)"),
            "{name}: {}",
            r.stderr
        );
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
        assert!(
            started.elapsed().as_secs() < 30,
            "{name} took {:?}",
            started.elapsed()
        );
    }
}

/// Every single damaged byte of a real bundle is an error, even with the bundle's own checksum
/// recomputed: a byte in an index file fails that file's footer checksum, and a byte elsewhere
/// (the file table, `meta.json`, the entries' metadata) fails to parse or to match, or leaves a
/// bundle that still opens and answers.
#[test]
fn every_damaged_byte_of_a_bundle_is_caught_behind_a_recomputed_checksum() {
    let (_, docs) = searcher();
    let bundle = errata_search::build_bundle(&docs[..3]).unwrap();
    let files = errata_search::bundle::unpack(&bundle).unwrap();
    // Where each index file's bytes are in the bundle.
    let footed: Vec<std::ops::Range<usize>> = files
        .iter()
        .filter(|(n, _)| {
            ![
                "meta.json",
                ".managed.json",
                errata_search::bundle::DOCS_FILE,
            ]
            .contains(&n.as_str())
        })
        .map(|(_, data)| {
            let at = data.as_ptr() as usize - bundle.as_ptr() as usize;
            at..at + data.len()
        })
        .collect();
    assert!(footed.len() >= 5, "{} index files", footed.len());
    let (mut caught_by_footer, mut other_errors, mut still_open) = (0, 0, 0);
    for i in 16..bundle.len() {
        let mut b = bundle.clone();
        b[i] ^= 0xff;
        let crc = crc32fast::hash(&b[16..]);
        b[12..16].copy_from_slice(&crc.to_le_bytes());
        let result = Searcher::from_bundle(&b);
        if footed.iter().any(|r| r.contains(&i)) {
            match result {
                Err(errata_search::BundleError::Corrupt { reason })
                    if reason.starts_with("its index files are damaged (")
                        && (reason.ends_with(": checksum mismatch)")
                            || reason.ends_with(": no valid footer)")) =>
                {
                    caught_by_footer += 1
                }
                other => panic!("byte {i}: {:?}", other.err()),
            }
        } else {
            match result {
                Ok(s) => {
                    assert!(s.search("CUDA out of memory", 5).is_ok(), "byte {i}");
                    still_open += 1;
                }
                Err(errata_search::BundleError::Corrupt { reason })
                    if reason.starts_with("its index files are damaged") =>
                {
                    panic!("byte {i}: tantivy failed on its own files: {reason}")
                }
                Err(_) => other_errors += 1,
            }
        }
    }
    eprintln!(
        "{} bytes: {caught_by_footer} caught by a footer, {other_errors} other errors, {still_open} open",
        bundle.len() - 16
    );
    assert!(caught_by_footer > bundle.len() / 2);
}

/// The same input as `tantivy-panic.bundle`, forged: the CRC-32 in each index file's footer
/// recomputed too, so the damage reaches tantivy, which panics while opening it. Natively the
/// panic is an error, without a panic message.
#[test]
fn a_forged_bundle_that_makes_tantivy_panic_is_an_error() {
    let fixture = repo().join("tests/fixtures/bundles/tantivy-panic-forged.bundle");
    let r = errata(&[
        "search",
        "--bundle",
        fixture.to_str().unwrap(),
        "CUDA out of memory",
    ]);
    r.assert_exit(2).stderr_has(
        "tantivy-panic-forged.bundle: search bundle is corrupted: its index files are damaged",
    );
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    let bytes = std::fs::read(&fixture).unwrap();
    assert!(matches!(
        errata_search::Searcher::from_bundle(&bytes),
        Err(errata_search::BundleError::Corrupt { .. })
    ));
}

/// `damaged-terms.bundle` forged the same way: it opens, but its term dictionary makes tantivy
/// panic during a search. The search reports it instead.
#[test]
fn a_forged_bundle_damaged_in_its_terms_is_reported_when_searched() {
    let fixture = repo().join("tests/fixtures/bundles/damaged-terms-forged.bundle");
    let path = fixture.to_str().unwrap();
    let r = errata(&["search", "--bundle", path, "CUDA out of memory"]);
    r.assert_exit(2)
        .stderr_has("search bundle is corrupted: its index files are damaged");
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("oom.log");
    std::fs::write(
        &log,
        "step 1\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n",
    )
    .unwrap();
    let r = errata(&["diagnose", "--bundle", path, log.to_str().unwrap()]);
    r.assert_exit(2)
        .stderr_has("search bundle is corrupted: its index files are damaged");
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
}

/// Each failure page of the real content shows how many of bench/cases' threads report it
/// (counted here from the case files and classes.json), with links to the first three.
#[test]
fn failure_pages_show_where_readers_hit_them() {
    let cases = repo().join("bench/cases");
    let classes: BTreeMap<String, serde_json::Value> =
        serde_json::from_str(&fs::read_to_string(cases.join("classes.json")).unwrap()).unwrap();
    let mut expected: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for item in fs::read_dir(&cases).unwrap() {
        let path = item.unwrap().path();
        if path.extension().is_none_or(|x| x != "case") {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        let header = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key))
                .map(|v| v.trim().to_owned())
                .unwrap()
        };
        let (url, class) = (header("url:"), header("class:"));
        for slug in classes
            .get(&class)
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
        {
            expected
                .entry(slug.as_str().unwrap().to_owned())
                .or_default()
                .push(url.clone());
        }
    }
    let (_tmp, out) = built_site();
    let page = |path: &str| fs::read_to_string(out.join(path).join("index.html")).unwrap();
    let oom = page("memory/cuda-oom-batch-too-large");
    let urls = &expected["cuda-oom-batch-too-large"];
    assert!(urls.len() > 3, "{urls:?}");
    assert!(
        oom.contains(&format!("{} public threads among the cases", urls.len())),
        "the count is shown"
    );
    let section = &oom[oom.find("id=\"reported\"").unwrap()..];
    let section = &section[..section.find("</section>").unwrap()];
    assert_eq!(section.matches("<li>").count(), 3, "{section}");
    for link in section.split("href=\"").skip(1) {
        let url = &link[..link.find('"').unwrap()];
        assert!(
            urls.iter().any(|u| u == url),
            "{url} is not a case of the entry"
        );
    }
    // A guide has no failure to be reported, and none of its page says so.
    assert!(!page("memory/memory-summary-tool-usage").contains("id=\"reported\""));
}
