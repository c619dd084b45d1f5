//! `autograder grade`: record what is missing, grade every submission, print
//! the summary and write the requested reports.

use super::{EXIT_BELOW_THRESHOLD, EXIT_OK};
use crate::corpus::Corpus;
use crate::grade::{self, Audience, GradeRun};
use crate::record::{self, format::Recording, RecordOptions};
use crate::report;
use anyhow::{bail, Context};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Arguments of `autograder grade` (boxed: they are many).
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    options: Box<Options>,
}

#[derive(clap::Args, Debug)]
struct Options {
    /// One submission (a folder with main.py or recording.json) or a folder of them.
    #[arg(default_value = "submissions")]
    path: PathBuf,
    /// The case corpus (the folder holding course.toml).
    #[arg(long, value_name = "DIR", default_value = "cases")]
    cases: PathBuf,
    /// Parallel workers (0 = one per core). Reports are identical whatever it is.
    #[arg(long, short = 'j', value_name = "N", default_value_t = 0)]
    jobs: usize,
    /// Time limit per case, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 2.0, value_parser = positive_seconds, allow_hyphen_values = true)]
    case_timeout: f64,
    /// Where recordings are cached.
    #[arg(long, value_name = "DIR", default_value = ".autograder")]
    work_dir: PathBuf,
    /// Record every submission again, ignoring cached recordings.
    #[arg(long)]
    no_cache: bool,
    /// Refuse shipped recording.json files: every submission must be a main.py, run here. A
    /// recording made elsewhere can be forged; use this in CI on student pushes and on Gradescope
    #[arg(long)]
    main_py_only: bool,
    /// Who reads the output: students never see the input of a hidden case.
    #[arg(long, value_enum, default_value_t = AudienceArg::Instructor)]
    audience: AudienceArg,
    /// Write the full report as JSON (schema autograder-report/1).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write a gradebook as CSV, one row per submission.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Write JUnit XML for CI (a testsuite per checkpoint, a testcase per case).
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Write Gradescope's results.json (PATH must be one submission).
    #[arg(long, value_name = "FILE")]
    gradescope: Option<PathBuf>,
    /// Gradescope visibility of hidden cases: `hidden` (never shown; points
    /// count) or `after-published` (failure shown without input once published).
    #[arg(long, value_name = "WHEN", default_value = "hidden")]
    gradescope_hidden: GradescopeHiddenArg,
    /// Write a Markdown summary (e.g. for a CI step summary).
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
    /// Write a self-contained HTML course dashboard (charts, heatmap, failures).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Grade only the K-th of N slices of the submissions (sorted by id,
    /// every N-th from the K-th); join the shards' --json with `merge`.
    #[arg(long, value_name = "K/N", value_parser = shard, allow_hyphen_values = true)]
    shard: Option<Shard>,
    /// Exit 1 when a submission scores below this percentage (0-100) of its
    /// total, or could not be graded.
    #[arg(long, value_name = "PERCENT", value_parser = percentage, allow_hyphen_values = true)]
    fail_under: Option<f64>,
    /// Print nothing on stdout (reports and errors are still written).
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// `--audience`, shared with `merge`.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub(super) enum AudienceArg {
    Instructor,
    Student,
}

impl From<AudienceArg> for Audience {
    fn from(a: AudienceArg) -> Audience {
        match a {
            AudienceArg::Instructor => Audience::Instructor,
            AudienceArg::Student => Audience::Student,
        }
    }
}

/// `--shard K/N`: the K-th of N slices of the submissions (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Shard {
    pub k: usize,
    pub n: usize,
}

impl Shard {
    /// Whether the submission at `index` (in id order) is in this slice.
    pub fn holds(self, index: usize) -> bool {
        index % self.n == self.k - 1
    }
}

fn shard(s: &str) -> Result<Shard, String> {
    let bad = || format!("{s:?} is not K/N with 1 <= K <= N (e.g. 2/4)");
    let (k, n) = s.split_once('/').ok_or_else(bad)?;
    let k: usize = k.trim().parse().map_err(|_| bad())?;
    let n: usize = n.trim().parse().map_err(|_| bad())?;
    if k == 0 || k > n {
        return Err(bad());
    }
    Ok(Shard { k, n })
}

fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x <= 3600.0 => Ok(x),
        _ => Err(format!("{s:?} is not a number of seconds in (0, 3600]")),
    }
}

/// `--fail-under`, shared with `merge`.
pub(super) fn percentage(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if (0.0..=100.0).contains(&x) => Ok(x),
        _ => Err(format!("{s:?} is not a percentage between 0 and 100")),
    }
}

pub fn run(args: Args) -> anyhow::Result<i32> {
    let args = *args.options;
    let audience = args.audience.into();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs)
        .build()
        .context("cannot start the worker threads")?;

    let corpus = load_corpus(&args.cases)?;
    let expected = pool.install(|| grade::expected_outcomes(&corpus))?;
    check_pins(&corpus, &expected)?;
    super::cases::warn_empty_checkpoints(&corpus);
    let (recordings, not_a_submission) = record(&corpus, &args)?;
    let run = pool.install(|| grade::grade_recordings(&corpus, &expected, recordings));
    let paths = ReportPaths {
        json: args.json.as_deref(),
        csv: args.csv.as_deref(),
        junit: args.junit.as_deref(),
        gradescope: args.gradescope.as_deref(),
        gradescope_hidden: args.gradescope_hidden.into(),
        markdown: args.markdown.as_deref(),
        html: args.html.as_deref(),
    };
    let code = finish(&run, audience, &paths, args.quiet, args.fail_under)?;
    if not_a_submission && code == EXIT_OK {
        // PATH was one would-be submission without a main.py: the reports say
        // why, and the run fails as one below --fail-under would.
        for s in &run.submissions {
            if let Some(e) = &s.error {
                eprintln!("{}: not graded: {e}", s.id);
            }
        }
        return Ok(EXIT_BELOW_THRESHOLD);
    }
    Ok(code)
}

/// `--gradescope-hidden` values.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub(super) enum GradescopeHiddenArg {
    Hidden,
    AfterPublished,
}

impl From<GradescopeHiddenArg> for report::gradescope::HiddenVisibility {
    fn from(arg: GradescopeHiddenArg) -> Self {
        match arg {
            GradescopeHiddenArg::Hidden => Self::Hidden,
            GradescopeHiddenArg::AfterPublished => Self::AfterPublished,
        }
    }
}

/// The report files a command was asked to write.
pub(super) struct ReportPaths<'a> {
    pub json: Option<&'a Path>,
    pub csv: Option<&'a Path>,
    pub junit: Option<&'a Path>,
    pub gradescope: Option<&'a Path>,
    /// How hidden cases appear in the Gradescope report.
    pub gradescope_hidden: report::gradescope::HiddenVisibility,
    pub markdown: Option<&'a Path>,
    pub html: Option<&'a Path>,
}

/// What `grade` and `merge` do with a run: write the requested reports for
/// `audience`, print the summary, and apply `--fail-under`.
pub(super) fn finish(
    run: &GradeRun,
    audience: Audience,
    paths: &ReportPaths,
    quiet: bool,
    fail_under: Option<f64>,
) -> anyhow::Result<i32> {
    let named = [
        ("--json", paths.json),
        ("--csv", paths.csv),
        ("--junit", paths.junit),
        ("--gradescope", paths.gradescope),
        ("--markdown", paths.markdown),
        ("--html", paths.html),
    ];
    let named: Vec<(&str, PathBuf)> = named
        .into_iter()
        .filter_map(|(flag, p)| Some((flag, std::path::absolute(p?).ok()?)))
        .collect();
    for (i, (flag, path)) in named.iter().enumerate() {
        if let Some((first, _)) = named[..i].iter().find(|(_, p)| p == path) {
            bail!(
                "{first} and {flag} both write {}: one report would overwrite the other",
                path.display()
            );
        }
    }
    let view = run.for_audience(audience);

    // Render everything before writing anything: what can fail, fails first.
    let mut outputs: Vec<(&Path, String)> = Vec::new();
    if let Some(p) = paths.json {
        outputs.push((p, report::json::render(&view)));
    }
    if let Some(p) = paths.csv {
        outputs.push((p, report::csv::render(&view)?));
    }
    if let Some(p) = paths.junit {
        outputs.push((p, report::junit::render(&view)?));
    }
    if let Some(p) = paths.gradescope {
        outputs.push((p, report::gradescope::render(run, paths.gradescope_hidden)?));
    }
    if let Some(p) = paths.markdown {
        outputs.push((p, report::markdown::render(&view)));
    }
    if let Some(p) = paths.html {
        outputs.push((p, report::html::render(&view)));
    }
    for (path, text) in outputs {
        write_report(path, &text)?;
    }

    if !quiet {
        let text = report::terminal::render(&view, report::terminal::want_color(), true);
        let mut out = std::io::stdout().lock();
        // A closed pipe (`| head`) is not an error worth a non-zero exit.
        let _ = out.write_all(text.as_bytes()).and_then(|_| out.flush());
    }

    if let Some(threshold) = fail_under {
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

fn write_report(path: &Path, text: &str) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create folder {}", dir.display()))?;
    }
    report::write_atomic(path, text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Refuses a corpus whose pins the reference core contradicts: grading would
/// silently follow the core where the case file states otherwise.
fn check_pins(corpus: &Corpus, expected: &[crate::value::Outcome]) -> anyhow::Result<()> {
    let text = super::eval::outcome_text;
    let wrong: Vec<String> = corpus
        .cases
        .iter()
        .zip(expected)
        .filter_map(|(case, got)| {
            let pin = case.expect.as_ref()?;
            (!pin.strict_eq(got)).then(|| {
                format!(
                    "  {}:{}: case {}: the pin says {} but the core gives {}",
                    case.file.display(),
                    case.line,
                    case.id,
                    text(pin),
                    text(got)
                )
            })
        })
        .collect();
    if !wrong.is_empty() {
        bail!(
            "the cases in {} have pins the reference core disagrees with (fix them; `autograder cases check` checks):\n{}",
            corpus.root.display(),
            wrong.join("\n")
        );
    }
    Ok(())
}

/// Loads the case corpus.
fn load_corpus(dir: &Path) -> anyhow::Result<Corpus> {
    crate::corpus::load(dir).with_context(|| format!("cannot load the cases in {}", dir.display()))
}

/// Each submission's id and its recording, or why it has none.
type Recordings = Vec<(String, Result<Recording, String>)>;

/// Finds the submissions under PATH and records (or reuses) each one's
/// outcomes; also says whether PATH held nothing gradable and was reported as
/// one ungradable submission (so the run must not pass).
fn record(corpus: &Corpus, args: &Options) -> anyhow::Result<(Recordings, bool)> {
    let mut submissions = record::discover(&args.path)?;
    let mut not_a_submission = false;
    if submissions.is_empty() {
        // `discover` lists every subfolder that is not a submission, so none
        // found means PATH has no subfolders: it is one would-be submission
        // (`grade .` in CI on a student repository) without a main.py. The
        // requested reports say so (CI and Gradescope show them) rather than
        // nothing at all; the run fails, except for Gradescope, whose
        // results.json is the whole answer.
        submissions = vec![record::nothing_found(&args.path)];
        not_a_submission = args.gradescope.is_none();
    }
    if let Some(shard) = args.shard {
        submissions.sort_by(|a, b| a.id.cmp(&b.id));
        submissions = submissions
            .into_iter()
            .enumerate()
            .filter(|(i, _)| shard.holds(*i))
            .map(|(_, s)| s)
            .collect();
    }
    if args.main_py_only {
        for s in &mut submissions {
            if let record::SubmissionSource::Recording(path) = &s.source {
                s.source = record::SubmissionSource::Unusable(format!(
                    "{}: a shipped recording is not accepted (--main-py-only); submit main.py",
                    path.display()
                ));
            }
        }
    }
    if args.gradescope.is_some() && args.path.is_dir() && submissions.len() != 1 {
        // Gradescope shows the student results.json, not an error: grade the
        // one folder with a main.py among the upload's leftovers (a docs/
        // folder), or say there what was uploaded instead of a main.py.
        let usable: Vec<_> = submissions
            .iter()
            .filter(|s| !matches!(s.source, record::SubmissionSource::Unusable(_)))
            .cloned()
            .collect();
        match usable.len() {
            0 => submissions = vec![record::nothing_found(&args.path)],
            1 => submissions = usable,
            _ => {}
        }
    }
    if args.gradescope.is_some() && submissions.len() != 1 {
        bail!(
            "--gradescope grades one submission, but {} holds {}",
            args.path.display(),
            submissions.len()
        );
    }
    if submissions
        .iter()
        .any(|s| matches!(s.source, record::SubmissionSource::MainPy(_)))
    {
        record::check_work_dir(&args.work_dir).with_context(|| {
            format!(
                "cannot store recordings in --work-dir {}",
                args.work_dir.display()
            )
        })?;
    }
    let opts = RecordOptions {
        jobs: args.jobs,
        case_timeout: Duration::from_secs_f64(args.case_timeout),
        work_dir: args.work_dir.clone(),
        use_cache: !args.no_cache,
        show_progress: !args.quiet,
    };
    let recordings = record::record_all(corpus, &submissions, &opts)
        .into_iter()
        .map(|r| (r.id, r.result.map_err(|e| e.to_string())))
        .collect();
    Ok((recordings, not_a_submission))
}
