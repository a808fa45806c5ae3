//! The error-string tokenizer, registered under [`TOKENIZER_NAME`] on the writing and the
//! searching side alike.
//!
//! Takes any text (an error line, a log, an entry's prose); yields lowercase terms. An
//! identifier is kept whole and also split into its parts: `torch.cuda.OutOfMemoryError` gives
//! `torch.cuda.outofmemoryerror`, `torch`, `cuda`, `outofmemoryerror`, `out`, `of`, `memory`,
//! `error`; snake_case, `::`, `/` and camelCase split likewise. What varies between two runs of
//! the same failure is masked (dropped): numbers, sizes with their unit (`20.00 MiB`), hex
//! addresses and hashes, IP addresses and ports, the numbers of ranks and devices (`rank3`,
//! `cuda:0`), and the folders of paths (the file name stays). So `Tried to allocate 20.00 MiB`
//! and `Tried to allocate 1.53 GiB` give the same terms.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// The name both the index writer and the searcher register the tokenizer under.
pub const TOKENIZER_NAME: &str = "errata_error";

/// Longest term kept whole; longer identifiers keep only their parts.
const MAX_TERM: usize = 64;

/// Units that follow a number in sizes and durations; dropped with the number.
const UNITS: [&str; 16] = [
    "b", "kb", "kib", "mb", "mib", "gb", "gib", "tb", "tib", "bytes", "ms", "s", "sec", "seconds",
    "us", "ns",
];

/// Splits error text into terms; see the module documentation.
#[derive(Clone, Default)]
pub struct ErrorTokenizer {
    terms: Vec<Token>,
}

impl Tokenizer for ErrorTokenizer {
    type TokenStream<'a> = ErrorTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> ErrorTokenStream<'a> {
        self.terms.clear();
        tokenize(text, &mut self.terms);
        ErrorTokenStream {
            terms: &self.terms,
            next: 0,
        }
    }
}

/// Streams the terms of one text; the tokenizer's buffer is reused between texts.
pub struct ErrorTokenStream<'a> {
    terms: &'a [Token],
    next: usize,
}

impl TokenStream for ErrorTokenStream<'_> {
    fn advance(&mut self) -> bool {
        self.next += 1;
        self.next <= self.terms.len()
    }

    fn token(&self) -> &Token {
        &self.terms[self.next - 1]
    }

    fn token_mut(&mut self) -> &mut Token {
        unreachable!("the error tokenizer is not wrapped by filters that rewrite tokens")
    }
}

/// The terms of a text as strings (what the index sees), for tests and for matching
/// signatures against query terms.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    tokenize(text, &mut out);
    out.into_iter().map(|t| t.text).collect()
}

/// How much each of a text's terms ([`terms`]) weighs as a word of it: the terms of one word
/// (an identifier and its parts) share a weight of 1. `state_dict` is one word of `Missing
/// key(s) in state_dict:`, not three.
pub fn term_weights(text: &str) -> Vec<f32> {
    let mut out = Vec::new();
    tokenize(text, &mut out);
    let span = |t: &Token| (t.offset_from, t.offset_to);
    out.iter()
        .map(|t| 1.0 / out.iter().filter(|u| span(u) == span(t)).count() as f32)
        .collect()
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | ':' | '/' | '-' | '\\')
}

fn tokenize(text: &str, out: &mut Vec<Token>) {
    let mut position = 0usize;
    let mut chunks = Chunks { text, at: 0 }.peekable();
    while let Some((start, chunk)) = chunks.next() {
        if let Some(word) = plain_word(chunk) {
            push(out, word, start, start + chunk.len(), &mut position);
            continue;
        }
        if is_number(chunk) {
            // a size or a duration: drop the unit too
            if let Some((_, next)) = chunks.peek() {
                if UNITS.contains(&next.to_ascii_lowercase().as_str()) {
                    chunks.next();
                }
            }
            continue;
        }
        emit_chunk(chunk, start, &mut position, out);
    }
}

/// Most of a text is plain words (`memory`, `Shard`): ASCII letters, capitalised at most. Such a
/// chunk is one term, its lowercase, which is what the general path ([`is_number`],
/// [`emit_chunk`]) gives it too, without that path's allocations (tested against it below).
fn plain_word(chunk: &str) -> Option<String> {
    let bytes = chunk.as_bytes();
    let (first, rest) = bytes.split_first()?;
    (first.is_ascii_alphabetic() && rest.iter().all(u8::is_ascii_lowercase))
        .then(|| chunk.to_ascii_lowercase())
}

/// Runs of word characters with their leading and trailing punctuation trimmed.
struct Chunks<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Iterator for Chunks<'a> {
    type Item = (usize, &'a str);

    fn next(&mut self) -> Option<(usize, &'a str)> {
        loop {
            let rest = &self.text[self.at..];
            let skip = rest.find(is_word_char)?;
            let start = self.at + skip;
            let len = self.text[start..]
                .find(|c: char| !is_word_char(c))
                .unwrap_or(self.text.len() - start);
            self.at = start + len;
            let raw = &self.text[start..start + len];
            let trimmed_start = raw.trim_start_matches(|c: char| !c.is_alphanumeric());
            let chunk = trimmed_start.trim_end_matches(|c: char| !c.is_alphanumeric());
            if !chunk.is_empty() {
                return Some((start + (raw.len() - trimmed_start.len()), chunk));
            }
        }
    }
}

/// `12`, `1.53`, `-3e-5`, `85%`, `1.53GiB`, `10ms`, `0x7f3a`, `3/10`, `00:01`, a version
/// `2.1.0`, an IP with port, a long hex hash.
fn is_number(chunk: &str) -> bool {
    let lower = chunk.to_ascii_lowercase();
    if let Some(hex) = lower.strip_prefix("0x") {
        return !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit());
    }
    if lower.len() >= 8
        && lower.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
        && lower.chars().any(|c| c.is_ascii_digit())
    {
        return true;
    }
    let digits_end = lower
        .find(|c: char| {
            !(c.is_ascii_digit() || matches!(c, '.' | ':' | '/' | '-' | '+' | '_' | ','))
        })
        .unwrap_or(lower.len());
    if digits_end == 0 || !lower[..digits_end].chars().any(|c| c.is_ascii_digit()) {
        return false;
    }
    let suffix = &lower[digits_end..];
    suffix.is_empty()
        || UNITS.contains(&suffix)
        || suffix == "%"
        || suffix == "x"
        || (suffix.starts_with('e')
            && suffix[1..]
                .trim_start_matches(['-', '+'])
                .chars()
                .all(|c| c.is_ascii_digit())
            && suffix.len() > 1)
}

fn push(out: &mut Vec<Token>, text: String, start: usize, end: usize, position: &mut usize) {
    if text.chars().count() < 2 || text.len() > MAX_TERM || text.chars().all(|c| c.is_ascii_digit())
    {
        return;
    }
    out.push(Token {
        offset_from: start,
        offset_to: end,
        position: *position,
        text,
        position_length: 1,
    });
    *position += 1;
}

/// Emits the whole identifier (masked) and then its parts.
fn emit_chunk(chunk: &str, start: usize, position: &mut usize, out: &mut Vec<Token>) {
    let chunk = strip_path(chunk);
    let offset = start;
    let end = offset + chunk.len();
    let whole = mask_whole(&chunk.to_lowercase());
    let first = out.len();
    let segments: Vec<&str> = chunk
        .split(['.', ':', '_', '/', '-', '\\'])
        .filter(|s| !s.is_empty())
        .collect();
    let mut parts: Vec<String> = Vec::new();
    for segment in &segments {
        let lower = mask_whole(&segment.to_lowercase());
        let camel = camel_parts(segment);
        parts.push(lower);
        if camel.len() > 1 {
            parts.extend(camel.into_iter().map(|p| p.to_lowercase()));
        }
    }
    if parts.len() > 1 || parts.first() != Some(&whole) {
        push(out, whole, offset, end, position);
    }
    for part in parts {
        if out[first..].iter().any(|t| t.text == part) {
            continue;
        }
        push(out, part, offset, end, position);
    }
}

/// `/opt/conda/lib/python3.10/site-packages/torch/nn/functional.py` -> `functional.py`.
fn strip_path(chunk: &str) -> &str {
    if chunk.matches(['/', '\\']).count() >= 2 {
        chunk.rsplit(['/', '\\']).next().unwrap_or(chunk)
    } else {
        chunk
    }
}

/// `rank3` -> `rank`, `cuda:0` -> `cuda`, `gpu:1` -> `gpu`: the number of a rank or device varies.
fn mask_whole(whole: &str) -> String {
    if let Some(rest) = whole.strip_prefix("rank") {
        if !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit()) {
            return "rank".into();
        }
    }
    if let Some((name, number)) = whole.rsplit_once(':') {
        if !number.is_empty() && number.chars().all(|c| c.is_ascii_digit()) && !name.ends_with(':')
        {
            return name.to_owned();
        }
    }
    whole.to_owned()
}

/// `OutOfMemoryError` -> `Out`, `Of`, `Memory`, `Error`; `HTTPServer` -> `HTTP`, `Server`;
/// letters and the digits after them stay together (`fp16`, `sm80`).
fn camel_parts(segment: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = segment.char_indices().collect();
    let mut parts = Vec::new();
    let mut start = 0;
    for i in 1..chars.len() {
        let (b, c) = chars[i];
        let prev = chars[i - 1].1;
        let next_lower = chars.get(i + 1).is_some_and(|(_, n)| n.is_lowercase());
        let boundary = (c.is_uppercase() && prev.is_lowercase())
            || (c.is_uppercase() && prev.is_uppercase() && next_lower)
            || (c.is_alphabetic() && prev.is_ascii_digit() && c.is_uppercase());
        if boundary {
            parts.push(&segment[start..b]);
            start = b;
        }
    }
    parts.push(&segment[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Vec<String> {
        terms(s)
    }

    /// The plain-word shortcut gives exactly what the general path gives.
    #[test]
    fn plain_words_take_a_shortcut_to_the_same_terms() {
        let mut words: Vec<String> = [
            "memory", "Shard", "a", "I", "x", "ms", "rank", "cuda", "of", "Error", "nan", "inf",
            "deadbeef", "abcdefab", "e", "MiB", "OOM", "ring",
        ]
        .iter()
        .map(|w| w.to_string())
        .collect();
        words.push("y".repeat(MAX_TERM));
        words.push("Z".to_owned() + &"z".repeat(MAX_TERM));
        let letters = b"abcdefxyzABCDEF";
        let mut seed = 7u32;
        for _ in 0..2000 {
            let len = 1 + (seed % 9) as usize;
            let word: String = (0..len)
                .map(|_| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    letters[(seed >> 16) as usize % letters.len()] as char
                })
                .collect();
            words.push(word);
        }
        let mut shortcuts = 0;
        for w in &words {
            let mut general = Vec::new();
            if !is_number(w) {
                emit_chunk(w, 0, &mut 0, &mut general);
            }
            let general: Vec<String> = general.into_iter().map(|t| t.text).collect();
            if let Some(word) = plain_word(w) {
                let mut fast = Vec::new();
                push(&mut fast, word, 0, w.len(), &mut 0);
                let fast: Vec<String> = fast.into_iter().map(|t| t.text).collect();
                assert_eq!(fast, general, "{w}");
                shortcuts += 1;
            }
        }
        assert!(shortcuts > 500, "{shortcuts}");
    }

    #[test]
    fn dotted_camel_identifier() {
        assert_eq!(
            t("torch.cuda.OutOfMemoryError"),
            [
                "torch.cuda.outofmemoryerror",
                "torch",
                "cuda",
                "outofmemoryerror",
                "out",
                "of",
                "memory",
                "error"
            ]
        );
    }

    #[test]
    fn screaming_snake() {
        assert_eq!(
            t("CUDA_ERROR_OUT_OF_MEMORY"),
            [
                "cuda_error_out_of_memory",
                "cuda",
                "error",
                "out",
                "of",
                "memory"
            ]
        );
    }

    #[test]
    fn nccl_camel() {
        assert_eq!(
            t("ncclUnhandledCudaError"),
            [
                "ncclunhandledcudaerror",
                "nccl",
                "unhandled",
                "cuda",
                "error"
            ]
        );
    }

    #[test]
    fn cpp_namespace() {
        assert_eq!(t("c10::Error"), ["c10::error", "c10", "error"]);
    }

    #[test]
    fn acronym_then_word() {
        assert_eq!(t("HTTPServer"), ["httpserver", "http", "server"]);
        assert_eq!(t("fp16 bf16"), ["fp16", "bf16"]);
    }

    #[test]
    fn sizes_mask_alike() {
        assert_eq!(
            t("Tried to allocate 20.00 MiB"),
            t("Tried to allocate 1.53 GiB")
        );
        assert_eq!(
            t("Tried to allocate 20.00 MiB"),
            ["tried", "to", "allocate"]
        );
        assert_eq!(t("allocate 1.53GiB now"), ["allocate", "now"]);
    }

    #[test]
    fn masks_hex_ranks_ports_pids_paths() {
        assert_eq!(t("at 0x7f3a2b1c00 in frame"), ["at", "in", "frame"]);
        assert_eq!(t("[rank3]: RuntimeError"), t("[rank12]: RuntimeError"));
        assert_eq!(
            t("[rank3]: RuntimeError"),
            ["rank", "runtimeerror", "runtime", "error"]
        );
        assert_eq!(
            t("connect to 10.1.2.3:29500 failed"),
            ["connect", "to", "failed"]
        );
        assert_eq!(t("worker (pid 4242) killed"), ["worker", "pid", "killed"]);
        assert_eq!(
            t("device cuda:0 and cuda:1"),
            ["device", "cuda", "and", "cuda"]
        );
        assert_eq!(
            t("File \"/opt/conda/lib/python3.10/site-packages/torch/nn/functional.py\", line 2233"),
            ["file", "functional.py", "functional", "py", "line"]
        );
        assert_eq!(t("commit 3f9c2a7b1e0d"), ["commit"]);
    }

    #[test]
    fn punctuation_and_versions() {
        assert_eq!(
            t("Error: (x) [y] 'z'... v2.1.0 100%"),
            ["error", "v2.1.0", "v2", "1"]
                .iter()
                .filter(|s| s.len() > 1)
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
        );
        assert_eq!(
            t("loss: nan, grad_norm: inf"),
            ["loss", "nan", "grad_norm", "grad", "norm", "inf"]
        );
    }

    #[test]
    fn offsets_point_into_the_text() {
        let mut out = Vec::new();
        let text = "x RuntimeError: boom";
        tokenize(text, &mut out);
        assert_eq!(&text[out[0].offset_from..out[0].offset_to], "RuntimeError");
    }

    #[test]
    fn anything_goes() {
        for s in [
            "",
            "::",
            "....",
            "AND(",
            "\"unterminated",
            "🙂 ünïcödé ОшибкаПамяти",
            &"x".repeat(10_000),
        ] {
            let _ = t(s);
        }
        assert_eq!(t("ОшибкаПамяти"), ["ошибкапамяти", "ошибка", "памяти"]);
    }

    #[test]
    fn stream_matches_terms() {
        let mut tokenizer = ErrorTokenizer::default();
        let mut stream = tokenizer.token_stream("c10::Error at 0x1");
        let mut seen = Vec::new();
        while stream.advance() {
            seen.push(stream.token().text.clone());
        }
        assert_eq!(seen, t("c10::Error at 0x1"));
    }
}
