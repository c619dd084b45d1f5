//! What the integration test binaries share: the command builder for the
//! built `autograder`, the cost tiers, the fixture corpora and recordings,
//! and the recorder's helpers. Each binary (`tests/<name>/main.rs`) includes
//! it with `#[path = "../util/mod.rs"] mod util;`; not every binary uses
//! every helper.
#![allow(dead_code)]

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

pub mod cmd;
pub mod deploy;
pub mod gradescope_spec;
pub mod grading;
pub mod large;
pub mod machine;
pub mod process;
pub mod record;
pub mod slurm;
pub mod tier;

#[allow(unused_imports)]
pub use cmd::TestCommand;
