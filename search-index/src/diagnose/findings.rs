//! Findings: what a log shows besides its lines' wording, for or against the entries that
//! declare them (`cues.findings`).
//!
//! Takes the log's error lines, its memory dump and the line of an out-of-memory message no
//! signature holds; yields each finding of [`super::FINDINGS`] with which way it speaks and
//! why, in words: the numbers of an OOM message (fragmentation, a request larger than the
//! device or a large share of it), where it was raised (attention, the loss), the steps and the
//! input length before it, and a process killed by a signal before any Python error.

use super::oom::{self, Fragmentation, OomNumbers};
use super::{attention, long_input, loss, signal, steps};
use crate::log::memory::MemoryDump;
use crate::log::{ErrorLine, LineKind};

/// Which way a finding speaks of the entries that declare it.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Stance {
    For,
    /// Against, without ruling the entry out.
    Doubt,
    Against,
}

/// A finding's name, which way it speaks, and why.
pub(super) type Finding = (&'static str, Option<(Stance, String)>);

/// Each finding ([`super::FINDINGS`]) with what the log's lines and memory dump say of it.
pub(super) fn findings(
    lines: &[ErrorLine],
    memory: Option<&MemoryDump>,
    other_words: Option<usize>,
) -> [Finding; 10] {
    let oom = oom_numbers(lines);
    let fragmented = fragmentation(&oom, lines, memory);
    // Memory the allocator held in pieces could have served the request: its size alone did
    // not run the card out.
    let pieces_could_serve = matches!(fragmented, Some(Fragmentation::Possible(_)));
    [
        (
            "oom-fragmentation",
            fragmented.map(|f| match f {
                Fragmentation::Possible(why) => (Stance::For, why),
                Fragmentation::Unlikely(why) => (Stance::Doubt, why),
                Fragmentation::RuledOut(why) => (Stance::Against, why),
            }),
        ),
        (
            "host-oom-kill",
            killed_before_any_error(lines).map(|why| (Stance::For, why)),
        ),
        (
            "shm-bus-error",
            bus_error_before_any_error(lines).map(|why| (Stance::For, why)),
        ),
        (
            "oom-attention",
            oom_in_attention(lines).map(|why| (Stance::For, why)),
        ),
        (
            "oom-logits",
            oom_in_loss(lines).map(|why| (Stance::For, why)),
        ),
        (
            "oom-larger-than-device",
            (oom.iter())
                .find_map(|(line, n)| oom::larger_than_device(n, *line))
                .map(|why| (Stance::For, why)),
        ),
        (
            "oom-large-allocation",
            (oom.iter())
                .filter(|_| !pieces_could_serve)
                .find_map(|(line, n)| oom::large_allocation(n, *line))
                .map(|why| (Stance::For, why)),
        ),
        (
            "oom-after-many-steps",
            steps::oom_after_many_steps(lines).map(|why| (Stance::Doubt, why)),
        ),
        (
            "oom-long-input",
            long_input::oom_on_a_long_input(lines).map(|why| (Stance::For, why)),
        ),
        (
            oom::OTHER_WORDS,
            other_words.map(|line| (Stance::For, oom::other_words_reason(line))),
        ),
    ]
}

/// The numbers of each out-of-memory message that is not a consequence of another error, with
/// its line number.
fn oom_numbers(lines: &[ErrorLine]) -> Vec<(usize, OomNumbers)> {
    lines
        .iter()
        .filter(|l| !l.collateral)
        .filter(|l| oom::is_oom_message(&l.text))
        .filter_map(|l| Some((l.line, OomNumbers::of(&l.with_continuation())?)))
        .collect()
}

/// Whether fragmentation can explain the log's OOM: from the numbers of its message (`oom`),
/// else from a memory dump the log prints beside it.
fn fragmentation(
    oom: &[(usize, OomNumbers)],
    lines: &[ErrorLine],
    memory: Option<&MemoryDump>,
) -> Option<Fragmentation> {
    oom.iter().find_map(|(_, n)| n.fragmentation()).or_else(|| {
        let named = lines.iter().any(|l| oom::is_oom_message(&l.text));
        let requested = oom.iter().find_map(|(_, n)| n.requested);
        memory
            .filter(|_| named)
            .and_then(|dump| oom::dump_fragmentation(dump, requested))
    })
}

/// An out-of-memory error whose allocation was attention's, in words.
fn oom_in_attention(lines: &[ErrorLine]) -> Option<String> {
    lines
        .iter()
        .filter(|l| !l.collateral)
        .find_map(|l| attention::in_attention(l.line, &l.with_continuation(), &l.context))
}

/// An out-of-memory error raised in the logits over the vocabulary or their loss, in words.
fn oom_in_loss(lines: &[ErrorLine]) -> Option<String> {
    lines
        .iter()
        .filter(|l| !l.collateral)
        .find_map(|l| loss::in_loss(l.line, &l.with_continuation(), &l.context))
}

/// A process killed with SIGKILL before any Python exception was printed, in words.
fn killed_before_any_error(lines: &[ErrorLine]) -> Option<String> {
    let kill = signal_before_any_error(lines, signal::killed_by_sigkill)?;
    Some(format!(
        "line {}: the process was killed with SIGKILL and printed no Python error first, which is what the operating system's out-of-memory killer does",
        lines[kill].line
    ))
}

/// A process dead of SIGBUS before any Python exception was printed, in words.
fn bus_error_before_any_error(lines: &[ErrorLine]) -> Option<String> {
    let bus = signal_before_any_error(lines, signal::died_of_sigbus)?;
    Some(format!(
        "line {}: the process died of SIGBUS (a bus error) and printed no Python error first, which is what touching shared memory that /dev/shm cannot back does",
        lines[bus].line
    ))
}

/// The first line that `reports` a signal, when no Python exception that is not a consequence
/// of another error was printed before it.
fn signal_before_any_error(lines: &[ErrorLine], reports: fn(&str) -> bool) -> Option<usize> {
    let at = lines.iter().position(|l| reports(&l.text))?;
    let python_error_first = lines[..at]
        .iter()
        .any(|l| l.kind == LineKind::Exception && !l.collateral);
    (!python_error_first).then_some(at)
}

#[cfg(test)]
mod tests {
    use crate::diagnose::{diagnose, Diagnosis, Outcome};
    use crate::test_documents::document;
    use crate::writer::build_bundle;
    use crate::{Cues, Document, Searcher};

    fn searcher() -> Searcher {
        let entry = |slug: &str, signature: &str, findings: &[&str]| Document {
            cues: Cues {
                findings: findings.iter().map(|f| f.to_string()).collect(),
                ..Default::default()
            },
            ..document(slug, signature)
        };
        let docs = [
            entry("memory", "Tried to allocate", &[super::oom::OTHER_WORDS]),
            entry("shapes", "Received incompatible tensor with shape", &[]),
            entry(
                "graphs",
                "operation not permitted when stream is capturing",
                &[],
            ),
            entry("compiler", "torch._inductor.exc.InductorError", &[]),
        ];
        Searcher::from_bundle(&build_bundle(&docs).unwrap()).unwrap()
    }

    fn other_words(d: &Diagnosis) -> bool {
        (d.entries.iter()).any(|e| e.reasons.iter().any(|r| r.contains("words no entry's")))
    }

    /// TensorFlow's `OOM when allocating tensor with shape[...]`, where the memory entry declares
    /// only PyTorch's `Tried to allocate`, shares no word with it, and `tensor with shape` with another
    /// entry's signature: memory ran out all the same, so it points at the entry that declares
    /// the finding, as a candidate.
    #[test]
    fn an_oom_in_other_words_points_at_the_entries_that_declare_it() {
        let log = "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[336840,2807] and type float\n";
        let d = diagnose(&searcher(), log).unwrap();
        assert_eq!(d.outcome, Outcome::Possible, "{d:#?}");
        assert_eq!(d.entries[0].slug, "memory", "{d:#?}");
        assert!(other_words(&d), "{d:#?}");
    }

    /// A line that the entry's own wording names is not in other words, a warning that speaks of
    /// running out of memory is no out-of-memory error, and another error's line names its own
    /// entry.
    #[test]
    fn a_declared_wording_or_a_warning_is_not_an_oom_in_other_words() {
        let searcher = searcher();
        let known = "torch.OutOfMemoryError: Tried to allocate 2.00 GiB\n";
        let d = diagnose(&searcher, known).unwrap();
        assert_eq!(d.entries[0].slug, "memory", "{d:#?}");
        assert!(!other_words(&d), "{d:#?}");
        let warned = "WARNING 01-08 10:12:47 model_runner.py:1034] CUDA graphs can take additional 1~3 GiB memory per GPU. If you are running out of memory, consider decreasing the memory share.\nRuntimeError: CUDA error: operation not permitted when stream is capturing\n";
        let d = diagnose(&searcher, warned).unwrap();
        assert_eq!(d.entries[0].slug, "graphs", "{d:#?}");
        assert!(!other_words(&d), "{d:#?}");
    }

    /// A log whose error lines name an entry's failure is explained: an out-of-memory message in
    /// other words beside them (a consequence, or a second failure) leaves that entry first.
    #[test]
    fn an_oom_in_other_words_does_not_displace_a_named_failure() {
        let log = "RuntimeError: CUDA error: operation not permitted when stream is capturing\ntensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[4,8]\n";
        let d = diagnose(&searcher(), log).unwrap();
        assert_eq!(d.entries[0].slug, "graphs", "{d:#?}");
        assert_eq!(d.outcome, Outcome::Diagnosis, "{d:#?}");
        assert!(!other_words(&d), "{d:#?}");
    }

    /// A wrapper's bare name over another exception (`InductorError: RuntimeError: ...`) does
    /// not name the failure, here as in the verdict: the inner exception says what failed, the
    /// log is not explained, and its out-of-memory error in other words still points at the
    /// memory entries.
    #[test]
    fn a_wrapper_over_another_exception_does_not_explain_the_log() {
        let log = "torch._inductor.exc.InductorError: RuntimeError: No valid triton configs.\ntensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[4,8]\n";
        let d = diagnose(&searcher(), log).unwrap();
        assert_ne!(d.outcome, Outcome::Diagnosis, "{d:#?}");
        assert!(other_words(&d), "{d:#?}");
    }

    /// What errata reads and what authors may declare are one list: each finding the log is
    /// read for is one of [`super::super::FINDINGS`], in its order.
    #[test]
    fn the_findings_read_are_the_findings_declared() {
        let read = super::findings(&[], None, None).map(|(name, _)| name);
        assert_eq!(read, crate::diagnose::FINDINGS.map(|f| f.name));
    }
}
