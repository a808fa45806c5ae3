//! The site's search bundles, made beside the render for a build and after an edit alike.
//!
//! Takes a linked [`Site`] and, after an edit, the places of the entries it rendered again;
//! yields one [`Bundle`] per shard of [`SHARDS`], and the first-search files. A build indexes
//! every document and packs byte-stable bundles. `errata serve` keeps the indexes open ([`Bundles::kept`]): after a
//! render of the whole site it indexes them again on a thread of its own, for later edits,
//! and an edit then indexes only the documents that changed.

use std::collections::BTreeSet;

use errata_search::{LiveIndex, WriteError};

use super::{document, documents, documents_on_every_core, first_files, SHARDS};
use crate::link::Site;

/// One search file of the built site: a bundle, or a first-search file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bundle {
    pub path: String,
    pub bytes: Vec<u8>,
}

/// Makes the bundles of a site, and keeps what the next edit needs when asked to.
pub struct Bundles {
    /// Whether to keep open indexes for edits (`errata serve`).
    keep: bool,
    /// Whether a build makes its shards side by side rather than one after the other: for a
    /// cached build, whose render is small, at the cost of both indexes in memory at once.
    side_by_side: bool,
    live: Option<Live>,
}

/// The kept-open indexes, one per shard in [`SHARDS`]' order.
type LiveShards = Vec<LiveIndex>;

/// The kept-open indexes, or the thread still indexing them.
enum Live {
    Building(std::thread::JoinHandle<Result<LiveShards, WriteError>>),
    Ready(LiveShards),
}

impl Live {
    fn start(site: &Site) -> Live {
        let documents = documents(site);
        Live::Building(std::thread::spawn(move || live_shards(&documents)))
    }

    fn ready(self) -> Result<LiveShards, WriteError> {
        match self {
            Live::Ready(live) => Ok(live),
            Live::Building(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        }
    }
}

impl Bundles {
    /// For one build: every call indexes every document.
    pub fn for_build() -> Bundles {
        Bundles {
            keep: false,
            side_by_side: false,
            live: None,
        }
    }

    /// Makes a build's shards side by side, for a cached build whose render is small.
    pub fn shards_side_by_side(self) -> Bundles {
        Bundles {
            side_by_side: true,
            ..self
        }
    }

    /// For `errata serve`: indexes kept open between calls, so an edit is quick.
    pub fn kept() -> Bundles {
        Bundles {
            keep: true,
            side_by_side: false,
            live: None,
        }
    }

    /// Runs `render` on this thread while the bundles of `site` are made on one beside it:
    /// tantivy's writer takes seconds at 10,000 entries and mostly waits on its own indexing
    /// thread, so the two overlap instead of adding up. `edited` names the entries an edit
    /// rendered again; `None` is a render of the whole site.
    pub fn beside<R: Send>(
        &mut self,
        site: &Site,
        edited: Option<&BTreeSet<usize>>,
        render: impl FnOnce() -> R + Send,
    ) -> (R, Result<Vec<Bundle>, WriteError>) {
        let live = match edited {
            Some(_) => self.live.take(),
            None => None,
        };
        let (rendered, (bundles, live)) = std::thread::scope(|scope| {
            let bundles = scope.spawn(|| match edited {
                None => (stable_bundles(site, self.side_by_side), None),
                Some(edited) => live_bundles(live, site, edited),
            });
            let rendered = render();
            let bundles = bundles
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (rendered, bundles)
        });
        if self.keep {
            self.live = match edited {
                None if bundles.is_ok() => Some(Live::start(site)),
                None => None,
                Some(_) => live,
            };
        }
        (rendered, bundles)
    }
}

/// Every shard's bundle from every document, byte-stable.
fn stable_bundles(site: &Site, side_by_side: bool) -> Result<Vec<Bundle>, WriteError> {
    let started = std::time::Instant::now();
    let documents = if side_by_side {
        documents_on_every_core(site)
    } else {
        documents(site)
    };
    let shard = |(shard, path): (errata_search::Shard, &str)| {
        Ok::<_, WriteError>(Bundle {
            path: path.to_string(),
            bytes: errata_search::build_shard(&documents, shard)?,
        })
    };
    let mut bundles = if side_by_side {
        on_own_threads(SHARDS, shard).into_iter().collect()
    } else {
        SHARDS.into_iter().map(shard).collect::<Result<Vec<_>, _>>()
    }?;
    bundles.extend(first_files(&documents)?);
    if std::env::var_os("ERRATA_TIMINGS").is_some() {
        eprintln!(
            "timing:   of which the search bundle: {} ms",
            started.elapsed().as_millis()
        );
    }
    Ok(bundles)
}

/// The live index of each shard, indexed side by side (the first edit waits for them).
fn live_shards(documents: &[errata_search::Document]) -> Result<LiveShards, WriteError> {
    on_own_threads(SHARDS, |(shard, _)| LiveIndex::new(documents, shard))
        .into_iter()
        .collect()
}

/// The bundles after an edit, and the live indexes to keep for the next one (none if indexing
/// or packing failed: the next edit indexes everything again). Only the entries the edit
/// rendered again are made into documents again, and only those that changed are indexed
/// again; without live indexes, every document is.
fn live_bundles(
    live: Option<Live>,
    site: &Site,
    edited: &BTreeSet<usize>,
) -> (Result<Vec<Bundle>, WriteError>, Option<Live>) {
    let (shards, edited) = match live {
        Some(live) => {
            let documents: Vec<_> = edited.iter().map(|&i| (i, document(site, i))).collect();
            (live.ready(), Some(documents))
        }
        None => (live_shards(&documents(site)), None),
    };
    let mut shards = match shards {
        Ok(shards) => shards,
        Err(e) => return (Err(e), None),
    };
    // Each shard commits and packs on a thread of its own.
    let packed = on_own_threads(shards.iter_mut().zip(SHARDS), |(live, (_, path))| {
        if let Some(documents) = &edited {
            live.replace(documents.iter().cloned())?;
        }
        Ok(vec![Bundle {
            path: path.to_string(),
            bytes: live.bundle()?,
        }])
    });
    let first = shards
        .first()
        .map_or_else(|| Ok(Vec::new()), |live| first_files(live.documents()));
    match packed
        .into_iter()
        .chain([first])
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(bundles) => (
            Ok(bundles.into_iter().flatten().collect()),
            Some(Live::Ready(shards)),
        ),
        Err(e) => (Err(e), None),
    }
}

/// `work` on each item, each on a thread of its own rather than rayon's: tantivy's commits
/// wait on their indexing threads, and a rayon thread waiting there is one the pages beside
/// them cannot render on.
fn on_own_threads<T: Send, R: Send>(
    items: impl IntoIterator<Item = T>,
    work: impl Fn(T) -> R + Sync,
) -> Vec<R> {
    let work = &work;
    std::thread::scope(|scope| {
        let threads: Vec<_> = items
            .into_iter()
            .map(|item| scope.spawn(move || work(item)))
            .collect();
        threads
            .into_iter()
            .map(|t| t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}
