//! The rebuild `errata serve` runs after an edit: it renders only what the edit can have
//! changed, and the site it serves is then byte for byte the site a full build gives.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use errata::pipeline::{self, CheckOptions, Incremental, Rebuilt};

#[path = "incremental_lists.rs"]
mod lists;

const ENTRIES: usize = 40;
const TAGS: [&str; 12] = [
    "oom",
    "nccl",
    "timeout",
    "nan",
    "fp16",
    "dataloader",
    "cudnn",
    "checkpoint",
    "compile",
    "shape",
    "allocator",
    "ranks",
];

/// A site of 40 entries in two categories, each with two tags of twelve; four cards to a
/// list page, so all failures take ten pages.
pub(super) fn write_site(root: &Path) {
    fs::create_dir_all(root.join("content/memory")).unwrap();
    fs::create_dir_all(root.join("content/distributed")).unwrap();
    fs::write(
        root.join("errata.yaml"),
        "title: Incremental\nbase_url: https://errata.example/\npaginate_by: 4\ncategories:\n  memory:\n    title: Memory\n    description: Memory.\n  distributed:\n    title: Distributed\n    description: Ranks.\n",
    )
    .unwrap();
    for i in 0..ENTRIES {
        write_entry(
            root,
            i,
            &format!("Failure number {i}"),
            i % 12,
            (i * 5 + 3) % 12,
        );
    }
}

fn write_entry(root: &Path, i: usize, title: &str, tag_a: usize, tag_b: usize) {
    let category = if i.is_multiple_of(2) {
        "memory"
    } else {
        "distributed"
    };
    let text = format!(
        "---\ntitle: {title}\ncategory: {category}\nseverity: high\ntags: [{}, {}]\nsummary: Entry {i} fails.\nsignatures:\n  - \"RuntimeError: failure code {i} reached\"\nupdated: 2026-0{}-1{}\n---\n## Why\n\nBecause of step {i}. See #{}.\n\n```python\nx = {i}\n```\n",
        TAGS[tag_a],
        TAGS[tag_b],
        1 + i % 9,
        i % 10,
        TAGS[tag_a],
    );
    fs::write(
        root.join(format!("content/{category}/entry-{i:02}.md")),
        text,
    )
    .unwrap();
}

fn options() -> CheckOptions {
    CheckOptions {
        drafts: false,
        base_url: None,
        strict: false,
    }
}

/// A builder for the site at `root`, and the files its first, complete build serves.
fn serve(root: &Path) -> (Incremental, BTreeMap<String, Vec<u8>>) {
    let mut builder = Incremental::new(root, options());
    let mut served = BTreeMap::new();
    apply(&mut served, builder.rebuild(true).unwrap());
    (builder, served)
}

fn apply(files: &mut BTreeMap<String, Vec<u8>>, rebuilt: Rebuilt) {
    if rebuilt.complete {
        files.clear();
    }
    files.extend(rebuilt.outputs.into_iter().map(|o| (o.path, o.bytes)));
}

/// What a fresh, complete build of the site gives.
fn full(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let checked = pipeline::check_with(root, &options()).expect("the site checks");
    pipeline::render(&checked, false)
        .expect("the site renders")
        .into_iter()
        .map(|o| (o.path, o.bytes))
        .collect()
}

fn assert_same(served: &BTreeMap<String, Vec<u8>>, fresh: &BTreeMap<String, Vec<u8>>) {
    let a: Vec<&String> = served.keys().collect();
    let b: Vec<&String> = fresh.keys().collect();
    assert_eq!(a, b, "the served site has other files than a full build");
    for (path, bytes) in fresh {
        if path == errata::search::BUNDLE_PATH {
            assert_same_answers(&served[path], bytes);
            continue;
        }
        assert!(
            served[path] == *bytes,
            "{path} differs from a full build after the incremental rebuild"
        );
    }
}

/// After an edit the served bundle comes from the index kept open, whose segments differ
/// from a fresh build's: it must hold the same entries and rank them alike. (Scores may differ
/// a little: replaced documents count in term statistics until their segment is merged.)
fn assert_same_answers(served: &[u8], fresh: &[u8]) {
    use errata_search::Searcher;
    let (a, b) = (
        Searcher::from_bundle(served).expect("the served bundle opens"),
        Searcher::from_bundle(fresh).expect("the fresh bundle opens"),
    );
    let slugs = |s: &Searcher| s.docs().iter().map(|d| d.slug.clone()).collect::<Vec<_>>();
    assert_eq!(slugs(&a), slugs(&b));
    let titles = |s: &Searcher| s.docs().iter().map(|d| d.title.clone()).collect::<Vec<_>>();
    assert_eq!(titles(&a), titles(&b), "the served bundle has stale titles");
    for query in [
        "RuntimeError: failure code 7 reached",
        "A much longer title for failure seven",
        "Because of step ten",
        "checkpoint timeout",
        "failure number",
    ] {
        let hits = |s: &Searcher| {
            s.search(query, 10)
                .unwrap()
                .into_iter()
                .map(|h| h.slug)
                .collect::<Vec<_>>()
        };
        assert_eq!(hits(&a), hits(&b), "answers to {query:?} differ");
    }
}

/// The served files, and the builder that keeps them up to date.
struct Served<'a> {
    root: &'a Path,
    builder: Incremental,
    files: BTreeMap<String, Vec<u8>>,
}

impl Served<'_> {
    /// Rebuilds, applies the outcome and checks the served site equals a fresh full build;
    /// returns the paths rendered, whether the render was complete, and the entry pages.
    fn rebuild(&mut self) -> (Vec<String>, bool, usize) {
        let rebuilt = self.builder.rebuild(false).unwrap();
        let outcome = (
            rebuilt.outputs.iter().map(|o| o.path.clone()).collect(),
            rebuilt.complete,
            rebuilt.entry_pages,
        );
        apply(&mut self.files, rebuilt);
        assert_same(&self.files, &full(self.root));
        outcome
    }
}

/// Every path of `must` was rendered again, and none of `skip`.
fn assert_rendered(paths: &[String], must: &[&str], skip: &[&str]) {
    for m in must {
        assert!(
            paths.iter().any(|p| p == m),
            "the rebuild skipped {m}: {paths:?}"
        );
    }
    for s in skip {
        assert!(
            !paths.iter().any(|p| p == s),
            "{s}, which the edit did not change, was rendered again"
        );
    }
}

#[test]
fn an_edit_renders_only_what_it_touches_and_equals_a_full_build() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write_site(root);
    let mut served = Served {
        root,
        builder: Incremental::new(root, options()),
        files: BTreeMap::new(),
    };
    let first = served.builder.rebuild(true).unwrap();
    assert!(first.complete);
    assert_eq!(first.entry_pages, ENTRIES);
    apply(&mut served.files, first);
    assert_same(&served.files, &full(root));
    retitles_render_their_pages(&mut served);
    new_tags_broken_files_and_removals(&mut served);
}

/// A new title (and so a new sort order in the lists), same tags; then nothing; then a second
/// title edit, once the search index is kept open.
fn retitles_render_their_pages(served: &mut Served) {
    let root = served.root;
    write_entry(
        root,
        7,
        "A much longer title for failure seven",
        7,
        (7 * 5 + 3) % 12,
    );
    let (paths, complete, entry_pages) = served.rebuild();
    assert!(!complete, "a title edit re-rendered everything");
    assert!(
        entry_pages < ENTRIES / 2,
        "a title edit re-rendered {entry_pages} of {ENTRIES} entry pages"
    );
    assert_rendered(
        &paths,
        &[
            "distributed/entry-07/index.html",
            "distributed/index.html",
            "index.html",
            "failures/index.html",
            "tags/checkpoint/index.html",
            "atom.xml",
            "search/errata.bundle",
            "search/first/meta.json",
        ],
        &["memory/index.html"],
    );
    assert!(
        String::from_utf8_lossy(&served.files["distributed/entry-07/index.html"])
            .contains("A much longer title for failure seven")
    );
    // Nothing changed: still a correct site.
    served.rebuild();
    // Only the edited entries are indexed again, and the bundle must still hold the new
    // title. "Failure three, renamed" moves from page 7 of all failures (after "A much
    // longer title…" and "Failure number 0" to "…29") to the end: pages 7 to 10 change, the
    // first six do not.
    write_entry(root, 3, "Failure three, renamed", 3, (3 * 5 + 3) % 12);
    let (paths, complete, _) = served.rebuild();
    assert!(!complete, "a second title edit re-rendered everything");
    assert_rendered(
        &paths,
        &["failures/page/7/index.html", "failures/page/10/index.html"],
        &["failures/index.html", "failures/page/6/index.html"],
    );
}

/// A tag no entry had, a broken file and its fix, an entry removed.
fn new_tags_broken_files_and_removals(served: &mut Served) {
    let root = served.root;
    // A tag no entry had before changes every page that could link `#tag`: everything.
    let seven = root.join("content/distributed/entry-07.md");
    let text = fs::read_to_string(&seven).unwrap();
    fs::write(
        &seven,
        text.replace("tags: [checkpoint,", "tags: [brand-new-tag, checkpoint,"),
    )
    .unwrap();
    assert!(served.rebuild().1);
    // A broken file fails the rebuild; fixing it gives the right site again.
    let ten = root.join("content/memory/entry-10.md");
    let good = fs::read_to_string(&ten).unwrap();
    fs::write(&ten, good.replace("severity: high", "severity: hgh")).unwrap();
    assert!(served.builder.rebuild(false).is_err());
    fs::write(
        &ten,
        good.replace("Because of step 10.", "Because of step ten, now."),
    )
    .unwrap();
    assert!(!served.rebuild().1);
    // An entry removed moves URLs: everything.
    fs::remove_file(root.join("content/memory/entry-12.md")).unwrap();
    assert!(served.rebuild().1);
}

/// The watcher's list of changed files lets a rebuild skip the walk; a file it names that
/// is new, or gone, makes the rebuild walk `content/` as usual. Every time the site must be
/// the one a full build gives.
#[test]
fn a_rebuild_told_which_files_changed_equals_a_full_build() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write_site(root);
    let (mut builder, mut served) = serve(root);

    let edited = root.join("content/distributed/entry-07.md");
    write_entry(root, 7, "Seven, told by the watcher", 7, (7 * 5 + 3) % 12);
    assert!(builder.expect_only(std::slice::from_ref(&edited)));
    let edit = builder.rebuild(false).unwrap();
    assert!(!edit.complete);
    apply(&mut served, edit);
    assert_same(&served, &full(root));
    assert!(
        String::from_utf8_lossy(&served["distributed/entry-07/index.html"])
            .contains("Seven, told by the watcher")
    );

    // A new file is not one the last load read: the hint is refused, the rebuild walks.
    write_entry(root, 40, "A fortieth failure", 1, 2);
    let added = root.join("content/memory/entry-40.md");
    assert!(!builder.expect_only(&[added]));
    apply(&mut served, builder.rebuild(false).unwrap());
    assert_same(&served, &full(root));
    assert!(served.contains_key("memory/entry-40/index.html"));

    // A named file that is gone by the time of the rebuild: it walks, and the page goes.
    let gone = root.join("content/memory/entry-40.md");
    assert!(builder.expect_only(std::slice::from_ref(&gone)));
    fs::remove_file(&gone).unwrap();
    apply(&mut served, builder.rebuild(false).unwrap());
    assert_same(&served, &full(root));
    assert!(!served.contains_key("memory/entry-40/index.html"));

    // `sed -i` writes a temporary file beside the entry and renames it over the entry: the
    // temporary file is not content, so the hint is taken.
    write_entry(root, 9, "Nine, edited in place", 9, (9 * 5 + 3) % 12);
    let temporary = root.join("content/distributed/sedAb12Cd");
    let nine = root.join("content/distributed/entry-09.md");
    assert!(builder.expect_only(&[temporary, nine]));
    apply(&mut served, builder.rebuild(false).unwrap());
    assert_same(&served, &full(root));

    // A folder that held entries, gone: the hint is refused, and its pages go.
    fs::create_dir_all(root.join("content/memory/old")).unwrap();
    fs::copy(
        root.join("content/memory/entry-02.md"),
        root.join("content/memory/old/moved-02.md"),
    )
    .unwrap();
    fs::remove_file(root.join("content/memory/entry-02.md")).unwrap();
    apply(&mut served, builder.rebuild(false).unwrap());
    let folder = root.join("content/memory/old");
    fs::remove_dir_all(&folder).unwrap();
    assert!(!builder.expect_only(&[folder]));
    apply(&mut served, builder.rebuild(false).unwrap());
    assert_same(&served, &full(root));
    assert!(!served.keys().any(|path| path.contains("moved-02")));
}

/// Hints given while the config is broken add up, so every edit made meanwhile is read once
/// the config is fixed; a symlink the watcher names, or a path the walk reported, makes the
/// load walk again.
#[test]
fn hints_add_up_and_links_make_the_load_walk() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write_site(root);
    let (mut builder, mut served) = serve(root);

    // Two hints before one load: both files are read.
    write_entry(root, 1, "One, told first", 1, (5 + 3) % 12);
    assert!(builder.expect_only(&[root.join("content/distributed/entry-01.md")]));
    write_entry(root, 3, "Three, told second", 3, (3 * 5 + 3) % 12);
    assert!(builder.expect_only(&[root.join("content/distributed/entry-03.md")]));
    apply(&mut served, builder.rebuild(false).unwrap());
    assert_same(&served, &full(root));
    let page = |served: &BTreeMap<String, Vec<u8>>, path: &str| {
        String::from_utf8_lossy(&served[path]).into_owned()
    };
    assert!(page(&served, "distributed/entry-01/index.html").contains("One, told first"));

    // While the config is broken, no load gets to the files: the edits made meanwhile are all
    // read once it is fixed (the failed full rebuild left a full look pending).
    let config = fs::read_to_string(root.join("errata.yaml")).unwrap();
    fs::write(root.join("errata.yaml"), "title: [unclosed\n").unwrap();
    assert!(builder.rebuild(true).is_err());
    for (i, name) in [(5, "Five"), (7, "Seven")] {
        let title = format!("{name}, while the config was broken");
        write_entry(root, i, &title, i, (i * 5 + 3) % 12);
        let file = root.join(format!("content/distributed/entry-{i:02}.md"));
        assert!(!builder.expect_only(&[file]));
        assert!(builder.rebuild(false).is_err());
    }
    fs::write(root.join("errata.yaml"), config).unwrap();
    apply(&mut served, builder.rebuild(true).unwrap());
    assert_same(&served, &full(root));
    assert!(page(&served, "distributed/entry-05/index.html").contains("Five, while the config"));
    assert!(page(&served, "distributed/entry-07/index.html").contains("Seven, while the config"));

    // A symlink out of content/ is a problem the walk reports; the watcher's naming it makes
    // the load walk, and so does its removal.
    #[cfg(unix)]
    {
        let link = root.join("content/memory/notes");
        std::os::unix::fs::symlink("/etc", &link).unwrap();
        assert!(!builder.expect_only(std::slice::from_ref(&link)));
        assert!(builder.rebuild(false).is_err());
        fs::remove_file(&link).unwrap();
        assert!(!builder.expect_only(std::slice::from_ref(&link)));
        apply(&mut served, builder.rebuild(false).unwrap());
        assert_same(&served, &full(root));
    }
}

/// Writes a site theme `custom`, the default one with `attribute="{{ root }}{{ entry.url }}"`
/// added to the card macro's `<article>`, and selects it.
/// The values of every `name="..."` attribute in `html`, in order.
fn attribute_values<'h>(html: &'h str, name: &str) -> Vec<&'h str> {
    html.split(&format!("{name}=\""))
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap())
        .collect()
}

fn card_theme(root: &Path, attribute: &str) {
    let config = fs::read_to_string(root.join("errata.yaml")).unwrap();
    if !config.starts_with("theme: custom") {
        fs::write(root.join("errata.yaml"), format!("theme: custom\n{config}")).unwrap();
    }
    let default = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("themes/default/templates/macros.html"),
    )
    .unwrap();
    let ours = default.replacen(
        "<article class=\"card",
        &format!("<article {attribute}=\"{{{{ root }}}}{{{{ entry.url }}}}\" class=\"card"),
        1,
    );
    assert_ne!(ours, default, "the card macro was not found to change");
    fs::create_dir_all(root.join("themes/custom/templates")).unwrap();
    fs::write(root.join("themes/custom/templates/macros.html"), ours).unwrap();
}

/// `errata serve` keeps drawn cards between rebuilds: after the theme's card macro changes,
/// every card must be drawn again with it.
#[test]
fn a_changed_card_macro_redraws_the_cards_kept_by_serve() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write_site(root);
    card_theme(root, "data-card");
    let (mut builder, mut served) = serve(root);
    // An edit first, so the kept cards are in use.
    write_entry(
        root,
        7,
        "Seven, before the theme changes",
        7,
        (7 * 5 + 3) % 12,
    );
    apply(&mut served, builder.rebuild(false).unwrap());
    card_theme(root, "data-drawn");
    apply(&mut served, builder.rebuild(true).unwrap());
    assert_same(&served, &full(root));
    let home = String::from_utf8_lossy(&served["index.html"]).into_owned();
    assert!(home.contains("data-drawn=") && !home.contains("data-card="));
}

/// Cards are drawn once per page depth and reused; a site theme's own `macros::card` is
/// the one drawn, in lists and on the home page, with links right for each page's depth.
/// (The default entry page lists related entries as one line each, not as cards; its links
/// are right for its depth too.)
#[test]
fn a_themes_card_macro_draws_every_card() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write_site(root);
    card_theme(root, "data-card");
    let site = full(root);
    let page = |path: &str| String::from_utf8(site[path].clone()).unwrap();
    for (path, root_of_page, cards) in [
        ("failures/index.html", "../", 4),
        ("failures/page/3/index.html", "../../../", 4),
        ("tags/oom/index.html", "../../", 4),
        ("index.html", "./", 8),
    ] {
        let html = page(path);
        let drawn = attribute_values(&html, "data-card");
        assert_eq!(drawn.len(), cards, "{path}: {drawn:?}");
        for link in drawn {
            let target = link
                .strip_prefix(root_of_page)
                .unwrap_or_else(|| panic!("{path}: card link {link} is not under {root_of_page}"));
            assert!(
                site.contains_key(&format!("{target}index.html")),
                "{path}: {link}"
            );
        }
    }
    let entry = page("memory/entry-00/index.html");
    let related = entry.split("class=\"related-list\"").nth(1).unwrap();
    let related = related.split("</ul>").next().unwrap();
    let links = attribute_values(related, "href");
    assert_eq!(links.len(), 6, "{links:?}");
    for link in links {
        let target = link.strip_prefix("../../").unwrap();
        assert!(site.contains_key(&format!("{target}index.html")), "{link}");
    }
}

/// An entry page's related entries get their drawn cards (`e.html`) when the site's own
/// `entry.html` may print them; the default one prints a line of its own for each, and its
/// page is the same without the cards.
#[test]
fn a_sites_entry_page_gets_its_related_entries_cards() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write_site(root);
    card_theme(root, "data-card");
    let default_page = full(root)["memory/entry-00/index.html"].clone();
    assert!(!String::from_utf8_lossy(&default_page).contains("data-card="));
    fs::write(
        root.join("themes/custom/templates/entry.html"),
        "{% extends \"base.html\" %}{% block content %}<ul>{% for e in entry.related %}<li>{{ e.html | safe }}</li>{% endfor %}</ul>{% endblock %}",
    )
    .unwrap();
    let page = String::from_utf8(full(root)["memory/entry-00/index.html"].clone()).unwrap();
    let drawn = attribute_values(&page, "data-card");
    assert_eq!(drawn.len(), 6, "{drawn:?}");
    assert!(
        drawn.iter().all(|link| link.starts_with("../../")),
        "{drawn:?}"
    );
}

/// The card macro gets each card's tags, though a list page's context leaves them out (they
/// cost a seventh of a large build, and the default card shows none).
#[test]
fn a_themes_card_macro_gets_the_cards_tags() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write_site(root);
    card_theme(root, "data-card");
    let macros = root.join("themes/custom/templates/macros.html");
    let ours = fs::read_to_string(&macros).unwrap().replacen(
        "<article data-card=",
        "<article data-tags=\"{% for t in entry.tags %}{{ t.name }} {% endfor %}\" data-card=",
        1,
    );
    assert!(ours.contains("data-tags="));
    fs::write(&macros, ours).unwrap();
    let site = full(root);
    let html = String::from_utf8(site["failures/index.html"].clone()).unwrap();
    let tags = attribute_values(&html, "data-tags");
    assert_eq!(tags.len(), 4, "{tags:?}");
    for t in tags {
        assert_eq!(
            t.split_whitespace().count(),
            2,
            "each entry has two tags: {t:?}"
        );
    }
}
