//! What `grade` and `merge` share once a run is graded: the report-file
//! options, `--audience`, `--fail-under` and `--quiet`, and [`finish`], which
//! writes the reports, prints the summary and picks the exit code.

use super::{EXIT_BELOW_THRESHOLD, EXIT_OK};
use crate::grade::{Audience, GradeRun};
use crate::report;
use crate::report::text::escaped;
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

/// A report rendered into a writer (its temporary file).
type Render<'a> = Box<dyn FnOnce(&mut dyn Write) -> anyhow::Result<()> + 'a>;

/// Writes the requested reports for `audience`, prints the summary, and
/// applies `--fail-under`. Each report is rendered straight into a
/// temporary file beside its destination (reading the case grades one
/// submission at a time), and every one is renamed into place only once all
/// are rendered and no case grade failed to read back: a report is never
/// half written, nor written from a run that may be incomplete.
pub(super) fn finish(
    run: &GradeRun,
    audience: Audience,
    args: &OutputArgs,
    gradescope: GradescopeOutput,
) -> anyhow::Result<i32> {
    check_report_paths(args, gradescope)?;
    if gradescope.is_some() && run.submissions.len() != 1 {
        bail!(report::gradescope::GradescopeError::NotOne(
            run.submissions.len()
        ));
    }
    let view = run.view(audience);
    let view = view.as_ref();

    let mut reports: Vec<(&Path, Render)> = Vec::new();
    if let Some(p) = &args.json {
        reports.push((p, Box::new(|w| Ok(report::json::write(view, w)?))));
    }
    if let Some(p) = &args.csv {
        reports.push((p, Box::new(|w| Ok(report::csv::write(view, w)?))));
    }
    if let Some(p) = &args.junit {
        reports.push((p, Box::new(|w| Ok(report::junit::write(view, w)?))));
    }
    if let Some((p, options)) = gradescope {
        reports.push((
            p,
            Box::new(move |w| {
                let text = report::gradescope::render(run, options)?;
                Ok(w.write_all(text.as_bytes())?)
            }),
        ));
    }
    if let Some(p) = &args.markdown {
        reports.push((p, Box::new(|w| Ok(report::markdown::write(view, w)?))));
    }
    if let Some(p) = &args.html {
        reports.push((p, Box::new(|w| Ok(report::html::write(view, w)?))));
    }
    // A report that cannot be written does not cost the others: all are
    // tried, then the run fails naming each one that failed.
    let mut unwritten: Vec<String> = Vec::new();
    let mut rendered = Vec::new();
    for (path, render) in reports {
        match render_report(path, render) {
            Ok(tmp) => rendered.push((path, tmp)),
            Err(e) => unwritten.push(format!("{e:#}")),
        }
    }
    // A case grade that could not be read back: every report may miss it,
    // so none is written (the temporary files go with `rendered`).
    spool_ok(run)?;
    for (path, tmp) in rendered {
        if let Err(e) = report::persist(tmp, path) {
            unwritten.push(format!("cannot write {}: {e}", path.display()));
        }
    }

    if !args.quiet {
        use report::terminal::Details;
        let details = if args.summary_only {
            Details::None
        } else if args.all_failures {
            Details::All
        } else {
            Details::Capped
        };
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        // A closed pipe (`| head`) is not an error worth a non-zero exit.
        let _ =
            report::terminal::write_with(view, report::terminal::want_color(), details, &mut out)
                .and_then(|_| out.write_all(report::terminal::footer(view).as_bytes()))
                .and_then(|_| out.flush());
        spool_ok(run)?;
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
                    Some(e) => eprintln!("{}: not graded: {}", escaped(&s.id), escaped(e)),
                    None => eprintln!(
                        "{}: {} is below --fail-under {}%",
                        escaped(&s.id),
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

/// Fails when a case grade of `run` could not be read back from its spool.
fn spool_ok(run: &GradeRun) -> anyhow::Result<()> {
    match run.details.error() {
        Some(e) => bail!("no report was written: {e}"),
        None => Ok(()),
    }
}

/// Renders one report into a temporary file beside `path` (its folder made
/// first), ready to be persisted as `path`.
fn render_report(path: &Path, render: Render) -> anyhow::Result<tempfile::NamedTempFile> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create folder {}", dir.display()))?;
    }
    let written = report::temp_beside(path)
        .map_err(anyhow::Error::from)
        .and_then(|mut tmp| {
            let mut w = std::io::BufWriter::new(tmp.as_file_mut());
            render(&mut w)?;
            w.flush()?;
            drop(w);
            Ok(tmp)
        });
    written.with_context(|| format!("cannot write {}", path.display()))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::{expected_outcomes, grade_recordings};

    /// The fixture run of `tests/fixtures/grading`.
    fn fixture_run() -> GradeRun {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/grading");
        let corpus = crate::corpus::load(&dir.join("cases")).unwrap();
        let expected = expected_outcomes(&corpus).unwrap();
        let mut recs: Vec<_> = std::fs::read_dir(dir.join("recordings"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| {
                let id = p.file_stem().unwrap().to_string_lossy().into_owned();
                (
                    id,
                    crate::recording::read_recording(&p).map_err(|e| crate::errors::chain(&e)),
                )
            })
            .collect();
        recs.sort_by(|a, b| a.0.cmp(&b.0));
        grade_recordings(&corpus, &expected, recs)
    }

    fn args(dir: &Path) -> OutputArgs {
        OutputArgs {
            json: Some(dir.join("out/report.json")),
            csv: Some(dir.join("out/grades.csv")),
            junit: Some(dir.join("junit.xml")),
            markdown: Some(dir.join("summary.md")),
            html: Some(dir.join("out/dashboard.html")),
            fail_under: None,
            quiet: true,
            summary_only: false,
            all_failures: false,
        }
    }

    /// Every file under `dir`, relative, sorted.
    fn files(dir: &Path) -> Vec<String> {
        let mut out: Vec<String> = walkdir::WalkDir::new(dir)
            .into_iter()
            .map(|e| e.unwrap())
            .filter(|e| e.file_type().is_file())
            .map(|e| e.path().strip_prefix(dir).unwrap().display().to_string())
            .collect();
        out.sort();
        out
    }

    #[test]
    fn reports_of_a_spooled_run_are_those_of_the_run() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let run = fixture_run();
        for audience in [Audience::Instructor, Audience::Student] {
            finish(&run, audience, &args(a.path()), None).unwrap();
            let spooled = fixture_run().spooled().unwrap();
            finish(&spooled, audience, &args(b.path()), None).unwrap();
            assert_eq!(files(a.path()), files(b.path()));
            assert_eq!(files(a.path()).len(), 5, "no temporary file left");
            for f in files(a.path()) {
                let (x, y) = (
                    std::fs::read(a.path().join(&f)).unwrap(),
                    std::fs::read(b.path().join(&f)).unwrap(),
                );
                assert!(x == y, "{audience:?} {f}");
            }
        }
    }

    /// A case grade that cannot be read back from the spool: no report is
    /// written (nor left half-written), and the run fails saying why.
    #[test]
    fn a_spool_read_failure_writes_no_report() {
        let dir = tempfile::tempdir().unwrap();
        let mut run = fixture_run().spooled().unwrap();
        // A summary whose case grades are not in the spool.
        let s = run
            .submissions
            .iter_mut()
            .find(|s| s.id == "partial")
            .unwrap();
        s.id = "partial-renamed".into();
        let err = finish(&run, Audience::Instructor, &args(dir.path()), None).unwrap_err();
        let err = format!("{err:#}");
        assert!(err.contains("no report was written"), "{err}");
        assert!(err.contains("partial-renamed"), "{err}");
        assert_eq!(files(dir.path()), Vec::<String>::new());
    }
}
