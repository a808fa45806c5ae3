//! One fixture per kind of bad input: exit 1, `file:line:col: message` with a hint, nothing written, and check reporting what build reports.

use super::*;

fn assert_no_output(site: &Site) {
    assert!(
        !site.public().exists(),
        "a failed build created {}",
        site.public().display()
    );
    assert_eq!(
        leftovers(&site.root, "public"),
        Vec::<String>::new(),
        "temporary folders left behind"
    );
}

/// Builds `site`, expecting a content error: exit 1, every `expected` text on stderr, no output.
fn rejected_site(site: &Site, expected: &[&str]) -> Run {
    let run = site.build();
    run.assert_exit(1).stderr_has("nothing was written");
    for needle in expected {
        run.stderr_has(needle);
    }
    assert_no_output(site);
    run
}

fn rejected(case: &str, expected: &[&str]) -> Run {
    rejected_site(&Site::new(case), expected)
}

#[test]
fn broken_yaml() {
    // `tags: [a, b` on line 7 is never closed; YAML notices at the end of the front matter.
    rejected(
        "broken-yaml",
        &["error: content/memory/broken-yaml.md:8:1: did not find expected ',' or ']'"],
    );
}

#[test]
fn unknown_key() {
    let run = rejected(
        "unknown-key",
        &[
            "error: content/memory/unknown-key.md:4:1: unknown field `severty`",
            "did you mean `severity`?",
        ],
    );
    run.stderr_has("severty: high");
    assert!(
        !run.stderr.contains("expected one of"),
        "serde's list of fields leaked into the message\n{run}"
    );
}

#[test]
fn misspelt_key_of_a_signature_source() {
    rejected(
        "bad-signature-source",
        &[
            "error: content/memory/bad-source.md:8:5: unknown field `raised_at`",
            "did you mean `raised_in`?",
        ],
    );
}

#[test]
fn signature_sources_and_cues_are_checked() {
    rejected(
        "bad-cues",
        &[
            "error: content/memory/bad-cues.md:7:12: a signature with `text:` says neither `raised_in:` nor `source:`",
            "error: content/memory/bad-cues.md:10:13: signature source `file:///home/me/notes.txt` is not http(s)",
            "error: content/memory/bad-cues.md:11:1: `cues.lines` has an empty item",
            "error: content/memory/bad-cues.md:12:13: cue `fwd` in `frames` is shorter than 6 characters",
            "cue `torch/_inductor/` is listed twice in `frames`",
        ],
    );
}

#[test]
fn missing_key() {
    rejected(
        "missing-key",
        &["error: content/memory/missing-summary.md:1:1: missing required field `summary`"],
    );
}

#[test]
fn bad_severity() {
    rejected(
        "bad-severity",
        &[
            "error: content/memory/bad-severity.md:4:11: invalid severity `hgh`",
            "did you mean `high`?",
        ],
    );
}

#[test]
fn unknown_category() {
    rejected(
        "unknown-category",
        &[
            "error: content/memory/unknown-category.md:3:11: unknown category `memroy`",
            "did you mean `memory`?",
        ],
    );
}

#[test]
fn duplicate_slug_names_both_files() {
    rejected(
        "duplicate-slug",
        &[
            "error: content/memory/first.md:3:1: duplicate slug `shared-name`, also used by content/distributed/second.md",
            "error: content/distributed/second.md:3:1: duplicate slug `shared-name`, also used by content/memory/first.md",
        ],
    );
}

#[test]
fn unknown_related() {
    rejected(
        "unknown-related",
        &["error: content/memory/unknown-related.md:7:11: unknown related entry `no-such-entry`"],
    );
}

/// A signature's `also` names other entries by slug: each must be well formed, exist and not
/// be the entry itself.
#[test]
fn a_signatures_also_is_checked() {
    rejected(
        "bad-also",
        &[
            "error: content/memory/bad-also.md:9:12: unknown entry `no-such-entry` in a signature's `also`",
            "error: content/memory/bad-also.md:9:27: a signature's `also` names the entry itself (`bad-also`)",
            "error: content/memory/bad-also.md:9:37: slug `Not_A_Slug` must be lowercase",
        ],
    );
}

#[test]
fn broken_internal_link_at_its_file_line() {
    // The body starts on line 8; the link is on its third line, `@/` at column 23.
    let run = rejected(
        "broken-internal-link",
        &["error: content/memory/broken-link.md:10:23: link to a missing entry `@/nope`"],
    );
    run.stderr_has("See [the other entry](@/nope) for more.");
}

#[test]
fn non_utf8() {
    let site = Site::new("non-utf8");
    let path = site.file("content/memory/non-utf8.md");
    let text = read(&path);
    let (before, after) = text
        .split_once("INVALID")
        .expect("the fixture holds the INVALID placeholder");
    let mut bytes = before.as_bytes().to_vec();
    bytes.extend_from_slice(b"\xff\xfe");
    bytes.extend_from_slice(after.as_bytes());
    fs::write(&path, bytes).expect("write the invalid bytes");
    // `title: Bad ` is 11 characters, so the first bad byte is at column 12 of line 2.
    rejected_site(
        &site,
        &["error: content/memory/non-utf8.md:2:12: file is not valid UTF-8"],
    );
}

#[test]
fn empty_file() {
    let site = Site::new("empty-file");
    assert!(
        read(&site.file("content/memory/empty.md"))
            .trim()
            .is_empty(),
        "the fixture should be empty"
    );
    rejected_site(
        &site,
        &["error: content/memory/empty.md:1:1: file is empty"],
    );
}

#[test]
fn all_problems_in_one_run() {
    rejected(
        "all-problems-in-one-run",
        &[
            "error: content/memory/alpha.md:2:1: unknown field `titel`",
            "did you mean `title`?",
            "error: content/memory/beta.md:4:11: invalid severity `hgh`",
            "error: content/distributed/gamma.md:8:24: link to a missing entry `@/missing-entry`",
            "3 problem(s) found",
        ],
    );
}

#[test]
fn check_reports_what_build_reports() {
    let site = Site::new("bad-severity");
    site.check()
        .assert_exit(1)
        .stderr_has("error: content/memory/bad-severity.md:4:11: invalid severity `hgh`");
    assert_no_output(&site);
}

#[test]
fn every_field_type_error_is_reported() {
    let site = Site::new("valid-site");
    let text = "---\ntitle: Three bad fields\ncategory: memory\nseverity: 7\nsummary: A test entry.\ndraft: yes\nupdated: tomorrow\nsignatures:\n  - \"RuntimeError: three\"\n---\nBody.\n";
    fs::write(site.file("content/memory/three.md"), text).unwrap();
    rejected_site(
        &site,
        &[
            "error: content/memory/three.md:4:11: invalid severity `7`",
            "severity is one of low, medium, high, critical",
            "error: content/memory/three.md:6:8: draft: invalid type: string \"yes\"",
            "`draft` is `true` or `false`",
            "error: content/memory/three.md:7:10: updated: input contains invalid characters",
            "dates are written YYYY-MM-DD",
            "3 problem(s) found",
        ],
    );
    site.check().assert_exit(1).stderr_has("3 problem(s) found");
}

#[test]
fn a_duplicate_key_is_reported_at_the_duplicate() {
    let site = Site::new("valid-site");
    let text = "---\ntitle: First\ncategory: memory\nseverity: low\nsummary: A test entry.\nsignatures:\n  - text: \"RuntimeError: dup\"\n    raised_in: a.py\n    text: again\ntitle: Second\n---\nBody.\n";
    fs::write(site.file("content/memory/dup.md"), text).unwrap();
    rejected_site(
        &site,
        &[
            "error: content/memory/dup.md:9:5: signatures[0]: duplicate field `text`",
            "error: content/memory/dup.md:10:1: duplicate field `title`",
            "2 problem(s) found",
        ],
    );
}

#[test]
fn a_bad_related_slug_does_not_hide_the_unknown_ones() {
    let site = Site::new("valid-site");
    let text = "---\ntitle: Three bad slugs\ncategory: memory\nseverity: low\nsummary: A test entry.\nsignatures: [\"RuntimeError: three\"]\nrelated: [nope-three, \"Bad Slug!\", nope-four]\n---\nBody.\n";
    fs::write(site.file("content/memory/three.md"), text).unwrap();
    rejected_site(
        &site,
        &[
            "error: content/memory/three.md:7:11: unknown related entry `nope-three`",
            "error: content/memory/three.md:7:24: slug `Bad Slug!` must be lowercase",
            "error: content/memory/three.md:7:36: unknown related entry `nope-four`",
            "3 problem(s) found",
        ],
    );
    site.check().assert_exit(1).stderr_has("3 problem(s) found");
}

#[test]
fn a_file_that_fails_to_load_still_has_its_links_checked() {
    let site = Site::new("valid-site");
    // No summary; its related slugs and body link are checked all the same (a link to an
    // entry that exists, or to itself as a body link, is fine).
    let text = "---\ntitle: No summary\ncategory: memory\nseverity: low\nsignatures: [\"RuntimeError: x\"]\nrelated: [nccl-timeout, no-summary, gone]\n---\nSee [this](@/vanished) and [that](@/nccl-timeout).\n";
    fs::write(site.file("content/memory/no-summary.md"), text).unwrap();
    rejected_site(
        &site,
        &[
            "error: content/memory/no-summary.md:1:1: missing required field `summary`",
            "error: content/memory/no-summary.md:6:25: entry lists itself as related (`no-summary`)",
            "error: content/memory/no-summary.md:6:37: unknown related entry `gone`",
            "error: content/memory/no-summary.md:8:12: link to a missing entry `@/vanished`",
            "4 problem(s) found",
        ],
    );
}
