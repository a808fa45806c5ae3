//! errata: a static-site generator and search engine for an encyclopedia of ML-training
//! failures.
//!
//! The modules follow the data flow: [`load`] reads `content/` into entries, [`link`] checks
//! them against each other into a [`link::Site`], [`render`] turns the site into files in
//! memory, and [`write`] swaps them into the output folder. [`pipeline`] joins the stages for
//! the commands; [`diagnostic`] says what went wrong; [`new`] writes a new entry.

pub mod diagnostic;
pub mod load;
pub mod link;
pub mod render;
pub mod write;
pub mod pipeline;
pub mod new;
