//! Raw HTML and script links in content come out as text.

use super::*;

#[test]
fn raw_script_comes_out_as_text() {
    let site = Site::new("raw-script");
    site.build().assert_exit(0);
    let html = read(&site.public().join("memory/raw-script/index.html"));
    let body = between(&html, "<div class=\"prose entry-body\">", "</div>");

    assert!(
        !html.contains("<script>alert"),
        "raw <script> passed through:\n{body}"
    );
    assert!(
        body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "the raw HTML should be shown as text:\n{body}"
    );
    assert!(!body.contains("<img"), "raw <img> passed through:\n{body}");
    let with_handler: Vec<&str> = tags_in(&html)
        .into_iter()
        .filter(|t| t.to_ascii_lowercase().contains("onerror"))
        .collect();
    assert!(
        with_handler.is_empty(),
        "event handlers inside tags: {with_handler:?}"
    );
    assert!(
        !html.to_ascii_lowercase().contains("javascript:"),
        "a javascript: URL survived:\n{body}"
    );
    assert!(
        body.contains("Click x now."),
        "the link text should stay, without its link:\n{body}"
    );
}

#[test]
fn a_dropped_script_link_is_a_warning_at_its_place() {
    let site = Site::new("raw-script");
    let expected =
        "warning: content/memory/raw-script.md:12:11: link with scheme `javascript:` is dropped";
    site.check().assert_exit(0).stderr_has(expected);
    site.build()
        .assert_exit(0)
        .stderr_has(expected)
        .stderr_has("only http, https, mailto and relative URLs are kept");
}
