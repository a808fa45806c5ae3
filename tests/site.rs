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

#[path = "site/diagnosis.rs"]
mod diagnosis;
#[path = "site/faults.rs"]
mod faults;
#[path = "site/incremental.rs"]
mod incremental;
#[path = "site/search.rs"]
mod search;
#[path = "site/serve.rs"]
mod serve;

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

mod valid_site {
    use super::*;

    /// valid-site's published entries: (category, slug, title). Its draft is not among them.
    const ENTRIES: [(&str, &str, &str); 4] = [
        ("memory", "activation-spike", "Activation Memory Spike"),
        (
            "memory",
            "quadratic-attention",
            "Quadratic Attention Memory",
        ),
        ("distributed", "nccl-timeout", "NCCL Watchdog Timeout"),
        (
            "distributed",
            "nccl-debug-guide",
            "Reading NCCL Debug Output",
        ),
    ];
    const BASE: &str = "https://errata.example/";
    const SPIKE: &str = "memory/activation-spike/index.html";

    /// Builds valid-site into its default output, `<root>/public`.
    fn built() -> (Site, PathBuf) {
        let site = Site::new("valid-site");
        site.build().assert_exit(0).stderr_has("built 4 entries");
        let public = site.public();
        (site, public)
    }

    fn entry_body(html: &str) -> &str {
        between(
            html,
            "<div class=\"prose entry-body\">",
            "aria-labelledby=\"faq\"",
        )
    }

    #[test]
    fn writes_every_page_and_feed() {
        let (_site, public) = built();
        let mut expected: Vec<String> = ENTRIES
            .iter()
            .map(|(c, s, _)| format!("{c}/{s}/index.html"))
            .collect();
        expected.extend(
            [
                "memory/index.html",
                "distributed/index.html",
                "tags/index.html",
                "tags/activation-memory/index.html",
                "failures/index.html",
                "index.html",
                "404.html",
                "search/index.html",
                "sitemap.xml",
                "atom.xml",
                "robots.txt",
                "opensearch.xml",
                "entries.json",
                "static/style.css",
                "static/highlight.css",
            ]
            .map(String::from),
        );
        for rel in &expected {
            let path = public.join(rel);
            assert!(path.is_file(), "{rel} was not written");
            assert!(
                fs::metadata(&path).expect("metadata").len() > 0,
                "{rel} is empty"
            );
        }
        assert!(
            public.join(".errata-output").is_file(),
            "the output marker is missing"
        );
        assert!(
            !public.join("memory/draft-entry").exists(),
            "a draft was built without --drafts"
        );
        assert!(
            read(&public.join("static/highlight.css")).contains(".hl-"),
            "highlight.css has no hl- rules"
        );
        assert!(read(&public.join("404.html")).contains("Page not found"));
        assert!(read(&public.join("search/index.html")).contains("class=\"search-form\""));
        let home = read(&public.join("index.html"));
        assert!(home.contains("Fixture Errata"));
        assert!(
            home.contains("class=\"search-form\""),
            "the home page has no search box"
        );
    }

    #[test]
    fn tags_written_differently_are_one_tag() {
        let (_site, public) = built();
        let tag_dirs: Vec<String> = fs::read_dir(public.join("tags"))
            .expect("tags folder")
            .map(|i| i.expect("entry").file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("activation"))
            .collect();
        assert_eq!(
            tag_dirs,
            ["activation-memory"],
            "`Activation Memory` and `activation_memory` should be one tag"
        );
        let tag_page = hrefs(&read(&public.join("tags/activation-memory/index.html")));
        for slug in ["activation-spike", "quadratic-attention"] {
            let href = format!("../../memory/{slug}/");
            assert!(
                tag_page.contains(&href),
                "the tag page does not list {slug}: {tag_page:?}"
            );
        }
        let index = hrefs(&read(&public.join("tags/index.html")));
        let links: Vec<&String> = index.iter().filter(|h| h.contains("activation")).collect();
        assert_eq!(
            links,
            ["../tags/activation-memory/"],
            "tags/index.html should list the tag once"
        );
    }

    #[test]
    fn internal_link_becomes_a_relative_href() {
        let (_site, public) = built();
        let html = read(&public.join(SPIKE));
        let link = "<a class=\"entry-link\" href=\"../../memory/quadratic-attention/\">the quadratic attention entry</a>";
        assert!(
            entry_body(&html).contains(link),
            "no rewritten `@/` link in:\n{}",
            entry_body(&html)
        );
        assert!(
            !html.contains("@/quadratic-attention"),
            "the `@/` target leaked into the page"
        );
        assert_eq!(
            resolve(&public, SPIKE, "../../memory/quadratic-attention/"),
            public.join("memory/quadratic-attention/index.html")
        );
        assert!(public
            .join("memory/quadratic-attention/index.html")
            .is_file());
    }

    #[test]
    fn hashtag_in_body_links_to_the_tag_page() {
        let (_site, public) = built();
        let html = read(&public.join(SPIKE));
        let link = "<a class=\"tag-link\" href=\"../../tags/attention/\">#attention</a>";
        assert!(
            entry_body(&html).contains(link),
            "no tag link in:\n{}",
            entry_body(&html)
        );
        assert!(resolve(&public, SPIKE, "../../tags/attention/").is_file());
    }

    #[test]
    fn entry_page_has_its_sections() {
        let (_site, public) = built();
        let html = read(&public.join(SPIKE));
        let body = entry_body(&html);

        // Related: the explicit `related:` first, then the entry sharing a tag.
        let related = hrefs(between(&html, "aria-labelledby=\"related\"", "</section>"));
        let explicit = related
            .iter()
            .position(|h| h == "../../distributed/nccl-timeout/");
        let by_tag = related
            .iter()
            .position(|h| h == "../../memory/quadratic-attention/");
        assert!(
            explicit.is_some(),
            "the related entry is missing: {related:?}"
        );
        assert!(
            by_tag.is_some(),
            "the entry sharing a tag is missing: {related:?}"
        );
        assert!(
            explicit < by_tag,
            "explicit related entries come first: {related:?}"
        );
        assert!(between(&html, "aria-labelledby=\"related\"", "</section>")
            .contains("NCCL Watchdog Timeout"));

        // Code highlighted at build time, a table, the front-matter sections.
        let code = between(
            body,
            "<pre class=\"highlight\" data-lang=\"python\"><code>",
            "</code></pre>",
        );
        assert!(
            code.contains("class=\"hl-"),
            "the python block is not highlighted:\n{code}"
        );
        assert!(
            body.contains("<table>") && body.contains("30 GiB"),
            "the table is missing:\n{body}"
        );
        assert!(html.contains("<h1 id=\"entry-title\">Activation Memory Spike</h1>"));
        assert!(
            html.contains("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate"),
            "the signature is missing"
        );
        let origin = between(&html, "<p class=\"signature-origin\">", "</p>");
        assert_eq!(
            origin,
            "Raised in <a href=\"https://github.com/pytorch/pytorch/blob/v2.5.0/c10/cuda/CUDACachingAllocator.cpp\" rel=\"nofollow noopener\">c10/cuda/CUDACachingAllocator.cpp</a>, PyTorch 2.1 and later."
        );
        assert!(
            html.contains("<code>model.gradient_checkpointing_enable()</code>"),
            "the fix is not rendered as Markdown"
        );
        assert!(
            html.contains("Peak memory is far above the weights and optimizer state."),
            "the symptom table is missing"
        );

        // FAQPage JSON-LD that parses.
        let json = between(&html, "<script type=\"application/ld+json\">", "</script>");
        let ld: serde_json::Value = serde_json::from_str(json)
            .unwrap_or_else(|e| panic!("JSON-LD does not parse: {e}\n{json}"));
        assert_eq!(ld["@type"], "FAQPage");
        assert_eq!(ld["@context"], "https://schema.org");
        let questions = ld["mainEntity"].as_array().expect("mainEntity is a list");
        assert!(!questions.is_empty());
        assert_eq!(questions[0]["name"], "What is Activation Memory Spike?");

        // Canonical URL, edit link, breadcrumbs.
        let links = hrefs(&html);
        assert!(
            links.contains(&format!("{BASE}memory/activation-spike/")),
            "no canonical link: {links:?}"
        );
        assert!(links.contains(&"https://github.com/example/errata-fixture/edit/main/content/memory/activation-spike.md".to_owned()));
        let crumbs = hrefs(between(&html, "aria-label=\"Breadcrumb\"", "</nav>"));
        assert!(
            crumbs.contains(&"../../memory/".to_owned()),
            "no breadcrumb to the category: {crumbs:?}"
        );
    }

    #[test]
    fn list_pages_list_their_entries() {
        let (_site, public) = built();
        let all = hrefs(&read(&public.join("failures/index.html")));
        for (category, slug, _) in ENTRIES {
            let href = format!("../{category}/{slug}/");
            assert!(all.contains(&href), "failures/ does not list {slug}");
        }
        let memory = hrefs(&read(&public.join("memory/index.html")));
        assert!(memory.contains(&"../memory/activation-spike/".to_owned()));
        assert!(memory.contains(&"../memory/quadratic-attention/".to_owned()));
        assert!(
            !memory
                .iter()
                .any(|h| h.contains("nccl") || h.contains("draft-entry")),
            "memory/ lists others: {memory:?}"
        );
        let distributed = hrefs(&read(&public.join("distributed/index.html")));
        assert!(distributed.contains(&"../distributed/nccl-timeout/".to_owned()));
        assert!(distributed.contains(&"../distributed/nccl-debug-guide/".to_owned()));
        let home = hrefs(&read(&public.join("index.html")));
        assert!(
            home.iter().any(|h| h.ends_with("memory/activation-spike/")),
            "the home page has no recent entries: {home:?}"
        );
    }

    #[test]
    fn every_relative_link_resolves() {
        let (_site, public) = built();
        let mut broken = Vec::new();
        for (page, bytes) in tree(&public)
            .into_iter()
            .filter(|(p, _)| p.ends_with(".html"))
        {
            let html = String::from_utf8(bytes).expect("pages are UTF-8");
            for link in hrefs(&html)
                .into_iter()
                .chain(attribute_values(&html, "src"))
            {
                let target = link.split(['#', '?']).next().unwrap_or_default();
                if target.is_empty()
                    || target.contains("://")
                    || target.starts_with('/')
                    || target.starts_with("mailto:")
                {
                    continue;
                }
                if !resolve(&public, &page, target).is_file() {
                    broken.push(format!("{page}: {link}"));
                }
            }
        }
        assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    }

    #[test]
    fn sitemap_lists_every_page() {
        let (_site, public) = built();
        let sitemap = read(&public.join("sitemap.xml"));
        assert_eq!(xml_root(&sitemap), "urlset");
        assert!(sitemap.contains("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"));
        for (category, slug, _) in ENTRIES {
            let loc = format!("<loc>{BASE}{category}/{slug}/</loc>");
            assert!(sitemap.contains(&loc), "the sitemap lacks {loc}");
        }
        for page in [
            "",
            "failures/",
            "memory/",
            "distributed/",
            "tags/",
            "tags/activation-memory/",
            "search/",
        ] {
            assert!(
                sitemap.contains(&format!("<loc>{BASE}{page}</loc>")),
                "the sitemap lacks {page:?}"
            );
        }
        assert!(sitemap.contains("<loc>https://errata.example/memory/activation-spike/</loc><lastmod>2026-11-01</lastmod>"));
        assert!(
            !sitemap.contains("draft-entry"),
            "the sitemap lists a draft"
        );
        assert!(
            !sitemap.contains("404.html"),
            "the sitemap lists the 404 page"
        );
        // Every location is a page that was written.
        for loc in sitemap
            .split("<loc>")
            .skip(1)
            .map(|s| s.split("</loc>").next().expect("closed loc"))
        {
            let rel = loc
                .strip_prefix(BASE)
                .unwrap_or_else(|| panic!("{loc} is not under the base URL"));
            assert!(
                public.join(rel).join("index.html").is_file(),
                "the sitemap lists {loc}, which was not written"
            );
        }
    }

    #[test]
    fn atom_feed_has_every_entry_newest_first() {
        let (_site, public) = built();
        let atom = read(&public.join("atom.xml"));
        assert_eq!(xml_root(&atom), "feed");
        assert!(atom.contains("<feed xmlns=\"http://www.w3.org/2005/Atom\""));
        assert_eq!(atom.matches("<entry>").count(), ENTRIES.len());
        let position = |slug: &str, category: &str| {
            atom.find(&format!("<link href=\"{BASE}{category}/{slug}/\"/>"))
                .unwrap_or_else(|| panic!("the feed lacks {slug}"))
        };
        for (category, slug, _) in ENTRIES {
            position(slug, category);
        }
        // updated: 2026-11-01, 2026-10-15, 2026-09-30
        assert!(position("activation-spike", "memory") < position("quadratic-attention", "memory"));
        assert!(
            position("quadratic-attention", "memory") < position("nccl-timeout", "distributed")
        );
        assert!(atom.contains("<updated>2026-11-01T00:00:00Z</updated>"));
    }

    #[test]
    fn entries_json_lists_every_slug() {
        let (_site, public) = built();
        let text = read(&public.join("entries.json"));
        let json: serde_json::Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("entries.json does not parse: {e}"));
        let entries = json["entries"].as_array().expect("`entries` is a list");
        assert_eq!(json["version"], 1);
        // One entry a line, each line (bar its comma) an entry on its own.
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines.len(),
            entries.len() + 2,
            "entries.json is not one entry a line"
        );
        for line in &lines[1..lines.len() - 1] {
            serde_json::from_str::<serde_json::Value>(line.trim_end_matches(','))
                .unwrap_or_else(|e| panic!("line {line:?} of entries.json is not an entry: {e}"));
        }
        let slugs: BTreeSet<&str> = entries
            .iter()
            .map(|e| e["slug"].as_str().expect("slug is text"))
            .collect();
        let expected: BTreeSet<&str> = ENTRIES.iter().map(|(_, s, _)| *s).collect();
        assert_eq!(slugs, expected);
        for (category, slug, title) in ENTRIES {
            let e = entries.iter().find(|e| e["slug"] == slug).expect("listed");
            assert_eq!(e["url"], format!("{category}/{slug}/"));
            assert_eq!(e["title"], title);
            assert_eq!(e["category"], category);
        }
        let spike = entries
            .iter()
            .find(|e| e["slug"] == "activation-spike")
            .expect("listed");
        assert_eq!(
            spike["tags"],
            serde_json::json!(["activation-memory", "attention"])
        );
        assert_eq!(spike["related"][0], "nccl-timeout");
        let quadratic = entries
            .iter()
            .find(|e| e["slug"] == "quadratic-attention")
            .expect("listed");
        assert_eq!(quadratic["tags"][0], "activation-memory");
    }

    #[test]
    fn robots_and_opensearch_point_at_the_site() {
        let (_site, public) = built();
        let robots = read(&public.join("robots.txt"));
        assert!(
            robots.contains("Sitemap: https://errata.example/sitemap.xml"),
            "{robots}"
        );
        let opensearch = read(&public.join("opensearch.xml"));
        assert_eq!(xml_root(&opensearch), "OpenSearchDescription");
        assert!(
            opensearch.contains("template=\"https://errata.example/search/?q={searchTerms}\""),
            "{opensearch}"
        );
    }

    #[test]
    fn drafts_are_built_only_with_the_flag() {
        let site = Site::new("valid-site");
        let mut command = site.errata("build");
        command.arg("--drafts");
        run(command).assert_exit(0);
        let page = read(&site.public().join("memory/draft-entry/index.html"));
        assert!(
            page.contains("<meta name=\"robots\" content=\"noindex\">"),
            "a draft page should not be indexed"
        );
        assert!(read(&site.public().join("entries.json")).contains("\"draft-entry\""));
    }
}

// ---------------------------------------------------------------------------------------------
// Bad input: exit 1, `error: file:line:col: message` on stderr, nothing written

mod content_errors {
    use super::*;

    fn assert_no_output(site: &Site) {
        assert!(
            !site.public().exists(),
            "a failed build created {}",
            site.public().display()
        );
        assert_eq!(
            leftovers(&site.root, "public"),
            Vec::<String>::new(),
            "temporary folders left behind"
        );
    }

    /// Builds `site`, expecting a content error: exit 1, every `expected` text on stderr, no output.
    fn rejected_site(site: &Site, expected: &[&str]) -> Run {
        let run = site.build();
        run.assert_exit(1).stderr_has("nothing was written");
        for needle in expected {
            run.stderr_has(needle);
        }
        assert_no_output(site);
        run
    }

    fn rejected(case: &str, expected: &[&str]) -> Run {
        rejected_site(&Site::new(case), expected)
    }

    #[test]
    fn broken_yaml() {
        // `tags: [a, b` on line 7 is never closed; YAML notices at the end of the front matter.
        rejected(
            "broken-yaml",
            &["error: content/memory/broken-yaml.md:8:1: did not find expected ',' or ']'"],
        );
    }

    #[test]
    fn unknown_key() {
        let run = rejected(
            "unknown-key",
            &[
                "error: content/memory/unknown-key.md:4:1: unknown field `severty`",
                "did you mean `severity`?",
            ],
        );
        run.stderr_has("severty: high");
        assert!(
            !run.stderr.contains("expected one of"),
            "serde's list of fields leaked into the message\n{run}"
        );
    }

    #[test]
    fn misspelt_key_of_a_signature_source() {
        rejected(
            "bad-signature-source",
            &[
                "error: content/memory/bad-source.md:8:5: unknown field `raised_at`",
                "did you mean `raised_in`?",
            ],
        );
    }

    #[test]
    fn signature_sources_and_cues_are_checked() {
        rejected(
            "bad-cues",
            &[
                "error: content/memory/bad-cues.md:7:12: a signature with `text:` says neither `raised_in:` nor `source:`",
                "error: content/memory/bad-cues.md:10:13: signature source `file:///home/me/notes.txt` is not http(s)",
                "error: content/memory/bad-cues.md:11:1: `cues.lines` has an empty item",
                "error: content/memory/bad-cues.md:12:13: cue `fwd` in `frames` is shorter than 6 characters",
                "cue `torch/_inductor/` is listed twice in `frames`",
            ],
        );
    }

    #[test]
    fn missing_key() {
        rejected(
            "missing-key",
            &["error: content/memory/missing-summary.md:1:1: missing required field `summary`"],
        );
    }

    #[test]
    fn bad_severity() {
        rejected(
            "bad-severity",
            &[
                "error: content/memory/bad-severity.md:4:11: invalid severity `hgh`",
                "did you mean `high`?",
            ],
        );
    }

    #[test]
    fn unknown_category() {
        rejected(
            "unknown-category",
            &[
                "error: content/memory/unknown-category.md:3:11: unknown category `memroy`",
                "did you mean `memory`?",
            ],
        );
    }

    #[test]
    fn duplicate_slug_names_both_files() {
        rejected(
            "duplicate-slug",
            &[
                "error: content/memory/first.md:3:1: duplicate slug `shared-name`, also used by content/distributed/second.md",
                "error: content/distributed/second.md:3:1: duplicate slug `shared-name`, also used by content/memory/first.md",
            ],
        );
    }

    #[test]
    fn unknown_related() {
        rejected("unknown-related", &["error: content/memory/unknown-related.md:7:11: unknown related entry `no-such-entry`"]);
    }

    #[test]
    fn broken_internal_link_at_its_file_line() {
        // The body starts on line 8; the link is on its third line, `@/` at column 23.
        let run = rejected(
            "broken-internal-link",
            &["error: content/memory/broken-link.md:10:23: link to a missing entry `@/nope`"],
        );
        run.stderr_has("See [the other entry](@/nope) for more.");
    }

    #[test]
    fn non_utf8() {
        let site = Site::new("non-utf8");
        let path = site.file("content/memory/non-utf8.md");
        let text = read(&path);
        let (before, after) = text
            .split_once("INVALID")
            .expect("the fixture holds the INVALID placeholder");
        let mut bytes = before.as_bytes().to_vec();
        bytes.extend_from_slice(b"\xff\xfe");
        bytes.extend_from_slice(after.as_bytes());
        fs::write(&path, bytes).expect("write the invalid bytes");
        // `title: Bad ` is 11 characters, so the first bad byte is at column 12 of line 2.
        rejected_site(
            &site,
            &["error: content/memory/non-utf8.md:2:12: file is not valid UTF-8"],
        );
    }

    #[test]
    fn empty_file() {
        let site = Site::new("empty-file");
        assert!(
            read(&site.file("content/memory/empty.md"))
                .trim()
                .is_empty(),
            "the fixture should be empty"
        );
        rejected_site(
            &site,
            &["error: content/memory/empty.md:1:1: file is empty"],
        );
    }

    #[test]
    fn all_problems_in_one_run() {
        rejected(
            "all-problems-in-one-run",
            &[
                "error: content/memory/alpha.md:2:1: unknown field `titel`",
                "did you mean `title`?",
                "error: content/memory/beta.md:4:11: invalid severity `hgh`",
                "error: content/distributed/gamma.md:8:24: link to a missing entry `@/missing-entry`",
                "3 problem(s) found",
            ],
        );
    }

    #[test]
    fn check_reports_what_build_reports() {
        let site = Site::new("bad-severity");
        site.check()
            .assert_exit(1)
            .stderr_has("error: content/memory/bad-severity.md:4:11: invalid severity `hgh`");
        assert_no_output(&site);
    }
}

// ---------------------------------------------------------------------------------------------
// Raw HTML and script links in Markdown

mod safety {
    use super::*;

    #[test]
    fn raw_script_comes_out_as_text() {
        let site = Site::new("raw-script");
        site.build().assert_exit(0);
        let html = read(&site.public().join("memory/raw-script/index.html"));
        let body = between(&html, "<div class=\"prose entry-body\">", "</div>");

        assert!(
            !html.contains("<script>alert"),
            "raw <script> passed through:\n{body}"
        );
        assert!(
            body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "the raw HTML should be shown as text:\n{body}"
        );
        assert!(!body.contains("<img"), "raw <img> passed through:\n{body}");
        let with_handler: Vec<&str> = tags_in(&html)
            .into_iter()
            .filter(|t| t.to_ascii_lowercase().contains("onerror"))
            .collect();
        assert!(
            with_handler.is_empty(),
            "event handlers inside tags: {with_handler:?}"
        );
        assert!(
            !html.to_ascii_lowercase().contains("javascript:"),
            "a javascript: URL survived:\n{body}"
        );
        assert!(
            body.contains("Click x now."),
            "the link text should stay, without its link:\n{body}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The output folder: deterministic, replaced whole, never someone else's

mod output {
    use super::*;

    #[test]
    fn two_builds_are_byte_identical() {
        let site = Site::new("valid-site");
        let (a, b) = (site.outside("out-a"), site.outside("out-b"));
        site.build_into(&a).assert_exit(0);
        site.build_into(&b).assert_exit(0);
        // A second copy at another path builds the same bytes too.
        let other = Site::new("valid-site");
        let c = other.outside("out-c");
        other.build_into(&c).assert_exit(0);
        let first = tree(&a);
        assert!(first.contains_key("index.html"));
        assert_same_tree(&first, &tree(&b));
        assert_same_tree(&first, &tree(&c));
    }

    #[test]
    fn failed_build_keeps_previous_output() {
        let site = Site::new("valid-site");
        site.build().assert_exit(0);
        let before = tree(&site.public());

        let entry = site.file("content/distributed/nccl-timeout.md");
        let text = read(&entry);
        let broken = text.replacen("---\n", "---\nseverty: high\n", 1);
        assert_ne!(broken, text);
        fs::write(&entry, broken).expect("break the entry");
        site.build()
            .assert_exit(1)
            .stderr_has("error: content/distributed/nccl-timeout.md:2:1: unknown field `severty`")
            .stderr_has("nothing was written");

        let after = tree(&site.public());
        for page in [
            "index.html",
            "distributed/nccl-timeout/index.html",
            "entries.json",
        ] {
            assert!(
                before[page] == after[page],
                "{page} changed after a failed build"
            );
        }
        assert_same_tree(&before, &after);
        assert_eq!(
            leftovers(&site.root, "public"),
            Vec::<String>::new(),
            "temporary folders left behind"
        );
    }

    #[test]
    fn successful_rebuild_replaces_the_output() {
        let site = Site::new("valid-site");
        site.build().assert_exit(0);
        let entry = site.file("content/memory/quadratic-attention.md");
        let text = read(&entry);
        fs::write(
            &entry,
            text.replace(
                "title: Quadratic Attention Memory",
                "title: Quadratic Attention Memory Blowup",
            ),
        )
        .expect("edit");
        fs::write(site.public().join("stale.html"), "left from an old build")
            .expect("write a stale file");
        site.build().assert_exit(0);
        assert!(
            read(&site.public().join("memory/quadratic-attention/index.html"))
                .contains("Quadratic Attention Memory Blowup")
        );
        assert!(
            !site.public().join("stale.html").exists(),
            "the output should be replaced whole"
        );
        assert!(site.public().join(".errata-output").is_file());
        assert_eq!(
            leftovers(&site.root, "public"),
            Vec::<String>::new(),
            "temporary folders left behind"
        );
    }

    #[test]
    fn refuses_a_folder_errata_did_not_write() {
        let site = Site::new("valid-site");
        let foreign = site.outside("not-ours");
        fs::create_dir_all(&foreign).expect("create");
        fs::write(foreign.join("notes.txt"), "my own notes\n").expect("write");
        let before = tree(&foreign);
        site.build_into(&foreign)
            .assert_exit(2)
            .stderr_has("was not written by errata");
        assert_same_tree(&before, &tree(&foreign));
        assert_eq!(
            leftovers(site.tmp.path(), "not-ours"),
            Vec::<String>::new(),
            "temporary folders left behind"
        );
    }

    #[test]
    fn refuses_to_write_over_the_site_itself() {
        let site = Site::new("valid-site");
        let before = tree(&site.root);
        site.build_into(&site.root)
            .assert_exit(2)
            .stderr_has("contains the site's own files");
        assert_same_tree(&before, &tree(&site.root));
    }
}

// ---------------------------------------------------------------------------------------------
// CI

mod ci {
    use super::*;

    #[test]
    fn github_actions_annotations_on_stdout() {
        let site = Site::new("unknown-key");
        let mut command = site.errata("build");
        command.env("GITHUB_ACTIONS", "true");
        run(command)
            .assert_exit(1)
            .stdout_has(
                "::error file=content/memory/unknown-key.md,line=4,col=1::unknown field `severty`",
            )
            .stdout_has("did you mean `severity`?")
            .stderr_has("error: content/memory/unknown-key.md:4:1: unknown field `severty`");
    }

    #[test]
    fn one_annotation_per_problem() {
        let site = Site::new("all-problems-in-one-run");
        let mut command = site.errata("check");
        command.env("GITHUB_ACTIONS", "true");
        let run = run(command);
        run.assert_exit(1)
            .stdout_has("::error file=content/memory/alpha.md,line=2,col=1::")
            .stdout_has("::error file=content/memory/beta.md,line=4,col=11::")
            .stdout_has("::error file=content/distributed/gamma.md,line=8,col=24::");
        assert_eq!(
            run.stdout
                .lines()
                .filter(|l| l.starts_with("::error "))
                .count(),
            3,
            "{run}"
        );
    }

    #[test]
    fn no_annotations_outside_github_actions() {
        let site = Site::new("unknown-key");
        let run = site.build();
        run.assert_exit(1);
        assert!(
            !run.stdout.contains("::error"),
            "annotations without GITHUB_ACTIONS\n{run}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// errata new

mod new_command {
    use super::*;

    const PATH: &str = "content/distributed/nccl-watchdog-timeout.md";

    fn new_entry(site: &Site, title: &str, category: &str) -> Run {
        let mut command = site.errata("new");
        command.arg(title).arg("--category").arg(category);
        run(command)
    }

    #[test]
    fn writes_a_draft_that_passes_check() {
        let site = Site::new("new-command");
        let run = new_entry(&site, "NCCL Watchdog Timeout", "distributed");
        run.assert_exit(0);
        assert!(
            run.stdout.trim().ends_with(PATH),
            "stdout should name the new file\n{run}"
        );
        let text = read(&site.file(PATH));
        assert!(text.starts_with("---\n"), "{text}");
        for needle in [
            "title: \"NCCL Watchdog Timeout\"",
            "slug: nccl-watchdog-timeout",
            "category: distributed",
            "severity: medium",
            "kind: failure",
            "draft: true",
        ] {
            assert!(
                text.contains(needle),
                "the template lacks {needle:?}:\n{text}"
            );
        }
        for key in [
            "title",
            "slug",
            "category",
            "severity",
            "kind",
            "tags",
            "summary",
            "signatures",
            "fingerprint",
            "symptoms",
            "root_causes",
            "fix",
            "affects",
            "confirm",
            "related",
            "references",
            "updated",
            "draft",
        ] {
            assert!(
                text.lines().any(|l| l.starts_with(&format!("{key}:"))),
                "the template lacks `{key}:`:\n{text}"
            );
        }

        let mut check = site.errata("check");
        check.arg("--drafts");
        super::run(check)
            .assert_exit(0)
            .stderr_has("checked 2 entries: no errors");
        site.check().assert_exit(0).stderr_has("no errors");

        let mut build = site.errata("build");
        build.arg("--drafts");
        super::run(build).assert_exit(0);
        let page = read(
            &site
                .public()
                .join("distributed/nccl-watchdog-timeout/index.html"),
        );
        assert!(page.contains("NCCL Watchdog Timeout"));
        assert!(page.contains("<meta name=\"robots\" content=\"noindex\">"));
    }

    #[test]
    fn never_overwrites_an_entry() {
        let site = Site::new("new-command");
        new_entry(&site, "NCCL Watchdog Timeout", "distributed").assert_exit(0);
        let path = site.file(PATH);
        let mut text = read(&path);
        text.push_str("\nWritten by the author, not by the template.\n");
        fs::write(&path, &text).expect("edit the new entry");
        new_entry(&site, "NCCL Watchdog Timeout", "distributed")
            .assert_exit(2)
            .stderr_has("already exists");
        assert_eq!(read(&path), text, "errata new overwrote an existing entry");
    }

    #[test]
    fn unknown_category_is_a_usage_error() {
        let site = Site::new("new-command");
        new_entry(&site, "Some Failure", "nope")
            .assert_exit(2)
            .stderr_has("unknown category `nope`");
        assert!(
            !site.file("content/nope").exists(),
            "a folder was created for an unknown category"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The command line itself

mod usage {
    use super::*;

    #[test]
    fn version() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let mut command = errata_in(tmp.path());
        command.arg("--version");
        run(command)
            .assert_exit(0)
            .stdout_has(concat!("errata ", env!("CARGO_PKG_VERSION")));
    }

    #[test]
    fn build_help_mentions_output() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let mut command = errata_in(tmp.path());
        command.args(["build", "--help"]);
        run(command)
            .assert_exit(0)
            .stdout_has("--output")
            .stdout_has("--root");
    }

    #[test]
    fn unknown_subcommand_exits_2() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let mut command = errata_in(tmp.path());
        command.arg("bogus");
        run(command).assert_exit(2).stderr_has("bogus");
    }

    #[test]
    fn missing_site_exits_2() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let mut command = errata_in(tmp.path());
        command.arg("build").arg("--root").arg(tmp.path());
        run(command)
            .assert_exit(2)
            .stderr_has("`errata.yaml` is missing");
        assert!(!tmp.path().join("public").exists());
    }
}

// ---------------------------------------------------------------------------------------------
mod warnings {
    use super::*;

    #[test]
    fn warnings_are_reported_and_strict_fails() {
        let site = Site::new("warnings");
        let run = site.check();
        run.assert_exit(0)
            .stderr_has("warning: content/memory/second.md:5:8: tag `activation-memories` is close to `activation-memory`")
            .stderr_has("warning: content/memory/lonely.md:1:1: entry has no related entries and shares no tag with another")
            .stderr_has("warning: content/memory/first.md:8:6: signature is identical to one in content/memory/second.md")
            .stderr_has("warning: content/memory/first.md:9:10: `updated` is in the future (2999-01-01)")
            .stderr_has("warning: content/memory/second.md:8:6: signature is identical to one in content/memory/first.md")
            .stderr_has("5 warning(s)");
        let mut strict = site.errata("check");
        strict.arg("--strict");
        run_cmd(strict)
            .assert_exit(1)
            .stderr_has("error: content/memory/first.md:9:10: `updated` is in the future");
        let mut build = site.errata("build");
        build.arg("--strict");
        run_cmd(build).assert_exit(1);
        assert!(
            !site.public().exists(),
            "a strict build with warnings writes nothing"
        );
    }

    fn run_cmd(c: Command) -> Run {
        run(c)
    }
}

// ---------------------------------------------------------------------------------------------
mod schema {
    use super::*;

    /// The committed schema is what `errata schema` prints from the front-matter type: adding a
    /// field without regenerating it fails here.
    #[test]
    fn committed_schema_is_current() {
        let mut c = Command::new(ERRATA);
        c.arg("schema");
        let r = run(c);
        r.assert_exit(0);
        let committed =
            read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("content/front-matter.schema.json"));
        assert!(
            r.stdout == committed,
            "content/front-matter.schema.json is stale: run `errata schema > content/front-matter.schema.json`"
        );
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(v["additionalProperties"], false);
        assert!(
            v["properties"]["severity"]["enum"]
                .as_array()
                .unwrap()
                .len()
                == 4
        );
        assert!(v["required"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x == "summary"));
    }
}

// ---------------------------------------------------------------------------------------------
// Hostile content: file names, case clashes, symlinks. Each case starts from the valid site and
// adds one file the test writes itself.
mod hostile {
    use super::*;

    fn entry(slug_line: &str, title: &str) -> String {
        format!("---\ntitle: {title}\n{slug_line}category: memory\nseverity: low\nsummary: A test entry.\nsignatures:\n  - \"RuntimeError: {title}\"\n---\nBody.\n")
    }

    #[test]
    fn file_names_with_spaces_and_unicode_build() {
        let site = Site::new("valid-site");
        fs::write(
            site.file("content/memory/Fehler über Speicher.md"),
            entry("", "Unicode Name"),
        )
        .unwrap();
        fs::write(
            site.file("content/memory/with spaces.md"),
            entry("", "Spaced Name"),
        )
        .unwrap();
        site.build().assert_exit(0);
        assert!(site
            .public()
            .join("memory/fehler-über-speicher/index.html")
            .is_file());
        assert!(site
            .public()
            .join("memory/with-spaces/index.html")
            .is_file());
    }

    #[test]
    fn slugs_that_differ_only_by_case_are_refused() {
        let site = Site::new("valid-site");
        fs::write(site.file("content/memory/Clash.md"), entry("", "Upper")).unwrap();
        fs::write(site.file("content/memory/clash.md"), entry("", "Lower")).unwrap();
        site.build()
            .assert_exit(1)
            .stderr_has("duplicate slug `clash`, also used by content/memory/clash.md")
            .stderr_has("duplicate slug `clash`, also used by content/memory/Clash.md");
        assert!(!site.public().exists());
    }

    #[test]
    fn a_slug_that_tries_to_leave_is_refused() {
        let site = Site::new("valid-site");
        fs::write(
            site.file("content/memory/escape.md"),
            entry("slug: ../../etc\n", "Escape"),
        )
        .unwrap();
        site.build()
            .assert_exit(1)
            .stderr_has("content/memory/escape.md:3:7: slug `../../etc` may not contain `..`");
        assert!(!site.public().exists());
    }

    #[cfg(unix)]
    #[test]
    fn symlink_loops_and_escapes_are_reported() {
        let site = Site::new("valid-site");
        std::os::unix::fs::symlink(site.file("content"), site.file("content/memory/loop")).unwrap();
        let outside = site.outside("secret.md");
        fs::write(&outside, entry("", "Outside")).unwrap();
        std::os::unix::fs::symlink(&outside, site.file("content/memory/outside.md")).unwrap();
        site.build()
            .assert_exit(1)
            .stderr_has("error: content/memory/loop: symlink loop")
            .stderr_has(
                "error: content/memory/outside.md: symlink points outside the content folder",
            );
        assert!(!site.public().exists());
    }

    #[test]
    fn ten_thousand_tags_on_one_entry() {
        let site = Site::new("valid-site");
        let tags: Vec<String> = (0..10_000).map(|i| format!("tag-{i}")).collect();
        let text = format!("---\ntitle: Many Tags\ncategory: memory\nseverity: low\nsummary: Many tags.\ntags: [{}]\nsignatures:\n  - \"RuntimeError: many tags\"\n---\nBody.\n", tags.join(", "));
        fs::write(site.file("content/memory/many-tags.md"), text).unwrap();
        site.build().assert_exit(0);
        assert!(site.public().join("tags/tag-9999/index.html").is_file());
    }

    #[test]
    fn deeply_nested_lists_and_quotes_build_without_overflowing() {
        let site = Site::new("valid-site");
        let quotes = format!("{}deep quote\n", "> ".repeat(5_000));
        let lists: String = (0..2_000)
            .map(|i| format!("{}- level {i}\n", "  ".repeat(i)))
            .collect();
        let text = format!("---\ntitle: Deep Nesting\ncategory: memory\nseverity: low\nsummary: Deep.\nsignatures:\n  - \"RuntimeError: deep nesting\"\n---\n{quotes}\n{lists}\n[link *in **nested** emphasis*](https://example.org/)\n");
        fs::write(site.file("content/memory/deep.md"), text).unwrap();
        site.build().assert_exit(0);
        let page = read(&site.public().join("memory/deep/index.html"));
        assert!(page.contains("deep quote") && page.contains("level 1999"));
    }

    #[test]
    fn a_billion_laughs_yaml_bomb_is_an_error_not_an_explosion() {
        let site = Site::new("valid-site");
        let mut yaml = String::from("---\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        for i in 0..8u8 {
            let (prev, this) = ((b'a' + i) as char, (b'b' + i) as char);
            yaml.push_str(&format!("{this}: &{this} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"));
        }
        yaml.push_str(
            "title: *i\ncategory: memory\nseverity: low\nsummary: bomb\ntags: *i\n---\nBody.\n",
        );
        fs::write(site.file("content/memory/bomb.md"), &yaml).unwrap();
        let started = std::time::Instant::now();
        site.build()
            .assert_exit(1)
            .stderr_has("error: content/memory/bomb.md:2:1: unknown field `a`");
        let typed = "---\ntitle: Bomb\ncategory: memory\nseverity: low\nsummary: bomb\ntags: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\naffects: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nconfirm: [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n---\nBody.\n";
        // Behind known fields the aliases meet the typed front matter, which stops them at once.
        fs::write(site.file("content/memory/bomb.md"), typed).unwrap();
        let r = site.build();
        // The alias replays the anchor, so the error points at the anchored list.
        r.assert_exit(1).stderr_has(
            "error: content/memory/bomb.md:6:7: affects[0]: invalid type: sequence, expected a string",
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(30));
    }

    #[test]
    fn bom_crlf_and_mixed_line_endings_build_like_plain_files() {
        let site = Site::new("valid-site");
        let text = "\u{feff}---\r\ntitle: Line Endings\r\ncategory: memory\rseverity: low\nsummary: Mixed endings.\r\nsignatures:\r\n  - \"RuntimeError: line endings\"\r\n---\r\n## Heading\r\n\r\nFirst line.\rSecond line.\n";
        fs::write(site.file("content/memory/endings.md"), text).unwrap();
        site.build().assert_exit(0);
        let page = read(&site.public().join("memory/endings/index.html"));
        assert!(page.contains("<h1") && page.contains("Line Endings"));
        assert!(page.contains("First line.") && page.contains("Second line."));
        assert!(!page.contains('\r') && !page.contains('\u{feff}'));
    }
}
