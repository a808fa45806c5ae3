//! The `errata` binary: parse the arguments, run one function per command, print problems,
//! exit with 0 (success), 1 (content errors; for `search` and `diagnose`, nothing found) or 2
//! (usage or I/O errors).

mod cli;
mod index;
mod log_input;
#[cfg(unix)]
#[path = "pipe/unix.rs"]
mod pipe;
#[cfg(not(unix))]
#[path = "pipe/other.rs"]
mod pipe;
mod run;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use errata::diagnostic;
use errata::pipeline::{self, BuildOptions, CheckOptions, PipelineError};

/// mimalloc: rendering and indexing allocate many small strings from two threads, where
/// glibc's allocator spent a quarter of a 10,000-entry build (perf).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (`mimalloc.h`, v2 and v3): the crate names the option
/// after it, not it.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
const _: () = assert!(libmimalloc_sys::mi_option_use_numa_nodes == PURGE_DELAY + 1);

/// mimalloc gives freed memory back to the system after 10 ms, so memory freed and allocated
/// again faults in fresh zeroed pages. `errata serve` rebuilds in one process again and again,
/// and each rebuild allocates and frees tens of MB (tantivy's writers, the search bundles,
/// entries.json); kept, it is reused (about 15 ms of a 50 ms rebuild at 10,000 entries, for
/// some 100 MB more resident). A build is one process that ends when it is done: at 100,000
/// entries, giving memory back and faulting it in again cost it 3 to 10 s of system time
/// (kept: 6 % more peak memory).
fn keep_freed_memory() {
    // SAFETY: sets a plain integer option; mimalloc reads it each time it would purge.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, -1) }
}

fn main() -> ExitCode {
    let command = cli::parse();
    // serve answers on; run and watch go on telling a failure when their output is closed.
    if !matches!(
        command,
        cli::Command::Serve(_) | cli::Command::Run(_) | cli::Command::Watch(_)
    ) {
        pipe::end_quietly_on_closed_pipe();
    }
    match run(command) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn run(command: cli::Command) -> anyhow::Result<ExitCode> {
    match command {
        cli::Command::Build(options) => build(&options),
        cli::Command::Check { root, options } => check(&root, &options),
        cli::Command::Schema => {
            print!("{}", errata::load::front_matter::json_schema());
            Ok(ExitCode::SUCCESS)
        }
        cli::Command::Serve(options) => serve(options),
        cli::Command::Search {
            query,
            index,
            limit,
        } => search(&query, &index, limit),
        cli::Command::Diagnose { file, index } => diagnose(file.as_deref(), &index),
        cli::Command::New(options) => new(&options),
        cli::Command::Run(options) => match run::run(&options) {
            Ok(code) => Ok(ExitCode::from(code)),
            // A shell's statuses for a command it cannot find (127) or cannot start (126).
            Err(e @ run::RunError::Spawn { .. }) => {
                eprintln!("error: {e}");
                let missing = matches!(&e, run::RunError::Spawn { source, .. } if source.kind() == std::io::ErrorKind::NotFound);
                Ok(ExitCode::from(if missing { 127 } else { 126 }))
            }
            Err(e) => Err(e.into()),
        },
        cli::Command::Watch(options) => Ok(ExitCode::from(run::watch::watch(&options)?)),
    }
}

fn build(options: &BuildOptions) -> anyhow::Result<ExitCode> {
    let started = std::time::Instant::now();
    keep_freed_memory();
    // Ctrl-C: a write under way stops at the next file and removes its temporary folder;
    // before the write, nothing is on disk yet and the build just ends.
    let _ = ctrlc::set_handler(|| {
        if !errata::write::interrupt() {
            eprintln!("interrupted; nothing was written");
            std::process::exit(130);
        }
    });
    match pipeline::build(options) {
        Ok(built) => {
            diagnostic::report_build(&built.warnings, &built.sources);
            if let Some((old, why)) = &built.report.left_behind {
                eprintln!(
                    "warning: the previous output, moved aside to {}, could not be removed ({why}); delete it by hand",
                    old.display()
                );
            }
            eprintln!(
                "built {} entries, {} files ({} KB) into {} in {} ms",
                built.entries,
                built.report.files,
                built.report.bytes / 1024,
                built.output.display(),
                started.elapsed().as_millis()
            );
            if let Some(cache) = &built.cache {
                eprintln!("{cache}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => failed(e),
    }
}

fn check(root: &Path, options: &CheckOptions) -> anyhow::Result<ExitCode> {
    match pipeline::check_with(root, options) {
        Ok(checked) => {
            diagnostic::report(&checked.warnings, &checked.sources);
            let warnings = checked.warnings.len();
            let tail = if warnings == 0 {
                String::new()
            } else {
                format!(", {warnings} warning(s)")
            };
            eprintln!(
                "checked {} entries: no errors{tail}",
                checked.site.entries.len()
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => failed(e),
    }
}

fn serve(options: errata::serve::ServeOptions) -> anyhow::Result<ExitCode> {
    keep_freed_memory();
    errata::serve::serve(options)?;
    Ok(ExitCode::SUCCESS)
}

fn search(query: &str, index: &index::Index, limit: usize) -> anyhow::Result<ExitCode> {
    let query = if query == "-" {
        read_stdin()?
    } else {
        query.to_owned()
    };
    let searcher = index::open(&index.root, index.bundle.as_deref())?;
    let answer = searcher
        .answer(&query, limit)
        .map_err(|e| anyhow::anyhow!("the search bundle: {e}"))?;
    if index.json {
        println!("{}", serde_json::to_string_pretty(&answer)?);
    } else {
        print!("{}", errata::terminal::hits(&answer.hits));
        if answer.partial {
            eprintln!(
                "note: this bundle is the first-search shard (signatures, titles and tags, ranked without matched signatures); search/errata.bundle is the full index"
            );
        }
    }
    Ok(if answer.hits.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn diagnose(file: Option<&Path>, index: &index::Index) -> anyhow::Result<ExitCode> {
    let searcher = index::open(&index.root, index.bundle.as_deref())?;
    let mut reader = errata_search::log::LogReader::watching(searcher.cues().0);
    let mut skim = errata_search::log::Skim::new(&reader);
    let read = match file.filter(|p| p.as_os_str() != "-") {
        None => log_input::read_into(std::io::stdin().lock(), &mut reader, &mut skim),
        Some(p) => {
            let f = std::fs::File::open(p)
                .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", p.display()))?;
            log_input::read_into(f, &mut reader, &mut skim)
        }
    }
    .map_err(|e| {
        anyhow::anyhow!(
            "{}: {e}",
            file.map_or("stdin".into(), |p| p.display().to_string())
        )
    })?;
    if read.cut_lines > 0 {
        eprintln!(
            "note: {} line(s) longer than {} KB were read up to that length",
            read.cut_lines,
            log_input::MAX_LINE_BYTES / 1024
        );
    }
    let diagnosis = errata_search::diagnose_report(&searcher, reader.finish())
        .map_err(|e| anyhow::anyhow!("the search bundle: {e}"))?;
    if index.json {
        println!("{}", serde_json::to_string_pretty(&diagnosis)?);
    } else {
        print!("{}", errata::terminal::diagnosis(&diagnosis));
    }
    Ok(if diagnosis.diagnosed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn new(options: &errata::new::NewOptions) -> anyhow::Result<ExitCode> {
    let path: PathBuf = errata::new::new_entry(options)?;
    println!("{}", path.display());
    eprintln!(
        "wrote {}; it is a draft until you set `draft: false`",
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Prints problems and picks the exit code for a failed pipeline.
fn failed(error: PipelineError) -> anyhow::Result<ExitCode> {
    if let Some((problems, sources)) = error.problems() {
        diagnostic::report(problems, sources);
        if matches!(error, PipelineError::Content { .. }) {
            let errors = problems
                .iter()
                .filter(|p| p.level == diagnostic::Level::Error)
                .count();
            eprintln!("error: {errors} problem(s) found; nothing was written");
        }
        return Ok(ExitCode::from(1));
    }
    match error {
        PipelineError::Write(errata::write::WriteError::Interrupted) => {
            eprintln!("error: {}", errata::write::WriteError::Interrupted);
            Ok(ExitCode::from(130))
        }
        PipelineError::Render(e) => {
            eprintln!("error: {e}");
            Ok(ExitCode::from(1))
        }
        other => Err(other.into()),
    }
}

fn read_stdin() -> anyhow::Result<String> {
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
