//! Problems found in content, and how they are shown.
//!
//! Every stage reports content problems as [`Problem`]s: a file, a 1-based line and column, a
//! message and an optional hint. This module turns them into the one-line form editors and CI
//! parse (`error: content/x.md:7:3: message`), a source snippet with a caret (codespan-reporting),
//! and GitHub Actions annotations. It never decides what is wrong, only how to say it.

use std::fmt;
use std::path::{Path, PathBuf};

use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term;

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Error,
    Warning,
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::Error => "error",
            Level::Warning => "warning",
        })
    }
}

/// One problem at one place in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub level: Level,
    /// The file as the user names it: relative to the site root where possible.
    pub file: PathBuf,
    /// 1-based; 0 when the problem is about the whole file.
    pub line: usize,
    /// 1-based; 0 when unknown.
    pub column: usize,
    pub message: String,
    pub hint: Option<String>,
}

impl Problem {
    pub fn error(
        file: impl Into<PathBuf>,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Self {
        Problem {
            level: Level::Error,
            file: file.into(),
            line,
            column,
            message: shorten(message.into()),
            hint: None,
        }
    }

    pub fn warning(
        file: impl Into<PathBuf>,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Self {
        Problem {
            level: Level::Warning,
            ..Problem::error(file, line, column, message)
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(shorten(hint.into()));
        self
    }

    fn sort_key(&self) -> (&Path, usize, usize, Level, &str) {
        (
            &self.file,
            self.line,
            self.column,
            self.level,
            &self.message,
        )
    }
}

impl fmt::Display for Problem {
    /// `error: content/memory/x.md:7:3: unknown field `severty`, did you mean `severity`?`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.level, self.file.display())?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
            if self.column > 0 {
                write!(f, ":{}", self.column)?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

/// Sorts problems into a stable order (file, line, column) and drops exact repeats.
pub fn sort_problems(problems: &mut Vec<Problem>) {
    problems.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    problems.dedup();
}

/// The text of each content file, kept so problems can quote their line.
#[derive(Debug, Default, Clone)]
pub struct Sources {
    /// The content files' places by path, shared by the sources of every load of one walk of
    /// `content/`, and the text at each place: a rebuild copies no path and no text.
    places: std::sync::Arc<rustc_hash::FxHashMap<PathBuf, usize>>,
    texts: Vec<Option<std::sync::Arc<str>>>,
    /// Texts added one by one (the config, files outside a walk).
    added: rustc_hash::FxHashMap<PathBuf, std::sync::Arc<str>>,
}

impl Sources {
    /// The texts of the files at `places`, by place (`None` for a file that could not be read).
    pub fn of_files(
        places: std::sync::Arc<rustc_hash::FxHashMap<PathBuf, usize>>,
        texts: Vec<Option<std::sync::Arc<str>>>,
    ) -> Sources {
        Sources {
            places,
            texts,
            added: Default::default(),
        }
    }

    pub fn insert(&mut self, file: PathBuf, text: impl Into<std::sync::Arc<str>>) {
        self.added.insert(file, text.into());
    }

    fn text(&self, file: &Path) -> Option<&std::sync::Arc<str>> {
        self.added.get(file).or_else(|| {
            self.places
                .get(file)
                .and_then(|&i| self.texts.get(i))
                .and_then(Option::as_ref)
        })
    }

    pub fn get(&self, file: &Path) -> Option<&str> {
        self.text(file).map(|t| &**t)
    }

    /// Whether `file` has the same text in both (pointer-equal texts are not compared).
    pub fn same(&self, other: &Sources, file: &Path) -> bool {
        match (self.text(file), other.text(file)) {
            (Some(a), Some(b)) => std::sync::Arc::ptr_eq(a, b) || a == b,
            (a, b) => a.is_none() && b.is_none(),
        }
    }
}

/// Renders a problem: the one-line header, then (when the source is known and the problem has
/// a line) the source line with a caret under the column, then the hint.
pub fn render(problem: &Problem, sources: &Sources) -> String {
    let header = problem.to_string();
    let Some(text) = sources.get(&problem.file).filter(|_| problem.line > 0) else {
        return match &problem.hint {
            Some(hint) => format!("{header}\n  = hint: {hint}\n"),
            None => format!("{header}\n"),
        };
    };
    let mut files = SimpleFiles::new();
    let (text, column) = match cut_long_line(text, problem.line, problem.column) {
        Some((cut, column)) => (std::borrow::Cow::Owned(cut), column),
        None => (std::borrow::Cow::Borrowed(text), problem.column),
    };
    let range = byte_range(&text, problem.line, column);
    let id = files.add(problem.file.display().to_string(), text);
    let diagnostic = match problem.level {
        Level::Error => Diagnostic::error(),
        Level::Warning => Diagnostic::warning(),
    }
    .with_message(format!("{}: {}", location(problem), problem.message))
    .with_labels(vec![Label::primary(id, range)])
    .with_notes(problem.hint.iter().map(|h| format!("hint: {h}")).collect());
    let config = term::Config::default();
    term::emit_into_string(&config, &files, &diagnostic).unwrap_or_else(|_| format!("{header}\n"))
}

/// Messages and hints longer than this many characters keep their start: one that quotes a
/// value (`invalid severity `xxx…``) must not print a megabyte line.
const MESSAGE_CHARS: usize = 300;

fn shorten(text: String) -> String {
    let Some((cut, _)) = text.char_indices().nth(MESSAGE_CHARS) else {
        return text;
    };
    let rest = text[cut..].chars().count();
    format!("{}… ({rest} more characters)", &text[..cut])
}

/// A snippet line longer than this many characters is cut around the column, as rustc does:
/// a 7.9 MB front-matter line would otherwise be printed whole.
const SNIPPET_CHARS: usize = 160;

/// When the problem's line is too long to show: a text with only that line, cut to a window
/// around the column with `…` where it was cut (earlier lines left empty, so the line number
/// stays), and the column in it.
fn cut_long_line(text: &str, line: usize, column: usize) -> Option<(String, usize)> {
    let content = text.split_inclusive('\n').nth(line.checked_sub(1)?)?;
    let content = content.trim_end_matches(['\n', '\r']);
    let length = content.chars().count();
    if length <= SNIPPET_CHARS {
        return None;
    }
    let column = column.max(1);
    let first = column
        .saturating_sub(SNIPPET_CHARS / 2)
        .min(length - SNIPPET_CHARS);
    let window: String = content.chars().skip(first).take(SNIPPET_CHARS).collect();
    let (before, after) = (first > 0, first + SNIPPET_CHARS < length);
    let mut cut = "\n".repeat(line - 1);
    cut.push_str(if before { "…" } else { "" });
    cut.push_str(&window);
    cut.push_str(if after { "…" } else { "" });
    Some((cut, column - first + usize::from(before)))
}

fn location(problem: &Problem) -> String {
    let mut s = problem.file.display().to_string();
    if problem.line > 0 {
        s.push_str(&format!(":{}", problem.line));
        if problem.column > 0 {
            s.push_str(&format!(":{}", problem.column));
        }
    }
    s
}

/// The byte range a caret covers: from the column to the end of the word there (at least one
/// character), clamped to the line.
fn byte_range(text: &str, line: usize, column: usize) -> std::ops::Range<usize> {
    let mut start = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            let content = l.trim_end_matches(['\n', '\r']);
            let col = column.saturating_sub(1);
            let offset = content
                .char_indices()
                .nth(col)
                .map(|(b, _)| b)
                .unwrap_or(content.len());
            let rest = &content[offset..];
            let word = rest
                .find(|c: char| c.is_whitespace() || c == ':' || c == ',' || c == ']')
                .unwrap_or(rest.len());
            let len = word.max(rest.chars().next().map(char::len_utf8).unwrap_or(0));
            return start + offset..start + offset + len;
        }
        start += l.len();
    }
    text.len()..text.len()
}

/// A GitHub Actions workflow command for the problem (`::error file=..,line=..,col=..::msg`).
pub fn github_annotation(problem: &Problem) -> String {
    let kind = match problem.level {
        Level::Error => "error",
        Level::Warning => "warning",
    };
    let mut message = problem.message.clone();
    if let Some(hint) = &problem.hint {
        message.push_str(&format!(" (hint: {hint})"));
    }
    let escape_data = |s: &str| {
        s.replace('%', "%25")
            .replace('\r', "%0D")
            .replace('\n', "%0A")
    };
    let escape_prop = |s: &str| escape_data(s).replace(':', "%3A").replace(',', "%2C");
    let mut props = format!("file={}", escape_prop(&problem.file.display().to_string()));
    if problem.line > 0 {
        props.push_str(&format!(",line={}", problem.line));
    }
    if problem.column > 0 {
        props.push_str(&format!(",col={}", problem.column));
    }
    format!("::{kind} {props}::{}", escape_data(&message))
}

/// The closest of `candidates` to `word`, if it is close enough to be a likely typo.
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(word, c), c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(a.1)))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_form() {
        let p = Problem::error("content/memory/x.md", 7, 3, "unknown field `severty`");
        assert_eq!(
            p.to_string(),
            "error: content/memory/x.md:7:3: unknown field `severty`"
        );
    }

    #[test]
    fn snippet_shows_line_and_hint() {
        let mut sources = Sources::default();
        sources.insert("a.md".into(), "---\ntitle: x\nseverty: high\n---\n");
        let p = Problem::error("a.md", 3, 1, "unknown field `severty`")
            .with_hint("did you mean `severity`?");
        let out = render(&p, &sources);
        assert!(out.contains("a.md:3:1: unknown field"), "{out}");
        assert!(out.contains("severty: high"), "{out}");
        assert!(out.contains("^^^^^^^"), "{out}");
        assert!(out.contains("hint: did you mean `severity`?"), "{out}");
    }

    #[test]
    fn a_huge_line_is_cut_around_the_column() {
        let long = format!(
            "title: {}BAD{}",
            "x".repeat(5_000_000),
            "y".repeat(5_000_000)
        );
        let mut sources = Sources::default();
        sources.insert("a.md".into(), format!("---\n{long}\n---\n"));
        let column = "title: ".len() + 5_000_000 + 1;
        let p = Problem::error("a.md", 2, column, "bad value");
        let out = render(&p, &sources);
        assert!(out.len() < 2_000, "{} bytes", out.len());
        assert!(
            out.contains(&format!("a.md:2:{column}: bad value")),
            "{out}"
        );
        assert!(
            out.contains("…xxxx") && out.contains("BADyy") && out.contains("yy…"),
            "{out}"
        );
        // The caret is under the column: the line shown starts `2 │ …`.
        let shown = out.lines().find(|l| l.contains("BAD")).unwrap();
        let caret = out.lines().find(|l| l.contains('^')).unwrap();
        assert_eq!(
            shown.chars().position(|c| c == 'B'),
            caret.chars().position(|c| c == '^'),
            "{out}"
        );
        let p = Problem::error("a.md", 2, 1, format!("invalid severity `{long}`"))
            .with_hint(long.clone());
        assert!(p.message.len() < 400 && p.message.ends_with(" more characters)"));
        assert!(p.hint.unwrap().len() < 400);
        // A line at the start is cut on its right only.
        let p = Problem::error("a.md", 2, 1, "bad key");
        let out = render(&p, &sources);
        assert!(
            out.contains("2 │ title: xxx") && out.contains("x…"),
            "{out}"
        );
    }

    #[test]
    fn annotation_escapes() {
        let p = Problem::error("a,b.md", 2, 0, "bad: 100%\nnext");
        assert_eq!(
            github_annotation(&p),
            "::error file=a%2Cb.md,line=2::bad: 100%25%0Anext"
        );
    }

    #[test]
    fn suggestions() {
        assert_eq!(
            did_you_mean("severty", ["title", "severity", "summary"]),
            Some("severity")
        );
        assert_eq!(did_you_mean("zzz", ["title", "severity"]), None);
    }
}

/// Prints problems as the CLI and `errata serve` do: each with its snippet on stderr, and as
/// a GitHub Actions annotation on stdout when `GITHUB_ACTIONS=true`.
pub fn report(problems: &[Problem], sources: &Sources) {
    report_each(problems.iter(), sources);
}

fn report_each<'a>(problems: impl Iterator<Item = &'a Problem>, sources: &Sources) {
    let github = std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true");
    for problem in problems {
        eprint!("{}", render(problem, sources));
        if github {
            println!("{}", github_annotation(problem));
        }
    }
}

/// How many warnings with the same message `errata build` shows; `errata check` shows them all.
pub const SAME_WARNINGS_SHOWN: usize = 10;

/// Prints a build's problems as [`report`] does, but only the first [`SAME_WARNINGS_SHOWN`]
/// warnings with the same message, then how many more there are: a CI log that repeats one
/// warning for each of 10,000 entries (4 MB) hides everything else in it. Errors are all
/// shown.
pub fn report_build(problems: &[Problem], sources: &Sources) {
    // Each message's count, in the order the messages first came.
    let mut counts: Vec<(&str, usize)> = Vec::new();
    let mut places: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let shown = problems.iter().filter(|p| {
        if p.level == Level::Error {
            return true;
        }
        let at = *places.entry(&p.message).or_insert_with(|| {
            counts.push((&p.message, 0));
            counts.len() - 1
        });
        counts[at].1 += 1;
        counts[at].1 <= SAME_WARNINGS_SHOWN
    });
    report_each(shown, sources);
    for (message, count) in counts {
        if count > SAME_WARNINGS_SHOWN {
            eprintln!(
                "warning: {} more warning(s): {message} (`errata check` lists every one)",
                count - SAME_WARNINGS_SHOWN
            );
        }
    }
}
