//! What a good build writes: every page and feed, tags, internal and tag links, the entry page's sections and metadata, lists, sitemap, atom, entries.json, drafts.

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
            "static/errata.js",
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
    // One stylesheet: the theme's, then the highlighting rules generated from the palette.
    let css = read(&public.join("static/style.css"));
    let theirs = css.find(".card {").expect("the theme's rules");
    let keywords = css.find("pre.highlight .k {").expect("a rule for keywords");
    assert!(
        theirs < keywords,
        "the generated rules come after the theme's own"
    );
    assert!(!public.join("static/highlight.css").exists());
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
        code.contains("<span class=k>"),
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
        "Raised in <a href=\"https://github.com/pytorch/pytorch/blob/v2.5.0/c10/cuda/CUDACachingAllocator.cpp\" rel=\"nofollow\">c10/cuda/CUDACachingAllocator.cpp</a>, PyTorch 2.1 and later (<code>torch.OutOfMemoryError</code>)."
    );
    assert!(
        html.contains("<code>model.gradient_checkpointing_enable()</code>"),
        "the fix is not rendered as Markdown"
    );
    assert!(
        html.contains("Peak memory is far above the weights and optimizer state."),
        "the symptom table is missing"
    );
}

/// The entry page's FAQPage microdata, canonical URL, edit link and breadcrumbs.
#[test]
fn entry_page_has_its_metadata_and_links() {
    let (_site, public) = built();
    let html = read(&public.join(SPIKE));
    // The visible FAQ is the page's schema.org FAQPage: each question a Question with its
    // name, each answer an Answer with its text, inside the FAQPage's scope.
    let faq = between(
        &html,
        "<div class=\"faq\" itemscope itemtype=\"https://schema.org/FAQPage\">",
        "</section>",
    );
    let questions = faq
        .matches(
            "<details itemprop=\"mainEntity\" itemscope itemtype=\"https://schema.org/Question\">",
        )
        .count();
    assert!(questions >= 4, "{faq}");
    assert_eq!(
        faq.matches("<summary itemprop=\"name\">").count(),
        questions
    );
    assert_eq!(
        faq.matches("<div itemprop=\"acceptedAnswer\" itemscope itemtype=\"https://schema.org/Answer\"><div class=\"prose\" itemprop=\"text\">")
            .count(),
        questions
    );
    assert!(faq.contains("<summary itemprop=\"name\">What is Activation Memory Spike?</summary>"));
    assert!(
        !html.contains("application/ld+json"),
        "the FAQ is not held twice"
    );

    // Canonical URL, edit link, breadcrumbs.
    let links = hrefs(&html);
    assert!(
        links.contains(&format!("{BASE}memory/activation-spike/")),
        "no canonical link: {links:?}"
    );
    assert!(links.contains(
        &"https://github.com/example/errata-fixture/edit/main/content/memory/activation-spike.md"
            .to_owned()
    ));
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
    assert!(sitemap.contains(
        "<loc>https://errata.example/memory/activation-spike/</loc><lastmod>2026-11-01</lastmod>"
    ));
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
    assert!(position("quadratic-attention", "memory") < position("nccl-timeout", "distributed"));
    assert!(atom.contains("<updated>2026-11-01T00:00:00Z</updated>"));
}

#[test]
fn entries_json_lists_every_slug() {
    let (_site, public) = built();
    let text = read(&public.join("entries.json"));
    let json: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("entries.json does not parse: {e}"));
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
