//! Recording the same folder with one worker and with two gives identical
//! outcomes: results are placed by index, never by finishing order.

use crate::util::record as record_support;

use autograder::runner::IsolationChoice;
use record_support::*;

#[test]
fn jobs_1_and_jobs_2_record_identical_outcomes() {
    let corpus = hostile_corpus(
        &fixtures().join("echo/main.py"),
        &fixtures().join(".corpus/course.toml"),
    );
    // Skip the slowest fixtures (timeouts); the rest still mixes crashes,
    // restarts, import errors and normal returns.
    let subs: Vec<_> = hostile_submissions()
        .into_iter()
        .filter(|s| {
            ![
                "infinite-loop",
                "fork-bomb",
                "huge-list",
                "print-100mb",
                "import-loop",
            ]
            .contains(&s.id.as_str())
        })
        .collect();
    let one = tempfile::tempdir().unwrap();
    let two = tempfile::tempdir().unwrap();
    let a = record(
        &corpus,
        &subs,
        &options(one.path(), 1, 2),
        IsolationChoice::Auto,
    );
    let b = record(
        &corpus,
        &subs,
        &options(two.path(), 2, 2),
        IsolationChoice::Auto,
    );
    assert_eq!(a.len(), subs.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.id, y.id);
        let (rx, ry) = (recording(&a, &x.id), recording(&b, &y.id));
        assert_eq!(rx.outcomes, ry.outcomes, "{}", x.id);
        // The stored files agree too (same outcomes, same order).
        let fx = std::fs::read_to_string(autograder::recording::recording_path(one.path(), &x.id))
            .unwrap();
        let fy = std::fs::read_to_string(autograder::recording::recording_path(two.path(), &y.id))
            .unwrap();
        assert_eq!(fx, fy, "{}", x.id);
    }
}
