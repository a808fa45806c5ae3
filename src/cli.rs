//! The command line, with clap's derive API. No clap type leaves this file: [`parse`] turns
//! the arguments into a [`Command`] holding the library's own option structs
//! ([`BuildOptions`], [`CheckOptions`], [`ServeOptions`], [`NewOptions`]) for `main` to run.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

use std::io::IsTerminal;

use errata::load::{Kind, Severity};
use errata::new::NewOptions;
use errata::pipeline::{BuildOptions, CheckOptions};
use errata::serve::ServeOptions;

use crate::index::Index;
use crate::run::report::Hooks;
use crate::run::watch::WatchOptions;
use crate::run::RunOptions;

#[derive(Parser)]
#[command(name = "errata", version, about = "Build and search an encyclopedia of ML-training failures", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: CliCommand,
}

#[derive(Subcommand)]
enum CliCommand {
    /// Load, check, link and render the site into the output folder (atomically)
    Build {
        #[command(flatten)]
        site: SiteArgs,
        /// Output folder [default: <root>/public]
        #[arg(long, short)]
        output: Option<PathBuf>,
        /// Override `base_url` from errata.yaml (e.g. https://example.org/errata/)
        #[arg(long, value_parser = web_url)]
        base_url: Option<String>,
        /// A folder kept between builds (a CI cache, with the output): render and write only
        /// what changed since the build that left it
        #[arg(long, value_name = "DIR")]
        cache: Option<PathBuf>,
    },
    /// Everything `build` does except writing: report every problem and exit 1 if any
    Check {
        #[command(flatten)]
        site: SiteArgs,
    },
    /// Build in memory, serve on loopback, rebuild on change and reload the open tab
    Serve {
        #[command(flatten)]
        site: SiteArgs,
        /// The port (0 picks a free one)
        #[arg(long, short, default_value_t = 1111)]
        port: u16,
        /// The address to listen on; other than loopback exposes the preview to the network
        #[arg(long, default_value = "127.0.0.1")]
        bind: std::net::IpAddr,
        /// Open the site in the default browser
        #[arg(long)]
        open: bool,
        /// Also answer requests for this host name (repeatable; `.example.org` allows the
        /// names under it). Only localhost and IP addresses are answered otherwise, against
        /// DNS rebinding
        #[arg(long = "allow-host", value_name = "NAME")]
        allow_host: Vec<String>,
    },
    /// Rank the entries for an error message (any text is a valid query)
    Search {
        /// The error text, e.g. "torch.OutOfMemoryError: CUDA out of memory"; `-` reads stdin
        query: String,
        #[command(flatten)]
        index: IndexArgs,
        /// How many entries to show
        #[arg(long, short = 'n', default_value_t = 5)]
        limit: usize,
    },
    /// Read a whole training log and name the failure, with the lines that prove it
    Diagnose {
        /// The log file; `-` or nothing reads stdin
        file: Option<PathBuf>,
        #[command(flatten)]
        index: IndexArgs,
    },
    /// Run a training command, pass its output through, and diagnose it if it fails
    ///
    /// e.g. `errata run -- torchrun --nproc-per-node 8 train.py`. Exits with COMMAND's own
    /// status (128 + the signal for a signal); a run that succeeds prints nothing of errata's.
    Run {
        #[command(flatten)]
        hooks: HookArgs,
        /// Seconds COMMAND has to end after errata passes it SIGINT, SIGTERM or SIGHUP,
        /// before its whole process group gets SIGKILL
        #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
        kill_after: f64,
        /// The command and its arguments
        #[arg(
            required = true,
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "COMMAND"
        )]
        command: Vec<std::ffi::OsString>,
    },
    /// Follow a log another process writes (as `tail -F`) and tell each failure it shows once
    Watch {
        /// The log file; it may not exist yet, and may be rotated or truncated
        file: PathBuf,
        #[command(flatten)]
        hooks: HookArgs,
        /// Exit 1 at the first failure told
        #[arg(long)]
        exit_on_failure: bool,
        /// How often to look at the file, in seconds
        #[arg(long, default_value_t = 0.2, value_name = "SECONDS")]
        interval: f64,
    },
    /// Print the JSON Schema of the front matter (for editors; a copy lives in content/)
    Schema,
    /// Write a new entry with every front-matter key present and commented
    New {
        /// The entry's title, e.g. "NCCL Watchdog Timeout"
        title: String,
        /// A key of `categories` in errata.yaml
        #[arg(long, short)]
        category: String,
        /// The URL name [default: the title in kebab-case]
        #[arg(long)]
        slug: Option<String>,
        #[arg(long, value_enum, default_value_t = SeverityArg::Medium)]
        severity: SeverityArg,
        #[arg(long, value_enum, default_value_t = KindArg::Failure)]
        kind: KindArg,
        /// The site folder (holding errata.yaml)
        #[arg(long, default_value = ".")]
        root: PathBuf,
    },
}

#[derive(clap::Args)]
struct SiteArgs {
    /// The site folder (holding errata.yaml and content/)
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// Include entries marked `draft: true`
    #[arg(long)]
    drafts: bool,
    /// Treat warnings as errors
    #[arg(long)]
    strict: bool,
}

#[derive(clap::Args)]
struct IndexArgs {
    /// The site folder; its built bundle is used when fresh, else content/ is indexed in memory
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// Use this search bundle instead (e.g. public/search/errata.bundle)
    #[arg(long)]
    bundle: Option<PathBuf>,
    /// Print JSON for tools instead of text
    #[arg(long)]
    json: bool,
}

/// Where `run` and `watch` find the index, and where they tell a failure.
#[derive(clap::Args)]
struct HookArgs {
    /// The site folder; its built bundle is used when fresh, else content/ is indexed in memory
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// Use this search bundle instead (e.g. a copy of the site's search/errata.bundle)
    #[arg(long)]
    bundle: Option<PathBuf>,
    /// Link entries under this address [default: errata.yaml's base_url, else the built page]
    #[arg(long, value_parser = web_url, value_name = "URL")]
    site_url: Option<String>,
    /// On a failure, write the diagnosis as JSON (`errata diagnose --json`'s fields, plus the
    /// page, the command and its status) to FILE; a run that succeeds removes FILE
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// On a failure, run CMD with `sh -c`, the diagnosis JSON on its stdin
    #[arg(long, value_name = "CMD")]
    on_failure: Option<String>,
}

impl HookArgs {
    fn split(self) -> (Index, Hooks) {
        let index = Index {
            root: self.root,
            bundle: self.bundle,
            json: false,
        };
        let hooks = Hooks {
            json: self.json,
            on_failure: self.on_failure,
            site_url: self.site_url,
        };
        (index, hooks)
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum SeverityArg {
    Low,
    Medium,
    High,
    Critical,
}

#[derive(Clone, Copy, ValueEnum)]
enum KindArg {
    Failure,
    Guide,
}

impl From<SeverityArg> for Severity {
    fn from(arg: SeverityArg) -> Severity {
        match arg {
            SeverityArg::Low => Severity::Low,
            SeverityArg::Medium => Severity::Medium,
            SeverityArg::High => Severity::High,
            SeverityArg::Critical => Severity::Critical,
        }
    }
}

impl From<KindArg> for Kind {
    fn from(arg: KindArg) -> Kind {
        match arg {
            KindArg::Failure => Kind::Failure,
            KindArg::Guide => Kind::Guide,
        }
    }
}

/// What the user asked for, in the library's terms.
pub enum Command {
    Build(BuildOptions),
    Check {
        root: PathBuf,
        options: CheckOptions,
    },
    New(NewOptions),
    Search {
        query: String,
        index: Index,
        limit: usize,
    },
    Serve(ServeOptions),
    Diagnose {
        file: Option<PathBuf>,
        index: Index,
    },
    Schema,
    Run(RunOptions),
    Watch(WatchOptions),
}

impl From<IndexArgs> for Index {
    fn from(args: IndexArgs) -> Index {
        Index {
            root: args.root,
            bundle: args.bundle,
            json: args.json,
        }
    }
}

/// A progress bar only for a person at a terminal, never in CI.
fn interactive() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("CI").is_none()
}

fn build_options(
    site: SiteArgs,
    output: Option<PathBuf>,
    base_url: Option<String>,
    cache: Option<PathBuf>,
) -> BuildOptions {
    BuildOptions {
        root: site.root,
        output,
        base_url,
        cache,
        drafts: site.drafts,
        strict: site.strict,
        progress: interactive(),
    }
}

pub fn parse() -> Command {
    match Cli::parse().command {
        CliCommand::Build {
            site,
            output,
            base_url,
            cache,
        } => Command::Build(build_options(site, output, base_url, cache)),
        CliCommand::Check { site } => Command::Check {
            root: site.root,
            options: CheckOptions {
                drafts: site.drafts,
                base_url: None,
                strict: site.strict,
            },
        },
        CliCommand::Serve {
            site,
            port,
            bind,
            open,
            allow_host,
        } => Command::Serve(ServeOptions {
            root: site.root,
            bind,
            port,
            open,
            drafts: site.drafts,
            allowed_hosts: allow_host,
        }),
        CliCommand::Search {
            query,
            index,
            limit,
        } => Command::Search {
            query,
            index: index.into(),
            limit,
        },
        CliCommand::Schema => Command::Schema,
        CliCommand::Run {
            hooks,
            kill_after,
            command,
        } => run_command(hooks, kill_after, command),
        CliCommand::Watch {
            file,
            hooks,
            exit_on_failure,
            interval,
        } => watch_command(file, hooks, exit_on_failure, interval),
        CliCommand::Diagnose { file, index } => Command::Diagnose {
            file,
            index: index.into(),
        },
        CliCommand::New {
            title,
            category,
            slug,
            severity,
            kind,
            root,
        } => Command::New(NewOptions {
            root,
            title,
            category,
            slug,
            severity: severity.into(),
            kind: kind.into(),
            date: chrono::Local::now().date_naive().to_string(),
        }),
    }
}

fn run_command(hooks: HookArgs, kill_after: f64, command: Vec<std::ffi::OsString>) -> Command {
    let (index, hooks) = hooks.split();
    Command::Run(RunOptions {
        command,
        index,
        hooks,
        kill_after: Duration::from_secs_f64(kill_after.max(0.0)),
    })
}

fn watch_command(file: PathBuf, hooks: HookArgs, exit_on_failure: bool, interval: f64) -> Command {
    let (index, hooks) = hooks.split();
    Command::Watch(WatchOptions {
        file,
        index,
        hooks,
        exit_on_failure,
        interval: Duration::from_secs_f64(interval.clamp(0.01, 60.0)),
    })
}

/// `--base-url` goes into every page's links: only an http(s) URL.
fn web_url(value: &str) -> Result<String, String> {
    if errata::load::config::is_web_url(value) {
        Ok(value.to_owned())
    } else {
        Err("an http(s) URL, e.g. https://example.org/errata/".into())
    }
}
