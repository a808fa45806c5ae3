//! How far a run got: the step counts its progress lines state.
//!
//! Takes a line; yields the number of steps it says the run has done, in the shapes training
//! loops print: a progress bar's `164/4902 [41:25<19:52:40, 15.10s/it]` (unfinished, and not a
//! data set's or a download's), a counter after a word of steps on a line that reports a loss
//! (`step 1200, loss 0.41`, `Iter. [1200/9529], Loss: 1.02`, `num_updates=11125 ... loss=5.1`,
//! `step 1000/6120 loss_ita 2.55`),
//! and an epoch past the first (`Epoch 3/10`, `[Epoch 2] loss 0.41`), which counts as
//! [`EPOCH_STEPS`]: whether epochs are counted from 0 or 1, the second one starts after a whole
//! epoch ran. A line that only configures or announces steps (`Total optimization steps =
//! 5000`, `Batches per epoch: 862`) reports no loss and no fraction, and says nothing of the
//! steps done; nor does a size (`12288MiB / 16384MiB`), a date, or a file's place in a list.

use std::sync::OnceLock;

use memchr::memmem::{self, Finder};

use super::kept::{finders_in, KeptLines, Needles};

/// Words after which a number counts the steps done.
const STEP_WORDS: [&str; 9] = [
    "step",
    "steps",
    "global_step",
    "iter",
    "iters",
    "iteration",
    "it",
    "num_updates",
    "update",
];

/// What an epoch past the first counts as: at least a few hundred steps ran before it.
pub const EPOCH_STEPS: u64 = 1_000;

/// How many non-word characters may stand between a word of steps and its number (`Iter. [`).
const GAP: usize = 3;

/// The steps a line says the run has done, if it says.
pub fn steps_in(line: &str) -> Option<u64> {
    let bar = progress_bar(line);
    let lower = line.to_ascii_lowercase();
    // `loss`, `total_loss`, and each part of a loss made of several (`loss_cls`, `loss_ita`).
    let reports_loss =
        words(&lower).any(|(_, w)| w == "loss" || w.ends_with("_loss") || w.starts_with("loss_"));
    let counted = after_step_word(&lower).filter(|_| reports_loss);
    let epoch = epoch(&lower)
        .filter(|&(e, of)| e >= 2 && (of || reports_loss))
        .map(|_| EPOCH_STEPS);
    [bar, counted, epoch].into_iter().flatten().max()
}

/// Lines that may state the steps done.
#[derive(Debug, Clone)]
pub struct Progress;

impl Needles for Progress {
    /// The pieces each shape needs: a loss, an epoch (and a progress bar's ` [` before a digit).
    const NEEDLES: &'static [&'static [u8]] = &[b"loss", b"Loss", b"LOSS", b"poch", b"POCH"];

    /// A line that holds one of the words, or a progress bar's ` [` before a digit; not the ` [`
    /// of a relay's prefix before a rank (`...Z [rank5]:`), which every line of a traceback has.
    fn may_state(bytes: &[u8]) -> bool {
        memmem::find_iter(bytes, b" [").any(|at| bytes.get(at + 2).is_some_and(u8::is_ascii_digit))
            || Self::finders().iter().any(|f| f.find(bytes).is_some())
    }

    fn finders() -> &'static [Finder<'static>] {
        static FINDERS: OnceLock<Vec<Finder<'static>>> = OnceLock::new();
        finders_in(&FINDERS, Self::NEEDLES)
    }
}

/// The most steps the kept lines state, with the number of the line that states them.
pub fn most_steps(kept: &KeptLines<Progress>) -> Option<(u64, usize)> {
    (kept.iter())
        .filter_map(|(line, number)| Some((steps_in(line)?, number)))
        .max_by_key(|&(steps, number)| (steps, std::cmp::Reverse(number)))
}

/// Words in a progress bar's description or rate that mark it as preparing data or files (a
/// dataset's `Map`, a download, loading checkpoint shards), not the run's own steps.
const PREPARING: [&str; 16] = [
    "map",
    "token",
    "download",
    "load",
    "filter",
    "fetch",
    "extract",
    "convert",
    "preprocess",
    "shard",
    "cach",
    "resolv",
    "writ",
    "sav",
    "upload",
    "examples/s",
];

/// The done count of an unfinished progress bar of the run's steps: `N/M [` then a digit
/// (tqdm's `[elapsed<remaining`), with `N < M`, and no word of [`PREPARING`] in the line. A
/// finished bar (`30/30`) is a loop that ended, the run's or a data set's.
fn progress_bar(line: &str) -> Option<u64> {
    let mut best = None;
    for (at, _) in line.match_indices(" [") {
        let after = &line[at + 2..];
        if !after.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let Some((done, total)) = fraction_before(&line[..at]) else {
            continue;
        };
        if done < total {
            best = best.max(Some(done));
        }
    }
    best.filter(|_| {
        let lower = line.to_ascii_lowercase();
        !PREPARING.iter().any(|w| lower.contains(w)) && !lower.contains("b/s")
    })
}

/// `N/M` (or `N / M`) at the end of `text`.
fn fraction_before(text: &str) -> Option<(u64, u64)> {
    let (head, total) = trailing_number(text)?;
    let head = head.trim_end();
    let head = head.strip_suffix('/')?.trim_end();
    let (_, done) = trailing_number(head)?;
    Some((done, total))
}

/// The number `text` ends with, and what comes before it.
fn trailing_number(text: &str) -> Option<(&str, u64)> {
    let start = text.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let digits = &text[start..];
    if digits.is_empty() || digits.len() > 12 {
        return None;
    }
    Some((&text[..start], digits.parse().ok()?))
}

/// The largest number that follows a word of steps in a lowercased line.
fn after_step_word(lower: &str) -> Option<u64> {
    words(lower)
        .filter(|(_, word)| STEP_WORDS.contains(word))
        .filter_map(|(end, _)| number_after(&lower[end..]))
        .max()
}

/// The epoch a lowercased line names (`epoch 3/10`, `epoch: 2`, `[epoch 4]`), and whether it
/// is given out of a total (`3/10`, `[3/10]`).
fn epoch(lower: &str) -> Option<(u64, bool)> {
    words(lower)
        .filter(|(_, word)| *word == "epoch")
        .filter_map(|(end, _)| {
            let rest = &lower[end..];
            let n = number_after(rest)?;
            let digits = rest.find(|c: char| c.is_ascii_digit())?;
            let after = rest[digits..].trim_start_matches(|c: char| c.is_ascii_digit());
            Some((n, after.trim_start().starts_with('/')))
        })
        .max()
}

/// Each word of letters and underscores, with the byte its end is at.
fn words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    word_spans(text).map(move |(start, end)| (end, &text[start..end]))
}

/// The spans of the words of letters and underscores in `text`.
pub(super) fn word_spans(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let is_word = |c: char| c.is_ascii_alphabetic() || c == '_';
    text.char_indices()
        .filter(move |&(i, c)| is_word(c) && !text[..i].ends_with(is_word))
        .map(move |(start, _)| {
            let len = text[start..]
                .find(|c: char| !is_word(c))
                .unwrap_or(text.len() - start);
            (start, start + len)
        })
}

/// A number that starts within [`GAP`] characters of `text`'s start, none of them a letter or
/// digit, and is a whole count (not `0.5`, not `3e-4`).
fn number_after(text: &str) -> Option<u64> {
    let start = text.find(|c: char| c.is_ascii_alphanumeric())?;
    if start > GAP || !text[start..].starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let digits = &text[start..];
    let len = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    let after = &digits[len..];
    if after.starts_with('.') && after[1..].starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if after.starts_with(|c: char| c.is_ascii_alphabetic()) || len > 12 {
        return None;
    }
    digits[..len].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_steps_a_run_has_done() {
        for (line, steps) in [
            ("  3%|▎         | 164/4902 [41:25<19:52:40, 15.10s/it]", 164),
            (
                "Epoch 0:   3%|▎  | 414/13875 [09:24<5:05:50,  1.36s/it, v_num=kq2f]",
                414,
            ),
            ("Epoch [1/20], Iter. [1200/9529], Loss: 1.0240", 1200),
            (
                "epoch 001:  11125 / 140589 loss=5.185, num_updates=11125, lr=2.7e-05",
                11125,
            ),
            (
                "I1012 logging_writer.py:48] [1] global_step=5000, grad_norm=4.1, loss=2.31",
                5000,
            ),
            ("step: 300, loss: 2.38", 300),
            (
                "epoch 0 step 1000/6120 loss_ita 2.5563 loss_itm 0.2874",
                1000,
            ),
            ("Epoch 3/10", EPOCH_STEPS),
            ("Epoch [2/20], Iter. [10/9529], Loss: 1.0240", EPOCH_STEPS),
            ("[Epoch 2] train loss 0.41", EPOCH_STEPS),
        ] {
            assert_eq!(steps_in(line), Some(steps), "{line}");
        }
        for line in [
            // No step count: sizes, dates, a file's place, a rate, the first epoch.
            "|  0  A100  | 12288MiB / 16384MiB |",
            "2022/07/03 12:41:17 starting",
            "[2/2] articles/full.txt: 360999 chars",
            "lr: 3e-4, step time 0.5s",
            "Epoch 1/20",
            "Batches per epoch:  862",
            "  Total optimization steps = 5000",
            "step 1200: saving checkpoint",
            "Epoch 0:   0%|          | 0/1250 [00:00<?, ?it/s]",
            "Loading checkpoint shards: 100%|██████████| 30/30 [00:41<00:00,  1.38s/it]",
            "Map:  60%|██████    | 30000/50000 [00:03<00:02, 9650.21 examples/s]",
            "Running tokenizer on dataset:  40%|████      | 4000/10000 [00:01<00:02, 2800.1 ba/s]",
            "model.safetensors:  45%|████▌     | 2.2G/4.9G [00:20<00:25, 107MB/s]",
            "Training: 100%|██████████| 5000/5000 [1:02:11<00:00,  1.34it/s]",
        ] {
            assert!(steps_in(line).unwrap_or(0) < 100, "{line}");
        }
    }
}
