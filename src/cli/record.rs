//! `autograder record`.

/// Arguments of `autograder record`.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let _ = args;
    anyhow::bail!("`autograder record` is not implemented yet")
}
