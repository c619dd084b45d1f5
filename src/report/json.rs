//! `--json`: everything, schema `autograder-report/1` (the types in
//! [`super::schema`]), for dashboards and for merging.

use super::schema::{self, Checkpoint, Failure, Report, Submission};
use crate::grade::{Audience, CaseGrade, CheckpointGrade, GradeRun, SubmissionGrade};

pub use super::schema::SCHEMA;

/// The report as JSON text (pretty-printed, ending with a newline).
pub fn render(run: &GradeRun) -> String {
    let mut text = serde_json::to_string_pretty(&report(run)).unwrap_or_default();
    text.push('\n');
    text
}

/// The report as a JSON value.
pub fn to_value(run: &GradeRun) -> serde_json::Value {
    serde_json::to_value(report(run)).unwrap_or_default()
}

/// The report of a run, as the schema's types.
pub fn report(run: &GradeRun) -> Report {
    Report {
        schema: SCHEMA.to_string(),
        audience: run.audience,
        corpus: run.corpus.clone(),
        environment: super::Environment::of(run).map(|e| schema::Environment {
            summary: e.line(),
            isolation: e.isolation,
            python: e.python,
            sandbox: e.sandbox,
        }),
        submissions: run
            .submissions
            .iter()
            .map(|s| submission(s, run.audience))
            .collect(),
        shards: run.shards.clone(),
    }
}

fn submission(s: &SubmissionGrade, audience: Audience) -> Submission {
    Submission {
        id: s.id.clone(),
        status: s.status,
        error: s.error.clone(),
        points: s.points,
        max_points: s.max_points,
        percent: s.percent(),
        recording: s.recording.clone(),
        integrity: (audience == Audience::Instructor).then(|| s.integrity.clone()),
        checkpoints: s.checkpoints.iter().map(checkpoint).collect(),
    }
}

fn checkpoint(c: &CheckpointGrade) -> Checkpoint {
    Checkpoint {
        id: c.id.clone(),
        lesson: c.lesson.clone(),
        score: c.score,
        points: c.points,
        max_points: c.max_points,
        passed: c.passed,
        cases_passed: c.cases_passed,
        cases_total: c.cases_total,
        weight_passed: c.weight_passed,
        weight_total: c.weight_total,
        failures: c.failures().map(|(case, f)| failure(case, f)).collect(),
    }
}

fn failure(c: &CaseGrade, f: &crate::grade::Failure) -> Failure {
    Failure {
        case: c.case.clone(),
        tags: c.tags.clone(),
        visibility: c.visibility,
        weight: c.weight,
        seconds: c.seconds,
        reason: f.reason.clone(),
        brief: f.brief.clone(),
        call: f.call.clone(),
        bindings: f.bindings.clone(),
        source: f.source.clone(),
        expected: f.expected.clone(),
        got: f.got.clone(),
        diff: f.diff.clone(),
        matchers: f.matchers.clone(),
    }
}
