//! What `errata serve` keeps between loads: each file's outcome, the last walk, and the
//! watcher's hints; and, for one cached build, the entries the build before kept
//! ([`super::stored`]).
//!
//! Takes the site root and what a file watcher reported; yields the walk with every file's
//! outcome, reading again only the files whose size or modification time changed (or only
//! the files the watcher named, when nothing else can have changed what the walk finds).

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::file::{load_file, FileOutcome};
use super::stored::StoredEntries;
use super::walk::{display_path, is_markdown, Walk};

/// Files loaded before, kept by `errata serve` between rebuilds: a file whose size and
/// modification time are unchanged is not read or parsed again.
#[derive(Debug, Default)]
pub struct LoadCache {
    files: FileCache,
    /// The last walk of `content/`, with each file's last outcome.
    walk: Option<Walk>,
    /// What changed since the last load, when a watcher said (see [`LoadCache::expect_only`]);
    /// kept until a load gets as far as the files, so hints given while the config is broken
    /// add up.
    hint: Option<Hint>,
    /// A cached build's entries from the build before (see [`LoadCache::with_stored`]).
    stored: Option<StoredEntries>,
}

/// What a watcher said changed since the last load.
#[derive(Debug)]
enum Hint {
    /// Only these files of the walk.
    Only(std::collections::HashSet<PathBuf>),
    /// Something the walk must find again: look at every file.
    Anything,
}

impl LoadCache {
    /// A cache for one load that takes each unchanged file's entry from `stored`, what the
    /// cached build before kept, and keeps this load's entries in it.
    pub fn with_stored(stored: StoredEntries) -> LoadCache {
        LoadCache {
            stored: Some(stored),
            ..LoadCache::default()
        }
    }

    /// The entries this cache's loads kept, to write for the next build.
    pub fn take_stored(&mut self) -> Option<StoredEntries> {
        self.stored.take()
    }

    /// Tells the next load that only `paths` (as a file watcher reports them) changed. When
    /// each is a Markdown file the last load read, the next load does not walk `content/`
    /// or look at the other files again; anything else (a new, removed or renamed Markdown
    /// file, a folder) and the next load walks as usual. Other files are not content: an
    /// editor's or `sed -i`'s temporary file beside an entry does not make the load walk.
    /// Hints given before a load add up. Returns whether the hint was taken.
    pub fn expect_only(&mut self, root: &Path, paths: &[PathBuf]) -> bool {
        let only = self.only_these(root, paths);
        self.hint = match (self.hint.take(), only) {
            (None, Some(only)) => Some(Hint::Only(only)),
            (Some(Hint::Only(mut before)), Some(only)) => {
                before.extend(only);
                Some(Hint::Only(before))
            }
            _ => Some(Hint::Anything),
        };
        matches!(self.hint, Some(Hint::Only(_)))
    }

    /// Walks `content/` (or, after a hint, keeps the last walk), reads the files that changed
    /// and keeps the walk with each file's outcome; returns it.
    pub(super) fn load_files(&mut self, root: &Path, content: &Path) -> &Walk {
        // A hint from the watcher holds only while each file it names is still a file.
        let only = match self.hint.take() {
            Some(Hint::Only(only)) => Some(only).filter(|only| only.iter().all(|p| p.is_file())),
            _ => None,
        };
        let (mut walk, only) = match (only, self.walk.take()) {
            (Some(only), Some(walk)) if walk.outcomes.len() == walk.files.len() => {
                (walk, Some(only))
            }
            _ => (Walk::new(root, content), None),
        };
        match &only {
            Some(only) => reload_only(&mut walk, only, content, &mut self.files),
            None => reload_changed(&mut walk, content, &mut self.files, self.stored.as_ref()),
        }
        self.walk.insert(walk)
    }

    /// Tells the next load to look at every file, whatever hints came before.
    pub fn expect_anything(&mut self) {
        self.hint = Some(Hint::Anything);
    }

    /// The walk's files among `paths`, when nothing else in them can change what the walk
    /// finds.
    fn only_these(
        &self,
        root: &Path,
        paths: &[PathBuf],
    ) -> Option<std::collections::HashSet<PathBuf>> {
        let walk = self.walk.as_ref()?;
        if paths.is_empty() {
            return None;
        }
        let content = root.join("content");
        let content_abs = std::path::absolute(&content).unwrap_or_else(|_| content.clone());
        let mut only = std::collections::HashSet::new();
        for path in paths {
            let path = std::path::absolute(path).unwrap_or_else(|_| path.clone());
            let Ok(rel) = path.strip_prefix(&content_abs) else {
                return None;
            };
            let walked = content.join(rel);
            if walk.place.contains_key(&walked) {
                only.insert(walked);
                continue;
            }
            // Not a file the walk found: a Markdown file, a folder (there now, or one that held
            // walked files), a symlink (the walk checks every one) or a path the walk reported
            // a problem at changes what the walk finds; anything else is not content.
            let folder = path.is_dir() || walk.files.iter().any(|(_, f)| f.starts_with(&walked));
            let link = walked
                .symlink_metadata()
                .is_ok_and(|m| m.file_type().is_symlink());
            let shown = display_path(root, &walked);
            let reported = walk.problems.iter().any(|p| p.file == shown);
            if is_markdown(&walked) || folder || link || reported {
                return None;
            }
        }
        Some(only)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileStamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl FileStamp {
    fn of(path: &Path) -> Option<FileStamp> {
        let meta = std::fs::metadata(path).ok()?;
        Some(FileStamp {
            len: meta.len(),
            modified: meta.modified().ok(),
        })
    }
}

/// Each file read, by path, with its stamp when read (a fast hash: looked up for every file
/// on each rebuild).
type FileCache = FxHashMap<PathBuf, (FileStamp, std::sync::Arc<FileOutcome>)>;

/// Reads and checks one file of `content/`, or takes its entry from `stored`.
fn read(
    display: &Path,
    path: &Path,
    content: &Path,
    stored: Option<&StoredEntries>,
) -> std::sync::Arc<FileOutcome> {
    let rel = path.strip_prefix(content).unwrap_or(path);
    std::sync::Arc::new(load_file(display, rel, path, stored))
}

/// The outcome of every file of `walk`, reading again each one whose stamp changed (or that
/// `cache` does not have); `cache` ends up holding exactly these files.
fn reload_changed(
    walk: &mut Walk,
    content: &Path,
    cache: &mut FileCache,
    stored: Option<&StoredEntries>,
) {
    let old = std::mem::take(cache);
    let read_again = walk
        .files
        .par_iter()
        .map(|(display, path)| {
            // Stamped before reading: a change made while reading is seen next time.
            let stamp = FileStamp::of(path);
            let outcome = match (stamp, old.get(path)) {
                (Some(now), Some((then, outcome))) if now == *then => outcome.clone(),
                _ => read(display, path, content, stored),
            };
            (stamp, outcome)
        })
        .collect::<Vec<_>>();
    walk.outcomes = read_again
        .into_iter()
        .zip(&walk.files)
        .map(|((stamp, outcome), (_, path))| {
            if let Some(stamp) = stamp {
                cache.insert(path.clone(), (stamp, outcome.clone()));
            }
            outcome
        })
        .collect();
    drop(old);
}

/// [`reload_changed`] when the watcher named the only files that changed: those are read
/// again, the others keep their outcome without a look at the disk.
fn reload_only(
    walk: &mut Walk,
    only: &std::collections::HashSet<PathBuf>,
    content: &Path,
    cache: &mut FileCache,
) {
    for path in only {
        let Some(&i) = walk.place.get(path) else {
            continue;
        };
        let stamp = FileStamp::of(path);
        let outcome = read(&walk.files[i].0, path, content, None);
        match stamp {
            Some(stamp) => {
                cache.insert(path.clone(), (stamp, outcome.clone()));
            }
            None => {
                cache.remove(path);
            }
        }
        walk.outcomes[i] = outcome;
    }
}
