//! Opening the search index for `errata search` and `errata diagnose`.
//!
//! Takes the site folder and an optional bundle path; yields a [`Searcher`]: the bundle named,
//! else the built site's bundle when nothing in `content/` or `errata.yaml` is newer, else
//! `content/` indexed in memory through the same bundle code, so all three answer alike.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use errata::pipeline::{self, PipelineError};
use errata::search::{documents, BUNDLE_PATH};
use errata_search::Searcher;

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
