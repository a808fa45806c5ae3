//! Cleaning one physical line of a log.
//!
//! Takes the raw line; yields its text with ANSI colours, Markdown quote marks, Rich box
//! drawing, progress bars glued to the line, timestamps (with a container runtime's `stderr F`
//! after them), Docker Compose's `api-1  | `, the journal's `Dec 04 10:00:00 host prog[pid]: `,
//! loguru's `| module:function:line - ` (those four in [`super::relay`]), `[rank3]:` /
//! `[default3]:` / hostname prefixes and log-level brackets removed, whitespace collapsed, and
//! the rank and the log level a prefix named. `None` when nothing useful is left.

use super::relay::{is_cri_stream, without_cri_stream, without_relay};

/// Longest cleaned line kept, in bytes: its start and its end, since a long line's verdict is
/// often at the end (`... died with <Signals.SIGKILL: 9>.` after a whole command line).
const MAX_LINE: usize = 2_000;
/// Of a line longer than [`MAX_LINE`], the bytes kept from its end.
const KEPT_END: usize = 600;

/// The severity a logger's prefix gave a line (`ERROR`, `[INFO]`, glog's `E1203`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// ERROR, CRITICAL, FATAL.
    Error,
    /// WARNING.
    Warning,
    /// INFO, DEBUG, TRACE.
    Info,
}

/// A physical line after cleaning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CleanLine {
    pub text: String,
    pub rank: Option<u32>,
    /// The whitespace characters before its text, after its prefixes.
    pub indent: usize,
    /// The level a logger's prefix gave the line, if one did.
    pub level: Option<Level>,
}

/// Cleans one physical line; `None` when nothing useful is left.
pub fn clean_line(raw: &str) -> Option<CleanLine> {
    let mut s = strip_ansi(raw);
    s = strip_progress_bar(&s)?;
    let mut rest: &str = &s;
    rest = rest.trim_end();
    rest = without_quotes_and_boxes(rest);
    if rest.trim_start().starts_with("```") {
        return None;
    }
    let mut rank = None;
    let mut level = None;
    let unprefixed = rest.len();
    // Prefixes: timestamps, brackets, ranks, hosts, in any order, a few times.
    for _ in 0..8 {
        let trimmed = rest.trim_start();
        let (after, found_rank) = strip_prefix(trimmed);
        if found_rank.is_some() && rank.is_none() {
            rank = found_rank;
        }
        // The level nearest the text is the message's own: an outer prefix is a relay's (a
        // container's logger that prints everything at INFO).
        if let Some(found) = level_of(&trimmed[..trimmed.len() - after.len()]) {
            level = Some(found);
        }
        if after.len() == trimmed.len() {
            break;
        }
        // indentation after a prefix is the line's own: drop only the separating space
        rest = after.strip_prefix(' ').unwrap_or(after);
    }
    // A relay's prefix before a Rich box (pdsh's host before each line of it).
    if rest.len() < unprefixed {
        rest = without_quotes_and_boxes(rest);
    }
    let indent = rest.len() - rest.trim_start().len();
    let text = without_markers(rest.split_whitespace().collect::<Vec<_>>().join(" "));
    if text.is_empty() || text.chars().all(|c| !c.is_alphanumeric()) {
        return None;
    }
    Some(CleanLine {
        text: shorten(text),
        rank,
        indent,
        level,
    })
}

/// The line without Markdown quotes (`> `, `>> `), Rich boxes (`│ ... │`) and the bars of an
/// exception group's traceback (`  | RuntimeError: ...`, `  + Exception Group Traceback`) around
/// it, each mark with one space after it.
fn without_quotes_and_boxes(mut rest: &str) -> &str {
    loop {
        let before = rest.len();
        rest = without_group_bars(rest);
        let trimmed = rest.trim_start();
        if let Some(after) =
            trimmed.strip_prefix(|c: char| c == '>' || is_box(c) || c == '\u{feff}')
        {
            rest = after.strip_prefix(' ').unwrap_or(after);
        }
        rest = rest.trim_end_matches(|c: char| is_box(c) || c == ' ');
        if rest.len() == before {
            return rest;
        }
    }
}

/// The line without the bars Python (3.11 and later) draws down the left of an exception
/// group's traceback: `| ` before each line, nested, and `+ ` before its header. A table's row,
/// which ends with a bar too, keeps its bars.
fn without_group_bars(rest: &str) -> &str {
    let start = rest.trim_start();
    // Each bar and its one space go; the traceback line's own indent after them stays.
    let mut inner = start;
    while let Some(after) = inner.strip_prefix("| ") {
        inner = after;
    }
    let bare = inner.trim_start();
    if let Some(header) = bare.strip_prefix("+ Exception Group ") {
        return header;
    }
    // `+-+---------------- 1 ----------------`, `+------------------------------------`
    let separator = |c: char| matches!(c, '+' | '-' | ' ' | '.') || c.is_ascii_digit();
    if bare.starts_with("+-") && bare.chars().all(separator) {
        return "";
    }
    if inner.len() < start.len() && !rest.trim_end().ends_with('|') {
        inner
    } else {
        rest
    }
}

/// A line of Python's `^^^~~~` markers with text stuck among them, as ranks that print their
/// tracebacks at once leave it (`^^^:    ^^CUDA error: invalid device ordinal`): the text,
/// without the markers. A line of markers alone stays as it is.
fn without_markers(text: String) -> String {
    if !(text.starts_with('^') || text.starts_with("~~")) {
        return text;
    }
    let words = text.replace(['^', '~'], " ");
    let words = words.split_whitespace().collect::<Vec<_>>().join(" ");
    let words = words.trim_start_matches([':', ' ']);
    if words.chars().any(char::is_alphanumeric) {
        words.to_owned()
    } else {
        text
    }
}

impl CleanLine {
    /// The line was indented after its prefixes (a traceback frame or code).
    pub fn indented(&self) -> bool {
        self.indent > 0
    }
}

/// A line cut to [`MAX_LINE`] bytes: its start, ` … `, and its last [`KEPT_END`] bytes.
fn shorten(mut text: String) -> String {
    if text.len() <= MAX_LINE {
        return text;
    }
    let mut tail_start = text.len() - KEPT_END;
    while !text.is_char_boundary(tail_start) {
        tail_start += 1;
    }
    let tail = text[tail_start..].to_owned();
    let mut cut = MAX_LINE - KEPT_END - 5;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text.truncate(cut);
    text.push_str(" … ");
    text.push_str(&tail);
    text
}

/// The level named in a stripped prefix: one of its words, brackets and colons aside. A source
/// location (`[engine.py:120:error]`) names a function, not a level; glog's head names one
/// whatever file follows it (`E0501 ... api.py:881]`, torch's own records since 2.4).
fn level_of(prefix: &str) -> Option<Level> {
    // torch's own records are glog's shape with a Python file: `E0501 ... api.py:881] `.
    let glog = prefix.split_whitespace().next().is_some_and(is_glog_level);
    if prefix.contains(".py:") && !glog {
        return None;
    }
    // A container runtime's `stdout F` is a stream and a tag (a full line), not FATAL.
    let words =
        prefix.split(|c: char| c.is_whitespace() || matches!(c, '[' | ']' | ':' | '|' | '-'));
    let mut previous = "";
    words
        .filter(|&word| {
            let tag = is_cri_stream(previous, word);
            if !word.is_empty() {
                previous = word;
            }
            !tag
        })
        .find_map(|word| match word {
            "ERROR" | "CRITICAL" | "FATAL" | "error" | "critical" | "fatal" | "E" | "F" => {
                Some(Level::Error)
            }
            "WARNING" | "WARN" | "warning" | "W" => Some(Level::Warning),
            "INFO" | "DEBUG" | "TRACE" | "info" | "debug" | "I" => Some(Level::Info),
            _ if is_bracketed_level(word) => match word {
                "Error" | "Critical" | "Fatal" => Some(Level::Error),
                "Warning" | "Warn" => Some(Level::Warning),
                _ => Some(Level::Info),
            },
            _ if is_glog_level(word) => Some(match word.as_bytes()[0] {
                b'E' | b'F' => Level::Error,
                b'W' => Level::Warning,
                _ => Level::Info,
            }),
            _ => None,
        })
}

/// glog's `E1203` (level letter, month and day).
fn is_glog_level(word: &str) -> bool {
    word.len() == 5
        && word.starts_with(['I', 'W', 'E', 'F'])
        && word.as_bytes()[1..].iter().all(u8::is_ascii_digit)
}

pub(super) fn is_box(c: char) -> bool {
    ('\u{2500}'..='\u{257F}').contains(&c) || ('\u{2580}'..='\u{259F}').contains(&c)
}

/// Removes ANSI escape sequences, and their remains when the escape byte was lost in a copy
/// (`[31m`).
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            match chars.peek() {
                Some('[') => {
                    chars.next();
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                Some(']') => {
                    chars.next();
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' || (c == '\u{1b}' && chars.peek() == Some(&'\\')) {
                            break;
                        }
                    }
                }
                _ => {
                    chars.next();
                }
            }
            continue;
        }
        if c == '[' {
            // a lost escape: `[0m`, `[1;31m`
            let rest: String = chars.clone().take(8).collect();
            if let Some(end) = rest.find('m') {
                if end > 0 && rest[..end].chars().all(|c| c.is_ascii_digit() || c == ';') {
                    for _ in 0..=end {
                        chars.next();
                    }
                    continue;
                }
            }
        }
        out.push(c);
    }
    out
}

/// Drops a tqdm bar (`45%|████▌ | 45/100 [00:10<00:12, 4.5it/s]`) and keeps what follows it.
/// `None` when the line was only a bar.
fn strip_progress_bar(s: &str) -> Option<String> {
    let Some(bar) = s.find("%|") else {
        return Some(s.to_owned());
    };
    let after_bar = &s[bar + 2..];
    let Some(close) = after_bar.find('|') else {
        return Some(s.to_owned());
    };
    let after = &after_bar[close + 1..];
    // the stats block `[00:10<00:12, 4.5it/s]`, whose `key=value` postfix (`loss=nan`) is kept
    let (postfix, after) = match stats_end(after) {
        Some(end) => (postfix(&after[..end]), &after[end + 1..]),
        None => (
            String::new(),
            after.trim_start().split_once(' ').map_or("", |(_, r)| r),
        ),
    };
    let kept = [postfix.as_str(), after.trim()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    (!kept.is_empty()).then_some(kept)
}

/// Where the stats block after a bar closes: the last `]` of `[elapsed<left, rate, k=v...]`,
/// whose postfix values may hold brackets of their own (`loss=[nan.0]`).
fn stats_end(after: &str) -> Option<usize> {
    let first = after.find(']')?;
    let block = &after[..first];
    if !(block.contains('<') || block.contains("it/s") || block.contains("s/it")) {
        return None;
    }
    let mut depth = 0i32;
    for (i, c) in after.char_indices() {
        match c {
            '[' => depth += 1,
            ']' if depth <= 1 => return Some(i),
            ']' => depth -= 1,
            _ => {}
        }
    }
    Some(first)
}

/// The `key=value` items of a stats block (`v_num=3, loss=nan`), which tqdm's postfix prints.
fn postfix(block: &str) -> String {
    block
        .split(", ")
        .filter(|item| item.contains('='))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Strips one leading prefix; returns the rest and a rank if the prefix named one.
fn strip_prefix(s: &str) -> (&str, Option<u32>) {
    if let Some(rest) = strip_timestamp(s) {
        return (rest, None);
    }
    if let Some(rest) = without_relay(s) {
        return (rest, None);
    }
    // Ray's and vLLM's worker prefixes: `(RayWorker pid=123)`, `(VllmWorkerProcess pid=5120)`
    if let Some(inner_end) = s.strip_prefix('(').and_then(|r| r.find(')')) {
        if s[1..1 + inner_end].contains("pid=") {
            return (&s[inner_end + 2..], None);
        }
    }
    // a logger's `file.py:233]` after the level and time (vLLM, glog-like formats)
    let head_end = s.find(' ').unwrap_or(s.len());
    if s[..head_end].ends_with(']') && s[..head_end].contains(".py:") {
        return (&s[head_end..], None);
    }
    if let Some(inner_end) = s.strip_prefix('[').and_then(|r| r.find(']')) {
        let inner = &s[1..1 + inner_end];
        let rest = &s[inner_end + 2..];
        let rest_trim = rest.trim_start_matches(':');
        if let Some(rank) = rank_of(inner) {
            // mpirun's `--tag-output` names the stream after the rank: `[1,0]<stderr>:`.
            let rest_trim = ["<stderr>:", "<stdout>:"]
                .iter()
                .find_map(|s| rest_trim.strip_prefix(s))
                .unwrap_or(rest_trim);
            return (rest_trim, Some(rank));
        }
        let bracket_ok = inner.len() <= 80
            && !rest.trim().is_empty()
            && (inner.chars().any(|c| c.is_ascii_digit())
                || is_level(inner)
                || is_bracketed_level(inner)
                || inner.contains(".py")
                || inner.contains(".cpp"));
        if bracket_ok {
            return (rest_trim, None);
        }
        return (s, None);
    }
    // `rank3:` / `3:` / `node-1:` / `host:pid:tid [0] NCCL ...`
    let head_end = s.find(|c: char| c.is_whitespace()).unwrap_or(s.len());
    let head = &s[..head_end];
    if let Some(name) = head.strip_suffix(':') {
        if let Some(rank) = name.strip_prefix("rank").and_then(|n| n.parse().ok()) {
            return (&s[head_end..], Some(rank));
        }
        if !name.is_empty() && name.len() <= 3 && name.chars().all(|c| c.is_ascii_digit()) {
            return (&s[head_end..], name.parse().ok());
        }
        if is_host(name) {
            return (&s[head_end..], None);
        }
    }
    // NCCL's `host:pid:tid [dev] NCCL WARN ...`
    let parts: Vec<&str> = head.split(':').collect();
    if parts.len() == 3
        && parts[1].chars().all(|c| c.is_ascii_digit())
        && parts[2].chars().all(|c| c.is_ascii_digit())
        && !parts[1].is_empty()
    {
        let rest = s[head_end..].trim_start();
        if let Some(close) = rest.strip_prefix('[').and_then(|r| r.find(']')) {
            let dev = rest[1..1 + close].parse().ok();
            return (&rest[close + 2..], dev);
        }
        return (rest, None);
    }
    if is_level(head) && head_end < s.len() {
        return (&s[head_end..], None);
    }
    let rest = without_glog_location(head, &s[head_end..]);
    (rest.unwrap_or(s), None)
}

/// The message after glog's thread id (`head`) and source line:
/// `E     374 tensorflow/x.cc:90] ...`.
fn without_glog_location<'a>(head: &str, rest: &'a str) -> Option<&'a str> {
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit());
    let (location, message) = rest.trim_start().split_once("] ")?;
    let line_no = location.rsplit_once(':').map_or("", |(_, n)| n);
    (head.len() <= 8 && digits(head) && !location.contains(' ') && digits(line_no))
        .then_some(message)
}

fn rank_of(inner: &str) -> Option<u32> {
    let lower = inner.trim().to_ascii_lowercase();
    for prefix in ["rank", "default", "rank ", "local_rank", "local_rank "] {
        if let Some(n) = lower.strip_prefix(prefix) {
            if let Ok(rank) = n.trim().parse() {
                return Some(rank);
            }
        }
    }
    // SageMaker's mpirun `1,mpirank:0,algo-1`
    if let Some(n) = lower
        .split(',')
        .find_map(|part| part.strip_prefix("mpirank:"))
    {
        return n.parse().ok();
    }
    // mpirun `1,0` and torchrun `--tee` prefixes
    if let Some((a, b)) = lower.split_once(',') {
        if a.chars().all(|c| c.is_ascii_digit())
            && b.chars().all(|c| c.is_ascii_digit())
            && !b.is_empty()
        {
            return b.parse().ok();
        }
    }
    None
}

/// A level written capitalised, which loggers put in brackets (`[Error]: ...`, Ascend's CANN
/// and torch_npu; `[Warning]`): outside brackets, `Error:` begins a message.
fn is_bracketed_level(s: &str) -> bool {
    matches!(
        s,
        "Error" | "Critical" | "Fatal" | "Warning" | "Warn" | "Info" | "Debug"
    )
}

pub(super) fn is_level(s: &str) -> bool {
    let s = s.trim_matches(|c: char| c == '[' || c == ']' || c == ':');
    matches!(
        s,
        "INFO"
            | "WARNING"
            | "WARN"
            | "DEBUG"
            | "ERROR"
            | "CRITICAL"
            | "TRACE"
            | "I"
            | "W"
            | "E"
            | "info"
            | "warning"
            | "debug"
            | "error"
    ) || (s.len() >= 5
        && s.starts_with(['I', 'W', 'E', 'F'])
        && s.as_bytes()[1..5].iter().all(u8::is_ascii_digit))
}

/// A host's name as pdsh and the launchers that use it put before each line: `worker-03`,
/// `node7`, or its IPv4 address when the hostfile lists addresses (`10.40.8.11`).
fn is_host(name: &str) -> bool {
    if name == "localhost" || name.parse::<std::net::Ipv4Addr>().is_ok() {
        return true;
    }
    let lower_ok = name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.');
    lower_ok
        && name.len() >= 3
        && (name.contains('-') || name.chars().any(|c| c.is_ascii_digit()))
        && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
}

/// `2024-01-02 03:04:05,678`, `2024-01-02T03:04:05.678Z`, `03:04:05`, `[03:04:05]`, glog's
/// `I0102 03:04:05.678901 1234 file.cc:12]`.
fn strip_timestamp(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let digits = |from: usize, n: usize| {
        b.len() >= from + n && b[from..from + n].iter().all(u8::is_ascii_digit)
    };
    let mut end = 0;
    // glog
    if b.len() > 5
        && matches!(b[0], b'I' | b'W' | b'E' | b'F')
        && digits(1, 4)
        && b.get(5) == Some(&b' ')
    {
        if let Some(close) = s.find("] ") {
            if close < 80 {
                return Some(&s[close + 2..]);
            }
        }
    }
    if digits(0, 4)
        && b.get(4) == Some(&b'-')
        && digits(5, 2)
        && b.get(7) == Some(&b'-')
        && digits(8, 2)
    {
        end = 10;
        if matches!(b.get(10), Some(b' ' | b'T')) && digits(11, 2) && b.get(13) == Some(&b':') {
            end = 11;
        }
    } else if digits(0, 2)
        && b.get(2) == Some(&b'-')
        && digits(3, 2)
        && b.get(5) == Some(&b' ')
        && digits(6, 2)
        && b.get(8) == Some(&b':')
    {
        // a month and day without the year: `11-03 14:20:07`
        end = 6;
    }
    if digits(end, 2) && b.get(end + 2) == Some(&b':') && digits(end + 3, 2) {
        end += 5;
        if b.get(end) == Some(&b':') && digits(end + 1, 2) {
            end += 3;
        }
        if matches!(b.get(end), Some(b',' | b'.')) {
            end += 1;
            while b.get(end).is_some_and(u8::is_ascii_digit) {
                end += 1;
            }
        }
        if matches!(b.get(end), Some(b'Z')) {
            end += 1;
        }
        if matches!(b.get(end), Some(b'+' | b'-')) && digits(end + 1, 2) {
            end += 3;
            if b.get(end) == Some(&b':') {
                end += 1;
            }
            while b.get(end).is_some_and(u8::is_ascii_digit) {
                end += 1;
            }
        }
    }
    if end == 0 || end == 10 && !matches!(b.get(10), Some(b' ')) {
        return None;
    }
    let rest = s[end..].trim_start_matches(' ');
    let after = rest.trim_start_matches([' ', '|', '-', ':', ']']);
    // IPython's arrow (`----> 2 code`) is the line's own, not a separator after the time.
    let rest = if after.starts_with('>') { rest } else { after };
    Some(without_cri_stream(rest))
}

#[cfg(test)]
mod tests {
    use super::{clean_line, Level};

    /// A capitalised level in brackets is a logger's (Ascend's `[Error]: ...`); without
    /// brackets, `Error:` is the message's own first word.
    #[test]
    fn a_capitalised_level_in_brackets_is_a_loggers() {
        let line = clean_line("[Error]: In the specified timeout waiting event, all tasks in the specified stream are not completed.").unwrap();
        assert_eq!(line.level, Some(Level::Error));
        assert!(
            line.text.starts_with("In the specified timeout"),
            "{line:?}"
        );
        let line = clean_line("[Warning]: the device is slow").unwrap();
        assert_eq!(
            (line.level, line.text.as_str()),
            (Some(Level::Warning), "the device is slow")
        );
        let line = clean_line("Error: no such file").unwrap();
        assert_eq!(
            (line.level, line.text.as_str()),
            (None, "Error: no such file")
        );
        let line = clean_line("[Errors] 3 found").unwrap();
        assert_eq!(line.level, None);
    }
}
