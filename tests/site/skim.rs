//! Skimming changes nothing the reader reports: the project's own cases (bench/cases) and
//! fixture logs, with long runs of a training job's step lines put before them, between every
//! 30 of their lines and after them, read skimming and read line by line give the same report.

use std::path::PathBuf;

use errata_search::log::cues::CueSet;
use errata_search::log::{paste_shape, read_log_with, LogReader, LogReport};
use errata_search::Searcher;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn searcher() -> Searcher {
    let checked = errata::pipeline::check(&repo(), false, None).expect("content/ checks");
    Searcher::from_documents(&errata::search::documents(&checked.site)).expect("indexes")
}

/// The logs the project wrote: each case's log (after its `---`) and the fixture logs.
fn logs() -> Vec<(String, String)> {
    let mut logs = Vec::new();
    let dirs = [
        repo().join("bench/cases"),
        repo().join("tests/fixtures/logs"),
    ];
    for dir in dirs {
        for entry in std::fs::read_dir(&dir).expect("a folder of logs") {
            let path = entry.expect("an entry").path();
            let text = std::fs::read_to_string(&path).expect("a text file");
            let log = match path.extension().and_then(|e| e.to_str()) {
                Some("case") => text.split_once("\n---\n").map(|(_, log)| log.to_owned()),
                Some("log") => Some(text),
                _ => None,
            };
            if let Some(log) = log {
                logs.push((path.display().to_string(), log));
            }
        }
    }
    assert!(logs.len() > 200, "{} logs", logs.len());
    logs
}

/// A job's step lines, as several ranks print them, in runs longer than a skimmed run.
fn steps(lines: usize, ranked: bool) -> String {
    (0..lines)
        .map(|i| {
            let prefix = if ranked { format!("[rank{}]:", i % 4) } else { String::new() };
            format!("{prefix}[2024-05-01 10:{:02}:00,000] [INFO] [trainer.py:120:log] step {i} loss 1.{:03} lr 3e-4 grad_norm 0.9{} tokens/s 51234\n", i % 60, i % 997, i % 10)
        })
        .collect()
}

/// Reads every line of `log`, in the shape it was pasted, as reading the whole text does.
fn line_by_line(log: &str, reader: LogReader) -> LogReport {
    let mut reader = reader.shaped(paste_shape(log));
    if !log.is_empty() {
        for line in log.strip_suffix('\n').unwrap_or(log).split('\n') {
            reader.line(line);
        }
    }
    reader.finish()
}

#[test]
fn skimming_reads_what_reading_every_line_reads() {
    let searcher = searcher();
    let cues = searcher.cues().0;
    let logs = logs();
    // Two threads, half the logs each: this is the longest test of the suite.
    let half = logs.len().div_ceil(2);
    let skimmed_runs: usize = std::thread::scope(|s| {
        let parts: Vec<_> = (logs.chunks(half))
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|(n, l)| skims_alike(n, l, cues))
                        .sum::<usize>()
                })
            })
            .collect();
        parts
            .into_iter()
            .map(|p| p.join().expect("a reading thread"))
            .sum::<usize>()
    });
    assert!(skimmed_runs > 1000);
}

/// Reads `log` with a job's step lines before it, between every 30 of its lines and after it,
/// skimming and line by line, and checks the two reports are the same; yields how many texts
/// it read.
fn skims_alike(name: &str, log: &str, cues: &CueSet) -> usize {
    let lines: Vec<&str> = log.lines().collect();
    let mut runs = 0;
    for ranked in [false, true] {
        let noise = steps(1200, ranked);
        let between: String = lines
            .chunks(30)
            .map(|piece| format!("{}\n{noise}", piece.join("\n")))
            .collect();
        let variants = [
            format!("{noise}{log}"),
            between,
            format!(
                "{log}{}{noise}",
                if log.ends_with('\n') { "" } else { "\n" }
            ),
        ];
        for (at, text) in variants.iter().enumerate() {
            let skimmed = read_log_with(text, LogReader::watching(cues));
            let read = line_by_line(text, LogReader::watching(cues));
            assert_eq!(skimmed, read, "{name}: noise at {at}, ranked {ranked}");
            runs += 1;
        }
    }
    runs
}

/// `errata diagnose` reads its input in buffers whose edges fall inside lines; it skims as
/// the library does on the whole text, so a long job's log gets the same diagnosis from both.
#[test]
fn the_command_skims_as_the_library_does() {
    let searcher = searcher();
    let oom = "Traceback (most recent call last):
  File \"/opt/venv/lib/python3.10/site-packages/torch/optim/adamw.py\", line 180, in step
    adamw(
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.20 GiB is free.
";
    let log = format!("{}{oom}{}[rank2]: RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, unhandled cuda error\n{}", steps(40_000, true), steps(9_000, false), steps(500, true));
    let dir = tempfile::tempdir().expect("a temp folder");
    let path = dir.path().join("job.log");
    std::fs::write(&path, &log).expect("written");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_errata"))
        .arg("diagnose")
        .arg("--json")
        .arg("--root")
        .arg(repo())
        .arg(&path)
        .output()
        .expect("errata runs");
    let cli: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    // Through text, as the command prints it (its scores are f32s).
    let diagnosis = errata_search::diagnose(&searcher, &log).expect("a sound index");
    let library: serde_json::Value =
        serde_json::from_str(&serde_json::to_string(&diagnosis).expect("JSON")).expect("JSON");
    for key in [
        "outcome",
        "lines_read",
        "error_lines",
        "first_failure",
        "entries",
        "collateral",
    ] {
        assert_eq!(cli[key], library[key], "{key}");
    }
    assert_eq!(cli["lines_read"], 49_505, "{cli:#}");
}

/// The words skimming looks for, with the project's cues among them, fit in the grams that
/// two Teddy searchers take (on a machine Teddy is built for): more would fall back to a DFA
/// several times slower, and `errata run` would cost a job more.
#[test]
fn the_words_of_the_projects_cues_fit_in_teddys_grams() {
    let searcher = searcher();
    let skim = errata_search::log::Skim::new(&LogReader::watching(searcher.cues().0));
    let (grams, teddy) = skim.grams();
    assert!(grams <= 128, "{grams} grams");
    if cfg!(target_arch = "x86_64") && std::is_x86_feature_detected!("avx2") {
        assert!(teddy, "{grams} grams, and Teddy was not built");
    }
}
