//! Warnings are reported with their place, and `--strict` turns them into errors.

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
        .stderr_has("warning: content/memory/first.md:8:6: the first signature does not say where it is raised")
        .stderr_has("7 warning(s)");
    // A first signature with `source:` says where it comes from.
    assert!(!run.stderr.contains("lonely.md:8"), "{run}");
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

/// `errata build` shows the first ten warnings with the same message and counts the rest;
/// `errata check` lists every one.
#[test]
fn a_build_counts_the_same_warning_past_ten() {
    let site = Site::new("warnings");
    for i in 0..12 {
        fs::write(
            site.file(&format!("content/memory/copy-{i}.md")),
            format!(
                "---\ntitle: Copy {i}\ncategory: memory\nseverity: high\ntags: [shared-tag]\n\
                 summary: A copy.\nsignatures:\n  - \"RuntimeError: copy number {i} failed\"\n---\nBody.\n"
            ),
        )
        .expect("write an entry");
    }
    let message = "the first signature does not say where it is raised";
    let check = site.check();
    check.assert_exit(0);
    let all = check.stderr.matches(message).count();
    assert!(all >= 12, "{check}");

    let build = run(site.errata("build"));
    build.assert_exit(0);
    let shown = build
        .stderr
        .lines()
        .filter(|l| l.starts_with("warning: content/") && l.ends_with(message))
        .count();
    assert_eq!(shown, 10, "{build}");
    build.stderr_has(&format!(
        "warning: {} more warning(s): {message} (`errata check` lists every one)",
        all - 10
    ));
    // Other warnings are all shown.
    build.stderr_has("tag `activation-memories` is close to `activation-memory`");
}
