//! How long an input was: the lengths a log states of what it feeds the model.
//!
//! Takes a line; yields the length in tokens it states of one input, in the shapes that measure
//! an input rather than a setting: a count of characters (`360999 chars`, `23,914 characters`; a
//! quarter of a token each, the usual rate of a subword tokenizer on English), the shape of the
//! token ids (`input_ids: torch.Size([4, 131072])`, `input_ids shape (1, 9000)`: the last
//! dimension), and the lengths Transformers prints of one input: the tokenizer's `Token indices
//! sequence length is longer than the specified maximum sequence length for this model (5210 >
//! 512)`, a pipeline's `Your input_length: 514 is bigger than 0.9 * max_length: 512` and
//! generation's `Input length of input_ids is 5000`; and the length sequences are packed to
//! (`Packing sequences to 16384 tokens`, `pack_size=8192`), since packing makes every input
//! that long. A limit or a setting (`max_seq_len=4096`, `seq_len: 2048` in a config,
//! `max_new_tokens`) says how long inputs may be, not how long this one was; a count of tokens
//! is as often a whole data set's, a batch's or a rate (`tokens/s`) as an input's: neither is
//! read.

use std::sync::OnceLock;

use memchr::memmem::Finder;

use super::kept::{finders_in, KeptLines, Needles};
use super::progress::word_spans;

/// Lines that may state an input's length.
#[derive(Debug, Clone)]
pub struct Lengths;

impl Needles for Lengths {
    /// The pieces each shape needs: the unit, the ids.
    const NEEDLES: &'static [&'static [u8]] = &[
        b"char",
        b"Char",
        b"CHAR",
        b"input_ids",
        b"input_length",
        b"sequence length is longer",
        b"pack",
        b"Pack",
        b"PACK",
    ];

    fn finders() -> &'static [Finder<'static>] {
        static FINDERS: OnceLock<Vec<Finder<'static>>> = OnceLock::new();
        finders_in(&FINDERS, Self::NEEDLES)
    }
}

/// Characters per token, roughly, for a subword tokenizer on English text.
pub const CHARS_PER_TOKEN: u64 = 4;

/// A length a line states, in tokens, with the words that state it.
#[derive(Debug, Clone, PartialEq)]
pub struct InputLength {
    pub tokens: u64,
    /// The line's number.
    pub line: usize,
    /// The words that state it (`360999 chars`).
    pub said: String,
}

/// The longest input the kept lines state.
pub fn longest(kept: &KeptLines<Lengths>) -> Option<InputLength> {
    (kept.iter())
        .filter_map(|(line, number)| {
            let (tokens, said) = length_in(line)?;
            Some(InputLength {
                tokens,
                line: number,
                said,
            })
        })
        .max_by_key(|l| (l.tokens, std::cmp::Reverse(l.line)))
}

/// The longest input `line` states, in tokens, with the words that state it.
pub fn length_in(line: &str) -> Option<(u64, String)> {
    let lower = line.to_ascii_lowercase();
    let words: Vec<(usize, usize)> = word_spans(&lower).collect();
    let mut best: Option<(u64, String)> = None;
    let mut take = |tokens: u64, said: &str| {
        if best.as_ref().is_none_or(|(t, _)| tokens > *t) {
            best = Some((tokens, said.trim().to_owned()));
        }
    };
    for &(start, end) in &words {
        match &lower[start..end] {
            "chars" | "characters" if !lower[end..].starts_with('/') => {
                if let Some((n, from)) = number_before(&lower[..start]) {
                    take(n / CHARS_PER_TOKEN, &line[from..end]);
                }
            }
            "input_ids" => {
                let after = &lower[end..];
                if let Some((n, to)) = last_dimension(after).or_else(|| count_after(after, " is "))
                {
                    take(n, &line[start..end + to]);
                }
            }
            "input_length" => {
                if let Some((n, to)) = count_after(&lower[end..], ": ") {
                    take(n, &line[start..end + to]);
                }
            }
            "pack_size" | "pack_length" | "packing_length" | "packed_sequence_size" => {
                let after = &lower[end..];
                if let Some((n, to)) = count_after(after, "=").or_else(|| count_after(after, ": "))
                {
                    take(n, &line[start..end + to]);
                }
            }
            "packing" | "packed" => {
                if let Some((n, to)) = tokens_in_packs(&lower[end..]) {
                    take(n, &line[start..end + to]);
                }
            }
            "model" if lower[..start].ends_with(TOKENIZER_WARNING) => {
                if let Some((n, to)) = count_after(&lower[end..], " (") {
                    let close = lower[end + to..].find(')').filter(|&c| c < 16);
                    let to = close.map_or(to, |c| to + c + 1);
                    // Quoted from the warning's `sequence length is longer ...` on, to say what
                    // the numbers are.
                    let from = lower[..start].rfind(TOKENIZER_CLAUSE).unwrap_or(start);
                    take(n, &line[from..end + to]);
                }
            }
            _ => {}
        }
    }
    best
}

/// The `to 16384 tokens` a few words after `packing` (`text` is what follows it): with
/// sequences packed, every input is that long. Yields the count and where the quote ends.
fn tokens_in_packs(text: &str) -> Option<(u64, usize)> {
    let to = text.find(" to ").filter(|&at| at < 24)?;
    let (n, digits_end) = count_after(&text[to..], " to ")?;
    let end = to + digits_end;
    text[end..]
        .starts_with(" tokens")
        .then_some((n, end + " tokens".len()))
}

/// The words of Transformers' tokenizer warning right before its `model (5210 > 512)`.
const TOKENIZER_WARNING: &str = "specified maximum sequence length for this ";
/// Where the quote of that warning starts.
const TOKENIZER_CLAUSE: &str = "sequence length is longer";

/// The whole number right after `text`'s `lead`, with where it ends.
fn count_after(text: &str, lead: &str) -> Option<(u64, usize)> {
    let rest = text.strip_prefix(lead)?;
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 || digits > 12 {
        return None;
    }
    Some((rest[..digits].parse().ok()?, lead.len() + digits))
}

/// The whole number (commas between thousands allowed) right before `text`'s end, one space
/// or hyphen apart, with where it starts.
fn number_before(text: &str) -> Option<(u64, usize)> {
    let text = text.strip_suffix(' ').or_else(|| text.strip_suffix('-'))?;
    let start = text
        .trim_end_matches(|c: char| c.is_ascii_digit() || c == ',')
        .len();
    let digits: String = text[start..].chars().filter(char::is_ascii_digit).collect();
    if digits.is_empty() || digits.len() > 12 || text[..start].ends_with('.') {
        return None;
    }
    Some((digits.parse().ok()?, start))
}

/// The last dimension of the first shape after the ids (`: torch.Size([4, 131072])`, ` shape
/// (1, 9000)`), when the shape comes within a few words, with where the shape ends.
fn last_dimension(text: &str) -> Option<(u64, usize)> {
    let open = text.find(['[', '('])?;
    if open > 24 {
        return None;
    }
    let inner_start = open + text[open..].len() - text[open..].trim_start_matches(['[', '(']).len();
    let close = inner_start + text[inner_start..].find([']', ')'])?;
    let dims: Vec<u64> = text[inner_start..close]
        .split(',')
        .map(|d| d.trim().parse().ok())
        .collect::<Option<_>>()?;
    let end = close + text[close..].len() - text[close..].trim_start_matches([']', ')']).len();
    (dims.len() >= 2).then(|| (*dims.last().unwrap(), end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_length_of_an_input() {
        for (line, tokens, said) in [
            (
                "[2/2] articles/full.txt: 360999 chars",
                90_249,
                "360999 chars",
            ),
            (
                "Full article: 23,914 characters",
                5_978,
                "23,914 characters",
            ),
            (
                "input_ids: torch.Size([4, 131072]) cuda:0",
                131_072,
                "input_ids: torch.Size([4, 131072])",
            ),
            (
                "input_ids shape (1, 9000)",
                9_000,
                "input_ids shape (1, 9000)",
            ),
            (
                "Token indices sequence length is longer than the specified maximum sequence length for this model (5210 > 512). Running this sequence through the model will result in indexing errors",
                5_210,
                "sequence length is longer than the specified maximum sequence length for this model (5210 > 512)",
            ),
            (
                "Your input_length: 3100 is bigger than 0.9 * max_length: 512. You might consider increasing your max_length manually",
                3_100,
                "input_length: 3100",
            ),
            (
                "ValueError: Input length of input_ids is 5000, but `max_length` is set to 20.",
                5_000,
                "input_ids is 5000",
            ),
            (
                "INFO data: Packing sequences to 16384 tokens (2 crops per image)",
                16_384,
                "Packing sequences to 16384 tokens",
            ),
            (
                "| INFO | Packing dataset (neat) with pack_size=8192 ...",
                8_192,
                "pack_size=8192",
            ),
            ("    pack_size: 32768", 32_768, "pack_size: 32768"),
        ] {
            assert_eq!(length_in(line), Some((tokens, said.to_owned())), "{line}");
        }
        for line in [
            "max_seq_len=4096 per_device_train_batch_size=1",
            "seq_len: 8192",
            "prompt of 8192 tokens",
            "throughput 52000 chars/s",
            "input_ids: 4096",
            "max_length: 4096, input_length: n/a",
            "Input length of input_ids is too long. Consider increasing `max_new_tokens`.",
            "generation_args={'max_new_tokens': 256}",
            "Token indices sequence length is longer than the specified maximum",
            "about 3.5 chars per token",
            "packing: true",
            "Packing dataset took 12 seconds",
        ] {
            let got = length_in(line);
            assert!(
                got.as_ref().map_or(true, |(t, _)| *t < 2048),
                "{line}: {got:?}"
            );
        }
    }
}
