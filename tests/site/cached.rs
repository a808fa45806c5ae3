//! `errata build --cache DIR`, as a CI pipeline runs it with the folder and the output kept
//! between runs: after an edit it renders and writes only what changed, and the output is byte
//! for byte a clean build's; another template, config or errata renders everything.

use super::*;

/// `errata build --output <out> --cache <cache>` beside the site.
fn cached_build(site: &Site) -> Run {
    let mut command = site.errata("build");
    command
        .arg("--output")
        .arg(site.outside("out"))
        .arg("--cache")
        .arg(site.outside("cache"));
    run(command)
}

/// The cached output equals what a clean build of the site as it is now writes.
fn assert_as_clean(site: &Site) {
    let clean = site.outside("clean");
    let _ = fs::remove_dir_all(&clean);
    site.build_into(&clean).assert_exit(0);
    assert_same_tree(&tree(&site.outside("out")), &tree(&clean));
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = read(path);
    let edited = text.replacen(from, to, 1);
    assert_ne!(edited, text, "{from:?} is not in {}", path.display());
    fs::write(path, edited).expect("edit the file");
}

/// The cache file's text, for a test to alter.
fn cache_file(site: &Site) -> PathBuf {
    site.outside("cache").join("errata-build-cache.json")
}

#[test]
fn after_an_edit_only_what_changed_is_written_and_the_site_is_a_clean_builds() {
    let site = Site::new("valid-site");
    cached_build(&site)
        .assert_exit(0)
        .stderr_has("the cache was not used (no cache yet); built in full");
    assert!(cache_file(&site).is_file());
    cached_build(&site)
        .assert_exit(0)
        .stderr_has("rendered again, 0 changed");

    let entry = site.file("content/memory/quadratic-attention.md");
    edit(&entry, "title: ", "title: Edited ");
    let run = cached_build(&site);
    run.assert_exit(0).stderr_has("from the cache:");
    assert!(
        !run.stderr.contains(", 0 changed"),
        "an edit changed nothing: {}",
        run.stderr
    );
    assert_as_clean(&site);

    // A body edit of another entry, then one that only moves text inside the page.
    let other = site.file("content/distributed/nccl-timeout.md");
    edit(&other, "\n## ", "\nA sentence added by the test.\n\n## ");
    cached_build(&site)
        .assert_exit(0)
        .stderr_has("from the cache:");
    assert_as_clean(&site);
}

#[test]
fn a_changed_template_renders_everything() {
    let site = Site::new("valid-site");
    cached_build(&site).assert_exit(0);
    let builtin = Path::new(env!("CARGO_MANIFEST_DIR")).join("themes/default/templates/404.html");
    let templates = site.file("themes/default/templates");
    fs::create_dir_all(&templates).expect("create the site's theme");
    let text = read(&builtin).replacen(
        "<h1 id=\"nf-title\">",
        "<!-- a site's own 404 --><h1 id=\"nf-title\">",
        1,
    );
    fs::write(templates.join("404.html"), text).expect("write the template");
    cached_build(&site)
        .assert_exit(0)
        .stderr_has("(the theme changed); built in full");
    assert!(read(&site.outside("out").join("404.html")).contains("a site's own 404"));
    assert_as_clean(&site);
}

#[test]
fn a_changed_config_renders_everything() {
    let site = Site::new("valid-site");
    cached_build(&site).assert_exit(0);
    edit(
        &site.file("errata.yaml"),
        "title: Fixture Errata",
        "title: Fixture Errata, Renamed",
    );
    cached_build(&site)
        .assert_exit(0)
        .stderr_has("(the config changed); built in full");
    assert!(read(&site.outside("out").join("404.html")).contains("Fixture Errata, Renamed"));
    assert_as_clean(&site);
}

/// A page altered behind the cache's back, keeping its length and modification time, so that
/// only a build that renders everything puts it right.
fn alter_a_page_unseen(site: &Site) -> PathBuf {
    let page = site.outside("out").join("404.html");
    let modified = fs::metadata(&page)
        .and_then(|m| m.modified())
        .expect("stat");
    let text = read(&page);
    let altered = text.replacen("<html", "<HTML", 1);
    assert_ne!(altered, text);
    fs::write(&page, altered).expect("alter the page");
    fs::File::options()
        .write(true)
        .open(&page)
        .and_then(|f| f.set_modified(modified))
        .expect("keep the time");
    page
}

#[test]
fn another_errata_renders_everything() {
    let site = Site::new("valid-site");
    cached_build(&site).assert_exit(0);
    // The same errata keeps a page it has no reason to render again: what the version
    // check below must put right.
    let page = alter_a_page_unseen(&site);
    cached_build(&site)
        .assert_exit(0)
        .stderr_has("from the cache:");
    assert!(read(&page).contains("<HTML"));

    let cache = read(&cache_file(&site));
    let version = format!("\"version\":\"{}\"", env!("CARGO_PKG_VERSION"));
    assert!(
        cache.contains(&version),
        "no version in the cache: {cache:.200}"
    );
    fs::write(
        cache_file(&site),
        cache.replacen(&version, "\"version\":\"0.0.1-older\"", 1),
    )
    .expect("write the cache");
    cached_build(&site)
        .assert_exit(0)
        .stderr_has("(another errata); built in full");
    assert_as_clean(&site);
}

#[test]
fn a_missing_or_changed_output_file_renders_everything() {
    let site = Site::new("valid-site");
    cached_build(&site).assert_exit(0);
    fs::remove_file(site.outside("out").join("failures/index.html")).expect("remove a page");
    cached_build(&site)
        .assert_exit(0)
        .stderr_has("(the output's failures/index.html is not as the cache left it)");
    assert_as_clean(&site);

    fs::write(site.outside("out").join("sitemap.xml"), "shorter").expect("replace a file");
    cached_build(&site)
        .assert_exit(0)
        .stderr_has("(the output's sitemap.xml is not as the cache left it)");
    assert_as_clean(&site);
}

#[test]
fn a_failed_build_keeps_the_output_and_the_cache() {
    let site = Site::new("valid-site");
    cached_build(&site).assert_exit(0);
    let before = tree(&site.outside("out"));
    let cache = read(&cache_file(&site));
    let entry = site.file("content/distributed/nccl-timeout.md");
    let text = read(&entry);
    edit(&entry, "---\n", "---\nseverty: high\n");
    cached_build(&site)
        .assert_exit(1)
        .stderr_has("nothing was written");
    assert_same_tree(&before, &tree(&site.outside("out")));
    assert_eq!(
        read(&cache_file(&site)),
        cache,
        "a failed build changed the cache"
    );
    fs::write(&entry, text).expect("mend the entry");
    cached_build(&site)
        .assert_exit(0)
        .stderr_has("rendered again, 0 changed");
}

#[test]
fn a_damaged_cache_is_set_aside() {
    let site = Site::new("valid-site");
    cached_build(&site).assert_exit(0);
    fs::write(cache_file(&site), "{\"format\": 1, \"key\":").expect("damage the cache");
    cached_build(&site)
        .assert_exit(0)
        .stderr_has("(its file is damaged); built in full");
    assert_as_clean(&site);
    cached_build(&site)
        .assert_exit(0)
        .stderr_has("rendered again, 0 changed");
}

#[test]
fn a_cache_inside_the_output_is_refused() {
    let site = Site::new("valid-site");
    let mut command = site.errata("build");
    let out = site.outside("out");
    command
        .arg("--output")
        .arg(&out)
        .arg("--cache")
        .arg(out.join("cache"));
    run(command)
        .assert_exit(2)
        .stderr_has("is inside the output")
        .stderr_has("pick a folder outside it");
}

/// The chunk files of the full search index the cache keeps.
fn search_chunks(site: &Site) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(site.outside("cache").join("search-chunks"))
        .expect("the cache has a search-chunks folder")
        .map(|e| e.expect("list the folder").path())
        .collect();
    files.sort();
    files
}

/// The full search index is made from the chunks the cache keeps: a kept chunk is what the
/// bundle is made from, a damaged one is indexed again, and an edit leaves only the chunks the
/// build used.
#[test]
fn the_search_index_is_made_from_the_kept_chunks() {
    let site = Site::new("valid-site");
    cached_build(&site).assert_exit(0);
    let first = search_chunks(&site);
    assert_eq!(first.len(), 1, "a small site is one chunk: {first:?}");
    let first_bytes = fs::read(&first[0]).expect("read the chunk");

    // A damaged chunk is indexed again: the bundle, and so the site, are as before.
    fs::write(&first[0], "not a chunk").expect("damage the chunk");
    cached_build(&site)
        .assert_exit(0)
        .stderr_has("rendered again, 0 changed");
    assert_eq!(search_chunks(&site), first);
    assert!(
        fs::read(&first[0]).expect("read the chunk") != b"not a chunk",
        "the damaged chunk was not indexed again"
    );

    // An edit to an entry's signature: a new chunk, and the old one goes.
    let entry = site.file("content/distributed/nccl-timeout.md");
    edit(
        &entry,
        "Watchdog caught collective",
        "Watchdog caught the collective",
    );
    cached_build(&site).assert_exit(0);
    let second = search_chunks(&site);
    assert_eq!(second.len(), 1);
    assert_ne!(second, first, "the edit kept the old chunk's key");
    assert_as_clean(&site);

    // The kept chunk is what the bundle is made from: the old chunk's bytes under the new key
    // give back the old index.
    fs::write(&second[0], first_bytes).expect("swap the chunk");
    let run = cached_build(&site);
    run.assert_exit(0);
    assert!(
        !run.stderr.contains(", 0 changed"),
        "the bundle did not come from the kept chunk: {}",
        run.stderr
    );
}

/// The cache keeps each entry the build loaded; a damaged store (records garbled, which may
/// throw the whole store away, or cut short) costs only parsing again: the site is still a
/// clean build's, and the store is written afresh.
#[test]
fn a_damaged_store_of_loaded_entries_is_parsed_again() {
    let site = Site::new("valid-site");
    cached_build(&site).assert_exit(0);
    let store = site.outside("cache").join("loaded-entries");
    let bytes = fs::read(&store).expect("the cache keeps the loaded entries");
    assert!(bytes.len() > 1000, "the store holds the entries");

    // Bytes all through the store garbled, its headers' and records' alike.
    let mut garbled = bytes.clone();
    for byte in garbled.iter_mut().skip(200).step_by(97) {
        *byte ^= 0x5a;
    }
    fs::write(&store, garbled).expect("damage the store");
    let entry = site.file("content/memory/quadratic-attention.md");
    edit(&entry, "title: ", "title: Edited ");
    cached_build(&site)
        .assert_exit(0)
        .stderr_has("from the cache:");
    assert_as_clean(&site);

    // A store cut short is an empty one.
    fs::write(&store, &bytes[..bytes.len() / 2]).expect("cut the store");
    edit(&entry, "title: Edited ", "title: ");
    cached_build(&site)
        .assert_exit(0)
        .stderr_has("from the cache:");
    assert_as_clean(&site);
    assert!(fs::read(&store).expect("read the store").len() > bytes.len() / 2);
}
