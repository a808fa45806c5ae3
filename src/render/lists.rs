//! The site's lists of entries (all failures, each category, each tag), cut into pages of
//! `paginate_by` cards: `failures/`, `failures/page/2/`, …
//!
//! A list page depends only on the cards it shows and on where it sits in its list, so
//! `errata serve` renders again only the pages whose cards or order an edit changed
//! (equal [`ListPage`]s whose entries did not change), not every list that holds the edited entry.

use serde::Serialize;

use crate::link::Site;
use crate::load::Tag;

/// Which list a page belongs to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ListId {
    All,
    Category(String),
    Tag(Tag),
}

impl ListId {
    /// The URL of the list's first page, relative to the site root.
    pub fn url(&self) -> String {
        match self {
            ListId::All => "failures/".into(),
            ListId::Category(key) => Site::category_url(key),
            ListId::Tag(tag) => Site::tag_url(tag),
        }
    }

    /// The URL of page `number` (1-based) of the list.
    pub fn page_url(&self, number: usize) -> String {
        if number <= 1 {
            self.url()
        } else {
            format!("{}page/{number}/", self.url())
        }
    }
}

/// One page of a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListPage {
    pub list: ListId,
    /// 1-based.
    pub number: usize,
    /// Pages in the list (at least one: an empty list still has its page).
    pub pages: usize,
    /// Entries in the whole list.
    pub total: usize,
    /// The entries this page shows, as indices into `site.entries`, in order.
    pub entries: Vec<usize>,
}

/// Every list of the site with its entries in display order: all failures by title, then
/// each category and each tag in the site's order.
pub fn lists(site: &Site) -> Vec<(ListId, Vec<usize>)> {
    let mut lists = vec![(ListId::All, site.by_title.clone())];
    lists.extend(
        site.categories
            .iter()
            .map(|c| (ListId::Category(c.key.clone()), c.entries.clone())),
    );
    lists.extend(
        site.tags
            .iter()
            .map(|(t, list)| (ListId::Tag(t.clone()), list.clone())),
    );
    lists
}

/// Every list page of the site.
pub fn list_pages(site: &Site) -> Vec<ListPage> {
    let per = site.config.paginate_by.max(1);
    let mut pages = Vec::new();
    for (list, entries) in lists(site) {
        let count = entries.len().div_ceil(per).max(1);
        for number in 1..=count {
            let start = ((number - 1) * per).min(entries.len());
            let end = (start + per).min(entries.len());
            pages.push(ListPage {
                list: list.clone(),
                number,
                pages: count,
                total: entries.len(),
                entries: entries[start..end].to_vec(),
            });
        }
    }
    pages
}

/// What a list page's template gets to draw its page links.
#[derive(Debug, Serialize)]
pub struct Pager {
    pub number: usize,
    pub pages: usize,
    /// URLs relative to the site root; empty at either end.
    pub first: String,
    pub prev: String,
    pub next: String,
    pub last: String,
    /// The numbered links: the first and last page, and two either side of this one, with
    /// gaps where pages are left out.
    pub links: Vec<PagerLink>,
}

#[derive(Debug, Serialize)]
pub struct PagerLink {
    /// 0 for a gap.
    pub number: usize,
    pub url: String,
    pub current: bool,
}

impl Pager {
    pub fn of(page: &ListPage) -> Pager {
        let (n, count) = (page.number, page.pages);
        let url = |k: usize| page.list.page_url(k);
        let mut links = Vec::new();
        let mut last_shown = 0;
        for k in 1..=count {
            if k == 1 || k == count || k.abs_diff(n) <= 2 {
                if k > last_shown + 1 {
                    links.push(PagerLink {
                        number: 0,
                        url: String::new(),
                        current: false,
                    });
                }
                links.push(PagerLink {
                    number: k,
                    url: url(k),
                    current: k == n,
                });
                last_shown = k;
            }
        }
        Pager {
            number: n,
            pages: count,
            first: url(1),
            prev: if n > 1 { url(n - 1) } else { String::new() },
            next: if n < count { url(n + 1) } else { String::new() },
            last: url(count),
            links,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(number: usize, pages: usize) -> ListPage {
        ListPage {
            list: ListId::All,
            number,
            pages,
            total: pages * 10,
            entries: Vec::new(),
        }
    }

    #[test]
    fn page_urls() {
        assert_eq!(ListId::All.page_url(1), "failures/");
        assert_eq!(ListId::All.page_url(3), "failures/page/3/");
        assert_eq!(
            ListId::Category("memory".into()).page_url(2),
            "memory/page/2/"
        );
    }

    #[test]
    fn pager_shows_ends_and_neighbours_with_gaps() {
        let numbers = |p: &Pager| p.links.iter().map(|l| l.number).collect::<Vec<_>>();
        assert_eq!(numbers(&Pager::of(&page(1, 1))), [1]);
        assert_eq!(numbers(&Pager::of(&page(1, 10))), [1, 2, 3, 0, 10]);
        assert_eq!(
            numbers(&Pager::of(&page(6, 10))),
            [1, 0, 4, 5, 6, 7, 8, 0, 10]
        );
        assert_eq!(numbers(&Pager::of(&page(4, 10))), [1, 2, 3, 4, 5, 6, 0, 10]);
        let p = Pager::of(&page(1, 3));
        assert_eq!((p.prev.as_str(), p.next.as_str()), ("", "failures/page/2/"));
        let p = Pager::of(&page(3, 3));
        assert_eq!((p.prev.as_str(), p.next.as_str()), ("failures/page/2/", ""));
        assert!(p.links.iter().filter(|l| l.current).count() == 1);
    }
}
