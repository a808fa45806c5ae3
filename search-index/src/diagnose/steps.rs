//! Whether an out-of-memory error came after the run had done many steps.
//!
//! Takes the log's error lines, each with the most steps its progress lines had counted before
//! it ([`crate::log::progress`]); yields a sentence when the first out-of-memory error came after
//! [`MANY_STEPS`] or more. Every step of a run with a fixed batch needs about the same memory,
//! so a batch too large for the device fails within its first steps (the first backward, the
//! first optimizer step). A failure after hundreds of steps that ran is an input larger than the
//! rest (a long sequence) or memory that grew over the run (fragmentation, a leak). An OOM
//! raised while evaluating or predicting is left alone: those steps are not the ones that ran.

use super::oom::{first_oom, thousands};
use crate::log::ErrorLine;

/// Steps that ran before an OOM for its batch not to be simply too large.
pub const MANY_STEPS: u64 = 100;

/// Words of a frame that runs evaluation rather than the steps counted.
const EVALUATING: [&str; 5] = ["evaluat", "validat", "predict", "eval_step", "test_step"];

/// The sentence that says the run did many steps before its first OOM, if it did.
pub fn oom_after_many_steps(lines: &[ErrorLine]) -> Option<String> {
    let oom = first_oom(lines)?;
    let (steps, at) = oom.steps_before?;
    let context = oom.context.to_ascii_lowercase();
    if steps < MANY_STEPS || EVALUATING.iter().any(|w| context.contains(w)) {
        return None;
    }
    Some(format!(
        "line {at}: the run had done {} steps before it ran out of memory on line {}; a batch too large for the device fails within its first steps, so an input larger than the rest, or memory that grew over the run, is likelier",
        thousands(steps),
        oom.line
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::read_log;

    const OOM: &str = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 720.00 MiB.";

    fn log(progress: &str, frame: &str) -> String {
        format!(
            "{progress}\nTraceback (most recent call last):\n  File \"train.py\", line 9, in {frame}\n    loss.backward()\n{OOM}\n"
        )
    }

    #[test]
    fn an_oom_after_many_steps_is_read() {
        let bar = "Epoch 0:  3%|▎  | 414/13875 [09:24<5:05:50,  1.36s/it, loss=4.02]";
        let report = read_log(&log(bar, "training_step"));
        let why = oom_after_many_steps(&report.error_lines).unwrap();
        assert!(
            why.starts_with("line 1: the run had done 414 steps"),
            "{why}"
        );
        assert!(why.contains("on line 5"), "{why}");
        // Through a relay's prefix, whose ` [` before a rank every line of the traceback has.
        let relayed: String = format!(
            "{bar}\n[rank5]: Traceback (most recent call last):\n[rank5]:   File \"train.py\", line 9, in training_step\n[rank5]:     loss = model(x).sum()\n[rank5]:            ^^^^^^^^^^^^^^\n[rank5]:            ^^^^^^^^^^^^^^\n[rank5]:            ^^^^^^^^^^^^^^\n[rank5]:            ^^^^^^^^^^^^^^\n[rank5]: {OOM}\n"
        )
        .lines()
        .map(|l| format!("2026-01-01T10:00:00.123Z {l}\n"))
        .collect();
        let why = oom_after_many_steps(&read_log(&relayed).error_lines);
        assert!(why.is_some_and(|w| w.contains("414 steps")), "{relayed}");
        // On the first steps, while evaluating, or with no progress line: nothing is said.
        let first = "Epoch 0:  0%|  | 2/13875 [00:09<5:05:50,  4.36s/it]";
        for text in [
            log(first, "training_step"),
            log(bar, "evaluation_loop"),
            log("loading model", "training_step"),
        ] {
            assert_eq!(oom_after_many_steps(&read_log(&text).error_lines), None);
        }
    }
}
