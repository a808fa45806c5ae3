//! Integration tests: the real `errata` binary run on one small fixture site per case.
//!
//! Every case has a folder under `tests/fixtures/<case>/` (an `errata.yaml` and `content/`).
//! A test copies its fixture into a fresh temp dir, so no output ever lands in the repository,
//! runs the binary there with `--root` (and `--output` where the path matters), and checks the
//! exit code, the messages on stderr (and stdout for CI annotations) and the files written.
//!
//! Groups: `valid_site` (what a good build writes), `content_errors` (one fixture per kind of
//! bad input: exit 1, `file:line:col: message`, nothing written), `safety` (raw HTML and script
//! links), `output` (determinism, atomic replacement, refusing foreign folders), `ci` (GitHub
//! Actions annotations), `new_command`, `usage`, and `search` (search, diagnose and the bundle on
//! the real content).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const ERRATA: &str = env!("CARGO_BIN_EXE_errata");

#[path = "site/cuda_wording.rs"]
mod cuda_wording;
#[path = "site/diagnosis.rs"]
mod diagnosis;
#[path = "site/faults.rs"]
mod faults;
#[path = "site/first_search.rs"]
mod first_search;
#[path = "site/incremental.rs"]
mod incremental;
#[path = "site/memory.rs"]
mod memory;
#[path = "site/outcomes.rs"]
mod outcomes;
#[path = "site/run.rs"]
mod run;
#[path = "site/search.rs"]
mod search;
#[path = "site/serve.rs"]
mod serve;
#[path = "site/skim.rs"]
mod skim;
#[path = "site/watch.rs"]
mod watch;

// ---------------------------------------------------------------------------------------------
// Harness

/// The outcome of one run of the binary.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn assert_exit(&self, code: i32) -> &Run {
        assert_eq!(self.code, Some(code), "expected exit code {code}\n{self}");
        self
    }

    fn stderr_has(&self, needle: &str) -> &Run {
        assert!(
            self.stderr.contains(needle),
            "stderr lacks {needle:?}\n{self}"
        );
        self
    }

    fn stdout_has(&self, needle: &str) -> &Run {
        assert!(
            self.stdout.contains(needle),
            "stdout lacks {needle:?}\n{self}"
        );
        self
    }
}

impl fmt::Display for Run {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "exit code: {:?}\n----- stdout -----\n{}\n----- stderr -----\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

fn run(mut command: Command) -> Run {
    let out = command.output().expect("cannot run the errata binary");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The binary, run from `dir`, isolated from the CI environment the tests themselves run in.
fn errata_in(dir: &Path) -> Command {
    let mut command = Command::new(ERRATA);
    command
        .current_dir(dir)
        .env_remove("GITHUB_ACTIONS")
        .env("NO_COLOR", "1");
    command
}

/// A fixture copied into a temp dir: the site is `<tmp>/site`; `<tmp>` holds other outputs.
struct Site {
    tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Site {
    fn new(case: &str) -> Site {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(case);
        assert!(
            fixture.join("errata.yaml").is_file(),
            "fixture {} has no errata.yaml",
            fixture.display()
        );
        let tmp = tempfile::tempdir().expect("cannot create a temp dir");
        let root = tmp.path().join("site");
        copy_dir(&fixture, &root);
        Site { tmp, root }
    }

    /// A path inside the site.
    fn file(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// A path beside the site, in the same temp dir.
    fn outside(&self, name: &str) -> PathBuf {
        self.tmp.path().join(name)
    }

    /// The default output folder.
    fn public(&self) -> PathBuf {
        self.root.join("public")
    }

    /// `errata <subcommand> --root <site>`, ready for more arguments.
    fn errata(&self, subcommand: &str) -> Command {
        let mut command = errata_in(self.tmp.path());
        command.arg(subcommand).arg("--root").arg(&self.root);
        command
    }

    fn build(&self) -> Run {
        run(self.errata("build"))
    }

    fn build_into(&self, output: &Path) -> Run {
        let mut command = self.errata("build");
        command.arg("--output").arg(output);
        run(command)
    }

    fn check(&self) -> Run {
        run(self.errata("check"))
    }
}

/// Copies a fixture folder; skips `public/` in case someone built inside the fixture.
fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap_or_else(|e| panic!("create {}: {e}", to.display()));
    for item in fs::read_dir(from).unwrap_or_else(|e| panic!("read {}: {e}", from.display())) {
        let item = item.expect("directory entry");
        let target = to.join(item.file_name());
        let kind = item.file_type().expect("file type");
        if kind.is_dir() {
            if item.file_name() != "public" {
                copy_dir(&item.path(), &target);
            }
        } else {
            fs::copy(item.path(), &target)
                .unwrap_or_else(|e| panic!("copy {}: {e}", item.path().display()));
        }
    }
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Every file under `dir`, by its `/`-separated path relative to `dir`, with its bytes.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for item in fs::read_dir(dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display())) {
            let path = item.expect("directory entry").path();
            if path.is_dir() {
                walk(base, &path, out);
            } else {
                let rel = path.strip_prefix(base).expect("inside base");
                let rel = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                out.insert(
                    rel,
                    fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display())),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn assert_same_tree(a: &BTreeMap<String, Vec<u8>>, b: &BTreeMap<String, Vec<u8>>) {
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "the file lists differ"
    );
    for (path, bytes) in a {
        assert!(bytes == &b[path], "{path} differs");
    }
}

/// Temporary or old folders of a build of `<parent>/<name>` left behind.
fn leftovers(parent: &Path, name: &str) -> Vec<String> {
    let prefixes = [format!(".{name}.tmp-"), format!(".{name}.old-")];
    fs::read_dir(parent)
        .unwrap_or_else(|e| panic!("read {}: {e}", parent.display()))
        .map(|i| {
            i.expect("directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| prefixes.iter().any(|p| n.starts_with(p.as_str())))
        .collect()
}

/// The part of `text` from `start` to the first `end` after it (both excluded).
fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let from = text
        .find(start)
        .unwrap_or_else(|| panic!("{start:?} not found in:\n{text}"))
        + start.len();
    let len = text[from..]
        .find(end)
        .unwrap_or_else(|| panic!("{end:?} not found after {start:?}"));
    &text[from..from + len]
}

/// Undoes the HTML escaping Tera applies to attribute values (it writes `/` as `&#x2F;`).
fn decode_entities(s: &str) -> String {
    s.replace("&#x2F;", "/")
        .replace("&#x27;", "'")
        .replace("&#39;", "'")
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// The decoded values of every `attr="..."` in an HTML text.
fn attribute_values(html: &str, attr: &str) -> Vec<String> {
    let needle = format!(" {attr}=\"");
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find(&needle) {
        let after = &rest[i + needle.len()..];
        let end = after.find('"').expect("unterminated attribute");
        out.push(decode_entities(&after[..end]));
        rest = &after[end..];
    }
    out
}

fn hrefs(html: &str) -> Vec<String> {
    attribute_values(html, "href")
}

/// The inside of every `<...>` in an HTML text (tags, not text: escaped text has no `<`).
fn tags_in(html: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        let after = &rest[i + 1..];
        let end = after.find('>').unwrap_or(after.len());
        out.push(&after[..end]);
        rest = &after[end..];
    }
    out
}

/// The file a relative link on the page `page` (a path under `public`) points at.
fn resolve(public: &Path, page: &str, href: &str) -> PathBuf {
    let mut parts: Vec<&str> = page.split('/').collect();
    parts.pop();
    for segment in href.split('/') {
        match segment {
            "" | "." => {}
            ".." => assert!(
                parts.pop().is_some(),
                "link {href:?} on {page} leaves the site"
            ),
            s => parts.push(s),
        }
    }
    let path = public.join(parts.join("/"));
    if href.ends_with('/') || path.is_dir() {
        path.join("index.html")
    } else {
        path
    }
}

/// Checks that a small XML document is well formed as far as tags go (every element closed, in
/// order, one root) and returns the root element's name. No XML crate is available.
fn xml_root(xml: &str) -> String {
    assert!(
        xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"),
        "no XML declaration:\n{xml}"
    );
    let mut stack: Vec<String> = Vec::new();
    let mut root: Option<String> = None;
    for tag in tags_in(xml) {
        if tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack
                .pop()
                .unwrap_or_else(|| panic!("</{name}> closes nothing"));
            assert_eq!(open, name.trim(), "mismatched tags");
            continue;
        }
        let name = tag
            .trim_end_matches('/')
            .split_whitespace()
            .next()
            .expect("tag name")
            .to_owned();
        if stack.is_empty() {
            assert!(root.is_none(), "a second root element <{name}>");
            root = Some(name.clone());
        }
        if !tag.ends_with('/') {
            stack.push(name);
        }
    }
    assert!(stack.is_empty(), "unclosed elements: {stack:?}");
    assert!(xml.trim_end().ends_with('>'), "text after the root element");
    root.expect("no root element")
}

// ---------------------------------------------------------------------------------------------
// A good site

#[path = "site/valid_site.rs"]
mod valid_site;

// ---------------------------------------------------------------------------------------------
// Bad input: exit 1, `error: file:line:col: message` on stderr, nothing written

#[path = "site/content_errors.rs"]
mod content_errors;

// ---------------------------------------------------------------------------------------------
// Raw HTML and script links in Markdown

#[path = "site/safety.rs"]
mod safety;

// ---------------------------------------------------------------------------------------------
// The output folder: deterministic, replaced whole, never someone else's

#[path = "site/output.rs"]
mod output;

#[path = "site/cached.rs"]
mod cached;

// ---------------------------------------------------------------------------------------------
// CI

#[path = "site/ci.rs"]
mod ci;

// ---------------------------------------------------------------------------------------------
// errata new

#[path = "site/new_command.rs"]
mod new_command;

// ---------------------------------------------------------------------------------------------
// The command line itself

#[path = "site/usage.rs"]
mod usage;

// ---------------------------------------------------------------------------------------------
#[path = "site/warnings.rs"]
mod warnings;

// ---------------------------------------------------------------------------------------------
#[path = "site/schema.rs"]
mod schema;

// ---------------------------------------------------------------------------------------------
// Hostile content: file names, case clashes, symlinks. Each case starts from the valid site and
// adds one file the test writes itself.
#[path = "site/hostile.rs"]
mod hostile;
