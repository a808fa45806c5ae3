//! A closed pipe ends the command quietly (Unix).
//!
//! Rust starts every program with `SIGPIPE` ignored, so a write to a closed pipe fails and
//! `println!` panics with exit 101 (`errata diagnose --json big.log | head -c 100`). Commands
//! that write to a terminal or a pipe take the default action back, as grep and cat have it:
//! the process ends, silently, when its reader goes away. `errata serve` keeps it ignored,
//! since it writes to sockets whose clients may leave at any time.

/// Lets `SIGPIPE` end the process, as it does a C program.
pub fn end_quietly_on_closed_pipe() {
    // SAFETY: restores a signal's default disposition before any thread is started; no
    // handler of ours is replaced.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
