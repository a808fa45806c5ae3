//! How errata reads Markdown: the extensions it turns on, for every stage that parses it, and
//! Markdown to plain text, the form of a field that meta descriptions, cards, feeds, JSON and
//! the search index show (made once when a file loads, so a rebuild does not parse every
//! summary again).

use pulldown_cmark::Options;

/// The Markdown extensions errata turns on: the load stage's scan for links and the render
/// stage read a body alike.
pub fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES
}

/// Markdown to plain text for meta descriptions, feeds and JSON: code spans and emphasis
/// unwrapped, whitespace collapsed.
pub fn plain_text(markdown: &str) -> String {
    use pulldown_cmark::{Event, Parser};
    let mut out = String::with_capacity(markdown.len());
    for event in Parser::new(markdown) {
        match event {
            Event::Text(t) | Event::Code(t) | Event::Html(t) | Event::InlineHtml(t) => {
                out.push_str(&t)
            }
            Event::SoftBreak | Event::HardBreak | Event::End(_) => out.push(' '),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}
