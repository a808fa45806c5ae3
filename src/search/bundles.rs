//! The site's search bundles, made beside the render for a build and after an edit alike.
//!
//! Takes a linked [`Site`] and, after an edit, the places of the entries it rendered again;
//! yields one [`Bundle`] per shard of [`SHARDS`], and the first-search files. A build indexes
//! every document and packs byte-stable bundles. `errata serve` keeps the indexes open ([`Bundles::kept`]): after a
//! render of the whole site it indexes them again on a thread of its own, for later edits,
//! and an edit then indexes only the documents that changed.

use std::collections::BTreeSet;

use errata_search::first::FirstDocs;
use errata_search::{LiveIndex, WriteError};

use super::chunks::{full_bundle, ChunkFolder};
use super::{document, documents, first_bundles, first_files, heads, BUNDLE_PATH, SHARDS};
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
    /// Whether a build spreads the bundles' work over every core: for a cached build, whose
    /// render is small.
    every_core: bool,
    /// Where a cached build keeps the full index's chunks between builds.
    chunks: Option<ChunkFolder>,
    live: Option<Live>,
}

/// The kept-open indexes, one per shard in [`SHARDS`]' order, and the documents as the
/// first-search files need them.
struct LiveShards {
    shards: Vec<LiveIndex>,
    first: FirstDocs,
}

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
            every_core: false,
            chunks: None,
            live: None,
        }
    }

    /// Spreads a build's bundle work over every core, for a cached build whose render is small.
    pub fn on_every_core(self) -> Bundles {
        Bundles {
            every_core: true,
            ..self
        }
    }

    /// Takes the full index's chunks from `folder` where it has them, and keeps the others
    /// there, for a cached build.
    pub fn keeping_chunks(self, folder: ChunkFolder) -> Bundles {
        Bundles {
            chunks: Some(folder),
            ..self
        }
    }

    /// Removes from the chunk folder the chunks the last build did not use.
    pub fn keep_only_used_chunks(&self) -> std::io::Result<()> {
        self.chunks
            .as_ref()
            .map_or(Ok(()), ChunkFolder::keep_only_used)
    }

    /// For `errata serve`: indexes kept open between calls, so an edit is quick.
    pub fn kept() -> Bundles {
        Bundles {
            keep: true,
            every_core: false,
            chunks: None,
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
        let ((bundles, live), rendered) = side_by_side(
            || match edited {
                None => (
                    stable_bundles(site, self.every_core, self.chunks.as_ref()),
                    None,
                ),
                Some(edited) => live_bundles(live, site, edited),
            },
            render,
        );
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

/// The full index's bundle and the first-search files of every document, byte-stable.
fn stable_bundles(
    site: &Site,
    every_core: bool,
    folder: Option<&ChunkFolder>,
) -> Result<Vec<Bundle>, WriteError> {
    let started = std::time::Instant::now();
    let heads = heads(site, every_core);
    let (first, full) = if every_core {
        side_by_side(
            || first_files(&heads),
            || full_bundle(site, &heads, folder, true),
        )
    } else {
        (
            first_files(&heads),
            full_bundle(site, &heads, folder, false),
        )
    };
    let mut bundles = vec![Bundle {
        path: BUNDLE_PATH.to_string(),
        bytes: full?,
    }];
    bundles.extend(first?);
    if std::env::var_os("ERRATA_TIMINGS").is_some() {
        eprintln!(
            "timing:   of which the search bundle: {} ms",
            started.elapsed().as_millis()
        );
    }
    Ok(bundles)
}

/// The live index of each shard, indexed side by side (the first edit waits for them), and
/// the documents of the first-search files.
fn live_shards(documents: &[errata_search::Document]) -> Result<LiveShards, WriteError> {
    let (first, shards) = side_by_side(
        || FirstDocs::of(documents),
        || {
            on_own_threads(SHARDS, |(shard, _)| LiveIndex::new(documents, shard))
                .into_iter()
                .collect::<Result<Vec<_>, _>>()
        },
    );
    Ok(LiveShards {
        shards: shards?,
        first: first?,
    })
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
    let LiveShards {
        mut shards,
        mut first,
    } = match shards {
        Ok(shards) => shards,
        Err(e) => return (Err(e), None),
    };
    // Each shard commits and packs on a thread of its own, the first-search files on another.
    let (first_files, packed) = side_by_side(
        || {
            if let Some(documents) = &edited {
                first.replace(documents.iter().map(|(i, d)| (*i, d)))?;
            }
            first_bundles(first.files())
        },
        || {
            on_own_threads(shards.iter_mut().zip(SHARDS), |(live, (_, path))| {
                if let Some(documents) = &edited {
                    live.replace(documents.iter().cloned())?;
                }
                Ok(vec![Bundle {
                    path: path.to_string(),
                    bytes: live.bundle()?,
                }])
            })
        },
    );
    match packed
        .into_iter()
        .chain([first_files])
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(bundles) => (
            Ok(bundles.into_iter().flatten().collect()),
            Some(Live::Ready(LiveShards { shards, first })),
        ),
        Err(e) => (Err(e), None),
    }
}

/// `there` on a thread of its own while `here` runs on this one; both results, a panic on
/// either side raised again here.
fn side_by_side<A: Send, B>(there: impl FnOnce() -> A + Send, here: impl FnOnce() -> B) -> (A, B) {
    std::thread::scope(|scope| {
        let there = scope.spawn(there);
        let here = here();
        let there = there
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (there, here)
    })
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
