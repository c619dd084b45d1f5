//! `--junit`: JUnit XML as GitLab and dorny/test-reporter read it. One
//! `<testsuite>` per checkpoint per submission (`<submission>/<checkpoint>`),
//! one `<testcase>` per case (`classname` = `<submission>.<checkpoint>`,
//! `name` = the case id), `<failure message="reason">` with the details.
//! A submission in error is one suite `<submission>` with one `<testcase
//! name="recording">` carrying an `<error>`.

use super::failure_details;
use crate::grade::{GradeRun, Status};
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use std::time::Duration;

/// The report as XML text.
pub fn render(run: &GradeRun) -> Result<String, quick_junit::SerializeError> {
    // A partial run says so where every reader shows it: the report's name.
    let mut report = Report::new(match &run.shards {
        Some(shards) => format!("autograder ({})", shards.note()),
        None => "autograder".to_string(),
    });
    for s in &run.submissions {
        if s.status == Status::Error {
            let mut suite = TestSuite::new(s.id.as_str());
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
            status.set_message(format!(
                "submission not gradable: {}",
                s.error.as_deref().unwrap_or("")
            ));
            let mut tc = TestCase::new("recording", status);
            tc.set_classname(s.id.as_str());
            tc.set_time(Duration::ZERO);
            suite.add_test_case(tc);
            report.add_test_suite(suite);
            continue;
        }
        for cp in &s.checkpoints {
            let mut suite = TestSuite::new(format!("{}/{}", s.id, cp.id));
            for case in &cp.cases {
                let status = match &case.failure {
                    None => TestCaseStatus::success(),
                    Some(f) => {
                        let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
                        st.set_message(f.reason.as_str());
                        let mut body = vec![f.reason.clone()];
                        body.push(format!("tags: {}", case.tags.join(", ")));
                        body.extend(failure_details(f));
                        st.set_description(body.join("\n"));
                        st
                    }
                };
                let mut tc = TestCase::new(case.case.as_str(), status);
                tc.set_classname(format!("{}.{}", s.id, cp.id));
                tc.set_time(Duration::try_from_secs_f64(case.seconds).unwrap_or(Duration::ZERO));
                suite.add_test_case(tc);
            }
            report.add_test_suite(suite);
        }
    }
    report.to_string()
}
