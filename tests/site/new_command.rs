//! `errata new`: a draft that passes check, never overwriting an entry, unknown categories.

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

/// A title with no letters or digits names the flag that gives a slug, not a front-matter key.
#[test]
fn a_title_without_a_slug_names_the_flag() {
    let site = Site::new("new-command");
    new_entry(&site, "🔥🔥", "memory")
        .assert_exit(2)
        .stderr_has("title `🔥🔥` gives no usable slug; pass one with `--slug`");
}
