//! The `errata` binary: parse the arguments, call the library, print problems, exit with
//! 0 (success), 1 (content errors) or 2 (usage or I/O errors).

mod cli;
mod index;

use std::io::IsTerminal;
use std::process::ExitCode;

use errata::diagnostic::{self, Problem, Sources};
use errata::load::LoadError;
use errata::pipeline::{self, BuildOptions, PipelineError};

/// mimalloc: rendering and indexing allocate many small strings from two threads, where
/// glibc's allocator spent a quarter of a 10,000-entry build (perf).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (`mimalloc.h`, v2 and v3): the crate names the option
/// after it, not it.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
const _: () = assert!(libmimalloc_sys::mi_option_use_numa_nodes == PURGE_DELAY + 1);

/// `errata serve` rebuilds in one process again and again, and each rebuild allocates and
/// frees tens of MB (tantivy's writers, the search bundles, entries.json). mimalloc gives
/// freed memory back to the system after 10 ms, so the next rebuild faulted in fresh zeroed
/// pages; kept, it is reused (about 15 ms of a 50 ms rebuild at 10,000 entries, for some
/// 100 MB more resident).
fn keep_freed_memory() {
    // SAFETY: sets a plain integer option; mimalloc reads it each time it would purge.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, -1) }
}

fn main() -> ExitCode {
    match run(cli::parse()) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn run(command: cli::Command) -> anyhow::Result<ExitCode> {
    match command {
        cli::Command::Build {
            root,
            drafts,
            strict,
            output,
            base_url,
        } => {
            let started = std::time::Instant::now();
            // Ctrl-C: a write under way stops at the next file and removes its temporary
            // folder; before the write, nothing is on disk yet and the build just ends.
            let _ = ctrlc::set_handler(|| {
                if !errata::write::interrupt() {
                    eprintln!("interrupted; nothing was written");
                    std::process::exit(130);
                }
            });
            let options = BuildOptions {
                root,
                output,
                base_url,
                drafts,
                strict,
                progress: interactive(),
            };
            match pipeline::build(&options) {
                Ok(built) => {
                    report(&built.warnings, &built.sources);
                    eprintln!(
                        "built {} entries, {} files ({} KB) into {} in {} ms",
                        built.entries,
                        built.report.files,
                        built.report.bytes / 1024,
                        built.output.display(),
                        started.elapsed().as_millis()
                    );
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => failed(e),
            }
        }
        cli::Command::Check {
            root,
            drafts,
            strict,
        } => match pipeline::check_with(
            &root,
            &pipeline::CheckOptions {
                drafts,
                base_url: None,
                strict,
            },
        ) {
            Ok(checked) => {
                report(&checked.warnings, &checked.sources);
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
        },
        cli::Command::Schema => {
            print!("{}", errata::load::front_matter::json_schema());
            Ok(ExitCode::SUCCESS)
        }
        cli::Command::Serve {
            root,
            drafts,
            port,
            bind,
            open,
        } => {
            keep_freed_memory();
            errata::serve::serve(errata::serve::ServeOptions {
                root,
                bind,
                port,
                open,
                drafts,
            })?;
            Ok(ExitCode::SUCCESS)
        }
        cli::Command::Search {
            query,
            index,
            limit,
        } => {
            let query = if query == "-" { read_stdin()? } else { query };
            let searcher = index::open(&index.root, index.bundle.as_deref())?;
            let answer = searcher
                .answer(&query, limit)
                .map_err(|e| anyhow::anyhow!("the search bundle: {e}"))?;
            let hits = &answer.hits;
            if index.json {
                println!("{}", serde_json::to_string_pretty(&answer)?);
            } else {
                print!("{}", errata::terminal::hits(hits));
                if answer.partial {
                    eprintln!(
                        "note: this bundle is the first-search shard (signatures, titles and tags, ranked without matched signatures); search/errata.bundle is the full index"
                    );
                }
            }
            Ok(if hits.is_empty() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            })
        }
        cli::Command::Diagnose { file, index } => {
            let log = match file.as_deref() {
                None => read_stdin()?,
                Some(p) if p.as_os_str() == "-" => read_stdin()?,
                Some(p) => {
                    let bytes = std::fs::read(p)
                        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", p.display()))?;
                    String::from_utf8_lossy(&bytes).into_owned()
                }
            };
            let searcher = index::open(&index.root, index.bundle.as_deref())?;
            let diagnosis = errata_search::diagnose(&searcher, &log)
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
        cli::Command::New {
            root,
            title,
            category,
            slug,
            severity,
            kind,
        } => {
            let date = chrono::Local::now().date_naive().to_string();
            let path = errata::new::new_entry(&errata::new::NewOptions {
                root,
                title,
                category,
                slug,
                severity,
                kind,
                date,
            })?;
            println!("{}", path.display());
            eprintln!(
                "wrote {}; it is a draft until you set `draft: false`",
                path.display()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Prints problems and picks the exit code for a failed pipeline.
fn failed(error: PipelineError) -> anyhow::Result<ExitCode> {
    match error {
        PipelineError::Content { problems, sources } => {
            report(&problems, &sources);
            let errors = problems
                .iter()
                .filter(|p| p.level == diagnostic::Level::Error)
                .count();
            eprintln!("error: {errors} problem(s) found; nothing was written");
            Ok(ExitCode::from(1))
        }
        PipelineError::Load(LoadError::BadConfig { problem, sources }) => {
            report(&[problem], &sources);
            Ok(ExitCode::from(1))
        }
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

fn report(problems: &[Problem], sources: &Sources) {
    let github = std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true");
    for problem in problems {
        eprint!("{}", diagnostic::render(problem, sources));
        if github {
            println!("{}", diagnostic::github_annotation(problem));
        }
    }
}

fn read_stdin() -> anyhow::Result<String> {
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn interactive() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("CI").is_none()
}
