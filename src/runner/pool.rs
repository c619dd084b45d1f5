//! The pool: one thread per worker, each owning a pre-forked harness,
//! taking submissions from a shared queue; a failure on the grader's side
//! is retried once on a fresh worker, and a second one stops the run.

use super::inputs::Inputs;
use super::sandbox::{self, UidLease};
use super::setup::{Limits, Setup};
use super::worker::Worker;
use super::{made, read_source, Delivered, Environment, Job, Prestarted, RecordError};
use super::{RecordOptions, Request, Tuning};
use super::{SandboxError, SetupError};
use crate::corpus::Corpus;
use crate::recording::case_store::{self, CaseInputs, CaseKey, StoreFile};
use sha2::{Digest, Sha256};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

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
    /// The request's [`Request::ahead`].
    ahead: Option<super::worker::Ahead<'a>>,
}

pub(super) fn run_jobs(
    request: &Request,
    cases: &CaseInputs,
    jobs: &[Job],
    tuning: &Tuning,
    env: &Environment,
    deliver: &(dyn Fn(usize, Delivered) + Sync),
) -> Result<(), RecordError> {
    if jobs.is_empty() {
        return Ok(());
    }
    let (corpus, opts) = (request.corpus, request.options);
    let shared = Shared {
        setup: Setup {
            isolation: env.isolation,
            python: env.python.clone(),
            must_not_read: crate::timings::span("files the self-test must not read", || {
                must_not_read(corpus)
            }),
            limits: Limits::of(opts, tuning, worker_count(opts, jobs.len())),
            inputs: Inputs::of(corpus),
            warm: tuning.warm_imports,
            code_cache: tuning.code_cache.clone(),
        },
        keys: &cases.keys,
        others: case_store::other_keys(corpus),
        env,
        opts,
        prefork: tuning.prefork,
        sandbox: OnceLock::new(),
        abort: Default::default(),
        ahead: request.ahead,
    };
    let started = Mutex::new(Some(crate::timings::span("first worker started", || {
        preflight(&shared, request.prestarted, jobs)
    })?));
    let progress = super::progress::progress_bar(opts, jobs.len());
    let next = AtomicUsize::new(0);
    // (input index, error) of each submission the grader failed on.
    let aborted: Mutex<Vec<(usize, RecordError)>> = Mutex::new(Vec::new());
    let work = || {
        // The first thread takes the preflight's worker; the others
        // start their own when they get a job.
        let taken = started.lock().ok().and_then(|mut s| s.take());
        let (lease, mut worker) = match taken {
            Some((lease, worker)) => (Ok(lease), Some(worker)),
            None => (sandbox::lease_uid().map_err(Arc::new), None),
        };
        while !shared.abort.load(Ordering::SeqCst) {
            let k = next.fetch_add(1, Ordering::SeqCst);
            let Some(job) = jobs.get(k) else { break };
            let result = match &lease {
                Err(e) => Err(SandboxError::Lease(e.clone()).into()),
                Ok(lease) => {
                    // A failure on the grader's side is retried once,
                    // on a fresh worker.
                    // No job is left after it: its worker stops.
                    let last = k + 1 >= jobs.len();
                    let first = record_one(&shared, lease.as_ref(), &mut worker, job, last);
                    match first {
                        Err(e) if e.is_grader_fault() => {
                            worker = None;
                            record_one(&shared, lease.as_ref(), &mut worker, job, last)
                        }
                        other => other,
                    }
                }
            };
            if let Some(p) = &progress {
                p.inc();
            }
            let abort = |e: RecordError| {
                shared.abort.store(true, Ordering::SeqCst);
                if let Ok(mut a) = aborted.lock() {
                    a.push((job.index, e));
                }
            };
            // No job is left for this thread: its worker stops
            // while this submission is stored and graded.
            let stopping = match next.load(Ordering::SeqCst) >= jobs.len() {
                true => worker.take(),
                false => None,
            };
            std::thread::scope(|s| {
                let lease = &lease;
                let stopped = stopping.map(|w| s.spawn(move || stop(w, lease)));
                match result {
                    Err(e) if e.is_grader_fault() => abort(e),
                    Err(e) => deliver(job.index, Err(e)),
                    Ok(Recorded {
                        source,
                        path,
                        store,
                        output,
                    }) => {
                        let outcomes = store.outcomes_for(shared.keys, &source);
                        // Written beside the grading; one that
                        // cannot be written still stops the run.
                        let written = std::thread::scope(|w| {
                            let written = w.spawn(|| {
                                crate::timings::STORE_WRITE
                                    .time(|| case_store::write_store(&path, &store))
                            });
                            deliver(job.index, Ok((outcomes, Some(output))));
                            written.join()
                        });
                        match written {
                            Ok(Ok(())) => {}
                            Ok(Err(source)) => abort(RecordError::Store { path, source }),
                            Err(panic) => std::panic::resume_unwind(panic),
                        }
                    }
                }
                if let Some(Err(panic)) = stopped.map(|h| h.join()) {
                    std::panic::resume_unwind(panic);
                }
            });
        }
        if let Some(w) = worker {
            stop(w, &lease);
        }
    };
    match worker_count(opts, jobs.len()) {
        // One worker works on this thread: a thread of its own would first
        // wait for a core (both are busy as the first job is due) before it
        // sent that job.
        1 => work(),
        n => std::thread::scope(|scope| {
            for _ in 0..n {
                scope.spawn(work);
            }
        }),
    }
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
/// A harness started ahead for this run (`prestarted`) is given its init
/// line here.
fn preflight(
    shared: &Shared,
    prestarted: Option<&Prestarted>,
    jobs: &[Job],
) -> Result<Started, RecordError> {
    // One submission to record whole (a student's push): its first child
    // compiles it ahead. (With more, which thread takes this worker's
    // first job is not known here.)
    let source_ahead = match jobs {
        [job] if job.missing.is_none() => super::read_source(&job.path).ok(),
        _ => None,
    };
    let source_ahead = source_ahead.as_deref();
    let ahead = prestarted
        .and_then(Prestarted::take)
        .filter(|(lease, spawned)| spawned.fits(&shared.setup, lease.as_ref().map(|l| l.uid)));
    // One started ahead that fails is started again, as it would have
    // been without it (and fails the run only then).
    let (lease, worker) =
        match ahead.map(|(lease, spawned)| (spawned.init(&shared.setup, source_ahead), lease)) {
            Some((Ok(worker), lease)) => (lease, Ok(worker)),
            _ => {
                let lease = sandbox::lease_uid()?;
                let worker = Worker::start(&shared.setup, lease.as_ref(), source_ahead);
                (lease, worker)
            }
        };
    let worker = worker.map_err(|e| SetupError::HarnessDoesNotStart(Box::new(e)))?;
    let _ = shared.sandbox.set(worker.sandbox.clone());
    Ok((lease, worker))
}

/// Stops a worker; when it left nothing of its uid, its lease says so to
/// the uid's next worker ([`sandbox::UidLease::mark_clean`]).
fn stop<E>(worker: Worker, lease: &Result<Option<sandbox::UidLease>, E>) {
    if crate::timings::span("worker stopped", || worker.stop()) {
        if let Ok(Some(lease)) = lease {
            lease.mark_clean();
        }
    }
}

/// A started worker with the uid it runs as.
type Started = (Option<UidLease>, Worker);

/// A submission recorded: its store file, with what its code printed, to
/// be written (beside its grading) at `path`.
struct Recorded {
    source: Vec<u8>,
    path: std::path::PathBuf,
    store: StoreFile,
    output: String,
}

/// Records the cases `job`'s store lacks and adds them to its store file.
fn record_one(
    shared: &Shared,
    lease: Option<&UidLease>,
    worker: &mut Option<Worker>,
    job: &Job,
    last: bool,
) -> Result<Recorded, RecordError> {
    // Read again here, so that sources are never all held at once.
    let source = read_source(&job.path)?;
    let sha256 = hex::encode(Sha256::digest(&source));
    if worker.as_mut().is_some_and(|w| !w.alive()) {
        *worker = None;
    }
    let w = match worker {
        Some(w) => w,
        None => worker.insert(Worker::start(&shared.setup, lease, None)?),
    };
    if last {
        w.last_job();
    }
    let sandbox = shared.sandbox.get_or_init(|| w.sandbox.clone()).clone();
    let made = made(shared.env, &sandbox, &shared.setup.limits);
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
    // The source's static scan (for a store that has none of this
    // scanner's) is made beside the recording.
    let scan = stored
        .as_ref()
        .map_or(true, |s| s.scanner != crate::integrity::scanner_version());
    let (reply, scanned) = std::thread::scope(|s| {
        let scanned = scan.then(|| s.spawn(|| crate::integrity::static_scan(&source)));
        let reply = crate::timings::RECORDING.time(|| {
            w.record(
                &source,
                pyc,
                &shared.setup.inputs,
                job.missing.as_deref(),
                shared.ahead,
            )
        });
        let scanned = scanned.map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        (reply, scanned)
    });
    // (A refused submission leaves its worker answering in step.)
    if reply.as_ref().is_err_and(RecordError::is_grader_fault) || !shared.prefork {
        *worker = None;
    }
    let reply = reply?;
    let mut store = stored.unwrap_or_else(|| StoreFile::new(&sha256, made.clone()));
    store.made = made;
    let output = reply.output;
    store.add(
        shared.keys,
        &shared.others,
        reply.outcomes,
        output.clone(),
        &reply.integrity,
        &source,
        reply.pyc,
        scanned,
    );
    Ok(Recorded {
        source,
        path,
        store,
        output,
    })
}
