//! `autograder record`: runs submissions in the sandbox and stores their
//! recordings under the work dir.

use crate::corpus::Corpus;
use crate::recording::format::CaseOutcome;
use crate::runner::{self, IsolationChoice, RecordOptions, Request, Sink, Tuning};
use crate::submission::{self, Submission, SubmissionSource};
use anyhow::Context;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Arguments of `autograder record`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// One submission folder (with main.py or recording.json) or a folder of them.
    #[arg(default_value = "submissions")]
    pub path: PathBuf,
    /// The case corpus (the folder holding course.toml).
    #[arg(long, value_name = "DIR", default_value = "cases")]
    pub cases: PathBuf,
    /// Parallel workers (0 = one per core).
    #[arg(short = 'j', long, value_name = "N", default_value_t = 0)]
    pub jobs: usize,
    /// Time limit per case, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 2.0, value_parser = positive_seconds, allow_hyphen_values = true)]
    pub case_timeout: f64,
    /// Where recordings go.
    #[arg(long, value_name = "DIR", default_value = ".autograder")]
    pub work_dir: PathBuf,
    /// Record again even when a recording for the same source, corpus and harness exists, and
    /// compile the sandbox harness's programs and parse the corpus again, ignoring what the
    /// user's cache folder keeps
    #[arg(long)]
    pub no_cache: bool,
    #[command(flatten)]
    pub sandbox: SandboxArgs,
    #[command(flatten)]
    pub assignment: AssignmentArgs,
}

/// `--assignment ID` / `--lesson ID`: which part of the course a command
/// is about (`grade`, `record`, `cases ...`); the whole course when none.
#[derive(clap::Args, Debug, Default, Clone)]
pub struct AssignmentArgs {
    /// Only this assignment of course.toml (repeatable; without [[assignment]] tables, each
    /// lesson is one; `all`: the whole course, with a column per assignment in the gradebook)
    #[arg(long = "assignment", value_name = "ID")]
    pub assignments: Vec<String>,
    /// Only this lesson, as an assignment of its own (repeatable)
    #[arg(long = "lesson", value_name = "ID")]
    pub lessons: Vec<String>,
}

/// Where student code runs: the interpreter and the sandbox tier (`grade`
/// and `record` share them).
#[derive(clap::Args, Debug)]
pub struct SandboxArgs {
    /// The sandbox tier: auto (bwrap when it starts here, else landlock when
    /// the kernel has it, else stop), bwrap, landlock, or rlimits (weaker:
    /// only when asked for by name).
    #[arg(long, value_enum, env = "AUTOGRADER_ISOLATION", default_value = "auto")]
    pub isolation: Isolation,
    /// The CPython (3.8 or newer) that runs student code [default:
    /// /usr/bin/python3, else python3 on PATH].
    #[arg(long, value_name = "PATH", env = "AUTOGRADER_PYTHON")]
    pub python: Option<PathBuf>,
}

/// `--isolation`'s values: [`IsolationChoice`]'s, as clap lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Isolation {
    /// bwrap when it starts here, else landlock when the kernel has it, else
    /// stop: the weaker rlimits tier runs only when asked for by name.
    Auto,
    /// bubblewrap or stop.
    Bwrap,
    /// Landlock + seccomp or stop.
    Landlock,
    /// rlimits only: host files readable, network reachable.
    Rlimits,
}

impl Isolation {
    pub fn choice(self) -> IsolationChoice {
        match self {
            Isolation::Auto => IsolationChoice::Auto,
            Isolation::Bwrap => IsolationChoice::Bwrap,
            Isolation::Landlock => IsolationChoice::Landlock,
            Isolation::Rlimits => IsolationChoice::Rlimits,
        }
    }
}

impl SandboxArgs {
    /// The recorder's knobs these arguments set.
    pub fn tuning(&self) -> Tuning {
        Tuning {
            isolation: Ok(self.isolation.choice()),
            python: self.python.clone(),
            ..Tuning::default()
        }
    }
}

/// Settles the interpreter and tier when a submission must run here, and
/// says on stderr which it is before any runs; none is needed for shipped
/// recordings alone.
pub(super) fn settle_environment(
    submissions: &[Submission],
    tuning: &Tuning,
) -> anyhow::Result<Option<runner::Environment>> {
    if !runner::needs_sandbox(submissions) {
        return Ok(None);
    }
    let env = runner::Environment::settle(tuning).context("cannot record submissions here")?;
    eprintln!("{}", env.describe());
    Ok(Some(env))
}

/// Runs `autograder record`; returns the exit code (0 unless nothing could be recorded).
pub fn run(args: Args) -> anyhow::Result<i32> {
    let mut tuning = args.sandbox.tuning();
    if args.no_cache {
        tuning.code_cache = None;
    }
    tuning.code_cache = super::work_dir::cache_for(tuning.code_cache.take(), &[&args.path]);
    let corpus = load_corpus(&args.cases, &args.assignment, tuning.code_cache.as_deref())?;
    let submissions = submission::discover(&args.path)?;
    if submissions.is_empty() {
        anyhow::bail!(
            "no submissions under {} (folders with main.py or recording.json)",
            args.path.display()
        );
    }
    check_work_dir_for(&submissions, &args.work_dir)?;
    let opts = RecordOptions {
        jobs: args.jobs,
        case_timeout: Duration::from_secs_f64(args.case_timeout),
        work_dir: args.work_dir.clone(),
        use_cache: !args.no_cache,
        show_progress: true,
    };
    let env = settle_environment(&submissions, &tuning)?;
    // One line per submission, printed in order once all are recorded
    // (the recordings themselves are on disk, not held).
    let lines: std::sync::Mutex<Vec<Option<String>>> =
        std::sync::Mutex::new(submissions.iter().map(|_| None).collect());
    let width = submissions
        .iter()
        .map(|s| s.id.chars().count())
        .max()
        .unwrap_or(0);
    let request = Request::new(&corpus, &submissions, &opts)
        .tuning(&tuning)
        .environment(env.as_ref());
    runner::record(
        &request,
        Sink::Recordings(&|i, result| {
            let id = &submissions[i].id;
            let line = match &result {
                Ok(rec) if rec.corpus_fingerprint != corpus.fingerprint => format!(
                    "{id:width$}  {} — answers another version of the corpus",
                    summary(rec)
                ),
                Ok(rec) => format!("{id:width$}  {}", summary(rec)),
                Err(e) => format!("{id:width$}  not recorded: {}", crate::errors::chain(e)),
            };
            if let Ok(mut lines) = lines.lock() {
                lines[i] = Some(line);
            }
        }),
    )?;
    // A closed stdout (`| head`) is not an error worth a panic.
    let mut out = std::io::stdout().lock();
    for line in lines
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .flatten()
    {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(
        out,
        "recordings in {}",
        args.work_dir.join("recordings").display()
    );
    // One broken submission is reported and the others recorded; the
    // grader's own failures stopped the run above (exit 2).
    Ok(crate::cli::EXIT_OK)
}

/// `--case-timeout`, shared with `grade`: seconds in (0, 3600].
pub(super) fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x <= 3600.0 => Ok(x),
        _ => Err(format!("{s:?} is not a number of seconds in (0, 3600]")),
    }
}

/// Loads the corpus in `dir` (`--cases`), cut to the assignment asked for; its cases
/// as an earlier run parsed them when the user's cache folder `cache` has
/// them (see [`crate::corpus::load_cached`]).
pub(super) fn load_corpus(
    dir: &Path,
    assignment: &AssignmentArgs,
    cache: Option<&Path>,
) -> anyhow::Result<Corpus> {
    let corpus = crate::corpus::load_cached(dir, cache)
        .with_context(|| format!("cannot load the cases in {}", dir.display()))?;
    Ok(corpus.select(&assignment.assignments, &assignment.lessons)?)
}

/// Checks that `--work-dir` can hold recordings when any submission is to be
/// run here (shipped recordings alone need no work dir): one clear error
/// before any work instead of one per submission.
pub(super) fn check_work_dir_for(
    submissions: &[Submission],
    work_dir: &Path,
) -> anyhow::Result<()> {
    if submissions
        .iter()
        .any(|s| matches!(s.source, SubmissionSource::MainPy(_)))
    {
        crate::recording::check_work_dir(work_dir).with_context(|| {
            format!(
                "cannot store recordings in --work-dir {}",
                work_dir.display()
            )
        })?;
    }
    Ok(())
}

/// One line: how the cases ended, by kind.
fn summary(rec: &crate::recording::format::Recording) -> String {
    const KINDS: [&str; 9] = [
        "returned",
        "raised",
        "output-too-large",
        "timeout",
        "crashed",
        "out-of-memory",
        "missing",
        "import-error",
        "disk-limit",
    ];
    let mut counts = KINDS.map(|k| (k, 0usize));
    for o in rec.outcomes.values() {
        let i = match o {
            CaseOutcome::Returned { .. } => 0,
            CaseOutcome::Raised { .. } => 1,
            CaseOutcome::OutputTooLarge => 2,
            CaseOutcome::Timeout { .. } => 3,
            CaseOutcome::Crashed { .. } => 4,
            CaseOutcome::OutOfMemory { .. } => 5,
            CaseOutcome::Missing => 6,
            CaseOutcome::ImportError { .. } => 7,
            CaseOutcome::DiskLimit { .. } => 8,
        };
        counts[i].1 += 1;
    }
    let counts: Vec<_> = counts.into_iter().filter(|(_, n)| *n > 0).collect();
    let parts: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
    format!(
        "{} cases: {} [{}]",
        rec.outcomes.len(),
        parts.join(", "),
        rec.isolation
    )
}
