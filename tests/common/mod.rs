//! Helpers shared by integration tests.

/// Prints a line that `cargo test` shows even when the test passes — the
/// counts, seeds, scores and skip reasons CI logs should carry. libtest
/// captures `print!`/`eprint!`, but not direct writes to stderr.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}
