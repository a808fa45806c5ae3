//! A build with a cache folder (`errata build --cache DIR`), as a CI pipeline runs it on
//! every push with the folder and the output kept between runs.
//!
//! Takes a checked site, the locked output and the cache folder; when the cache tells what an
//! edit changed ([`State::plan`]), renders only those pages and the site-wide files, and
//! replaces in the output only the files whose bytes changed; otherwise builds in full as
//! without a cache. Either way it leaves a cache for the next build (the state, the search
//! index's chunks, and the loaded entries, written on a thread of their own by
//! [`keep_entries`]), and the output is byte for byte what a clean build gives.

use std::path::Path;
use std::sync::Mutex;

use rayon::prelude::*;

use super::{bundle_output, write_all, BuildOptions, Checked, PipelineError, Timings};
use crate::build_cache::{self, CacheError, Key, Miss, State};
use crate::load::StoredEntries;
use crate::render::{self, Output, Selection};
use crate::search::{Bundles, ChunkFolder};

/// The folder, inside the cache folder, of the full search index's chunks.
const CHUNK_FOLDER: &str = "search-chunks";
use crate::write::{self, OutputLock, WriteReport};

/// What the cache did for a build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheUse {
    /// Only what changed was rendered: `rendered` files, of which `written` differed.
    Hit { rendered: usize, written: usize },
    /// Everything was rendered, for this reason.
    Miss(Miss),
}

impl std::fmt::Display for CacheUse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CacheUse::Hit { rendered, written } => write!(
                f,
                "from the cache: {rendered} file(s) rendered again, {written} changed"
            ),
            CacheUse::Miss(why) => write!(f, "the cache was not used ({why}); built in full"),
        }
    }
}

/// Builds `checked` into the locked output with the cache in `dir`.
pub(super) fn build(
    dir: &Path,
    checked: &Checked,
    lock: &OutputLock,
    options: &BuildOptions,
    timings: &mut Timings,
) -> Result<(WriteReport, CacheUse), PipelineError> {
    refuse_inside_output(dir, lock)?;
    let key = Key::of(
        &checked.site,
        &checked.theme,
        &format!("drafts: {}", options.drafts),
        lock.output(),
    );
    let plan = match State::read(dir) {
        Ok(None) => Err(Miss::NoCache),
        // Only a cache is lost: the build makes a new one.
        Err(CacheError::Corrupt { .. }) => Err(Miss::Damaged),
        Err(e) => return Err(e.into()),
        Ok(Some(state)) => state
            .plan(&key, &checked.site, &checked.sources)
            .map(|selection| (state, selection)),
    };
    timings.lap("plan from the cache");
    match plan {
        Ok((state, selection)) => patch(dir, state, checked, lock, selection, timings),
        Err(miss) => {
            let report = full(dir, key, checked, lock, options, timings)?;
            Ok((report, CacheUse::Miss(miss)))
        }
    }
}

/// A cache folder inside the output would be replaced with it.
fn refuse_inside_output(dir: &Path, lock: &OutputLock) -> Result<(), CacheError> {
    if write::absolute(dir).starts_with(lock.output()) {
        return Err(CacheError::InsideOutput {
            cache: dir.to_owned(),
            output: lock.output().to_owned(),
        });
    }
    Ok(())
}

/// Writes the entries this build loaded into the cache in `dir`, on a thread of its own. The
/// store only saves the next build time, so a write that fails leaves the store as it was (or
/// none) and does not fail the build.
pub(super) fn keep_entries(
    dir: &Path,
    lock: &OutputLock,
    stored: StoredEntries,
) -> Result<std::thread::JoinHandle<()>, CacheError> {
    refuse_inside_output(dir, lock)?;
    let dir = dir.to_owned();
    Ok(std::thread::spawn(move || {
        let _ = stored.write(&dir);
    }))
}

/// Builds everything, as without a cache, and leaves a cache of it.
fn full(
    dir: &Path,
    key: Key,
    checked: &Checked,
    lock: &OutputLock,
    options: &BuildOptions,
    timings: &mut Timings,
) -> Result<WriteReport, PipelineError> {
    State::forget(dir)?;
    let written = Mutex::new(Vec::new());
    let record = |o: &Output| {
        let hash = build_cache::hash(&o.bytes);
        let mut written = written.lock().unwrap_or_else(|e| e.into_inner());
        written.push((o.path.clone(), hash));
    };
    let mut search = Bundles::for_build().keeping_chunks(chunk_folder(dir, &key));
    let report = write_all(checked, lock, options, &mut search, &record, timings)?;
    let mut state = State::new(key);
    state.record_site(&checked.site, &checked.sources);
    state.record_files(written.into_inner().unwrap_or_else(|e| e.into_inner()))?;
    state.write(dir)?;
    drop_unused_chunks(dir, &search)?;
    timings.lap("cache written");
    Ok(report)
}

/// Renders what `selection` names, replaces the files that changed in the output, and
/// updates the cache.
fn patch(
    dir: &Path,
    mut state: State,
    checked: &Checked,
    lock: &OutputLock,
    selection: Selection,
    timings: &mut Timings,
) -> Result<(WriteReport, CacheUse), PipelineError> {
    let site = &checked.site;
    let tera = render::compile_templates(&checked.theme)?;
    let mut search = Bundles::for_build()
        .on_every_core()
        .keeping_chunks(chunk_folder(dir, &state.key));
    let (pages, bundles) = search.beside(site, None, || {
        render::render_selected(
            site,
            &checked.theme,
            &tera,
            &selection,
            &render::Memo::default(),
            &|| {},
        )
    });
    let mut outputs = pages?;
    outputs.extend(bundles?.into_iter().map(bundle_output));
    let rendered = outputs.len();
    timings.lap("render (the pages the edit changed, the search bundles)");
    let changed: Vec<(Output, String)> = outputs
        .into_par_iter()
        .map(|o| {
            let hash = build_cache::hash(&o.bytes);
            (o, hash)
        })
        .filter(|(o, hash)| state.files.get(&o.path).map(|f| &f.hash) != Some(hash))
        .collect();
    State::forget(dir)?;
    let (files, hashes): (Vec<Output>, Vec<String>) = changed.into_iter().unzip();
    let report = write::patch(lock, &files)?;
    timings.lap("write the changed files");
    state.record_files(files.into_iter().map(|o| o.path).zip(hashes).collect())?;
    state.record_site(site, &checked.sources);
    state.write(dir)?;
    drop_unused_chunks(dir, &search)?;
    timings.lap("cache written");
    let written = report.files;
    Ok((report, CacheUse::Hit { rendered, written }))
}

/// Where the cache in `dir` keeps the full search index's chunks, for the errata of `key`.
fn chunk_folder(dir: &Path, key: &Key) -> ChunkFolder {
    ChunkFolder::new(&dir.join(CHUNK_FOLDER), key.salt())
}

/// Removes the chunks the build did not use from the cache in `dir`.
fn drop_unused_chunks(dir: &Path, search: &Bundles) -> Result<(), CacheError> {
    search
        .keep_only_used_chunks()
        .map_err(|source| CacheError::Io {
            path: dir.join(CHUNK_FOLDER),
            source,
        })
}
