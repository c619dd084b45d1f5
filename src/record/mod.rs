//! Recording submissions: running student code in a sandboxed, pre-forked
//! Python harness and storing one outcome per case.
//!
//! Workers are OS threads, each owning one long-lived harness process (see
//! `harness/harness.py`) inside bubblewrap when it works here, else under
//! rlimits only. Submissions are pulled from a shared queue and results placed
//! by index, so the output does not depend on `jobs`.

mod discover;
pub mod format;
pub mod sandbox;
mod store;
mod worker;

pub use discover::{discover, nothing_found, several_found, Submission, SubmissionSource};
pub use sandbox::{Isolation, IsolationChoice};
pub use store::{check_work_dir, parse_recording, read_recording, recording_path, write_recording};

use crate::corpus::Corpus;
use format::{Recording, RECORDING_FORMAT};
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
    /// indicatif bar on stderr when it is a terminal.
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

/// The harness version stored in recordings; changes whenever the embedded
/// harness does, so cached recordings are redone.
pub fn harness_version() -> &'static str {
    static V: OnceLock<String> = OnceLock::new();
    V.get_or_init(|| {
        let mut h = Sha256::new();
        h.update(worker::HARNESS_PY.as_bytes());
        h.update(worker::TAGGED_PY.as_bytes());
        let digest = hex::encode(h.finalize());
        format!("autograder-harness/1+{}", &digest[..12])
    })
}

/// Records (or reuses cached / shipped recordings for) every submission, in parallel.
/// Returns one entry per input submission, in input order, deterministic whatever `jobs` is.
pub fn record_all(
    corpus: &Corpus,
    submissions: &[Submission],
    opts: &RecordOptions,
) -> Vec<SubmissionRecording> {
    record_all_with(corpus, submissions, opts, &Tuning::default())
}

/// A submission waiting for the sandbox.
struct Job {
    index: usize,
    id: String,
    source: Vec<u8>,
    sha256: String,
}

/// [`record_all`] with explicit [`Tuning`].
pub fn record_all_with(
    corpus: &Corpus,
    submissions: &[Submission],
    opts: &RecordOptions,
    tuning: &Tuning,
) -> Vec<SubmissionRecording> {
    let mut results: Vec<Option<Result<Recording, RecordError>>> =
        submissions.iter().map(|_| None).collect();
    let mut jobs = Vec::new();
    let needs_sandbox = submissions
        .iter()
        .any(|s| matches!(s.source, SubmissionSource::MainPy(_)));
    let isolation = if needs_sandbox {
        match &tuning.isolation {
            Ok(choice) => choice.resolve().map_err(|e| e.to_string()),
            Err(e) => Err(e.clone()),
        }
    } else {
        Err(String::new())
    };
    for (index, sub) in submissions.iter().enumerate() {
        match &sub.source {
            SubmissionSource::Recording(path) => results[index] = Some(read_recording(path)),
            SubmissionSource::Unusable(why) => {
                results[index] = Some(Err(RecordError::Unusable(why.clone())))
            }
            SubmissionSource::MainPy(path) => match read_source(path) {
                Err(e) => results[index] = Some(Err(e)),
                Ok(source) => {
                    let sha256 = hex::encode(Sha256::digest(&source));
                    let iso = match &isolation {
                        Ok(iso) => *iso,
                        Err(e) => {
                            results[index] = Some(Err(RecordError::Sandbox(e.clone())));
                            continue;
                        }
                    };
                    if opts.use_cache {
                        if let Some(rec) = cached(opts, corpus, sub, &sha256, iso) {
                            results[index] = Some(Ok(rec));
                            continue;
                        }
                    }
                    jobs.push(Job {
                        index,
                        id: sub.id.clone(),
                        source,
                        sha256,
                    });
                }
            },
        }
    }
    if let (false, Ok(iso)) = (jobs.is_empty(), &isolation) {
        let done = run_jobs(corpus, &jobs, opts, tuning, *iso);
        for (job, result) in jobs.iter().zip(done) {
            results[job.index] = Some(result);
        }
    }
    submissions
        .iter()
        .zip(results)
        .map(|(sub, result)| SubmissionRecording {
            id: sub.id.clone(),
            result: result.unwrap_or_else(|| {
                Err(RecordError::Harness(
                    "the submission was not recorded".into(),
                ))
            }),
        })
        .collect()
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

/// The stored recording, when it answers exactly this source, corpus,
/// harness and isolation. Never one from inside the submission's own folder
/// (`grade .` in a student's repository with the default work dir): the
/// student could have committed a forged recording there.
fn cached(
    opts: &RecordOptions,
    corpus: &Corpus,
    sub: &Submission,
    sha256: &str,
    iso: Isolation,
) -> Option<Recording> {
    let id = sub.id.as_str();
    let (Ok(work), Ok(dir)) = (
        std::fs::canonicalize(&opts.work_dir),
        std::fs::canonicalize(&sub.dir),
    ) else {
        return None;
    };
    if work.starts_with(&dir) {
        return None;
    }
    let path = recording_path(&opts.work_dir, id);
    let rec = read_recording(&path).ok()?;
    let fresh = rec.submission == id
        && rec.source_sha256.as_deref() == Some(sha256)
        && rec.corpus_fingerprint == corpus.fingerprint
        && rec.harness == harness_version()
        && rec.isolation == iso.name()
        && rec.outcomes.len() == corpus.cases.len();
    fresh.then_some(rec)
}

/// The cases' inputs as the harness reads them.
fn cases_json(corpus: &Corpus) -> String {
    use crate::value::tagged::encode;
    let cases: Vec<serde_json::Value> = corpus
        .cases
        .iter()
        .map(|c| {
            serde_json::json!({
                "f": c.checkpoint,
                "a": c.args.iter().map(encode).collect::<Vec<_>>(),
                "k": c.kwargs.iter().map(|(k, v)| serde_json::json!([k, encode(v)])).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::Value::Array(cases).to_string()
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

fn run_jobs(
    corpus: &Corpus,
    jobs: &[Job],
    opts: &RecordOptions,
    tuning: &Tuning,
    isolation: Isolation,
) -> Vec<Result<Recording, RecordError>> {
    let wall = tuning
        .wall_limit
        .unwrap_or_else(|| (opts.case_timeout * 10).max(Duration::from_secs(60)));
    let setup = Setup {
        isolation,
        limits: Limits {
            case_timeout: opts.case_timeout,
            wall,
            memory_bytes: tuning.memory_bytes,
            file_bytes: 16 << 20,
            open_files: 64,
            processes: 32,
        },
        cases_json: cases_json(corpus),
        case_count: corpus.cases.len(),
    };
    let progress = progress_bar(opts, jobs.len());
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<Result<Recording, RecordError>>>> =
        Mutex::new(jobs.iter().map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..worker_count(opts, jobs.len()) {
            scope.spawn(|| {
                let lease = sandbox::lease_uid();
                let mut worker: Option<Worker> = None;
                loop {
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    let Some(job) = jobs.get(k) else { break };
                    let result = match &lease {
                        Err(e) => Err(RecordError::Sandbox(e.to_string())),
                        Ok(lease) => record_one(
                            &setup,
                            lease.as_ref(),
                            &mut worker,
                            tuning.prefork,
                            job,
                            corpus,
                            opts,
                            isolation,
                        ),
                    };
                    if let Some(p) = &progress {
                        p.inc(1);
                    }
                    if let Ok(mut s) = slots.lock() {
                        s[k] = Some(result);
                    }
                }
            });
        }
    });
    if let Some(p) = progress {
        p.finish_and_clear();
    }
    slots
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(RecordError::Harness("not recorded".into()))))
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn record_one(
    setup: &Setup,
    lease: Option<&sandbox::UidLease>,
    worker: &mut Option<Worker>,
    prefork: bool,
    job: &Job,
    corpus: &Corpus,
    opts: &RecordOptions,
    isolation: Isolation,
) -> Result<Recording, RecordError> {
    if worker.as_mut().is_some_and(|w| !w.alive()) {
        *worker = None;
    }
    let w = match worker {
        Some(w) => w,
        None => worker.insert(Worker::start(setup, lease)?),
    };
    let reply = w.record(&job.source);
    if reply.is_err() || !prefork {
        *worker = None;
    }
    let reply = reply?;
    let rec = Recording {
        format: RECORDING_FORMAT.to_string(),
        submission: job.id.clone(),
        source_sha256: Some(job.sha256.clone()),
        corpus_fingerprint: corpus.fingerprint.clone(),
        harness: harness_version().to_string(),
        isolation: isolation.name().to_string(),
        outcomes: corpus
            .cases
            .iter()
            .map(|c| c.id.clone())
            .zip(reply.outcomes)
            .collect(),
        output: reply.output,
    };
    write_recording(&recording_path(&opts.work_dir, &job.id), &rec)?;
    Ok(rec)
}

fn progress_bar(opts: &RecordOptions, total: usize) -> Option<indicatif::ProgressBar> {
    use is_terminal::IsTerminal;
    if !opts.show_progress || !std::io::stderr().is_terminal() {
        return None;
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
    Some(bar)
}
