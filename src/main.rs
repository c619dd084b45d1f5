//! The `autograder` binary: argument parsing lives in the library's `cli`.

/// mimalloc: loading a corpus and grading allocate many small values, and
/// glibc's malloc took a third of that time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    no_huge_pages();
    std::process::exit(autograder::cli::main());
}

/// mimalloc asks for transparent huge pages on its arenas: every first
/// touch of one then zeroes 2 MiB (and, where the kernel compacts on
/// demand, may wait for it), for a heap of a few MiB a thread. A run this
/// short gains nothing from them: they are turned off for this process
/// (its children inherit the flag; CPython never asks for them).
fn no_huge_pages() {
    // SAFETY: PR_SET_THP_DISABLE only sets a flag of this process; a kernel
    // without it (before 3.15) refuses, and nothing changes.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}
