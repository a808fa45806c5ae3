//! The link stage: checked entries in, a [`Site`] (a checked graph) out.
//!
//! Takes the load stage's entries and config. Makes sure slugs are unique (a duplicate names
//! both files; slugs that differ only by case are one URL on macOS and Windows, so they clash
//! too), categories exist in `errata.yaml`, `related` slugs and `[text](@/slug)` links point
//! at entries, and builds the tag and category maps and each entry's related list (explicit
//! first, then by shared tags and category, at most [`MAX_RELATED`]). Every problem is
//! collected; links to a file that failed to load are not reported a second time.

mod checks;
mod patch;
mod related;
mod site;
#[cfg(test)]
mod tests;
mod warnings;

pub use checks::leftover_references;
pub use patch::patch;
pub use site::{link, relink, Category, Site};
pub use warnings::Warnings;

/// How many related entries a page lists.
pub const MAX_RELATED: usize = 6;
