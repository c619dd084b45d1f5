//! The `autograder` binary: argument parsing lives in the library's `cli`.

/// mimalloc: loading a corpus and grading allocate many small values, and
/// glibc's malloc took a third of that time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    no_huge_pages();
    let code = autograder::cli::main();
    // Everything is written and closed by now but what stdout and stderr
    // hold: flushed, the process ends without the C library's exit
    // handlers (the allocator's clean-up took ~0.4 ms of a one-submission
    // run, for memory the kernel frees anyway).
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: _exit only ends the process; nothing of it is left to run.
    unsafe { libc::_exit(code) }
}

/// Transparent huge pages: every first touch of one zeroes 2 MiB (and,
/// where the kernel compacts on demand, may wait for it), for a heap of a
/// few MiB a thread; a run this short gains nothing from them. mimalloc's
/// own request for them (`MADV_HUGEPAGE` on the arena it reserves before
/// `main`) is compiled out (its `no_thp` feature): the flag below comes too
/// late for that arena's first pages. The flag turns them off for the rest
/// of this process where the system would use them unasked (its children
/// inherit it; CPython never asks for them).
fn no_huge_pages() {
    // SAFETY: PR_SET_THP_DISABLE only sets a flag of this process; a kernel
    // without it (before 3.15) refuses, and nothing changes.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}
