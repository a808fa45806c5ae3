//! A traceback held in one line as an escaped string.
//!
//! Takes one segment of a line; yields the lines it stands for when it holds a traceback
//! written as a Python string, its line breaks escaped as `\n`: an exception's `repr` (`Run x
//! errored: RuntimeError('Caught RuntimeError in DataLoader worker process 0.\nOriginal
//! Traceback (most recent call last):\n  File "...", line 308, in _worker_loop\n...')`), as a
//! sweep agent, a scheduler or a logger that prints `repr(error)` gives it. Each piece is read
//! as a line of its own, with the string's escapes (`\'`, `\"`, `\\`) undone and the closing
//! quote and parenthesis of the repr dropped. A segment without an escaped traceback header is
//! left alone: a `\n` in a path or a printed string means nothing by itself.

/// A traceback's header followed by an escaped line break.
const ESCAPED_HEADER: &str = "(most recent call last):\\n";

/// The lines `segment` stands for, when it holds an escaped traceback.
pub fn escaped_lines(segment: &str) -> Option<Vec<String>> {
    if !segment.contains(ESCAPED_HEADER) {
        return None;
    }
    let mut lines: Vec<String> = segment.split("\\n").map(unescape).collect();
    if let Some(last) = lines.last_mut() {
        let end = last.trim_end();
        if let Some(message) = end.strip_suffix("')").or_else(|| end.strip_suffix("\")")) {
            *last = message.to_owned();
        }
    }
    Some(lines)
}

/// `piece` with a Python string's escapes of quotes and backslashes undone, and a tab as
/// spaces.
fn unescape(piece: &str) -> String {
    let mut out = String::with_capacity(piece.len());
    let mut chars = piece.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some(&q @ ('\'' | '"' | '\\')) => {
                out.push(q);
                chars.next();
            }
            Some('t') => {
                out.push_str("    ");
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::{read_log, LineKind};

    #[test]
    fn an_escaped_traceback_is_its_lines() {
        let line = r#"Run a1 errored: RuntimeError('Caught RuntimeError in DataLoader worker process 0.\nOriginal Traceback (most recent call last):\n  File "/x/worker.py", line 308, in _worker_loop\n    data = fetcher.fetch(index)\nRuntimeError: stack expects each tensor to be equal size, but got [3] at entry 0 and [4] at entry 1\n')"#;
        let lines = escaped_lines(line).unwrap();
        assert_eq!(
            lines,
            [
                "Run a1 errored: RuntimeError('Caught RuntimeError in DataLoader worker process 0.",
                "Original Traceback (most recent call last):",
                "  File \"/x/worker.py\", line 308, in _worker_loop",
                "    data = fetcher.fetch(index)",
                "RuntimeError: stack expects each tensor to be equal size, but got [3] at entry 0 and [4] at entry 1",
                "",
            ]
        );
    }

    #[test]
    fn the_reprs_quotes_and_escapes_are_undone() {
        let line = r#"error: KeyError("Traceback (most recent call last):\n  File \"a.py\", line 1, in f\nKeyError: \'lr\'")"#;
        let lines = escaped_lines(line).unwrap();
        assert_eq!(lines[1], "  File \"a.py\", line 1, in f");
        assert_eq!(lines[2], "KeyError: 'lr'");
    }

    #[test]
    fn a_line_without_an_escaped_traceback_is_left_alone() {
        assert_eq!(escaped_lines(r"saved to C:\new\model.pt"), None);
        assert_eq!(escaped_lines("Traceback (most recent call last):"), None);
    }

    /// A traceback printed as an exception's repr, its line breaks escaped (`\n`), is read as the
    /// lines it stands for: the worker's own exception line is found, and the re-raise that
    /// announces it is collateral to it.
    #[test]
    fn a_traceback_in_an_escaped_repr_is_read() {
        let report = read_log(concat!(
            "epoch 0:   1%|          | 41/6027 [00:19<46:51,  2.13it/s]\n",
            r#"Run a1 errored: RuntimeError('Caught RuntimeError in DataLoader worker process 0.\nOriginal Traceback (most recent call last):\n  File "/x/torch/utils/data/_utils/worker.py", line 308, in _worker_loop\n    data = fetcher.fetch(index)\n  File "/x/train.py", line 40, in collate\n    return torch.stack(frames)\nRuntimeError: stack expects each tensor to be equal size, but got [3, 1, 224, 224] at entry 0 and [3, 1, 144, 192] at entry 6\n')"#,
            "\n"
        ));
        let exception = (report.error_lines.iter())
            .find(|e| e.kind == LineKind::Exception && !e.collateral)
            .unwrap_or_else(|| panic!("{report:#?}"));
        assert_eq!(
            exception.text,
            "RuntimeError: stack expects each tensor to be equal size, but got [3, 1, 224, 224] at entry 0 and [3, 1, 144, 192] at entry 6"
        );
        assert!(
            exception.context.contains("in collate"),
            "{}",
            exception.context
        );
    }
}
