//! Whether an out-of-memory error came right after the log said how long a long input was.
//!
//! Takes the log's error lines, each with the longest input its last lines before it stated
//! ([`crate::log::lengths`]); yields a sentence when the first out-of-memory error came after an
//! input of [`LONG_INPUT`] tokens or more (the ids' shape, or characters at a quarter of a token
//! each). The memory of attention grows with the square of the length, and the activations and
//! logits with the length: one long input is what runs out memory that every shorter one fit in.

use super::oom::{first_oom, thousands};
use crate::log::lengths::CHARS_PER_TOKEN;
use crate::log::ErrorLine;

/// The shortest input, in tokens, taken as long: the length at which attention's square
/// scores are taken as the cause ([`super::attention`]).
pub const LONG_INPUT: u64 = 2048;

/// The sentence that says the OOM came on a long input, if it did.
pub fn oom_on_a_long_input(lines: &[ErrorLine]) -> Option<String> {
    let oom = first_oom(lines)?;
    let input = oom.input_before.as_ref()?;
    if input.tokens < LONG_INPUT {
        return None;
    }
    let unit = if input.said.contains("char") {
        format!(
            " (about {} tokens at {CHARS_PER_TOKEN} characters each)",
            thousands(input.tokens)
        )
    } else {
        String::new()
    };
    Some(format!(
        "line {}: `{}`{unit}: it ran out of memory on line {} with an input that long, whose attention and activations grow with its length",
        input.line, input.said, oom.line
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::read_log;

    const OOM: &str = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 9.00 GiB.";

    #[test]
    fn an_oom_on_a_long_input_is_read() {
        let log = format!("doc 1: 900 chars\ndoc 2: 240,000 chars\n{OOM}\n");
        let why = oom_on_a_long_input(&read_log(&log).error_lines).unwrap();
        assert!(
            why.starts_with("line 2: `240,000 chars` (about 60,000 tokens"),
            "{why}"
        );
        assert!(why.contains("on line 3"), "{why}");
        let ids = format!("input_ids: torch.Size([2, 32768])\n{OOM}\n");
        let why = oom_on_a_long_input(&read_log(&ids).error_lines).unwrap();
        assert!(
            why.starts_with("line 1: `input_ids: torch.Size([2, 32768])`: it"),
            "{why}"
        );
        let warned = format!(
            "Token indices sequence length is longer than the specified maximum sequence length for this model (7040 > 4096). Running this sequence through the model will result in indexing errors\n  0%|          | 3/1000 [00:09<52:11,  3.14s/it]\n{OOM}\n"
        );
        let why = oom_on_a_long_input(&read_log(&warned).error_lines).unwrap();
        assert!(
            why.starts_with("line 1: `sequence length is longer than the specified maximum sequence length for this model (7040 > 4096)`: it"),
            "{why}"
        );
        for log in [
            format!("doc 1: 900 chars\n{OOM}\n"),
            format!("input_ids: torch.Size([8, 512])\n{OOM}\n"),
            format!("{OOM}\ndoc 2: 240,000 chars\n"),
            "doc 2: 240,000 chars\nKeyError: 'label'\n".to_owned(),
        ] {
            assert_eq!(
                oom_on_a_long_input(&read_log(&log).error_lines),
                None,
                "{log}"
            );
        }
    }
}
