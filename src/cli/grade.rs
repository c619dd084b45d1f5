//! `autograder grade`: record what is missing, grade every submission, print
//! the summary and write the requested reports.

use super::output::{check_report_paths, finish, OutputArgs};
use super::record::{check_work_dir_for, load_corpus, positive_seconds, SandboxArgs};
use super::values::{AudienceArg, HiddenVisibilityArg, ScoringArg, TestsArg};
use super::{EXIT_BELOW_THRESHOLD, EXIT_OK};
use crate::corpus::Corpus;
use crate::grade::{self, Audience};
use crate::report;
use crate::runner::{self, Environment, RecordOptions, Tuning};
use crate::session::{self, Choice, Chosen, Shard};
use crate::submission::Submission;
use anyhow::{bail, Context};
use std::panic::resume_unwind;
use std::path::{Path, PathBuf};
use std::str::FromStr;
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
    /// Where recordings are cached [default: .autograder]. Under
    /// --main-py-only: a fresh folder for this run, unless given outside
    /// the graded folders and the working directory (and their git trees)
    #[arg(long, value_name = "DIR")]
    work_dir: Option<PathBuf>,
    /// Record every submission again, ignoring cached recordings, and compile the sandbox
    /// harness's programs and parse the corpus again, ignoring what the user's cache folder keeps
    #[arg(long)]
    no_cache: bool,
    #[command(flatten)]
    sandbox: SandboxArgs,
    /// Refuse shipped recording.json files: every submission must be a main.py, run here. A
    /// recording made elsewhere can be forged; use this in CI on student pushes and on Gradescope
    #[arg(long)]
    main_py_only: bool,
    /// Who reads the output: students never see the input of a hidden case.
    #[arg(long, value_enum, default_value_t = AudienceArg::Instructor)]
    audience: AudienceArg,
    #[arg(long, value_name = "FILE", help = report::format::Format::Gradescope.help())]
    gradescope: Option<PathBuf>,
    /// Gradescope visibility of hidden cases: `hidden` (never shown; points
    /// count) or `after-published` (failure shown without input once published).
    #[arg(long, value_name = "WHEN", value_enum, default_value_t)]
    gradescope_hidden: HiddenVisibilityArg,
    /// Gradescope tests: `checkpoint` (one per checkpoint, with its points and
    /// first failures) or `case` (one per case).
    #[arg(long, value_name = "EACH", value_enum, default_value_t)]
    gradescope_tests: TestsArg,
    /// How checkpoints earn their points, over course.toml's `scoring`
    /// [default: course.toml's, else checkpoints]
    #[arg(long, value_name = "POLICY", value_enum)]
    scoring: Option<ScoringArg>,
    /// Grade only the K-th of N slices of the submissions (sorted by id,
    /// every N-th from the K-th); join the shards' --json with `merge`.
    #[arg(long, value_name = "K/N", value_parser = Shard::from_str, allow_hyphen_values = true)]
    shard: Option<Shard>,
    /// Print where the run's time went on stderr: reading the corpus, loading
    /// stored outcomes, grading and reports.
    #[arg(long)]
    timings: bool,
    #[command(flatten)]
    assignment: super::record::AssignmentArgs,
    #[command(flatten)]
    output: OutputArgs,
}

/// Runs `autograder grade`; returns the exit code (see [`super::EXIT_OK`]).
pub fn run(args: Args) -> anyhow::Result<i32> {
    let mut args = *args.options;
    let audience = Audience::from(args.audience);
    let gradescope = args.gradescope.as_deref().map(|p| {
        let options = report::gradescope::Options {
            hidden: args.gradescope_hidden.into(),
            tests: args.gradescope_tests.into(),
        };
        (p, options)
    });
    check_report_paths(&args.output, gradescope)?;
    let mut clock = Timings::start();
    let chosen = session::choose_submissions(&Choice {
        path: &args.path,
        shard: args.shard,
        main_py_only: args.main_py_only,
        gradescope: args.gradescope.is_some(),
        cases: Some(&args.cases),
    });
    let mut tuning = args.sandbox.tuning();
    if args.no_cache {
        tuning.code_cache = None;
    }
    // Never a cache a student could have written (see work_dir::cache_for).
    let graded: Vec<&Path> = std::iter::once(args.path.as_path())
        .chain(
            chosen
                .iter()
                .flat_map(|c| c.submissions.iter().map(|s| s.dir.as_path())),
        )
        .collect();
    tuning.code_cache = super::work_dir::cache_for(tuning.code_cache.take(), &graded);
    // One submission to run (a student's push, a Gradescope run): its
    // child imports what it uses; warming more only delays it.
    if let Ok(c) = &chosen {
        let to_run = c
            .submissions
            .iter()
            .filter(|s| matches!(s.source, crate::submission::SubmissionSource::MainPy(_)))
            .count();
        tuning.warm_imports = to_run > 1;
    }
    // A run whose store is empty records every submission that runs here:
    // its first worker's harness is started as soon as the sandbox is
    // settled, and given its init line once the corpus is read.
    let ahead = match (&args.work_dir, args.main_py_only) {
        (None, true) => true, // a fresh work dir
        (dir, _) => runner::store_is_empty(
            dir.as_deref()
                .unwrap_or(Path::new(super::work_dir::DEFAULT)),
            !args.no_cache,
        ),
    };
    // The interpreter and the sandbox tier do not depend on the corpus:
    // they are settled (processes started and waited for) while it loads,
    // on this thread (a harness started ahead must outlive the thread that
    // started it: bwrap's --die-with-parent follows that thread). Errors
    // are said in the order the steps would run one after another.
    let (corpus, environment) = std::thread::scope(|s| {
        let corpus = s.spawn(|| {
            crate::timings::span("corpus loaded", || {
                load_corpus(&args.cases, &args.assignment, tuning.code_cache.as_deref())
            })
        });
        let environment = match &chosen {
            Ok(c) if runner::needs_sandbox(&c.submissions) => {
                Some(runner::Environment::settle_ahead(&tuning, ahead))
            }
            _ => None,
        };
        let corpus = corpus.join().unwrap_or_else(|p| resume_unwind(p));
        (corpus, environment)
    });
    let mut corpus = corpus?;
    if let Some(policy) = args.scoring {
        corpus.scoring = policy.into();
    }
    clock.corpus_done();
    super::cases::warn_empty_checkpoints(&corpus);
    let Chosen {
        submissions,
        not_a_submission,
        whole_run,
    } = chosen?;
    let graded: Vec<&std::path::Path> = std::iter::once(args.path.as_path())
        .chain(submissions.iter().map(|s| s.dir.as_path()))
        .collect();
    let work = super::work_dir::choose(args.work_dir.as_deref(), args.main_py_only, &graded)?;
    args.work_dir = Some(work.path.clone());
    check_work_dir_for(&submissions, &work.path)?;
    let (environment, prestarted) = match environment.transpose() {
        Ok(Some((env, prestarted))) => (Some(env), prestarted),
        Ok(None) => (None, None),
        Err(e) => return Err(e).context("cannot record submissions here"),
    };
    if let Some(env) = &environment {
        eprintln!("{}", env.describe());
    }
    // Started only now: a run's first harness is started before them.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs)
        .build()
        .context("cannot start the worker threads")?;
    // Students read hidden failures without their input: each gets a call
    // of its own failing the same way (`--audience student`, Gradescope).
    let counterexamples = audience == Audience::Student || gradescope.is_some();
    let mut run = pool.install(|| {
        record_and_grade(
            &corpus,
            &args,
            &tuning,
            environment.as_ref(),
            prestarted.as_ref(),
            &submissions,
            counterexamples,
        )
    })?;
    clock.graded();
    run.shards = args.shard.map(|shard| shard.held(whole_run));
    if gradescope.is_none() {
        // Shown to `audience` in place: a large class's summaries are not
        // copied (Gradescope's results.json needs the instructors' run).
        run = run.into_audience(audience);
    }
    let code = finish(&run, audience, &args.output, gradescope)?;
    // Freed by the process's exit, which follows: dropping its values one
    // by one took ~1 ms of a one-submission run.
    std::mem::forget(corpus);
    if args.timings {
        eprint!("{}", clock.report());
    }
    if not_a_submission && code == EXIT_OK {
        // PATH was one would-be submission without a main.py: the reports say
        // why, and the run fails as one below --fail-under would.
        for s in &run.submissions {
            if let Some(e) = &s.error {
                use crate::text::escaped;
                eprintln!("{}: not graded: {}", escaped(&s.id), escaped(e));
            }
        }
        return Ok(EXIT_BELOW_THRESHOLD);
    }
    Ok(code)
}

/// `--timings`: wall time per step of the run (the start-up steps as
/// [`crate::timings::span`]s), and the CPU time of the phases that stream
/// (see [`crate::timings`]).
struct Timings {
    start: std::time::Instant,
    /// `start` on the spans' clock.
    epoch: f64,
    cpu: f64,
    store: crate::timings::Spent,
    recording: crate::timings::Spent,
    store_write: crate::timings::Spent,
    grading: crate::timings::Spent,
    corpus: f64,
    graded: f64,
}

impl Timings {
    fn start() -> Timings {
        use crate::timings::{GRADING, RECORDING, STORE_LOAD, STORE_WRITE};
        Timings {
            start: std::time::Instant::now(),
            epoch: crate::timings::now(),
            cpu: crate::timings::process_cpu_seconds(),
            store: STORE_LOAD.so_far(),
            recording: RECORDING.so_far(),
            store_write: STORE_WRITE.so_far(),
            grading: GRADING.so_far(),
            corpus: 0.0,
            graded: 0.0,
        }
    }

    fn corpus_done(&mut self) {
        self.corpus = self.start.elapsed().as_secs_f64();
    }

    fn graded(&mut self) {
        self.graded = self.start.elapsed().as_secs_f64();
    }

    /// The lines `--timings` prints (the reports are written by now).
    fn report(&self) -> String {
        use crate::timings::{GRADING, RECORDING, STORE_LOAD, STORE_WRITE};
        let total = self.start.elapsed().as_secs_f64();
        let store = STORE_LOAD.so_far() - self.store;
        let recording = RECORDING.so_far() - self.recording;
        let store_write = STORE_WRITE.so_far() - self.store_write;
        let grading = GRADING.so_far() - self.grading;
        let cpu = crate::timings::process_cpu_seconds() - self.cpu;
        format!(
            "timings (wall seconds; CPU seconds summed over this process's threads):\n\
             \x20 corpus and the sandbox settled  {:.3} s\n\
             \x20 submissions: loaded from the store, recorded, graded  {:.3} s\n\
             {}\
             \x20   store lookups  {:.3} s CPU ({} submissions looked up, {} found whole)\n\
             \x20   recorded by the harness  {:.3} s wall ({} submissions)\n\
             \x20   store writes  {:.3} s CPU ({} submissions)\n\
             \x20   grading  {:.3} s wall ({} submissions)\n\
             \x20 reports  {:.3} s\n\
             \x20 total  {total:.3} s, {cpu:.3} s CPU (the sandbox's processes not counted)\n",
            self.corpus,
            self.graded - self.corpus,
            self.steps(),
            store.cpu_seconds,
            store.runs,
            store.found,
            recording.wall_seconds,
            recording.runs,
            store_write.cpu_seconds,
            store_write.runs,
            grading.wall_seconds,
            grading.runs,
            total - self.graded,
        )
    }

    /// One line per start-up step that ran once or more (in the order they
    /// first began): when it began, from the start of the run, and its wall
    /// time (summed when it ran more than once, e.g. once per worker).
    fn steps(&self) -> String {
        let mut steps: Vec<(String, f64, f64, usize)> = Vec::new();
        for span in crate::timings::spans() {
            if span.start < self.epoch {
                continue;
            }
            let took = span.end - span.start;
            match steps.iter_mut().find(|(name, ..)| *name == span.name) {
                Some(step) => {
                    step.2 += took;
                    step.3 += 1;
                }
                None => steps.push((span.name, span.start - self.epoch, took, 1)),
            }
        }
        let width = steps.iter().map(|s| s.0.len()).max().unwrap_or(0);
        let mut out = String::new();
        if !steps.is_empty() {
            out.push_str("    start-up steps (begun at +s from the start, took s; side by side where they overlap):\n");
        }
        for (name, began, took, times) in steps {
            let times = if times > 1 {
                format!(" ({times} times)")
            } else {
                String::new()
            };
            out.push_str(&format!(
                "      {name:width$}  +{began:.3}  {took:.3} s{times}\n"
            ));
        }
        out
    }
}

/// Refuses a corpus whose pins the reference core contradicts: grading would
/// silently follow the core where the case file states otherwise.
fn check_pins(corpus: &Corpus, expected: &[crate::value::Outcome]) -> anyhow::Result<()> {
    let wrong: Vec<String> = corpus
        .cases
        .iter()
        .zip(expected)
        .filter_map(|(case, got)| super::cases::pin_mismatch(case, got))
        .map(|problem| format!("  {problem}"))
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

/// The work dir [`run`] chose (see [`super::work_dir::choose`]).
fn work_dir(args: &Options) -> &std::path::Path {
    args.work_dir
        .as_deref()
        .unwrap_or(std::path::Path::new(super::work_dir::DEFAULT))
}

/// Records and grades every submission (see [`session::record_and_grade`])
/// with this run's options, in the settled recording environment (`None`:
/// no submission runs here); with `counterexamples`, searches one for each
/// failed hidden case (see [`crate::counterexample`]).
fn record_and_grade(
    corpus: &Corpus,
    args: &Options,
    tuning: &Tuning,
    env: Option<&Environment>,
    prestarted: Option<&runner::Prestarted>,
    submissions: &[Submission],
    counterexamples: bool,
) -> anyhow::Result<grade::GradeRun> {
    let opts = RecordOptions {
        jobs: args.jobs,
        case_timeout: Duration::from_secs_f64(args.case_timeout),
        work_dir: work_dir(args).to_path_buf(),
        use_cache: !args.no_cache,
        show_progress: !args.output.quiet,
    };
    let check = |expected: &[crate::value::Outcome]| {
        check_pins(corpus, expected).map_err(|e| format!("{e:#}"))
    };
    let mut run =
        session::record_and_grade(corpus, &check, &opts, tuning, env, prestarted, submissions)?;
    if counterexamples {
        let recorder = crate::counterexample::Recorder {
            corpus,
            options: &opts,
            tuning,
            env,
        };
        crate::timings::span("counterexamples searched", || {
            crate::counterexample::search_run(&mut run, &recorder, submissions)
        });
    }
    Ok(run)
}
