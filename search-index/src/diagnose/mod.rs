//! Naming the failure in a whole log, with the evidence.
//!
//! Takes a [`Searcher`] and a log; reads it with [`crate::log::read_log`], ranks the entries its
//! error lines point at ([`combine`]), reports the first non-collateral error as the likely
//! cause with its rank and lists the collateral ones apart, and decides whether the best entry
//! matches well enough to name the failure ([`verdict`]). A log without a recognisable failure
//! says so.

mod attention;
mod combine;
mod findings;
mod long_input;
mod loss;
pub mod oom;
mod precedence;
mod signal;
mod steps;
mod ties;
mod verdict;
mod wording;

/// A fact errata reads from a log's numbers, which an entry may declare it is decided by
/// (`cues.findings`).
#[derive(Debug, Clone, Copy)]
pub struct FindingKind {
    /// The name an entry's `cues.findings` gives.
    pub name: &'static str,
    /// What the finding says of a log, for authors (the front-matter schema shows it).
    pub says: &'static str,
    /// Whether the finding tells the entries that declare it apart from each other's causes,
    /// so that among equally likely entries one of each cause comes first (see `ties`). One that
    /// only says memory ran out, which every memory entry declares, does not.
    pub tells_causes_apart: bool,
}

/// The facts errata reads from a log's numbers, with what each says.
pub const FINDINGS: [FindingKind; 10] = [
    FindingKind {
        name: "oom-fragmentation",
        says: "the out-of-memory message's numbers: whether the memory reserved but unallocated, with what the device has free, could have served the request",
        tells_causes_apart: true,
    },
    FindingKind {
        name: "host-oom-kill",
        says: "a process killed with SIGKILL (exit code -9 or 137, `Signals.SIGKILL`, `OOMKilled`, a bare `Killed`) before any Python error: the mark of the operating system's out-of-memory killer",
        tells_causes_apart: true,
    },
    FindingKind {
        name: "shm-bus-error",
        says: "a process dead of SIGBUS (exit code -7 or 135, `Signal 7 (SIGBUS)`, `Bus error`) before any Python error: shared memory that `/dev/shm` could not back",
        tells_causes_apart: true,
    },
    FindingKind {
        name: "oom-attention",
        says: "an out-of-memory error whose allocation was attention's: raised in attention code, or for a tensor ending in two equal dimensions of 2,048 or more (sequence by sequence)",
        tells_causes_apart: true,
    },
    FindingKind {
        name: "oom-logits",
        says: "an out-of-memory error raised in the logits over the vocabulary or their loss (`cross_entropy`, `log_softmax`, `lm_head`, a `logits.float()` upcast, log-probabilities): logits that grow with the tokens in the batch",
        tells_causes_apart: true,
    },
    FindingKind {
        name: "oom-larger-than-device",
        says: "an out-of-memory error whose one failed allocation is larger than the device's whole capacity: a tensor that grows faster than the batch, not a batch a little too large",
        tells_causes_apart: true,
    },
    FindingKind {
        name: "oom-large-allocation",
        says: "an out-of-memory error whose one failed allocation is a quarter of the device's capacity or more, and 2 GiB or more (and not more than all of it): one tensor that grows faster than the batch, more often than a batch a little too large",
        tells_causes_apart: true,
    },
    FindingKind {
        name: "oom-after-many-steps",
        says: "an out-of-memory error after the run's progress lines counted 100 steps or more (not while evaluating): it speaks against the entries that declare it, since a batch too large fails within its first steps",
        tells_causes_apart: true,
    },
    FindingKind {
        name: "oom-long-input",
        says: "an out-of-memory error right after the log stated an input of 2,048 tokens or more (`input_ids: torch.Size([4, 131072])`, or characters at four a token): a tensor that grows with the input's length",
        tells_causes_apart: true,
    },
    FindingKind {
        name: oom::OTHER_WORDS,
        says: "an out-of-memory error in a wording no entry's out-of-memory signature holds (another release's or library's: `OOM when allocating tensor`, `RESOURCE_EXHAUSTED`, `... : out of memory`), in a log whose lines name no entry's failure: memory ran out, whatever words say so",
        tells_causes_apart: false,
    },
];

/// Whether the finding named `name` tells causes apart ([`FindingKind::tells_causes_apart`]).
pub(crate) fn tells_causes_apart(name: &str) -> bool {
    (FINDINGS.iter()).any(|f| f.name == name && f.tells_causes_apart)
}

use serde::Serialize;

pub use combine::MAX_ENTRIES;

/// The coverage of a line that holds its whole signature ([`Evidence::whole`]); below it by
/// rounding only.
const WHOLE_COVERAGE: f32 = 0.999;

use crate::bundle::BundleError;
use crate::log::cues::CueKind;
use crate::log::{read_log_with, ErrorLine, LineKind, LogReader, LogReport};
use crate::searcher::Searcher;

/// What an evidence line is to the diagnosis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// The first failing line: the likely cause.
    Cause,
    /// Another error line.
    Error,
    Warning,
    /// A consequence of an earlier error: an abort, a launcher summary, another rank's timeout.
    Collateral,
    /// A plain line of a log with no error line at all.
    Context,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Cause => "cause",
            Role::Error => "error",
            Role::Warning => "warning",
            Role::Collateral => "collateral",
            Role::Context => "context",
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A log line that matched an entry.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Evidence {
    pub line: usize,
    pub text: String,
    pub ranks: Vec<u32>,
    pub count: usize,
    /// The entry's signature this line matched best.
    pub signature: Option<String>,
    pub coverage: f32,
    /// The share of that signature's defining words the line has (see [`crate::Hit`]).
    pub defining: f32,
    /// Whether that signature has defining words at all.
    #[serde(skip)]
    pub defined: bool,
    /// Whether the line shares more than common words with the signature, or all of it (see
    /// [`crate::Hit`]): one word, or words most signatures have, do not point at the entry.
    #[serde(skip)]
    pub specific: bool,
    /// The share of the signature's message (its words after the exception's name) the line
    /// holds in its order (see [`crate::Hit`]).
    #[serde(skip)]
    pub phrase: f32,
    /// How many terms of the signature's message the line holds as one run in its order.
    #[serde(skip)]
    pub run: usize,
    /// The line says the start of the signature's message, then another word where the message
    /// goes on (see [`crate::Hit`]): a sibling message, which may point at the entry and never
    /// names it.
    #[serde(skip)]
    pub ends_otherwise: bool,
    /// The line holds less than half of the signature, or none of its message (its words after
    /// the exception's name, or a message ended on another word), or a sibling of it
    /// ([`Evidence::ends_otherwise`]): it shares words with it, no more.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    /// The line holds every word of that signature, in its order: it matches it, where a line
    /// that is neither this nor [`Evidence::partial`] matches part of it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub whole: bool,
    /// For a line right after an exception line, read as the rest of its message: that
    /// exception line's number.
    #[serde(skip)]
    pub follows: Option<usize>,
    pub role: Role,
    pub score: f32,
}

/// A cue an entry declares, where it turned up in the log.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CueEvidence {
    pub line: usize,
    pub text: String,
    /// The cue as the entry declares it.
    pub cue: String,
    pub kind: CueKind,
}

/// What the diagnosis claims.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// An entry explains the log: its signature's wording, defining words included, is in a
    /// line that is not a consequence of another error, and no finding speaks against it.
    Diagnosis,
    /// Candidates, no claim: something points at them, but not enough to name the failure.
    Possible,
    /// No entry explains this log.
    None,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DiagnosedEntry {
    pub slug: String,
    pub title: String,
    pub url: String,
    pub category: String,
    pub severity: String,
    pub score: f32,
    pub evidence: Vec<Evidence>,
    /// The entry's cues that turned up.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cues: Vec<CueEvidence>,
    /// What the numbers of the log say for or against the entry, in words.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
    /// A finding rules the entry out.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ruled_out: bool,
    /// A finding speaks against the entry without ruling it out: it stays a candidate but
    /// never leads.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub doubted: bool,
}

impl DiagnosedEntry {
    /// Whether a finding speaks against the entry, ruling it out or doubting it.
    pub fn against(&self) -> bool {
        self.ruled_out || self.doubted
    }

    /// Whether a finding speaks for the entry: it has reasons, and none is against it.
    pub fn found(&self) -> bool {
        !self.reasons.is_empty() && !self.against()
    }
}

/// A line of the log with its rank.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LogRef {
    pub line: usize,
    pub text: String,
    pub ranks: Vec<u32>,
    pub count: usize,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Diagnosis {
    /// True when the outcome is a diagnosis.
    pub diagnosed: bool,
    pub outcome: Outcome,
    /// One sentence for people.
    pub message: String,
    pub lines_read: usize,
    pub error_lines: usize,
    pub entries: Vec<DiagnosedEntry>,
    /// The earliest error that is not a consequence of another: the likely cause.
    pub first_failure: Option<LogRef>,
    /// Errors that follow from the first one (aborts, launcher summaries, other ranks).
    pub collateral: Vec<LogRef>,
}

fn log_ref(line: &ErrorLine) -> LogRef {
    LogRef {
        line: line.line,
        text: line.text.clone(),
        ranks: line.ranks.clone(),
        count: line.count,
    }
}

/// Diagnoses a whole log. An error only when the index turns out to be damaged.
pub fn diagnose(searcher: &Searcher, log: &str) -> Result<Diagnosis, BundleError> {
    let reader = LogReader::watching(searcher.cues().0);
    diagnose_report(searcher, read_log_with(log, reader))
}

/// Diagnoses a log already read (with a reader watching for `searcher.cues()`, for cues to
/// count).
pub fn diagnose_report(searcher: &Searcher, report: LogReport) -> Result<Diagnosis, BundleError> {
    let cause = cause_index(&report.error_lines);
    let entries = combine::ranked_entries(searcher, &report, cause)?;
    let first_failure = cause.map(|i| log_ref(&report.error_lines[i]));
    let collateral = report
        .error_lines
        .iter()
        .filter(|l| l.collateral)
        .map(log_ref)
        .collect();
    let mut diagnosis = verdict::decide(&report, entries, first_failure, collateral);
    for e in &mut diagnosis.entries {
        keep_the_proof(&mut e.evidence);
    }
    Ok(diagnosis)
}

/// Leaves out of an entry's evidence the lines that only share words with one of its
/// signatures ([`Evidence::partial`]) when another line matches one: the reader is shown the
/// lines that prove the entry, not a URL or a command that has a word of it. The first failing
/// line stays whatever it shares, since the reader weighs the entry against it; an entry that
/// no line matches keeps them all, as what points at it. The answer was decided before.
fn keep_the_proof(evidence: &mut Vec<Evidence>) {
    if evidence.iter().any(|e| !e.partial) {
        evidence.retain(|e| !e.partial || e.role == Role::Cause);
    }
}

/// The earliest error that is not a consequence of another, else the earliest warning.
fn cause_index(lines: &[ErrorLine]) -> Option<usize> {
    lines
        .iter()
        .position(|l| !l.collateral && matches!(l.kind, LineKind::Exception | LineKind::Error))
        .or_else(|| {
            lines
                .iter()
                .position(|l| !l.collateral && l.kind == LineKind::Warning)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::cues::CueKind;
    use crate::test_documents::document;
    use crate::writer::build_bundle;
    use crate::Document;

    fn searcher() -> Searcher {
        let docs = [
            Document {
                signatures: vec![
                    "operation not permitted when stream is capturing".into(),
                    "CUDA graph capture failed on the current stream".into(),
                ],
                ..document("graphs", "")
            },
            document("shapes", "Received incompatible tensor with shape"),
        ];
        Searcher::from_bundle(&build_bundle(&docs).unwrap()).unwrap()
    }

    /// A line that matches a signature is the proof shown; a line that only shares words with
    /// another of the entry's signatures (`current stream`) is left out of it.
    #[test]
    fn the_evidence_shown_is_the_lines_that_match() {
        let log = "RuntimeError: CUDA error: operation not permitted when stream is capturing\nERROR: the current stream, see above\n";
        let d = diagnose(&searcher(), log).unwrap();
        let graphs = &d.entries[0];
        assert_eq!(graphs.slug, "graphs", "{d:#?}");
        assert_eq!(
            graphs.evidence.iter().map(|e| e.line).collect::<Vec<_>>(),
            [1],
            "{d:#?}"
        );
    }

    /// An exception raised where an entry declares one of its messages is raised points at the
    /// entry, whatever its words; a place that two entries declare, or a user's file of the same
    /// name, points at none.
    #[test]
    fn where_an_exception_is_raised_points_at_the_entry_that_raises_there() {
        let raised_in = |slug: &str, signature: &str, place: &str| Document {
            cues: crate::Cues {
                raised_in: vec![place.into()],
                ..Default::default()
            },
            ..document(slug, signature)
        };
        let docs = [
            raised_in(
                "gradients",
                "No gradients provided for any variable",
                "optimizer_v2/utils.py:filter_empty_gradients",
            ),
            raised_in(
                "spawn-a",
                "process terminated with exit code",
                "multiprocessing/spawn.py:join",
            ),
            raised_in(
                "spawn-b",
                "terminated with signal SIGBUS",
                "multiprocessing/spawn.py:join",
            ),
            document("shapes", "Received incompatible tensor with shape"),
            Document {
                cues: crate::Cues {
                    frames: vec!["read_header".into()],
                    raised_in: vec!["weights/loader.py:read_header".into()],
                    ..Default::default()
                },
                ..document("headers", "header too large to read")
            },
        ];
        let searcher = Searcher::from_bundle(&build_bundle(&docs).unwrap()).unwrap();
        let log = |path: &str, function: &str, message: &str| {
            format!("Traceback (most recent call last):\n  File \"/srv/fit.py\", line 61, in step\n    opt.apply_gradients(pairs)\n  File \"{path}\", line 77, in {function}\n    raise ValueError(message)\nValueError: {message}\n")
        };
        let keras =
            "/venv/lib/python3.8/site-packages/tensorflow/python/keras/optimizer_v2/utils.py";
        let d = diagnose(
            &searcher,
            &log(
                keras,
                "filter_empty_gradients",
                "Every variable lacks a gradient",
            ),
        )
        .unwrap();
        assert_eq!(
            d.entries.first().map(|e| e.slug.as_str()),
            Some("gradients"),
            "{d:#?}"
        );
        let cue = &d.entries[0].cues[0];
        assert_eq!(cue.cue, "optimizer_v2/utils.py:filter_empty_gradients");
        assert!(cue.text.ends_with("in filter_empty_gradients"), "{cue:#?}");
        assert_eq!(cue.kind, CueKind::RaisedIn);
        // An entry whose frame cue was found in that frame counts the frame once.
        let loader = "/venv/lib/python3.8/site-packages/weights/loader.py";
        let d = diagnose(&searcher, &log(loader, "read_header", "Header is corrupt")).unwrap();
        let headers = d.entries.iter().find(|e| e.slug == "headers");
        let kinds = headers.map(|e| e.cues.iter().map(|c| c.kind).collect::<Vec<_>>());
        assert_eq!(kinds, Some(vec![CueKind::Frame]), "{d:#?}");
        let spawn = "/venv/lib/python3.8/site-packages/torch/multiprocessing/spawn.py";
        for log in [
            log(
                "/srv/utils.py",
                "filter_empty_gradients",
                "Every variable lacks a gradient",
            ),
            log(spawn, "join", "Every variable lacks a gradient"),
        ] {
            let d = diagnose(&searcher, &log).unwrap();
            assert!(d.entries.iter().all(|e| e.cues.is_empty()), "{d:#?}");
        }
    }

    fn line(line: usize, role: Role, partial: bool) -> Evidence {
        Evidence {
            line,
            text: "a line".into(),
            ranks: Vec::new(),
            count: 1,
            signature: Some("CUDA graph capture failed on the current stream".into()),
            coverage: if partial { 0.3 } else { 1.0 },
            defining: 1.0,
            defined: true,
            specific: true,
            phrase: 1.0,
            run: 3,
            ends_otherwise: false,
            partial,
            whole: !partial,
            follows: None,
            role,
            score: 1.0,
        }
    }

    /// Lines that share words go when another line matches, except the first failing line;
    /// an entry that no line matches keeps them all, as what points at it.
    #[test]
    fn shared_words_are_shown_only_where_nothing_matches_or_on_the_cause() {
        let cases = [
            (
                vec![line(1, Role::Cause, false), line(2, Role::Error, true)],
                vec![1],
            ),
            (
                vec![
                    line(1, Role::Cause, true),
                    line(3, Role::Collateral, false),
                    line(4, Role::Context, true),
                ],
                vec![1, 3],
            ),
            (
                vec![line(1, Role::Cause, true), line(2, Role::Error, true)],
                vec![1, 2],
            ),
        ];
        for (mut evidence, kept) in cases {
            keep_the_proof(&mut evidence);
            assert_eq!(evidence.iter().map(|e| e.line).collect::<Vec<_>>(), kept);
        }
    }
}
