//! `autograder cases ...`.

/// Subcommands of `autograder cases`.
#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// Load every case, evaluate it on the core and verify every pin.
    Check {},
}

pub fn run(cmd: Command) -> anyhow::Result<i32> {
    let _ = cmd;
    anyhow::bail!("`autograder cases` is not implemented yet")
}
