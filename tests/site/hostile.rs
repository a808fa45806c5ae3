//! Hostile and careless input: odd file names, slugs that clash or try to leave, symlink
//! loops, ten thousand tags, deep nesting, a YAML bomb, thousands of code blocks and a
//! megabyte line of code build or fail cleanly.

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
    // Feeds and the sitemap carry URIs: the letter is percent-encoded there.
    for feed in ["sitemap.xml", "atom.xml"] {
        let text = fs::read_to_string(site.public().join(feed)).unwrap();
        assert!(
            text.contains("/memory/fehler-%C3%BCber-speicher/"),
            "{feed}"
        );
        assert!(!text.contains("über"), "{feed}");
    }
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
        .stderr_has("error: content/memory/outside.md: symlink points outside the content folder");
    assert!(!site.public().exists());
}

/// A linked folder outside content/ is reported once, and nothing under it is read.
#[cfg(unix)]
#[test]
fn a_symlinked_folder_outside_is_reported_once_and_not_walked() {
    let site = Site::new("valid-site");
    let outside = site.outside("elsewhere");
    fs::create_dir_all(outside.join("deeper")).unwrap();
    for name in ["a.md", "b.md", "deeper/c.md"] {
        fs::write(outside.join(name), "not front matter at all").unwrap();
    }
    std::os::unix::fs::symlink(&outside, site.file("content/elsewhere")).unwrap();
    let run = site.build();
    run.assert_exit(1)
        .stderr_has("error: content/elsewhere: symlink points outside the content folder");
    assert_eq!(run.stderr.matches("error: content/").count(), 1, "{run}");
    assert!(!run.stderr.contains("a.md"), "{run}");
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
    let mut yaml = String::from(
        "---\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
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

/// An entry of `body` (code blocks), and the size of its source.
fn code_entry(site: &Site, slug: &str, body: &str) -> usize {
    let text = format!("---\ntitle: Code {slug}\ncategory: memory\nseverity: low\nsummary: Code.\nsignatures:\n  - \"RuntimeError: code {slug}\"\n---\n{body}");
    fs::write(site.file(&format!("content/memory/{slug}.md")), &text).unwrap();
    text.len()
}

#[test]
fn many_code_blocks_share_one_highlighting_budget() {
    let site = Site::new("valid-site");
    let block = "x = {'a': [1, 2.5, None], \"b\": f(y) + g[0] * 3}  # c < d\n".repeat(20);
    let body: String = (0..2_000)
        .map(|i| format!("Block {i}:\n\n```python\n{block}```\n\n"))
        .collect();
    let source = code_entry(&site, "many-blocks", &body);
    site.build().assert_exit(0);
    let page = read(&site.public().join("memory/many-blocks/index.html"));
    assert!(
        page.len() < 3 * source,
        "{} bytes of page for {source} of source",
        page.len()
    );
    assert!(page.contains("<span class=") && page.contains("Block 1999:"));
}

#[test]
fn a_two_megabyte_line_of_code_is_shown_plain() {
    let site = Site::new("valid-site");
    let line = "x = [1, 2, None] + ".repeat(2_000_000 / 19);
    let source = code_entry(&site, "long-line", &format!("```python\n{line}\n```\n"));
    site.build().assert_exit(0);
    let page = read(&site.public().join("memory/long-line/index.html"));
    assert!(page.len() < 2 * source, "{} bytes of page", page.len());
    assert!(
        page.contains(&format!(
            "<pre class=\"highlight\" data-lang=\"python\"><code>{line}\n</code></pre>"
        )),
        "the line is not shown plain"
    );
}
