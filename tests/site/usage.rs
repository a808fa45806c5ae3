//! Usage: `--version`, `--help`, an unknown subcommand or a missing site exits 2.

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
