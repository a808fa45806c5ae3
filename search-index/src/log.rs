//! Reading a noisy training log into the lines that carry errors.
//!
//! Takes the whole log as text; yields [`LogReport`]: how many lines were read and the distinct
//! error lines, each with its first line number, ranks, repeat count, kind, and whether it is
//! collateral (an abort, a launcher summary or another rank's timeout after the first error).
//! Each physical line is cleaned first: ANSI colours, Markdown quote marks, Rich box drawing,
//! progress bars glued to the line, timestamps, `[rank3]:` / `[default3]:` / hostname prefixes
//! and log-level brackets are removed, keeping the rank they named. The last exception line of
//! every traceback is found; repeats (the same error from 64 ranks) fold into one line.
//! Work is linear in the size of the log and memory is bounded by [`MAX_ERROR_LINES`].

use std::collections::HashMap;

use serde::Serialize;

use crate::tokenizer::terms;

/// Distinct error lines kept; a log with more keeps the first ones (the cause comes first).
pub const MAX_ERROR_LINES: usize = 400;
/// Plain lines kept in case the log has no error line at all.
const MAX_CONTEXT_LINES: usize = 100;
/// Lines before an exception kept as its context.
const CONTEXT_BEFORE: usize = 8;
/// Longest cleaned line kept, in bytes.
const MAX_LINE: usize = 2_000;

/// What an error line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LineKind {
    /// The final exception line of a traceback (`RuntimeError: ...`).
    Exception,
    /// Another line carrying an error: `Error:`, NCCL and CUDA errors, `Killed`, NaN losses.
    Error,
    /// A warning, weaker evidence.
    Warning,
    /// A plain line of a log with no error line at all (a pasted message without the usual
    /// markers); the weakest evidence.
    Context,
}

/// One distinct error line of a log.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ErrorLine {
    /// 1-based number of its first occurrence.
    pub line: usize,
    pub text: String,
    pub kind: LineKind,
    /// The ranks it was seen on, sorted, when the log names ranks.
    pub ranks: Vec<u32>,
    pub count: usize,
    /// An abort, a launcher summary or a consequence of an earlier error.
    pub collateral: bool,
    /// For an exception line: the lines just before it (frames, code, the caller's summary),
    /// which say where it was raised.
    #[serde(skip)]
    pub context: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LogReport {
    pub lines_read: usize,
    pub error_lines: Vec<ErrorLine>,
}

/// A physical line after cleaning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CleanLine {
    pub text: String,
    pub rank: Option<u32>,
    /// The line was indented after its prefixes (a traceback frame or code).
    pub indented: bool,
}

/// Reads a whole log.
pub fn read_log(text: &str) -> LogReport {
    let mut folded: Vec<ErrorLine> = Vec::new();
    let mut by_key: HashMap<String, usize> = HashMap::new();
    let mut in_traceback: HashMap<Option<u32>, bool> = HashMap::new();
    let mut lines_read = 0;
    let mut first_error_seen = false;
    let mut context: Vec<ErrorLine> = Vec::new();
    let mut context_keys: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut recent: HashMap<Option<u32>, std::collections::VecDeque<String>> = HashMap::new();
    // IPython traceback headers whose final exception line has not come (yet)
    let mut pending: HashMap<Option<u32>, Option<ErrorLine>> = HashMap::new();
    let mut headers: Vec<ErrorLine> = Vec::new();
    // `lines()` semantics: a final newline ends the last line rather than starting another
    let body = text.strip_suffix('\n').unwrap_or(text);
    for (i, physical) in body.split('\n').enumerate() {
        lines_read = i + 1;
        for segment in physical.split('\r') {
            let Some(line) = clean_line(segment) else {
                continue;
            };
            let tb = in_traceback.entry(line.rank).or_insert(false);
            if let Some(at) = line.text.find("Traceback (most recent call last)") {
                *tb = true;
                // IPython names the exception in the header: keep it in case the last line is cut
                let class = line.text[..at].trim();
                let header = (!class.is_empty() && exception_head(class)).then(|| ErrorLine {
                    line: i + 1,
                    text: class.to_owned(),
                    kind: LineKind::Error,
                    ranks: line.rank.into_iter().collect(),
                    count: 1,
                    collateral: false,
                    context: String::new(),
                });
                if let Some(unfinished) =
                    std::mem::replace(pending.entry(line.rank).or_default(), header)
                {
                    headers.push(unfinished);
                }
                recent.entry(line.rank).or_default().clear();
                continue;
            }
            let kind = if *tb && !line.indented && !is_frame(&line.text) {
                if line
                    .text
                    .starts_with("During handling of the above exception")
                    || line
                        .text
                        .starts_with("The above exception was the direct cause")
                {
                    continue;
                }
                *tb = false;
                pending.remove(&line.rank);
                Some(if is_warning_class(&line.text) {
                    LineKind::Warning
                } else {
                    LineKind::Exception
                })
            } else if *tb {
                None
            } else {
                classify(&line.text)
            };
            let Some(kind) = kind else {
                let before = recent.entry(line.rank).or_default();
                if before.len() == CONTEXT_BEFORE {
                    before.pop_front();
                }
                before.push_back(line.text.clone());
                if folded.is_empty()
                    && context.len() < MAX_CONTEXT_LINES
                    && !line.indented
                    && !is_frame(&line.text)
                    && terms(&line.text).len() >= 4
                    && context_keys.insert(fold_key(&line.text))
                {
                    context.push(ErrorLine {
                        line: i + 1,
                        text: line.text,
                        kind: LineKind::Context,
                        ranks: line.rank.into_iter().collect(),
                        count: 1,
                        collateral: false,
                        context: String::new(),
                    });
                }
                continue;
            };
            let collateral = first_error_seen && is_collateral(&line.text);
            let key = fold_key(&line.text);
            if key.is_empty() {
                continue;
            }
            match by_key.get(&key) {
                Some(&at) => {
                    let e = &mut folded[at];
                    e.count += 1;
                    if let Some(rank) = line.rank {
                        if !e.ranks.contains(&rank) {
                            e.ranks.push(rank);
                            e.ranks.sort_unstable();
                        }
                    }
                    if kind < e.kind {
                        e.kind = kind;
                    }
                }
                None if folded.len() < MAX_ERROR_LINES => {
                    by_key.insert(key, folded.len());
                    let before = recent.entry(line.rank).or_default();
                    let context = if kind == LineKind::Exception {
                        before
                            .iter()
                            .map(String::as_str)
                            .collect::<Vec<_>>()
                            .join("\n")
                    } else {
                        String::new()
                    };
                    before.clear();
                    folded.push(ErrorLine {
                        line: i + 1,
                        text: line.text,
                        kind,
                        ranks: line.rank.into_iter().collect(),
                        count: 1,
                        collateral,
                        context,
                    });
                    if !is_collateral(&folded[folded.len() - 1].text) && kind != LineKind::Warning {
                        first_error_seen = true;
                    }
                }
                None => {}
            }
        }
    }
    if text.is_empty() {
        lines_read = 0;
    }
    headers.extend(pending.into_values().flatten());
    for header in headers {
        if folded.len() < MAX_ERROR_LINES && !folded.iter().any(|e| e.text == header.text) {
            folded.push(header);
        }
    }
    folded.sort_by_key(|e| e.line);
    if folded.is_empty() {
        folded = context;
    }
    LogReport {
        lines_read,
        error_lines: folded,
    }
}

fn fold_key(text: &str) -> String {
    terms(text).join(" ")
}

/// A traceback frame or a line of code shown in one: Python's `File "..."`, IPython's
/// `Cell In[3], line 9`, `----> 9 code` and numbered listings, C++ `frame #12`, carets.
fn is_frame(text: &str) -> bool {
    text.starts_with("File ")
        || text.starts_with("frame #")
        || text.starts_with(['^', '~'])
        || text.starts_with("Cell In[")
        || text.starts_with("<ipython-input-")
        || (text.starts_with("--") && text.trim_start_matches('-').starts_with('>'))
        || text.starts_with("[... skipping")
        || text.starts_with("...")
        || text
            .split_whitespace()
            .next()
            .is_some_and(|w| w.chars().all(|c| c.is_ascii_digit()))
        || text.chars().all(|c| c == '-' || c == '=' || c == ' ')
}

/// Cleans one physical line; `None` when nothing useful is left.
pub fn clean_line(raw: &str) -> Option<CleanLine> {
    let mut s = strip_ansi(raw);
    s = strip_progress_bar(&s)?;
    let mut rest: &str = &s;
    rest = rest.trim_end();
    // Markdown quotes (`> `, `>> `) and Rich boxes (`│ ... │`), each with one space after it.
    loop {
        let before = rest.len();
        let trimmed = rest.trim_start();
        if let Some(after) =
            trimmed.strip_prefix(|c: char| c == '>' || is_box(c) || c == '\u{feff}')
        {
            rest = after.strip_prefix(' ').unwrap_or(after);
        }
        rest = rest.trim_end_matches(|c: char| is_box(c) || c == ' ');
        if rest.len() == before {
            break;
        }
    }
    if rest.trim_start().starts_with("```") {
        return None;
    }
    let mut rank = None;
    // Prefixes: timestamps, brackets, ranks, hosts, in any order, a few times.
    for _ in 0..8 {
        let trimmed = rest.trim_start();
        let (after, found_rank) = strip_prefix(trimmed);
        if found_rank.is_some() && rank.is_none() {
            rank = found_rank;
        }
        if after.len() == trimmed.len() {
            break;
        }
        // indentation after a prefix is the line's own: drop only the separating space
        rest = after.strip_prefix(' ').unwrap_or(after);
    }
    let indented = rest.starts_with(' ') || rest.starts_with('\t');
    let text: String = rest.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() || text.chars().all(|c| !c.is_alphanumeric()) {
        return None;
    }
    let mut text = text;
    if text.len() > MAX_LINE {
        let mut cut = MAX_LINE;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
    }
    Some(CleanLine {
        text,
        rank,
        indented,
    })
}

fn is_box(c: char) -> bool {
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
    // the stats block `[00:10<00:12, 4.5it/s]`
    let after = match after.find(']') {
        Some(end)
            if after[..end].contains('<')
                || after[..end].contains("it/s")
                || after[..end].contains("s/it") =>
        {
            &after[end + 1..]
        }
        _ => after.trim_start().split_once(' ').map_or("", |(_, r)| r),
    };
    let kept = after.trim();
    (!kept.is_empty()).then(|| kept.to_owned())
}

/// Strips one leading prefix; returns the rest and a rank if the prefix named one.
fn strip_prefix(s: &str) -> (&str, Option<u32>) {
    if let Some(rest) = strip_timestamp(s) {
        return (rest, None);
    }
    if let Some(inner_end) = s.strip_prefix('[').and_then(|r| r.find(']')) {
        let inner = &s[1..1 + inner_end];
        let rest = &s[inner_end + 2..];
        let rest_trim = rest.trim_start_matches(':');
        if let Some(rank) = rank_of(inner) {
            return (rest_trim, Some(rank));
        }
        let bracket_ok = inner.len() <= 80
            && !rest.trim().is_empty()
            && (inner.chars().any(|c| c.is_ascii_digit())
                || is_level(inner)
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
    (s, None)
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

fn is_level(s: &str) -> bool {
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

fn is_host(name: &str) -> bool {
    if name == "localhost" {
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
    let rest = &s[end..];
    let rest = rest.trim_start_matches([' ', '|', '-', ':', ']']);
    Some(rest)
}

/// Markers of a line that carries an error, most specific first. Checked on the cleaned line.
const ERROR_MARKERS: [&str; 38] = [
    "Error:",
    "Error(",
    "Exception:",
    "error:",
    "ERROR",
    "CUDA error",
    "NCCL WARN",
    "NCCL error",
    "ncclSystemError",
    "ncclInternalError",
    "ncclUnhandledCudaError",
    "ncclInvalidUsage",
    "ncclRemoteError",
    "Killed",
    "exitcode: -9",
    "exitcode : -9",
    "SIGKILL",
    "Signal 9",
    "Segmentation fault",
    "core dumped",
    "Bus error",
    "Assertion",
    "assert",
    "Watchdog caught",
    "timed out",
    "Timeout",
    "out of memory",
    "Out of memory",
    "OOM",
    "overflow",
    "Overflow",
    "not supported",
    "undefined symbol",
    "No module named",
    "Missing key",
    "Unexpected key",
    "size mismatch",
    "Skipping step",
];

/// Lines that mention a numeric failure: a loss or norm that is NaN or Inf.
fn is_nan_line(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let has_word = |w: &str| {
        lower.match_indices(w).any(|(i, _)| {
            let before = lower[..i]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric());
            let after = lower[i + w.len()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric());
            before && after
        })
    };
    (has_word("nan") || has_word("inf") || lower.contains("non-finite"))
        && (lower.contains("loss")
            || lower.contains("grad")
            || lower.contains("norm")
            || lower.contains("nan values"))
}

/// The kind of a line outside a traceback, if it carries an error.
pub fn classify(text: &str) -> Option<LineKind> {
    if text.starts_with("Exception raised from") || text.starts_with("frame #") || is_frame(text) {
        return None;
    }
    if exception_head(text) {
        return Some(if is_warning_class(text) {
            LineKind::Warning
        } else {
            LineKind::Exception
        });
    }
    if is_nan_line(text) {
        return Some(LineKind::Error);
    }
    if ERROR_MARKERS.iter().any(|m| text.contains(m)) {
        let lower = text.to_ascii_lowercase();
        if lower.starts_with("warning")
            || lower.contains("warning:")
            || lower.contains("userwarning")
            || lower.contains("futurewarning")
        {
            return Some(LineKind::Warning);
        }
        return Some(LineKind::Error);
    }
    let lower = text.to_ascii_lowercase();
    if lower.starts_with("warning") || lower.contains("warning:") {
        return Some(LineKind::Warning);
    }
    None
}

/// `RuntimeError: ...`, `torch.OutOfMemoryError: ...`, `_pickle.UnpicklingError: ...`,
/// `torch._dynamo.exc.BackendCompilerFailed: ...`, `AssertionError`.
fn exception_head(text: &str) -> bool {
    let head_end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(text.len());
    let head = &text[..head_end];
    let follows = &text[head_end..];
    if head.is_empty() || !(follows.is_empty() || follows.starts_with(':')) {
        return false;
    }
    let last = head.rsplit('.').next().unwrap_or(head);
    [
        "Error",
        "Exception",
        "Failed",
        "Interrupt",
        "Exit",
        "Warning",
        "Fault",
        "Failure",
    ]
    .iter()
    .any(|s| last.ends_with(s) && last.len() > s.len())
        || matches!(last, "Error" | "Exception")
}

fn is_warning_class(text: &str) -> bool {
    let head = text.split(':').next().unwrap_or(text);
    head.ends_with("Warning")
}

/// Errors that follow from an earlier one: launcher summaries, aborts, other ranks' timeouts.
pub fn is_collateral(text: &str) -> bool {
    const MARKERS: [&str; 16] = [
        "ChildFailedError",
        "Root Cause (first observed failure)",
        "failed (exitcode",
        "Sending process",
        "closing signal SIGTERM",
        "SignalException",
        "Some NCCL operations have failed or timed out",
        "To avoid data inconsistency",
        "NCCL communicator was aborted",
        "Watchdog caught collective operation timeout",
        "ProcessGroupNCCL's watchdog",
        "Received SIGTERM",
        "process group has been destroyed",
        "elastic.multiprocessing",
        "The server socket has failed to listen",
        "terminate called after throwing",
    ];
    MARKERS.iter().any(|m| text.contains(m))
}

#[cfg(test)]
mod tests {

    /// Found by the log_reader fuzz target: a glog-like level followed by a multi-byte
    /// character sliced the string inside that character.
    #[test]
    fn glog_level_check_respects_char_boundaries() {
        assert!(!is_level("I12\u{20ac}"));
        assert!(is_level("I1201"));
        let report = read_log("I12\u{20ac} 10:00:00 worker.py:1] RuntimeError: boom\n");
        assert_eq!(report.lines_read, 1);
    }

    use super::*;

    fn clean(s: &str) -> Option<(String, Option<u32>)> {
        clean_line(s).map(|l| (l.text, l.rank))
    }

    #[test]
    fn strips_ansi_and_lost_escapes() {
        assert_eq!(
            clean("\u{1b}[31mRuntimeError\u{1b}[0m: boom").unwrap().0,
            "RuntimeError: boom"
        );
        assert_eq!(
            clean("[1;31mRuntimeError[0m: boom").unwrap().0,
            "RuntimeError: boom"
        );
    }

    #[test]
    fn strips_timestamps() {
        for s in [
            "2024-03-01 12:00:01,123 RuntimeError: boom",
            "2024-03-01T12:00:01.123Z RuntimeError: boom",
            "[2024-03-01 12:00:01,123] RuntimeError: boom",
            "12:00:01 | RuntimeError: boom",
            "I0301 12:00:01.123456 4242 trainer.cc:10] RuntimeError: boom",
        ] {
            assert_eq!(clean(s).unwrap().0, "RuntimeError: boom", "{s}");
        }
    }

    #[test]
    fn strips_rank_and_host_prefixes() {
        assert_eq!(
            clean("[rank3]: RuntimeError: boom").unwrap(),
            ("RuntimeError: boom".into(), Some(3))
        );
        assert_eq!(
            clean("[default5]:RuntimeError: boom").unwrap(),
            ("RuntimeError: boom".into(), Some(5))
        );
        assert_eq!(clean("[1,7]<stderr>: x").map(|c| c.1), Some(Some(7)));
        assert_eq!(
            clean("worker-03: RuntimeError: boom").unwrap().0,
            "RuntimeError: boom"
        );
        assert_eq!(
            clean("gpu-node-1:4242:4300 [2] NCCL WARN Call to connect failed").unwrap(),
            ("NCCL WARN Call to connect failed".into(), Some(2))
        );
        assert_eq!(clean("RuntimeError: boom").unwrap().0, "RuntimeError: boom");
        assert_eq!(
            clean("[2024-03-01 12:00:01,123] [INFO] [launch.py:12:main] RuntimeError: boom")
                .unwrap()
                .0,
            "RuntimeError: boom"
        );
    }

    #[test]
    fn strips_quotes_boxes_and_bars() {
        assert_eq!(
            clean("> > RuntimeError: boom").unwrap().0,
            "RuntimeError: boom"
        );
        assert_eq!(
            clean("│ RuntimeError: boom                │").unwrap().0,
            "RuntimeError: boom"
        );
        assert_eq!(
            clean("╭──────── Traceback ────────╮").unwrap().0,
            "Traceback"
        );
        assert_eq!(
            clean(" 45%|████▌     | 45/100 [00:10<00:12,  4.50it/s]RuntimeError: boom")
                .unwrap()
                .0,
            "RuntimeError: boom"
        );
        assert_eq!(
            clean(" 45%|████▌     | 45/100 [00:10<00:12,  4.50it/s]"),
            None
        );
        assert_eq!(clean("```"), None);
    }

    #[test]
    fn quoted_and_prefixed_tracebacks() {
        let log = "> Traceback (most recent call last):\n>   File \"a.py\", line 1, in <module>\n>     f()\n> RuntimeError: quoted boom\n";
        assert_eq!(
            read_log(log).error_lines[0].text,
            "RuntimeError: quoted boom"
        );
        let log = "[rank1]: Traceback (most recent call last):\n[rank1]:   File \"a.py\", line 1\n[rank1]:     f()\n[rank1]: torch.distributed.DistBackendError: NCCL error\n[rank1]: ncclInternalError: Internal check failed.\n";
        let lines: Vec<(String, LineKind)> = read_log(log)
            .error_lines
            .into_iter()
            .map(|e| (e.text, e.kind))
            .collect();
        assert_eq!(
            lines[0],
            (
                "torch.distributed.DistBackendError: NCCL error".into(),
                LineKind::Exception
            )
        );
        assert_eq!(lines[1].0, "ncclInternalError: Internal check failed.");
    }

    #[test]
    fn ipython_tracebacks() {
        let log = "RuntimeError    Traceback (most recent call last)\nCell In[3], line 9\n      7 x = 1\n---------> 9 f()\n\nFile ~/lib.py:12, in f()\n     11 def f():\n---> 12     raise RuntimeError(\"boom\")\n\nRuntimeError: boom\n";
        let report = read_log(log);
        assert_eq!(report.error_lines.len(), 1, "{report:?}");
        assert_eq!(report.error_lines[0].text, "RuntimeError: boom");
    }

    #[test]
    fn ipython_header_stands_in_for_a_cut_traceback() {
        let log = "XlaRuntimeError    Traceback (most recent call last)\nCell In[3], line 9\n----> 9 f()\n";
        let report = read_log(log);
        assert_eq!(report.error_lines.len(), 1);
        assert_eq!(
            (
                report.error_lines[0].line,
                report.error_lines[0].text.as_str()
            ),
            (1, "XlaRuntimeError")
        );
    }

    #[test]
    fn final_exception_line_of_traceback() {
        let log = "step 1\nTraceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    loss.backward()\nRuntimeError: boom happened\nstep 2\n";
        let report = read_log(log);
        assert_eq!(report.lines_read, 6);
        assert_eq!(report.error_lines.len(), 1);
        assert_eq!(report.error_lines[0].line, 5);
        assert_eq!(report.error_lines[0].kind, LineKind::Exception);
    }

    #[test]
    fn folds_repeats_across_ranks() {
        let log: String = (0..64).map(|r| format!("[rank{r}]: RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1234, unhandled system error\n")).collect();
        let report = read_log(&log);
        assert_eq!(report.error_lines.len(), 1);
        assert_eq!(report.error_lines[0].count, 64);
        assert_eq!(report.error_lines[0].ranks.len(), 64);
    }

    #[test]
    fn marks_collateral_after_the_first_error() {
        let log = "[rank1]: torch.OutOfMemoryError: CUDA out of memory.\n[rank0]: [E ProcessGroupNCCL.cpp:1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5)\ntorch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n";
        let report = read_log(log);
        let kinds: Vec<(usize, bool)> = report
            .error_lines
            .iter()
            .map(|e| (e.line, e.collateral))
            .collect();
        assert_eq!(kinds, [(1, false), (2, true), (3, true)]);
    }

    #[test]
    fn classifies() {
        assert_eq!(classify("Killed"), Some(LineKind::Error));
        assert_eq!(
            classify("{'loss': nan, 'grad_norm': nan, 'epoch': 0.1}"),
            Some(LineKind::Error)
        );
        assert_eq!(classify("UserWarning: something"), Some(LineKind::Warning));
        assert_eq!(classify("epoch 1 loss 0.25"), None);
        assert_eq!(classify("Information: infinite patience"), None);
        assert_eq!(classify("frame #3: c10::Error::Error() + 0x1"), None);
        assert_eq!(
            classify("_pickle.UnpicklingError: Weights only load failed."),
            Some(LineKind::Exception)
        );
    }

    #[test]
    fn counts_lines_like_an_editor() {
        assert_eq!(read_log("").lines_read, 0);
        assert_eq!(read_log("a\nb\nc\n").lines_read, 3);
        assert_eq!(read_log("a\nb\nc").lines_read, 3);
        assert_eq!(read_log("\n").lines_read, 1);
    }

    #[test]
    fn plain_lines_stand_in_when_there_is_no_error_line() {
        let report =
            read_log("ok\nThe driver on this machine is too old for that toolkit\nstep 2\n");
        assert_eq!(report.error_lines.len(), 1);
        assert_eq!(report.error_lines[0].kind, LineKind::Context);
        assert_eq!(report.error_lines[0].line, 2);
    }
}
