//! The one owner of the site's search: the documents the engine indexes and the bundles the
//! site ships.
//!
//! Takes a linked [`Site`](crate::link::Site); yields the plain
//! [`Document`](errata_search::Document)s of [`documents`] and the bundle files of
//! [`Bundles`], at [`BUNDLE_PATH`] (the full index) and [`FIRST_BUNDLE_PATH`] (the
//! first-search shard). A build and an edit under `errata serve` make them through the same
//! [`Bundles::beside`], on one thread beside the render.

mod bundles;
mod documents;

pub use bundles::{Bundle, Bundles};
pub use documents::{document, documents, documents_on_every_core};

use errata_search::Shard;

/// Where the bundle lives in the built site.
pub const BUNDLE_PATH: &str = "search/errata.bundle";
/// Where the first-search shard lives: what a browser loads to answer its first query.
pub const FIRST_BUNDLE_PATH: &str = "search/errata-first.bundle";
/// Each bundle the site ships, with its place.
pub const SHARDS: [(Shard, &str); 2] = [
    (Shard::Full, BUNDLE_PATH),
    (Shard::First, FIRST_BUNDLE_PATH),
];
