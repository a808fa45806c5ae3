//! Telling people about a failure `errata run` or `errata watch` saw.
//!
//! Takes the diagnosis of the log read so far; prints it as `errata diagnose` does (on
//! stderr, after the child's own output), with each entry linked to its page; writes it as
//! JSON to a file when asked; under GitHub Actions prints an `::error` annotation; and hands
//! the JSON to the user's `--on-failure` command.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use errata_search::diagnose::{Diagnosis, Outcome};
use serde::Serialize;

use crate::index::Pages;

/// Where a failure is told, besides stderr.
#[derive(Debug, Clone, Default)]
pub struct Hooks {
    /// Write the diagnosis here as JSON.
    pub json: Option<PathBuf>,
    /// Run this with `sh -c`, the JSON on its stdin.
    pub on_failure: Option<String>,
    /// The site's address for links, over errata.yaml's `base_url`.
    pub site_url: Option<String>,
}

/// What failed: a command and its exit status, or a log being watched.
#[derive(Debug, Clone, Serialize)]
pub struct Origin {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
}

/// The JSON told: `errata diagnose --json`'s fields, the page of the entry named (for a
/// diagnosis), and the origin.
#[derive(Serialize)]
struct Told<'a> {
    #[serde(flatten)]
    diagnosis: &'a Diagnosis,
    page: Option<String>,
    #[serde(flatten)]
    origin: &'a Origin,
}

/// One failure, told everywhere the user asked. `heading` opens the human report
/// ("`python train.py` exited with status 1").
pub fn tell(
    heading: &str,
    diagnosis: &Diagnosis,
    origin: &Origin,
    pages: &Pages,
    hooks: &Hooks,
) -> io::Result<()> {
    let page = (diagnosis.outcome == Outcome::Diagnosis)
        .then(|| diagnosis.entries.first().map(|e| pages.link(&e.url)))
        .flatten();
    let json = serde_json::to_string_pretty(&Told {
        diagnosis,
        page: page.clone(),
        origin,
    })?;
    let mut linked = diagnosis.clone();
    pages.link_all(&mut linked);
    let _ = write!(
        io::stderr().lock(),
        "\nerrata: {heading}\n{}",
        errata::terminal::diagnosis(&linked)
    );
    if std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true") {
        println!("{}", annotation(&linked, page.as_deref()));
    }
    if let Some(path) = &hooks.json {
        write_json(path, &json)?;
    }
    if let Some(command) = &hooks.on_failure {
        on_failure(command, &json);
    }
    Ok(())
}

fn write_json(path: &Path, json: &str) -> io::Result<()> {
    std::fs::write(path, format!("{json}\n"))
        .map_err(|e| io::Error::new(e.kind(), format!("cannot write {}: {e}", path.display())))
}

/// A GitHub Actions `::error` workflow command: the entry's title and page, or what was found.
fn annotation(d: &Diagnosis, page: Option<&str>) -> String {
    let title = match (d.outcome, d.entries.first()) {
        (Outcome::Diagnosis, Some(e)) => format!("errata: {}", e.title),
        (Outcome::Possible, Some(e)) => format!("errata: possibly {}", e.title),
        _ => "errata: no entry explains this failure".to_owned(),
    };
    let mut message = d.message.clone();
    if let Some(first) = &d.first_failure {
        message.push_str(&format!(
            "\nfirst failing line {}: {}",
            first.line, first.text
        ));
    }
    if let Some(page) = page {
        message.push_str(&format!("\n{page}"));
    }
    format!(
        "::error title={}::{}",
        escape_property(&title),
        escape_data(&message)
    )
}

/// GitHub's escaping of a workflow command's message.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// GitHub's escaping of a workflow command's property value.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// Runs the user's command with the JSON on its stdin; its failure is reported, not fatal.
fn on_failure(command: &str, json: &str) {
    let run = || -> io::Result<std::process::ExitStatus> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .spawn()?;
        if let Some(mut stdin) = child.stdin.take() {
            // A command that does not read its stdin closes it early: not an error.
            let _ = stdin.write_all(json.as_bytes());
        }
        child.wait()
    };
    match run() {
        Ok(status) if status.success() => {}
        Ok(status) => eprintln!("errata: --on-failure command {status}"),
        Err(e) => eprintln!("errata: cannot run the --on-failure command: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workflow_commands_are_escaped() {
        assert_eq!(escape_data("50%\r\nnext"), "50%25%0D%0Anext");
        assert_eq!(escape_property("a: b, c"), "a%3A b%2C c");
    }
}
