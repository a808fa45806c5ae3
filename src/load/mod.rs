//! The load stage: the site folder in, checked [`Entry`]s out.
//!
//! Reads `errata.yaml` and walks `content/` (Markdown only, hidden files skipped, symlinks
//! followed only while they stay inside the content folder, loops refused). Each file is split,
//! its front matter parsed into a [`RawFrontMatter`] and checked into an [`Entry`] with typed
//! values. Problems in files are collected, never fatal, so one run reports all of them; only a
//! missing site or config is an error of its own ([`LoadError`]). This is the only stage that
//! reads the content folder.

pub mod config;
pub mod front_matter;
mod links;
pub mod markdown;
pub mod theme;
pub mod types;

use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use rayon::prelude::*;

pub use config::Config;
use front_matter::{ParseFailure, RawCues, RawFrontMatter, RawSignature, Spans, Split};
pub use links::{internal_links, parse_target, InternalLink};
pub use markdown::plain_text;
pub use types::{Kind, Severity, Slug, Tag};

use crate::diagnostic::{Problem, Sources};

/// A failure entry or guide, checked field by field but not yet against other entries.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The file as shown to the user, relative to the site root (`content/memory/x.md`).
    pub file: PathBuf,
    /// The file relative to `content/`, for edit links.
    pub content_path: String,
    pub slug: Slug,
    pub title: String,
    pub category: String,
    pub severity: Severity,
    pub kind: Kind,
    pub tags: Vec<Tag>,
    pub summary: String,
    /// `summary` as plain text ([`plain_text`]).
    pub summary_text: String,
    pub signatures: Vec<Signature>,
    pub fingerprint: Option<String>,
    pub symptoms: Vec<Symptom>,
    pub root_causes: Vec<String>,
    pub fix: Option<String>,
    pub affects: Vec<String>,
    pub confirm: Vec<String>,
    pub cues: Cues,
    pub related: Vec<Slug>,
    pub references: Vec<Reference>,
    pub updated: Option<NaiveDate>,
    pub draft: bool,
    pub body: String,
    /// The body's `[text](@/slug)` links.
    pub links: Vec<InternalLink>,
    /// 1-based line of the body's first line in the file.
    pub body_line: usize,
    pub spans: Spans,
}

/// An error text an entry explains, and where it is raised when the author said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    pub text: String,
    pub origin: Option<Origin>,
}

impl Signature {
    /// A signature written as its text alone.
    pub fn plain(text: impl Into<String>) -> Signature {
        Signature {
            text: text.into(),
            origin: None,
        }
    }
}

/// Where a signature is raised and which versions print it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The upstream file (or file and function) that raises it.
    pub raised_in: Option<String>,
    /// A link to the source line, or to an issue thread where it appears.
    pub source: Option<String>,
    /// Which versions print this wording.
    pub versions: Option<String>,
}

/// What else in a log points at an entry: text in traceback frames and in other lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cues {
    pub frames: Vec<String>,
    pub lines: Vec<String>,
}

/// The shortest cue: a shorter one would turn up in logs it says nothing about.
pub const MIN_CUE_CHARS: usize = 6;

#[derive(Debug, Clone)]
pub struct Symptom {
    pub symptom: String,
    pub why: String,
}

#[derive(Debug, Clone)]
pub struct Reference {
    pub title: String,
    pub url: String,
}

/// What the load stage yields: everything that parsed, and every problem found on the way.
#[derive(Debug)]
pub struct Loaded {
    pub root: PathBuf,
    pub config: Config,
    /// Shared with the load cache `errata serve` keeps, so a rebuild copies no entry.
    pub entries: Vec<std::sync::Arc<Entry>>,
    pub problems: Vec<Problem>,
    pub sources: Sources,
    /// The site's own theme folder, when it has one.
    pub theme_dir: Option<PathBuf>,
    /// The built-in theme overlaid by the site's own.
    pub theme: theme::ThemeFiles,
    /// Slugs of files that failed to load: links to them are not reported again.
    pub failed_slugs: Vec<Slug>,
}

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(
        "no site at {root}: `errata.yaml` is missing (run errata in a site folder or pass --root)"
    )]
    NoConfig { root: PathBuf },
    #[error("cannot read {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}", .problem)]
    BadConfig { problem: Problem, sources: Sources },
    #[error("the content folder {path} does not exist")]
    NoContent { path: PathBuf },
    #[error(transparent)]
    Theme(#[from] theme::ThemeError),
}

/// Options that change what is loaded.
#[derive(Debug, Clone, Copy, Default)]
pub struct LoadOptions {
    pub drafts: bool,
}

/// The largest Markdown file read. Real entries are tens of kilobytes; a file past this is a
/// mistake (a pasted log, a generated dump) and is refused before it is read.
pub const MAX_FILE_BYTES: u64 = 8_000_000;

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
}

/// What a watcher said changed since the last load.
#[derive(Debug)]
enum Hint {
    /// Only these files of the walk.
    Only(std::collections::HashSet<PathBuf>),
    /// Something the walk must find again: look at every file.
    Anything,
}

/// A walk of `content/`: the Markdown files as (display path, real path), sorted, and the
/// problems found on the way; looked up by real path, and with each file's outcome at its
/// place once loaded. Kept while no file is added, removed or renamed.
#[derive(Debug)]
struct Walk {
    files: Vec<(PathBuf, PathBuf)>,
    problems: Vec<Problem>,
    place: FxHashMap<PathBuf, usize>,
    /// Each file's place by display path, shared by every [`Sources`] made from this walk.
    shown: std::sync::Arc<FxHashMap<PathBuf, usize>>,
    outcomes: Vec<std::sync::Arc<FileOutcome>>,
}

impl Walk {
    fn new(root: &Path, content: &Path) -> Walk {
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

impl LoadCache {
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

/// Loads a whole site.
pub fn load_site(root: &Path, options: LoadOptions) -> Result<Loaded, LoadError> {
    load_site_cached(root, options, &mut LoadCache::default())
}

/// Each file read, by path, with its stamp when read (a fast hash: looked up for every file
/// on each rebuild).
type FileCache = FxHashMap<PathBuf, (FileStamp, std::sync::Arc<FileOutcome>)>;

/// Reads and checks one file of `content/`.
fn read(display: &Path, path: &Path, content: &Path) -> std::sync::Arc<FileOutcome> {
    let rel = path.strip_prefix(content).unwrap_or(path);
    std::sync::Arc::new(load_file(display, rel, path))
}

/// The outcome of every file of `walk`, reading again each one whose stamp changed (or that
/// `cache` does not have); `cache` ends up holding exactly these files.
fn reload_changed(walk: &mut Walk, content: &Path, cache: &mut FileCache) {
    let old = std::mem::take(cache);
    let read_again = walk
        .files
        .par_iter()
        .map(|(display, path)| {
            // Stamped before reading: a change made while reading is seen next time.
            let stamp = FileStamp::of(path);
            let outcome = match (stamp, old.get(path)) {
                (Some(now), Some((then, outcome))) if now == *then => outcome.clone(),
                _ => read(display, path, content),
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
        let outcome = read(&walk.files[i].0, path, content);
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

/// Loads a whole site, reusing the files of `cache` that have not changed and updating it.
pub fn load_site_cached(
    root: &Path,
    options: LoadOptions,
    cache: &mut LoadCache,
) -> Result<Loaded, LoadError> {
    let config_path = root.join("errata.yaml");
    let config_text = match std::fs::read_to_string(&config_path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(LoadError::NoConfig {
                root: root.to_owned(),
            })
        }
        Err(source) => {
            return Err(LoadError::Io {
                path: config_path,
                source,
            })
        }
    };
    let config = Config::parse(&config_text).map_err(|f| {
        let mut sources = Sources::default();
        sources.insert("errata.yaml".into(), config_text.clone());
        let mut problem = Problem::error("errata.yaml", f.line, f.column, f.message);
        problem.hint = f.hint;
        LoadError::BadConfig { problem, sources }
    })?;
    let content = root.join("content");
    if !content.is_dir() {
        return Err(LoadError::NoContent { path: content });
    }
    // A hint from the watcher holds only while each file it names is still a file.
    let only = match cache.hint.take() {
        Some(Hint::Only(only)) => Some(only).filter(|only| only.iter().all(|p| p.is_file())),
        _ => None,
    };
    let (mut walk, only) = match (only, cache.walk.take()) {
        (Some(only), Some(walk)) if walk.outcomes.len() == walk.files.len() => (walk, Some(only)),
        _ => (Walk::new(root, &content), None),
    };
    match &only {
        Some(only) => reload_only(&mut walk, only, &content, &mut cache.files),
        None => reload_changed(&mut walk, &content, &mut cache.files),
    }
    let mut problems = walk.problems.clone();
    let mut texts = Vec::with_capacity(walk.outcomes.len());
    let mut checked = Vec::with_capacity(walk.outcomes.len());
    let mut failed_slugs = Vec::new();
    for outcome in &walk.outcomes {
        failed_slugs.extend(outcome.slug.clone());
        texts.push(outcome.text.clone());
        problems.extend(outcome.problems.iter().cloned());
        match &outcome.entry {
            Some(entry) if entry.draft && !options.drafts => {}
            Some(entry) => checked.push(entry.clone()),
            None => {}
        }
    }
    let sources = Sources::of_files(walk.shown.clone(), texts);
    cache.walk = Some(walk);
    let theme_dir = Some(root.join("themes").join(&config.theme)).filter(|d| d.is_dir());
    let theme = theme::load_theme(theme_dir.as_deref())?;
    Ok(Loaded {
        root: root.to_owned(),
        config,
        entries: checked,
        problems,
        sources,
        theme_dir,
        theme,
        failed_slugs,
    })
}

/// Lists the Markdown files under `content/`, sorted, as (display path, real path), with a
/// problem for each symlink loop, escaping symlink or unreadable folder.
fn walk_content(root: &Path, content: &Path) -> (Vec<(PathBuf, PathBuf)>, Vec<Problem>) {
    let mut files = Vec::new();
    let mut problems = Vec::new();
    let canonical_content = content
        .canonicalize()
        .unwrap_or_else(|_| content.to_owned());
    let walker = walkdir::WalkDir::new(content)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
    for item in walker {
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

fn is_markdown(path: &Path) -> bool {
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

fn io_reason(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => error.to_string(),
    }
}

/// One file's outcome: its normalised text when it decoded (for snippets), the entry when it
/// checked, and every problem found in it.
#[derive(Debug)]
struct FileOutcome {
    text: Option<std::sync::Arc<str>>,
    entry: Option<std::sync::Arc<Entry>>,
    problems: Vec<Problem>,
    /// The slug the file would have had, when it failed.
    slug: Option<Slug>,
}

/// Reads, splits, parses and checks one file.
fn load_file(display: &Path, rel: &Path, path: &Path) -> FileOutcome {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let failed = |problem: Problem, text: Option<String>| FileOutcome {
        slug: text
            .as_deref()
            .and_then(explicit_slug)
            .or_else(|| Slug::from_stem(&stem).ok()),
        text: text.map(Into::into),
        entry: None,
        problems: vec![problem],
    };
    let at = |f: ParseFailure| {
        let mut p = Problem::error(display, f.line, f.column, f.message);
        p.hint = f.hint;
        p
    };
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
            return failed(problem, None);
        }
    }
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            let problem = Problem::error(display, 0, 0, format!("cannot read: {}", io_reason(&e)))
                .with_hint("check the file's permissions");
            return failed(problem, None);
        }
    };
    let text = match front_matter::decode(&bytes) {
        Ok(text) => text,
        Err(f) => return failed(at(f), None),
    };
    let split = match front_matter::split(text.clone()) {
        Ok(split) => split,
        Err(f) => return failed(at(f), Some(text)),
    };
    let raw = match front_matter::parse(&split) {
        Ok(raw) => raw,
        Err(f) => return failed(at(f), Some(split.text)),
    };
    let content_path = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/");
    let slug = raw
        .slug
        .as_deref()
        .and_then(|s| Slug::parse(s).ok())
        .or_else(|| Slug::from_stem(&stem).ok());
    match check(display, &content_path, &stem, raw, &split) {
        Ok(entry) => FileOutcome {
            text: Some(split.text.into()),
            entry: Some(std::sync::Arc::new(entry)),
            problems: Vec::new(),
            slug: None,
        },
        Err(problems) => FileOutcome {
            text: Some(split.text.into()),
            entry: None,
            problems,
            slug,
        },
    }
}

/// Reports a problem at a key: the key, the text to point at inside its value, the message and
/// a hint.
type ProblemAt<'a> = dyn FnMut(&str, Option<&str>, String, Option<String>) + 'a;

/// The signatures as [`Signature`]s; an empty text, or a sourced one that says nowhere it is
/// raised or links to a non-web page, is a problem.
fn check_signatures(raw: &[RawSignature], problem_at: &mut ProblemAt) -> Vec<Signature> {
    let mut out = Vec::with_capacity(raw.len());
    for item in raw {
        let (text, origin) = match item {
            RawSignature::Text(text) => (text.trim(), None),
            RawSignature::Sourced(s) => (s.text.trim(), Some(s)),
        };
        if text.is_empty() {
            problem_at(
                "signatures",
                None,
                "`signatures` has an empty item".into(),
                None,
            );
            continue;
        }
        let origin = origin.map(|s| {
            let nonempty = |o: &Option<String>| {
                o.as_deref().map(str::trim).filter(|v| !v.is_empty()).map(str::to_owned)
            };
            let origin = Origin {
                raised_in: nonempty(&s.raised_in),
                source: nonempty(&s.source),
                versions: nonempty(&s.versions),
            };
            if origin.raised_in.is_none() && origin.source.is_none() {
                problem_at(
                    "signatures",
                    Some(text),
                    "a signature with `text:` says neither `raised_in:` nor `source:`".into(),
                    Some("name the upstream file that raises it (`raised_in:`), link its source line or an issue thread where it appears (`source:`), or write the text alone".into()),
                );
            }
            if let Some(url) = &origin.source {
                if !(url.starts_with("https://") || url.starts_with("http://")) {
                    problem_at(
                        "signatures",
                        Some(url),
                        format!("signature source `{url}` is not http(s)"),
                        Some("link the source line or thread: `https://...`".into()),
                    );
                }
            }
            origin
        });
        out.push(Signature {
            text: text.to_owned(),
            origin,
        });
    }
    out
}

/// The cues, trimmed; an empty, short or repeated cue is a problem.
fn check_cues(raw: RawCues, problem_at: &mut ProblemAt) -> Cues {
    let mut check = |which: &str, list: Vec<String>| {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::with_capacity(list.len());
        for cue in list {
            let cue = cue.trim().to_owned();
            if cue.is_empty() {
                problem_at(
                    "cues",
                    None,
                    format!("`cues.{which}` has an empty item"),
                    None,
                );
            } else if cue.chars().count() < MIN_CUE_CHARS {
                problem_at(
                    "cues",
                    Some(&cue),
                    format!("cue `{cue}` in `{which}` is shorter than {MIN_CUE_CHARS} characters"),
                    Some("a cue is a distinctive piece of text (`torch/_inductor/`, `_prepare_decoder_attention_mask`); a short one turns up in unrelated logs".into()),
                );
            } else if !seen.insert(cue.clone()) {
                problem_at(
                    "cues",
                    Some(&cue),
                    format!("cue `{cue}` is listed twice in `{which}`"),
                    None,
                );
            } else {
                out.push(cue);
            }
        }
        out
    };
    Cues {
        frames: check("frames", raw.frames),
        lines: check("lines", raw.lines),
    }
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

/// Turns raw front matter into an [`Entry`], or every problem with its values.
fn check(
    display: &Path,
    content_path: &str,
    stem: &str,
    raw: RawFrontMatter,
    split: &Split,
) -> Result<Entry, Vec<Problem>> {
    let spans = Spans::of(split);
    let mut problems = Vec::new();
    let mut problem_at =
        |key: &str, needle: Option<&str>, message: String, hint: Option<String>| {
            let (line, column) = match needle {
                Some(n) => spans.value(key, n),
                None => spans.key(key),
            };
            let mut p = Problem::error(display, line, column, message);
            p.hint = hint;
            problems.push(p);
        };
    let mut required =
        |key: &str, value: &Option<String>, hint: &str| match value.as_deref().map(str::trim) {
            Some(v) if !v.is_empty() => Some(v.to_owned()),
            Some(_) => {
                problem_at(
                    key,
                    None,
                    format!("`{key}` is empty"),
                    Some(hint.to_owned()),
                );
                None
            }
            None => {
                problem_at(
                    key,
                    None,
                    format!("missing required field `{key}`"),
                    Some(hint.to_owned()),
                );
                None
            }
        };
    let title = required(
        "title",
        &raw.title,
        "add `title: ...`, the failure's name as a reader would search it",
    );
    let summary = required(
        "summary",
        &raw.summary,
        "add `summary: ...`, the quick answer in one or two sentences",
    );
    let category = required(
        "category",
        &raw.category,
        "add `category: ...`, a key of `categories` in errata.yaml",
    );
    let severity_raw = required(
        "severity",
        &raw.severity,
        "add `severity: ...`: low, medium, high or critical",
    );
    let severity = severity_raw
        .as_deref()
        .and_then(|s| match Severity::parse(s) {
            Some(v) => Some(v),
            None => {
                let hint = match crate::diagnostic::did_you_mean(s, Severity::NAMES) {
                    Some(m) => format!(
                        "did you mean `{m}`? severity is one of low, medium, high, critical"
                    ),
                    None => "severity is one of low, medium, high, critical".to_owned(),
                };
                problem_at(
                    "severity",
                    Some(s),
                    format!("invalid severity `{s}`"),
                    Some(hint),
                );
                None
            }
        });
    let kind = match raw.kind.as_deref() {
        None => Some(Kind::Failure),
        Some(k) => Kind::parse(k).or_else(|| {
            problem_at(
                "kind",
                Some(k),
                format!("invalid kind `{k}`"),
                Some("kind is `failure` (the default) or `guide`".into()),
            );
            None
        }),
    };
    let slug = match raw.slug.as_deref() {
        Some(s) => Slug::parse(s)
            .map_err(|m| problem_at("slug", Some(s), m, None))
            .ok(),
        None => Slug::from_stem(stem)
            .map_err(|m| {
                problem_at(
                    "title",
                    None,
                    m,
                    Some("add `slug: ...` to the front matter".into()),
                )
            })
            .ok(),
    };
    let mut seen_tags = std::collections::HashSet::with_capacity(raw.tags.len());
    let mut tags: Vec<Tag> = Vec::with_capacity(raw.tags.len());
    for t in &raw.tags {
        match Tag::parse(t) {
            Ok(tag) if seen_tags.insert(tag.clone()) => tags.push(tag),
            Ok(_) => {}
            Err(m) => problem_at("tags", Some(t), m, None),
        }
    }
    let mut related = Vec::with_capacity(raw.related.len());
    for r in &raw.related {
        match Slug::parse(r) {
            Ok(s) => related.push(s),
            Err(m) => problem_at("related", Some(r), m, None),
        }
    }
    let signatures = check_signatures(&raw.signatures, &mut problem_at);
    let cues = check_cues(raw.cues.unwrap_or_default(), &mut problem_at);
    for (key, list) in [
        ("root_causes", &raw.root_causes),
        ("affects", &raw.affects),
        ("confirm", &raw.confirm),
    ] {
        if list.iter().any(|s| s.trim().is_empty()) {
            problem_at(key, None, format!("`{key}` has an empty item"), None);
        }
    }
    match kind {
        Some(Kind::Failure) if raw.signatures.is_empty() => problem_at(
            "signatures",
            None,
            "a failure entry needs at least one signature".into(),
            Some("add `signatures:` with the exact error text a user would paste, without sizes, ranks or addresses".into()),
        ),
        Some(Kind::Guide) if !raw.signatures.is_empty() => problem_at(
            "signatures",
            None,
            "a guide has no signatures".into(),
            Some("remove `signatures:`, or set `kind: failure`".into()),
        ),
        _ => {}
    }
    for r in &raw.references {
        let url = r.url.trim();
        if !(url.starts_with("https://") || url.starts_with("http://")) {
            problem_at(
                "references",
                Some(&r.url),
                format!("reference URL `{}` is not http(s)", r.url),
                Some("references link to web pages: `https://...`".into()),
            );
        }
        if r.title.trim().is_empty() {
            problem_at(
                "references",
                Some(&r.url),
                "reference has an empty title".into(),
                None,
            );
        }
    }
    let (Some(title), Some(summary), Some(category), Some(severity), Some(kind), Some(slug)) =
        (title, summary, category, severity, kind, slug)
    else {
        return Err(problems);
    };
    if !problems.is_empty() {
        return Err(problems);
    }
    let nonempty = |o: Option<String>| o.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
    let body = split.text[split.body.clone()].to_owned();
    // Only a body that mentions `@` (or an entity that could spell it) can hold a link.
    let links = if body.contains('@') || body.contains('&') {
        internal_links(&body)
    } else {
        Vec::new()
    };
    Ok(Entry {
        file: display.to_owned(),
        content_path: content_path.to_owned(),
        slug,
        title,
        category,
        severity,
        kind,
        tags,
        summary_text: plain_text(&summary),
        summary,
        signatures,
        fingerprint: nonempty(raw.fingerprint),
        symptoms: raw
            .symptoms
            .into_iter()
            .map(|s| Symptom {
                symptom: s.symptom,
                why: s.why,
            })
            .collect(),
        root_causes: raw.root_causes,
        fix: nonempty(raw.fix),
        affects: raw.affects,
        confirm: raw.confirm,
        cues,
        related,
        references: raw
            .references
            .into_iter()
            .map(|r| Reference {
                title: r.title,
                url: r.url.trim().to_owned(),
            })
            .collect(),
        updated: raw.updated,
        draft: raw.draft,
        links,
        body,
        body_line: split.body_line,
        spans,
    })
}
