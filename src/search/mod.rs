//! The one owner of the site's search: the documents the engine indexes and the bundles the
//! site ships.
//!
//! Takes a linked [`Site`](crate::link::Site); yields the plain
//! [`Document`](errata_search::Document)s of [`documents`] and the bundle files of
//! [`Bundles`]: the full index at [`BUNDLE_PATH`], and the first-search files under
//! [`FIRST_FOLDER`] (a browser's first answer: see [`errata_search::first`]). A build and an
//! edit under `errata serve` make them through the same [`Bundles::beside`], on one thread
//! beside the render.

mod bundles;
mod chunks;
mod documents;

pub use bundles::{Bundle, Bundles};
pub use chunks::ChunkFolder;
pub use documents::{document, documents, heads, with_bodies};

use errata_search::Shard;

/// Where the bundle lives in the built site.
pub const BUNDLE_PATH: &str = "search/errata.bundle";
/// Where the first-search files live: what a browser answers its first query from.
pub const FIRST_FOLDER: &str = "search/first";
/// Each bundle the site ships, with its place.
pub const SHARDS: [(Shard, &str); 1] = [(Shard::Full, BUNDLE_PATH)];

/// The first-search files of these documents, as bundles at their places in the site.
fn first_files(
    documents: &[errata_search::Document],
) -> Result<Vec<Bundle>, errata_search::WriteError> {
    first_bundles(errata_search::first::files(documents))
}

/// The first-search files as bundles under their folder.
fn first_bundles(
    files: Result<Vec<(String, Vec<u8>)>, serde_json::Error>,
) -> Result<Vec<Bundle>, errata_search::WriteError> {
    Ok(files?
        .into_iter()
        .map(|(path, bytes)| Bundle {
            path: format!("{FIRST_FOLDER}/{path}"),
            bytes,
        })
        .collect())
}
