//! Reading a `--json` report (`autograder-report/1`) back into the
//! [`GradeRun`] it was rendered from, so shard reports can be merged and
//! rendered again in every format, byte for byte as a single run would.

use super::json::SCHEMA;
use crate::corpus::Visibility;
use crate::grade::{
    Audience, CaseGrade, CaseInfo, CheckpointGrade, CheckpointInfo, CorpusInfo, Failure, GradeRun,
    RecordingInfo, Shards, Status, SubmissionGrade,
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

#[derive(Deserialize)]
struct Report {
    audience: AudienceWire,
    corpus: CorpusWire,
    submissions: Vec<SubmissionWire>,
    /// Only in a partial run's report (a shard).
    #[serde(default)]
    shards: Option<Shards>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum AudienceWire {
    Instructor,
    Student,
}

#[derive(Deserialize)]
struct CorpusWire {
    cases: usize,
    fingerprint: String,
    checkpoints: Vec<CheckpointInfoWire>,
}

#[derive(Deserialize)]
struct CheckpointInfoWire {
    id: String,
    lesson: String,
    title: String,
    points: f64,
    cases: usize,
    weight: u64,
    /// Added within `autograder-report/1`; reports from before it cannot be merged.
    case_list: Vec<CaseInfoWire>,
}

#[derive(Deserialize)]
struct CaseInfoWire {
    case: String,
    tags: Vec<String>,
    visibility: Visibility,
    weight: u32,
}

#[derive(Deserialize)]
struct SubmissionWire {
    id: String,
    status: StatusWire,
    error: Option<String>,
    points: f64,
    max_points: f64,
    recording: Option<RecordingWire>,
    checkpoints: Vec<CheckpointWire>,
}

#[derive(Deserialize, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
enum StatusWire {
    Graded,
    Error,
}

#[derive(Deserialize)]
struct RecordingWire {
    harness: String,
    isolation: String,
    #[serde(default)]
    python: Option<String>,
    #[serde(default)]
    sandbox: Option<String>,
    source_sha256: Option<String>,
    stale: bool,
}

#[derive(Deserialize)]
struct CheckpointWire {
    id: String,
    lesson: String,
    score: f64,
    points: f64,
    max_points: f64,
    passed: bool,
    cases_passed: usize,
    cases_total: usize,
    weight_passed: u64,
    weight_total: u64,
    failures: Vec<FailureWire>,
}

#[derive(Deserialize)]
struct FailureWire {
    case: String,
    seconds: f64,
    reason: String,
    brief: String,
    call: Option<String>,
    /// Added within `autograder-report/1`: absent from older reports.
    #[serde(default, rename = "where")]
    bindings: Vec<String>,
    #[serde(default)]
    source: Option<String>,
    expected: Option<String>,
    got: Option<String>,
    diff: Option<String>,
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
    let corpus = corpus(report.corpus);
    let submissions = report
        .submissions
        .into_iter()
        .map(|s| submission(&corpus, s))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(GradeRun {
        corpus,
        audience: match report.audience {
            AudienceWire::Instructor => Audience::Instructor,
            AudienceWire::Student => Audience::Student,
        },
        submissions,
        shards: report.shards,
    })
}

fn corpus(c: CorpusWire) -> CorpusInfo {
    CorpusInfo {
        cases: c.cases,
        fingerprint: c.fingerprint,
        checkpoints: c
            .checkpoints
            .into_iter()
            .map(|cp| CheckpointInfo {
                id: cp.id,
                lesson: cp.lesson,
                title: cp.title,
                points: cp.points,
                cases: cp.cases,
                weight: cp.weight,
                case_list: cp
                    .case_list
                    .into_iter()
                    .map(|k| CaseInfo {
                        case: k.case,
                        tags: k.tags,
                        visibility: k.visibility,
                        weight: k.weight,
                    })
                    .collect(),
            })
            .collect(),
    }
}

fn submission(corpus: &CorpusInfo, s: SubmissionWire) -> Result<SubmissionGrade, ReadError> {
    if s.checkpoints.len() != corpus.checkpoints.len() {
        return Err(ReadError::Shape(format!(
            "submission {:?} has {} checkpoints, the corpus {}",
            s.id,
            s.checkpoints.len(),
            corpus.checkpoints.len()
        )));
    }
    let status = match s.status {
        StatusWire::Graded => Status::Graded,
        StatusWire::Error => Status::Error,
    };
    let checkpoints = corpus
        .checkpoints
        .iter()
        .zip(s.checkpoints)
        .map(|(info, cp)| checkpoint(&s.id, status, info, cp))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(SubmissionGrade {
        id: s.id,
        status,
        error: s.error,
        points: s.points,
        max_points: s.max_points,
        checkpoints,
        recording: s.recording.map(|r| RecordingInfo {
            harness: r.harness,
            isolation: r.isolation,
            python: r.python,
            sandbox: r.sandbox,
            source_sha256: r.source_sha256,
            stale: r.stale,
        }),
    })
}

fn checkpoint(
    sub: &str,
    status: Status,
    info: &CheckpointInfo,
    cp: CheckpointWire,
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
        id: cp.id,
        lesson: cp.lesson,
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
