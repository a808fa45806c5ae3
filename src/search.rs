//! The bridge between the site and the search engine (`errata-search`).
//!
//! Takes a linked [`Site`]; yields the plain [`Document`]s the engine indexes and the bundles
//! the site ships at [`BUNDLE_PATH`] and [`FIRST_BUNDLE_PATH`]. For `errata search` and `errata diagnose` it opens the
//! built site's bundle when it is newer than the content, and otherwise indexes `content/` in
//! memory, through the same bundle code, so both give the same answers.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use errata_search::{Document, Searcher, Shard};

use crate::link::Site;
use crate::load::plain_text;
use crate::pipeline::{self, PipelineError};

/// Where the bundle lives in the built site.
pub const BUNDLE_PATH: &str = "search/errata.bundle";
/// Where the first-search shard lives: what a browser loads to answer its first query.
pub const FIRST_BUNDLE_PATH: &str = "search/errata-first.bundle";
/// Each bundle the site ships, with its place.
pub const SHARDS: [(Shard, &str); 2] = [
    (Shard::Full, BUNDLE_PATH),
    (Shard::First, FIRST_BUNDLE_PATH),
];

pub fn documents(site: &Site) -> Vec<Document> {
    (0..site.entries.len()).map(|i| document(site, i)).collect()
}

/// What the search index holds of entry `i`.
pub fn document(site: &Site, i: usize) -> Document {
    let e = &site.entries[i];
    Document {
        slug: e.slug.to_string(),
        title: e.title.clone(),
        url: site.entry_url(i),
        category: e.category.clone(),
        severity: e.severity.as_str().to_owned(),
        tags: e.tags.iter().map(|t| t.to_string()).collect(),
        signatures: e.signatures.iter().map(|s| s.text.clone()).collect(),
        symptoms: e
            .symptoms
            .iter()
            .map(|s| format!("{} {}", plain_text(&s.symptom), plain_text(&s.why)))
            .collect(),
        summary: [
            Some(e.summary.as_str()),
            e.fingerprint.as_deref(),
            e.fix.as_deref(),
        ]
        .into_iter()
        .flatten()
        .map(plain_text)
        .collect::<Vec<_>>()
        .join(" "),
        body: plain_text(&e.body),
    }
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

/// Where a searcher's index came from, for messages.
#[derive(Debug, Clone)]
pub enum IndexSource {
    Bundle(PathBuf),
    Content,
}

/// Opens the index for the CLI: an explicit bundle, the built site's if fresh, or `content/`.
pub fn open(root: &Path, bundle: Option<&Path>) -> Result<(Searcher, IndexSource), SearchError> {
    if let Some(path) = bundle {
        return open_bundle(path).map(|s| (s, IndexSource::Bundle(path.to_owned())));
    }
    let built = root.join("public").join(BUNDLE_PATH);
    if is_fresh(&built, root) {
        if let Ok(searcher) = open_bundle(&built) {
            return Ok((searcher, IndexSource::Bundle(built)));
        }
    }
    let checked = pipeline::check(root, false, None)?;
    let searcher = Searcher::from_documents(&documents(&checked.site))?;
    Ok((searcher, IndexSource::Content))
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
