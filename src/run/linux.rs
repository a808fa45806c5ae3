//! On Linux, COMMAND ends with errata: if errata itself is killed (SIGKILL, the OOM killer),
//! the kernel sends COMMAND SIGTERM, which a launcher such as torchrun passes on to its
//! workers; nothing is left running unwatched.

use std::io;

/// Run in the child between fork and exec (async-signal-safe calls only): asks for SIGTERM
/// when `parent` ends, and exits at once if it already has.
pub fn end_with(parent: u32) -> io::Result<()> {
    // SAFETY: prctl(PR_SET_PDEATHSIG) and getppid touch no memory; both are safe after fork.
    unsafe {
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) == -1 {
            return Err(io::Error::last_os_error());
        }
        if libc::getppid() as u32 != parent {
            libc::_exit(143);
        }
    }
    Ok(())
}
