//! The report files a run can be written as: the one table `grade` and
//! `merge` loop over for their options, their path checks and their writes.

use super::{csv, gradescope, html, json, junit, markdown};
use crate::grade::GradeRun;
use std::io::Write;

/// A report file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Json,
    Csv,
    Junit,
    /// Gradescope's `results.json`: only `grade` offers it (with its
    /// `--gradescope-hidden` and `--gradescope-tests` choices), for one
    /// submission, rendered from the instructors' run.
    Gradescope,
    Markdown,
    Html,
}

/// Every format, in the order reports are checked and written.
pub const FORMATS: [Format; 6] = [
    Format::Json,
    Format::Csv,
    Format::Junit,
    Format::Gradescope,
    Format::Markdown,
    Format::Html,
];

/// Why a report could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Csv(#[from] ::csv::Error),
    #[error(transparent)]
    Junit(#[from] junit::JunitError),
    #[error(transparent)]
    Gradescope(#[from] gradescope::GradescopeError),
}

impl Format {
    /// Its option's name (`--json`...).
    pub fn flag(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Junit => "junit",
            Format::Gradescope => "gradescope",
            Format::Markdown => "markdown",
            Format::Html => "html",
        }
    }

    /// What `--help` says of its option.
    pub fn help(self) -> &'static str {
        match self {
            Format::Json => "Write the full report as JSON (schema autograder-report/1)",
            Format::Csv => "Write a gradebook as CSV, one row per submission",
            Format::Junit => {
                "Write JUnit XML for CI (a testsuite per checkpoint, a testcase per case)"
            }
            Format::Gradescope => "Write Gradescope's results.json (PATH must be one submission)",
            Format::Markdown => "Write a Markdown summary (e.g. for a CI step summary)",
            Format::Html => {
                "Write a self-contained HTML course dashboard (charts, heatmap, failures)"
            }
        }
    }

    /// Writes `run` in this format into `out` (`options` only for Gradescope).
    pub fn write(
        self,
        run: &GradeRun,
        options: gradescope::Options,
        out: &mut dyn Write,
    ) -> Result<(), WriteError> {
        match self {
            Format::Json => json::write(run, out)?,
            Format::Csv => csv::write(run, out)?,
            Format::Junit => junit::write(run, out)?,
            Format::Gradescope => {
                let text = gradescope::render(run, options)?;
                out.write_all(text.as_bytes())?;
            }
            Format::Markdown => markdown::write(run, out)?,
            Format::Html => html::write(run, out)?,
        }
        Ok(())
    }
}
