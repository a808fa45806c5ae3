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
mod pages;
mod palette;
mod templates;
pub mod views;

use std::collections::BTreeSet;

use serde::Serialize;
use tera::Tera;

use crate::link::Site;
use crate::load::theme::ThemeFiles;
use templates::CardMemo;

pub use templates::compile_templates;

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
    /// The pages to render again after an edit that kept every URL, given `changed`, the
    /// entries of `site` whose own file changed: those entries, the entries whose related
    /// cards show one of them or whose related list is not `related_before`'s, and the list
    /// pages that show one of them or that were not shown as they are now (`shown_before`).
    pub fn after_edit(
        site: &Site,
        changed: &BTreeSet<usize>,
        related_before: &[Vec<usize>],
        shown_before: impl Fn(&lists::ListPage) -> bool,
    ) -> Selection {
        let mut entries = changed.clone();
        for (i, related) in site.related.iter().enumerate() {
            if related_before.get(i) != Some(related) || related.iter().any(|j| changed.contains(j))
            {
                entries.insert(i);
            }
        }
        let list_pages = lists::list_pages(site)
            .into_iter()
            .filter(|p| !shown_before(p) || p.entries.iter().any(|j| changed.contains(j)))
            .map(|p| (p.list, p.number))
            .collect();
        Selection::Only {
            entries,
            list_pages,
        }
    }

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
    pages::Renderer::new(site, tera, memo, tick, draws_related_cards(theme))
        .pages(selection, put)?;
    if *selection != Selection::All {
        return Ok(());
    }
    for (name, bytes) in &theme.statics {
        let path = format!("static/{name}");
        let bytes = if path == STYLE_CSS {
            with_highlighting(bytes)
        } else {
            bytes.clone()
        };
        put(Output { path, bytes })?;
    }
    Ok(())
}

/// Whether an entry page's templates may print its related entries' cards (`e.html`). The
/// default `entry.html` lists them as lines of its own and its `base.html` prints no entry, so
/// with both, drawing them (one card per entry page, a tenth of a build) is left out.
fn draws_related_cards(theme: &ThemeFiles) -> bool {
    !(theme.is_default_template("entry.html") && theme.is_default_template("base.html"))
}

/// The theme's stylesheet with the highlighting rules generated from the palette after it:
/// one stylesheet, so a page links one.
fn with_highlighting(style: &[u8]) -> Vec<u8> {
    let mut css = style.to_vec();
    if !css.is_empty() && !css.ends_with(b"\n") {
        css.push(b'\n');
    }
    css.extend_from_slice(b"\n/* Highlighted code: generated by errata from its palette. */\n");
    css.extend_from_slice(palette::stylesheet().as_bytes());
    css
}

fn text(path: &str, s: String) -> Output {
    Output {
        path: path.into(),
        bytes: s.into_bytes(),
    }
}

fn value<T: Serialize>(v: &T) -> tera::Value {
    serde_json::to_value(v).unwrap_or(tera::Value::Null)
}

/// The theme's stylesheet, which the highlighting rules generated from the palette join.
const STYLE_CSS: &str = "static/style.css";
