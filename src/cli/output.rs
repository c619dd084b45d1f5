//! What `grade` and `merge` share once a run is graded: the report-file
//! options, `--audience`, `--fail-under` and `--quiet`, and [`finish`], which
//! writes the reports, prints the summary and picks the exit code.

use super::{EXIT_BELOW_THRESHOLD, EXIT_OK};
use crate::grade::{Audience, GradeRun};
use crate::report;
use crate::report::format::{Format, FORMATS};
use crate::text::escaped;
use anyhow::{bail, Context};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The reports to write and how the run ends, as `grade` and `merge` take them.
#[derive(clap::Args, Debug)]
pub(super) struct OutputArgs {
    #[command(flatten)]
    pub reports: ReportPaths,
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

/// `--json FILE`, `--csv FILE`...: one option per [`FORMATS`] entry but
/// Gradescope (whose option `grade` declares with its choices), with the
/// paths given, in table order.
#[derive(Clone, Debug, Default)]
pub(super) struct ReportPaths(Vec<(Format, PathBuf)>);

impl ReportPaths {
    /// The formats this struct declares options for.
    fn formats() -> impl Iterator<Item = Format> {
        FORMATS.into_iter().filter(|&f| f != Format::Gradescope)
    }

    /// The path given for `format`.
    fn get(&self, format: Format) -> Option<&Path> {
        self.0
            .iter()
            .find(|(f, _)| *f == format)
            .map(|(_, p)| p.as_path())
    }
}

impl clap::FromArgMatches for ReportPaths {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let given = ReportPaths::formats()
            .filter_map(|f| Some((f, m.get_one::<PathBuf>(f.flag())?.clone())))
            .collect();
        Ok(ReportPaths(given))
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = ReportPaths::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for ReportPaths {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        ReportPaths::formats().fold(cmd, |cmd, f| {
            cmd.arg(
                clap::Arg::new(f.flag())
                    .long(f.flag())
                    .value_name("FILE")
                    .value_parser(clap::value_parser!(PathBuf))
                    .action(clap::ArgAction::Set)
                    .help(f.help()),
            )
        })
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        ReportPaths::augment_args(cmd)
    }
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

    let options = gradescope.map(|(_, o)| o).unwrap_or_default();
    let reports = requested(args, gradescope).map(|(format, path)| {
        // Gradescope's results.json is made from the instructors' run (it
        // decides itself what students see).
        let source = if format == Format::Gradescope {
            run
        } else {
            view
        };
        let render: Render = Box::new(move |w| Ok(format.write(source, options, w)?));
        (path, render)
    });
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
        use report::terminal::FailureDetail;
        let details = if args.summary_only {
            FailureDetail::None
        } else if args.all_failures {
            FailureDetail::All
        } else {
            FailureDetail::Capped
        };
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        // A closed pipe (`| head`) is not an error worth a non-zero exit.
        let _ =
            report::terminal::write_with(view, report::terminal::want_color(), details, &mut out)
                .and_then(|_| {
                    out.write_all(
                        report::terminal::footer(view, report::terminal::width()).as_bytes(),
                    )
                })
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
    let named: Vec<(String, &Path)> = requested(args, gradescope)
        .map(|(f, p)| (format!("--{}", f.flag()), p))
        .collect();
    refuse_shared_paths(&named)
}

/// The report files asked for, in [`FORMATS`] order.
fn requested<'a>(
    args: &'a OutputArgs,
    gradescope: GradescopeOutput<'a>,
) -> impl Iterator<Item = (Format, &'a Path)> + 'a {
    FORMATS.into_iter().filter_map(move |f| match f {
        Format::Gradescope => gradescope.map(|(p, _)| (f, p)),
        _ => Some((f, args.reports.get(f)?)),
    })
}

/// Two reports into the same file is a usage error, not a silently lost report.
fn refuse_shared_paths(named: &[(String, &Path)]) -> anyhow::Result<()> {
    let named: Vec<(&str, PathBuf)> = named
        .iter()
        .filter_map(|(flag, p)| Some((flag.as_str(), std::path::absolute(p).ok()?)))
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
            reports: ReportPaths(vec![
                (Format::Json, dir.join("out/report.json")),
                (Format::Csv, dir.join("out/grades.csv")),
                (Format::Junit, dir.join("junit.xml")),
                (Format::Markdown, dir.join("summary.md")),
                (Format::Html, dir.join("out/dashboard.html")),
            ]),
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
