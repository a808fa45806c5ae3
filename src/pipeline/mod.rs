//! The stages joined: load, link, render, write, as `errata build` and `errata check` run them.
//!
//! Takes plain options; yields what was built or every problem found. A build with any
//! content error writes nothing, so the previous output stays as it was.

mod cached;

use std::path::{Path, PathBuf};

use crate::build_cache;
use crate::diagnostic::{sort_problems, Level, Problem, Sources};
use crate::link::{self, Site};
use crate::load::{self, LoadCache, LoadError, LoadOptions, StoredEntries};
use crate::render::{self, Output, RenderError, Selection};
use crate::search::{Bundle, Bundles};
use crate::write::{self, WriteError, WriteReport};

#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub root: PathBuf,
    /// Defaults to `public/` under the root.
    pub output: Option<PathBuf>,
    pub base_url: Option<String>,
    pub drafts: bool,
    pub progress: bool,
    pub strict: bool,
    /// A folder kept between builds (`--cache`): the build renders and writes only what
    /// changed since the build that left it.
    pub cache: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error("{} content error(s)", problems.iter().filter(|p| p.level == Level::Error).count())]
    Content {
        problems: Vec<Problem>,
        sources: Sources,
    },
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error("cannot build the search index: {0}")]
    Search(#[from] errata_search::WriteError),
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error(transparent)]
    Cache(#[from] crate::build_cache::CacheError),
}

impl PipelineError {
    /// The problems with file and line, and their sources, when the error is made of them (a
    /// content error, or a mistake in errata.yaml).
    pub fn problems(&self) -> Option<(&[Problem], &Sources)> {
        match self {
            PipelineError::Content { problems, sources } => Some((problems, sources)),
            PipelineError::Load(LoadError::BadConfig { problem, sources }) => {
                Some((std::slice::from_ref(problem), sources))
            }
            _ => None,
        }
    }
}

/// A checked site, ready to render, with any warnings.
pub struct Checked {
    pub site: Site,
    pub warnings: Vec<Problem>,
    pub sources: Sources,
    pub theme: load::theme::ThemeFiles,
    /// The entries as loaded (in the order of their files), and where each is in the site:
    /// what the next check compares to tell an edit that kept every entry's place.
    loaded: Vec<std::sync::Arc<load::Entry>>,
    placed: std::sync::Arc<Vec<usize>>,
    /// The warnings with what they were found from, for the next check to patch.
    found: link::Warnings,
}

/// Loads and links; fails with every problem if any is an error.
pub fn check(root: &Path, drafts: bool, base_url: Option<&str>) -> Result<Checked, PipelineError> {
    check_with(
        root,
        &CheckOptions {
            drafts,
            base_url: base_url.map(str::to_owned),
            strict: false,
        },
    )
}

/// What `check` is asked to do.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    pub drafts: bool,
    pub base_url: Option<String>,
    /// Warnings count as errors.
    pub strict: bool,
}

/// Loads, links and adds the warnings; fails with every problem if any is an error.
pub fn check_with(root: &Path, options: &CheckOptions) -> Result<Checked, PipelineError> {
    check_cached(root, options, &mut LoadCache::default(), None)
}

/// [`check_with`], reusing the files of `cache` that have not changed, and what checking
/// `previous` found where the edit cannot have changed it.
fn check_cached(
    root: &Path,
    options: &CheckOptions,
    cache: &mut LoadCache,
    previous: Option<&Checked>,
) -> Result<Checked, PipelineError> {
    let (drafts, base_url) = (options.drafts, options.base_url.as_deref());
    let mut timings = Timings::from_env();
    let loaded = load::load_site_cached(root, LoadOptions { drafts }, cache)?;
    timings.lap("  load");
    let mut problems = loaded.problems;
    let mut config = loaded.config;
    if let Some(url) = base_url {
        config.base_url = url.to_owned();
    }
    let replaced = previous.and_then(|p| replaced(p, &loaded.entries));
    let patched = previous.zip(replaced.as_ref()).and_then(|(p, replaced)| {
        link::patch(
            &p.site,
            &config,
            replaced,
            &loaded.failed_slugs,
            &mut problems,
        )
        .map(|site| (site, p.placed.clone()))
    });
    let was_patched = patched.is_some();
    let (site, placed) = match patched {
        Some(patched) => patched,
        None => {
            let previous = previous.map(|p| &p.site);
            let failed = &loaded.failed_slugs;
            link_afresh(config, &loaded.entries, failed, &mut problems, previous)
        }
    };
    problems.extend(link::leftover_references(
        &loaded.leftovers,
        &site.by_slug,
        &loaded.failed_slugs,
    ));
    timings.lap("  link");
    // After a patch, the warnings are patched too: only the edited entries, and the entries
    // sharing a signature with them, are looked at again.
    let today = chrono::Local::now().date_naive();
    let found = match (previous, &replaced) {
        (Some(p), Some(replaced)) if was_patched => {
            let places: Vec<usize> = replaced.iter().map(|(i, _)| *i).collect();
            p.found.patch(&site, &places, today)
        }
        _ => link::Warnings::find(&site, today),
    };
    problems.extend(found.problems());
    timings.lap("  warnings");
    if options.strict {
        for p in &mut problems {
            p.level = Level::Error;
        }
    }
    sort_problems(&mut problems);
    if problems.iter().any(|p| p.level == Level::Error) {
        return Err(PipelineError::Content {
            problems,
            sources: loaded.sources,
        });
    }
    Ok(Checked {
        site,
        warnings: problems,
        sources: loaded.sources,
        theme: loaded.theme,
        loaded: loaded.entries,
        placed,
        found,
    })
}

/// [`link::relink`], with each loaded entry's place in the linked site (`usize::MAX` for a
/// duplicate left out).
fn link_afresh(
    config: load::Config,
    entries: &[std::sync::Arc<load::Entry>],
    failed: &[load::Slug],
    problems: &mut Vec<Problem>,
    previous: Option<&Site>,
) -> (Site, std::sync::Arc<Vec<usize>>) {
    let site = link::relink(config, entries.to_vec(), failed, problems, previous);
    let placed = entries
        .iter()
        .map(|e| site.by_slug.get(&e.slug).copied().unwrap_or(usize::MAX))
        .collect();
    (site, std::sync::Arc::new(placed))
}

/// The entries an edit replaced, by their place in `previous`'s site, when every loaded entry
/// is where it was (the same files loaded, in the same order); `None` otherwise.
fn replaced(
    previous: &Checked,
    loaded: &[std::sync::Arc<load::Entry>],
) -> Option<Vec<(usize, std::sync::Arc<load::Entry>)>> {
    if previous.loaded.len() != loaded.len() {
        return None;
    }
    previous
        .loaded
        .iter()
        .zip(loaded)
        .zip(previous.placed.iter())
        .filter(|((old, new), _)| !std::sync::Arc::ptr_eq(old, new))
        .map(|((old, new), &at)| (old.file == new.file).then(|| (at, new.clone())))
        .collect()
}

/// Renders a checked site in memory, search bundles included, sorted by path.
pub fn render(checked: &Checked, progress: bool) -> Result<Vec<Output>, PipelineError> {
    let tera = render::compile_templates(&checked.theme)?;
    let bar = progress_bar(checked, progress);
    let (pages, bundles) = Bundles::for_build().beside(&checked.site, None, || {
        render::render_site(&checked.site, &checked.theme, &tera, &|| bar.inc(1))
    });
    bar.finish_and_clear();
    let mut outputs = pages?;
    outputs.extend(bundles?.into_iter().map(bundle_output));
    outputs.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(outputs)
}

/// A bundle as an output file.
fn bundle_output(bundle: Bundle) -> Output {
    Output {
        path: bundle.path.into(),
        bytes: bundle.bytes,
    }
}

fn progress_bar(checked: &Checked, progress: bool) -> indicatif::ProgressBar {
    let bar = if progress {
        indicatif::ProgressBar::new(
            // Entries, list pages, and home, the tags index, search and 404.
            (checked.site.entries.len() + render::lists::list_pages(&checked.site).len() + 4)
                as u64,
        )
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} rendering {pos}/{len} pages {wide_bar}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar
}

/// Stage timings on stderr when `ERRATA_TIMINGS` is set, for profiling builds.
struct Timings(Option<std::time::Instant>);

impl Timings {
    fn from_env() -> Timings {
        Timings(std::env::var_os("ERRATA_TIMINGS").map(|_| std::time::Instant::now()))
    }

    fn lap(&mut self, stage: &str) {
        if let Some(start) = self.0 {
            eprintln!(
                "timing: {stage}: {} ms{}",
                start.elapsed().as_millis(),
                memory_so_far()
            );
            self.0 = Some(std::time::Instant::now());
        }
    }
}

/// The process's resident and peak resident memory, where the system tells them (Linux's
/// `/proc/self/status`), for the timings.
fn memory_so_far() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(|v| v.trim().to_owned())
    };
    match (field("VmRSS:"), field("VmHWM:")) {
        (Some(rss), Some(peak)) => format!(" (resident {rss}, peak {peak})"),
        _ => String::new(),
    }
}

/// What a build did.
pub struct Built {
    pub report: WriteReport,
    pub output: PathBuf,
    pub entries: usize,
    pub warnings: Vec<Problem>,
    pub sources: Sources,
    /// With `--cache`: what the cache saved, or why it could not.
    pub cache: Option<cached::CacheUse>,
}

pub fn build(options: &BuildOptions) -> Result<Built, PipelineError> {
    let check_options = CheckOptions {
        drafts: options.drafts,
        base_url: options.base_url.clone(),
        strict: options.strict,
    };
    let mut timings = Timings::from_env();
    let output = options
        .output
        .clone()
        .unwrap_or_else(|| options.root.join("public"));
    let lock = write::OutputLock::acquire(&output)?;
    // With a cache folder, an unchanged file's entry comes from the build before.
    let mut loads = match &options.cache {
        Some(dir) => LoadCache::with_stored(StoredEntries::read(dir, build_cache::salt())),
        None => LoadCache::default(),
    };
    let checked = check_cached(&options.root, &check_options, &mut loads, None)?;
    timings.lap("load + link");
    // The entries are written for the next build while this one renders.
    let keeping = match (&options.cache, loads.take_stored()) {
        (Some(dir), Some(stored)) => Some(cached::keep_entries(dir, &lock, stored)?),
        _ => None,
    };
    drop(loads);
    let (report, cache) = match &options.cache {
        None => (
            write_all(
                &checked,
                &lock,
                options,
                &mut Bundles::for_build(),
                &|_| {},
                &mut timings,
            )?,
            None,
        ),
        Some(dir) => {
            let (report, used) = cached::build(dir, &checked, &lock, options, &mut timings)?;
            if let Some(keeping) = keeping {
                keeping
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            }
            timings.lap("loaded entries kept");
            (report, Some(used))
        }
    };
    Ok(Built {
        report,
        output,
        entries: checked.site.entries.len(),
        warnings: checked.warnings,
        sources: checked.sources,
        cache,
    })
}

/// Renders every file into a temporary folder and swaps it in for the output; each file is
/// handed to `written` once it is written.
fn write_all(
    checked: &Checked,
    lock: &write::OutputLock,
    options: &BuildOptions,
    search: &mut Bundles,
    written: &(dyn Fn(&Output) + Sync),
    timings: &mut Timings,
) -> Result<WriteReport, PipelineError> {
    // Each file is written as soon as it is rendered, so the site is never all in memory.
    let tera = render::compile_templates(&checked.theme)?;
    let bar = progress_bar(checked, options.progress);
    let staging = write::Staging::begin(lock, &options.root)?;
    let put = |output: Output| {
        staging.write(&output)?;
        written(&output);
        Ok::<(), PipelineError>(())
    };
    let (pages, bundles) = search.beside(&checked.site, None, || {
        render::render_into(
            &checked.site,
            &checked.theme,
            &tera,
            &Selection::All,
            &render::Memo::default(),
            &|| bar.inc(1),
            &put,
        )
    });
    pages?;
    for bundle in bundles? {
        put(bundle_output(bundle))?;
    }
    bar.finish_and_clear();
    timings.lap("render and write (pages, feeds, search bundle)");
    let report = staging.commit()?;
    timings.lap("swap in");
    Ok(report)
}

/// Rebuilds in memory after edits, rendering only what an edit can have changed (for
/// `errata serve`). Unchanged files are not parsed again; when every URL and every tag stays
/// as it was, only the edited entries' pages, the pages that show them (related cards, their
/// tag and category pages) and the site-wide lists, feeds and search bundle are rendered.
/// Anything else (an entry added, removed or moved, a tag added or dropped, the theme or the
/// config edited) renders everything.
pub struct Incremental {
    root: PathBuf,
    options: CheckOptions,
    cache: LoadCache,
    last: Option<(Checked, tera::Tera)>,
    /// The search bundles, with the indexes kept open for edits.
    search: Bundles,
    /// What the last render kept for this one.
    memo: render::Memo,
}

/// What one rebuild produced.
pub struct Rebuilt {
    /// The new files; with `complete`, the whole site, else only the files that changed.
    pub outputs: Vec<Output>,
    pub complete: bool,
    /// Entry pages rendered.
    pub entry_pages: usize,
}

impl Incremental {
    pub fn new(root: &Path, options: CheckOptions) -> Incremental {
        Incremental {
            root: root.to_owned(),
            options,
            cache: LoadCache::default(),
            last: None,
            search: Bundles::kept(),
            memo: render::Memo::default(),
        }
    }

    /// Tells the next rebuild that only these files changed (as the watcher reports them),
    /// so it need not walk `content/` and look at every file; see [`LoadCache::expect_only`].
    pub fn expect_only(&mut self, paths: &[PathBuf]) -> bool {
        self.cache.expect_only(&self.root, paths)
    }

    /// Rebuilds. `everything` forces a complete render (after a theme or config change).
    /// On failure the state of the last good build is kept (after a failed complete render,
    /// the next rebuild renders everything again).
    pub fn rebuild(&mut self, everything: bool) -> Result<Rebuilt, PipelineError> {
        let mut timings = Timings::from_env();
        if everything {
            self.cache.expect_anything();
        }
        let previous = self.last.as_ref().map(|(checked, _)| checked);
        let checked = check_cached(&self.root, &self.options, &mut self.cache, previous)?;
        timings.lap("load + link");
        let (selection, tera, old) = match self.last.take() {
            Some((old, tera)) if !everything => (plan(&old, &checked), tera, Some(old)),
            _ => {
                self.memo.for_templates();
                (
                    Selection::All,
                    render::compile_templates(&checked.theme)?,
                    None,
                )
            }
        };
        timings.lap("plan");
        let complete = selection == Selection::All;
        let edited = match &selection {
            Selection::All => None,
            Selection::Only { entries, .. } => Some(entries),
        };
        let (pages, bundles) = self.search.beside(&checked.site, edited, || {
            render::render_selected(
                &checked.site,
                &checked.theme,
                &tera,
                &selection,
                &self.memo,
                &|| {},
            )
        });
        timings.lap("render, and the search bundles beside it");
        let outputs = pages.map_err(PipelineError::from).and_then(|mut outputs| {
            outputs.extend(bundles?.into_iter().map(bundle_output));
            if complete {
                outputs.sort_by(|a, b| a.path.cmp(&b.path));
            }
            Ok(outputs)
        });
        let outputs = match outputs {
            Ok(outputs) => outputs,
            Err(e) => {
                // What is served is still the last good build's: the next edit is planned
                // against it.
                self.last = old.map(|old| (old, tera));
                return Err(e);
            }
        };
        let entry_pages = match &selection {
            Selection::All => checked.site.entries.len(),
            Selection::Only { entries, .. } => entries.len(),
        };
        self.last = Some((checked, tera));
        Ok(Rebuilt {
            outputs,
            complete,
            entry_pages,
        })
    }
}

/// What must be rendered again when `new` follows `old`.
fn plan(old: &Checked, new: &Checked) -> Selection {
    let (a, b) = (&old.site, &new.site);
    let same_urls = a.entries.len() == b.entries.len()
        && a.entries
            .iter()
            .zip(&b.entries)
            .all(|(x, y)| x.slug == y.slug && x.category == y.category);
    if !same_urls
        || !a.tags.keys().eq(b.tags.keys())
        || a.config.paginate_by != b.config.paginate_by
        || a.config.threads != b.config.threads
    {
        return Selection::All;
    }
    let changed: std::collections::BTreeSet<usize> = (0..b.entries.len())
        .filter(|&i| {
            // An entry the load cache kept is the same object, so most are not compared.
            let file = &b.entries[i].file;
            !std::sync::Arc::ptr_eq(&a.entries[i], &b.entries[i])
                && (a.entries[i].file != *file || !old.sources.same(&new.sources, file))
        })
        .collect();
    let before: std::collections::HashMap<_, _> = render::lists::list_pages(a)
        .into_iter()
        .map(|p| ((p.list.clone(), p.number), p))
        .collect();
    Selection::after_edit(b, &changed, &a.related, |p| {
        before.get(&(p.list.clone(), p.number)) == Some(p)
    })
}
