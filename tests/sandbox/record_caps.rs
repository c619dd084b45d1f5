//! What one submission may put in a recording, through the real harness:
//! a list of 199,990 zeros from every case (the pen test's 5.4 GB of
//! grader memory), and 40 MB class names and messages. The grader's peak
//! memory is read from /proc/self/status (VmHWM), as record_attacks does.

use crate::util::record as record_support;

use autograder::grade::{expected_outcomes, grade_recordings, Status};
use autograder::recording::format::CaseOutcome;
use autograder::runner::{IsolationChoice, RecordError};
use autograder::submission::{discover, Submission};
use autograder::value::PyValue;
use record_support::*;
use std::path::PathBuf;

fn fixtures() -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/caps")
}

fn submissions() -> Vec<Submission> {
    discover(&fixtures()).expect("the caps fixtures are readable")
}

/// 170 cases of one function: 170 × 400 KB of zeros is over the 64 MiB one
/// submission may record, 170 × 100 KB under it.
fn many_cases() -> autograder::corpus::Corpus {
    corpus(
        (0..170)
            .map(|i| {
                case(
                    "parse_contract_json",
                    &format!("c{i}"),
                    vec![PyValue::str(&format!("c{i}"))],
                )
            })
            .collect(),
    )
}

/// This process's peak resident memory, in bytes.
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

/// The first tier that runs here: what is measured is the grader's side,
/// the same under every tier (record_attacks runs each tier's own attacks).
fn a_tier() -> Option<IsolationChoice> {
    TIERS
        .into_iter()
        .find(|&t| tier_or_skip(t, "huge_outcomes_keep_the_grader_small"))
}

#[test]
fn huge_outcomes_keep_the_grader_small() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Heavy) {
        return;
    }
    // It reads this process's peak memory: no other test may share it.
    if crate::util::process::ran_alone(module_path!(), "huge_outcomes_keep_the_grader_small") {
        return;
    }
    let Some(tier) = a_tier() else { return };
    let corpus = many_cases();
    let subs = submissions();
    let work = tempfile::tempdir().unwrap();
    let before = peak_rss();
    let results = record(&corpus, &subs, &options(work.path(), 2, 10), tier);
    let expected = expected_outcomes(&corpus).unwrap();
    let run = grade_recordings(
        &corpus,
        &expected,
        results
            .into_iter()
            .map(|r| (r.id, r.result.map_err(|e| e.to_string())))
            .collect(),
    );
    let grown = peak_rss().saturating_sub(before);
    say!(
        "recording and grading {} submissions of huge outcomes took {} MiB more memory",
        run.submissions.len(),
        grown >> 20
    );
    // Held as serde_json trees (as before the caps), the zeros alone took
    // 80 bytes a zero: 170 × 16 MB.
    assert!(
        grown < 600 << 20,
        "recording and grading took {} MiB more memory",
        grown >> 20
    );
    let by_id = |id: &str| run.submissions.iter().find(|s| s.id == id).unwrap();
    // Over the total: refused, for that submission only.
    let over = by_id("zeros-every-case");
    assert_eq!(over.status, Status::Error);
    let error = over.error.as_deref().unwrap();
    assert!(
        error.contains("more than the 64 MiB one submission may record"),
        "{error}"
    );
    // Under it: graded, every failure's text cut.
    let under = by_id("zeros-under-cap");
    assert_eq!(under.status, Status::Graded);
    let failures: Vec<_> = under
        .checkpoints
        .iter()
        .flat_map(|c| c.failures())
        .collect();
    assert_eq!(failures.len(), 170);
    for (_, f) in &failures {
        let got = f.got.as_deref().unwrap();
        assert!(got.ends_with("… (149000 more characters)"), "{got}");
        assert!(f.reason.chars().count() < 200, "{}", f.reason);
    }
    // 40 MB class names and messages: cut by the harness and again here.
    let names = by_id("huge-names");
    assert_eq!(names.status, Status::Graded, "{:?}", names.error);
    for (_, f) in names.checkpoints.iter().flat_map(|c| c.failures()) {
        for text in [&f.reason, &f.brief]
            .into_iter()
            .chain(&f.got)
            .chain(&f.diff)
        {
            assert!(text.chars().count() <= 7000, "{}", text.len());
        }
    }
}

#[test]
fn a_refused_submission_is_not_the_graders_fault() {
    let e = RecordError::TooLarge("x".into());
    assert!(!e.is_grader_fault());
    // And a submission's cases read back from its stored recording have
    // their text within the caps.
    let Some(tier) = a_tier() else { return };
    let corpus = corpus(vec![case(
        "parse_contract_json",
        "c0",
        vec![PyValue::str("c0")],
    )]);
    let subs: Vec<Submission> = submissions()
        .into_iter()
        .filter(|s| s.id == "huge-names")
        .collect();
    let work = tempfile::tempdir().unwrap();
    let results = record(&corpus, &subs, &options(work.path(), 1, 10), tier);
    match outcome(recording(&results, "huge-names"), "parse_contract_json/c0") {
        CaseOutcome::Raised {
            class,
            mro,
            message,
        } => {
            assert!(class.chars().count() <= 200 + 40, "{}", class.len());
            assert!(mro.iter().all(|m| m.chars().count() <= 401 + 40));
            assert!(mro.contains(&"ValueError".to_string()));
            assert!(message.chars().count() <= 1024 + 40, "{}", message.len());
        }
        other => panic!("{other:?}"),
    }
}
