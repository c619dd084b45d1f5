//! The grader: every submission's outcomes judged against the reference
//! outcomes, each distinct outcome text once per case (its memo).

use super::details::CaseGradeStorage;
use super::model::{
    intern, Audience, CheckpointGrade, CorpusInfo, Failure, Kept, RecordingInfo, Status,
    SubmissionGrade,
};
use super::run::GradeRun;
use super::score::{error_grade, max_points, score_checkpoint};
use super::{feedback, verdict::judge_case};
use crate::corpus::Corpus;
use crate::recording::case_store::Outcomes;
use crate::recording::format::{CaseOutcome, Recording};
use crate::recording::memo::Memo;
use crate::reference::{self, CallError};
use crate::value::Outcome;
use rayon::prelude::*;
use std::collections::HashMap;

/// Errors that stop grading as a whole (a bad corpus, not a bad submission).
#[derive(Debug, thiserror::Error)]
pub enum GradeError {
    #[error("case {case} ({file}:{line}): the reference core cannot make this call")]
    Reference {
        case: String,
        file: String,
        line: usize,
        #[source]
        error: CallError,
    },
}

/// The reference outcome of every case, in corpus order, computed in parallel
/// (on the current rayon pool) once per corpus.
pub fn expected_outcomes(corpus: &Corpus) -> Result<Vec<Outcome>, GradeError> {
    corpus.cases.par_iter().map(expected_outcome).collect()
}

/// [`expected_outcomes`] on the calling thread alone: beside a harness that
/// is starting (a submission's first case waits on it, not on these), which
/// then keeps the other core to itself.
pub(crate) fn expected_outcomes_on_this_thread(
    corpus: &Corpus,
) -> Result<Vec<Outcome>, GradeError> {
    corpus.cases.iter().map(expected_outcome).collect()
}

fn expected_outcome(case: &crate::corpus::Case) -> Result<Outcome, GradeError> {
    reference::call(&case.checkpoint, &case.args, &case.kwargs).map_err(|error| {
        GradeError::Reference {
            case: case.id.clone(),
            file: case.file.display().to_string(),
            line: case.line,
            error,
        }
    })
}

/// Grades every submission: `recordings` holds each submission's id and its
/// recording, or why it could not be had (graded as status `error`).
/// `expected` is [`expected_outcomes`] of `corpus`. Runs in parallel on the
/// current rayon pool; the result is sorted by submission id, with its case
/// grades in memory (see [`Grader`] for a run of any size).
pub fn grade_recordings(
    corpus: &Corpus,
    expected: &[Outcome],
    recordings: Vec<(String, Result<Recording, String>)>,
) -> GradeRun {
    let grader = Grader::new(corpus, expected);
    let details = CaseGradeStorage::default();
    let submissions: Vec<SubmissionGrade> = recordings
        .into_par_iter()
        .map(|(id, rec)| match rec {
            Ok(rec) => grader.grade(id, &Outcomes::of_recording(corpus, rec), &details),
            Err(why) => grader.error(id, why),
        })
        .collect();
    grader.run(submissions, details)
}

/// What an outcome text judged got: a timeout's seconds, the failure when
/// it failed.
type Judged = (f64, Option<Failure>);

/// How many different outcomes of one case [`Grader`] remembers, and how
/// many bytes in all (memory stays bounded whatever submissions return):
/// shared out evenly between the cases, half for each case's first text,
/// half for its memo.
const MEMO_PER_CASE: usize = 256;
const MEMO_BYTES: usize = 64 << 20;

/// Grades submissions one at a time against one corpus: what every
/// submission needs (the course as reports describe it, the reference
/// outcomes, where each case goes) is made once, and the outcomes already
/// judged are remembered per case, so that the thousandth submission
/// returning the same value as the first is graded by comparing text.
pub struct Grader<'a> {
    corpus: &'a Corpus,
    expected: &'a [Outcome],
    info: CorpusInfo,
    /// Per corpus case: (checkpoint index, index in its case list).
    place: Vec<Option<(usize, u32)>>,
    /// Per corpus case: outcome texts judged, with what they got (a
    /// timeout's seconds, the failure).
    memo: Vec<Memo<Judged>>,
    /// Per corpus case, the first text judged (most often the one most
    /// submissions return), compared before any hashing.
    first: Vec<std::sync::OnceLock<(Box<str>, Judged)>>,
    /// Bytes a case's first text and its failure may hold (roughly).
    first_bytes: usize,
}

impl<'a> Grader<'a> {
    /// `expected` is [`expected_outcomes`] of `corpus`.
    pub fn new(corpus: &'a Corpus, expected: &'a [Outcome]) -> Grader<'a> {
        let info = CorpusInfo::of(corpus);
        let index: HashMap<&str, usize> = info
            .checkpoints
            .iter()
            .enumerate()
            .map(|(i, cp)| (cp.id.as_str(), i))
            .collect();
        let mut next = vec![0u32; info.checkpoints.len()];
        let place = corpus
            .cases
            .iter()
            .map(|case| {
                let &cp = index.get(case.checkpoint.as_str())?;
                next[cp] += 1;
                Some((cp, next[cp] - 1))
            })
            .collect();
        let case_bytes = MEMO_BYTES / 2 / corpus.cases.len().max(1);
        Grader {
            corpus,
            expected,
            place,
            memo: corpus
                .cases
                .iter()
                .map(|_| Memo::new(1, case_bytes, MEMO_PER_CASE))
                .collect(),
            first: corpus.cases.iter().map(|_| Default::default()).collect(),
            first_bytes: case_bytes,
            info,
        }
    }

    /// The course as reports describe it.
    pub fn info(&self) -> &CorpusInfo {
        &self.info
    }

    /// The run made of `submissions` (sorted here by id), whose case grades
    /// `details` kept.
    pub fn run(
        &self,
        mut submissions: Vec<SubmissionGrade>,
        details: CaseGradeStorage,
    ) -> GradeRun {
        submissions.sort_by(|a, b| a.id.cmp(&b.id));
        GradeRun {
            corpus: self.info.clone(),
            audience: Audience::Instructor,
            submissions,
            shards: None,
            details,
        }
    }

    /// A submission that could not be graded (`why`).
    pub fn error(&self, id: String, why: String) -> SubmissionGrade {
        error_grade(&self.info, id, crate::text::escaped(&why))
    }

    /// Grades one submission's outcomes; `details` keeps its case grades
    /// (the returned grade is a summary when it spools them).
    pub fn grade(
        &self,
        id: String,
        outcomes: &Outcomes,
        details: &CaseGradeStorage,
    ) -> SubmissionGrade {
        let mut kept: Kept = self.info.checkpoints.iter().map(|_| Vec::new()).collect();
        // Each case judged on its own, side by side; kept in case order.
        let judged: Vec<_> = self
            .place
            .par_iter()
            .with_min_len(64)
            .enumerate()
            .filter_map(|(i, place)| {
                let (cp, k) = (*place)?;
                let (seconds, failure) = self.case(i, outcomes.get(i));
                (seconds != 0.0 || failure.is_some()).then_some((cp, k, seconds, failure))
            })
            .collect();
        for (cp, k, seconds, failure) in judged {
            kept[cp].push((k, seconds, failure));
        }
        let checkpoints: Vec<CheckpointGrade> = self
            .info
            .checkpoints
            .iter()
            .zip(&kept)
            .map(|(cp, kept)| score_checkpoint(cp, kept, self.info.scoring))
            .collect();
        let summary = SubmissionGrade {
            id,
            status: Status::Graded,
            error: None,
            points: checkpoints.iter().map(|c| c.points).sum(),
            max_points: max_points(&self.info),
            checkpoints,
            recording: Some(RecordingInfo {
                // A shipped recording's words are the student's.
                harness: shown(&outcomes.harness),
                isolation: shown(&outcomes.isolation),
                python: outcomes.python.as_deref().map(shown),
                sandbox: outcomes.sandbox.as_deref().map(shown),
                source_sha256: outcomes.source_sha256.clone(),
                stale: outcomes.stale,
            }),
            integrity: outcomes.integrity.clone(),
        };
        details.keep_parts(&self.info, summary, kept)
    }

    /// Judges case `i`'s outcome `text` ahead of its submission's grade
    /// (while the rest of the submission runs), kept where [`Grader::grade`]
    /// looks first for the same text.
    pub fn judge_ahead(&self, i: usize, text: &str) {
        if i < self.first.len() {
            let _ = self.case(i, Some(text));
        }
    }

    /// Case `i` given its outcome text: (seconds, failure when it failed).
    fn case(&self, i: usize, text: Option<&str>) -> (f64, Option<Failure>) {
        let Some(text) = text else {
            return self.judge(i, None);
        };
        if let Some((t, (seconds, failure))) = self.first[i].get() {
            if &**t == text {
                return (*seconds, failure.clone());
            }
        }
        if let Some(judged) = self.memo[i].recall(text) {
            return judged;
        }
        let judged = self.judge(i, Some(text));
        let bytes = judged.1.as_ref().map_or(0, failure_bytes);
        if text.len() + bytes <= self.first_bytes
            && self.first[i].set((text.into(), judged.clone())).is_ok()
        {
            return judged;
        }
        self.memo[i].remember(text, judged.clone(), bytes);
        judged
    }

    fn judge(&self, i: usize, text: Option<&str>) -> (f64, Option<Failure>) {
        let (case, want) = (&self.corpus.cases[i], &self.expected[i]);
        let recorded = text.map(CaseOutcome::parse);
        let verdict = match &recorded {
            None => judge_case(&case.checkpoint, want, None),
            Some(Ok(outcome)) => judge_case(&case.checkpoint, want, Some(outcome)),
            Some(Err(why)) => super::Verdict::fail(
                format!("the recorded outcome is unreadable: {why}"),
                "unreadable outcome",
            ),
        };
        let seconds = match recorded {
            Some(Ok(CaseOutcome::Timeout { seconds, .. })) if seconds.is_finite() => {
                seconds.max(0.0)
            }
            _ => 0.0,
        };
        let failure = (!verdict.passed).then(|| feedback::failure(case, want, &verdict));
        (seconds, failure)
    }
}

/// About how many bytes a failure holds.
fn failure_bytes(f: &Failure) -> usize {
    let texts = [&f.call, &f.source, &f.expected, &f.got, &f.diff];
    f.reason.len()
        + f.brief.len()
        + texts
            .iter()
            .map(|t| t.as_ref().map_or(0, String::len))
            .sum::<usize>()
        + f.bindings.iter().map(String::len).sum::<usize>()
        + 256
}

/// [`intern`] of `text` as reports may show it ([`crate::text::escaped`]).
fn shown(text: &str) -> std::sync::Arc<str> {
    intern(&crate::text::escaped(text))
}
