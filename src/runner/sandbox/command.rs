//! The command that starts a worker's harness, per tier.

use super::bwrap::{bwrap_command, find_bwrap};
use super::python::{Python, PYTHON_FLAGS};
use super::SandboxError;
use super::{is_root, Isolation};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The command that starts a worker's harness, and where its scratch lives
/// as the harness sees it.
pub fn harness_command(
    isolation: Isolation,
    scratch: &Path,
    python: &Python,
    cgroup: Option<std::os::fd::BorrowedFd<'_>>,
) -> Result<(Command, PathBuf), SandboxError> {
    match isolation {
        Isolation::Bwrap => {
            let bwrap = find_bwrap().ok_or(SandboxError::NoBwrap)?;
            let mut cmd = bwrap_command(&bwrap, python);
            die_with_parent(&mut cmd, false, cgroup);
            Ok((cmd, PathBuf::from("/tmp")))
        }
        Isolation::Landlock | Isolation::Rlimits => {
            let mut cmd = Command::new(&python.executable);
            cmd.args(PYTHON_FLAGS)
                .env_clear()
                .env("PYTHONHASHSEED", "0")
                .current_dir(scratch);
            die_with_parent(&mut cmd, is_root(), cgroup);
            Ok((cmd, scratch.to_path_buf()))
        }
    }
}

/// The harness dies with us, can never gain privileges through exec, and (as
/// root, rlimits mode) gets network and IPC namespaces of its own when the
/// kernel allows it.
fn die_with_parent(
    cmd: &mut Command,
    unshare_net: bool,
    cgroup: Option<std::os::fd::BorrowedFd<'_>>,
) {
    use std::os::fd::AsRawFd;
    // Open until the command is spawned (the caller holds it).
    let cgroup = cgroup.map(|fd| fd.as_raw_fd());
    // SAFETY: the closure only calls async-signal-safe libc functions.
    unsafe {
        cmd.pre_exec(move || {
            crate::runner::cgroup::enter(cgroup);
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
            // No exec of a setuid binary ever gains privileges (bwrap sets it too).
            libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
            if unshare_net {
                // Best effort: without them the fallback has the host's
                // network and IPC objects (System V, POSIX queues).
                libc::unshare(libc::CLONE_NEWNET);
                libc::unshare(libc::CLONE_NEWIPC);
            }
            Ok(())
        });
    }
}
