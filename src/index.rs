//! Opening the search index for `errata search` and `errata diagnose`.
//!
//! Takes the site folder and an optional bundle path; yields a [`Searcher`]: the bundle named,
//! else the built site's bundle when nothing in `content/` or `errata.yaml` is newer, else
//! `content/` indexed in memory through the same bundle code, so all three answer alike.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use errata::load::config::{Config, DEFAULT_BASE_URL};
use errata::pipeline::{self, PipelineError};
use errata::search::{documents, BUNDLE_PATH};
use errata_search::Searcher;

/// Where `search`, `diagnose`, `run` and `watch` find the index, and how they answer.
#[derive(Debug, Clone)]
pub struct Index {
    pub root: PathBuf,
    pub bundle: Option<PathBuf>,
    pub json: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    #[error("cannot index the content: {0}")]
    Index(#[from] errata_search::WriteError),
    #[error("cannot read {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}")]
    Bundle {
        path: PathBuf,
        #[source]
        source: errata_search::BundleError,
    },
}

/// Opens the index for the CLI: an explicit bundle, the built site's if fresh, or `content/`.
pub fn open(root: &Path, bundle: Option<&Path>) -> Result<Searcher, SearchError> {
    if let Some(path) = bundle {
        return open_bundle(path);
    }
    let built = root.join("public").join(BUNDLE_PATH);
    if is_fresh(&built, root) {
        if let Ok(searcher) = open_bundle(&built) {
            return Ok(searcher);
        }
    }
    let checked = pipeline::check(root, false, None)?;
    Ok(Searcher::from_documents(&documents(&checked.site))?)
}

fn open_bundle(path: &Path) -> Result<Searcher, SearchError> {
    let bytes = std::fs::read(path).map_err(|source| SearchError::Read {
        path: path.to_owned(),
        source,
    })?;
    Searcher::from_bundle(&bytes).map_err(|source| SearchError::Bundle {
        path: path.to_owned(),
        source,
    })
}

/// True when the bundle exists and nothing in `content/` or `errata.yaml` is newer.
fn is_fresh(bundle: &Path, root: &Path) -> bool {
    let Ok(built) = std::fs::metadata(bundle).and_then(|m| m.modified()) else {
        return false;
    };
    let newer = |p: &Path| {
        std::fs::metadata(p)
            .and_then(|m| m.modified())
            .map_or(true, |t: SystemTime| t > built)
    };
    if newer(&root.join("errata.yaml")) {
        return false;
    }
    !walkdir::WalkDir::new(root.join("content"))
        .into_iter()
        .filter_map(Result::ok)
        .any(|e| newer(e.path()))
}

/// Where an entry's page is, for a person at a terminal: under `--site-url`, else under the
/// site's `base_url` (when errata.yaml sets one), else the built page on disk, else the page's
/// path inside the site.
#[derive(Debug, Clone)]
pub struct Pages {
    base: Option<String>,
    built: Option<PathBuf>,
}

impl Pages {
    pub fn of(index: &Index, site_url: Option<&str>) -> Pages {
        let configured = || {
            let text = std::fs::read_to_string(index.root.join("errata.yaml")).ok()?;
            let config = Config::parse(&text).ok()?;
            (config.base_url != DEFAULT_BASE_URL).then(|| config.base_url())
        };
        let base = site_url
            .map(|u| format!("{}/", u.trim_end_matches('/')))
            .or_else(configured);
        let built = Some(index.root.join("public")).filter(|p| p.join("index.html").is_file());
        Pages { base, built }
    }

    /// The link to the page at `url` (relative to the site, as the bundle has it).
    pub fn link(&self, url: &str) -> String {
        if let Some(base) = &self.base {
            return format!("{base}{url}");
        }
        match &self.built {
            Some(public) => {
                let page = public.join(url).join("index.html");
                std::path::absolute(&page)
                    .unwrap_or(page)
                    .display()
                    .to_string()
            }
            None => url.to_owned(),
        }
    }

    /// Every entry of `diagnosis` linked this way.
    pub fn link_all(&self, diagnosis: &mut errata_search::diagnose::Diagnosis) {
        for entry in &mut diagnosis.entries {
            entry.url = self.link(&entry.url);
        }
    }
}
