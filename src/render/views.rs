//! The view structs templates see. Each page gets borrowed, typed data, not ad-hoc JSON.
//!
//! Takes a linked [`Site`]; yields the structs named in the theme contract (`site`, a card per
//! entry, the entry page). URLs in views are relative to the site root; templates prefix them
//! with `root`, the relative path from the page to the root.

use serde::Serialize;

use super::markdown::{self, Links, TocItem};
use crate::link::Site;

#[derive(Debug, Serialize)]
pub struct SiteView<'a> {
    pub title: &'a str,
    pub description: &'a str,
    pub base_url: String,
    pub language: &'a str,
    pub repository: &'a str,
    pub categories: Vec<CategoryView<'a>>,
    pub entry_count: usize,
    pub tag_count: usize,
}

#[derive(Debug, Serialize)]
pub struct CategoryView<'a> {
    pub key: &'a str,
    pub title: &'a str,
    pub description: &'a str,
    pub url: String,
    pub count: usize,
}

#[derive(Debug, Serialize)]
pub struct LinkView<'a> {
    pub name: &'a str,
    pub url: String,
}

#[derive(Debug, Serialize, Clone)]
pub struct Crumb {
    pub title: String,
    pub url: String,
}

/// An entry in a list.
#[derive(Debug, Serialize)]
pub struct Card<'a> {
    pub title: &'a str,
    pub url: String,
    pub summary_text: &'a str,
    pub severity: &'static str,
    pub kind: &'static str,
    pub category_title: &'a str,
    pub category_url: String,
    /// The entry's first tags, for the card macro only (see [`Card::with_tags`]); a list or
    /// page that shows the drawn card gets it without them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<LinkView<'a>>,
    pub updated: String,
    /// The card as the theme's `macros::card` draws it, for the page it is shown on (filled
    /// in by the renderer, which draws each card once per page depth and heading level). Left
    /// empty for the related entries of the default entry page, which prints no card.
    pub html: String,
}

#[derive(Debug, Serialize)]
pub struct CategoryRef<'a> {
    pub key: &'a str,
    pub title: &'a str,
    pub url: String,
}

#[derive(Debug, Serialize)]
pub struct SymptomView {
    pub symptom_html: String,
    pub why_html: String,
}

#[derive(Debug, Serialize)]
pub struct ReferenceView<'a> {
    pub title: &'a str,
    pub url: &'a str,
}

/// Where readers hit a failure: how many public threads among the site's cases report it,
/// and the first few of them.
#[derive(Debug, Serialize)]
pub struct ReportsView<'a> {
    pub count: usize,
    pub threads: &'a [crate::load::reports::Thread],
}

/// Threads shown on a failure's page; the count says how many more there are.
const THREADS_SHOWN: usize = 3;

#[derive(Debug, Serialize)]
pub struct FaqItem {
    pub question: String,
    pub answer_html: String,
}

/// A signature on the entry page, with where it is raised when the entry says.
#[derive(Debug, Serialize)]
pub struct SignatureView<'a> {
    pub text: &'a str,
    pub raised_in: Option<&'a str>,
    pub source: Option<&'a str>,
    /// Which versions print it, as inline Markdown rendered (`torch >= 2.4` in code).
    pub versions_html: Option<String>,
}

impl<'a> SignatureView<'a> {
    fn of(s: &'a crate::load::Signature, inline: &dyn Fn(&str) -> String) -> SignatureView<'a> {
        let origin = s.origin.as_ref();
        SignatureView {
            text: &s.text,
            raised_in: origin.and_then(|o| o.raised_in.as_deref()),
            source: origin.and_then(|o| o.source.as_deref()),
            versions_html: origin.and_then(|o| o.versions.as_deref()).map(inline),
        }
    }
}

#[derive(Debug, Serialize)]
pub struct EntryView<'a> {
    pub title: &'a str,
    pub slug: &'a str,
    pub url: String,
    pub kind: &'static str,
    pub severity: &'static str,
    pub draft: bool,
    pub category: CategoryRef<'a>,
    pub tags: Vec<LinkView<'a>>,
    pub summary_html: String,
    pub summary_text: &'a str,
    pub fingerprint_html: String,
    pub fix_html: String,
    pub symptoms: Vec<SymptomView>,
    pub root_causes_html: Vec<String>,
    pub affects: &'a [String],
    pub confirm_html: Vec<String>,
    pub signatures: Vec<SignatureView<'a>>,
    pub references: Vec<ReferenceView<'a>>,
    pub reports: ReportsView<'a>,
    pub updated: String,
    pub body_html: String,
    pub toc: Vec<TocItem>,
    pub faq: Vec<FaqItem>,
    pub related: Vec<Card<'a>>,
    pub edit_url: String,
}

/// What `entry.html` gets besides the common context.
#[derive(Debug, Serialize)]
pub struct EntryPageView<'a> {
    pub entry: EntryView<'a>,
}

/// What `index.html` gets: the newest entries' cards.
#[derive(Debug, Serialize)]
pub struct HomeView<'a> {
    pub recent: Vec<Card<'a>>,
}

/// What `tags.html` gets: every tag with its page and how many entries it has.
#[derive(Debug, Serialize)]
pub struct TagsView<'a> {
    pub tags: Vec<TagView<'a>>,
}

#[derive(Debug, Serialize)]
pub struct TagView<'a> {
    pub name: &'a str,
    pub url: String,
    pub count: usize,
}

/// What `list.html` gets: one page of all failures, a category or a tag.
#[derive(Debug, Serialize)]
pub struct ListView<'a> {
    pub heading: String,
    pub description_html: String,
    /// `all`, `category` or `tag`.
    pub list_kind: &'static str,
    pub feed_url: String,
    /// Entries in the whole list.
    pub total: usize,
    pub pager: super::lists::Pager,
    /// This page's cards.
    pub entries: Vec<Card<'a>>,
}

pub fn site_view(site: &Site) -> SiteView<'_> {
    let config = &site.config;
    SiteView {
        title: &config.title,
        description: &config.description,
        base_url: config.base_url(),
        language: &config.language,
        repository: config.repository.as_deref().unwrap_or(""),
        categories: site
            .categories
            .iter()
            .map(|c| CategoryView {
                key: &c.key,
                title: &c.title,
                description: &c.description,
                url: Site::category_url(&c.key),
                count: c.entries.len(),
            })
            .collect(),
        entry_count: site.entries.len(),
        tag_count: site.tags.len(),
    }
}

/// Entry `index`'s card, without its tags: a card is shown on about a dozen pages, and its
/// tags' links, made and serialized at each, were a seventh of a build that draws each card
/// once (100,000 entries: 48 s, 42 s without).
pub fn card(site: &Site, index: usize) -> Card<'_> {
    let e = &site.entries[index];
    Card {
        title: &e.title,
        url: site.entry_url(index),
        summary_text: &e.summary_text,
        severity: e.severity.as_str(),
        kind: e.kind.as_str(),
        category_title: site.category_title(&e.category),
        category_url: Site::category_url(&e.category),
        tags: Vec::new(),
        updated: e.updated.map(|d| d.to_string()).unwrap_or_default(),
        html: String::new(),
    }
}

impl<'a> Card<'a> {
    /// The card with its entry's first tags, as the card macro gets it when it draws it.
    pub fn with_tags(mut self, site: &'a Site, index: usize) -> Self {
        self.tags = tag_links(&site.entries[index], CARD_TAGS);
        self
    }
}

/// An entry's tags with their pages, at most `limit`.
fn tag_links(e: &crate::load::Entry, limit: usize) -> Vec<LinkView<'_>> {
    e.tags
        .iter()
        .take(limit)
        .map(|t| LinkView {
            name: t.as_str(),
            url: Site::tag_url(t),
        })
        .collect()
}

/// Tags a card shows: a list page repeats every card, so an entry with thousands of tags must
/// not multiply into every page that lists it (its own page shows them all).
pub const CARD_TAGS: usize = 8;

/// Resolves `@/slug` and `#tag` for a page `depth` folders below the root.
pub struct PageLinks<'a> {
    pub site: &'a Site,
    pub root: &'a str,
}

impl Links for PageLinks<'_> {
    fn entry(&self, slug: &str) -> Option<String> {
        let index = *self
            .site
            .by_slug
            .get(&crate::load::Slug::parse(slug).ok()?)?;
        Some(format!("{}{}", self.root, self.site.entry_url(index)))
    }

    fn tag(&self, tag: &str) -> Option<String> {
        let tag = crate::load::Tag::parse(tag).ok()?;
        self.site
            .tags
            .contains_key(&tag)
            .then(|| format!("{}{}", self.root, Site::tag_url(&tag)))
    }
}

pub fn entry_view<'a>(site: &'a Site, index: usize, root: &str) -> EntryView<'a> {
    let e = &site.entries[index];
    let links = PageLinks { site, root };
    // One highlighting budget for the page's code, in the body and in every field.
    let budget = markdown::Budget::default();
    let body = markdown::render_body_in(&e.body, &links, &budget);
    let inline = |s: &str| markdown::render_inline_in(s, &links, &budget);
    let faq = faq(site, index, &links, &budget);
    let url = site.entry_url(index);
    EntryView {
        title: &e.title,
        slug: e.slug.as_str(),
        url,
        kind: e.kind.as_str(),
        severity: e.severity.as_str(),
        draft: e.draft,
        category: CategoryRef {
            key: &e.category,
            title: site.category_title(&e.category),
            url: Site::category_url(&e.category),
        },
        tags: tag_links(e, usize::MAX),
        summary_html: inline(&e.summary),
        summary_text: &e.summary_text,
        fingerprint_html: e.fingerprint.as_deref().map(inline).unwrap_or_default(),
        fix_html: e.fix.as_deref().map(inline).unwrap_or_default(),
        symptoms: e
            .symptoms
            .iter()
            .map(|s| SymptomView {
                symptom_html: inline(&s.symptom),
                why_html: inline(&s.why),
            })
            .collect(),
        root_causes_html: e.root_causes.iter().map(|s| inline(s)).collect(),
        affects: &e.affects,
        confirm_html: e.confirm.iter().map(|s| inline(s)).collect(),
        signatures: e
            .signatures
            .iter()
            .map(|s| SignatureView::of(s, &inline))
            .collect(),
        references: e
            .references
            .iter()
            .map(|r| ReferenceView {
                title: &r.title,
                url: &r.url,
            })
            .collect(),
        reports: {
            let threads = site.config.threads.of(e.slug.as_str());
            ReportsView {
                count: threads.len(),
                threads: &threads[..threads.len().min(THREADS_SHOWN)],
            }
        },
        updated: e.updated.map(|d| d.to_string()).unwrap_or_default(),
        body_html: body.html,
        toc: body.toc,
        faq,
        related: site.related[index].iter().map(|&j| card(site, j)).collect(),
        edit_url: site
            .config
            .repository
            .as_deref()
            .map(|r| {
                format!(
                    "{}/edit/{}/content/{}",
                    r.trim_end_matches('/'),
                    site.config.branch,
                    e.content_path
                )
            })
            .unwrap_or_default(),
    }
}

/// Questions a reader asks, answered from the front matter.
fn faq(
    site: &Site,
    index: usize,
    links: &PageLinks<'_>,
    budget: &markdown::Budget,
) -> Vec<FaqItem> {
    let e = &site.entries[index];
    let mut items = Vec::new();
    let mut push = |question: String, answer_md: String| {
        items.push(FaqItem {
            question,
            answer_html: markdown::render_inline_in(&answer_md, links, budget),
        });
    };
    let name = e.title.trim_end_matches('.');
    push(format!("What is {name}?"), e.summary.trim().to_owned());
    if !e.root_causes.is_empty() {
        let causes: Vec<String> = e
            .root_causes
            .iter()
            .map(|c| c.trim().trim_end_matches('.').to_owned())
            .collect();
        push(
            format!("What causes {name}?"),
            format!("{}.", causes.join("; ")),
        );
    }
    if let Some(fix) = &e.fix {
        push(format!("How do I fix {name}?"), fix.trim().to_owned());
    }
    if !e.confirm.is_empty() {
        let checks: Vec<String> = e
            .confirm
            .iter()
            .map(|c| c.trim().trim_end_matches('.').to_owned())
            .collect();
        push(
            format!("How do I confirm it is {name}?"),
            format!("{}.", checks.join("; ")),
        );
    }
    if let Some(sig) = e.signatures.first() {
        push(
            "Which error message does it show?".to_owned(),
            format!("`{}`", sig.text.replace('`', "'")),
        );
    }
    items
}
