//! Reading a `--json` report (`autograder-report/1`) back into the
//! [`GradeRun`] it was rendered from, so shard reports can be merged and
//! rendered again in every format, byte for byte as a single run would.
//! The report's shape is [`super::schema`]; this adds the checks that its
//! parts fit together and rebuilds the passed cases from `case_list`.

use super::schema::{self, Report, SCHEMA};
use crate::grade::{
    CaseGrade, CheckpointGrade, CheckpointInfo, CorpusInfo, Failure, GradeRun, Status,
    SubmissionGrade,
};
use serde::Deserialize;

/// Why a JSON report cannot be read back.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// (Not a `source`: the message already includes it, and the CLI prints
    /// the chain.)
    #[error("not a JSON report: {0}")]
    Json(serde_json::Error),
    #[error("schema is {found:?}, expected {SCHEMA:?}")]
    Schema { found: String },
    #[error("{0}")]
    Shape(String),
}

impl From<serde_json::Error> for ReadError {
    fn from(e: serde_json::Error) -> Self {
        ReadError::Json(e)
    }
}

#[derive(Deserialize)]
struct Head {
    schema: String,
}

/// Parses a JSON report into the run it describes. Fails on another
/// schema, on a report written before `case_list`/`brief`/`seconds` were
/// added, and on a report whose parts do not fit together.
pub fn parse(text: &str) -> Result<GradeRun, ReadError> {
    let head: Head = serde_json::from_str(text)?;
    if head.schema != SCHEMA {
        return Err(ReadError::Schema { found: head.schema });
    }
    let report: Report = serde_json::from_str(text)?;
    let corpus = report.corpus;
    let submissions = report
        .submissions
        .into_iter()
        .map(|s| submission(&corpus, s))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(GradeRun {
        corpus,
        audience: report.audience,
        submissions,
        shards: report.shards,
        details: Default::default(),
    })
}

fn submission(corpus: &CorpusInfo, s: schema::Submission) -> Result<SubmissionGrade, ReadError> {
    if s.checkpoints.len() != corpus.checkpoints.len() {
        return Err(ReadError::Shape(format!(
            "submission {:?} has {} checkpoints, the corpus {}",
            s.id,
            s.checkpoints.len(),
            corpus.checkpoints.len()
        )));
    }
    let checkpoints = corpus
        .checkpoints
        .iter()
        .zip(s.checkpoints)
        .map(|(info, cp)| checkpoint(&s.id, s.status, info, cp))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(SubmissionGrade {
        id: s.id,
        status: s.status,
        error: s.error,
        points: s.points,
        max_points: s.max_points,
        checkpoints,
        recording: s.recording,
        integrity: s.integrity.unwrap_or_default(),
    })
}

fn checkpoint(
    sub: &str,
    status: Status,
    info: &CheckpointInfo,
    cp: schema::Checkpoint,
) -> Result<CheckpointGrade, ReadError> {
    if cp.id != info.id {
        return Err(ReadError::Shape(format!(
            "submission {sub:?} has checkpoint {:?} where the corpus has {:?}",
            cp.id, info.id
        )));
    }
    // A graded submission has every case of the corpus, an error none.
    let mut cases = Vec::new();
    let mut failures = cp.failures.into_iter().peekable();
    if status == Status::Graded {
        for k in &info.case_list {
            let failure = failures.next_if(|f| f.case == k.case);
            cases.push(CaseGrade {
                case: k.case.clone(),
                id: format!("{}/{}", info.id, k.case),
                tags: k.tags.clone(),
                visibility: k.visibility,
                weight: k.weight,
                passed: failure.is_none(),
                seconds: failure.as_ref().map_or(0.0, |f| f.seconds),
                failure: failure.map(|f| Failure {
                    reason: f.reason,
                    brief: f.brief,
                    call: f.call,
                    bindings: f.bindings,
                    source: f.source,
                    expected: f.expected,
                    got: f.got,
                    diff: f.diff,
                    matchers: f.matchers,
                }),
            });
        }
    }
    if let Some(f) = failures.next() {
        return Err(ReadError::Shape(format!(
            "submission {sub:?}, checkpoint {:?}: failure of case {:?} is not in the corpus's case list (or out of order)",
            cp.id, f.case
        )));
    }
    Ok(CheckpointGrade {
        id: crate::grade::intern(&cp.id),
        lesson: crate::grade::intern(&cp.lesson),
        score: cp.score,
        points: cp.points,
        max_points: cp.max_points,
        passed: cp.passed,
        cases_passed: cp.cases_passed,
        cases_total: cp.cases_total,
        weight_passed: cp.weight_passed,
        weight_total: cp.weight_total,
        cases,
    })
}
