//! What `package slurm` and `package kubernetes` share: a course graded in
//! shards (`grade --shard K/N`, joined by `merge`), checked before anything
//! is written.

use super::super::record::{load_corpus, AssignmentArgs};
use super::plain_id;
use std::path::{Path, PathBuf};

/// The course a cluster grades, and in how many shards.
#[derive(clap::Args, Debug)]
pub(super) struct Sharded {
    /// The case corpus (the folder holding course.toml).
    #[arg(long, value_name = "DIR", default_value = "cases")]
    pub cases: PathBuf,
    #[command(flatten)]
    pub selection: AssignmentArgs,
    /// How many shards, each an array task or a pod grading every N-th
    /// submission (`grade --shard K/N`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub shards: u32,
    /// CPUs of each shard (its `grade --jobs`).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub cpus: u32,
    /// The folder to write (new or empty).
    #[arg(long, short = 'o', value_name = "DIR")]
    pub output: PathBuf,
}

impl Sharded {
    /// The selection as `grade` options (` --assignment a --lesson b`, or
    /// nothing for the whole course), each id checked to exist in the corpus
    /// and to need no quoting in a script.
    pub fn selection(&self) -> anyhow::Result<String> {
        let flags = [
            ("--assignment", &self.selection.assignments),
            ("--lesson", &self.selection.lessons),
        ];
        let mut options = String::new();
        for (flag, ids) in flags {
            for id in ids {
                plain_id(flag, id)?;
                options.push_str(&format!(" {flag} {id}"));
            }
        }
        load_corpus(&self.cases, &self.selection, None)?;
        Ok(options)
    }

    /// Creates the output folder, refusing one that holds anything.
    pub fn create_output(&self) -> anyhow::Result<&Path> {
        super::empty_folder(&self.output)?;
        Ok(&self.output)
    }
}

/// A value of a scheduler option (`--partition`, `--time`, `--mem`, an
/// image name) that goes into a script or manifest as it is: a letter or
/// digit first, then only characters no `#SBATCH` line, shell or quoted
/// YAML string treats specially.
pub(super) fn plain_value(flag: &str, value: &str) -> anyhow::Result<()> {
    let plain = value.starts_with(|c: char| c.is_ascii_alphanumeric())
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._:,/@+-".contains(c));
    if !plain {
        anyhow::bail!("{flag} {value:?}: only letters, digits and . _ : , / @ + - are allowed");
    }
    Ok(())
}
