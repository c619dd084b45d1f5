//! `--junit`: JUnit XML as GitLab, dorny/test-reporter and Jenkins read it,
//! valid against the Jenkins xunit plugin's `junit-10.xsd`. One
//! `<testsuite>` per checkpoint per submission (`<submission>/<checkpoint>`),
//! one `<testcase>` per case (`classname` = `<submission>.<checkpoint>`,
//! `name` = the case id), `<failure message="reason">` with the reason and
//! the details in its body. A submission in error is one suite
//! `<submission>` with one `<testcase name="recording">` carrying an
//! `<error>` whose message and body say why.
//!
//! Under the `criteria` policy a checkpoint's testcases are its criteria
//! instead (`name` = the criterion's title): a criterion fails when one of
//! its cases does, and its failure lists them.
//!
//! Times come from the recordings (the limit for a timed-out case, else 0),
//! summed per suite and for the whole report, so the bytes are reproducible.
//! The document is a set of serde types serialised by quick-xml: only the
//! elements and attributes the schema knows.

use super::failure_details;
use crate::corpus::Scoring;
use crate::grade::{GradeRun, Status, SubmissionGrade};
use crate::text;
use serde::Serialize;
use std::io::Write;

/// `<testsuites>`.
#[derive(Serialize)]
#[serde(rename = "testsuites")]
struct TestSuites {
    #[serde(rename = "@name")]
    name: String,
    #[serde(rename = "@tests")]
    tests: usize,
    #[serde(rename = "@failures")]
    failures: usize,
    #[serde(rename = "@errors")]
    errors: usize,
    #[serde(rename = "@time")]
    time: Seconds,
    testsuite: Vec<TestSuite>,
}

#[derive(Serialize)]
struct TestSuite {
    #[serde(rename = "@name")]
    name: String,
    #[serde(rename = "@tests")]
    tests: usize,
    #[serde(rename = "@failures")]
    failures: usize,
    #[serde(rename = "@errors")]
    errors: usize,
    #[serde(rename = "@time")]
    time: Seconds,
    testcase: Vec<TestCase>,
}

#[derive(Serialize)]
struct TestCase {
    #[serde(rename = "@name")]
    name: String,
    #[serde(rename = "@classname")]
    classname: String,
    #[serde(rename = "@time")]
    time: Seconds,
    #[serde(skip_serializing_if = "Option::is_none")]
    failure: Option<Problem>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<Problem>,
}

/// A `<failure>` or `<error>`: the reason as `message` (what one-line
/// readers show) and again, with the details, as the body (what GitLab
/// shows).
#[derive(Serialize)]
struct Problem {
    #[serde(rename = "@message")]
    message: String,
    #[serde(rename = "$text")]
    body: String,
}

/// Seconds with three decimals, as the schema's `SUREFIRE_TIME` wants.
struct Seconds(f64);

impl Serialize for Seconds {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let x = if self.0.is_finite() && self.0 > 0.0 {
            self.0
        } else {
            0.0
        };
        s.serialize_str(&format!("{x:.3}"))
    }
}

impl TestSuite {
    fn new(name: String, testcase: Vec<TestCase>) -> TestSuite {
        TestSuite {
            name,
            tests: testcase.len(),
            failures: testcase.iter().filter(|c| c.failure.is_some()).count(),
            errors: testcase.iter().filter(|c| c.error.is_some()).count(),
            time: Seconds(testcase.iter().map(|c| c.time.0).sum()),
            testcase,
        }
    }
}

/// Why the JUnit report could not be written.
#[derive(Debug, thiserror::Error)]
pub enum JunitError {
    #[error(transparent)]
    Xml(#[from] quick_xml::SeError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The report as XML text.
pub fn render(run: &GradeRun) -> Result<String, JunitError> {
    let mut bytes = Vec::new();
    write(run, &mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The suites of one submission: one per checkpoint, or one `recording`
/// error for a submission that was not graded.
fn suites_of(run: &GradeRun, s: &SubmissionGrade) -> Vec<TestSuite> {
    let id = text::xml(&s.id);
    if s.status == Status::Error {
        let why = text::xml(&format!(
            "submission not gradable: {}",
            s.error.as_deref().unwrap_or("")
        ));
        return vec![TestSuite::new(
            id.clone(),
            vec![TestCase {
                name: "recording".into(),
                classname: id,
                time: Seconds(0.0),
                failure: None,
                error: Some(Problem {
                    message: why.clone(),
                    body: why,
                }),
            }],
        )];
    }
    s.checkpoints
        .iter()
        .zip(&run.corpus.checkpoints)
        .map(|(cp, info)| {
            if run.corpus.scoring == Scoring::Criteria {
                let criteria = super::criteria(info, cp)
                    .into_iter()
                    .map(|line| criterion_case(&id, &cp.id, &line))
                    .collect();
                return TestSuite::new(format!("{id}/{}", cp.id), criteria);
            }
            let cases = cp
                .cases
                .iter()
                .map(|case| TestCase {
                    name: text::xml(&case.case),
                    classname: format!("{id}.{}", cp.id),
                    time: Seconds(case.seconds),
                    failure: case.failure.as_ref().map(|f| {
                        let mut body = vec![f.reason.clone()];
                        body.push(format!("tags: {}", case.tags.join(", ")));
                        body.extend(failure_details(f));
                        Problem {
                            message: text::xml(&f.reason),
                            body: text::xml(&body.join("\n")),
                        }
                    }),
                    error: None,
                })
                .collect();
            TestSuite::new(format!("{id}/{}", cp.id), cases)
        })
        .collect()
}

/// A criterion as a `<testcase>`: failed when one of its cases did, its
/// failure naming them (visible ones first) with their reasons.
fn criterion_case(id: &str, checkpoint: &str, line: &super::CriterionLine) -> TestCase {
    let failure = (!line.grade.passed).then(|| {
        let message = format!(
            "{} of {} cases failed: {}",
            line.failed.len(),
            line.info.cases.len(),
            line.failed_names(super::FIRST_FAILURES)
        );
        let mut body = vec![message.clone()];
        for c in &line.failed {
            let reason = c.failure.as_ref().map_or("", |f| f.reason.as_str());
            body.push(format!("✗ {}: {reason}", super::case_label(c)));
        }
        Problem {
            message: text::xml(&message),
            body: text::xml(&body.join("\n")),
        }
    });
    TestCase {
        name: text::xml(&line.info.title),
        classname: format!("{id}.{checkpoint}"),
        time: Seconds(line.failed.iter().map(|c| c.seconds).sum()),
        failure,
        error: None,
    }
}

/// One `<testsuite>` as it sits inside `<testsuites>` (indented one level).
fn suite_xml(suite: &TestSuite) -> Result<String, quick_xml::SeError> {
    #[derive(Serialize)]
    #[serde(rename = "x")]
    struct One<'a> {
        testsuite: &'a TestSuite,
    }
    let mut out = String::new();
    let mut ser = quick_xml::se::Serializer::new(&mut out);
    ser.indent(' ', 4);
    One { testsuite: suite }.serialize(ser)?;
    // `<x>\n    <testsuite ...>...</testsuite>\n</x>`: the middle, as is.
    let inner = out
        .strip_prefix("<x>")
        .and_then(|o| o.strip_suffix("\n</x>"))
        .unwrap_or_default();
    Ok(inner.to_string())
}

/// Writes the report into `out`: a first pass over the case grades adds
/// up the counts and times the root element carries, a second writes each
/// submission's suites as it reads them (one submission at a time).
pub fn write(run: &GradeRun, out: &mut dyn std::io::Write) -> Result<(), JunitError> {
    let (mut tests, mut failures, mut errors, mut time, mut any) = (0, 0, 0, 0.0, false);
    for s in run.full() {
        for suite in suites_of(run, &s) {
            tests += suite.tests;
            failures += suite.failures;
            errors += suite.errors;
            time += suite.time.0;
            any = true;
        }
    }
    let root = TestSuites {
        // A partial run says so where every reader shows it: the report's name.
        name: match &run.shards {
            Some(shards) => format!("autograder ({})", shards.note()),
            None => "autograder".to_string(),
        },
        tests,
        failures,
        errors,
        time: Seconds(time),
        testsuite: Vec::new(),
    };
    let mut head = String::new();
    root.serialize(quick_xml::se::Serializer::new(&mut head))?;
    let mut out = std::io::BufWriter::new(out);
    out.write_all(b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")?;
    match head.strip_suffix("/>") {
        Some(open) if any => {
            out.write_all(open.as_bytes())?;
            out.write_all(b">")?;
            for s in run.full() {
                for suite in suites_of(run, &s) {
                    out.write_all(suite_xml(&suite)?.as_bytes())?;
                }
            }
            out.write_all(b"\n</testsuites>\n")?;
        }
        _ => {
            out.write_all(head.as_bytes())?;
            out.write_all(b"\n")?;
        }
    }
    out.flush()?;
    Ok(())
}
