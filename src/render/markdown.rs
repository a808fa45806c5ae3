//! Markdown to HTML with errata's rules, using pulldown-cmark.
//!
//! Takes Markdown (an entry body or a one-line front-matter field) and a [`Links`] resolver;
//! yields HTML and a table of contents. On the way: raw HTML is shown as text, never passed
//! through (so it cannot inject script); links and images with a scheme other than http(s) or
//! mailto lose their link; `[text](@/slug)` points at the entry's page; `#tag` words in text
//! (not in code, links or headings) link to the tag page when the tag exists; headings get ids
//! (their "#" links are the theme script's); code blocks are highlighted at build time, within a
//! budget for the page.

use std::collections::HashSet;

use pulldown_cmark::{CodeBlockKind, CowStr, Event, HeadingLevel, Parser, Tag, TagEnd};
use serde::Serialize;

pub use super::highlight::Budget;
use super::highlight::{self, escape};
use crate::load::markdown::options;
use crate::load::{parse_target, safe_url};

/// Ids the entry template gives its own sections; body headings never take them.
pub const RESERVED_IDS: [&str; 12] = [
    "main",
    "quick-answer",
    "signatures",
    "symptoms",
    "root-causes",
    "confirm-it",
    "affects",
    "faq",
    "references",
    "related",
    "contents",
    "search-input",
];

/// What a body may link to.
pub trait Links {
    /// The URL (relative to the page) of an entry, if the slug exists.
    fn entry(&self, slug: &str) -> Option<String>;
    /// The URL (relative to the page) of a tag page, if the tag exists.
    fn tag(&self, tag: &str) -> Option<String>;
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct TocItem {
    pub level: u8,
    pub id: String,
    pub title: String,
}

#[derive(Debug, Clone, Default)]
pub struct Rendered {
    pub html: String,
    pub toc: Vec<TocItem>,
}

enum LinkKind {
    Plain,
    Entry,
    Dropped,
}

/// Renders a whole body, as a page of its own would ([`render_body_in`] with a fresh budget).
pub fn render_body(markdown: &str, links: &dyn Links) -> Rendered {
    render_body_in(markdown, links, &Budget::default())
}

/// Renders a whole body, its code highlighted while the page's `budget` lasts.
pub fn render_body_in(markdown: &str, links: &dyn Links, budget: &Budget) -> Rendered {
    let mut toc = Vec::new();
    let parser = Parser::new_ext(markdown, options());
    let events = rewrite(parser, links, Some(&mut toc), budget);
    let mut html = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    Rendered { html, toc }
}

/// Renders a short field (summary, fix, a symptom) without the wrapping paragraph, as a page
/// of its own would ([`render_inline_in`] with a fresh budget).
pub fn render_inline(markdown: &str, links: &dyn Links) -> String {
    render_inline_in(markdown, links, &Budget::default())
}

/// [`render_inline`], its code highlighted while the page's `budget` lasts.
pub fn render_inline_in(markdown: &str, links: &dyn Links, budget: &Budget) -> String {
    let events = rewrite(Parser::new_ext(markdown, options()), links, None, budget);
    let mut html = String::with_capacity(markdown.len() + 16);
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    let trimmed = html.trim_end();
    match trimmed
        .strip_prefix("<p>")
        .and_then(|s| s.strip_suffix("</p>"))
    {
        Some(inner) if !inner.contains("<p>") => inner.to_owned(),
        _ => trimmed.to_owned(),
    }
}

fn rewrite<'a>(
    parser: Parser<'a>,
    links: &dyn Links,
    toc: Option<&mut Vec<TocItem>>,
    budget: &Budget,
) -> Vec<Event<'a>> {
    let mut rewriter = Rewriter {
        out: Vec::new(),
        code: None,
        heading: None,
        link_stack: Vec::new(),
        image_depth: 0,
        ids: RESERVED_IDS.iter().map(|s| s.to_string()).collect(),
        toc,
        links,
        budget,
    };
    for event in parser {
        rewriter.event(event);
    }
    rewriter.out
}

/// A heading being read: its level, explicit id, inner events and text.
type OpenHeading<'a> = (HeadingLevel, Option<String>, Vec<Event<'a>>, String);

/// The state of one pass over a document's events.
struct Rewriter<'a, 'r> {
    out: Vec<Event<'a>>,
    /// A code block being read: its language and text.
    code: Option<(String, String)>,
    heading: Option<OpenHeading<'a>>,
    link_stack: Vec<LinkKind>,
    image_depth: usize,
    /// Ids taken so far, so each heading gets its own.
    ids: HashSet<String>,
    toc: Option<&'r mut Vec<TocItem>>,
    links: &'r dyn Links,
    /// What is left of the page's highlighting budget.
    budget: &'r Budget,
}

impl<'a> Rewriter<'a, '_> {
    fn event(&mut self, event: Event<'a>) {
        if let Some((_, buf)) = self.code.as_mut() {
            match event {
                Event::Text(t) => buf.push_str(&t),
                Event::End(TagEnd::CodeBlock) => {
                    let (lang, text) = self.code.take().unwrap_or_default();
                    let html = highlight::code_block(&lang, &text, self.budget);
                    self.out.push(Event::Html(html.into()));
                }
                _ => {}
            }
            return;
        }
        let event = match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((lang, String::new()));
                return;
            }
            Event::Start(Tag::Heading { level, id, .. }) => {
                self.heading = Some((level, id.map(|i| i.to_string()), Vec::new(), String::new()));
                return;
            }
            Event::End(TagEnd::Heading(_)) => {
                self.end_heading();
                return;
            }
            Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
            Event::Start(Tag::HtmlBlock) => Event::Start(Tag::Paragraph),
            Event::End(TagEnd::HtmlBlock) => Event::End(TagEnd::Paragraph),
            Event::Start(link @ Tag::Link { .. }) => match self.start_link(link) {
                Some(event) => event,
                None => return,
            },
            Event::End(TagEnd::Link) => match self.link_stack.pop() {
                Some(LinkKind::Entry) => Event::Html("</a>".into()),
                Some(LinkKind::Dropped) => return,
                _ => Event::End(TagEnd::Link),
            },
            Event::Start(image @ Tag::Image { .. }) => self.start_image(image),
            Event::End(TagEnd::Image) => {
                self.image_depth = self.image_depth.saturating_sub(1);
                Event::End(TagEnd::Image)
            }
            other => other,
        };
        self.emit(event);
    }

    /// An event of the text: inside a heading it is kept for the heading; `#tag` words in
    /// plain text become tag links.
    fn emit(&mut self, event: Event<'a>) {
        if let Some((_, _, inner, text)) = self.heading.as_mut() {
            if let Event::Text(t) | Event::Code(t) = &event {
                text.push_str(t);
            }
            inner.push(event);
            return;
        }
        match event {
            Event::Text(text)
                if self.link_stack.is_empty() && self.image_depth == 0 && text.contains('#') =>
            {
                push_hashtags(&mut self.out, text, self.links);
            }
            other => self.out.push(other),
        }
    }

    /// Closes a heading: gives it a unique id and lists it in the contents.
    fn end_heading(&mut self) {
        let Some((level, explicit, inner, text)) = self.heading.take() else {
            return;
        };
        let base = explicit
            .map(|i| crate::load::types::kebab(&i))
            .unwrap_or_else(|| crate::load::types::kebab(&text));
        let base = if base.is_empty() {
            "section".to_owned()
        } else {
            base
        };
        let mut id = base.clone();
        let mut n = 1;
        while !self.ids.insert(id.clone()) {
            n += 1;
            id = format!("{base}-{n}");
        }
        let n = level as u8;
        if let Some(toc) = self.toc.as_deref_mut() {
            if n == 2 || n == 3 {
                toc.push(TocItem {
                    level: n,
                    id: id.clone(),
                    title: text.trim().to_owned(),
                });
            }
        }
        let id = escape(&id);
        // The "#" link a reader copies is added by the theme's script (errata-site.js).
        self.out
            .push(Event::Html(format!("<h{n} id=\"{id}\">").into()));
        self.out.extend(inner);
        self.out.push(Event::Html(format!("</h{n}>\n").into()));
    }

    /// An `@/slug` link points at the entry's page; a link with an unsafe scheme is dropped
    /// (its text stays). `None` when nothing opens.
    fn start_link(&mut self, link: Tag<'a>) -> Option<Event<'a>> {
        let Tag::Link { dest_url, .. } = &link else {
            return Some(Event::Start(link));
        };
        if let Some((slug, anchor)) = parse_target(dest_url) {
            self.link_stack.push(LinkKind::Entry);
            let href = self.links.entry(slug).map(|u| match anchor {
                Some(a) => format!("{u}#{a}"),
                None => u,
            });
            let href = href.unwrap_or_default();
            Some(Event::Html(
                format!("<a class=\"entry-link\" href=\"{}\">", escape(&href)).into(),
            ))
        } else if safe_url(dest_url) {
            self.link_stack.push(LinkKind::Plain);
            Some(Event::Start(link))
        } else {
            self.link_stack.push(LinkKind::Dropped);
            None
        }
    }

    /// An image keeps a safe source; any other loses it.
    fn start_image(&mut self, image: Tag<'a>) -> Event<'a> {
        self.image_depth += 1;
        match image {
            Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            } if !(safe_url(&dest_url) && !dest_url.starts_with("@/")) => {
                Event::Start(Tag::Image {
                    link_type,
                    dest_url: CowStr::Borrowed(""),
                    title,
                    id,
                })
            }
            other => Event::Start(other),
        }
    }
}

/// Splits a text event at `#tag` words and links the ones that name a tag.
fn push_hashtags<'a>(out: &mut Vec<Event<'a>>, text: CowStr<'a>, links: &dyn Links) {
    let s: &str = &text;
    let mut last = 0;
    let mut pieces: Vec<Event<'a>> = Vec::new();
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'#'
            && (i == 0
                || matches!(
                    bytes[i - 1],
                    b' ' | b'\t' | b'\n' | b'(' | b'[' | b',' | b';'
                ))
        {
            let start = i + 1;
            let mut end = start;
            while end < bytes.len()
                && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'-' || bytes[end] == b'_')
            {
                end += 1;
            }
            while end > start && matches!(bytes[end - 1], b'-' | b'_') {
                end -= 1;
            }
            if end > start && bytes[start].is_ascii_alphabetic() {
                let word = &s[start..end];
                let tag = crate::load::types::kebab(word);
                if let Some(url) = links.tag(&tag) {
                    if last < i {
                        pieces.push(Event::Text(s[last..i].to_owned().into()));
                    }
                    pieces.push(Event::Html(
                        format!(
                            "<a class=\"tag-link\" href=\"{}\">#{}</a>",
                            escape(&url),
                            escape(word)
                        )
                        .into(),
                    ));
                    last = end;
                    i = end;
                    continue;
                }
            }
        }
        i += 1;
    }
    if last == 0 {
        out.push(Event::Text(text));
        return;
    }
    if last < s.len() {
        pieces.push(Event::Text(s[last..].to_owned().into()));
    }
    out.extend(pieces);
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixture;
    impl Links for Fixture {
        fn entry(&self, slug: &str) -> Option<String> {
            (slug == "known").then(|| "../../memory/known/".to_owned())
        }
        fn tag(&self, tag: &str) -> Option<String> {
            (tag == "nan" || tag == "activation-memory").then(|| format!("../../tags/{tag}/"))
        }
    }

    #[test]
    fn raw_html_is_text() {
        let r = render_body(
            "<script>alert(1)</script>\n\nhi <img src=x onerror=alert(1)>\n",
            &Fixture,
        );
        assert!(!r.html.contains("<script"), "{}", r.html);
        assert!(!r.html.contains("<img"), "{}", r.html);
        assert!(r.html.contains("&lt;script&gt;"), "{}", r.html);
    }

    #[test]
    fn unsafe_links_lose_their_href() {
        let r = render_body("[x](javascript:alert(1)) [y]( JaVaScRiPt:alert(1)) [z](data:text/html,hi) [ok](https://a.b/)", &Fixture);
        assert!(!r.html.to_lowercase().contains("javascript:"), "{}", r.html);
        assert!(!r.html.contains("data:"), "{}", r.html);
        assert!(r.html.contains("href=\"https://a.b/\""), "{}", r.html);
    }

    #[test]
    fn entry_links_and_hashtags() {
        let r = render_body("See [k](@/known#why) and #nan, #unknown-tag, `#nan` and [#nan](https://x/#nan).\n\n## #nan heading\n", &Fixture);
        assert!(
            r.html
                .contains("<a class=\"entry-link\" href=\"../../memory/known/#why\">k</a>"),
            "{}",
            r.html
        );
        assert_eq!(
            r.html.matches("class=\"tag-link\"").count(),
            1,
            "{}",
            r.html
        );
        assert!(r.html.contains("#unknown-tag"), "{}", r.html);
        assert!(r.html.contains("<code>#nan</code>"), "{}", r.html);
    }

    #[test]
    fn headings_get_unique_ids_and_toc() {
        let r = render_body(
            "## Why it happens\n\ntext\n\n## Why it happens\n\n### Code `x`\n",
            &Fixture,
        );
        assert!(r.html.contains("<h2 id=\"why-it-happens\">"), "{}", r.html);
        assert!(
            r.html.contains("<h2 id=\"why-it-happens-2\">"),
            "{}",
            r.html
        );
        assert_eq!(r.toc.len(), 3);
        assert_eq!(r.toc[2].title, "Code x");
    }

    #[test]
    fn extensions_on() {
        let r = render_body(
            "| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n\n~~old~~ [^1]\n\n[^1]: note\n",
            &Fixture,
        );
        for needle in [
            "<table>",
            "checkbox",
            "<del>old</del>",
            "footnote-definition",
        ] {
            assert!(r.html.contains(needle), "{needle}: {}", r.html);
        }
    }

    #[test]
    fn inline_has_no_paragraph() {
        assert_eq!(
            render_inline("use `x()` now", &Fixture),
            "use <code>x()</code> now"
        );
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let deep = format!("{}x", "> ".repeat(5000));
        let _ = render_body(&deep, &Fixture);
        let list: String = (0..3000)
            .map(|i| format!("{}- x\n", "  ".repeat(i)))
            .collect();
        let _ = render_body(&list, &Fixture);
    }
}
