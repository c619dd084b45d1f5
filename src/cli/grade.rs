//! `autograder grade`.

/// Arguments of `autograder grade`.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let _ = args;
    anyhow::bail!("`autograder grade` is not implemented yet")
}
