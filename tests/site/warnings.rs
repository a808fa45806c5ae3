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
