//! A hidden failure's counterexample (issue 45) in every student view: the
//! terminal, Markdown, JUnit, HTML and Gradescope show `the same mistake on
//! a call you can try: …` (or why there is none), and the JSON report
//! carries `counterexample` (`{call, expected, got}` or `null` with
//! `counterexample_note`), which reads back as it was written.

use crate::util::grading as support;

use autograder::corpus::{Corpus, Visibility};
use autograder::grade::{self, Audience, Counterexample, CounterexampleSearch, GradeRun};
use autograder::recording::format::CaseOutcome;
use autograder::report;
use std::path::Path;

const CHECKPOINT: &str = "order_tool_results";
const FOUND: &str = "the same mistake on a call you can try: order_tool_results([], [1]): expected raise ValueError, got []";
const NONE: &str = "no call you can try shows the same mistake: none found among 120 calls tried on order_tool_results";

/// The course graded for a submission that crashes on the first two hidden
/// cases of [`CHECKPOINT`], the first with a counterexample, the second
/// with none found (for instructors: the search's result is in the grade).
fn run() -> GradeRun {
    let corpus: Corpus =
        autograder::corpus::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("cases")).unwrap();
    let mut rec = support::perfect_recording(&corpus, "sub");
    let hidden: Vec<_> = corpus
        .cases
        .iter()
        .filter(|c| c.checkpoint == CHECKPOINT && c.visibility == Visibility::Hidden)
        .take(2)
        .collect();
    for case in &hidden {
        rec.outcomes.insert(
            case.id.clone(),
            CaseOutcome::Crashed {
                exit_code: Some(3),
                signal: None,
            },
        );
    }
    let expected = support::expected(&corpus);
    let mut run = grade::grade_recordings(&corpus, &expected, vec![("sub".into(), Ok(rec))]);
    let cp = run.submissions[0]
        .checkpoints
        .iter_mut()
        .find(|c| &*c.id == CHECKPOINT)
        .unwrap();
    let mut failures = cp.cases.iter_mut().filter_map(|c| c.failure.as_mut());
    failures.next().unwrap().counterexample = Some(CounterexampleSearch {
        found: Some(Counterexample {
            call: "order_tool_results([], [1])".into(),
            expected: "raise ValueError".into(),
            got: Some("[]".into()),
        }),
        note: None,
    });
    failures.next().unwrap().counterexample = Some(CounterexampleSearch {
        found: None,
        note: Some("none found among 120 calls tried on order_tool_results".into()),
    });
    run
}

#[test]
fn every_student_view_shows_the_counterexample_or_why_there_is_none() {
    let run = run();
    let student = run.for_audience(Audience::Student);
    let gradescope =
        report::gradescope::render(&run, report::gradescope::Options::default()).unwrap();
    let gradescope: serde_json::Value = serde_json::from_str(&gradescope).unwrap();
    let views = [
        ("terminal", report::terminal::render(&student, false, true)),
        ("markdown", report::markdown::render(&student)),
        ("junit", report::junit::render(&student).unwrap()),
        ("html", report::html::render(&student)),
        ("gradescope", gradescope.to_string()),
    ];
    for (name, text) in views {
        for line in [FOUND, NONE] {
            assert!(text.contains(line), "{name} lacks {line:?}:\n{text}");
        }
    }
}

#[test]
fn the_json_report_carries_the_counterexample_and_reads_it_back() {
    let student = run().for_audience(Audience::Student);
    let v = report::json::to_value(&student);
    let cp = v["submissions"][0]["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == CHECKPOINT)
        .unwrap();
    let failures = cp["failures"].as_array().unwrap();
    assert_eq!(
        failures[0]["counterexample"],
        serde_json::json!({"call": "order_tool_results([], [1])", "expected": "raise ValueError", "got": "[]"})
    );
    assert!(failures[0].get("counterexample_note").is_none());
    assert!(failures[1]["counterexample"].is_null());
    assert!(
        failures[1].get("counterexample").is_some(),
        "null, not absent"
    );
    assert_eq!(
        failures[1]["counterexample_note"],
        "none found among 120 calls tried on order_tool_results"
    );
    // No search made: neither field.
    let plain = report::json::to_value(&support::run().for_audience(Audience::Student));
    assert!(!plain.to_string().contains("counterexample"));
    // Read back (what `merge` does), the same report.
    let text = report::json::render(&student);
    let back = report::read::parse(&text).unwrap();
    assert_eq!(report::json::render(&back), text);
}
