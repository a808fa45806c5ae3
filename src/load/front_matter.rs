//! Splitting a content file into front matter and body, and parsing the front matter.
//!
//! Takes the raw bytes of one file; yields a [`RawFrontMatter`] (the YAML as written, unknown
//! keys refused) plus the body and the positions of keys ([`Spans`]) so later checks can point
//! at a line. Tolerates a UTF-8 BOM and CRLF or mixed line endings. Rejects non-UTF-8 text,
//! empty files, a missing or unterminated `---` block and YAML errors, each with a position.

use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::Deserialize;

pub use super::yaml::{parse, Rejected};

/// The front matter of an errata entry, exactly as an author writes it. Only unknown keys and
/// YAML types are refused here; values are checked when it becomes an [`super::Entry`]. The
/// JSON Schema `errata schema` prints is generated from this type.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "errata entry front matter", description = "The YAML front matter of an errata entry (content/<category>/<slug>.md). Unknown keys are errors.", extend("required" = ["title", "category", "severity", "summary"]))]
pub struct RawFrontMatter {
    /// The failure's name as a reader would search it (required).
    pub title: Option<String>,
    /// The URL name: lowercase letters, digits and dashes; defaults to the file name.
    #[schemars(regex(pattern = r"^[\p{Ll}\p{Nd}]+(-[\p{Ll}\p{Nd}]+)*$"))]
    pub slug: Option<String>,
    /// A key of `categories` in errata.yaml (required).
    pub category: Option<String>,
    /// How bad the failure is (required).
    #[schemars(extend("enum" = ["low", "medium", "high", "critical"]))]
    pub severity: Option<String>,
    /// `failure` (default) explains an error; `guide` teaches a tool and has no signatures.
    #[schemars(extend("enum" = ["failure", "guide"]))]
    pub kind: Option<String>,
    /// Tags, written in any case; normalised to kebab-case.
    #[serde(default)]
    pub tags: Vec<String>,
    /// The quick answer, one or two sentences (required).
    pub summary: Option<String>,
    /// The exact error text a reader would paste, without sizes, ranks or addresses (a failure
    /// needs one): the text alone, or `text:` with where it is raised (`raised_in:`, `source:`,
    /// `versions:`), which the first signature of a failure must have.
    #[serde(default)]
    pub signatures: Vec<RawSignature>,
    /// The pattern worth alerting on, in one sentence.
    pub fingerprint: Option<String>,
    /// What a reader observes, and why.
    #[serde(default)]
    pub symptoms: Vec<RawSymptom>,
    /// The mechanisms that lead to the failure.
    #[serde(default)]
    pub root_causes: Vec<String>,
    /// The first thing to try, in one line.
    pub fix: Option<String>,
    /// The frameworks and systems affected, e.g. PyTorch, DeepSpeed.
    #[serde(default)]
    pub affects: Vec<String>,
    /// Checks that confirm the diagnosis.
    #[serde(default)]
    pub confirm: Vec<String>,
    /// What else in a log points at this entry: traceback frames, other lines, and facts errata
    /// reads from numbers.
    pub cues: Option<RawCues>,
    /// Slugs of related entries.
    #[serde(default)]
    pub related: Vec<String>,
    /// Upstream documentation and issue threads (http or https).
    #[serde(default)]
    pub references: Vec<RawReference>,
    /// The date of the last real change, YYYY-MM-DD.
    pub updated: Option<NaiveDate>,
    /// Drafts are built only with `--drafts`.
    #[serde(default)]
    pub draft: bool,
}

/// Every key the front matter accepts, in the order `errata new` writes them.
pub const FIELDS: [&str; 19] = [
    "title",
    "slug",
    "category",
    "severity",
    "kind",
    "tags",
    "summary",
    "signatures",
    "fingerprint",
    "symptoms",
    "root_causes",
    "fix",
    "affects",
    "confirm",
    "cues",
    "related",
    "references",
    "updated",
    "draft",
];

/// A symptom and the reason for it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawSymptom {
    /// What the engineer observes.
    pub symptom: String,
    /// Why that happens.
    pub why: String,
}

/// A signature: its text alone, or its text with where it is raised.
#[derive(Debug, JsonSchema)]
#[serde(untagged)]
pub enum RawSignature {
    Text(String),
    Sourced(RawSourcedSignature),
}

/// Reads a string as [`RawSignature::Text`] and a mapping as [`RawSignature::Sourced`], so a
/// mistake inside the mapping (an unknown key) is reported as itself, at its own line.
impl<'de> Deserialize<'de> for RawSignature {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = RawSignature;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("the error text, or a mapping with `text:` and where it is raised")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RawSignature, E> {
                Ok(RawSignature::Text(v.to_owned()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<RawSignature, A::Error> {
                RawSourcedSignature::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(RawSignature::Sourced)
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// A signature with where it is raised and which versions print it.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawSourcedSignature {
    /// The error text, as in the short form.
    pub text: String,
    /// The upstream file (or file and function) that raises it, e.g. `c10/cuda/CUDACachingAllocator.cpp` or `torch/nn/modules/module.py: Module.load_state_dict`. A Python function named after its file's path and a colon is where a diagnosis looks for the exception's innermost frame.
    pub raised_in: Option<String>,
    /// A link (http or https) to the source line that raises it or, failing that, to an issue thread where it appears.
    #[schemars(regex(pattern = r"^https?://"))]
    pub source: Option<String>,
    /// Which versions print this wording, e.g. `PyTorch 2.1 and later`.
    pub versions: Option<String>,
    /// Other entries whose failures print this same message (their slugs): on its own the
    /// message names none of them, and a diagnosis offers them all, e.g. `[cuda-oom-batch-too-large]`
    /// for `CUBLAS_STATUS_ALLOC_FAILED`.
    #[serde(default)]
    pub also: Vec<String>,
}

/// Keys of a sourced signature, for "did you mean" hints.
pub const SIGNATURE_FIELDS: [&str; 5] = ["text", "raised_in", "source", "versions", "also"];

/// What else in a log points at an entry.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawCues {
    /// Text found in a traceback frame (its file path or function) or in the source line
    /// printed under it, e.g. `torch/_inductor/` or `_prepare_decoder_attention_mask`.
    #[serde(default)]
    pub frames: Vec<String>,
    /// Text found in any other line of the log, such as a warning printed before the crash.
    #[serde(default)]
    pub lines: Vec<String>,
    /// Facts errata reads from the numbers of a log that decide for or against this entry,
    /// e.g. `oom-fragmentation` (README, "Diagnose a log").
    #[serde(default)]
    #[schemars(schema_with = "finding_names")]
    pub findings: Vec<String>,
}

/// The schema of `cues.findings`: the names errata reads, each with what it says, so that an
/// editor completes and explains them.
fn finding_names(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let findings = errata_search::diagnose::FINDINGS;
    schemars::json_schema!({
        "type": "array",
        "default": [],
        "items": {
            "type": "string",
            "enum": findings.map(|f| f.name),
            "markdownEnumDescriptions": findings.map(|f| f.says),
        }
    })
}

/// Keys of `cues`, for "did you mean" hints.
pub const CUE_FIELDS: [&str; 3] = ["frames", "lines", "findings"];

/// A link to upstream documentation or an issue thread.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawReference {
    pub title: String,
    #[schemars(regex(pattern = r"^https?://"))]
    pub url: String,
}

/// The JSON Schema of the front matter, for editors (`errata schema`).
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(RawFrontMatter);
    let mut out = serde_json::to_string_pretty(&schema).unwrap_or_default();
    out.push('\n');
    out
}

/// Why a file could not be split or parsed, with a 1-based position in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseFailure {
    pub line: usize,
    pub column: usize,
    pub message: String,
    pub hint: Option<String>,
}

impl ParseFailure {
    fn new(line: usize, column: usize, message: impl Into<String>, hint: Option<&str>) -> Self {
        ParseFailure {
            line,
            column,
            message: message.into(),
            hint: hint.map(str::to_owned),
        }
    }
}

/// A file cut in two. `text` is the whole file as UTF-8 with line endings normalised to `\n`
/// and the BOM removed, so line numbers match what the author sees.
#[derive(Debug)]
pub struct Split {
    /// Shared with the file's entry (its body) and with the snippets of its problems.
    pub text: std::sync::Arc<str>,
    /// The YAML between the fences.
    pub yaml: std::ops::Range<usize>,
    /// The Markdown after the closing fence.
    pub body: std::ops::Range<usize>,
    /// 1-based line of the first YAML line.
    pub yaml_line: usize,
    /// 1-based line of the first body line.
    pub body_line: usize,
}

/// Decodes and normalises a file's bytes.
pub fn decode(bytes: &[u8]) -> Result<String, ParseFailure> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let valid = &bytes[..e.valid_up_to()];
        let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = valid.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let column = String::from_utf8_lossy(&valid[line_start..])
            .chars()
            .count()
            + 1;
        ParseFailure::new(
            line,
            column,
            "file is not valid UTF-8",
            Some("save the file as UTF-8"),
        )
    })?;
    Ok(if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        text.to_owned()
    })
}

/// Finds the `---` fences.
pub fn split(text: std::sync::Arc<str>) -> Result<Split, ParseFailure> {
    if text.trim().is_empty() {
        return Err(ParseFailure::new(
            1,
            1,
            "file is empty",
            Some("an entry starts with a `---` line, its front matter, and a closing `---` line"),
        ));
    }
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or_default();
    if first.trim_end() != "---" {
        return Err(ParseFailure::new(
            1,
            1,
            "missing front matter: the file must start with a `---` line",
            Some("add `---`, the front matter (title, category, severity, summary...) and a closing `---`"),
        ));
    }
    let yaml_start = first.len();
    let mut offset = yaml_start;
    for (i, line) in lines.enumerate() {
        let trimmed = line.trim_end();
        if trimmed == "---" || trimmed == "..." {
            let body_start = offset + line.len();
            return Ok(Split {
                yaml: yaml_start..offset,
                body: body_start..text.len(),
                yaml_line: 2,
                body_line: i + 3,
                text,
            });
        }
        offset += line.len();
    }
    Err(ParseFailure::new(
        1,
        1,
        "front matter is not closed",
        Some("end the front matter with a line holding only `---`"),
    ))
}

/// Where top-level keys and their values sit in the file, for problems found after parsing.
#[derive(Debug, Clone, Default)]
pub struct Spans {
    /// (key, 1-based line, line text) for each top-level key, in file order.
    keys: Vec<(String, usize)>,
    lines: Vec<(usize, String)>,
    end_line: usize,
}

impl Spans {
    pub fn of(split: &Split) -> Spans {
        let mut spans = Spans::default();
        let yaml = &split.text[split.yaml.clone()];
        for (i, line) in yaml.lines().enumerate() {
            let number = split.yaml_line + i;
            if let Some(key) = top_level_key(line) {
                spans.keys.push((key.to_owned(), number));
            }
            spans.lines.push((number, line.to_owned()));
        }
        spans.end_line = split.yaml_line + yaml.lines().count();
        spans
    }

    /// Line and column of a top-level key, or of the opening fence when the key is absent.
    pub fn key(&self, key: &str) -> (usize, usize) {
        self.keys
            .iter()
            .find(|(k, _)| k == key)
            .map_or((1, 1), |(_, line)| (*line, 1))
    }

    /// Line and column of `needle` inside the value of `key` (the key's line and the
    /// indented lines under it); the key's position if not found.
    pub fn value(&self, key: &str, needle: &str) -> (usize, usize) {
        let Some(index) = self.keys.iter().position(|(k, _)| k == key) else {
            return (1, 1);
        };
        let start = self.keys[index].1;
        let end = self.keys.get(index + 1).map_or(self.end_line, |(_, l)| *l);
        for (number, text) in self.lines.iter().filter(|(n, _)| *n >= start && *n < end) {
            let search_from = if *number == start { key.len() + 1 } else { 0 };
            if let Some(pos) = text.get(search_from..).and_then(|t| t.find(needle)) {
                let byte = search_from + pos;
                return (*number, text[..byte].chars().count() + 1);
            }
        }
        (start, 1)
    }
}

fn top_level_key(line: &str) -> Option<&str> {
    let first = line.chars().next()?;
    if !(first.is_ascii_alphabetic() || first == '_') {
        return None;
    }
    let colon = line.find(':')?;
    let key = &line[..colon];
    key.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        .then_some(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split_str(s: &str) -> Result<Split, ParseFailure> {
        split(decode(s.as_bytes())?.into())
    }

    #[test]
    fn splits_with_bom_and_crlf() {
        let s = split_str("\u{feff}---\r\ntitle: A\r\n---\r\nbody\r\n").unwrap();
        assert_eq!(&s.text[s.yaml.clone()], "title: A\n");
        assert_eq!(&s.text[s.body.clone()], "body\n");
        assert_eq!(s.body_line, 4);
    }

    #[test]
    fn mixed_line_endings() {
        let s = split_str("---\ntitle: A\r---\r\nx\ry").unwrap();
        assert_eq!(&s.text[s.body.clone()], "x\ny");
    }

    #[test]
    fn rejects_empty_and_unterminated() {
        assert_eq!(split_str("").unwrap_err().message, "file is empty");
        assert_eq!(
            split_str("---\ntitle: a\n").unwrap_err().message,
            "front matter is not closed"
        );
        assert!(split_str("# no front matter")
            .unwrap_err()
            .message
            .starts_with("missing front matter"));
    }

    #[test]
    fn non_utf8_position() {
        let err = decode(b"---\nti\xfftle").unwrap_err();
        assert_eq!((err.line, err.column), (2, 3));
    }

    #[test]
    fn unknown_field_has_position_and_suggestion() {
        let s = split_str("---\ntitle: A\nseverty: high\n---\n").unwrap();
        let err = parse(&s).unwrap_err().failures.remove(0);
        assert_eq!(err.message, "unknown field `severty`");
        assert_eq!((err.line, err.column), (3, 1));
        assert_eq!(err.hint.as_deref(), Some("did you mean `severity`?"));
    }

    #[test]
    fn yaml_error_line_is_file_line() {
        let s = split_str("---\ntitle: A\nsummary: [unclosed\n---\n").unwrap();
        let err = parse(&s).unwrap_err().failures.remove(0);
        assert!(err.line >= 3, "{err:?}");
    }

    #[test]
    fn billion_laughs_is_bounded() {
        let mut yaml = String::from("---\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        for i in 0..9u8 {
            let (prev, this) = ((b'a' + i) as char, (b'b' + i) as char);
            yaml.push_str(&format!("{this}: &{this} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"));
        }
        yaml.push_str("title: *j\n---\n");
        let s = split_str(&yaml).unwrap();
        assert!(parse(&s).is_err());
    }

    #[test]
    fn spans_find_values() {
        let s = split_str("---\ntitle: A\ntags: [x, y]\nrelated:\n  - foo\n  - bar\nfix: z\n---\n")
            .unwrap();
        let spans = Spans::of(&s);
        assert_eq!(spans.key("tags"), (3, 1));
        assert_eq!(spans.value("related", "bar"), (6, 5));
        assert_eq!(spans.value("tags", "y"), (3, 11));
    }
}
