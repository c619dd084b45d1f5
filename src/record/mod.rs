//! Recording submissions: running student code in a sandboxed, pre-forked
//! Python harness and storing one outcome per case.
//!
//! Workers are OS threads, each owning one long-lived harness process (see
//! `harness/harness.py`) in one of three sandbox tiers (`sandbox.rs`):
//! bubblewrap when it works here, else Landlock, rlimits only when asked for
//! by name. Submissions are pulled from a shared queue and results placed
//! by index, so the output does not depend on `jobs`.

mod admitted;
pub mod caps;
pub mod case_store;
mod cgroup;
mod discover;
pub mod format;
pub mod sandbox;
mod store;
mod worker;

pub use discover::{discover, nothing_found, several_found, Submission, SubmissionSource};
pub use sandbox::{Isolation, IsolationChoice, Python};
pub use store::{check_work_dir, parse_recording, read_recording, recording_path, write_recording};

use crate::corpus::Corpus;
use case_store::{CaseKey, Made, Outcomes, StoreFile};
use format::Recording;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;
use worker::{Limits, Setup, Worker};

/// Largest main.py recorded.
pub const MAX_SOURCE_BYTES: u64 = 1024 * 1024;

/// Why a submission could not be recorded (a broken submission is not an
/// error: its import errors, crashes and timeouts are outcomes).
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// (`error` is not a `source`: the message already includes it.)
    #[error("{}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{} is not a folder", .0.display())]
    NotAFolder(PathBuf),
    #[error("{}: {why}", path.display())]
    BadRecording { path: PathBuf, why: String },
    #[error("{}: main.py is {size} bytes, more than the {MAX_SOURCE_BYTES} byte limit", path.display())]
    SourceTooLarge { path: PathBuf, size: u64 },
    #[error("sandbox: {0}")]
    Sandbox(String),
    /// A folder that cannot be graded (see [`SubmissionSource::Unusable`]).
    #[error("{0}")]
    Unusable(String),
    #[error("harness: {0}")]
    Harness(String),
    /// The submission recorded more than one submission may (see
    /// [`caps::MAX_SUBMISSION_BYTES`]): its own doing, not the grader's.
    #[error("{0}")]
    TooLarge(String),
    /// No usable interpreter or sandbox tier here.
    #[error("{0}")]
    Setup(String),
    /// A recording could not be stored in the work dir.
    #[error("cannot store the recording: {0}")]
    Store(String),
    /// A submission's recording failed on the grader's side twice, on two
    /// fresh workers: the run stops rather than grade anyone on it.
    #[error("recording {submission} failed on the grader's side, twice: {error}")]
    Aborted {
        submission: String,
        error: Box<RecordError>,
    },
}

impl RecordError {
    /// Whether the grader failed here (no interpreter, sandbox or harness,
    /// an unwritable store), not the submission: such a failure must never
    /// become the student's grade.
    pub fn is_grader_fault(&self) -> bool {
        matches!(
            self,
            RecordError::Sandbox(_)
                | RecordError::Harness(_)
                | RecordError::Setup(_)
                | RecordError::Store(_)
                | RecordError::Aborted { .. }
        )
    }
}

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
            case_timeout: Duration::from_secs(2),
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
    pub isolation: Result<IsolationChoice, String>,
    /// The interpreter (`AUTOGRADER_PYTHON` by default; unset: /usr/bin/python3,
    /// then python3 on PATH).
    pub python: Option<PathBuf>,
    /// false starts a fresh interpreter per submission (the benchmark's baseline).
    pub prefork: bool,
    /// Per-submission wall limit; default max(60 s, 10 × case timeout).
    pub wall_limit: Option<Duration>,
    /// RLIMIT_AS of the process running student code.
    pub memory_bytes: u64,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            isolation: IsolationChoice::from_env(),
            python: std::env::var_os("AUTOGRADER_PYTHON").map(PathBuf::from),
            prefork: true,
            wall_limit: None,
            memory_bytes: 1 << 30,
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

/// The harness version stored in recordings; changes whenever any of the
/// embedded harness's sources does (its sandbox rules among them), so
/// cached recordings are redone.
pub fn harness_version() -> &'static str {
    static V: OnceLock<String> = OnceLock::new();
    V.get_or_init(|| {
        let mut h = Sha256::new();
        for source in worker::HARNESS_SOURCES {
            h.update(source.as_bytes());
        }
        let digest = hex::encode(h.finalize());
        format!("autograder-harness/1+{}", &digest[..12])
    })
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
        let choice = tuning.isolation.clone().map_err(RecordError::Setup)?;
        let python = Python::find(tuning.python.as_deref()).map_err(RecordError::Setup)?;
        let (isolation, notes) = choice.resolve(&python).map_err(RecordError::Setup)?;
        Ok(Environment {
            python,
            isolation,
            notes,
        })
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

/// Whether any submission must run here (not only shipped recordings).
pub fn needs_sandbox(submissions: &[Submission]) -> bool {
    submissions
        .iter()
        .any(|s| matches!(s.source, SubmissionSource::MainPy(_)))
}

/// Records (or reuses cached / shipped recordings for) every submission, in parallel.
/// Returns one entry per input submission, in input order, deterministic whatever `jobs` is;
/// or, when the grader itself cannot record (see [`RecordError::is_grader_fault`]), that error.
pub fn record_all(
    corpus: &Corpus,
    submissions: &[Submission],
    opts: &RecordOptions,
) -> Result<Vec<SubmissionRecording>, RecordError> {
    record_all_with(corpus, submissions, opts, &Tuning::default())
}

/// What becomes of one submission: its outcomes (and what its code
/// printed, when it ran here), or why it has none.
pub type Delivered = Result<(Outcomes, Option<String>), RecordError>;

/// A submission waiting for the sandbox.
struct Job {
    index: usize,
    id: String,
    path: PathBuf,
    /// The corpus indices its store lacks (`None`: every case).
    missing: Option<Vec<usize>>,
    /// Its source's hash, when its outcomes go to a store other
    /// submissions may share (not with `--no-cache`).
    sha256: Option<String>,
}

/// [`record_all`] with explicit [`Tuning`].
pub fn record_all_with(
    corpus: &Corpus,
    submissions: &[Submission],
    opts: &RecordOptions,
    tuning: &Tuning,
) -> Result<Vec<SubmissionRecording>, RecordError> {
    let env = match needs_sandbox(submissions) {
        true => Some(Environment::settle(tuning)?),
        false => None,
    };
    record_in(corpus, submissions, opts, tuning, env.as_ref())
}

/// [`record_all_with`] in an environment already settled (`None` when no
/// submission runs here): every submission's recording, in input order
/// (see [`record_recordings`]).
pub fn record_in(
    corpus: &Corpus,
    submissions: &[Submission],
    opts: &RecordOptions,
    tuning: &Tuning,
    env: Option<&Environment>,
) -> Result<Vec<SubmissionRecording>, RecordError> {
    let slots: Mutex<Vec<Option<Result<Recording, RecordError>>>> =
        Mutex::new(submissions.iter().map(|_| None).collect());
    record_recordings(corpus, submissions, opts, tuning, env, &|index, result| {
        if let Ok(mut slots) = slots.lock() {
            slots[index] = Some(result);
        }
    })?;
    let slots = slots.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok(submissions
        .iter()
        .zip(slots)
        .map(|(sub, result)| SubmissionRecording {
            id: sub.id.clone(),
            result: result.unwrap_or_else(|| {
                Err(RecordError::Harness(
                    "the submission was not recorded".into(),
                ))
            }),
        })
        .collect())
}

/// Hands each submission's recording to `each(index, ...)` as soon as it
/// is known (see [`record_each`]), and writes every one made from `main.py`
/// as JSON (`recordings/<id>.json` under the work dir), the interchange
/// format; a shipped one is handed on as shipped. A recording that cannot
/// be written fails the run (the grader's fault, not the submission's).
pub fn record_recordings(
    corpus: &Corpus,
    submissions: &[Submission],
    opts: &RecordOptions,
    tuning: &Tuning,
    env: Option<&Environment>,
    each: &(dyn Fn(usize, Result<Recording, RecordError>) + Sync),
) -> Result<(), RecordError> {
    let keys = case_store::case_keys(corpus);
    let unwritten: Mutex<Option<RecordError>> = Mutex::new(None);
    record_each(
        corpus,
        &keys,
        submissions,
        opts,
        tuning,
        env,
        &|index, delivered| {
            let sub = &submissions[index];
            let result = match &sub.source {
                // Kept as shipped (it may answer another corpus).
                SubmissionSource::Recording(path) => read_recording(path),
                _ => delivered.map(|(outcomes, output)| {
                    outcomes.to_recording(corpus, &sub.id, output.unwrap_or_default())
                }),
            };
            if let (Ok(rec), SubmissionSource::MainPy(_)) = (&result, &sub.source) {
                let path = recording_path(&opts.work_dir, &sub.id);
                if let Err(e) = write_recording(&path, rec) {
                    if let Ok(mut u) = unwritten.lock() {
                        u.get_or_insert(RecordError::Store(e.to_string()));
                    }
                    return;
                }
            }
            each(index, result);
        },
    )?;
    match unwritten.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Hands every submission's outcomes to `deliver(index, ...)` as soon as
/// they are known, from any thread, in no particular order: read from the
/// store or a shipped recording, or recorded here (only the cases the
/// store lacks), so a caller can grade and forget each one at once.
/// `keys` are [`case_store::case_keys`] of `corpus`. Returns an error,
/// and delivers no more, when the grader itself cannot record (see
/// [`RecordError::is_grader_fault`]).
pub fn record_each(
    corpus: &Corpus,
    keys: &[CaseKey],
    submissions: &[Submission],
    opts: &RecordOptions,
    tuning: &Tuning,
    env: Option<&Environment>,
    deliver: &(dyn Fn(usize, Delivered) + Sync),
) -> Result<(), RecordError> {
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
            from_store(job, keys, opts, env, deliver)
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
    run_jobs(corpus, keys, &first, opts, tuning, env, deliver)?;
    let left: Vec<Job> = again
        .into_par_iter()
        .filter_map(|job| from_store(job, keys, opts, env, deliver))
        .collect();
    run_jobs(corpus, keys, &left, opts, tuning, env, deliver)
}

/// A submission that does not run here: a shipped recording, or a folder
/// that cannot be graded.
fn not_run(corpus: &Corpus, sub: &Submission) -> Delivered {
    match &sub.source {
        SubmissionSource::Recording(path) => {
            read_recording(path).map(|rec| (Outcomes::of_recording(corpus, rec), None))
        }
        SubmissionSource::Unusable(why) => Err(RecordError::Unusable(why.clone())),
        SubmissionSource::MainPy(_) => Err(RecordError::Setup(
            "no interpreter or sandbox was settled".into(),
        )),
    }
}

/// Delivers `job`'s outcomes from the store when it holds every case;
/// else returns the job, with the cases the store lacks and its source's hash.
fn from_store(
    job: Job,
    keys: &[CaseKey],
    opts: &RecordOptions,
    env: &Environment,
    deliver: &(dyn Fn(usize, Delivered) + Sync),
) -> Option<Job> {
    let loaded = crate::timings::STORE_LOAD.time(|| {
        let source = read_source(&job.path)?;
        let sha256 = hex::encode(Sha256::digest(&source));
        let made = made(env, "");
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
fn made(env: &Environment, sandbox: &str) -> Made {
    Made {
        harness: harness_version().to_string(),
        python: env.python.version.clone(),
        isolation: env.isolation.name().to_string(),
        sandbox: sandbox.to_string(),
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

fn read_source(path: &Path) -> Result<Vec<u8>, RecordError> {
    let io = |e: std::io::Error| RecordError::Io {
        path: path.to_path_buf(),
        error: e,
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

/// The cases' inputs as the harness reads them, split by visibility: the
/// visible cases' inputs go to every worker at start; the hidden cases'
/// inputs only to a submission's supervisor once all its visible cases are
/// answered (see `worker::Worker::record`), so no visible result can carry a
/// hidden input. The harness runs the visible cases first, then the hidden
/// ones, each in corpus order: `order[k]` is the corpus index of the k-th.
pub(crate) struct Inputs {
    pub visible: String,
    pub hidden: String,
    /// Each hidden case's input (JSON text), in `order`'s order: a subset's
    /// hidden inputs are joined from these.
    pub hidden_each: Vec<String>,
    /// How many cases are visible (the first `visible_count` of `order`).
    pub visible_count: usize,
    pub order: Vec<usize>,
    /// `position[i]`: where corpus case `i` stands in `order`.
    pub position: Vec<usize>,
}

/// One case's input as the harness reads it: `{"f": function, "a": [args],
/// "k": [[name, value]]}` (tagged JSON values).
pub(crate) fn case_input(corpus: &Corpus, i: usize) -> String {
    input_of(&corpus.cases[i])
}

/// [`case_input`] of one case.
pub(crate) fn input_of(c: &crate::corpus::Case) -> String {
    use crate::value::tagged::encode;
    serde_json::json!({
        "f": c.checkpoint,
        "a": c.args.iter().map(encode).collect::<Vec<_>>(),
        "k": c.kwargs.iter().map(|(k, v)| serde_json::json!([k, encode(v)])).collect::<Vec<_>>(),
    })
    .to_string()
}

fn case_inputs(corpus: &Corpus) -> Inputs {
    use crate::corpus::Visibility;
    let one = |i: usize| case_input(corpus, i);
    let (visible, hidden): (Vec<usize>, Vec<usize>) =
        (0..corpus.cases.len()).partition(|&i| corpus.cases[i].visibility == Visibility::Visible);
    let visible_each: Vec<String> = visible.iter().map(|&i| one(i)).collect();
    let hidden_each: Vec<String> = hidden.iter().map(|&i| one(i)).collect();
    let order: Vec<usize> = visible.iter().chain(&hidden).copied().collect();
    let mut position = vec![0; order.len()];
    for (k, &i) in order.iter().enumerate() {
        position[i] = k;
    }
    Inputs {
        visible: format!("[{}]", visible_each.join(",")),
        hidden: format!("[{}]", hidden_each.join(",")),
        hidden_each,
        visible_count: visible.len(),
        order,
        position,
    }
}

/// At most this many pre-forked interpreters at once, whatever `--jobs` asks:
/// each holds a Python process and a uid from the sandbox's range.
pub const MAX_WORKERS: usize = 64;

fn worker_count(opts: &RecordOptions, jobs: usize) -> usize {
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let wanted = if opts.jobs == 0 { cores } else { opts.jobs };
    wanted.clamp(1, jobs.clamp(1, MAX_WORKERS))
}

/// Files student code must never read, which the harness's self-test tries:
/// the corpus and the grader's own binary.
fn must_not_read(corpus: &Corpus) -> Vec<PathBuf> {
    let mut paths = vec![corpus.root.join("course.toml")];
    paths.extend(corpus.cases.first().map(|c| c.file.clone()));
    paths.extend(std::env::current_exe().ok());
    paths
        .into_iter()
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .filter(|p| p.is_file())
        .collect()
}

/// What the workers share while recording.
struct Shared<'a> {
    setup: Setup,
    keys: &'a [CaseKey],
    /// The keys of the course's cases outside the selected assignments:
    /// kept in the store along with `keys`.
    others: Vec<CaseKey>,
    env: &'a Environment,
    opts: &'a RecordOptions,
    prefork: bool,
    /// What the first worker's self-test found held; stored in recordings.
    sandbox: OnceLock<String>,
    /// Set when the grader failed for good: workers take no more jobs.
    abort: std::sync::atomic::AtomicBool,
}

fn run_jobs(
    corpus: &Corpus,
    keys: &[CaseKey],
    jobs: &[Job],
    opts: &RecordOptions,
    tuning: &Tuning,
    env: &Environment,
    deliver: &(dyn Fn(usize, Delivered) + Sync),
) -> Result<(), RecordError> {
    if jobs.is_empty() {
        return Ok(());
    }
    let wall = tuning
        .wall_limit
        .unwrap_or_else(|| (opts.case_timeout * 10).max(Duration::from_secs(60)));
    let shared = Shared {
        setup: Setup {
            isolation: env.isolation,
            python: env.python.clone(),
            must_not_read: must_not_read(corpus),
            limits: Limits {
                case_timeout: opts.case_timeout,
                wall,
                memory_bytes: tuning.memory_bytes,
                file_bytes: 16 << 20,
                open_files: 64,
                processes: 32,
                workers: worker_count(opts, jobs.len()),
            },
            inputs: case_inputs(corpus),
        },
        keys,
        others: case_store::other_keys(corpus),
        env,
        opts,
        prefork: tuning.prefork,
        sandbox: OnceLock::new(),
        abort: Default::default(),
    };
    let started = Mutex::new(Some(preflight(&shared)?));
    let progress = progress_bar(opts, jobs.len());
    let next = AtomicUsize::new(0);
    // (input index, error) of each submission the grader failed on.
    let aborted: Mutex<Vec<(usize, RecordError)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..worker_count(opts, jobs.len()) {
            scope.spawn(|| {
                // The first thread takes the preflight's worker; the others
                // start their own when they get a job.
                let taken = started.lock().ok().and_then(|mut s| s.take());
                let (lease, mut worker) = match taken {
                    Some((lease, worker)) => (Ok(lease), Some(worker)),
                    None => (sandbox::lease_uid(), None),
                };
                while !shared.abort.load(Ordering::SeqCst) {
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    let Some(job) = jobs.get(k) else { break };
                    let result = match &lease {
                        Err(e) => Err(RecordError::Sandbox(e.to_string())),
                        Ok(lease) => {
                            // A failure on the grader's side is retried once,
                            // on a fresh worker.
                            let first = record_one(&shared, lease.as_ref(), &mut worker, job);
                            match first {
                                Err(e) if e.is_grader_fault() => {
                                    worker = None;
                                    record_one(&shared, lease.as_ref(), &mut worker, job)
                                }
                                other => other,
                            }
                        }
                    };
                    if let Some(p) = &progress {
                        p.inc();
                    }
                    match result {
                        Err(e) if e.is_grader_fault() => {
                            shared.abort.store(true, Ordering::SeqCst);
                            if let Ok(mut a) = aborted.lock() {
                                a.push((job.index, e));
                            }
                        }
                        other => deliver(job.index, other),
                    }
                }
            });
        }
    });
    if let Some(p) = progress {
        p.finish();
    }
    // The first submission (in input order) the grader failed on stops the run.
    let aborted = aborted.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some((index, error)) = aborted.into_iter().min_by_key(|(i, _)| *i) {
        let submission = jobs
            .iter()
            .find(|j| j.index == index)
            .map_or_else(String::new, |j| j.id.clone());
        return Err(RecordError::Aborted {
            submission,
            error: Box::new(error),
        });
    }
    Ok(())
}

/// Starts one worker before any submission runs: a harness that does not
/// start, or a sandbox whose self-test fails, stops the run here with the
/// reason, not as the first submission's failure.
/// The worker is kept, with its uid, for the first recording thread.
fn preflight(shared: &Shared) -> Result<Started, RecordError> {
    let lease = sandbox::lease_uid()?;
    let worker = Worker::start(&shared.setup, lease.as_ref())
        .map_err(|e| RecordError::Setup(format!("the harness does not start here: {e}")))?;
    let _ = shared.sandbox.set(worker.sandbox.clone());
    Ok((lease, worker))
}

/// A started worker with the uid it runs as.
type Started = (Option<sandbox::UidLease>, Worker);

/// Records the cases `job`'s store lacks, stores them, and returns the
/// submission's outcomes with what its code printed.
fn record_one(
    shared: &Shared,
    lease: Option<&sandbox::UidLease>,
    worker: &mut Option<Worker>,
    job: &Job,
) -> Result<(Outcomes, Option<String>), RecordError> {
    // Read again here, so that sources are never all held at once.
    let source = read_source(&job.path)?;
    let sha256 = hex::encode(Sha256::digest(&source));
    if worker.as_mut().is_some_and(|w| !w.alive()) {
        *worker = None;
    }
    let w = match worker {
        Some(w) => w,
        None => worker.insert(Worker::start(&shared.setup, lease)?),
    };
    let sandbox = shared.sandbox.get_or_init(|| w.sandbox.clone()).clone();
    let made = made(shared.env, &sandbox);
    let path = case_store::store_path(&shared.opts.work_dir, &sha256, &made);
    // Only some cases missing: the store has the others, and main.py compiled.
    let stored = match &job.missing {
        Some(_) => case_store::read_store(&path, &sha256, &made),
        None => None,
    };
    let pyc = stored
        .as_ref()
        .map(|s| s.pyc.as_str())
        .filter(|p| !p.is_empty());
    let reply = w.record(&source, pyc, &shared.setup.inputs, job.missing.as_deref());
    // (A refused submission leaves its worker answering in step.)
    if reply.as_ref().is_err_and(RecordError::is_grader_fault) || !shared.prefork {
        *worker = None;
    }
    let reply = reply?;
    let mut store = stored.unwrap_or_else(|| StoreFile::new(&sha256, made.clone()));
    store.made = made;
    let output = reply.output;
    store.add_keeping(
        shared.keys,
        &shared.others,
        reply.outcomes,
        output.clone(),
        &reply.integrity,
        &source,
        reply.pyc,
    );
    case_store::write_store(&path, &store)
        .map_err(|e| RecordError::Store(format!("{}: {e}", path.display())))?;
    Ok((store.outcomes_for(shared.keys, &source), Some(output)))
}

/// Recording progress on stderr: a bar on a terminal, else (a CI log) a
/// plain line every tenth of the run or every [`PROGRESS_EVERY`].
enum Progress {
    Bar(indicatif::ProgressBar),
    Lines(Mutex<ProgressLines>),
}

/// How often a log gets a progress line at least, while submissions finish.
const PROGRESS_EVERY: Duration = Duration::from_secs(10);

struct ProgressLines {
    total: usize,
    done: usize,
    /// The tenth of the run the last line reported.
    tenth: usize,
    last: std::time::Instant,
}

impl Progress {
    fn inc(&self) {
        match self {
            Progress::Bar(bar) => bar.inc(1),
            Progress::Lines(state) => {
                let Ok(mut s) = state.lock() else { return };
                s.done += 1;
                let tenth = s.done * 10 / s.total.max(1);
                if tenth > s.tenth || s.last.elapsed() >= PROGRESS_EVERY {
                    (s.tenth, s.last) = (tenth, std::time::Instant::now());
                    eprintln!(
                        "recorded {}/{} submissions ({}%)",
                        s.done,
                        s.total,
                        s.done * 100 / s.total.max(1)
                    );
                }
            }
        }
    }

    fn finish(self) {
        if let Progress::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}

fn progress_bar(opts: &RecordOptions, total: usize) -> Option<Progress> {
    use is_terminal::IsTerminal;
    if !opts.show_progress {
        return None;
    }
    if !std::io::stderr().is_terminal() {
        return Some(Progress::Lines(Mutex::new(ProgressLines {
            total,
            done: 0,
            tenth: 0,
            last: std::time::Instant::now(),
        })));
    }
    let bar = indicatif::ProgressBar::new(total as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:30} {pos}/{len} submissions  {rate}  ETA {eta}",
    ) {
        // indicatif's own {per_sec} prints "26.0568/s".
        bar.set_style(style.with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.1}/s", state.per_sec());
            },
        ));
    }
    Some(Progress::Bar(bar))
}
