//! The body renderer with errata's rewriting: raw HTML as text, `@/slug` links, `#tag` words,
//! heading ids, highlighted code. Checks that the HTML holds no script, handler or script URL.
#![no_main]

use errata::render::markdown::{render_body, render_inline, Links};
use libfuzzer_sys::fuzz_target;

struct Known;

impl Links for Known {
    fn entry(&self, slug: &str) -> Option<String> {
        matches!(slug, "cuda-oom" | "nccl-timeout").then(|| format!("../{slug}/"))
    }
    fn tag(&self, tag: &str) -> Option<String> {
        matches!(tag, "oom" | "nccl" | "activation-memory").then(|| format!("../../tags/{tag}/"))
    }
}

/// Every `<` in the HTML opens a real tag (text has `&lt;`). No tag may be a script or an
/// embedding element, carry an event handler, or point at a `javascript:` URL. Quoted
/// attribute values are blanked first, so text inside them cannot look like an attribute.
fn assert_inert(html: &str) {
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        let tag_and_after = &rest[start + 1..];
        let end = tag_and_after.find('>').unwrap_or(tag_and_after.len());
        let tag = tag_and_after[..end].to_ascii_lowercase();
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        assert!(
            !matches!(
                name.as_str(),
                "script" | "iframe" | "object" | "embed" | "svg" | "math" | "style" | "base" | "form"
            ),
            "<{name}> in output: {html}"
        );
        let mut unquoted = String::new();
        let mut in_quotes = false;
        for c in tag.chars() {
            if c == '"' {
                in_quotes = !in_quotes;
                unquoted.push('"');
            } else if !in_quotes {
                unquoted.push(c);
            }
        }
        for attr in unquoted.split_whitespace().skip(1) {
            assert!(
                !(attr.starts_with("on") && attr.contains('=')),
                "event handler {attr} in output: {html}"
            );
        }
        for url_attr in ["href=\"", "src=\""] {
            if let Some(at) = tag.find(url_attr) {
                let value = tag[at + url_attr.len()..].trim_start();
                assert!(
                    !value.starts_with("javascript:")
                        && !value.starts_with("vbscript:")
                        && !value.starts_with("data:"),
                    "script URL in output: {html}"
                );
            }
        }
        rest = &tag_and_after[end..];
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let body = render_body(text, &Known);
    assert_inert(&body.html);
    assert_inert(&render_inline(text, &Known));
});
