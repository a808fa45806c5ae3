//! The output folder: byte-identical builds, a failed build keeps the previous output, atomic replacement, refusing folders errata did not write.

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

/// A read-only output folder could be moved aside but not deleted: the build refuses it
/// (exit 2) and leaves it and its parent as they were.
#[cfg(unix)]
#[test]
fn refuses_a_read_only_output_folder() {
    read_only_refused("")
        .0
        .stderr_has("is read-only; refusing to replace");
}

/// A read-only folder inside the output would be moved aside with it and never deleted: the
/// build refuses before swapping (exit 2), naming that folder, and leaves everything as it was.
#[cfg(unix)]
#[test]
fn refuses_an_output_with_a_read_only_folder_inside() {
    let (run, inner) = read_only_refused("memory");
    run.stderr_has(&format!(
        "{} is read-only; refusing to replace",
        inner.display()
    ))
    .stderr_has("chmod -R u+w");
}

/// Builds into an output, makes `inside` of it (the output itself when empty) read-only and
/// builds again: exit 2, the output unchanged, nothing left beside it. Yields that run and
/// the folder made read-only.
#[cfg(unix)]
fn read_only_refused(inside: &str) -> (Run, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let site = Site::new("valid-site");
    let out = site.outside("out");
    site.build_into(&out).assert_exit(0);
    let locked = if inside.is_empty() {
        out.clone()
    } else {
        out.join(inside)
    };
    assert!(locked.is_dir());
    let before = tree(&out);
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o555)).unwrap();
    let run = site.build_into(&out);
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    run.assert_exit(2);
    assert_same_tree(&before, &tree(&out));
    assert_eq!(
        leftovers(site.tmp.path(), "out"),
        Vec::<String>::new(),
        "folders left beside the output"
    );
    (run, locked)
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

/// An output inside content/ or themes/ would be read back as content by the next build.
#[test]
fn refuses_an_output_inside_content_or_themes() {
    let site = Site::new("valid-site");
    for (inside, folder) in [("content/public", "content"), ("themes/x/out", "themes")] {
        site.build_into(&site.file(inside))
            .assert_exit(2)
            .stderr_has(&format!("is inside the site's {folder}/"));
        assert!(!site.file(inside).exists(), "{inside} was written");
    }
}
