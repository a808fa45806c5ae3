//! The theme's templates compiled once, and each entry's card drawn once and kept.
//!
//! Takes the theme's files; yields a Tera with errata's escaping, the templates a theme must
//! have checked, and [`CardMemo`], which draws a card with the theme's `macros::card` once per
//! page depth and heading level.

use std::collections::HashMap;

use tera::{Context, Tera};

use super::{highlight, value, views, RenderError, REQUIRED_TEMPLATES};
use crate::link::Site;
use crate::load::theme::ThemeFiles;

/// Flattens a Tera error and its causes into one line.
pub(super) fn tera_message(error: &tera::Error) -> String {
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
pub(super) struct CardMemo {
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
    /// Entry `index`'s card as HTML for a page at `root` with an `h{level}` title.
    pub(super) fn html(
        &self,
        tera: &Tera,
        site: &Site,
        index: usize,
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
        let card = views::card(site, index).with_tags(site, index);
        let mut ctx = serde_json::Map::new();
        ctx.insert("entry".into(), value(&card));
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
    pub(super) fn cards<'a>(
        &self,
        tera: &Tera,
        site: &'a Site,
        list: &[usize],
        root: &str,
        level: u8,
    ) -> Result<Vec<views::Card<'a>>, RenderError> {
        list.iter()
            .map(|&i| {
                let mut c = views::card(site, i);
                c.html = self.html(tera, site, i, root, level)?;
                Ok(c)
            })
            .collect()
    }
}
