//! A submission stopped by its wall budget for all its cases (not by one
//! case's own time limit) is recorded as such, and its reason says so
//! (issue 9, item 9).

use crate::util::record as record_support;

use autograder::grade::judge;
use autograder::recording::format::CaseOutcome;
use autograder::runner::{RecordOptions, Request, Tuning};
use autograder::submission::discover;
use autograder::value::{Outcome, PyValue};
use record_support::*;
use std::time::Duration;

#[test]
fn the_submission_budget_names_itself() {
    let subs_dir = tempfile::tempdir().unwrap();
    let dir = subs_dir.path().join("loops");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("main.py"),
        "def parse_contract_json(text):\n    while True:\n        pass\n",
    )
    .unwrap();
    let subs = discover(subs_dir.path()).unwrap();
    let corpus = corpus(
        ["a", "b", "c"]
            .into_iter()
            .map(|n| case("parse_contract_json", n, vec![PyValue::str(n)]))
            .collect(),
    );
    let work = tempfile::tempdir().unwrap();
    let opts = RecordOptions {
        case_timeout: Duration::from_secs(1),
        ..options(work.path(), 1, 1)
    };
    // Each case burns its 1 s: the 1.5 s budget cannot hold all three.
    let tuning = Tuning {
        wall_limit: Some(Duration::from_millis(1500)),
        ..Tuning::default()
    };
    let results = Request::new(&corpus, &subs, &opts)
        .tuning(&tuning)
        .recordings()
        .unwrap_or_else(|e| panic!("the grader could not record: {e}"));
    let rec = recording(&results, "loops");
    for id in ["a", "b", "c"] {
        let o = outcome(rec, &format!("parse_contract_json/{id}"));
        assert!(
            matches!(o, CaseOutcome::Timeout { seconds, .. } if *seconds == 1.0),
            "{id}: {o:?}"
        );
    }
    // Two cases of 1 s never fit in 1.5 s: the last one is the budget's.
    let last = outcome(rec, "parse_contract_json/c");
    assert_eq!(
        last,
        &CaseOutcome::Timeout {
            seconds: 1.0,
            submission_budget: Some(1.5)
        }
    );
    let verdict = judge(&Outcome::Returns(PyValue::None), Some(last));
    assert_eq!(
        verdict.reason.as_deref(),
        Some("timed out: the submission's time budget ran out (1.5 s for all its cases; 1 s per case)")
    );
}
