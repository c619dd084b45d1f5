//! `--json`: everything, schema `autograder-report/1` (see
//! `docs/report-format.md`), for dashboards and for merging.

use crate::corpus::Visibility;
use crate::grade::{CaseGrade, CheckpointGrade, GradeRun, SubmissionGrade};
use serde_json::{json, Value};

/// The `schema` field of every JSON report.
pub const SCHEMA: &str = "autograder-report/1";

/// The report as JSON text (pretty-printed, ending with a newline).
pub fn render(run: &GradeRun) -> String {
    let mut text = serde_json::to_string_pretty(&to_value(run)).unwrap_or_default();
    text.push('\n');
    text
}

/// The report as a JSON value.
pub fn to_value(run: &GradeRun) -> Value {
    let mut doc = json!({
        "schema": SCHEMA,
        "audience": run.audience.name(),
        "corpus": {
            "cases": run.corpus.cases,
            "fingerprint": run.corpus.fingerprint,
            "checkpoints": run.corpus.checkpoints.iter().map(|c| json!({
                "id": c.id,
                "lesson": c.lesson,
                "title": c.title,
                "points": c.points,
                "cases": c.cases,
                "weight": c.weight,
                "case_list": c.case_list.iter().map(|k| json!({
                    "case": k.case,
                    "tags": k.tags,
                    "visibility": visibility(k.visibility),
                    "weight": k.weight,
                })).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        },
        "environment": super::Environment::of(run).map(|e| json!({
            "isolation": e.isolation,
            "python": e.python,
            "sandbox": e.sandbox,
            "summary": e.line(),
        })),
        "submissions": run.submissions.iter().map(submission).collect::<Vec<_>>(),
    });
    // Only a partial run (a shard) has it: a whole run's report is unchanged.
    if let (Some(shards), Some(doc)) = (&run.shards, doc.as_object_mut()) {
        doc.insert("shards".into(), json!(shards));
    }
    doc
}

fn submission(s: &SubmissionGrade) -> Value {
    json!({
        "id": s.id,
        "status": s.status.name(),
        "error": s.error,
        "points": s.points,
        "max_points": s.max_points,
        "percent": s.percent(),
        "recording": s.recording.as_ref().map(|r| json!({
            "harness": r.harness,
            "isolation": r.isolation,
            "python": r.python,
            "sandbox": r.sandbox,
            "source_sha256": r.source_sha256,
            "stale": r.stale,
        })),
        "checkpoints": s.checkpoints.iter().map(checkpoint).collect::<Vec<_>>(),
    })
}

fn checkpoint(c: &CheckpointGrade) -> Value {
    json!({
        "id": c.id,
        "lesson": c.lesson,
        "score": c.score,
        "points": c.points,
        "max_points": c.max_points,
        "passed": c.passed,
        "cases_passed": c.cases_passed,
        "cases_total": c.cases_total,
        "weight_passed": c.weight_passed,
        "weight_total": c.weight_total,
        "failures": c.failures().map(|(case, _)| failure(case)).collect::<Vec<_>>(),
    })
}

fn failure(c: &CaseGrade) -> Value {
    let f = c.failure.as_ref();
    json!({
        "case": c.case,
        "tags": c.tags,
        "visibility": visibility(c.visibility),
        "weight": c.weight,
        "seconds": c.seconds,
        "reason": f.map(|f| f.reason.as_str()),
        "brief": f.map(|f| f.brief.as_str()),
        "call": f.and_then(|f| f.call.as_deref()),
        "where": f.map(|f| f.bindings.clone()).unwrap_or_default(),
        "source": f.and_then(|f| f.source.as_deref()),
        "expected": f.and_then(|f| f.expected.as_deref()),
        "got": f.and_then(|f| f.got.as_deref()),
        "diff": f.and_then(|f| f.diff.as_deref()),
    })
}

fn visibility(v: Visibility) -> &'static str {
    match v {
        Visibility::Visible => "visible",
        Visibility::Hidden => "hidden",
    }
}
