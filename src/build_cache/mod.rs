//! The build cache: what `errata build --cache DIR` keeps between builds, so that a CI build
//! after one edit renders and writes only what the edit changed.
//!
//! Takes a checked site, its theme and the output folder; yields the [`Selection`] of pages
//! to render again, or why everything must be (a [`Miss`]). Everything is rendered again when
//! the [`Key`] differs (another errata, a template or static file, the config, the reports it
//! reads, the options), when an entry was added, removed or moved, a tag came or went, a list
//! gained or lost a page, or when an output file is missing or not as the last build left it.
//! Otherwise the pages are chosen as `errata serve` chooses them after an edit
//! ([`Selection::after_edit`]). The site that results is byte for byte a clean build's.

mod state;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::diagnostic::Sources;
use crate::link::Site;
use crate::load::theme::ThemeFiles;
use crate::render::lists::{list_pages, ListPage};
use crate::render::Selection;

pub use state::{FileState, Key, State, FILE};

#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("cannot read or write the build cache {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the cache folder {cache} is inside the output {output}, which a build replaces; pick a folder outside it")]
    InsideOutput { cache: PathBuf, output: PathBuf },
    #[error("the build cache {path} is damaged")]
    Corrupt {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
}

/// Why a cached build renders everything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Miss {
    /// No cache yet, or one of another layout.
    NoCache,
    /// The cache file could not be parsed.
    Damaged,
    /// The key's part named differs: `version`, `program`, `theme`, `config` or `output`.
    Key(&'static str),
    /// An entry was added, removed or moved, or a tag or list page came or went.
    Urls,
    /// An output file is missing or is not as the last build left it.
    Output(String),
}

impl std::fmt::Display for Miss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Miss::NoCache => write!(f, "no cache yet"),
            Miss::Damaged => write!(f, "its file is damaged"),
            Miss::Key("version") | Miss::Key("program") => write!(f, "another errata"),
            Miss::Key(part) => write!(f, "the {part} changed"),
            Miss::Urls => write!(f, "an entry, tag or list page came, went or moved"),
            Miss::Output(path) => write!(f, "the output's {path} is not as the cache left it"),
        }
    }
}

/// A hash of some bytes, as the cache writes it.
pub fn hash(bytes: &[u8]) -> String {
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes))
}

impl Key {
    /// The key of a build of `site` with `theme` into `output`; `options` are the build
    /// options that change what is written (drafts, a `--base-url`).
    pub fn of(site: &Site, theme: &ThemeFiles, options: &str, output: &Path) -> Key {
        let mut themed = xxhash_rust::xxh3::Xxh3::new();
        for (name, text) in &theme.templates {
            themed.update(name.as_bytes());
            themed.update(&(text.len() as u64).to_le_bytes());
            themed.update(text.as_bytes());
        }
        for (name, bytes) in &theme.statics {
            themed.update(name.as_bytes());
            themed.update(&(bytes.len() as u64).to_le_bytes());
            themed.update(bytes);
        }
        // The Debug form shows every field of the config, the reports it read included.
        let config = format!("{:?}\n{options}", site.config);
        Key {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            program: program_hash(),
            theme: format!("{:032x}", themed.digest128()),
            config: hash(config.as_bytes()),
            output: output.to_owned(),
        }
    }

    /// What names the errata of this key, for what the cache keeps by content: the same
    /// string as [`salt`] gives the running errata.
    pub fn salt(&self) -> String {
        salt_of(&self.version, &self.program)
    }

    /// The first part in which `self` differs from `other`.
    fn differs(&self, other: &Key) -> Option<&'static str> {
        [
            ("version", self.version == other.version),
            ("program", self.program == other.program),
            ("theme", self.theme == other.theme),
            ("config", self.config == other.config),
            ("output", self.output == other.output),
        ]
        .into_iter()
        .find_map(|(part, same)| (!same).then_some(part))
    }
}

/// What names the errata that builds, for what the cache keeps by content (the loaded
/// entries, the search index's chunks): its version and its program.
pub fn salt() -> String {
    salt_of(env!("CARGO_PKG_VERSION"), &program_hash())
}

fn salt_of(version: &str, program: &str) -> String {
    format!("{version} {program}")
}

/// The running program's file, by its length and modification time (empty when they cannot
/// be read: the version alone then tells builds apart). Reading the whole file would cost a
/// cached build tens of milliseconds; a rebuilt or reinstalled errata gets a new time.
fn program_hash() -> String {
    std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|meta| {
            let since = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .unwrap_or_default();
            format!(
                "{}-{}.{:09}",
                meta.len(),
                since.as_secs(),
                since.subsec_nanos()
            )
        })
        .unwrap_or_default()
}

impl State {
    /// The pages to render again for `site` under `key`, or why all of them.
    pub fn plan(&self, key: &Key, site: &Site, sources: &Sources) -> Result<Selection, Miss> {
        if let Some(part) = key.differs(&self.key) {
            return Err(Miss::Key(part));
        }
        let now = entry_states(site, sources);
        let same_urls = now.len() == self.entries.len()
            && now
                .iter()
                .zip(&self.entries)
                .all(|(a, b)| a.slug == b.slug && a.category == b.category && a.file == b.file);
        let pages = list_pages(site);
        if !same_urls
            || !site
                .tags
                .keys()
                .map(|t| t.to_string())
                .eq(self.tags.iter().cloned())
            || !pages
                .iter()
                .map(page_url)
                .collect::<BTreeSet<_>>()
                .iter()
                .eq(self.lists.keys())
        {
            return Err(Miss::Urls);
        }
        self.check_output()?;
        let changed: BTreeSet<usize> = (0..now.len())
            .filter(|&i| now[i].text != self.entries[i].text)
            .collect();
        Ok(Selection::after_edit(site, &changed, &self.related, |p| {
            self.lists.get(&page_url(p)) == Some(&page_state(p))
        }))
    }

    /// Each output file the cache knows is there with its length and modification time.
    fn check_output(&self) -> Result<(), Miss> {
        let output = &self.key.output;
        let bad = self.files.par_iter().find_any(|(path, file)| {
            !std::fs::metadata(output.join(path))
                .is_ok_and(|meta| meta.len() == file.len && modified(&meta) == file.modified)
        });
        match bad {
            Some((path, _)) => Err(Miss::Output(path.clone())),
            None => Ok(()),
        }
    }

    /// Records what the pages of `site` were rendered from.
    pub fn record_site(&mut self, site: &Site, sources: &Sources) {
        self.entries = entry_states(site, sources);
        self.related = site.related.to_vec();
        self.tags = site.tags.keys().map(|t| t.to_string()).collect();
        self.lists = list_pages(site)
            .iter()
            .map(|p| (page_url(p), page_state(p)))
            .collect();
    }

    /// Records the files at `paths` (relative to the output) as they are now on disk, with
    /// their hashes.
    pub fn record_files(&mut self, written: Vec<(String, String)>) -> Result<(), CacheError> {
        let output = &self.key.output;
        let stamped: Vec<(String, FileState)> = written
            .into_par_iter()
            .map(|(path, hash)| {
                let full = output.join(&path);
                let meta = std::fs::metadata(&full).map_err(|source| CacheError::Io {
                    path: full.clone(),
                    source,
                })?;
                let file = FileState {
                    len: meta.len(),
                    modified: modified(&meta),
                    hash,
                };
                Ok((path, file))
            })
            .collect::<Result<_, CacheError>>()?;
        self.files.extend(stamped);
        Ok(())
    }
}

/// Seconds since the epoch of a file's last change (0 where the system does not say).
fn modified(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs() as i64)
}

fn entry_states(site: &Site, sources: &Sources) -> Vec<state::EntryState> {
    site.entries
        .par_iter()
        .map(|e| state::EntryState {
            slug: e.slug.to_string(),
            category: e.category.clone(),
            file: e.file.clone(),
            text: hash(sources.get(&e.file).unwrap_or_default().as_bytes()),
        })
        .collect()
}

fn page_url(page: &ListPage) -> String {
    page.list.page_url(page.number)
}

fn page_state(page: &ListPage) -> state::PageState {
    state::PageState {
        pages: page.pages,
        total: page.total,
        entries: page.entries.clone(),
    }
}
