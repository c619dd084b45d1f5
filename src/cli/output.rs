//! What `grade` and `merge` share once a run is graded: the report-file
//! options, `--audience`, `--fail-under` and `--quiet`, and [`finish`], which
//! writes the reports, prints the summary and picks the exit code.

use super::{EXIT_BELOW_THRESHOLD, EXIT_OK};
use crate::grade::{Audience, GradeRun};
use crate::report;
use anyhow::{bail, Context};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The reports to write and how the run ends, as `grade` and `merge` take them.
#[derive(clap::Args, Debug)]
pub(super) struct OutputArgs {
    /// Write the full report as JSON (schema autograder-report/1).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write a gradebook as CSV, one row per submission.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Write JUnit XML for CI (a testsuite per checkpoint, a testcase per case).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write a Markdown summary (e.g. for a CI step summary).
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Write a self-contained HTML course dashboard (charts, heatmap, failures).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Exit 1 when a submission scores below this percentage (0-100) of its
    /// total, or could not be graded.
    #[arg(long, value_name = "PERCENT", value_parser = percentage, allow_hyphen_values = true)]
    pub fail_under: Option<f64>,
    /// Print nothing on stdout (reports and errors are still written).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Print only the summary table, no failure details.
    #[arg(long, conflicts_with = "all_failures")]
    pub summary_only: bool,
    /// Print the failure details of every submission (by default the first
    /// 25 submissions with failures; the rest are in --html and --json).
    #[arg(long)]
    pub all_failures: bool,
}

/// `--fail-under`: a percentage in [0, 100].
fn percentage(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if (0.0..=100.0).contains(&x) => Ok(x),
        _ => Err(format!("{s:?} is not a percentage between 0 and 100")),
    }
}

/// `--gradescope FILE` with its `--gradescope-hidden` and `--gradescope-tests`
/// choices (only `grade` has them).
pub(super) type GradescopeOutput<'a> = Option<(&'a Path, report::gradescope::Options)>;

/// Writes the requested reports for `audience`, prints the summary, and
/// applies `--fail-under`. Every report is rendered before any is written:
/// what can fail, fails first.
pub(super) fn finish(
    run: &GradeRun,
    audience: Audience,
    args: &OutputArgs,
    gradescope: GradescopeOutput,
) -> anyhow::Result<i32> {
    check_report_paths(args, gradescope)?;
    let view = run.view(audience);

    let mut outputs: Vec<(&Path, String)> = Vec::new();
    if let Some(p) = &args.json {
        outputs.push((p, report::json::render(&view)));
    }
    if let Some(p) = &args.csv {
        outputs.push((p, report::csv::render(&view)?));
    }
    if let Some(p) = &args.junit {
        outputs.push((p, report::junit::render(&view)?));
    }
    if let Some((p, options)) = gradescope {
        outputs.push((p, report::gradescope::render(run, options)?));
    }
    if let Some(p) = &args.markdown {
        outputs.push((p, report::markdown::render(&view)));
    }
    if let Some(p) = &args.html {
        outputs.push((p, report::html::render(&view)));
    }
    // A report that cannot be written does not cost the others: all are
    // tried, then the run fails naming each one that failed.
    let unwritten: Vec<String> = outputs
        .into_iter()
        .filter_map(|(path, text)| write_report(path, &text).err())
        .map(|e| format!("{e:#}"))
        .collect();

    if !args.quiet {
        use report::terminal::Details;
        let details = if args.summary_only {
            Details::None
        } else if args.all_failures {
            Details::All
        } else {
            Details::Capped
        };
        let mut text =
            report::terminal::render_with(&view, report::terminal::want_color(), details);
        text.push_str(&report::terminal::footer(&view));
        let mut out = std::io::stdout().lock();
        // A closed pipe (`| head`) is not an error worth a non-zero exit.
        let _ = out.write_all(text.as_bytes()).and_then(|_| out.flush());
    }

    if !unwritten.is_empty() {
        bail!(
            "{} report{} could not be written (the others were):\n  {}",
            unwritten.len(),
            if unwritten.len() == 1 { "" } else { "s" },
            unwritten.join("\n  ")
        );
    }

    if let Some(threshold) = args.fail_under {
        let below = run.below(threshold);
        if !below.is_empty() {
            for s in &below {
                match &s.error {
                    Some(e) => eprintln!("{}: not graded: {e}", s.id),
                    None => eprintln!(
                        "{}: {} is below --fail-under {}%",
                        s.id,
                        report::fmt_percent(s.percent()),
                        threshold
                    ),
                }
            }
            return Ok(EXIT_BELOW_THRESHOLD);
        }
    }
    Ok(EXIT_OK)
}

/// Refuses report paths that cannot work (two reports into one file); run
/// before any work, so a usage error costs nothing.
pub(super) fn check_report_paths(
    args: &OutputArgs,
    gradescope: GradescopeOutput,
) -> anyhow::Result<()> {
    refuse_shared_paths(&[
        ("--json", args.json.as_deref()),
        ("--csv", args.csv.as_deref()),
        ("--junit", args.junit.as_deref()),
        ("--gradescope", gradescope.map(|(p, _)| p)),
        ("--markdown", args.markdown.as_deref()),
        ("--html", args.html.as_deref()),
    ])
}

/// Two reports into the same file is a usage error, not a silently lost report.
fn refuse_shared_paths(named: &[(&str, Option<&Path>)]) -> anyhow::Result<()> {
    let named: Vec<(&str, PathBuf)> = named
        .iter()
        .filter_map(|&(flag, p)| Some((flag, std::path::absolute(p?).ok()?)))
        .collect();
    for (i, (flag, path)) in named.iter().enumerate() {
        if let Some((first, _)) = named[..i].iter().find(|(_, p)| p == path) {
            bail!(
                "{first} and {flag} both write {}: one report would overwrite the other",
                path.display()
            );
        }
    }
    Ok(())
}

fn write_report(path: &Path, text: &str) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create folder {}", dir.display()))?;
    }
    report::write_atomic(path, text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))
}
