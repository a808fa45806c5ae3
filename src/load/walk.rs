//! Walking `content/`: the Markdown files to load, and the problems found on the way.
//!
//! Takes the site root; yields the Markdown files under `content/`, sorted, as (display path,
//! real path). Hidden files are skipped; symlinks are followed only while they stay inside the
//! content folder; an escaping or broken symlink, a loop or an unreadable folder is a problem,
//! reported once (an escaping folder is not walked).

use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use super::file::FileOutcome;
use crate::diagnostic::Problem;

/// A walk of `content/`: the Markdown files as (display path, real path), sorted, and the
/// problems found on the way; looked up by real path, and with each file's outcome at its
/// place once loaded. Kept while no file is added, removed or renamed.
#[derive(Debug)]
pub(super) struct Walk {
    pub(super) files: Vec<(PathBuf, PathBuf)>,
    pub(super) problems: Vec<Problem>,
    pub(super) place: FxHashMap<PathBuf, usize>,
    /// Each file's place by display path, shared by every [`Sources`] made from this walk.
    pub(super) shown: std::sync::Arc<FxHashMap<PathBuf, usize>>,
    pub(super) outcomes: Vec<std::sync::Arc<FileOutcome>>,
}

impl Walk {
    pub(super) fn new(root: &Path, content: &Path) -> Walk {
        let (files, problems) = walk_content(root, content);
        let place = files
            .iter()
            .enumerate()
            .map(|(i, (_, path))| (path.clone(), i))
            .collect();
        let shown = files
            .iter()
            .enumerate()
            .map(|(i, (display, _))| (display.clone(), i))
            .collect();
        Walk {
            files,
            problems,
            place,
            shown: std::sync::Arc::new(shown),
            outcomes: Vec::new(),
        }
    }
}

/// Lists the Markdown files under `content/`, sorted, as (display path, real path), with a
/// problem for each symlink loop, escaping symlink or unreadable folder.
fn walk_content(root: &Path, content: &Path) -> (Vec<(PathBuf, PathBuf)>, Vec<Problem>) {
    let mut files = Vec::new();
    let mut problems = Vec::new();
    let canonical_content = content
        .canonicalize()
        .unwrap_or_else(|_| content.to_owned());
    let mut walker = walkdir::WalkDir::new(content)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
    while let Some(item) = walker.next() {
        match item {
            Ok(entry) => {
                let path = entry.path();
                let display = display_path(root, path);
                if entry.path_is_symlink() {
                    match path.canonicalize() {
                        Ok(target) if target.starts_with(&canonical_content) => {}
                        Ok(_) => {
                            problems.push(
                                Problem::error(display, 0, 0, "symlink points outside the content folder")
                                    .with_hint("content must live under content/; copy the file instead of linking it"),
                            );
                            // Reported once: what it links to is not walked.
                            if entry.file_type().is_dir() {
                                walker.skip_current_dir();
                            }
                            continue;
                        }
                        Err(_) => {
                            problems.push(Problem::error(display, 0, 0, "broken symlink"));
                            continue;
                        }
                    }
                }
                if entry.file_type().is_file() && is_markdown(path) {
                    files.push((display, path.to_owned()));
                }
            }
            Err(error) => {
                let path = error
                    .path()
                    .map(|p| display_path(root, p))
                    .unwrap_or_else(|| PathBuf::from("content"));
                let message = if error.loop_ancestor().is_some() {
                    "symlink loop".to_owned()
                } else {
                    match error.io_error() {
                        Some(io) => format!("cannot read: {}", io_reason(io)),
                        None => error.to_string(),
                    }
                };
                let problem = Problem::error(path, 0, 0, message);
                problems.push(if error.loop_ancestor().is_some() {
                    problem.with_hint("a symlink here points at a folder that contains it")
                } else {
                    problem
                });
            }
        }
    }
    (files, problems)
}

pub(super) fn is_markdown(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("md" | "markdown")
    )
}

/// The path relative to the site root, with `/` separators, as users and editors expect.
pub fn display_path(root: &Path, path: &Path) -> PathBuf {
    let rel = path.strip_prefix(root).unwrap_or(path);
    PathBuf::from(
        rel.components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
    )
}

pub(super) fn io_reason(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => error.to_string(),
    }
}
