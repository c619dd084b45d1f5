//! A grading session: the pipeline `grade` runs once its options are read.
//! Which submissions a run grades ([`choose_submissions`]: its [`Shard`],
//! `--main-py-only`, Gradescope's one upload), and each one recorded (or
//! read from the store) and graded as soon as its outcomes are known
//! ([`record_and_grade`]). The CLI reads flags and prints; the pipeline is
//! here so that `merge`, the benches and tests can reuse it.

use crate::corpus::Corpus;
use crate::grade::{self, GradeRun, HeldShards};
use crate::runner::{self, Environment, RecordError, RecordOptions, Request, Sink, Tuning};
use crate::submission::{self, Submission, SubmissionError, SubmissionSource};
use crate::value::Outcome;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, OnceLock};

/// Why a session could not grade.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// Listing the submissions, or recording them, failed.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// Listing the submissions failed.
    #[error(transparent)]
    Submissions(#[from] SubmissionError),
    #[error("--gradescope grades one submission, but {} holds {found}", path.display())]
    GradescopeNotOne { path: PathBuf, found: usize },
    #[error("cannot make a temporary file")]
    Spool(#[source] std::io::Error),
    /// A case grade could not be spooled or read back (the spool's words).
    #[error("{0}")]
    CaseGrades(String),
    /// The corpus's expected outcomes could not be had, or were refused.
    #[error("{0}")]
    Expected(String),
}

/// `--shard K/N`: the K-th of N slices of the submissions (1-based): the
/// submissions whose 0-based index in id order is `k - 1` modulo `n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub k: usize,
    pub n: usize,
}

impl Shard {
    /// Whether the submission at `index` (in id order) is in this slice.
    pub fn holds(self, index: usize) -> bool {
        index % self.n == self.k - 1
    }

    /// What a run of this slice holds of a whole run of `submissions`.
    pub fn held(self, submissions: usize) -> HeldShards {
        HeldShards {
            held: vec![self.k],
            of: self.n,
            submissions,
        }
    }
}

impl std::str::FromStr for Shard {
    /// The usage message (what `--shard` says of a bad value).
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("{s:?} is not K/N with 1 <= K <= N (e.g. 2/4)");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let k: usize = k.trim().parse().map_err(|_| bad())?;
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }
}

/// What decides which submissions under a path a run grades.
#[derive(Clone, Copy, Debug)]
pub struct Choice<'a> {
    /// One submission or a folder of them.
    pub path: &'a Path,
    pub shard: Option<Shard>,
    /// Shipped recording.json files are refused (graded as errors).
    pub main_py_only: bool,
    /// The run writes Gradescope's results.json: exactly one submission.
    pub gradescope: bool,
    /// The corpus folder (`--cases`): never a submission, though it may lie
    /// under PATH (a repository made by `package ci` holds its cases).
    pub cases: Option<&'a Path>,
}

/// The submissions a run grades, and what reports need to know about them.
#[derive(Debug)]
pub struct Chosen {
    pub submissions: Vec<Submission>,
    /// PATH held nothing gradable and stands as one ungradable submission
    /// (so the run must not pass).
    pub not_a_submission: bool,
    /// How many submissions the whole run has, all shards together.
    pub whole_run: usize,
}

/// The submissions under `choice.path` this run grades (its shard, shipped
/// recordings refused under `--main-py-only`, Gradescope's one upload).
pub fn choose_submissions(choice: &Choice) -> Result<Chosen, SessionError> {
    let path = choice.path;
    let mut submissions = submission::discover(path)?;
    if let Some(cases) = choice.cases.and_then(|c| std::fs::canonicalize(c).ok()) {
        submissions
            .retain(|s| std::fs::canonicalize(&s.dir).map_or(true, |dir| !dir.starts_with(&cases)));
    }
    let mut not_a_submission = false;
    if submissions.is_empty() {
        // `discover` lists every subfolder that is not a submission, so none
        // found means PATH has no subfolders: it is one would-be submission
        // (`grade .` in CI on a student repository) without a main.py. The
        // requested reports say so (CI and Gradescope show them) rather than
        // nothing at all; the run fails, except for Gradescope, whose
        // results.json is the whole answer.
        submissions = vec![submission::nothing_found(path)];
        not_a_submission = !choice.gradescope;
    }
    let whole_run = submissions.len();
    if let Some(shard) = choice.shard {
        submissions.sort_by(|a, b| a.id.cmp(&b.id));
        submissions = submissions
            .into_iter()
            .enumerate()
            .filter(|(i, _)| shard.holds(*i))
            .map(|(_, s)| s)
            .collect();
    }
    if choice.main_py_only {
        for s in &mut submissions {
            if let SubmissionSource::Recording(path) = &s.source {
                s.source = SubmissionSource::Unusable(format!(
                    "{}: a shipped recording is not accepted (--main-py-only); submit main.py",
                    path.display()
                ));
            }
        }
    }
    if choice.gradescope && path.is_dir() && submissions.len() != 1 {
        // Gradescope shows the student results.json, not an error: grade the
        // one folder with a main.py among the upload's leftovers (a docs/
        // folder), or say there what was uploaded instead of one main.py.
        let usable: Vec<_> = submissions
            .iter()
            .filter(|s| !matches!(s.source, SubmissionSource::Unusable(_)))
            .cloned()
            .collect();
        submissions = match usable.len() {
            0 => vec![submission::nothing_found(path)],
            1 => usable,
            _ => vec![submission::several_found(path, &usable)],
        };
    }
    if choice.gradescope && submissions.len() != 1 {
        return Err(SessionError::GradescopeNotOne {
            path: path.to_path_buf(),
            found: submissions.len(),
        });
    }
    Ok(Chosen {
        submissions,
        not_a_submission,
        whole_run,
    })
}

/// Records (or reads from the store) each submission and grades it as soon
/// as its outcomes are known, keeping only its summary in memory (its case
/// grades are spooled to disk, in `opts.work_dir`, for the reports); fails,
/// and no report should be written, when the grader cannot record here.
/// `env` is the settled recording environment when a submission must run
/// here (see [`runner::needs_sandbox`]), `prestarted` a harness started
/// ahead in it for the first worker.
///
/// The reference core's outcome of every case is computed beside the
/// recording (so that a student's one submission waits for neither; on one
/// thread when a harness is starting, on every core otherwise), then given
/// to `check` (the corpus's pins, say): its error fails the session.
/// No submission is graded before both are done.
pub fn record_and_grade(
    corpus: &Corpus,
    check: &(dyn Fn(&[Outcome]) -> Result<(), String> + Sync),
    opts: &RecordOptions,
    tuning: &Tuning,
    env: Option<&Environment>,
    prestarted: Option<&runner::Prestarted>,
    submissions: &[Submission],
) -> Result<GradeRun, SessionError> {
    let cases = crate::timings::span("case inputs encoded", || {
        crate::recording::case_store::CaseInputs::of(corpus)
    });
    let expected: Awaited<Result<Vec<Outcome>, String>> = Awaited::default();
    let grader: OnceLock<Option<grade::Grader>> = OnceLock::new();
    let details =
        grade::CaseGradeStorage::spooled_in(&opts.work_dir).map_err(SessionError::Spool)?;
    let graded: std::sync::Mutex<Vec<Option<grade::SubmissionGrade>>> =
        std::sync::Mutex::new(submissions.iter().map(|_| None).collect());
    // Outcomes admitted ahead of a submission's answer are judged as they
    // come, once the grader is made: its grade then finds them judged.
    let ahead = |index: usize, text: &str| {
        if let Some(Some(grader)) = grader.get() {
            grader.judge_ahead(index, text);
        }
    };
    let request = Request::new(corpus, submissions, opts)
        .tuning(tuning)
        .environment(env)
        .prestarted(prestarted)
        .case_inputs(&cases)
        .ahead(&ahead);
    let grader_of = || {
        grader.get_or_init(|| {
            let expected = expected.wait().as_ref().ok()?;
            Some(grade::Grader::new(corpus, expected))
        })
    };
    let recorded = std::thread::scope(|s| {
        s.spawn(|| {
            // Set whatever happens, even a panic: graders wait for it.
            let computed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                crate::timings::span("expected outcomes computed", || {
                    if env.is_some() {
                        grade::expected_outcomes_on_this_thread(corpus)
                    } else {
                        grade::expected_outcomes(corpus)
                    }
                })
            }));
            expected.set(match computed {
                Ok(Ok(outcomes)) => check(&outcomes).map(|()| outcomes),
                Ok(Err(e)) => Err(crate::errors::chain(&e)),
                Err(_) => Err("the reference core panicked computing the expected outcomes".into()),
            });
            // Made here too, so the first submission recorded is not kept
            // waiting for it.
            grader_of();
        });
        runner::record(
            &request,
            Sink::Outcomes(&|index, delivered| {
                let Some(grader) = grader_of() else {
                    return; // the session fails below
                };
                let id = submissions[index].id.clone();
                let grade = crate::timings::GRADING.time(|| match delivered {
                    Ok((outcomes, _)) => grader.grade(id, &outcomes, &details),
                    Err(e) => grader.error(id, crate::errors::chain(&e)),
                });
                if let Ok(mut graded) = graded.lock() {
                    graded[index] = Some(grade);
                }
            }),
        )
    });
    // The recording's own failure first (it may be why nothing was graded).
    recorded?;
    let grader = match (grader_of(), expected.wait()) {
        (Some(grader), Ok(_)) => grader,
        (_, Err(e)) => return Err(SessionError::Expected(e.clone())),
        (None, Ok(_)) => unreachable!("a grader is made whenever the outcomes are"),
    };
    let graded = graded.into_inner().unwrap_or_else(|e| e.into_inner());
    let submissions = submissions
        .iter()
        .zip(graded)
        .map(|(sub, grade)| {
            grade.unwrap_or_else(|| grader.error(sub.id.clone(), "not graded".into()))
        })
        .collect();
    if let Some(e) = details.error() {
        return Err(SessionError::CaseGrades(e));
    }
    Ok(grader.run(submissions, details))
}

/// A value one thread sets once and others wait for.
struct Awaited<T> {
    cell: OnceLock<T>,
    lock: Mutex<()>,
    ready: Condvar,
}

impl<T> Default for Awaited<T> {
    fn default() -> Self {
        Awaited {
            cell: OnceLock::new(),
            lock: Mutex::new(()),
            ready: Condvar::new(),
        }
    }
}

impl<T> Awaited<T> {
    /// Sets it (a second value is dropped) and wakes every waiter.
    fn set(&self, value: T) {
        let _ = self.cell.set(value);
        let _held = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.ready.notify_all();
    }

    /// The value, once set.
    fn wait(&self) -> &T {
        let mut held = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(value) = self.cell.get() {
                return value;
            }
            held = self.ready.wait(held).unwrap_or_else(|e| e.into_inner());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_slice() {
        let s: Shard = "2/3".parse().unwrap();
        assert_eq!(s, Shard { k: 2, n: 3 });
        let held: Vec<usize> = (0..7).filter(|&i| s.holds(i)).collect();
        assert_eq!(held, [1, 4]);
        assert_eq!(HeldShards::slice_len(2, 3, 7), held.len());
        for bad in ["0/3", "4/3", "3", "a/b", ""] {
            let e = bad.parse::<Shard>().unwrap_err();
            assert!(e.contains("is not K/N with 1 <= K <= N"), "{e}");
        }
    }
}
