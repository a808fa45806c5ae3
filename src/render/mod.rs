//! The render stage: a linked [`Site`] and the theme in, every output file in memory out.
//!
//! Compiles the templates once (Tera, with inheritance; a site's theme may replace any
//! template), renders each page from borrowed view structs in parallel, and adds the feeds,
//! sitemap, entries.json, the highlighting stylesheet and the theme's static files (the search
//! bundles are [`crate::search`]'s). Pure: it reads and writes nothing, so it is tested in
//! memory. Output order is sorted by path.

pub mod feeds;
pub mod highlight;
pub mod lists;
pub mod markdown;
pub mod views;

use std::collections::{BTreeSet, HashMap};

use rayon::prelude::*;
use serde::Serialize;
use tera::{Context, Tera};

use crate::link::Site;
use crate::load::theme::ThemeFiles;
use views::{card, entry_view, site_view, Crumb};

/// One file of the built site: a relative path with `/` separators, and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    pub path: String,
    pub bytes: Vec<u8>,
}

#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("template {name}: {message}")]
    Template { name: String, message: String },
    #[error("the theme has no template {name}")]
    MissingTemplate { name: String },
}

/// The templates a theme must provide.
pub const REQUIRED_TEMPLATES: [&str; 7] = [
    "base.html",
    "index.html",
    "entry.html",
    "list.html",
    "tags.html",
    "404.html",
    "search.html",
];

/// Flattens a Tera error and its causes into one line.
fn tera_message(error: &tera::Error) -> String {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    message
}

/// Tera's autoescape, without escaping `/` (so URLs stay readable in the HTML).
fn escape_html(s: &str) -> String {
    highlight::escape(s)
}

/// Compiles the theme's templates once.
pub fn compile_templates(theme: &ThemeFiles) -> Result<Tera, RenderError> {
    let mut tera = Tera::default();
    tera.set_escape_fn(escape_html);
    tera.add_raw_templates(
        theme
            .templates
            .iter()
            .map(|(n, t)| (n.as_str(), t.as_str())),
    )
    .map_err(|e| RenderError::Template {
        name: "theme".into(),
        message: tera_message(&e),
    })?;
    tera.add_raw_template(
        CARD_TEMPLATE,
        "{% import \"macros.html\" as macros %}{{ macros::card(entry=entry, root=root, level=level) }}",
    )
    .map_err(|e| RenderError::Template {
        name: "macros.html".into(),
        message: tera_message(&e),
    })?;
    for name in REQUIRED_TEMPLATES {
        if !theme.templates.contains_key(name) {
            return Err(RenderError::MissingTemplate { name: name.into() });
        }
    }
    Ok(tera)
}

/// The internal template that draws one card with the theme's `macros::card`.
const CARD_TEMPLATE: &str = "__errata_card.html";

/// Each entry's card, drawn once for each page depth and heading level it is shown at and
/// reused wherever it is shown so: a card appears on about a dozen pages (lists, tags,
/// related entries), and drawing it was a large part of all template time. Kept between
/// `errata serve`'s rebuilds, a card is drawn again when its place holds another loaded entry
/// or its category's title changed (all a card shows comes from those two). It is kept only
/// for one set of templates: see [`Memo::for_templates`].
#[derive(Default)]
struct CardMemo {
    drawn: std::sync::Mutex<HashMap<(usize, String, u8), DrawnCard>>,
}

struct DrawnCard {
    basis: Basis,
    html: std::sync::Arc<str>,
}

/// What a piece of output kept between rebuilds was made from: the loaded entry at its place
/// (the same `Arc`: its file is unchanged) and its category's title. Kept cards and
/// entries.json lines are reused only while this holds.
struct Basis {
    entry: std::sync::Arc<crate::load::Entry>,
    category_title: String,
}

impl Basis {
    fn of(site: &Site, index: usize) -> Basis {
        let entry = site.entries[index].clone();
        let category_title = site.category_title(&entry.category).to_owned();
        Basis {
            entry,
            category_title,
        }
    }

    fn holds(&self, site: &Site, index: usize) -> bool {
        let entry = &site.entries[index];
        std::sync::Arc::ptr_eq(&self.entry, entry)
            && self.category_title == site.category_title(&entry.category)
    }
}

impl CardMemo {
    /// `card` (entry `index`) as HTML for a page at `root` with an `h{level}` title.
    fn html(
        &self,
        tera: &Tera,
        site: &Site,
        index: usize,
        card: &views::Card<'_>,
        root: &str,
        level: u8,
    ) -> Result<String, RenderError> {
        let key = (index, root.to_owned(), level);
        let lock = || {
            self.drawn
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        if let Some(drawn) = lock().get(&key).filter(|d| d.basis.holds(site, index)) {
            return Ok(drawn.html.to_string());
        }
        let failed = |e: tera::Error| RenderError::Template {
            name: "macros.html".into(),
            message: tera_message(&e),
        };
        let mut ctx = serde_json::Map::new();
        ctx.insert("entry".into(), value(card));
        ctx.insert("root".into(), tera::Value::String(root.to_owned()));
        ctx.insert("level".into(), tera::Value::from(level));
        let ctx = Context::from_value(tera::Value::Object(ctx)).map_err(failed)?;
        let html = tera.render(CARD_TEMPLATE, &ctx).map_err(failed)?;
        let drawn = DrawnCard {
            basis: Basis::of(site, index),
            html: html.as_str().into(),
        };
        lock().insert(key, drawn);
        Ok(html)
    }

    /// The cards of `list` for a page at `root`, each with its HTML.
    fn cards<'a>(
        &self,
        tera: &Tera,
        site: &'a Site,
        list: &[usize],
        root: &str,
        level: u8,
    ) -> Result<Vec<views::Card<'a>>, RenderError> {
        list.iter()
            .map(|&i| {
                let mut c = card(site, i);
                c.html = self.html(tera, site, i, &c, root, level)?;
                Ok(c)
            })
            .collect()
    }
}

/// Common page context: the site, the path to the root, the canonical URL and breadcrumbs.
struct Page {
    template: &'static str,
    path: String,
    root: String,
    url: String,
    crumbs: Vec<Crumb>,
    extra: Vec<(&'static str, tera::Value)>,
}

fn depth_root(url: &str) -> String {
    let depth = url.matches('/').count();
    if depth == 0 {
        "./".to_owned()
    } else {
        "../".repeat(depth)
    }
}

fn value<T: Serialize>(v: &T) -> tera::Value {
    serde_json::to_value(v).unwrap_or(tera::Value::Null)
}

/// Which files a render produces.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Selection {
    /// Every file of the site: what `errata build` writes.
    #[default]
    All,
    /// After an edit that kept every URL: the entry pages and list pages named (a list page
    /// as its list and 1-based number), and the small files that sum up the whole site
    /// (home, the tags index, feeds, sitemap, entries.json). Not the search bundle, the
    /// theme's static files or the other pages, which the caller keeps from the last render.
    Only {
        entries: BTreeSet<usize>,
        list_pages: BTreeSet<(lists::ListId, usize)>,
    },
}

impl Selection {
    fn entry(&self, index: usize) -> bool {
        match self {
            Selection::All => true,
            Selection::Only { entries, .. } => entries.contains(&index),
        }
    }

    fn list_page(&self, page: &lists::ListPage) -> bool {
        match self {
            Selection::All => true,
            Selection::Only { list_pages, .. } => {
                list_pages.contains(&(page.list.clone(), page.number))
            }
        }
    }
}

/// What one render keeps for the next, so that `errata serve` does not make again what an
/// edit did not change. A fresh one gives the same output, only slower.
#[derive(Default)]
pub struct Memo {
    entries_json: feeds::JsonLines,
    cards: CardMemo,
}

impl Memo {
    /// Forgets what depends on the templates, before a render with newly compiled ones.
    pub fn for_templates(&mut self) {
        self.cards = CardMemo::default();
    }
}

/// Renders the whole site. `tick` is called once per page rendered, for a progress bar.
pub fn render_site(
    site: &Site,
    theme: &ThemeFiles,
    tera: &Tera,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<Output>, RenderError> {
    render_selected(site, theme, tera, &Selection::All, &Memo::default(), tick)
}

/// Renders the files `selection` names, sorted by path.
pub fn render_selected(
    site: &Site,
    theme: &ThemeFiles,
    tera: &Tera,
    selection: &Selection,
    memo: &Memo,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<Output>, RenderError> {
    let collected = std::sync::Mutex::new(Vec::new());
    render_into(site, theme, tera, selection, memo, tick, &|o| {
        collected
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(o);
        Ok::<(), RenderError>(())
    })?;
    let mut outputs = collected
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    outputs.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(outputs)
}

/// Renders the files `selection` names and hands each to `put` as soon as it is ready, from
/// several threads and in no particular order, so the caller can write it and let it go.
pub fn render_into<E: From<RenderError> + Send>(
    site: &Site,
    theme: &ThemeFiles,
    tera: &Tera,
    selection: &Selection,
    memo: &Memo,
    tick: &(dyn Fn() + Sync),
    put: &(dyn Fn(Output) -> Result<(), E> + Sync),
) -> Result<(), E> {
    let site_value = value(&site_view(site));
    let home = Crumb {
        title: "Home".into(),
        url: String::new(),
    };

    let render = |page: Page| -> Result<Output, RenderError> {
        // The context is built as one JSON object, so the page's own values (an entry's view
        // with its HTML) move in instead of being copied by `Context::insert`.
        let mut ctx = serde_json::Map::new();
        ctx.insert("site".into(), site_value.clone());
        ctx.insert("root".into(), tera::Value::String(page.root.clone()));
        ctx.insert(
            "canonical".into(),
            tera::Value::String(format!("{}{}", site.config.base_url(), page.url)),
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
        for (k, v) in page.extra {
            ctx.insert(k.into(), v);
        }
        let ctx =
            Context::from_value(tera::Value::Object(ctx)).map_err(|e| RenderError::Template {
                name: page.template.into(),
                message: tera_message(&e),
            })?;
        let html = tera
            .render(page.template, &ctx)
            .map_err(|e| RenderError::Template {
                name: page.template.into(),
                message: tera_message(&e),
            })?;
        tick();
        Ok(Output {
            path: page.path,
            bytes: html.into_bytes(),
        })
    };

    render_pages(site, tera, selection, memo, &render, &home, put)?;
    if *selection != Selection::All {
        return Ok(());
    }
    put(text(HIGHLIGHT_CSS, highlight::stylesheet()))?;
    for (name, bytes) in &theme.statics {
        let path = format!("static/{name}");
        // The generated stylesheet wins over a theme file of the same name.
        if path != HIGHLIGHT_CSS {
            put(Output {
                path,
                bytes: bytes.clone(),
            })?;
        }
    }
    Ok(())
}

fn text(path: &str, s: String) -> Output {
    Output {
        path: path.into(),
        bytes: s.into_bytes(),
    }
}

/// The pages, feeds, sitemap and entries.json that `selection` names, handed to `put`.
fn render_pages<E: From<RenderError> + Send>(
    site: &Site,
    tera: &Tera,
    selection: &Selection,
    kept: &Memo,
    render: &(dyn Fn(Page) -> Result<Output, RenderError> + Sync),
    home: &Crumb,
    put: &(dyn Fn(Output) -> Result<(), E> + Sync),
) -> Result<(), E> {
    let base_path = base_path(&site.config.base_url());
    let memo = &kept.cards;
    // Entry pages, in parallel.
    (0..site.entries.len())
        .into_par_iter()
        .filter(|&i| selection.entry(i))
        .try_for_each(|i| -> Result<(), E> {
            let url = site.entry_url(i);
            let root = depth_root(&url);
            let e = &site.entries[i];
            let mut view = entry_view(site, i, &root);
            for (card, &j) in view.related.iter_mut().zip(&site.related[i]) {
                card.html = memo.html(tera, site, j, card, &root, 3)?;
            }
            let crumbs = vec![
                home.clone(),
                Crumb {
                    title: site.category_title(&e.category).to_owned(),
                    url: format!("{root}{}", crate::link::Site::category_url(&e.category)),
                },
                Crumb {
                    title: e.title.clone(),
                    url: String::new(),
                },
            ];
            put(render(Page {
                template: "entry.html",
                path: format!("{url}index.html"),
                root,
                url,
                crumbs,
                extra: vec![("entry", value(&view))],
            })?)
        })?;

    let mut pages: Vec<Page> = Vec::new();
    let recent = feeds::newest(site, 8);
    pages.push(Page {
        template: "index.html",
        path: "index.html".into(),
        root: "./".into(),
        url: String::new(),
        crumbs: Vec::new(),
        extra: vec![("recent", value(&memo.cards(tera, site, &recent, "./", 3)?))],
    });
    // List pages are made into contexts only as they render: built up front, the cards of
    // every page of every list were held at once (over 300 MB at 10,000 entries).
    let list_pages: Vec<lists::ListPage> = lists::list_pages(site)
        .into_iter()
        .filter(|page| selection.list_page(page))
        .collect();
    #[derive(Serialize)]
    struct TagView<'a> {
        name: &'a str,
        url: String,
        count: usize,
    }
    let tag_list: Vec<TagView<'_>> = site
        .tags
        .iter()
        .map(|(t, list)| TagView {
            name: t.as_str(),
            url: crate::link::Site::tag_url(t),
            count: list.len(),
        })
        .collect();
    pages.push(Page {
        template: "tags.html",
        path: "tags/index.html".into(),
        root: "../".into(),
        url: "tags/".into(),
        crumbs: vec![
            home.clone(),
            Crumb {
                title: "Tags".into(),
                url: String::new(),
            },
        ],
        extra: vec![("tags", value(&tag_list))],
    });
    pages.push(Page {
        template: "search.html",
        path: "search/index.html".into(),
        root: "../".into(),
        url: "search/".into(),
        crumbs: vec![
            home.clone(),
            Crumb {
                title: "Search".into(),
                url: String::new(),
            },
        ],
        extra: Vec::new(),
    });
    pages.push(Page {
        template: "404.html",
        path: "404.html".into(),
        root: base_path.clone(),
        url: "404.html".into(),
        crumbs: Vec::new(),
        extra: Vec::new(),
    });
    // The first page of every list, and the other pages of the site (the sitemap adds the
    // entries).
    let mut sitemap_pages: Vec<String> = ["", "failures/", "tags/", "search/"]
        .into_iter()
        .map(String::from)
        .chain(
            site.categories
                .iter()
                .map(|c| crate::link::Site::category_url(&c.key)),
        )
        .chain(site.tags.keys().map(crate::link::Site::tag_url))
        .collect();
    sitemap_pages.sort();
    pages
        .into_par_iter()
        .try_for_each(|page| -> Result<(), E> { put(render(page)?) })?;
    list_pages
        .into_par_iter()
        .try_for_each(|page| -> Result<(), E> {
            put(render(list_page(site, tera, memo, home, page)?)?)
        })?;

    put(text("sitemap.xml", feeds::sitemap(site, &sitemap_pages)))?;
    put(text("atom.xml", feeds::atom(site)))?;
    put(text("robots.txt", feeds::robots(site)))?;
    put(text("opensearch.xml", feeds::opensearch(site)))?;
    put(text(
        "entries.json",
        feeds::entries_json(site, &kept.entries_json),
    ))?;
    Ok(())
}

/// The page of a list: its heading, crumbs, pager and cards.
fn list_page(
    site: &Site,
    tera: &Tera,
    memo: &CardMemo,
    home: &Crumb,
    page: lists::ListPage,
) -> Result<Page, RenderError> {
    let url = page.list.page_url(page.number);
    let root = depth_root(&url);
    let (heading, description_html, kind, title_crumbs) = match &page.list {
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
    };
    let mut crumbs = vec![home.clone()];
    crumbs.extend(title_crumbs.into_iter().map(|(title, to)| Crumb {
        title,
        url: if to.is_empty() {
            String::new()
        } else {
            format!("{root}{to}")
        },
    }));
    let pager = lists::Pager::of(&page);
    let cards = memo.cards(tera, site, &page.entries, &root, 2)?;
    Ok(Page {
        template: "list.html",
        path: format!("{url}index.html"),
        root,
        url,
        crumbs,
        extra: vec![
            ("heading", tera::Value::String(heading)),
            ("description_html", tera::Value::String(description_html)),
            ("list_kind", tera::Value::String(kind.into())),
            ("feed_url", tera::Value::String(String::new())),
            ("total", value(&page.total)),
            ("pager", value(&pager)),
            ("entries", value(&cards)),
        ],
    })
}

/// The highlighting stylesheet, generated from syntect's themes.
const HIGHLIGHT_CSS: &str = "static/highlight.css";

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
