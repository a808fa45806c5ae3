//! errata: a static-site generator and search engine for an encyclopedia of ML-training
//! failures.
//!
//! The modules follow the data flow: [`load`] reads `content/` into entries, [`link`] checks
//! them against each other into a [`link::Site`], [`render`] turns the site into files in
//! memory while [`search`] makes its search bundles beside it, and [`write`] swaps them into
//! the output folder. [`pipeline`] joins the stages for the commands and [`serve`] sits on
//! it, and [`build_cache`] is what `errata build --cache` keeps between builds;
//! [`diagnostic`] says what went wrong; [`new`] writes a new entry.

pub mod build_cache;
pub mod diagnostic;
pub mod link;
pub mod load;
pub mod new;
pub mod pipeline;
pub mod render;
pub mod search;
pub mod serve;
pub mod terminal;
pub mod write;
