//! `--json`: everything, schema `autograder-report/1` (the types in
//! [`super::schema`]), for dashboards and for merging. Written as it is
//! made: one submission's case grades at a time (see [`GradeRun::full`]).

use super::schema::{self, Checkpoint, Criterion, Failure, Report, Submission, SCHEMA};
use crate::grade::{
    Audience, CaseGrade, CheckpointGrade, CheckpointInfo, CorpusInfo, GradeRun, SubmissionGrade,
};
use serde::ser::{Serialize, Serializer};
use std::io::Write;

/// The report as JSON text (pretty-printed, ending with a newline).
pub fn render(run: &GradeRun) -> String {
    super::to_string(|w| write(run, w))
}

/// Writes the report (pretty-printed, ending with a newline) into `out`,
/// one submission at a time: a report of any size is never held in memory.
pub fn write(run: &GradeRun, out: &mut dyn Write) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::new(out);
    serde_json::to_writer_pretty(&mut out, &streamed(run))?;
    out.write_all(b"\n")?;
    out.flush()
}

/// The report as a JSON value.
pub fn to_value(run: &GradeRun) -> serde_json::Value {
    serde_json::to_value(report(run)).unwrap_or_default()
}

/// The report of a run, as the schema's types (all in memory: for tests
/// and small runs; [`write`] streams).
pub fn report(run: &GradeRun) -> Report {
    streamed(run).map_submissions(|Submissions(run)| {
        run.full()
            .map(|s| submission(&s, &run.corpus, run.audience))
            .collect()
    })
}

/// The report of a run, its submissions made as they are written.
fn streamed(run: &GradeRun) -> Report<Submissions<'_>> {
    Report {
        schema: SCHEMA.to_string(),
        audience: run.audience,
        corpus: run.corpus.clone(),
        environment: environment(run),
        submissions: Submissions(run),
        shards: run.shards.clone(),
    }
}

fn environment(run: &GradeRun) -> Option<schema::ProvenanceJson> {
    super::Provenance::of(run).map(|e| schema::ProvenanceJson {
        summary: e.line(),
        isolation: e.isolation,
        python: e.python,
        sandbox: e.sandbox,
    })
}

/// A run's submissions as the report's sequence, each made (its case
/// grades read) only as it is serialised.
struct Submissions<'a>(&'a GradeRun);

impl Serialize for Submissions<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let run = self.0;
        s.collect_seq(
            run.full()
                .map(|g| submission(&g, &run.corpus, run.audience)),
        )
    }
}

fn submission(s: &SubmissionGrade, corpus: &CorpusInfo, audience: Audience) -> Submission {
    Submission {
        id: s.id.clone(),
        status: s.status,
        error: s.error.clone(),
        points: s.points,
        max_points: s.max_points,
        percent: s.percent(),
        recording: s.recording.clone(),
        integrity: (audience == Audience::Instructor).then(|| s.integrity.clone()),
        checkpoints: corpus
            .checkpoints
            .iter()
            .zip(&s.checkpoints)
            .map(|(info, c)| checkpoint(info, c))
            .collect(),
    }
}

fn checkpoint(info: &CheckpointInfo, c: &CheckpointGrade) -> Checkpoint {
    Checkpoint {
        id: c.id.to_string(),
        lesson: c.lesson.to_string(),
        score: c.score,
        points: c.points,
        max_points: c.max_points,
        passed: c.passed,
        cases_passed: c.cases_passed,
        cases_total: c.cases_total,
        weight_passed: c.weight_passed,
        weight_total: c.weight_total,
        failures: c.failures().map(|(case, f)| failure(case, f)).collect(),
        criteria: super::criteria(info, c)
            .into_iter()
            .map(|line| Criterion {
                title: line.info.title.clone(),
                points: line.grade.points,
                max_points: line.info.points,
                passed: line.grade.passed,
                cases_passed: line.grade.cases_passed,
                cases_total: line.info.cases.len(),
                failed: line.failed.iter().map(|c| c.case.clone()).collect(),
            })
            .collect(),
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
        counterexample: f.counterexample.as_ref().map(|s| s.found.clone()),
        counterexample_note: f.counterexample.as_ref().and_then(|s| s.note.clone()),
    }
}
