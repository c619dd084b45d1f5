//! `autograder merge`: joins the JSON reports of `grade --shard K/N` runs
//! into one result and writes the same reports a single run would have.

use super::output::{finish, OutputArgs};
use super::values::{AudienceArg, ScoringArg};
use super::EXIT_ERROR;
use crate::grade::Audience;
use crate::report;
use anyhow::Context;
use std::path::PathBuf;

/// Arguments of `autograder merge`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The shards' JSON reports (`grade --shard K/N --json F`), at least one.
    #[arg(required = true, value_name = "SHARD.json")]
    shards: Vec<PathBuf>,
    /// Who reads the output. Default: the shards' audience. Student shards
    /// cannot be merged for instructors (hidden inputs are not in them).
    #[arg(long, value_enum)]
    audience: Option<AudienceArg>,
    /// Merge even when shards of the run are missing; every report then
    /// says which shards it holds ("partial: shards 1, 3 of 3").
    #[arg(long)]
    allow_partial: bool,
    /// Score the merged run under this policy (the shards' own by default;
    /// they must all have been graded under one)
    #[arg(long, value_name = "POLICY", value_enum)]
    scoring: Option<ScoringArg>,
    #[command(flatten)]
    output: OutputArgs,
}

/// Runs `autograder merge`; returns the exit code.
pub fn run(args: Args) -> anyhow::Result<i32> {
    // Every shard's case grades go to one spool as they are read: the
    // merged run holds summaries only, whatever the class's size.
    let details =
        crate::grade::CaseGradeStorage::spooled().context("cannot make a temporary file")?;
    let mut runs = Vec::with_capacity(args.shards.len());
    for path in &args.shards {
        let file =
            std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        let run = report::read::read(file, &details)
            .with_context(|| format!("cannot read {} as a grade report", path.display()))?;
        runs.push((path.display().to_string(), run));
    }
    if let Some(e) = details.error() {
        anyhow::bail!("{e}");
    }
    let mut run =
        report::merge::merge(runs, args.allow_partial).context("cannot merge these reports")?;
    if let Some(policy) = args.scoring {
        run = run.rescored(policy.into());
    }
    let audience = args.audience.map_or(run.audience, Audience::from);
    if run.audience == Audience::Student && audience == Audience::Instructor {
        eprintln!(
            "error: the shards were written for students; they lack what instructors see \
             (grade the shards with --audience instructor)"
        );
        return Ok(EXIT_ERROR);
    }
    finish(&run, audience, &args.output, None)
}
