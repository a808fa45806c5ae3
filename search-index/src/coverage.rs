//! How well a line matches one signature: the run of its words found in order, and which of
//! two matches is the better.
//!
//! Takes a signature's terms and a line's terms in order; yields the longest run of the
//! signature found as it is written, the share of its message (the words after its
//! exception's name) found so, and compares two matches by what [`crate::Searcher`] weighs: a
//! coverage weighed by the defining words found, then coverage, then the longer signature.

use std::cmp::Reverse;

use crate::log::classify::exception_head;
use crate::tokenizer::{term_weights, terms};

/// How a signature was matched: its coverage weighed by its defining words, its coverage, and
/// its length in terms.
pub type Match = (f32, f32, usize);

/// How many of the terms of `signature` (a signature's text) are its exception's name: the
/// terms of a first word such as `RuntimeError:` or `torch.distributed.DistBackendError:`
/// ([`exception_head`]), none when it starts otherwise.
pub fn head_len(signature: &str) -> usize {
    match signature.split_whitespace().next() {
        Some(first) if first.ends_with(':') && exception_head(first) => terms(first).len(),
        _ => 0,
    }
}

/// How many of the terms of a log line are its exception's name: as [`head_len`], and the
/// whole line when it is a bare exception's name (`AssertionError` of a bare `assert`), which
/// has no message at all.
pub fn line_head_len(line: &str) -> usize {
    let line = line.trim();
    match head_len(line) {
        0 if !line.contains(char::is_whitespace) && exception_head(line) => terms(line).len(),
        n => n,
    }
}

/// The share of `message` (a signature's terms after its exception's name) that a run of `run`
/// of its terms holds, 1 when it has none (the signature is all name); and `run`.
pub fn share(message: &[String], run: usize) -> (f32, usize) {
    if message.is_empty() {
        return (1.0, 0);
    }
    (run as f32 / message.len() as f32, run)
}

/// Whether a line says another word where a signature's message ends: it holds every word of
/// the message but the last in a row, then goes on with a different word (`DataLoader worker
/// (pid 4242) is killed by signal: Aborted.` against `... is killed by signal: Killed.`).
/// The signal, status or name a message ends on is what tells one failure from another, and
/// a line that says another one says another message. A word the last one begins or that
/// begins it is the same word. `longest` is the longest run of the message in the line
/// ([`longest_run`]).
pub fn ends_otherwise(message: &[String], line: &[String], longest: usize) -> bool {
    const MIN_HELD: usize = 2;
    let Some((last, held)) = message.split_last() else {
        return false;
    };
    if held.len() < MIN_HELD || longest == message.len() {
        return false;
    }
    // A word that begins the last one, or that the last one begins, is the same word cut by a
    // paste (`two devi`) or run on into a name (`</torch_23114>`, `encountered\n`).
    let another =
        |next: &String| !next.starts_with(last.as_str()) && !last.starts_with(next.as_str());
    (0..line.len())
        .any(|j| line[j..].starts_with(held) && line.get(j + held.len()).is_some_and(another))
}

/// Whether a line says the start of a signature's message, then goes on with another word where
/// the message goes on, and says neither that word nor the rest of the message: `CUDA error:
/// an illegal instruction was encountered` holds `CUDA error: an illegal` of `... an illegal
/// memory access was encountered`, then says `instruction`; `sm_80 is not compatible with the
/// current PyTorch installation` holds `is not compatible with` of `... with devices with SM <
/// 7.5.`. A sibling message of the same family, not the message: it can point at the entry,
/// not name it. One word replaced with the rest of the message after it (`but found` for `but
/// got`) is the message in another release's words, and a line that stops after the start is
/// cut, not another message; so is one that holds the message's first sentence and goes on
/// with other advice (`... subspaces). Call .contiguous() before .view().` for `... subspaces).
/// Use .reshape(...) instead.`). `best` is the message's longest run in the line
/// ([`best_run`]); `sentence`, how many of the message's terms its first sentence has
/// ([`first_sentence_len`]).
pub fn goes_otherwise(
    message: &[String],
    line: &[String],
    best: Option<Run>,
    sentence: usize,
) -> bool {
    const MIN_HELD: usize = 2;
    let Some((0, at, held)) = best else {
        return false;
    };
    if held >= sentence {
        return false;
    }
    let Some(next) = message.get(held) else {
        return false;
    };
    let Some(said) = line.get(at + held) else {
        return false;
    };
    let same = said.starts_with(next.as_str()) || next.starts_with(said.as_str());
    let rest = &message[held + 1..];
    held >= MIN_HELD
        && !same
        && !line.contains(next)
        && (rest.is_empty() || longest_run(rest, line) < rest.len())
}

/// How many terms of `signature` (a signature's text) its first sentence has: up to the first
/// `.`, `!` or `?` that a space follows (`subspaces). Use` ends one; `torch.cuda` and a final
/// `.` do not), all of them when it has one sentence.
pub fn first_sentence_len(signature: &str) -> usize {
    let bytes = signature.as_bytes();
    let end = (0..bytes.len()).find(|&i| {
        b".!?".contains(&bytes[i]) && bytes.get(i + 1).is_some_and(u8::is_ascii_whitespace)
    });
    terms(&signature[..end.map_or(signature.len(), |i| i + 1)]).len()
}

/// Whether a line says the rest of a signature's message about another subject: the message's
/// first words are nowhere in the line, and where they would stand the line says other words
/// (`Learning rate: 0 has to be greater than 0` against `Train batch size: has to be greater
/// than 0`). What a message is about is what tells one failure from another; the words after
/// it are often the same predicate for any subject. A number where the subject stood is a
/// hole, not a subject. `best` is the message's longest run in the line ([`best_run`]).
pub fn begins_otherwise(message: &[String], line: &[String], best: Option<Run>) -> bool {
    let Some((start, at, len)) = best else {
        return false;
    };
    let missing = &message[..start];
    let before = &line[..at];
    start > 0
        && start + len == message.len()
        && !missing.iter().any(|t| line.contains(t))
        && before
            .iter()
            .any(|t| !t.chars().all(|c| c.is_ascii_digit()))
}

/// Whether a line's message (`message`: its terms after its exception's name) is the start of
/// the signature's message, cut short inside a word, as a paste cut mid-line leaves it
/// (`RuntimeError: one of the variables needed for gradient computati`): its other terms are
/// the signature's in order, and its last term begins the signature's next. Yields how many of
/// the signature's terms (its name's included) the line holds. The words the cut took (often
/// the defining ones) are missing because of the cut, not because the line says other words.
pub fn cut_copy(signature: &[String], head: usize, message: &[String]) -> Option<usize> {
    const MIN_TERMS: usize = 3;
    let wanted = signature.get(head..).unwrap_or_default();
    let (last, before) = message.split_last()?;
    let next = wanted.get(before.len())?;
    let cut = next.len() > last.len() && next.starts_with(last.as_str());
    (message.len() >= MIN_TERMS && cut && wanted.starts_with(before))
        .then_some(head + message.len())
}

/// Whether a signature matched as `a` (weighed coverage, coverage, length) beats one matched as
/// `b`; shares that differ only by rounding (`0.7` against `0.70000005`) are equal.
pub fn outranks(a: Match, b: Match) -> bool {
    const SAME: f32 = 1e-4;
    if (a.0 - b.0).abs() > SAME {
        return a.0 > b.0;
    }
    if (a.1 - b.1).abs() > SAME {
        return a.1 > b.1;
    }
    a.2 > b.2
}

/// The length of the longest run of `signature`'s terms that appears, in order and adjacent,
/// in `sequence`.
pub fn longest_run(signature: &[String], sequence: &[String]) -> usize {
    best_run(signature, sequence).map_or(0, |(_, _, len)| len)
}

/// A run of a signature's terms in a sequence: where it starts in the signature and in the
/// sequence, and its length.
pub type Run = (usize, usize, usize);

/// The longest run of `signature`'s terms found in order and adjacent in `sequence`, the first
/// of the longest in the signature, then in the sequence.
pub fn best_run(signature: &[String], sequence: &[String]) -> Option<Run> {
    runs(signature, sequence).max_by_key(|&(i, j, len)| (len, Reverse(i), Reverse(j)))
}

/// Every run of `signature`'s terms found in order and adjacent in `sequence`, from each pair of
/// equal terms: where it starts in `signature` and in `sequence`, and its length in the
/// signature's terms.
fn runs<'a>(signature: &'a [String], sequence: &'a [String]) -> impl Iterator<Item = Run> + 'a {
    (0..sequence.len()).flat_map(move |j| {
        (0..signature.len())
            .filter(move |&i| signature[i] == sequence[j])
            .map(move |i| (i, j, run_from(&signature[i..], &sequence[j..])))
    })
}

/// How many of `signature`'s first terms follow one another in `sequence` from its start. An
/// identifier's whole term, which the tokenizer puts before its parts, stands between two of
/// them when the signature names only its first part: `unable to write to file </torch_`
/// against `... to file </torch_18692_1954506624>: No space left on device`, whose
/// `torch_18692_1954506624` comes before its `torch`.
fn run_from(signature: &[String], sequence: &[String]) -> usize {
    let (mut i, mut j) = (0, 0);
    while let (Some(want), Some(have)) = (signature.get(i), sequence.get(j)) {
        if want == have {
            (i, j) = (i + 1, j + 1);
        } else if i > 0 && whole_before(sequence, j).is_some_and(|part| part == want) {
            j += 1;
        } else {
            break;
        }
    }
    i
}

/// The part that follows term `j` of `sequence` when term `j` is the whole identifier it begins
/// (`torch_18692_1954506624`, then `torch`).
fn whole_before(sequence: &[String], j: usize) -> Option<&String> {
    let (whole, part) = (sequence.get(j)?, sequence.get(j + 1)?);
    (whole.len() > part.len() && whole.starts_with(part.as_str())).then_some(part)
}

/// How many words of `signature` (a signature's text) `line` holds in a row, in its order, and
/// how many words it has: an identifier with its parts counts once ([`term_weights`]), so a
/// line holding `state_dict` holds one word of `Missing key(s) in state_dict:`, not three.
pub fn words_in_a_row(signature: &str, line: &str) -> (f32, f32) {
    let (wanted, weights) = (terms(signature), term_weights(signature));
    let held = runs(&wanted, &terms(line))
        .map(|(start, _, len)| weights[start..start + len].iter().sum::<f32>())
        .fold(0.0, f32::max);
    (held, weights.iter().sum())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line that says a message's start, then another word and none of the rest, says a
    /// sibling message; one that replaces a word and keeps the rest, or stops, says the message.
    #[test]
    fn a_message_gone_on_with_other_words_is_a_sibling() {
        let message = terms("CUDA error: an illegal memory access was encountered");
        let goes = |line: &str| {
            let line = terms(line);
            goes_otherwise(&message, &line, best_run(&message, &line), message.len())
        };
        assert!(goes(
            "RuntimeError: CUDA error: an illegal instruction was encountered"
        ));
        assert!(goes("CUDA error: an illegal address"));
        assert!(!goes(
            "RuntimeError: CUDA error: an illegal memory access was encountered"
        ));
        assert!(!goes("CUDA error: an illegal memory acc"));
        assert!(!goes("CUDA error: an illegal"));
        assert!(!goes(
            "CUDA error: an unlawful memory access was encountered"
        ));
        let bus = terms("DataLoader worker (pid) is killed by signal: Bus error.");
        let line = terms("DataLoader worker (pid 4242) is killed by signal: Killed.");
        assert!(goes_otherwise(
            &bus,
            &line,
            best_run(&bus, &line),
            bus.len()
        ));
        let view = "view size is not compatible with input tensor's size and stride (at least one \
                    dimension spans across two contiguous subspaces). Use .reshape(...) instead.";
        let (sentence, view) = (first_sentence_len(view), terms(view));
        assert!(sentence < view.len());
        let old = terms(
            "RuntimeError: invalid argument 2: view size is not compatible with input tensor's \
             size and stride (at least one dimension spans across two contiguous subspaces). \
             Call .contiguous() before .view().",
        );
        assert!(!goes_otherwise(
            &view,
            &old,
            best_run(&view, &old),
            sentence
        ));
        assert_eq!(
            first_sentence_len("torch.cuda.foo failed."),
            terms("torch.cuda.foo failed.").len()
        );
    }

    /// A line that ends a message on another word says another message; one that cuts the last
    /// word, runs it into a name, or holds the whole message does not.
    #[test]
    fn a_message_ended_on_another_word_is_another() {
        let message = terms("is killed by signal: Killed.");
        let ends = |line: &str| {
            let line = terms(line);
            ends_otherwise(&message, &line, longest_run(&message, &line))
        };
        assert!(ends("worker is killed by signal: Aborted."));
        assert!(!ends("worker is killed by signal: Kil"));
        assert!(!ends("worker is killed by signal: Killed."));
        assert!(!ends("worker is killed by signal"));
    }

    /// A line that says a message's predicate about another subject says another message; one
    /// that adds words before the whole message, or a number where the subject's value stands,
    /// does not.
    #[test]
    fn a_message_about_another_subject_is_another() {
        let message = terms("Train batch size: has to be greater than 0");
        let about = |line: &str| {
            let line = terms(line);
            begins_otherwise(&message, &line, best_run(&message, &line))
        };
        assert!(about("Learning rate: 0 has to be greater than 0"));
        assert!(about("The number of workers has to be greater than 0"));
        assert!(!about("Train batch size: 0 has to be greater than 0"));
        assert!(!about(
            "[rank3] Train batch size: 0 has to be greater than 0"
        ));
        assert!(!about("0 has to be greater than 0"));
        // A line missing the message's last words is not about another subject.
        assert!(!about("Train batch size: 0 has to be"));
    }

    /// An identifier and its parts are one word: `state_dict` alone is one word of four.
    #[test]
    fn an_identifier_with_its_parts_is_one_word() {
        let (held, words) =
            words_in_a_row("Missing key(s) in state_dict:", "KeyError: 'state_dict'");
        assert!(
            (held - 1.0).abs() < 1e-4 && (words - 4.0).abs() < 1e-4,
            "{held} {words}"
        );
        let (held, _) = words_in_a_row(
            "Missing key(s) in state_dict:",
            "Missing key(s) in state_dict: \"a\"",
        );
        assert!((held - 4.0).abs() < 1e-4, "{held}");
    }

    /// The weighed coverage decides; shares that differ by rounding fall to the next criterion.
    #[test]
    fn the_weighed_coverage_decides_and_rounding_ties() {
        assert!(outranks((0.8, 0.8, 5), (0.59, 0.79, 14)));
        assert!(outranks((0.7, 0.7, 10), (0.700_000_05, 0.700_000_05, 5)));
        assert!(!outranks((0.6, 0.9, 10), (0.7, 0.7, 5)));
    }

    /// `RuntimeError: NCCL error in:` against `RuntimeError: Distributed package doesn't have
    /// NCCL built in`: every word is there, but of its message only `NCCL` in its order.
    #[test]
    fn the_message_after_the_exceptions_name_is_matched_as_written() {
        let sig = "RuntimeError: NCCL error in:";
        let head = head_len(sig);
        assert_eq!(head, 3);
        let message = &terms(sig)[head..];
        let phrase = |line: &str| share(message, longest_run(message, &terms(line)));
        let built_in = phrase("RuntimeError: Distributed package doesn't have NCCL built in");
        assert!((built_in.0 - 1.0 / 3.0).abs() < 1e-6);
        let real = phrase(
            "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1269, unhandled system error",
        );
        assert_eq!(real, (1.0, 3));
        assert_eq!(head_len("CUDA error: out of memory"), 0);
        let class = "torch.distributed.DistBackendError:";
        assert_eq!(
            head_len(&format!("{class} NCCL error in:")),
            terms(class).len()
        );
    }

    #[test]
    fn a_message_cut_inside_a_word_is_a_cut_copy() {
        let sig = "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation";
        let signature = terms(sig);
        let head = head_len(sig);
        let message = |line: &str| terms(line)[head_len(line)..].to_vec();
        let cut = message("RuntimeError: one of the variables needed for gradient computati");
        assert_eq!(cut_copy(&signature, head, &cut), Some(head + cut.len()));
        // Whole words that stop early, other words, or too little: no cut copy.
        for line in [
            "RuntimeError: one of the variables needed for gradient computation",
            "RuntimeError: one of the tensors needed for gradient computati",
            "RuntimeError: one of",
        ] {
            assert_eq!(cut_copy(&signature, head, &message(line)), None, "{line}");
        }
    }

    #[test]
    fn the_longest_run_is_found_in_order() {
        let terms = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        let sig = terms("cuda out of memory tried to allocate");
        assert_eq!(longest_run(&sig, &terms("x cuda out of memory tried y")), 5);
        assert_eq!(longest_run(&sig, &terms("memory of out cuda")), 1);
    }

    /// A line's identifier comes as its whole term, then its parts: a signature that names its
    /// first part runs on through it; one whose next word is another does not.
    #[test]
    fn a_run_goes_on_through_an_identifiers_whole_term() {
        let sig = terms("unable to write to file </torch_");
        let line = terms("unable to write to file </torch_18692_1954506624>: No space left");
        assert_eq!(longest_run(&sig, &line), sig.len(), "{sig:?} {line:?}");
        let other = terms("unable to write to file </tmp_18692>: No space left");
        assert_eq!(longest_run(&sig, &other), sig.len() - 1, "{other:?}");
    }
}
