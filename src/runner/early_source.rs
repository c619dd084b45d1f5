//! A submission's source handed ahead to a worker's first child, so that it
//! compiles `main.py` as soon as its sandbox is tested instead of once its
//! job has come through Rust and the supervisor (~2–4 ms of a
//! one-submission run).
//!
//! The source goes on a pipe of its own, handed to the harness as
//! [`EARLY_SOURCE_FD`]: the zygote, which reads stdin and forks every later
//! child, never reads it (no submission's bytes are ever in its memory) and
//! closes it once the first child is forked. The pipe is written whole and
//! closed before the init line, so the first child (forked after that
//! line) reads it without waiting. The job still carries the source that
//! runs: the child uses what it compiled ahead only for the same bytes.

use std::io::Write;
use std::os::fd::OwnedFd;

/// The descriptor the harness finds the pipe on (`harness.py`'s
/// `_EARLY_SOURCE`).
pub const EARLY_SOURCE_FD: libc::c_int = 7;

/// The most a handed source may hold: what a pipe can be made to hold
/// without privileges (`/proc/sys/fs/pipe-max-size`'s default).
const MOST_BYTES: usize = 1 << 20;

/// A new pipe (both ends close-on-exec): (read end, for the harness; write end).
pub fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    Ok(rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?)
}

/// Writes `source` on the pipe's write end when the pipe can hold it whole
/// (it is never waited on: nothing reads it until the first child is
/// forked), then closes it; with `None`, or a source too large, the first
/// child reads an empty pipe and compiles at its job as any child.
pub fn send(write: OwnedFd, source: Option<&[u8]>) {
    let Some(source) = source.filter(|s| !s.is_empty() && s.len() <= MOST_BYTES) else {
        return;
    };
    // Refused (EPERM past the user's pipe quota), the pipe stays as it was.
    let held = rustix::pipe::fcntl_setpipe_size(&write, source.len()).unwrap_or(0);
    // Never waited on: a write that does not fit fails instead.
    let nonblocking = rustix::fs::fcntl_setfl(&write, rustix::fs::OFlags::NONBLOCK).is_ok();
    if held < source.len() || !nonblocking {
        return;
    }
    let mut file = std::fs::File::from(write);
    let _ = file.write_all(source);
}

/// In `pre_exec` (after fork, before exec): hands the read end `fd` to the
/// program as [`EARLY_SOURCE_FD`]. Only async-signal-safe calls.
///
/// # Safety
/// Call only between fork and exec, with `fd` not [`EARLY_SOURCE_FD`]
/// itself (see `sandbox::command`, which moves it out of the way first).
pub unsafe fn hand(fd: libc::c_int) {
    libc::dup2(fd, EARLY_SOURCE_FD);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn sent(source: Option<&[u8]>) -> Vec<u8> {
        let (read, write) = pipe().unwrap();
        send(write, source);
        let mut got = Vec::new();
        std::fs::File::from(read).read_to_end(&mut got).unwrap();
        got
    }

    #[test]
    fn a_source_is_written_whole_and_the_pipe_closed() {
        let source = b"def f():\n    return 1\n".repeat(3000);
        assert!(source.len() > 65536, "more than a default pipe holds");
        assert_eq!(sent(Some(&source)), source);
    }

    #[test]
    fn none_empty_or_too_large_leaves_the_pipe_empty_and_closed() {
        assert!(sent(None).is_empty());
        assert!(sent(Some(b"")).is_empty());
        assert!(sent(Some(&vec![b'#'; MOST_BYTES + 1])).is_empty());
    }
}
