//! The outcome of a diagnosis, and the sentence that says it.
//!
//! Takes the log's report, the ranked entries and the first failing line; yields the
//! [`Diagnosis`]. A diagnosis needs the best entry to have a line that is not a consequence of
//! another error (not collateral, not a plain line standing in for one) covering enough of one
//! of its signatures, with that signature's defining words, and no finding against it.
//! Anything weaker is "possible": candidates, no claim. A log where nothing points at an entry
//! gets "no entry explains this log", with the error line that was found.

use super::oom::is_oom_message;
use super::wording::{holds_the_wording, Wording, MIN_DEFINING, MIN_PHRASE};
use super::{DiagnosedEntry, Diagnosis, Evidence, LogRef, Outcome, Role};
use crate::log::{is_launcher_summary, LineKind, LogReport};
use crate::vocabulary::names_a_generic_exception;

/// The signature coverage a line needs to name the failure.
pub(super) const MIN_COVERAGE: f32 = 0.5;
/// The same, when the log has no error line and only its plain lines matched.
const MIN_CONTEXT_COVERAGE: f32 = 0.8;
/// Another entry whose signature the same line covers to within this much matches it as well.
const SAME_MATCH: f32 = 0.05;
/// The least a line that is not a consequence of another error must share with a signature
/// for it to point at the entry at all: its coverage times the share of its defining words,
/// and its coverage alone (a signature of generic words has no defining word to miss). Below
/// them, and with no cue or finding, no entry explains the log.
const MIN_POINTING: f32 = 0.12;
const MIN_POINTING_COVERAGE: f32 = 0.3;
/// The words in a row of a signature's message a line needs to point at the entry without its
/// defining words ([`says_the_phrase`]): fewer are a common turn of phrase (`terminated with`).
const MIN_PHRASE_RUN: usize = 4;
/// The words in a row of a signature's message a sibling of it ([`Evidence::ends_otherwise`])
/// needs to point at the entry when they are all common words: `Expected all tensors to be on
/// the same device, but found` of `... same device, but got`, where `object has no attribute
/// 'version'` of `object has no attribute 'ds_opt_adam'` is Python's wording for any object.
const SIBLING_RUN: usize = 2 * MIN_PHRASE_RUN;

/// Why the best entry falls short of a diagnosis, for the sentence that says so.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Short {
    /// No line of its covers enough of a signature, with its defining words.
    Weak,
    /// Its best line matches other entries as well, and nothing else tells them apart.
    Rivals,
    /// Its best line is an out-of-memory message, which has several causes, and nothing else
    /// says which.
    OomCauses,
    /// What the log shows besides the line (a finding) speaks for a rival as well.
    SharedFinding,
    /// Its best line is an out-of-memory message, and a cue or a finding of its own puts it
    /// first: a lead, not a claim ([`names_the_failure`]).
    OomLead,
}

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
    let log = Log {
        only_context,
        warnings: (report.error_lines.iter())
            .filter(|l| l.kind == LineKind::Warning)
            .map(|l| l.line)
            .collect(),
        crash: (report.error_lines.iter())
            .find(|l| l.kind == LineKind::Exception && !l.collateral)
            .map(|l| l.line),
    };
    let named = (entries.split_first()).map(|(top, others)| names_the_failure(top, others, &log));
    let outcome = match named {
        None => Outcome::None,
        Some(Ok(())) => Outcome::Diagnosis,
        Some(Err(_)) if only_context && entries.iter().all(|e| e.cues.is_empty()) => Outcome::None,
        Some(Err(_)) if !entries.iter().any(|e| pointed(e, only_reports(report))) => Outcome::None,
        Some(Err(_)) => Outcome::Possible,
    };
    let short = named.and_then(Result::err).unwrap_or(Short::Weak);
    if outcome == Outcome::None {
        entries.clear();
    }
    for entry in &mut entries {
        one_match_per_line(entry);
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
        (outcome, short),
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

/// Keeps each line's best match only (evidence is sorted best first): a line that matched one
/// signature of the entry also shares words with its others (`DataLoader worker (pid(s) N)
/// exited unexpectedly` with `... is killed by signal: Killed.`), and listing those would say
/// the line holds words it does not.
fn one_match_per_line(entry: &mut DiagnosedEntry) {
    let mut seen = std::collections::BTreeSet::new();
    entry
        .evidence
        .retain(|e| seen.insert((e.line, e.text.clone())));
}

/// Whether anything in the log points at the entry: a cue, a finding for it, or a line that is
/// not a consequence of another error sharing enough of a signature, defining words included,
/// and some of its message (its words after the exception's name): `AssertionError: sentence at
/// index 25683144 exceeds max_tokens limit!` shares only `AssertionError` with `AssertionError:
/// Invalid device id`.
/// A sibling of a message (its words in a row, then another word: [`Evidence::ends_otherwise`])
/// points at the entry when it holds [`SIBLING_RUN`] words of it in a row, however common they
/// are.
/// A line sharing a few common words with many signatures (`AttributeError: ... object has no
/// attribute`), or one word with a signature of several (`error` of `CUDA error: initialization
/// error`), points nowhere.
pub(super) fn points_at(entry: &DiagnosedEntry) -> bool {
    pointed(entry, false)
}

/// [`points_at`], where `from_reports` lets a line that is a consequence of another error (a
/// wrapper's report that a worker died) point as well: in a log whose every error line is
/// such a report ([`only_reports`]), what the reports say is the only lead. It never names the
/// failure.
fn pointed(entry: &DiagnosedEntry, from_reports: bool) -> bool {
    !entry.against()
        && (!entry.cues.is_empty()
            || !entry.reasons.is_empty()
            || entry.evidence.iter().any(|e| {
                (from_reports || e.role != Role::Collateral)
                    && (e.specific || (e.ends_otherwise && e.run >= SIBLING_RUN))
                    && e.coverage >= MIN_POINTING_COVERAGE
                    && (e.coverage * e.defining >= MIN_POINTING || says_the_phrase(e))
                    && (e.phrase > 0.0 || !generic_head(e))
            }))
}

/// Whether the log's error lines are all a launcher's or a framework's reports that a worker
/// failed, whose own message the log does not hold (Ray's `ActorDiedError` and its worker's
/// exit).
fn only_reports(report: &LogReport) -> bool {
    let mut errors = (report.error_lines.iter()).filter(|l| l.kind != LineKind::Context);
    let first = errors.next();
    first.is_some_and(|l| is_launcher_summary(&l.text))
        && errors.all(|l| is_launcher_summary(&l.text))
}

/// Whether a line says most of a signature's message as it is written, a phrase of several
/// words, though not its defining words: the same failure worded by another release or another
/// library (`Current CUDA Device does not support bfloat16` against `does not support bfloat16
/// compilation natively`). It points at the entry, and never names the failure.
fn says_the_phrase(e: &Evidence) -> bool {
    e.run >= MIN_PHRASE_RUN && e.phrase >= MIN_PHRASE && e.coverage >= MIN_COVERAGE
}

/// Whether the evidence's signature begins with one of Python's own exception classes.
fn generic_head(e: &Evidence) -> bool {
    (e.signature.as_deref()).is_some_and(names_a_generic_exception)
}

/// What the verdict needs to know of the log's lines.
struct Log {
    /// The log has no error line: its plain lines stand in.
    only_context: bool,
    /// The warnings' line numbers.
    warnings: Vec<usize>,
    /// The first exception that is not a consequence of another: where the run crashed.
    crash: Option<usize>,
}

/// Whether the entry's evidence is enough to name the failure, else why not. When another
/// candidate matches the same line as well (one message, several causes: a CUDA OOM), the
/// message alone cannot tell them apart, and only a cue or a finding of the entry's own (one
/// that does not speak for the rival too) or another line of its own can.
fn names_the_failure(
    entry: &DiagnosedEntry,
    others: &[DiagnosedEntry],
    log: &Log,
) -> Result<(), Short> {
    let Some(standing) = standing(entry, others, log) else {
        return Err(Short::Weak);
    };
    if entry.against() {
        return Err(Short::Weak);
    }
    let Standing {
        rivals,
        own_line,
        oom,
    } = standing;
    let shared = !rivals.is_empty();
    // A finding that speaks for a rival as well does not tell the two apart; one the rivals
    // lack does.
    let found = entry.found();
    let finding_of_its_own = found
        && rivals
            .iter()
            .all(|o| entry.reasons.iter().any(|r| !o.reasons.contains(r)));
    // So does a cue the rivals do not declare too: a frame both entries name
    // (`_error_if_any_worker_fails`, where every killed DataLoader worker is reported) does not.
    let cue_of_its_own = (entry.cues.iter()).any(|c| {
        rivals
            .iter()
            .all(|o| o.cues.iter().all(|oc| oc.cue != c.cue))
    });
    let separated = cue_of_its_own || finding_of_its_own || own_line;
    match (shared, separated, oom) {
        (false, _, _) | (true, true, false) => Ok(()),
        // Which of an out-of-memory error's causes it was, read from the frames, the numbers or
        // a stated length, was right 15 times in 18 on the tuning half: the likeliest cause,
        // under the 97 % a diagnosis must reach.
        (true, true, true) => Err(Short::OomLead),
        (true, false, _) if found => Err(Short::SharedFinding),
        (true, false, true) => Err(Short::OomCauses),
        (true, false, false) => Err(Short::Rivals),
    }
}

/// How an entry's best line stands among the other candidates.
struct Standing<'a> {
    /// The other candidates that line matches as well, defining words and all.
    rivals: Vec<&'a DiagnosedEntry>,
    /// Another line of the entry's names its failure, and no rival matches it: a detail under
    /// a message several failures print (`torch.cuda.device_count(): 0`, Slurm's oom-kill
    /// report under a dead DataLoader worker).
    own_line: bool,
    /// The best line is an out-of-memory message, which has several causes: every other entry
    /// whose signature, defining words and all, it matches is a rival, however little of that
    /// signature the line covers, unless that signature has no defining words (the kernel's
    /// `Out of memory: Killed process` shares only `out of memory` with `error=2 : out of
    /// memory`, and names host memory).
    oom: bool,
}

/// The entry's standing, or `None` when no line of its names its failure ([`decisive`]).
fn standing<'a>(
    entry: &DiagnosedEntry,
    others: &'a [DiagnosedEntry],
    log: &Log,
) -> Option<Standing<'a>> {
    let lines = decisive(entry, others, log);
    // Of lines covered as well, the one that weighs most: the exception, not a warning that
    // echoes it.
    let best = (lines.iter()).max_by(|a, b| {
        (a.coverage.total_cmp(&b.coverage)).then_with(|| a.score.total_cmp(&b.score))
    })?;
    let oom = is_oom_message(&best.text);
    let rivals: Vec<&DiagnosedEntry> = (others.iter())
        .filter(|o| {
            !o.against()
                && o.evidence.iter().any(|e| {
                    e.line == best.line
                        && ((oom && e.defined) || e.coverage + SAME_MATCH >= best.coverage)
                        && e.defining >= MIN_DEFINING
                })
        })
        .collect();
    let own_line =
        (lines.iter()).any(|e| e.line != best.line && rivals.iter().all(|o| !matches_line(o, e)));
    Some(Standing {
        rivals,
        own_line,
        oom,
    })
}

/// The entry's lines that name its failure: each holds a signature's wording
/// ([`holds_the_wording`]) and is not a consequence of another error, a warning of a run that
/// crashed elsewhere, a plain line of a log that has error lines, or a line read as the rest of
/// an exception's message.
fn decisive<'e>(
    entry: &'e DiagnosedEntry,
    others: &[DiagnosedEntry],
    log: &Log,
) -> Vec<&'e Evidence> {
    let threshold = if log.only_context {
        MIN_CONTEXT_COVERAGE
    } else {
        MIN_COVERAGE
    };
    // A launcher's summary is a consequence, unless a finding says what it shows (a SIGKILL
    // with no Python error before it).
    let found = entry.found();
    // Warnings name the failure only when no traceback points elsewhere: a run that crashed
    // after routine warnings failed from the crash, and so did one whose exception the entry
    // does not match at all.
    let crashed_elsewhere = others
        .iter()
        .any(|o| o.cues.iter().any(|c| c.kind.in_frame()))
        || (log.crash).is_some_and(|line| !entry.evidence.iter().any(|e| e.line == line));
    (entry.evidence.iter())
        .filter(|e| {
            // A launcher's report of a failed child is a consequence even when the child's own
            // error is not in the log: it tells that something failed, not what.
            (e.role != Role::Collateral || found)
                && (!is_launcher_summary(&e.text) || found)
                && !(crashed_elsewhere && log.warnings.contains(&e.line))
                && (log.only_context || e.role != Role::Context)
                // A line read as the rest of an exception's message points at candidates but
                // names no failure: it may be a hint the library prints after any error (`Set
                // TORCH_LOGS="+dynamo" and TORCHDYNAMO_VERBOSE=1 for more information`), or
                // another process's line.
                && e.follows.is_none()
                && holds_the_wording(&Wording::of_evidence(e), threshold)
        })
        .collect()
}

/// Whether the entry's evidence holds the line of `e`, or a line of the same text (the same
/// message on another rank), with the defining words of one of its signatures.
fn matches_line(entry: &DiagnosedEntry, e: &Evidence) -> bool {
    (entry.evidence.iter())
        .any(|o| (o.line == e.line || o.text == e.text) && o.defining >= MIN_DEFINING)
}

/// One sentence for people.
fn message(
    report: &LogReport,
    entries: &[DiagnosedEntry],
    first_failure: Option<&LogRef>,
    (outcome, short): (Outcome, Short),
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
            // An entry a finding ruled out or doubted is listed below with the reason, not named
            // here; nor is one that nothing points at (a line sharing only common words with
            // its signature) while others are pointed at.
            let pointed: Vec<&DiagnosedEntry> = entries.iter().filter(|e| points_at(e)).collect();
            let open: Vec<&DiagnosedEntry> = entries.iter().filter(|e| !e.against()).collect();
            let names: Vec<&str> = [pointed, open, entries.iter().collect()]
                .into_iter()
                .find(|list| !list.is_empty())
                .unwrap_or_default()
                .into_iter()
                .take(3)
                .map(|e| e.title.as_str())
                .collect();
            let first = first_failure
                .map(|f| format!(" (first failing {})", at(f)))
                .unwrap_or_default();
            let why = match short {
                Short::Weak => {
                    "something in the log points there, but not closely enough to name the failure"
                }
                Short::Rivals => {
                    "the failing line matches each of them, and nothing else in the log tells them apart"
                }
                Short::OomCauses => {
                    "an out-of-memory error has several causes, and nothing else in the log says which"
                }
                Short::SharedFinding => {
                    "what the log shows speaks for more than one of them, and nothing tells them apart"
                }
                Short::OomLead => {
                    "an out-of-memory error has several causes; what the log shows makes the first the likeliest, which is not enough to name it"
                }
            };
            format!("Possibly {}{first}: {why}.", names.join(", or "))
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
