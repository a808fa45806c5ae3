//! Loading one content file: read, decode, split, parse, check.
//!
//! Takes the file's paths; yields its [`FileOutcome`]: its normalised text when it decoded (for
//! snippets), the entry when it checked, and every problem found in it. A file over
//! [`MAX_FILE_BYTES`] is refused before it is read.

use std::path::Path;

use super::entry::check;
use super::front_matter::{self, ParseFailure, Split};
use super::stored::StoredEntries;
use super::walk::io_reason;
use super::{Entry, Leftovers, Slug};
use crate::diagnostic::Problem;

/// The largest Markdown file read. Real entries are tens of kilobytes; a file past this is a
/// mistake (a pasted log, a generated dump) and is refused before it is read.
pub const MAX_FILE_BYTES: u64 = 8_000_000;

/// One file's outcome: its normalised text when it decoded (for snippets), the entry when it
/// checked, and every problem found in it.
#[derive(Debug)]
pub(super) struct FileOutcome {
    pub(super) text: Option<std::sync::Arc<str>>,
    pub(super) entry: Option<std::sync::Arc<Entry>>,
    pub(super) problems: Vec<Problem>,
    /// The slug the file would have had, when it failed.
    pub(super) slug: Option<Slug>,
    /// What the file names of other entries, when it failed after its front matter parsed.
    pub(super) leftovers: Option<std::sync::Arc<Leftovers>>,
}

/// Reads, splits, parses and checks one file.
///
/// With `stored` (a cached build), a file whose bytes the last build loaded without problems
/// takes its entry from the store instead of being parsed and checked again.
pub(super) fn load_file(
    display: &Path,
    rel: &Path,
    path: &Path,
    stored: Option<&StoredEntries>,
) -> FileOutcome {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let failed_all = |problems: Vec<Problem>, text: Option<std::sync::Arc<str>>| FileOutcome {
        slug: text
            .as_deref()
            .and_then(explicit_slug)
            .or_else(|| Slug::from_stem(&stem).ok()),
        text,
        entry: None,
        problems,
        leftovers: None,
    };
    let failed =
        |problem: Problem, text: Option<std::sync::Arc<str>>| failed_all(vec![problem], text);
    let at = |f: ParseFailure| problem_at(display, f);
    let bytes = match read_bounded(display, path) {
        Ok(bytes) => bytes,
        Err(problem) => return failed(problem, None),
    };
    let content_path = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/");
    let kept = stored.map(|s| (s, s.key(&content_path, &bytes)));
    // One copy of the text, shared by the entry's body and the problems' snippets.
    let text: std::sync::Arc<str> = match front_matter::decode(&bytes) {
        Ok(text) => text.into(),
        Err(f) => return failed(at(f), None),
    };
    drop(bytes);
    let split = match front_matter::split(text.clone()) {
        Ok(split) => split,
        Err(f) => return failed(at(f), Some(text)),
    };
    if let Some(entry) = kept.and_then(|(s, key)| s.entry(key, display, &content_path, &split)) {
        return loaded(split, entry);
    }
    let raw = match front_matter::parse(&split) {
        Ok(raw) => raw,
        Err(rejected) => {
            let (problems, leftovers) =
                rejected_problems(display, &content_path, &stem, rejected, &split);
            let mut outcome = failed_all(problems, Some(split.text));
            outcome.leftovers = leftovers.map(|mut l| {
                l.slug.clone_from(&outcome.slug);
                std::sync::Arc::new(*l)
            });
            return outcome;
        }
    };
    match check(display, &content_path, &stem, raw, &split) {
        Ok(entry) => {
            if let Some((stored, key)) = kept {
                stored.keep(key, &entry);
            }
            loaded(split, entry)
        }
        Err((problems, leftovers)) => FileOutcome {
            text: Some(split.text),
            entry: None,
            problems,
            slug: leftovers.slug.clone(),
            leftovers: Some(std::sync::Arc::new(*leftovers)),
        },
    }
}

/// The outcome of a file that loaded without problems.
fn loaded(split: Split, entry: Entry) -> FileOutcome {
    FileOutcome {
        text: Some(split.text),
        entry: Some(std::sync::Arc::new(entry)),
        problems: Vec::new(),
        slug: None,
        leftovers: None,
    }
}

fn problem_at(display: &Path, f: ParseFailure) -> Problem {
    let mut p = Problem::error(display, f.line, f.column, f.message);
    p.hint = f.hint;
    p
}

/// The file's bytes, unless it is over [`MAX_FILE_BYTES`] or cannot be read.
fn read_bounded(display: &Path, path: &Path) -> Result<Vec<u8>, Problem> {
    if let Ok(meta) = std::fs::metadata(path) {
        if meta.len() > MAX_FILE_BYTES {
            let problem = Problem::error(
                display,
                0,
                0,
                format!(
                    "file is {:.1} MB; an entry may be at most {} MB",
                    meta.len() as f64 / 1e6,
                    MAX_FILE_BYTES / 1_000_000
                ),
            )
            .with_hint("split it into several entries, or link long logs instead of pasting them");
            return Err(problem);
        }
    }
    std::fs::read(path).map_err(|e| {
        Problem::error(display, 0, 0, format!("cannot read: {}", io_reason(&e)))
            .with_hint("check the file's permissions")
    })
}

/// Every failure of front matter that did not parse, and what checking the rest of it found
/// outside the keys left out, so one run reports every field's mistake; with what the rest
/// names of other entries.
fn rejected_problems(
    display: &Path,
    content_path: &str,
    stem: &str,
    mut rejected: front_matter::Rejected,
    split: &front_matter::Split,
) -> (Vec<Problem>, Option<Box<Leftovers>>) {
    let mut problems: Vec<Problem> = rejected
        .failures
        .iter()
        .map(|f| problem_at(display, f.clone()))
        .collect();
    let Some(rest) = rejected.rest.take() else {
        return (problems, None);
    };
    let (more, leftovers) = match check(display, content_path, stem, rest, split) {
        Ok(entry) => (Vec::new(), Box::new(Leftovers::of_entry(&entry))),
        Err(failed) => failed,
    };
    // A missing field (reported at the opening fence) is most likely the unknown key.
    let misspelt = rejected
        .failures
        .iter()
        .any(|f| f.message.starts_with("unknown field"));
    let kept = more
        .into_iter()
        .filter(|p| !rejected.skips(p.line) && !(misspelt && p.line <= 1));
    problems.extend(kept);
    problems.sort_by_key(|p| (p.line, p.column));
    (problems, Some(leftovers))
}

/// A `slug:` line in front matter that did not parse, so links to the file still resolve.
fn explicit_slug(text: &str) -> Option<Slug> {
    let yaml = text.strip_prefix("---\n")?;
    let end = yaml.find("\n---").unwrap_or(yaml.len());
    yaml[..end]
        .lines()
        .find_map(|l| l.strip_prefix("slug:"))
        .and_then(|v| Slug::parse(v.trim().trim_matches(['"', '\'']).trim()).ok())
}
