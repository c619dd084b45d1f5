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
    handed: Handed<'_>,
) -> Result<(Command, PathBuf), SandboxError> {
    match isolation {
        Isolation::Bwrap => {
            let bwrap = find_bwrap().ok_or(SandboxError::NoBwrap)?;
            let mut cmd = bwrap_command(&bwrap, python);
            die_with_parent(&mut cmd, false, handed);
            Ok((cmd, PathBuf::from("/tmp")))
        }
        Isolation::Landlock | Isolation::Rlimits => {
            let mut cmd = Command::new(&python.executable);
            cmd.args(PYTHON_FLAGS)
                .env_clear()
                .env("PYTHONHASHSEED", "0")
                .current_dir(scratch);
            die_with_parent(&mut cmd, is_root(), handed);
            Ok((cmd, scratch.to_path_buf()))
        }
    }
}

/// The descriptors a harness is handed at its start (each open until the
/// command is spawned: the caller holds them).
#[derive(Clone, Copy, Default)]
pub struct Handed<'a> {
    /// Its cgroup's `cgroup.procs`, opened for writing
    /// ([`crate::runner::cgroup::CGROUP_FD`]).
    pub cgroup: Option<std::os::fd::BorrowedFd<'a>>,
    /// The read end of the pipe its first child reads a source on
    /// ([`crate::runner::early_source::EARLY_SOURCE_FD`]).
    pub early_source: Option<std::os::fd::BorrowedFd<'a>>,
}

/// The harness dies with us, can never gain privileges through exec, and (as
/// root, rlimits mode) gets network and IPC namespaces of its own when the
/// kernel allows it; it is handed `handed`.
fn die_with_parent(cmd: &mut Command, unshare_net: bool, handed: Handed<'_>) {
    use std::os::fd::AsRawFd;
    let cgroup = handed.cgroup.map(|fd| fd.as_raw_fd());
    let early_source = handed.early_source.map(|fd| fd.as_raw_fd());
    // SAFETY: the closure only calls async-signal-safe libc functions.
    unsafe {
        cmd.pre_exec(move || {
            // Each first moved above the numbers they are handed as, so
            // that handing one never closes the other.
            let above = |fd: libc::c_int| libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 64);
            let cgroup = cgroup.map(above);
            let early_source = early_source.map(above);
            crate::runner::cgroup::enter(cgroup);
            if let Some(fd) = early_source {
                crate::runner::early_source::hand(fd);
            }
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
