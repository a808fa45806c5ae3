//! Telling how a log was pasted: hard-wrapped by a terminal, and at what width; indented as a
//! whole.
//!
//! A paste from a terminal may have every long line cut at the terminal's width, mid-word:
//! `...failed to bind to [::]:29500 (err` then `no: 98 - Address already in use).`. A log
//! pasted into a Markdown or mail block may have every line indented by the same spaces. Takes
//! the text (or the first buffer of a stream); yields a [`PasteShape`] from its start, for
//! [`super::LogReader::shaped`] to join the pieces again and take the indentation off.

use std::collections::HashSet;

use super::clean::is_box;

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
}

/// How `text` was pasted, told from its start: the whole lines in its first
/// [`PASTE_SAMPLE_BYTES`], all of it if it is no longer.
pub fn paste_shape(text: &str) -> PasteShape {
    let sample = sample(text);
    PasteShape {
        wrap_width: wrap_width(sample),
        indent: common_indent(sample),
    }
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

/// The width a terminal hard-wrapped `sample` at, if it did: the widest lines are all exactly
/// as wide and there are several of them, distinct even with their digits left out (one
/// message repeated by each rank or step is not a wrap), table rows aside (a memory summary's
/// rows are all one width).
fn wrap_width(sample: &str) -> Option<usize> {
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
        if width == widest && at_widest.len() < MIN_WRAPPED_LINES {
            at_widest.insert(line.chars().filter(|c| !c.is_ascii_digit()).collect());
        }
    }
    (widest >= MIN_WRAP_WIDTH && at_widest.len() >= MIN_WRAPPED_LINES).then_some(widest)
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
        assert_eq!(wrap_width(&wrapped), Some(80));
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
            indent: 0,
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
}
