//! Exit statuses and signals in a line: whether it says a process was killed with SIGKILL.
//!
//! Takes one error line; answers whether it reports a kill by signal 9 in any of the wordings
//! launchers, shells and schedulers use: torchrun's `exitcode: -9` and `Signal 9 (SIGKILL)`,
//! Python's `Signals.SIGKILL` and `returned non-zero exit status -9`, DeepSpeed's `return code
//! = -9`, a shell's or container's exit status 137 (128 + 9), Kubernetes' `OOMKilled`, and the
//! bare `Killed` a shell prints (also stuck to the end of a progress bar). A DataLoader
//! worker's `killed by signal` is its own failure and does not count.

/// Words after which an exit status is written.
const STATUS_WORDS: [&str; 7] = [
    "exit code",
    "exitcode",
    "exit_code",
    "exit status",
    "return code",
    "returncode",
    "exited with code",
];

/// Whether `line` reports a process killed with SIGKILL.
pub fn killed_by_sigkill(line: &str) -> bool {
    if line.contains("DataLoader") {
        return false;
    }
    let trimmed = line.trim_end_matches(['.', ' ']);
    line.contains("SIGKILL")
        || line.contains("OOMKilled")
        || ends_in_word(trimmed, "Killed")
        || status_is_kill(&line.to_ascii_lowercase())
}

/// `Killed` as the last word of the line: alone, or after a progress bar's `]`.
fn ends_in_word(line: &str, word: &str) -> bool {
    line.strip_suffix(word)
        .is_some_and(|before| !before.ends_with(|c: char| c.is_alphanumeric() || c == '_'))
}

/// An exit status of -9 or 137 right after one of [`STATUS_WORDS`].
fn status_is_kill(lower: &str) -> bool {
    STATUS_WORDS.iter().any(|word| {
        lower.match_indices(word).any(|(at, _)| {
            let rest = lower[at + word.len()..].trim_start_matches([' ', ':', '=', '\t']);
            let end = rest
                .char_indices()
                .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
                .map_or(rest.len(), |(i, _)| i);
            matches!(&rest[..end], "-9" | "137")
        })
    })
}

#[cfg(test)]
mod tests {
    use super::killed_by_sigkill;

    #[test]
    fn every_wording_of_a_kill() {
        for line in [
            "Killed",
            "Loading checkpoint shards:  38%|███▊      | 3/8 [00:41<01:09, 13.9s/it]Killed",
            "  exitcode  : -9 (pid: 4121)",
            "traceback : Signal 9 (SIGKILL) received by PID 4121",
            "subprocess.CalledProcessError: Command '['python', 'train.py']' died with <Signals.SIGKILL: 9>.",
            "subprocess.CalledProcessError: Command '['python', 'train.py']' returned non-zero exit status -9.",
            "[launch.py:335:sigkill_handler] ['python', 'train.py'] exits with return code = -9",
            "Training failed with exit code -9",
            "Error: Process completed with exit code 137.",
            "command terminated with exit code 137",
            "Last State: Terminated, Reason: OOMKilled, Exit Code: 137",
        ] {
            assert!(killed_by_sigkill(line), "{line}");
        }
    }

    #[test]
    fn other_statuses_and_look_alikes_are_not_kills() {
        for line in [
            "  exitcode  : 1 (pid: 4121)",
            "Training failed with exit code -91",
            "Error: Process completed with exit code 1370.",
            "exit code 13",
            "RuntimeError: DataLoader worker (pid 311) is killed by signal: Killed.",
            "Unkilled",
            "Process Killed_by_user started",
            "the job was not killed",
        ] {
            assert!(!killed_by_sigkill(line), "{line}");
        }
    }
}
