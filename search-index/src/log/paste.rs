//! Telling how a log was pasted: hard-wrapped by a terminal, and at what width; indented as a
//! whole; each line behind its number.
//!
//! A paste from a terminal may have every long line cut at the terminal's width, mid-word:
//! `...failed to bind to [::]:29500 (err` then `no: 98 - Address already in use).`. A paste
//! an editor or a mail client wrapped has its long lines broken at the last space that fits a
//! width: a line that ends near it goes on in the next, whose first word would not have fit
//! ([`continues`]). A log
//! pasted into a Markdown or mail block may have every line indented by the same spaces. Takes
//! the text (or the first buffer of a stream); yields a [`PasteShape`] from its start, for
//! [`super::LogReader::shaped`] to join the pieces again and take the indentation off.

use std::collections::HashSet;

use super::classify::exception_head;
use super::clean::{clean_line, is_box};

/// How much of the start of a log tells: the whole lines in its first 64 KiB. A stream is read
/// this far before its first line is read (see `errata diagnose`), so a command reading a
/// file a buffer at a time and the page reading the whole text see the same shape.
pub const PASTE_SAMPLE_BYTES: usize = 64 * 1024;
/// The least indentation taken off every line: one space is a log's own.
const MIN_COMMON_INDENT: usize = 2;

/// How a log was pasted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PasteShape {
    /// The width a terminal hard-wrapped its lines at, if it did.
    pub wrap_width: Option<usize>,
    /// The spaces every line starts with (a pasted block's), to take off.
    pub indent: usize,
    /// The width an editor word-wrapped its lines at, if one did (and no terminal cut them).
    pub word_wrap: Option<usize>,
    /// Each line starts with its number, as `cat -n`, `less -N` and log viewers print it.
    pub numbered: bool,
}

/// How `text` was pasted, told from its start: the whole lines in its first
/// [`PASTE_SAMPLE_BYTES`], all of it if it is no longer.
pub fn paste_shape(text: &str) -> PasteShape {
    let sample = sample(text);
    // A word wrap can end a few lines exactly at its width, and a hard wrap can leave a few
    // lines that look as if they went on: the kind with more lines to show wins.
    let (wrap_width, word_wrap) = match (wrap_width(sample), word_wrap(sample)) {
        (Some((_, cut)), Some((width, went_on))) if went_on > cut => (None, Some(width)),
        (hard, word) => (
            hard.map(|(width, _)| width),
            word.filter(|_| hard.is_none()).map(|(width, _)| width),
        ),
    };
    PasteShape {
        wrap_width,
        indent: common_indent(sample),
        word_wrap,
        numbered: numbered(sample),
    }
}

/// The least lines a numbered paste has, and the share of its lines that must each be
/// numbered one more than the line before.
const MIN_NUMBERED_LINES: usize = 3;
const NUMBERED_SHARE: f64 = 0.9;

/// The number `line` starts with (after spaces), and what follows it.
fn leading_number(line: &str) -> Option<(u64, &str)> {
    let start = line.trim_start_matches(' ');
    let digits = start.len() - start.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    Some((start[..digits].parse().ok()?, &start[digits..]))
}

/// Whether each line of `sample` starts with its number, counting up by one: a log's own
/// numbers (ranks, steps, epochs) do not count up line by line. A paste too short to count
/// on is numbered when each of its lines has `cat -n`'s number and tab.
fn numbered(sample: &str) -> bool {
    let lines: Vec<&str> = sample
        .split('\n')
        .filter(|l| !l.trim().is_empty())
        .collect();
    let numbers: Vec<Option<u64>> = lines
        .iter()
        .map(|l| line_number(l).map(|(n, _)| n))
        .collect();
    let counted = (numbers.windows(2))
        .filter(|w| matches!(w, [Some(a), Some(b)] if *b == a + 1))
        .count();
    let counts_up = counted as f64 >= NUMBERED_SHARE * lines.len().saturating_sub(1) as f64;
    let tabbed = !lines.is_empty()
        && (lines.iter())
            .all(|l| leading_number(l).is_some_and(|(_, rest)| rest.starts_with('\t')));
    counts_up && (lines.len() >= MIN_NUMBERED_LINES || tabbed)
}

/// The number a numbered paste put before `line`, and the line without it: the number, then a
/// tab, `: `, `| ` or one space (after which the line's own indentation starts).
pub(super) fn line_number(line: &str) -> Option<(u64, &str)> {
    let (number, rest) = leading_number(line)?;
    ["\t", ": ", " | ", "| ", " "]
        .iter()
        .find_map(|sep| rest.strip_prefix(sep))
        .or_else(|| rest.is_empty().then_some(rest))
        .map(|rest| (number, rest))
}

/// The spaces every line that is not blank starts with, when they are at least
/// [`MIN_COMMON_INDENT`].
fn common_indent(sample: &str) -> usize {
    let indent = (sample.split('\n'))
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.len() - line.trim_start_matches(' ').len())
        .min()
        .unwrap_or(0);
    if indent >= MIN_COMMON_INDENT {
        indent
    } else {
        0
    }
}

/// The shortest width taken for a terminal's: narrower lines are a log's own.
const MIN_WRAP_WIDTH: usize = 60;
/// Distinct lines of exactly the widest width that mark a log as hard-wrapped there.
const MIN_WRAPPED_LINES: usize = 3;
/// The most distinct lines counted, for either kind of wrap.
const MAX_COUNTED: usize = 64;

/// The width a terminal hard-wrapped `sample` at, if it did: the widest lines are all exactly
/// as wide and there are several of them, distinct even with their digits left out (one
/// message repeated by each rank or step is not a wrap), table rows aside (a memory summary's
/// rows are all one width). Yields the width and how many distinct lines are exactly that
/// wide.
fn wrap_width(sample: &str) -> Option<(usize, usize)> {
    let mut widest = 0;
    let mut at_widest: HashSet<String> = HashSet::new();
    for line in sample.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.len() < MIN_WRAP_WIDTH || is_table_row(line) {
            continue;
        }
        let width = line.chars().count();
        if width > widest {
            widest = width;
            at_widest.clear();
        }
        if width == widest && at_widest.len() < MAX_COUNTED {
            at_widest.insert(line.chars().filter(|c| !c.is_ascii_digit()).collect());
        }
    }
    (widest >= MIN_WRAP_WIDTH && at_widest.len() >= MIN_WRAPPED_LINES)
        .then_some((widest, at_widest.len()))
}

/// The widest width taken for an editor's wrap: wider lines are a log's own.
const MAX_WORD_WRAP: usize = 200;
/// Distinct lines that go on in the next that mark a log as word-wrapped.
const MIN_WORD_WRAPPED: usize = 5;

/// The width an editor word-wrapped `sample` at, if one did: its widest line that has a space
/// to break at (a word longer than the width stays whole, on a line of its own) is at most
/// [`MAX_WORD_WRAP`] wide, and at least [`MIN_WORD_WRAPPED`] lines narrower than that (or as
/// wide, with the space broken at kept at their end), distinct even with their digits left
/// out, go on in the next one. Yields the width and how
/// many such lines there are.
fn word_wrap(sample: &str) -> Option<(usize, usize)> {
    let lines: Vec<&str> = (sample.split('\n'))
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let width = (lines.iter())
        .filter(|l| l.trim().contains(' '))
        .map(|l| l.trim_end().chars().count())
        .max()?;
    if !(MIN_WRAP_WIDTH..=MAX_WORD_WRAP).contains(&width) {
        return None;
    }
    let mut wrapped: HashSet<String> = HashSet::new();
    for pair in lines.windows(2) {
        // A piece as wide as the width went on only if the break is visibly at a space: a
        // terminal's hard wrap cuts its pieces at exactly that width, mid-word.
        let used = pair[0].trim_end().chars().count();
        let at_space = used < pair[0].chars().count();
        if (used < width || (used == width && at_space)) && continues(pair[0], pair[1], width) {
            wrapped.insert(pair[0].chars().filter(|c| !c.is_ascii_digit()).collect());
            if wrapped.len() >= MAX_COUNTED {
                break;
            }
        }
    }
    (wrapped.len() >= MIN_WORD_WRAPPED).then_some((width, wrapped.len()))
}

/// Whether `line`, in a paste word-wrapped at `width`, goes on in `next`: `line` is at least half
/// the width (or a frame's `File` before a long path), the first word of `next` would not have fit
/// after it, and `next` starts at its first column with no mark of a line of its own (a logger's or
/// a launcher's prefix, a traceback's header or frame, an exception's name, a table's frame).
pub(super) fn continues(line: &str, next: &str, width: usize) -> bool {
    let used = line.trim_end().chars().count();
    // The space a break was made at may start the next line instead of ending this one.
    let rest = match next.strip_prefix(' ') {
        Some(rest) if !line.ends_with(' ') && !rest.starts_with(' ') => rest,
        _ => next,
    };
    let word = rest.split(' ').next().unwrap_or("").chars().count();
    // A frame's `File` goes on whatever its width: the path after it was too long to fit.
    let short = used < width / 2 && line.trim() != "File";
    if short || word == 0 || used + 1 + word <= width {
        return false;
    }
    let Some(clean) = clean_line(rest) else {
        return false;
    };
    clean.text == rest.trim_end()
        && clean.level.is_none()
        && clean.rank.is_none()
        && !clean.text.starts_with("Traceback")
        && !clean.text.starts_with("File \"")
        && !exception_head(&clean.text)
        && !is_table_row(rest)
}

/// The start of `text` that tells its shape: all of it if it is no longer than
/// [`PASTE_SAMPLE_BYTES`], else the whole lines within that many bytes.
fn sample(text: &str) -> &str {
    if text.len() <= PASTE_SAMPLE_BYTES {
        return text;
    }
    let mut end = PASTE_SAMPLE_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].rfind('\n').map_or("", |i| &text[..i])
}

/// A row or rule of a table drawn in characters (`|  Allocated memory  | 31170 MB |`,
/// `|=====|`, `+-----+`), which starts and ends with its frame.
pub(super) fn is_table_row(line: &str) -> bool {
    let frame = |c: char| matches!(c, '|' | '+' | '=' | '-') || is_box(c);
    let line = line.trim();
    line.starts_with(frame) && line.ends_with(frame)
}

#[cfg(test)]
mod tests {
    use super::{paste_shape, wrap_width, PasteShape};
    use crate::log::{read_log, LogReader};

    /// Cuts every line of `log` at `width` characters, as a terminal does.
    fn hard_wrapped(log: &str, width: usize) -> String {
        let mut out = Vec::new();
        for line in log.lines() {
            let chars: Vec<char> = line.chars().collect();
            if chars.is_empty() {
                out.push(String::new());
            }
            out.extend(chars.chunks(width).map(|c| c.iter().collect::<String>()));
        }
        out.join("\n")
    }

    /// A paste a terminal cut at its width is read with its lines whole again, each at the number
    /// of its first piece; a log that only has several lines of one width is not.
    #[test]
    fn a_log_a_terminal_wrapped_is_read_whole() {
        let log = "loading shards: 4/4 done, model has 6.7B parameters, dtype torch.bfloat16, device cuda:0\nTraceback (most recent call last):\n  File \"/srv/job/train.py\", line 88, in main\n    dist.init_process_group(backend=\"nccl\")\ntorch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).\n";
        let wrapped = hard_wrapped(log, 80);
        assert_eq!(wrap_width(&wrapped).map(|(w, _)| w), Some(80));
        let report = read_log(&wrapped);
        let error = &report.error_lines[0];
        assert!(
            error
                .text
                .ends_with("(errno: 98 - Address already in use)."),
            "{error:?}"
        );
        assert_eq!(error.line, 6);
        assert_eq!(report.lines_read, wrapped.lines().count());
        // A line at a time, told the width, gives the same.
        let shape = PasteShape {
            wrap_width: Some(80),
            ..PasteShape::default()
        };
        assert_eq!(paste_shape(&wrapped), shape);
        let mut reader = LogReader::default().shaped(shape);
        for line in wrapped.lines() {
            reader.line(line);
        }
        assert_eq!(reader.finish(), report);
        // One message repeated by eight ranks, and a memory summary's rows, are not a wrap.
        let ranks: String = (0..8)
            .map(|r| {
                format!("[rank{r}]: RuntimeError: NCCL communicator was aborted on rank {r}.\n")
            })
            .collect();
        assert_eq!(wrap_width(&ranks), None);
        let table = "|===========================================================================|\n|                  PyTorch CUDA memory summary, device ID 0                 |\n|---------------------------------------------------------------------------|\n|            CUDA OOMs: 1            |        cudaMalloc retries: 2         |\n";
        assert_eq!(wrap_width(table), None);
        assert_eq!(wrap_width(log), None);
    }

    /// Breaks every line of `log` longer than `width` at the last space that fits, keeping the
    /// space at the end of the line, as an editor or a mail client does.
    fn word_wrapped(log: &str, width: usize) -> String {
        let mut out = Vec::new();
        for line in log.lines() {
            let mut current = String::new();
            for word in line.split_inclusive(' ') {
                if !current.is_empty()
                    && current.chars().count() + word.trim_end().chars().count() > width
                {
                    out.push(std::mem::take(&mut current));
                }
                current.push_str(word);
            }
            out.push(current);
        }
        out.join("\n")
    }

    /// A paste an editor word-wrapped is read with its lines whole again; the lines of a log
    /// that only happen to be long, and a hard wrap's pieces, are not taken for one.
    #[test]
    fn a_log_an_editor_word_wrapped_is_read_whole() {
        let log = "W0217 09:41:05.118000 140071725119296 torch/distributed/run.py:779] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.\nUserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.5 we will raise an exception if use_reentrant is not passed.\nloading shards: 4/4 done, model has 6.7B parameters, dtype torch.bfloat16, device cuda:0, world size 8, seed 1234\nTraceback (most recent call last):\n  File \"/srv/job/venv/lib/python3.10/site-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py\", line 355, in wrapper\n    return f(*args, **kwargs)\n  File \"/srv/job/venv/lib/python3.10/site-packages/torch/distributed/elastic/agent/server/api.py\", line 727, in run\n    result = self._invoke_run(role)\ntorch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).\n";
        let wrapped = word_wrapped(log, 72);
        let shape = paste_shape(&wrapped);
        assert_eq!(
            (shape.word_wrap, shape.wrap_width),
            (Some(72), None),
            "{wrapped}"
        );
        let report = read_log(&wrapped);
        let whole = read_log(log);
        let texts = |r: &crate::log::LogReport| -> Vec<String> {
            r.error_lines.iter().map(|l| l.text.clone()).collect()
        };
        assert_eq!(texts(&report), texts(&whole), "{wrapped}");
        assert_eq!(report.lines_read, wrapped.lines().count());
        assert_eq!(paste_shape(log).word_wrap, None);
        let cut = hard_wrapped(log, 72);
        assert_eq!(paste_shape(&cut).word_wrap, None, "{cut}");
        assert_eq!(paste_shape(&cut).wrap_width, Some(72), "{cut}");
    }

    /// A traceback flattened onto one line (a notebook's output pasted as one run), then
    /// word-wrapped with each break's space kept at the end of its piece: the widest piece ends
    /// at the width with its space, and the paste still reads as word-wrapped, whole again.
    #[test]
    fn a_flattened_traceback_an_editor_wrapped_is_read_whole() {
        let line = "Traceback (most recent call last): File \"eval.py\", line 138, in <module> out, _ = model.beam_search(feats, eos_idxs=[vocab.stoi['<eos>'], -1], beam_size=5) File \"/srv/sct/models/captioning.py\", line 151, in beam_search selected_logprob, selected_idx = torch.sort(seq_logprob.view(b_s, -1), -1, descending=True) RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.";
        let log = format!("python eval.py --beam 5\nloading weights\n{line}\n");
        let mut pieces = Vec::new();
        let mut current = String::new();
        for word in log.lines().nth(2).unwrap().split_inclusive(' ') {
            if current.chars().count() + word.chars().count() > 100 {
                pieces.push(std::mem::take(&mut current));
            }
            current.push_str(word);
        }
        pieces.push(current);
        assert!(pieces.len() >= 6, "{pieces:#?}");
        let wrapped = format!(
            "python eval.py --beam 5\nloading weights\n{}\n",
            pieces.join("\n")
        );
        assert!(paste_shape(&wrapped).word_wrap.is_some(), "{wrapped}");
        let report = read_log(&wrapped);
        assert!(
            (report.error_lines.iter()).any(|l| l.text.contains(
                "RuntimeError: view size is not compatible with input tensor's size and stride"
            )),
            "{:#?}",
            report.error_lines
        );
    }

    /// A log pasted with every line indented (a Markdown or mail block) reads as the log itself;
    /// a log whose lines are only mostly indented keeps its indentation.
    #[test]
    fn a_log_indented_as_a_whole_is_read_as_itself() {
        let log = "step 12 loss 2.31\nTraceback (most recent call last):\n  File \"/srv/train.py\", line 40, in <module>\n    loss.backward()\nRuntimeError: element 0 of tensors does not require grad and does not have a grad_fn\n";
        let block: String = log.lines().map(|l| format!("    {l}\n")).collect();
        assert_eq!(paste_shape(&block).indent, 4);
        assert_eq!(read_log(&block), read_log(log));
        assert_eq!(paste_shape(log).indent, 0);
        let one_space: String = log.lines().map(|l| format!(" {l}\n")).collect();
        assert_eq!(paste_shape(&one_space).indent, 0);
    }

    /// A paste from `cat -n` or a log viewer, each line behind its number: read as the log
    /// itself, a one-line paste too. A log's own leading numbers, which do not count up line by
    /// line (ranks, steps), are its own.
    #[test]
    fn a_log_pasted_with_its_line_numbers_is_read_as_itself() {
        let log = "step 1 loss 2.3\nTraceback (most recent call last):\n  File \"/srv/train.py\", line 20, in <module>\n    main()\nRuntimeError: CUDA error: an illegal memory access was encountered\n";
        for numbered in [
            log.lines()
                .enumerate()
                .map(|(i, l)| format!("{:6}\t{l}\n", i + 1))
                .collect::<String>(),
            log.lines()
                .enumerate()
                .map(|(i, l)| format!("{} {l}\n", i + 120))
                .collect(),
        ] {
            assert!(paste_shape(&numbered).numbered, "{numbered}");
            let lines = read_log(&numbered).error_lines;
            assert_eq!(lines.len(), 1, "{lines:#?}");
            assert_eq!(
                lines[0].text,
                "RuntimeError: CUDA error: an illegal memory access was encountered"
            );
        }
        assert!(paste_shape("     1\tRuntimeError: boom\n").numbered);
        for own in [
            "0: RuntimeError: boom\n1: RuntimeError: boom\n0: step 3\n1: step 3\n",
            "100 loss 2.3\n200 loss 2.1\n300 loss 1.9\n",
            "3 workers started\n",
        ] {
            assert!(!paste_shape(own).numbered, "{own}");
        }
    }
}
