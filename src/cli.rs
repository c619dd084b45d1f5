//! Command-line interface: parses arguments and calls the library.

/// Runs the CLI and returns the process exit code
/// (0 ok, 1 graded below `--fail-under`, 2 usage or input error).
pub fn main() -> i32 {
    0
}
