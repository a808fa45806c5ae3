//! The site's HTML pages, feeds, sitemap and entries.json, rendered from typed views.
//!
//! Takes a linked [`Site`], the compiled templates and what the last render kept; a
//! [`Renderer`] renders the entry pages and list pages in parallel and hands each file to the
//! caller as soon as it is ready. Each page's template gets the common context (the site, the
//! path to the root, the canonical URL, the breadcrumbs) and its own view struct.

use rayon::prelude::*;
use serde::Serialize;
use tera::{Context, Tera};

use super::templates::{tera_message, CardMemo};
use super::views::{
    entry_view, site_view, Crumb, EntryPageView, HomeView, ListView, TagView, TagsView,
};
use super::{feeds, lists, markdown, text, value, Memo, Output, RenderError, Selection};
use crate::link::Site;

/// One page: its template, where it goes, its place in the site and its own view.
struct Page {
    template: &'static str,
    path: String,
    root: String,
    url: String,
    crumbs: Vec<Crumb>,
    /// The page's view, as the fields it adds to the context.
    view: serde_json::Map<String, tera::Value>,
}

/// A view's fields, to add to a page's context.
fn fields<V: Serialize>(view: &V) -> serde_json::Map<String, tera::Value> {
    match value(view) {
        tera::Value::Object(map) => map,
        _ => serde_json::Map::new(),
    }
}

fn depth_root(url: &str) -> String {
    let depth = url.matches('/').count();
    if depth == 0 {
        "./".to_owned()
    } else {
        "../".repeat(depth)
    }
}

/// Renders the pages of one site with one set of templates.
pub(super) struct Renderer<'a> {
    pub site: &'a Site,
    pub tera: &'a Tera,
    pub memo: &'a Memo,
    pub tick: &'a (dyn Fn() + Sync),
    /// Whether entry pages get their related entries' cards drawn (`e.html`).
    related_cards: bool,
    /// The `site` view, the same on every page.
    site_value: tera::Value,
    home: Crumb,
}

impl<'a> Renderer<'a> {
    pub fn new(
        site: &'a Site,
        tera: &'a Tera,
        memo: &'a Memo,
        tick: &'a (dyn Fn() + Sync),
        related_cards: bool,
    ) -> Renderer<'a> {
        Renderer {
            site,
            tera,
            memo,
            tick,
            related_cards,
            site_value: value(&site_view(site)),
            home: Crumb {
                title: "Home".into(),
                url: String::new(),
            },
        }
    }

    fn cards(&self) -> &CardMemo {
        &self.memo.cards
    }

    /// The pages, feeds, sitemap and entries.json that `selection` names, handed to `put`.
    pub fn pages<E: From<RenderError> + Send>(
        &self,
        selection: &Selection,
        put: &(dyn Fn(Output) -> Result<(), E> + Sync),
    ) -> Result<(), E> {
        let site = self.site;
        (0..site.entries.len())
            .into_par_iter()
            .filter(|&i| selection.entry(i))
            .try_for_each(|i| -> Result<(), E> { put(self.render(self.entry_page(i)?)?) })?;
        self.site_pages()?
            .into_par_iter()
            .try_for_each(|page| -> Result<(), E> { put(self.render(page)?) })?;
        // List pages are made into contexts only as they render: built up front, the cards of
        // every page of every list were held at once (over 300 MB at 10,000 entries).
        lists::list_pages(site)
            .into_par_iter()
            .filter(|page| selection.list_page(page))
            .try_for_each(|page| -> Result<(), E> { put(self.render(self.list_page(page)?)?) })?;
        put(text(
            "sitemap.xml",
            feeds::sitemap(site, &sitemap_pages(site)),
        ))?;
        put(text("atom.xml", feeds::atom(site)))?;
        put(text("robots.txt", feeds::robots(site)))?;
        put(text("opensearch.xml", feeds::opensearch(site)))?;
        put(text(
            "entries.json",
            feeds::entries_json(site, &self.memo.entries_json),
        ))?;
        Ok(())
    }

    /// Renders one page with the common context and its own view.
    fn render(&self, page: Page) -> Result<Output, RenderError> {
        // The context is built as one JSON object, so the page's own values (an entry's view
        // with its HTML) move in instead of being copied by `Context::insert`.
        let mut ctx = serde_json::Map::new();
        ctx.insert("site".into(), self.site_value.clone());
        ctx.insert("root".into(), tera::Value::String(page.root.clone()));
        ctx.insert(
            "canonical".into(),
            tera::Value::String(format!("{}{}", self.site.config.base_url(), page.url)),
        );
        ctx.insert(
            "generator_version".into(),
            tera::Value::String(env!("CARGO_PKG_VERSION").into()),
        );
        let crumbs: Vec<Crumb> = page
            .crumbs
            .iter()
            .map(|c| Crumb {
                title: c.title.clone(),
                url: if c.url.is_empty() && c.title == "Home" {
                    page.root.clone()
                } else {
                    c.url.clone()
                },
            })
            .collect();
        ctx.insert("breadcrumbs".into(), value(&crumbs));
        ctx.extend(page.view);
        let failed = |e: tera::Error| RenderError::Template {
            name: page.template.into(),
            message: tera_message(&e),
        };
        let ctx = Context::from_value(tera::Value::Object(ctx)).map_err(failed)?;
        let html = self.tera.render(page.template, &ctx).map_err(failed)?;
        (self.tick)();
        Ok(Output {
            path: page.path,
            bytes: html.into_bytes(),
        })
    }

    fn entry_page(&self, i: usize) -> Result<Page, RenderError> {
        let site = self.site;
        let url = site.entry_url(i);
        let root = depth_root(&url);
        let e = &site.entries[i];
        let mut view = entry_view(site, i, &root);
        if self.related_cards {
            for (card, &j) in view.related.iter_mut().zip(&site.related[i]) {
                card.html = self.cards().html(self.tera, site, j, &root, 3)?;
            }
        }
        let crumbs = vec![
            self.home.clone(),
            Crumb {
                title: site.category_title(&e.category).to_owned(),
                url: format!("{root}{}", Site::category_url(&e.category)),
            },
            Crumb {
                title: e.title.clone(),
                url: String::new(),
            },
        ];
        Ok(Page {
            template: "entry.html",
            path: format!("{url}index.html"),
            root,
            url,
            crumbs,
            view: fields(&EntryPageView { entry: view }),
        })
    }

    /// The home page, the tags index, the search page and the 404 page.
    fn site_pages(&self) -> Result<Vec<Page>, RenderError> {
        let site = self.site;
        let recent = feeds::newest(site, 8);
        let home = HomeView {
            recent: self.cards().cards(self.tera, site, &recent, "./", 3)?,
        };
        let tags = TagsView {
            tags: site
                .tags
                .iter()
                .map(|(t, list)| TagView {
                    name: t.as_str(),
                    url: Site::tag_url(t),
                    count: list.len(),
                })
                .collect(),
        };
        let titled = |title: &str| vec![self.home.clone(), crumb(title)];
        let page = |template, path: &str, root: &str, url: &str, crumbs, view| Page {
            template,
            path: path.into(),
            root: root.into(),
            url: url.into(),
            crumbs,
            view,
        };
        let none = serde_json::Map::new;
        Ok(vec![
            page(
                "index.html",
                "index.html",
                "./",
                "",
                Vec::new(),
                fields(&home),
            ),
            page(
                "tags.html",
                "tags/index.html",
                "../",
                "tags/",
                titled("Tags"),
                fields(&tags),
            ),
            page(
                "search.html",
                "search/index.html",
                "../",
                "search/",
                titled("Search"),
                none(),
            ),
            page(
                "404.html",
                "404.html",
                &base_path(&site.config.base_url()),
                "404.html",
                Vec::new(),
                none(),
            ),
        ])
    }

    /// The page of a list: its heading, crumbs, pager and cards.
    fn list_page(&self, page: lists::ListPage) -> Result<Page, RenderError> {
        let site = self.site;
        let url = page.list.page_url(page.number);
        let root = depth_root(&url);
        let (heading, description_html, kind, title_crumbs) = list_heading(site, &page.list);
        let mut crumbs = vec![self.home.clone()];
        crumbs.extend(title_crumbs.into_iter().map(|(title, to)| Crumb {
            title,
            url: if to.is_empty() {
                String::new()
            } else {
                format!("{root}{to}")
            },
        }));
        let view = ListView {
            heading,
            description_html,
            list_kind: kind,
            feed_url: String::new(),
            total: page.total,
            pager: lists::Pager::of(&page),
            entries: self
                .cards()
                .cards(self.tera, site, &page.entries, &root, 2)?,
        };
        Ok(Page {
            template: "list.html",
            path: format!("{url}index.html"),
            root,
            url,
            crumbs,
            view: fields(&view),
        })
    }
}

fn crumb(title: &str) -> Crumb {
    Crumb {
        title: title.into(),
        url: String::new(),
    }
}

/// A list's heading, description, kind, and the crumbs after Home (title, link from the root).
fn list_heading(
    site: &Site,
    list: &lists::ListId,
) -> (String, String, &'static str, Vec<(String, &'static str)>) {
    match list {
        lists::ListId::All => (
            "All failures".to_owned(),
            String::new(),
            "all",
            vec![("All failures".to_owned(), "")],
        ),
        lists::ListId::Category(key) => {
            let c = site.category(key).expect("a listed category exists");
            (
                c.title.clone(),
                markdown::render_inline(&c.description, &NoLinks),
                "category",
                vec![(c.title.clone(), "")],
            )
        }
        lists::ListId::Tag(tag) => (
            format!("#{tag}"),
            String::new(),
            "tag",
            vec![("Tags".to_owned(), "tags/"), (format!("#{tag}"), "")],
        ),
    }
}

/// The first page of every list, and the other pages of the site (the sitemap adds the
/// entries).
fn sitemap_pages(site: &Site) -> Vec<String> {
    let mut pages: Vec<String> = ["", "failures/", "tags/", "search/"]
        .into_iter()
        .map(String::from)
        .chain(site.categories.iter().map(|c| Site::category_url(&c.key)))
        .chain(site.tags.keys().map(Site::tag_url))
        .collect();
    pages.sort();
    pages
}

/// The path part of the base URL (`/` or `/errata/`), for pages served at any depth (404).
fn base_path(base_url: &str) -> String {
    let after_scheme = base_url
        .split_once("://")
        .map_or(base_url, |(_, rest)| rest);
    match after_scheme.find('/') {
        Some(i) => after_scheme[i..].to_owned(),
        None => "/".to_owned(),
    }
}

/// For text outside any entry (category descriptions): no entry or tag links.
struct NoLinks;

impl markdown::Links for NoLinks {
    fn entry(&self, _: &str) -> Option<String> {
        None
    }
    fn tag(&self, _: &str) -> Option<String> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots() {
        assert_eq!(depth_root(""), "./");
        assert_eq!(depth_root("failures/"), "../");
        assert_eq!(depth_root("memory/x/"), "../../");
        assert_eq!(base_path("https://a.b/errata/"), "/errata/");
        assert_eq!(base_path("https://a.b/"), "/");
    }
}
