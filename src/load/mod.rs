//! The load stage: the site folder in, checked [`Entry`]s out.
//!
//! Reads `errata.yaml` and walks `content/` (Markdown only, hidden files skipped, symlinks
//! followed only while they stay inside the content folder, loops refused). Each file is split,
//! its front matter parsed into a [`RawFrontMatter`] and checked into an [`Entry`] with typed
//! values (or, in a cached build, taken from what the build before kept, when the file's bytes
//! are unchanged: [`StoredEntries`]). Problems in files are collected, never fatal, so one run
//! reports all of them; only a missing site or config is an error of its own ([`LoadError`]).
//! This is the only stage that reads the content folder.

mod cache;
pub mod config;
mod entry;
mod fields;
mod file;
pub mod front_matter;
mod links;
pub mod markdown;
pub mod reports;
mod stored;
pub mod theme;
pub mod types;
mod walk;
mod yaml;

use std::path::{Path, PathBuf};

pub use cache::LoadCache;
pub use config::Config;
pub use entry::{Body, Cues, Entry, Leftovers, Origin, Reference, Signature, Symptom};
pub use fields::MIN_CUE_CHARS;
pub use file::MAX_FILE_BYTES;
pub use links::{internal_links, parse_target, safe_url, unsafe_links, InternalLink, UnsafeLink};
pub use markdown::plain_text;
pub use stored::{StoredEntries, STORE_FILE};
pub use types::{Kind, Severity, Slug, Tag};
pub use walk::display_path;

use crate::diagnostic::{Problem, Sources};

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
    /// What the files that failed to load name of other entries (drafts left out unless
    /// drafts are loaded), for the link stage to check.
    pub leftovers: Vec<std::sync::Arc<Leftovers>>,
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

/// Loads a whole site.
pub fn load_site(root: &Path, options: LoadOptions) -> Result<Loaded, LoadError> {
    load_site_cached(root, options, &mut LoadCache::default())
}

/// Loads a whole site, reusing the files of `cache` that have not changed and updating it.
pub fn load_site_cached(
    root: &Path,
    options: LoadOptions,
    cache: &mut LoadCache,
) -> Result<Loaded, LoadError> {
    let mut config = read_config(root)?;
    let content = root.join("content");
    if !content.is_dir() {
        return Err(LoadError::NoContent { path: content });
    }
    let walk = cache.load_files(root, &content);
    let mut problems = walk.problems.clone();
    let mut texts = Vec::with_capacity(walk.outcomes.len());
    let mut checked = Vec::with_capacity(walk.outcomes.len());
    let mut failed_slugs = Vec::new();
    let mut leftovers = Vec::new();
    for outcome in &walk.outcomes {
        failed_slugs.extend(outcome.slug.clone());
        let shown = |l: &&std::sync::Arc<Leftovers>| !l.draft || options.drafts;
        leftovers.extend(outcome.leftovers.as_ref().filter(shown).cloned());
        texts.push(outcome.text.clone());
        problems.extend(outcome.problems.iter().cloned());
        match &outcome.entry {
            Some(entry) if entry.draft && !options.drafts => {}
            Some(entry) => checked.push(entry.clone()),
            None => {}
        }
    }
    if let Some(dir) = config.reports.clone() {
        let (reports, found) = read_reports(root, &dir, &walk.outcomes);
        config.threads = std::sync::Arc::new(reports);
        problems.extend(found);
    }
    let sources = Sources::of_files(walk.shown.clone(), texts);
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
        leftovers,
    })
}

/// The threads of the cases folder `dir`; a folder that is not there is a problem at the
/// `reports:` line of `errata.yaml`, and a slug that names no entry is a warning.
fn read_reports(
    root: &Path,
    dir: &str,
    outcomes: &[std::sync::Arc<file::FileOutcome>],
) -> (reports::Reports, Vec<Problem>) {
    let path = root.join(dir);
    if !path.is_dir() {
        let problem = Problem::error(
            "errata.yaml",
            config_line(root, "reports"),
            1,
            format!("`reports: {dir}` is not a folder"),
        )
        .with_hint("name the folder of diagnosis cases, relative to the site root (e.g. `bench/cases`), or remove `reports:`");
        return (reports::Reports::default(), vec![problem]);
    }
    let (reports, mut problems) = reports::read_reports(&path, dir.trim_end_matches('/'));
    let known: std::collections::HashSet<&str> = outcomes
        .iter()
        .filter_map(|o| o.slug.as_ref().map(Slug::as_str))
        .chain(
            outcomes
                .iter()
                .filter_map(|o| o.entry.as_ref().map(|e| e.slug.as_str())),
        )
        .collect();
    for slug in reports.slugs().filter(|s| !known.contains(s)) {
        problems.push(
            Problem::warning(
                format!("{}/classes.json", dir.trim_end_matches('/')),
                0,
                0,
                format!("the cases name `{slug}`, which is no entry"),
            )
            .with_hint("correct the slug in classes.json, or write the entry"),
        );
    }
    (reports, problems)
}

/// The 1-based line of `errata.yaml` where the top-level `key` is written, or 1 (read again:
/// only a problem with the file needs it).
fn config_line(root: &Path, key: &str) -> usize {
    std::fs::read_to_string(root.join("errata.yaml")).map_or(1, |t| config::key_line(&t, key))
}

/// Reads and parses `errata.yaml`; a mistake in it is a problem at its line.
fn read_config(root: &Path) -> Result<Config, LoadError> {
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
    Config::parse(&config_text).map_err(|f| {
        let mut sources = Sources::default();
        sources.insert("errata.yaml".into(), config_text.clone());
        let mut problem = Problem::error("errata.yaml", f.line, f.column, f.message);
        problem.hint = f.hint;
        LoadError::BadConfig { problem, sources }
    })
}
