//! `autograder eval`.

/// Arguments of `autograder eval`.
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let _ = args;
    anyhow::bail!("`autograder eval` is not implemented yet")
}
