//! `autograder merge`: joins the JSON reports of `grade --shard K/N` runs
//! into one result and writes the same reports a single run would have.

use super::grade::{finish, percentage, AudienceArg, ReportPaths};
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
    /// Write the merged report as JSON (schema autograder-report/1).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write a gradebook as CSV, one row per submission.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Write JUnit XML for CI (a testsuite per checkpoint, a testcase per case).
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write a Markdown summary (e.g. for a CI step summary).
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
    /// Write a self-contained HTML course dashboard.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Exit 1 when a submission scores below this percentage (0-100) of its
    /// total, or could not be graded.
    #[arg(long, value_name = "PERCENT", value_parser = percentage, allow_hyphen_values = true)]
    fail_under: Option<f64>,
    /// Print nothing on stdout (reports and errors are still written).
    #[arg(long, short = 'q')]
    quiet: bool,
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let mut runs = Vec::with_capacity(args.shards.len());
    for path in &args.shards {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let run = report::read::parse(&text)
            .with_context(|| format!("cannot read {} as a grade report", path.display()))?;
        runs.push((path.display().to_string(), run));
    }
    let run = report::merge::merge(runs).context("cannot merge these reports")?;
    let audience = match args.audience {
        Some(a) => a.into(),
        None => run.audience,
    };
    if run.audience == Audience::Student && audience == Audience::Instructor {
        eprintln!(
            "error: the shards were written for students; they lack what instructors see \
             (grade the shards with --audience instructor)"
        );
        return Ok(EXIT_ERROR);
    }
    let paths = ReportPaths {
        json: args.json.as_deref(),
        csv: args.csv.as_deref(),
        junit: args.junit.as_deref(),
        gradescope: None,
        gradescope_hidden: Default::default(),
        markdown: args.markdown.as_deref(),
        html: args.html.as_deref(),
    };
    finish(&run, audience, &paths, args.quiet, args.fail_under)
}
