//! Exit statuses and signals in a line: whether it says a process was killed with SIGKILL, or
//! died of SIGBUS.
//!
//! Takes one error line; answers whether it reports a kill by signal 9 in any of the wordings
//! launchers, shells and schedulers use: torchrun's `exitcode: -9` and `Signal 9 (SIGKILL)`,
//! Python's `Signals.SIGKILL` and `returned non-zero exit status -9`, DeepSpeed's `return code
//! = -9`, a shell's or container's exit status 137 (128 + 9), Kubernetes' `OOMKilled`, the
//! bare `Killed` a shell prints (also stuck to the end of a progress bar), and a script's
//! report of a job it ran (`train.sh: line 12: 48213 Killed   python train.py`). A DataLoader
//! worker's `killed by signal` is its own failure and does not count. Signal 7 (SIGBUS) in the
//! same wordings (`-7`, 135, `Signal 7 (SIGBUS)`, a shell's `Bus error`) is what a process gets
//! when it touches shared memory that `/dev/shm` cannot back.

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
        || job_killed(line)
        || status_is(&line.to_ascii_lowercase(), &["-9", "137"])
}

/// A non-interactive bash's report of a job a signal ended (jobs.c, `notify_of_job_status`):
/// `<script>: line <n>: <pid> Killed <command>`, `Killed` being strsignal(SIGKILL).
fn job_killed(line: &str) -> bool {
    line.match_indices(": line ").any(|(at, found)| {
        let rest = &line[at + found.len()..];
        let Some((number, job)) = rest.split_once(": ") else {
            return false;
        };
        let mut words = job.split_whitespace();
        let digits = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit());
        digits(number) && words.next().is_some_and(digits) && words.next() == Some("Killed")
    })
}

/// Whether `line` reports a process that died of SIGBUS (a DataLoader worker's own report
/// included: its bus error is the same failure).
pub fn died_of_sigbus(line: &str) -> bool {
    line.contains("SIGBUS")
        || line.contains("Bus error")
        || line.contains("bus error")
        || status_is(&line.to_ascii_lowercase(), &["-7", "135"])
}

/// `Killed` as the last word of the line: alone, or after a progress bar's `]`.
fn ends_in_word(line: &str, word: &str) -> bool {
    line.strip_suffix(word)
        .is_some_and(|before| !before.ends_with(|c: char| c.is_alphanumeric() || c == '_'))
}

/// An exit status of `statuses` right after one of [`STATUS_WORDS`].
fn status_is(lower: &str, statuses: &[&str]) -> bool {
    STATUS_WORDS.iter().any(|word| {
        lower.match_indices(word).any(|(at, _)| {
            let rest = lower[at + word.len()..].trim_start_matches([' ', ':', '=', '\t']);
            let end = rest
                .char_indices()
                .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
                .map_or(rest.len(), |(i, _)| i);
            statuses.contains(&&rest[..end])
        })
    })
}

#[cfg(test)]
mod tests {
    use super::{died_of_sigbus, killed_by_sigkill};

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
            "/bin/bash: line 1: 48213 Killed                  python train.py --bs 64",
            "train.sh: line 12:  4821 Killed python train.py",
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
            "train.sh: line 12: 4821 Terminated python train.py",
            "see line 3: 12 Killed processes were restarted by the scheduler",
        ] {
            assert!(!killed_by_sigkill(line), "{line}");
        }
    }

    #[test]
    fn every_wording_of_a_bus_error() {
        for line in [
            "[launch.py:321:sigkill_handler] ['python', '-u', 'main.py'] exits with return code = -7",
            "  exitcode  : -7 (pid: 4121)",
            "traceback : Signal 7 (SIGBUS) received by PID 4121",
            "Bus error (core dumped)",
            "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).",
            "command terminated with exit code 135",
        ] {
            assert!(died_of_sigbus(line), "{line}");
            assert!(!killed_by_sigkill(line), "{line}");
        }
        for line in [
            "exit code -71",
            "  exitcode  : -9 (pid: 4121)",
            "step 7 loss 0.135",
        ] {
            assert!(!died_of_sigbus(line), "{line}");
        }
    }
}
