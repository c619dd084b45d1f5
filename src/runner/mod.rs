//! The runner: the only module that starts processes. It runs student code
//! in a sandboxed, pre-forked Python harness and stores one outcome per
//! case (what an outcome is, is [`crate::recording`]'s).
//!
//! Workers are OS threads, each owning one long-lived harness process (see
//! `harness/harness.py`) inside bubblewrap when it works here, else under
//! Landlock or rlimits. Submissions are pulled from a shared queue and
//! results placed by index, so the output does not depend on `jobs`.
//!
//! [`record`] is the one entry point: a [`Request`] (what to record, how)
//! and a [`Sink`] (what to do with each submission as soon as it is known).

mod admission;
mod cgroup;
mod compiled;
mod early_source;
mod error;
mod harness;
mod inputs;
pub mod limits;
mod oom;
mod plan;
mod pool;
mod progress;
mod protocol;
pub mod sandbox;
mod self_test;
mod setup;
mod worker;

#[doc(hidden)]
pub use cgroup::{own_memory_cgroup, Hierarchy};
pub use error::{HarnessError, ProcessFailure, RecordError, SandboxError, SetupError};
#[doc(hidden)]
pub use harness::check_input as harness_check_input;
pub use harness::harness_version;
pub use pool::MAX_WORKERS;
pub use sandbox::{Isolation, IsolationChoice, Python};

use crate::corpus::Corpus;
use crate::recording::case_store::{self, CaseInputs, CaseKey, Made, Outcomes};
use crate::recording::format::Recording;
use crate::recording::{read_recording, recording_path, write_recording, RecordingError};
use crate::submission::{Submission, SubmissionSource};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// Largest main.py recorded.
pub use limits::MAX_SOURCE_BYTES;

/// How to record.
#[derive(Clone, Debug)]
pub struct RecordOptions {
    /// Worker count; 0 = all cores.
    pub jobs: usize,
    /// Per-case time limit (default 2 s).
    pub case_timeout: Duration,
    /// Where recordings go (default `.autograder/` in the current folder).
    pub work_dir: PathBuf,
    /// false with --no-cache.
    pub use_cache: bool,
    /// Progress on stderr: an indicatif bar on a terminal, else a plain
    /// line every tenth of the run or every 10 s.
    pub show_progress: bool,
}

impl Default for RecordOptions {
    fn default() -> Self {
        RecordOptions {
            jobs: 0,
            case_timeout: limits::CASE_TIMEOUT,
            work_dir: PathBuf::from(".autograder"),
            use_cache: true,
            show_progress: false,
        }
    }
}

/// Less common knobs, with defaults that suit `autograder record`; the tests
/// and the benchmark change them.
#[derive(Clone, Debug)]
pub struct Tuning {
    /// `AUTOGRADER_ISOLATION` by default.
    pub isolation: Result<IsolationChoice, sandbox::UnknownIsolation>,
    /// The interpreter (`AUTOGRADER_PYTHON` by default; unset: /usr/bin/python3,
    /// then python3 on PATH).
    pub python: Option<PathBuf>,
    /// false starts a fresh interpreter per submission (the benchmark's baseline).
    pub prefork: bool,
    /// Per-submission wall limit; default max(60 s, 10 × case timeout).
    pub wall_limit: Option<Duration>,
    /// RLIMIT_AS of the process running student code.
    pub memory_bytes: u64,
    /// Whether each worker's zygote imports the modules students commonly
    /// use before its first child, so a batch's children share them; off
    /// for a run of one submission, whose child imports what it uses.
    pub warm_imports: bool,
    /// Where the harness's compiled programs (and the corpus's parsed
    /// cases, see [`crate::corpus::load_cached`]) are kept between runs
    /// (`None`: compiled and parsed by every run); by default the user's
    /// cache folder.
    pub code_cache: Option<PathBuf>,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            isolation: IsolationChoice::from_env(),
            python: std::env::var_os("AUTOGRADER_PYTHON").map(PathBuf::from),
            prefork: true,
            wall_limit: None,
            memory_bytes: limits::MEMORY_BYTES,
            warm_imports: true,
            code_cache: crate::user_cache::default_dir(),
        }
    }
}

/// One submission's recording, or why it could not be had (import errors are NOT errors:
/// they are a Recording whose outcomes are all `import-error`).
#[derive(Debug)]
pub struct SubmissionRecording {
    pub id: String,
    pub result: Result<Recording, RecordError>,
}

/// The interpreter and sandbox tier a run records with, settled before any
/// submission runs.
#[derive(Clone, Debug)]
pub struct Environment {
    pub python: Python,
    pub isolation: Isolation,
    /// What the run must say about the choice (a fallback, a weaker tier).
    pub notes: Vec<String>,
}

impl Environment {
    /// Finds the interpreter and the sandbox tier `tuning` asks for; an
    /// error (exit 2 in the CLI) says what was tried and how to fix it.
    pub fn settle(tuning: &Tuning) -> Result<Environment, RecordError> {
        Ok(Environment::settle_ahead(tuning, false)?.0)
    }

    /// [`Environment::settle`], and with `ahead` the first worker's
    /// harness started in it too ([`prestart`]). With `ahead` that harness
    /// is started first and settles both where it can
    /// ([`settle_by_harness`]); else one step after another.
    pub fn settle_ahead(
        tuning: &Tuning,
        ahead: bool,
    ) -> Result<(Environment, Option<Prestarted>), RecordError> {
        let choice = tuning.isolation.clone().map_err(SetupError::from)?;
        if ahead {
            let settled = crate::timings::span("settled by the harness started ahead", || {
                settle_by_harness(choice, tuning)
            });
            if let Some((env, prestarted)) = settled {
                return Ok((env, Some(prestarted)));
            }
        }
        let python = crate::timings::span("interpreter probe", || {
            Python::find(tuning.python.as_deref())
        })
        .map_err(SetupError::Python)?;
        let (isolation, notes) =
            crate::timings::span("sandbox tier resolved", || choice.resolve(&python))
                .map_err(SetupError::Tier)?;
        let env = Environment {
            python,
            isolation,
            notes,
        };
        let prestarted = ahead.then(|| prestart(&env, tuning));
        Ok((env, prestarted))
    }

    /// One line for the start of a run: the tier, the interpreter, the notes.
    pub fn describe(&self) -> String {
        let mut line = format!(
            "sandbox: {} · {} ({})",
            self.isolation.name(),
            self.python.label(),
            self.python.executable.display()
        );
        for note in &self.notes {
            line.push_str("\nnote: ");
            line.push_str(note);
        }
        line
    }
}

/// One worker's harness process, started before the run knows its corpus
/// ([`prestart`]) and taken by its first worker, which sends it its init
/// line: the interpreter's start and its warm imports overlap reading the
/// corpus and computing its expected outcomes.
pub struct Prestarted(Mutex<Option<(Option<sandbox::UidLease>, worker::Spawned)>>);

impl Prestarted {
    fn take(&self) -> Option<(Option<sandbox::UidLease>, worker::Spawned)> {
        self.0.lock().ok().and_then(|mut p| p.take())
    }
}

/// Starts a harness process in `env` for the first worker of a run that
/// will record (its store is empty), with `tuning`'s memory bound. Nothing
/// is started when it fails: the run then starts its workers as it always
/// does, and says why it cannot. Dropped unused, it is killed.
pub fn prestart(env: &Environment, tuning: &Tuning) -> Prestarted {
    let started = crate::timings::span("harness process started ahead", || {
        spawn_ahead(env.isolation, &env.python, tuning)
    });
    Prestarted(Mutex::new(started))
}

/// A first worker's harness process and its uid: `None` when either
/// cannot be had (the run then starts its workers as it always does).
fn spawn_ahead(
    isolation: Isolation,
    python: &Python,
    tuning: &Tuning,
) -> Option<(Option<sandbox::UidLease>, worker::Spawned)> {
    let spawned = worker::Worker::spawn(
        isolation,
        python,
        tuning.memory_bytes,
        sandbox::is_root(),
        tuning.warm_imports,
        tuning.code_cache.as_deref(),
    )
    .ok()?;
    // Taken while its interpreter starts (a uid is leased exactly as root).
    let lease = sandbox::lease_uid().ok()?;
    let spawned = spawned.leased(lease.as_ref());
    Some((lease, spawned))
}

/// Settles the interpreter and the tier with the first worker's harness
/// itself: started at once with the interpreter [`Python::guess`] reads
/// off the file system, in the tier `choice` most likely resolves to
/// (bwrap, where it may be). Its hello line holds the interpreter's facts
/// (the probe's, run by that interpreter) and, in bwrap, bwrap's check
/// (run in that very sandbox), so neither needs a process of its own.
/// `None` (that harness killed) whenever anything differs from what
/// settling step by step finds: the caller then does that, and its errors
/// and notes say what went wrong. Under auto, a bwrap that does not start
/// here is tried once, step by step ([`IsolationChoice::resolve`], which
/// says why), before the harness is started in the tier it falls back to.
fn settle_by_harness(
    choice: IsolationChoice,
    tuning: &Tuning,
) -> Option<(Environment, Prestarted)> {
    let path = Python::path_of(tuning.python.as_deref()).ok()?;
    let guess = Python::guess(&path)?;
    let first = match choice {
        IsolationChoice::Auto | IsolationChoice::Bwrap => (Isolation::Bwrap, Vec::new()),
        IsolationChoice::Landlock | IsolationChoice::Rlimits => choice.resolve(&guess).ok()?,
    };
    match start_and_settle(first, &path, &guess, tuning) {
        Started::Settled(settled) => Some(*settled),
        Started::Differs => None,
        Started::DidNotStart if choice == IsolationChoice::Auto => {
            let (isolation, notes) = choice.resolve(&guess).ok()?;
            if isolation == Isolation::Bwrap {
                return None;
            }
            match start_and_settle((isolation, notes), &path, &guess, tuning) {
                Started::Settled(settled) => Some(*settled),
                Started::Differs | Started::DidNotStart => None,
            }
        }
        Started::DidNotStart => None,
    }
}

/// What became of a harness [`settle_by_harness`] started.
enum Started {
    Settled(Box<(Environment, Prestarted)>),
    /// It ran, but not as settling step by step would have it run.
    Differs,
    /// It said no hello (bwrap could not make its sandbox, say).
    DidNotStart,
}

fn start_and_settle(
    (isolation, notes): (Isolation, Vec<String>),
    path: &Path,
    guess: &Python,
    tuning: &Tuning,
) -> Started {
    let Some((lease, mut spawned)) = spawn_ahead(isolation, guess, tuning) else {
        return Started::DidNotStart;
    };
    let Ok(hello) = spawned.hello() else {
        return Started::DidNotStart;
    };
    let bwrap_held = hello.bwrap_check == Some(true);
    let python = hex::decode(&hello.facts)
        .ok()
        .and_then(|bytes| sandbox::Facts::read(&bytes))
        .and_then(|facts| Python::from_facts(path, facts).ok());
    let Some(python) = python else {
        return Started::Differs;
    };
    // bwrap's sandbox is built from the interpreter's folders; the other
    // tiers' process only from its file.
    let same = match isolation {
        Isolation::Bwrap => bwrap_held && python.same_files(guess),
        Isolation::Landlock | Isolation::Rlimits => python.executable == guess.executable,
    };
    if !same {
        return Started::Differs;
    }
    spawned.settled(python.clone());
    let env = Environment {
        python,
        isolation,
        notes,
    };
    Started::Settled(Box::new((
        env,
        Prestarted(Mutex::new(Some((lease, spawned)))),
    )))
}

/// Whether the store under `work_dir` can hold no submission's
/// outcomes (none was ever stored there, or `--no-cache`): then every
/// submission that runs here is recorded, and [`prestart`] pays off.
pub fn store_is_empty(work_dir: &Path, use_cache: bool) -> bool {
    !use_cache
        || std::fs::read_dir(work_dir.join("store"))
            .map_or(true, |mut entries| entries.next().is_none())
}

/// Whether any submission must run here (not only shipped recordings).
pub fn needs_sandbox(submissions: &[Submission]) -> bool {
    submissions
        .iter()
        .any(|s| matches!(s.source, SubmissionSource::MainPy(_)))
}

/// What to record, and how.
#[derive(Clone, Copy)]
pub struct Request<'a> {
    pub corpus: &'a Corpus,
    pub submissions: &'a [Submission],
    pub options: &'a RecordOptions,
    /// `None`: [`Tuning::default`], read when the request is recorded.
    pub tuning: Option<&'a Tuning>,
    /// The interpreter and tier, when already settled (and said on
    /// stderr); `None`: settled here, when a submission must run.
    pub environment: Option<&'a Environment>,
    /// [`CaseInputs::of`] `corpus`, when the caller has them.
    pub cases: Option<&'a CaseInputs>,
    /// A harness started ahead for the first worker (see [`prestart`]).
    pub prestarted: Option<&'a Prestarted>,
    /// Shown each outcome a recording admits ahead of its submission's
    /// answer (see [`worker::Worker::record`]): a grader can judge it
    /// while the rest run.
    pub ahead: Option<worker::Ahead<'a>>,
}

impl<'a> Request<'a> {
    /// Records `submissions` against `corpus` with `options` and the
    /// default [`Tuning`].
    pub fn new(
        corpus: &'a Corpus,
        submissions: &'a [Submission],
        options: &'a RecordOptions,
    ) -> Request<'a> {
        Request {
            corpus,
            submissions,
            options,
            tuning: None,
            environment: None,
            cases: None,
            prestarted: None,
            ahead: None,
        }
    }

    pub fn ahead(self, ahead: worker::Ahead<'a>) -> Request<'a> {
        Request {
            ahead: Some(ahead),
            ..self
        }
    }

    pub fn prestarted(self, prestarted: Option<&'a Prestarted>) -> Request<'a> {
        Request { prestarted, ..self }
    }

    pub fn tuning(self, tuning: &'a Tuning) -> Request<'a> {
        Request {
            tuning: Some(tuning),
            ..self
        }
    }

    pub fn environment(self, environment: Option<&'a Environment>) -> Request<'a> {
        Request {
            environment,
            ..self
        }
    }

    pub fn case_inputs(self, cases: &'a CaseInputs) -> Request<'a> {
        Request {
            cases: Some(cases),
            ..self
        }
    }

    /// [`record`] into [`Sink::Recordings`], gathered: one entry per
    /// submission, in input order, deterministic whatever `jobs` is.
    pub fn recordings(&self) -> Result<Vec<SubmissionRecording>, RecordError> {
        let slots: Mutex<Vec<Option<Result<Recording, RecordError>>>> =
            Mutex::new(self.submissions.iter().map(|_| None).collect());
        record(
            self,
            Sink::Recordings(&|index, result| {
                if let Ok(mut slots) = slots.lock() {
                    slots[index] = Some(result);
                }
            }),
        )?;
        let slots = slots.into_inner().unwrap_or_else(|e| e.into_inner());
        Ok(self
            .submissions
            .iter()
            .zip(slots)
            .map(|(sub, result)| SubmissionRecording {
                id: sub.id.clone(),
                result: result.unwrap_or_else(|| Err(HarnessError::NotRecorded.into())),
            })
            .collect())
    }
}

/// What becomes of one submission: its outcomes (and what its code
/// printed, when it ran here), or why it has none.
pub type Delivered = Result<(Outcomes, Option<String>), RecordError>;

/// Where each submission goes as soon as it is known, from any thread, in
/// no particular order (`index`: its place in [`Request::submissions`]).
#[derive(Clone, Copy)]
pub enum Sink<'a> {
    /// Its outcomes, for grading at once.
    Outcomes(&'a (dyn Fn(usize, Delivered) + Sync)),
    /// Its recording, also written as JSON (`recordings/<id>.json` under the
    /// work dir), the interchange format, when it was made from `main.py`;
    /// a shipped one is handed on as shipped. A recording that cannot be
    /// written fails the run (the grader's fault, not the submission's).
    Recordings(&'a (dyn Fn(usize, Result<Recording, RecordError>) + Sync)),
}

/// Records every submission of `request` (or reads it from the store or a
/// shipped recording; only the cases the store lacks are recorded) and
/// hands each to `sink`. Returns an error, and delivers no more, when the
/// grader itself cannot record (see [`RecordError::is_grader_fault`]).
pub fn record(request: &Request, sink: Sink) -> Result<(), RecordError> {
    let default;
    let tuning = match request.tuning {
        Some(tuning) => tuning,
        None => {
            // Never a cache a student could have written (as the CLI's
            // runs, src/cli/work_dir.rs).
            let dirs: Vec<&Path> = request
                .submissions
                .iter()
                .map(|s| s.dir.as_path())
                .collect();
            let mut tuning = Tuning::default();
            tuning.code_cache = tuning
                .code_cache
                .filter(|c| crate::student_trees::holding(c, &dirs).is_none());
            default = tuning;
            &default
        }
    };
    let settled = match (request.environment, needs_sandbox(request.submissions)) {
        (None, true) => Some(Environment::settle(tuning)?),
        _ => None,
    };
    let env = request.environment.or(settled.as_ref());
    let computed;
    let cases = match request.cases {
        Some(cases) => cases,
        None => {
            computed = CaseInputs::of(request.corpus);
            &computed
        }
    };
    match sink {
        Sink::Outcomes(deliver) => record_each(request, tuning, cases, env, deliver),
        Sink::Recordings(each) => recordings(request, tuning, cases, env, each),
    }
}

/// [`Sink::Recordings`]: each delivered submission made a recording,
/// written under the work dir.
fn recordings(
    request: &Request,
    tuning: &Tuning,
    cases: &CaseInputs,
    env: Option<&Environment>,
    each: &(dyn Fn(usize, Result<Recording, RecordError>) + Sync),
) -> Result<(), RecordError> {
    let (corpus, submissions, opts) = (request.corpus, request.submissions, request.options);
    let unwritten: Mutex<Option<RecordError>> = Mutex::new(None);
    record_each(request, tuning, cases, env, &|index, delivered| {
        let sub = &submissions[index];
        let result = match &sub.source {
            // Kept as shipped (it may answer another corpus).
            SubmissionSource::Recording(path) => read_recording(path).map_err(RecordError::from),
            _ => delivered.map(|(outcomes, output)| {
                outcomes.to_recording(corpus, &sub.id, output.unwrap_or_default())
            }),
        };
        if let (Ok(rec), SubmissionSource::MainPy(_)) = (&result, &sub.source) {
            let path = recording_path(&opts.work_dir, &sub.id);
            if let Err(e) = write_recording(&path, rec) {
                if let Ok(mut u) = unwritten.lock() {
                    u.get_or_insert(store_error(e));
                }
                return;
            }
        }
        each(index, result);
    })?;
    match unwritten.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// A recording that could not be written: the grader's fault.
fn store_error(e: RecordingError) -> RecordError {
    match e {
        RecordingError::Io { path, source } => RecordError::Store { path, source },
        RecordingError::Invalid { path, why } => RecordError::Store {
            path,
            source: std::io::Error::other(why),
        },
    }
}

/// Hands every submission's outcomes to `deliver` (see [`record`]).
fn record_each(
    request: &Request,
    tuning: &Tuning,
    cases: &CaseInputs,
    env: Option<&Environment>,
    deliver: &(dyn Fn(usize, Delivered) + Sync),
) -> Result<(), RecordError> {
    let (corpus, submissions, opts) = (request.corpus, request.submissions, request.options);
    let keys = &cases.keys[..];
    // Only what the store keys by (`workers` is not).
    let limits = setup::Limits::of(opts, tuning, 1);
    use rayon::prelude::*;
    let Some(env) = env else {
        // Only shipped recordings and unusable folders need no sandbox.
        submissions.par_iter().enumerate().for_each(|(index, sub)| {
            deliver(index, not_run(corpus, sub));
        });
        return Ok(());
    };
    let jobs: Vec<Job> = submissions
        .par_iter()
        .enumerate()
        .filter_map(|(index, sub)| {
            let SubmissionSource::MainPy(path) = &sub.source else {
                deliver(index, not_run(corpus, sub));
                return None;
            };
            let job = Job {
                index,
                id: sub.id.clone(),
                path: path.clone(),
                missing: None,
                sha256: None,
            };
            if !opts.use_cache || inside(&opts.work_dir, &sub.dir) {
                return Some(job);
            }
            from_store(job, keys, &limits, opts, env, deliver)
        })
        .collect();
    // A source several submissions share is recorded once: the first of
    // them is, then the others read its outcomes from the store.
    let mut seen = std::collections::HashSet::new();
    let (first, again): (Vec<Job>, Vec<Job>) = jobs.into_iter().partition(|job| {
        job.sha256
            .as_ref()
            .map_or(true, |sha| seen.insert(sha.clone()))
    });
    pool::run_jobs(request, cases, &first, tuning, env, deliver)?;
    let left: Vec<Job> = again
        .into_par_iter()
        .filter_map(|job| from_store(job, keys, &limits, opts, env, deliver))
        .collect();
    pool::run_jobs(request, cases, &left, tuning, env, deliver)
}

/// A submission waiting for the sandbox.
pub(crate) struct Job {
    pub index: usize,
    pub id: String,
    pub path: PathBuf,
    /// The corpus indices its store lacks (`None`: every case).
    pub missing: Option<Vec<usize>>,
    /// Its source's hash, when its outcomes go to a store other
    /// submissions may share (not with `--no-cache`).
    pub sha256: Option<String>,
}

/// A submission that does not run here: a shipped recording, or a folder
/// that cannot be graded.
fn not_run(corpus: &Corpus, sub: &Submission) -> Delivered {
    match &sub.source {
        SubmissionSource::Recording(path) => {
            let rec = read_recording(path)?;
            Ok((Outcomes::of_recording(corpus, rec), None))
        }
        SubmissionSource::Unusable(why) => Err(RecordError::Unusable(why.clone())),
        SubmissionSource::MainPy(_) => Err(SetupError::NotSettled.into()),
    }
}

/// Delivers `job`'s outcomes from the store when it holds every case;
/// else returns the job, with the cases the store lacks and its source's hash.
fn from_store(
    job: Job,
    keys: &[CaseKey],
    limits: &setup::Limits,
    opts: &RecordOptions,
    env: &Environment,
    deliver: &(dyn Fn(usize, Delivered) + Sync),
) -> Option<Job> {
    let loaded = crate::timings::STORE_LOAD.time(|| {
        let source = read_source(&job.path)?;
        let sha256 = hex::encode(Sha256::digest(&source));
        let made = made(env, "", limits);
        let path = case_store::store_path(&opts.work_dir, &sha256, &made);
        Ok(case_store::load(&path, &sha256, &made, keys, &source).map_err(|m| (m, sha256)))
    });
    let delivered = match loaded {
        Err(e) => Err(e),
        Ok(Ok(outcomes)) => {
            crate::timings::STORE_LOAD.found();
            Ok((outcomes, None))
        }
        Ok(Err((missing, sha256))) => {
            return Some(Job {
                missing,
                sha256: Some(sha256),
                ..job
            })
        }
    };
    deliver(job.index, delivered);
    None
}

/// Where outcomes recorded in `env` were made (`sandbox`: what the
/// self-test found held).
pub(crate) fn made(env: &Environment, sandbox: &str, limits: &setup::Limits) -> Made {
    Made {
        harness: harness_version().to_string(),
        python: env.python.version.clone(),
        isolation: env.isolation.name().to_string(),
        sandbox: sandbox.to_string(),
        limits: limits.shaping(),
    }
}

/// Whether the work dir is inside the submission's own folder (`grade .` in
/// a student's repository with the default work dir): a store there is
/// never trusted, since the student could have committed a forged one.
fn inside(work_dir: &Path, submission_dir: &Path) -> bool {
    match (
        std::fs::canonicalize(work_dir),
        std::fs::canonicalize(submission_dir),
    ) {
        (Ok(work), Ok(dir)) => work.starts_with(&dir),
        _ => true,
    }
}

pub(crate) fn read_source(path: &Path) -> Result<Vec<u8>, RecordError> {
    let io = |source: std::io::Error| RecordError::Io {
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::symlink_metadata(path).map_err(io)?;
    if !meta.file_type().is_file() {
        return Err(io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        )));
    }
    if meta.len() > MAX_SOURCE_BYTES {
        return Err(RecordError::SourceTooLarge {
            path: path.to_path_buf(),
            size: meta.len(),
        });
    }
    std::fs::read(path).map_err(io)
}
