//! The search itself, per submission: candidates for each hidden failure,
//! one recording of the submission on all of them (the same runner, sandbox
//! and limits as its grading), each judged against the reference core;
//! the smallest failing the same way is kept, then shrunk in a few bounded
//! rounds (one recording each).

use super::candidates::{shrunk, Candidate, Maker};
use super::mistake::Mistake;
use crate::corpus::{Case, Corpus, Selection, Visibility};
use crate::grade::{feedback, verdict::judge_case, Counterexample, CounterexampleSearch};
use crate::grade::{Failure, GradeRun, SubmissionGrade};
use crate::recording::case_store::Outcomes;
use crate::recording::format::CaseOutcome;
use crate::runner::{self, Environment, RecordError, RecordOptions, Request, Sink, Tuning};
use crate::submission::{Submission, SubmissionSource};
use crate::value::Outcome;
use rayon::prelude::*;
use std::collections::{HashMap, HashSet};

/// Candidates tried per hidden failure (before shrinking), and again for
/// one none of them fits.
pub const PER_FAILURE: usize = 120;
/// Candidates tried per checkpoint of one submission in one recording,
/// all its hidden failures together.
pub const PER_CHECKPOINT: usize = 360;
/// Rounds of shrinking, and the smaller calls tried per failure in each.
pub const SHRINK_ROUNDS: usize = 3;
pub const PER_SHRINK: usize = 24;

/// How a run records: what its grading recorded with.
#[derive(Clone, Copy)]
pub struct Recorder<'a> {
    pub corpus: &'a Corpus,
    pub options: &'a RecordOptions,
    pub tuning: &'a Tuning,
    pub env: Option<&'a Environment>,
}

/// Searches a counterexample for every failed hidden case of every
/// submission of `run` (its grades as instructors see them) and writes
/// each into that case's failure. `submissions` are the run's, by id.
pub fn search_run(run: &mut GradeRun, rec: &Recorder, submissions: &[Submission]) {
    let by_id: HashMap<&str, &Submission> =
        submissions.iter().map(|s| (s.id.as_str(), s)).collect();
    let found: Vec<Option<SubmissionGrade>> = run
        .submissions
        .par_iter()
        .map(|summary| {
            let full = run.full_one(summary);
            if !has_hidden_failure(&full) {
                return None;
            }
            let sub = by_id.get(summary.id.as_str())?;
            let mut full = full.into_owned();
            for ((cp, k), search) in search_one(rec, sub, &full) {
                if let Some(f) = full.checkpoints[cp].cases[k].failure.as_mut() {
                    f.counterexample = Some(search);
                }
            }
            // Kept at once (spooled, only its summary stays in memory).
            Some(run.details.keep(full))
        })
        .collect();
    for (i, kept) in found.into_iter().enumerate() {
        if let Some(kept) = kept {
            run.submissions[i] = kept;
        }
    }
}

fn has_hidden_failure(s: &SubmissionGrade) -> bool {
    s.checkpoints.iter().any(|cp| {
        cp.cases
            .iter()
            .any(|c| c.visibility == Visibility::Hidden && c.failure.is_some())
    })
}

/// One failed hidden case: where it is in the grade, its checkpoint, tags
/// and mistake, and the best candidate so far (index into the tried calls).
struct Hidden {
    at: (usize, usize),
    checkpoint: String,
    tags: Vec<String>,
    mistake: Mistake,
    /// The visible cases (ids) the submission fails with the same mistake.
    same: HashSet<String>,
    best: Option<usize>,
}

/// A call tried, and its mistake when the submission failed on it (with
/// the failure as reports write it).
struct Tried {
    candidate: Candidate,
    failed: Option<(Mistake, Failure)>,
}

/// The searches of one submission's failed hidden cases, by (checkpoint
/// index, case index) in its grade.
fn search_one(
    rec: &Recorder,
    sub: &Submission,
    grade: &SubmissionGrade,
) -> Vec<((usize, usize), CounterexampleSearch)> {
    // A recording made elsewhere has no code that runs here: no search.
    if !matches!(sub.source, SubmissionSource::MainPy(_)) {
        return Vec::new();
    }
    let mut hidden = hidden_failures(rec.corpus, grade);
    let none = |note: String| CounterexampleSearch {
        found: None,
        note: Some(note),
    };
    let mut makers: HashMap<String, Maker> = HashMap::new();
    let mut first: Vec<Candidate> = Vec::new();
    for h in &hidden {
        let maker = makers
            .entry(h.checkpoint.clone())
            .or_insert_with(|| Maker::new(rec.corpus, checkpoint_name(rec.corpus, &h.checkpoint)));
        let so_far = first
            .iter()
            .filter(|c| c.checkpoint == h.checkpoint)
            .count();
        let budget = PER_FAILURE.min(PER_CHECKPOINT.saturating_sub(so_far));
        first.extend(maker.for_tags(&h.tags, &h.same, budget));
    }
    let mut tried: Vec<Tried> = Vec::new();
    let mut recorded: Vec<Case> = Vec::new();
    let mut timed_out = match try_calls(rec, sub, first, &mut tried, &mut recorded) {
        Ok(timed_out) => timed_out,
        Err(e) => {
            let note = format!(
                "not searched: the calls could not be recorded: {}",
                crate::errors::chain(&e)
            );
            return hidden.iter().map(|h| (h.at, none(note.clone()))).collect();
        }
    };
    pick(&mut hidden, &tried, 0);
    // The failures none of those fit get as many calls again, further on
    // in each seed's variants (one more recording).
    if !timed_out {
        let mut more: Vec<Candidate> = Vec::new();
        for h in hidden.iter().filter(|h| h.best.is_none()) {
            let Some(maker) = makers.get_mut(&h.checkpoint) else {
                continue;
            };
            let so_far = more.iter().filter(|c| c.checkpoint == h.checkpoint).count();
            let budget = PER_FAILURE.min(PER_CHECKPOINT.saturating_sub(so_far));
            more.extend(maker.for_tags(&h.tags, &h.same, budget));
        }
        let from = tried.len();
        if !more.is_empty() {
            if let Ok(t) = try_calls(rec, sub, more, &mut tried, &mut recorded) {
                timed_out = t;
                pick(&mut hidden, &tried, from);
            }
        }
    }
    let total = tried.len();
    // A round with a call that timed out is the last: shrinking costs at
    // most a few rounds of quick calls, never rounds of time limits.
    for _ in 0..SHRINK_ROUNDS {
        if timed_out {
            break;
        }
        let from = tried.len();
        let mut smaller = Vec::new();
        for h in &hidden {
            let (Some(best), Some(maker)) = (h.best, makers.get_mut(&h.checkpoint)) else {
                continue;
            };
            smaller.extend(shrunk(maker, &tried[best].candidate, PER_SHRINK));
        }
        if smaller.is_empty() {
            break;
        }
        match try_calls(rec, sub, smaller, &mut tried, &mut recorded) {
            Ok(t) => timed_out = t,
            Err(_) => break,
        }
        pick(&mut hidden, &tried, from);
    }
    hidden
        .iter()
        .map(|h| {
            let search = match h.best {
                Some(best) => {
                    let (_, f) = tried[best].failed.as_ref().expect("a best call failed");
                    CounterexampleSearch {
                        found: Some(Counterexample {
                            call: f.call.clone().unwrap_or_default(),
                            expected: f.expected.clone().unwrap_or_default(),
                            got: f.got.clone(),
                        }),
                        note: None,
                    }
                }
                None => none(format!(
                    "none found among {} calls tried on {}",
                    tried_on(&tried[..total], &h.checkpoint),
                    h.checkpoint
                )),
            };
            (h.at, search)
        })
        .collect()
}

/// How many of `tried` call `checkpoint`.
fn tried_on(tried: &[Tried], checkpoint: &str) -> usize {
    tried
        .iter()
        .filter(|t| t.candidate.checkpoint == checkpoint)
        .count()
}

/// The corpus's spelling of a checkpoint name (the maker borrows it).
fn checkpoint_name<'a>(corpus: &'a Corpus, id: &str) -> &'a str {
    corpus
        .checkpoints()
        .find(|c| c.id == id)
        .map_or("", |c| c.id.as_str())
}

/// Each failed hidden case of `grade`, with the corpus case it is and the
/// visible cases failed the same way.
fn hidden_failures(corpus: &Corpus, grade: &SubmissionGrade) -> Vec<Hidden> {
    let mut out = Vec::new();
    for (i, cp) in grade.checkpoints.iter().enumerate() {
        let cases: Vec<&Case> = corpus
            .cases
            .iter()
            .filter(|c| c.checkpoint == *cp.id)
            .collect();
        // (visibility, case, mistake, index) of each failure of the checkpoint.
        let failed: Vec<(Visibility, &Case, Mistake, usize)> = cp
            .cases
            .iter()
            .enumerate()
            .filter_map(|(k, c)| {
                let (f, case) = (c.failure.as_ref()?, cases.get(k)?);
                let expected =
                    crate::reference::call(&case.checkpoint, &case.args, &case.kwargs).ok()?;
                Some((c.visibility, *case, Mistake::of(&expected, f), k))
            })
            .collect();
        for (visibility, case, mistake, k) in &failed {
            if *visibility != Visibility::Hidden {
                continue;
            }
            let same = failed
                .iter()
                .filter(|(v, _, m, _)| *v == Visibility::Visible && m == mistake)
                .map(|(_, c, ..)| c.id.clone())
                .collect();
            out.push(Hidden {
                at: (i, *k),
                checkpoint: cp.id.to_string(),
                tags: case.tags.clone(),
                mistake: mistake.clone(),
                same,
                best: None,
            });
        }
    }
    out
}

/// Keeps, for each hidden failure, the smallest call of `tried[from..]`
/// (and its best so far) failing the same way; the earliest among equals.
fn pick(hidden: &mut [Hidden], tried: &[Tried], from: usize) {
    let size = |i: usize| tried[i].candidate.call.chars().count();
    for h in hidden {
        for (i, t) in tried.iter().enumerate().skip(from) {
            let same = t.candidate.checkpoint == h.checkpoint
                && t.failed.as_ref().is_some_and(|(m, _)| *m == h.mistake);
            if same && h.best.map_or(true, |b| size(i) < size(b)) {
                h.best = Some(i);
            }
        }
    }
}

/// Records `sub` on `calls` and judges each, appending them to `tried`;
/// `recorded` is every call recorded before (the store keeps their outcomes,
/// so a regrade records none of them again). Whether any call timed out.
fn try_calls(
    rec: &Recorder,
    sub: &Submission,
    calls: Vec<Candidate>,
    tried: &mut Vec<Tried>,
    recorded: &mut Vec<Case>,
) -> Result<bool, RecordError> {
    let expected: Vec<Outcome> = calls
        .iter()
        .map(|c| {
            crate::reference::call(&c.checkpoint, &c.args, &c.kwargs)
                .unwrap_or(Outcome::Raises(crate::value::Exception::ValueError))
        })
        .collect();
    let lesson = |cp: &str| {
        rec.corpus
            .checkpoints()
            .find(|c| c.id == cp)
            .map_or_else(String::new, |c| c.lesson.clone())
    };
    let cases: Vec<Case> = calls
        .iter()
        .enumerate()
        .map(|(i, c)| Case {
            id: format!("{}/counterexample-{}", c.checkpoint, recorded.len() + i),
            name: format!("counterexample-{}", recorded.len() + i),
            lesson: lesson(&c.checkpoint),
            checkpoint: c.checkpoint.clone(),
            call: c.call.clone(),
            args: c.args.clone(),
            kwargs: c.kwargs.clone(),
            lets: Vec::new(),
            tags: Vec::new(),
            visibility: Visibility::Visible,
            weight: 1,
            expect: None,
            note: None,
            file: std::path::PathBuf::from("counterexamples.toml"),
            line: 0,
        })
        .collect();
    let outcomes = record(rec, sub, &cases, recorded)?;
    let mut timed_out = false;
    for (i, ((candidate, expected), case)) in
        calls.into_iter().zip(expected).zip(&cases).enumerate()
    {
        let text = outcomes.get(i);
        let parsed = text.map(CaseOutcome::parse);
        timed_out |= matches!(parsed, Some(Ok(CaseOutcome::Timeout { .. })));
        let verdict = match &parsed {
            Some(Ok(outcome)) => judge_case(&candidate.checkpoint, &expected, Some(outcome)),
            _ => judge_case(&candidate.checkpoint, &expected, None),
        };
        let failed = (!verdict.passed && parsed.as_ref().is_some_and(|p| p.is_ok())).then(|| {
            let f = feedback::failure(case, &expected, &verdict);
            (Mistake::of(&expected, &f), f)
        });
        tried.push(Tried { candidate, failed });
    }
    recorded.extend(cases);
    Ok(timed_out)
}

/// One recording of `sub` on `cases`, in the run's work dir (its own store
/// folder, `counterexamples/`, which keeps `before`'s outcomes too).
fn record(
    rec: &Recorder,
    sub: &Submission,
    cases: &[Case],
    before: &[Case],
) -> Result<Outcomes, RecordError> {
    let corpus = Corpus {
        root: rec.corpus.root.clone(),
        lessons: rec.corpus.lessons.clone(),
        cases: cases.to_vec(),
        fingerprint: rec.corpus.fingerprint.clone(),
        settings: rec.corpus.settings.clone(),
        scoring: rec.corpus.scoring,
        selection: Some(Selection {
            assignments: Vec::new(),
            fingerprint: rec.corpus.fingerprint.clone(),
            others: before.to_vec(),
        }),
    };
    let options = RecordOptions {
        jobs: 1,
        work_dir: rec.options.work_dir.join("counterexamples"),
        show_progress: false,
        ..rec.options.clone()
    };
    let one = std::slice::from_ref(sub);
    let request = Request::new(&corpus, one, &options)
        .tuning(rec.tuning)
        .environment(rec.env);
    let delivered: std::sync::Mutex<Option<runner::Delivered>> = Default::default();
    runner::record(
        &request,
        Sink::Outcomes(&|_, d| {
            if let Ok(mut slot) = delivered.lock() {
                *slot = Some(d);
            }
        }),
    )?;
    let delivered = delivered.into_inner().unwrap_or_else(|e| e.into_inner());
    match delivered {
        Some(Ok((outcomes, _))) => Ok(outcomes),
        Some(Err(e)) => Err(e),
        None => Err(runner::HarnessError::NotRecorded.into()),
    }
}
