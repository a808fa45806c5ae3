//! GitHub Actions annotations on stdout under GITHUB_ACTIONS=true, one per problem, none elsewhere.

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
