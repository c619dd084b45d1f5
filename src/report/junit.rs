//! `--junit`: JUnit XML as GitLab, dorny/test-reporter and Jenkins read it,
//! valid against the Jenkins xunit plugin's `junit-10.xsd`. One
//! `<testsuite>` per checkpoint per submission (`<submission>/<checkpoint>`),
//! one `<testcase>` per case (`classname` = `<submission>.<checkpoint>`,
//! `name` = the case id), `<failure message="reason">` with the reason and
//! the details in its body. A submission in error is one suite
//! `<submission>` with one `<testcase name="recording">` carrying an
//! `<error>` whose message and body say why.
//!
//! Times come from the recordings (the limit for a timed-out case, else 0),
//! summed per suite and for the whole report, so the bytes are reproducible.
//! The document is a set of serde types serialised by quick-xml: only the
//! elements and attributes the schema knows.

use super::{failure_details, text};
use crate::grade::{GradeRun, Status};
use serde::Serialize;

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

/// The report as XML text.
pub fn render(run: &GradeRun) -> Result<String, quick_xml::SeError> {
    let mut suites = Vec::new();
    for s in &run.submissions {
        let id = text::xml(&s.id);
        if s.status == Status::Error {
            let why = text::xml(&format!(
                "submission not gradable: {}",
                s.error.as_deref().unwrap_or("")
            ));
            suites.push(TestSuite::new(
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
            ));
            continue;
        }
        for cp in &s.checkpoints {
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
            suites.push(TestSuite::new(format!("{id}/{}", cp.id), cases));
        }
    }
    let doc = TestSuites {
        // A partial run says so where every reader shows it: the report's name.
        name: match &run.shards {
            Some(shards) => format!("autograder ({})", shards.note()),
            None => "autograder".to_string(),
        },
        tests: suites.iter().map(|s| s.tests).sum(),
        failures: suites.iter().map(|s| s.failures).sum(),
        errors: suites.iter().map(|s| s.errors).sum(),
        time: Seconds(suites.iter().map(|s| s.time.0).sum()),
        testsuite: suites,
    };
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let mut ser = quick_xml::se::Serializer::new(&mut out);
    ser.indent(' ', 4);
    doc.serialize(ser)?;
    out.push('\n');
    Ok(out)
}
