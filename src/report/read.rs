//! Reading a `--json` report (`autograder-report/1`) back into the
//! [`GradeRun`] it was rendered from, so shard reports can be merged and
//! rendered again in every format, byte for byte as a single run would.
//! The report's shape is [`super::schema`]; this adds the checks that its
//! parts fit together and rebuilds the passed cases from `case_list`.

use super::schema::{self, SCHEMA};
use crate::corpus::Scoring;
use crate::grade::CaseGradeStorage;
use crate::grade::{
    CheckpointGrade, CheckpointInfo, CorpusInfo, CriterionGrade, Failure, GradeRun, Status,
    SubmissionGrade,
};
use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};

/// Why a JSON report cannot be read back.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("not a JSON report")]
    Json(#[source] serde_json::Error),
    #[error("schema is {found:?}, expected {SCHEMA:?}")]
    Schema { found: String },
    #[error("\"submissions\" comes before \"corpus\"")]
    SubmissionsBeforeCorpus,
    #[error("submission {submission:?} has {found} checkpoints, the corpus {expected}")]
    CheckpointCount {
        submission: String,
        found: usize,
        expected: usize,
    },
    #[error(
        "submission {submission:?} has checkpoint {found:?} where the corpus has {expected:?}"
    )]
    CheckpointOrder {
        submission: String,
        found: String,
        expected: String,
    },
    #[error("submission {submission:?}, checkpoint {checkpoint:?} has {found} criteria, the corpus {expected}")]
    CriteriaCount {
        submission: String,
        checkpoint: String,
        found: usize,
        expected: usize,
    },
    #[error("submission {submission:?}, checkpoint {checkpoint:?}: failure of case {case:?} is not in the corpus's case list (or out of order)")]
    UnknownFailure {
        submission: String,
        checkpoint: String,
        case: String,
    },
}

impl From<serde_json::Error> for ReadError {
    fn from(e: serde_json::Error) -> Self {
        ReadError::Json(e)
    }
}

/// Parses a JSON report into the run it describes, in memory (see
/// [`read`]).
pub fn parse(text: &str) -> Result<GradeRun, ReadError> {
    read(text.as_bytes(), &CaseGradeStorage::default())
}

/// Reads a JSON report into the run it describes, one submission at a
/// time: `details` keeps each one's case grades (spooled, the run holds
/// summaries only, so a large shard's report is never held whole). Fails
/// on another schema, on a report written before `case_list`/`brief`/
/// `seconds` were added, on a report whose parts do not fit together, and
/// on one whose `corpus` does not come before its `submissions` (as this
/// grader writes them).
pub fn read(reader: impl std::io::Read, details: &CaseGradeStorage) -> Result<GradeRun, ReadError> {
    let problem = std::cell::RefCell::new(None);
    let seed = ReportSeed {
        details,
        problem: &problem,
    };
    let mut de = serde_json::Deserializer::from_reader(std::io::BufReader::new(reader));
    let result = seed
        .deserialize(&mut de)
        .and_then(|run| de.end().map(|_| run));
    match (result, problem.into_inner()) {
        (_, Some(problem)) => Err(problem),
        (Ok(run), None) => Ok(run),
        (Err(e), None) => Err(ReadError::Json(e)),
    }
}

/// Why the report was refused, when it is more than a JSON error.
type Problem = std::cell::RefCell<Option<ReadError>>;

/// Notes `problem` and makes the error that stops the parser.
fn refuse<E: serde::de::Error>(slot: &Problem, problem: ReadError) -> E {
    let message = problem.to_string();
    *slot.borrow_mut() = Some(problem);
    E::custom(message)
}

/// Reads a report field by field, its submissions one at a time.
struct ReportSeed<'a> {
    details: &'a CaseGradeStorage,
    problem: &'a Problem,
}

impl<'de> DeserializeSeed<'de> for ReportSeed<'_> {
    type Value = GradeRun;

    fn deserialize<D: serde::Deserializer<'de>>(self, de: D) -> Result<GradeRun, D::Error> {
        de.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ReportSeed<'_> {
    type Value = GradeRun;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON report")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<GradeRun, A::Error> {
        let (mut schema, mut audience, mut corpus) = (None, None, None);
        let (mut submissions, mut shards) = (None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "schema" => {
                    let found: String = map.next_value()?;
                    if found != SCHEMA {
                        return Err(refuse(self.problem, ReadError::Schema { found }));
                    }
                    schema = Some(found);
                }
                "audience" => audience = Some(map.next_value()?),
                "corpus" => {
                    let mut info = map.next_value::<CorpusInfo>()?;
                    // Written before criteria: those its cases' tags make.
                    for cp in &mut info.checkpoints {
                        if cp.criteria.is_empty() {
                            cp.criteria = cp.criteria_by_tags();
                        }
                    }
                    corpus = Some(info);
                }
                "shards" => shards = map.next_value()?,
                "submissions" => {
                    let Some(corpus) = &corpus else {
                        let why = ReadError::SubmissionsBeforeCorpus;
                        return Err(refuse(self.problem, why));
                    };
                    submissions = Some(map.next_value_seed(SubmissionsSeed {
                        corpus,
                        details: self.details,
                        problem: self.problem,
                    })?);
                }
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        schema.ok_or_else(|| A::Error::missing_field("schema"))?;
        Ok(GradeRun {
            corpus: corpus.ok_or_else(|| A::Error::missing_field("corpus"))?,
            audience: audience.ok_or_else(|| A::Error::missing_field("audience"))?,
            submissions: submissions.ok_or_else(|| A::Error::missing_field("submissions"))?,
            shards,
            details: self.details.clone(),
        })
    }
}

/// A report's `submissions`, each kept by `details` as it is read.
struct SubmissionsSeed<'a> {
    corpus: &'a CorpusInfo,
    details: &'a CaseGradeStorage,
    problem: &'a Problem,
}

impl<'de> DeserializeSeed<'de> for SubmissionsSeed<'_> {
    type Value = Vec<SubmissionGrade>;

    fn deserialize<D: serde::Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        de.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for SubmissionsSeed<'_> {
    type Value = Vec<SubmissionGrade>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list of submissions")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(s) = seq.next_element::<schema::Submission>()? {
            match submission(self.corpus, s) {
                Ok(full) => out.push(self.details.keep(full)),
                Err(problem) => return Err(refuse(self.problem, problem)),
            }
        }
        Ok(out)
    }
}

fn submission(corpus: &CorpusInfo, s: schema::Submission) -> Result<SubmissionGrade, ReadError> {
    if s.checkpoints.len() != corpus.checkpoints.len() {
        return Err(ReadError::CheckpointCount {
            submission: s.id.clone(),
            found: s.checkpoints.len(),
            expected: corpus.checkpoints.len(),
        });
    }
    let checkpoints = corpus
        .checkpoints
        .iter()
        .zip(s.checkpoints)
        .map(|(info, cp)| checkpoint(&s.id, s.status, corpus.scoring, info, cp))
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
    scoring: Scoring,
    info: &CheckpointInfo,
    cp: schema::Checkpoint,
) -> Result<CheckpointGrade, ReadError> {
    if cp.id != info.id {
        return Err(ReadError::CheckpointOrder {
            submission: sub.to_string(),
            found: cp.id.clone(),
            expected: info.id.clone(),
        });
    }
    // A graded submission has every case of the corpus, an error none.
    let mut kept = Vec::new();
    let mut failures = cp.failures.into_iter().peekable();
    if status == Status::Graded {
        for (k, case) in info.case_list.iter().enumerate() {
            if let Some(f) = failures.next_if(|f| f.case == case.case) {
                let failure = Failure {
                    reason: f.reason,
                    brief: f.brief,
                    call: f.call,
                    bindings: f.bindings,
                    source: f.source,
                    expected: f.expected,
                    got: f.got,
                    diff: f.diff,
                    matchers: f.matchers,
                    counterexample: schema::counterexample_search(
                        f.counterexample,
                        f.counterexample_note,
                    ),
                };
                kept.push((k as u32, f.seconds, Some(failure)));
            }
        }
    }
    let cases = match status {
        Status::Graded => crate::grade::cases_of(info, kept),
        Status::Error => Vec::new(),
    };
    let criteria: Vec<CriterionGrade> = cp
        .criteria
        .iter()
        .map(|c| CriterionGrade {
            passed: c.passed,
            points: c.points,
            cases_passed: c.cases_passed,
        })
        .collect();
    if scoring == Scoring::Criteria && criteria.len() != info.criteria.len() {
        return Err(ReadError::CriteriaCount {
            submission: sub.to_string(),
            checkpoint: cp.id.clone(),
            found: criteria.len(),
            expected: info.criteria.len(),
        });
    }
    if let Some(f) = failures.next() {
        return Err(ReadError::UnknownFailure {
            submission: sub.to_string(),
            checkpoint: cp.id.clone(),
            case: f.case.clone(),
        });
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
        criteria,
    })
}
