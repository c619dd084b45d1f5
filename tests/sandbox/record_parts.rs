//! Outcomes the supervisor sends ahead of its answer (parts) are the ones
//! its answer would have held, across a crash and a child started again,
//! and an answer that changes every outcome (a later child's import error)
//! replaces what the parts held. Run under every tier.

use crate::util::record as record_support;

use autograder::recording::format::CaseOutcome;
use autograder::runner::limits::HARNESS;
use autograder::value::PyValue;
use num_bigint::BigInt;
use record_support::*;

/// More cases than two parts hold.
fn cases() -> usize {
    2 * HARNESS.part_cases + 100
}

fn corpus_of(n: usize) -> autograder::corpus::Corpus {
    corpus(
        (0..n)
            .map(|i| {
                case(
                    "f",
                    &format!("c{i:04}"),
                    vec![PyValue::Int(BigInt::from(i))],
                )
            })
            .collect(),
    )
}

fn submission(dir: &std::path::Path, source: &str) -> Vec<autograder::submission::Submission> {
    let sub = dir.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("main.py"), source).unwrap();
    autograder::submission::discover(dir).unwrap()
}

/// The case past the first part where the child crashes.
fn crash_at() -> usize {
    HARNESS.part_cases + 50
}

fn record_one(
    source: &str,
    tier: autograder::runner::IsolationChoice,
) -> autograder::recording::format::Recording {
    let n = cases();
    let corpus = corpus_of(n);
    let subs_dir = tempfile::tempdir().unwrap();
    let subs = submission(subs_dir.path(), source);
    let work = tempfile::tempdir().unwrap();
    let results = record(&corpus, &subs, &options(work.path(), 1, 5), tier);
    let rec = recording(&results, "sub").clone();
    assert_eq!(rec.outcomes.len(), n);
    rec
}

#[test]
fn parts_hold_what_the_answer_would() {
    let crash = crash_at();
    let source = format!(
        "import os\n\
         def f(i):\n\
         \x20   if i == {crash}:\n\
         \x20       os._exit(3)\n\
         \x20   if i % 7 == 0:\n\
         \x20       raise ValueError('seven %d' % i)\n\
         \x20   return i * 2\n"
    );
    for tier in TIERS {
        if !tier_or_skip(tier, "parts_hold_what_the_answer_would") {
            continue;
        }
        let rec = record_one(&source, tier);
        for i in 0..cases() {
            let got = outcome(&rec, &format!("f/c{i:04}"));
            match got {
                CaseOutcome::Crashed { .. } => assert_eq!(i, crash, "{tier:?}"),
                CaseOutcome::Raised { class, message, .. } => {
                    assert!(i % 7 == 0 && i != crash, "{tier:?} case {i}: {got:?}");
                    assert_eq!(
                        (class.as_str(), message.clone()),
                        ("ValueError", format!("seven {i}"))
                    );
                }
                CaseOutcome::Returned { value, .. } => {
                    assert!(i % 7 != 0 && i != crash, "{tier:?} case {i}: {got:?}");
                    assert_eq!(value.text(), (2 * i).to_string(), "{tier:?} case {i}");
                }
                other => panic!("{tier:?} case {i}: {other:?}"),
            }
        }
    }
}

#[test]
fn an_import_error_after_parts_is_every_outcome() {
    // The second child (after the crash) cannot import: every outcome is
    // that import error, those sent in parts before it too.
    let crash = crash_at();
    let source = format!(
        "import os\n\
         MARK = os.path.join(os.path.dirname(os.getcwd()), 'crashed')\n\
         if os.path.exists(MARK):\n\
         \x20   raise ImportError('imported again')\n\
         def f(i):\n\
         \x20   if i == {crash}:\n\
         \x20       open(MARK, 'w').close()\n\
         \x20       os._exit(3)\n\
         \x20   return i\n"
    );
    for tier in TIERS {
        if !tier_or_skip(tier, "an_import_error_after_parts_is_every_outcome") {
            continue;
        }
        let rec = record_one(&source, tier);
        for i in 0..cases() {
            match outcome(&rec, &format!("f/c{i:04}")) {
                CaseOutcome::ImportError {
                    exc_type, message, ..
                } => {
                    assert_eq!(
                        (exc_type.as_str(), message.as_str()),
                        ("ImportError", "imported again"),
                        "{tier:?}"
                    );
                }
                other => panic!("{tier:?} case {i}: {other:?}"),
            }
        }
    }
}
