//! Telling a log a terminal hard-wrapped, and at what width.
//!
//! A paste from a terminal may have every long line cut at the terminal's width, mid-word:
//! `...failed to bind to [::]:29500 (err` then `no: 98 - Address already in use).`. Takes the
//! text (or the first buffer of a stream); yields the width, from its widest lines, for
//! [`super::LogReader::wrapped_at`] to join the pieces again.

use std::collections::HashSet;

/// How much of the start of a log tells: the whole lines in its first 64 KiB. A stream is read
/// this far before its first line is read (see `errata diagnose`), so a command reading a
/// file a buffer at a time and the page reading the whole text see the same width.
pub const WRAP_SAMPLE_BYTES: usize = 64 * 1024;
/// The shortest width taken for a terminal's: narrower lines are a log's own.
const MIN_WRAP_WIDTH: usize = 60;
/// Distinct lines of exactly the widest width that mark a log as hard-wrapped there.
const MIN_WRAPPED_LINES: usize = 3;

/// The width a terminal hard-wrapped `text` at, if it did: the widest lines are all exactly
/// as wide and there are several of them, distinct even with their digits left out (one
/// message repeated by each rank or step is not a wrap), table rows aside (a memory summary's
/// rows are all one width). Only the start of a longer text is looked at: the whole lines in
/// its first [`WRAP_SAMPLE_BYTES`].
pub fn wrap_width(text: &str) -> Option<usize> {
    let mut widest = 0;
    let mut at_widest: HashSet<String> = HashSet::new();
    for line in sample(text).split('\n') {
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

/// The start of `text` that tells its width: all of it if it is no longer than
/// [`WRAP_SAMPLE_BYTES`], else the whole lines within that many bytes.
fn sample(text: &str) -> &str {
    if text.len() <= WRAP_SAMPLE_BYTES {
        return text;
    }
    let mut end = WRAP_SAMPLE_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].rfind('\n').map_or("", |i| &text[..i])
}

/// A row or rule of a table drawn in characters (`|  Allocated memory  | 31170 MB |`,
/// `|=====|`, `+-----+`), which starts and ends with its frame.
pub(super) fn is_table_row(line: &str) -> bool {
    let frame =
        |c: char| matches!(c, '|' | '+' | '=' | '-') || ('\u{2500}'..='\u{257F}').contains(&c);
    let line = line.trim();
    line.starts_with(frame) && line.ends_with(frame)
}

#[cfg(test)]
mod tests {
    use super::wrap_width;
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
        let mut reader = LogReader::default().wrapped_at(80);
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
}
