//! The stages joined: load, link, render, write, as `errata build` and `errata check` run them.
//!
//! Takes plain options; yields what was built or every problem found. A build with any
//! content error writes nothing, so the previous output stays as it was.

use std::path::{Path, PathBuf};

use crate::diagnostic::{sort_problems, Level, Problem, Sources};
use crate::link::{self, Site};
use crate::load::{self, LoadError, LoadOptions};
use crate::render::{self, Output, RenderError};
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
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// A checked site, ready to render, with any warnings.
pub struct Checked {
    pub site: Site,
    pub warnings: Vec<Problem>,
    pub sources: Sources,
    pub theme: load::theme::ThemeFiles,
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
    let (drafts, base_url) = (options.drafts, options.base_url.as_deref());
    let loaded = load::load_site(root, LoadOptions { drafts })?;
    let mut problems = loaded.problems;
    let mut config = loaded.config;
    if let Some(url) = base_url {
        config.base_url = url.to_owned();
    }
    let site = link::link(config, loaded.entries, &loaded.failed_slugs, &mut problems);
    problems.extend(link::warnings(&site, chrono::Local::now().date_naive()));
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
    })
}

/// Checks and renders in memory.
pub fn render(checked: &Checked, progress: bool) -> Result<Vec<Output>, PipelineError> {
    let tera = render::compile_templates(&checked.theme)?;
    let bar = if progress {
        indicatif::ProgressBar::new(
            checked.site.entries.len() as u64
                + checked.site.tags.len() as u64
                + checked.site.categories.len() as u64
                + 6,
        )
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} rendering {pos}/{len} pages {wide_bar}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let outputs = render::render_site(&checked.site, &checked.theme, &tera, &|| bar.inc(1))?;
    bar.finish_and_clear();
    Ok(outputs)
}

/// Stage timings on stderr when `ERRATA_TIMINGS` is set, for profiling builds.
struct Timings(Option<std::time::Instant>);

impl Timings {
    fn from_env() -> Timings {
        Timings(std::env::var_os("ERRATA_TIMINGS").map(|_| std::time::Instant::now()))
    }

    fn lap(&mut self, stage: &str) {
        if let Some(start) = self.0 {
            eprintln!("timing: {stage}: {} ms", start.elapsed().as_millis());
            self.0 = Some(std::time::Instant::now());
        }
    }
}

/// What a build did.
pub struct Built {
    pub report: WriteReport,
    pub output: PathBuf,
    pub entries: usize,
    pub warnings: Vec<Problem>,
    pub sources: Sources,
}

pub fn build(options: &BuildOptions) -> Result<Built, PipelineError> {
    let check_options = CheckOptions {
        drafts: options.drafts,
        base_url: options.base_url.clone(),
        strict: options.strict,
    };
    let mut timings = Timings::from_env();
    let checked = check_with(&options.root, &check_options)?;
    timings.lap("load + link");
    let outputs = render(&checked, options.progress)?;
    timings.lap("render (pages, feeds, search bundle)");
    let output = options
        .output
        .clone()
        .unwrap_or_else(|| options.root.join("public"));
    let report = write::write_site(&output, &options.root, &outputs)?;
    timings.lap("write");
    Ok(Built {
        report,
        output,
        entries: checked.site.entries.len(),
        warnings: checked.warnings,
        sources: checked.sources,
    })
}
