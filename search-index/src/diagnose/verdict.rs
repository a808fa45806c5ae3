//! The outcome of a diagnosis, and the sentence that says it.
//!
//! Takes the log's report, the ranked entries and the first failing line; yields the
//! [`Diagnosis`]. A diagnosis needs the best entry to have a line that is not a consequence of
//! another error (not collateral, not a plain line standing in for one) covering enough of one
//! of its signatures, with that signature's defining words, and no finding against it.
//! Anything weaker is "possible": candidates, no claim. A log where nothing points at an entry
//! gets "no entry explains this log", with the error line that was found.

use super::{DiagnosedEntry, Diagnosis, Evidence, LogRef, Outcome, Role};
use crate::log::cues::CueKind;
use crate::log::{LineKind, LogReport};

/// The signature coverage a line needs to name the failure.
const MIN_COVERAGE: f32 = 0.5;
/// The same, when the log has no error line and only its plain lines matched.
const MIN_CONTEXT_COVERAGE: f32 = 0.8;
/// The share of a signature's defining words a line needs to name the failure.
const MIN_DEFINING: f32 = 0.75;
/// Another entry whose signature the same line covers to within this much matches it as well.
const SAME_MATCH: f32 = 0.05;

pub(super) fn decide(
    report: &LogReport,
    mut entries: Vec<DiagnosedEntry>,
    first_failure: Option<LogRef>,
    collateral: Vec<LogRef>,
) -> Diagnosis {
    let only_context = report
        .error_lines
        .iter()
        .all(|l| l.kind == LineKind::Context);
    let warnings: Vec<usize> = (report.error_lines.iter())
        .filter(|l| l.kind == LineKind::Warning)
        .map(|l| l.line)
        .collect();
    let outcome = match entries.first() {
        None => Outcome::None,
        Some(top) if names_the_failure(top, &entries[1..], only_context, &warnings) => {
            Outcome::Diagnosis
        }
        Some(_) if only_context && entries.iter().all(|e| e.cues.is_empty()) => Outcome::None,
        Some(_) => Outcome::Possible,
    };
    if outcome == Outcome::None {
        entries.clear();
    }
    let error_lines = if only_context {
        0
    } else {
        report.error_lines.len()
    };
    let message = message(
        report,
        &entries,
        first_failure.as_ref(),
        outcome,
        error_lines,
    );
    Diagnosis {
        diagnosed: outcome == Outcome::Diagnosis,
        outcome,
        message,
        lines_read: report.lines_read,
        error_lines,
        entries,
        first_failure,
        collateral,
    }
}

/// Whether the entry's evidence is enough to name the failure. When another candidate matches
/// the same line as well (one message, several causes: a CUDA OOM), the message alone cannot
/// tell them apart, and only a cue or a finding for the entry can.
fn names_the_failure(
    entry: &DiagnosedEntry,
    others: &[DiagnosedEntry],
    only_context: bool,
    warnings: &[usize],
) -> bool {
    let threshold = if only_context {
        MIN_CONTEXT_COVERAGE
    } else {
        MIN_COVERAGE
    };
    // A launcher's summary is a consequence, unless a finding says what it shows (a SIGKILL
    // with no Python error before it).
    let found = !entry.reasons.is_empty() && !entry.ruled_out;
    // Warnings name the failure only when no traceback points elsewhere: a run that crashed
    // after routine warnings failed from the crash.
    let crashed_elsewhere = others
        .iter()
        .any(|o| o.cues.iter().any(|c| c.kind == CueKind::Frame));
    let decisive = |e: &&Evidence| {
        (e.role != Role::Collateral || found)
            && !(crashed_elsewhere && warnings.contains(&e.line))
            && (only_context || e.role != Role::Context)
            && e.coverage >= threshold
            && e.defining >= MIN_DEFINING
    };
    let Some(best) = entry
        .evidence
        .iter()
        .filter(decisive)
        .max_by(|a, b| a.coverage.total_cmp(&b.coverage))
    else {
        return false;
    };
    if entry.ruled_out {
        return false;
    }
    let shared = others.iter().any(|o| {
        !o.ruled_out
            && o.evidence.iter().any(|e| {
                e.line == best.line
                    && e.coverage + SAME_MATCH >= best.coverage
                    && e.defining >= MIN_DEFINING
            })
    });
    let separated = !entry.cues.is_empty() || found;
    !shared || separated
}

/// One sentence for people.
fn message(
    report: &LogReport,
    entries: &[DiagnosedEntry],
    first_failure: Option<&LogRef>,
    outcome: Outcome,
    error_lines: usize,
) -> String {
    let at = |f: &LogRef| {
        let rank = f
            .ranks
            .first()
            .map(|r| format!(", rank {r}"))
            .unwrap_or_default();
        format!("line {}{rank}", f.line)
    };
    match outcome {
        Outcome::Diagnosis => match first_failure {
            Some(f) => format!(
                "Likely {} (first failing line {}).",
                entries[0].title,
                at(f).trim_start_matches("line ")
            ),
            None => format!("Likely {}.", entries[0].title),
        },
        Outcome::Possible => {
            let names: Vec<&str> = entries.iter().take(3).map(|e| e.title.as_str()).collect();
            let first = first_failure
                .map(|f| format!(" (first failing {})", at(f)))
                .unwrap_or_default();
            format!(
                "Possibly {}{first}: something in the log points there, but not closely enough to name the failure.",
                names.join(", or ")
            )
        }
        Outcome::None => match first_failure {
            Some(f) => format!(
                "No entry explains this log. The first error found is at {}: {}",
                at(f),
                f.text
            ),
            None if error_lines == 0 => format!(
                "No entry explains this log: no error lines found in {} lines.",
                report.lines_read
            ),
            None => format!("No entry explains this log ({error_lines} error line(s) found)."),
        },
    }
}
