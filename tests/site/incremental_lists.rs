//! List pages after builds and edits: pages of `paginate_by` cards with a working pager,
//! every entry once in title order, and related lists computed again when an edit moves an
//! entry in its category.

use super::*;

/// Every page link of a list page's pager leads to a page of the site.
fn assert_pager_links_resolve(
    site: &BTreeMap<String, Vec<u8>>,
    path: &str,
    html: &str,
    depth: &str,
) {
    for link in html
        .split("class=\"pager\"")
        .nth(1)
        .unwrap()
        .split("</nav>")
        .next()
        .unwrap()
        .split("href=\"")
        .skip(1)
    {
        let href = link.split('"').next().unwrap();
        let target = format!("{}index.html", href.strip_prefix(depth).unwrap());
        assert!(
            site.contains_key(&target),
            "{path} links {href}, which is not a page"
        );
    }
}

/// The cards of one list page, as the entry URLs they link, in order.
fn card_links(html: &str) -> Vec<String> {
    // A card's first link is its title's.
    html.split("<article class=\"card")
        .skip(1)
        .map(|card| {
            let rest = card
                .split_once("href=\"")
                .expect("a card links its entry")
                .1;
            rest.split('"').next().unwrap().to_owned()
        })
        .collect()
}

#[test]
fn lists_are_cut_into_linked_pages_that_show_every_entry_once() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write_site(root);
    let site = full(root);
    let page = |path: &str| -> String {
        String::from_utf8(
            site.get(path)
                .unwrap_or_else(|| panic!("no {path}"))
                .clone(),
        )
        .unwrap()
    };
    // All failures: ten pages of four, in title order, every entry once.
    let mut seen = Vec::new();
    for n in 1..=10 {
        let path = if n == 1 {
            "failures/index.html".to_owned()
        } else {
            format!("failures/page/{n}/index.html")
        };
        let html = page(&path);
        let cards = card_links(&html);
        assert_eq!(cards.len(), 4, "{path} has {} cards", cards.len());
        assert!(
            html.contains("40 entries, page"),
            "{path} does not say its place"
        );
        assert_eq!(html.contains("rel=\"prev\""), n > 1, "{path}: prev link");
        assert_eq!(html.contains("rel=\"next\""), n < 10, "{path}: next link");
        // Every page link of the pager leads to a page of the site.
        let depth = if n == 1 { "../" } else { "../../../" };
        assert_pager_links_resolve(&site, &path, &html, depth);
        seen.extend(
            cards
                .into_iter()
                .map(|c| c.trim_start_matches(depth).to_owned()),
        );
    }
    assert!(!site.contains_key("failures/page/11/index.html"));
    assert!(!site.contains_key("failures/page/1/index.html"));
    let mut unique = seen.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        unique.len(),
        ENTRIES,
        "entries missing or shown twice: {seen:?}"
    );
    let titles: Vec<String> = seen
        .iter()
        .map(|url| {
            let html = page(&format!("{url}index.html"));
            html.split("<h1 id=\"entry-title\">")
                .nth(1)
                .unwrap()
                .split('<')
                .next()
                .unwrap()
                .to_owned()
        })
        .collect();
    let mut sorted = titles.clone();
    sorted.sort();
    assert_eq!(
        titles, sorted,
        "all failures is not in title order across its pages"
    );
    // A category of 20 entries takes five pages; the sitemap names only first pages.
    assert!(site.contains_key("memory/page/5/index.html"));
    assert!(!site.contains_key("memory/page/6/index.html"));
    let sitemap = String::from_utf8(site["sitemap.xml"].clone()).unwrap();
    assert!(sitemap.contains("https://errata.example/memory/<"));
    assert!(!sitemap.contains("/page/"));
}

/// Entries that share no tag are related by their category's title order: a title edit
/// that moves an entry in that order changes other entries' related lists, which a rebuild
/// must compute again rather than keep.
#[test]
fn a_title_that_moves_in_its_category_changes_related_lists() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    fs::create_dir_all(root.join("content/memory")).unwrap();
    fs::write(
        root.join("errata.yaml"),
        "title: Related\ncategories:\n  memory:\n    title: Memory\n",
    )
    .unwrap();
    let write = |i: usize, title: &str| {
        fs::write(
            root.join(format!("content/memory/entry-{i}.md")),
            format!("---\ntitle: {title}\ncategory: memory\nseverity: low\nsummary: Entry {i}.\nsignatures:\n  - \"RuntimeError: code {i}\"\n---\nBody {i}.\n"),
        )
        .unwrap();
    };
    for i in 0..10 {
        write(i, &format!("Failure {i}"));
    }
    let (mut builder, mut served) = serve(root);
    assert_same(&served, &full(root));
    let related_of_0 = |served: &BTreeMap<String, Vec<u8>>| {
        let html = String::from_utf8_lossy(&served["memory/entry-0/index.html"]).into_owned();
        html.split("id=\"related\"")
            .nth(1)
            .unwrap()
            .contains("Aardvark")
    };
    assert!(!related_of_0(&served));
    // Entry 9 was last in the category; now it sorts first, so it is among entry 0's six.
    write(9, "Aardvark failure");
    let edit = builder.rebuild(false).unwrap();
    assert!(!edit.complete);
    apply(&mut served, edit);
    assert_same(&served, &full(root));
    assert!(
        related_of_0(&served),
        "entry 0's related list was kept from before the edit"
    );
}
