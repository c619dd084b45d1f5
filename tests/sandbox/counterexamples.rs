//! Issue 45: the bundled submissions graded lesson by lesson for students
//! get, for their failed hidden cases, a fresh call failing the same way.
//! Checked here by the library, not by eye: the call is no hidden input,
//! the reference core gives the expected outcome shown, the submission's
//! own outcome on it (run again, on its own) fails the same way; at least
//! 80% of the hidden failures carry one, the others say none was found,
//! and a search made again shows the same calls.

use crate::util::record::{self as record_support, tier_name, tier_or_skip, TIERS};
use crate::util::tier::{runs, Tier};
use crate::util::TestCommand;
use autograder::corpus::{Case, Corpus, Visibility};
use autograder::counterexample::candidates::TRIVIAL_REPR_CHARS;
use autograder::grade::feedback::{expected_text, spelled, VALUE_CHARS};
use autograder::submission::discover;
use autograder::text::{cut, escaped};
use autograder::value::reader::parse_call;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const LESSONS: [&str; 4] = [
    "json-contract",
    "tool-proposals",
    "tool-results",
    "function-calling",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Grades the bundled submissions for `lesson` as students see them; the
/// JSON report.
fn grade(tier: &str, lesson: &str, work: &Path, json: &Path) -> Value {
    let out = TestCommand::new()
        .env("AUTOGRADER_ISOLATION", tier)
        .arg("grade")
        .arg(root().join("submissions"))
        .arg("--cases")
        .arg(root().join("cases"))
        .args(["--assignment", lesson, "--audience", "student", "--quiet"])
        .arg("--work-dir")
        .arg(work)
        .arg("--json")
        .arg(json)
        .output();
    assert!(
        out.status.code() == Some(0),
        "{lesson}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap()
}

/// One failed hidden case: (submission, checkpoint, its failure entry).
type Hidden = (String, String, Value);

fn hidden_failures(report: &Value) -> Vec<Hidden> {
    let mut out = Vec::new();
    for s in report["submissions"].as_array().unwrap() {
        for cp in s["checkpoints"].as_array().unwrap() {
            for f in cp["failures"].as_array().unwrap() {
                if f["visibility"] == "hidden" {
                    let id = s["id"].as_str().unwrap().to_string();
                    out.push((id, cp["id"].as_str().unwrap().to_string(), f.clone()));
                }
            }
        }
    }
    out
}

/// The counterexamples of a report, in order (`null` for none found).
fn counterexamples(report: &Value) -> Vec<Value> {
    hidden_failures(report)
        .into_iter()
        .map(|(_, _, f)| f["counterexample"].clone())
        .collect()
}

/// Checks one counterexample against the corpus: the call reads back, names
/// the checkpoint, is no visible or hidden case's call and holds no hidden
/// argument; the reference core's outcome is the `expected` shown.
fn check_call(corpus: &Corpus, checkpoint: &str, found: &Value) -> Case {
    let call = found["call"].as_str().unwrap();
    let read = parse_call(call, &Default::default())
        .unwrap_or_else(|e| panic!("{call} does not read back: {e}"));
    assert_eq!(read.function, checkpoint, "{call}");
    assert!(read.lets.is_empty(), "{call} names bindings");
    let spelled_call = spelled(checkpoint, &read.args, &read.kwargs);
    for case in corpus.cases.iter().filter(|c| c.checkpoint == checkpoint) {
        assert_ne!(
            spelled_call,
            spelled(checkpoint, &case.args, &case.kwargs),
            "{call} is the {:?} case {}",
            case.visibility,
            case.id
        );
        if case.visibility == Visibility::Hidden {
            for arg in case.args.iter().chain(case.kwargs.iter().map(|(_, v)| v)) {
                let text = autograder::value::repr::repr(arg);
                let also_visible = corpus.cases.iter().any(|v| {
                    v.visibility == Visibility::Visible
                        && spelled(&v.checkpoint, &v.args, &v.kwargs).contains(&text)
                });
                assert!(
                    text.chars().count() < TRIVIAL_REPR_CHARS
                        || also_visible
                        || !spelled_call.contains(&text),
                    "{call} holds {text}, an argument of the hidden case {}",
                    case.id
                );
            }
        }
    }
    let expected = autograder::reference::call(checkpoint, &read.args, &read.kwargs).unwrap();
    assert_eq!(
        found["expected"].as_str().unwrap(),
        escaped(&cut(&expected_text(&expected), VALUE_CHARS)),
        "{call}: the reference core's outcome"
    );
    let mut case = record_support::case(checkpoint, "counterexample", read.args);
    case.kwargs = read.kwargs;
    case.call = call.to_string();
    case
}

#[test]
fn hidden_failures_of_the_bundled_submissions_get_counterexamples() {
    if !runs(Tier::Heavy) {
        return;
    }
    let Some(choice) = TIERS
        .into_iter()
        .find(|&t| tier_or_skip(t, "counterexamples"))
    else {
        return;
    };
    let tier = tier_name(choice);
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    let course = autograder::corpus::load(&root().join("cases")).unwrap();
    let submissions = discover(&root().join("submissions")).unwrap();
    let (mut total, mut with) = (0, 0);
    let mut reports = BTreeMap::new();
    for lesson in LESSONS {
        let report = grade(
            tier,
            lesson,
            &work,
            &tmp.path().join(format!("{lesson}.json")),
        );
        let corpus = course.clone().select(&[lesson.to_string()], &[]).unwrap();
        // Each submission's counterexamples, run again on their own.
        let mut calls: BTreeMap<String, Vec<(Case, String)>> = BTreeMap::new();
        for (sub, checkpoint, f) in hidden_failures(&report) {
            total += 1;
            let found = &f["counterexample"];
            if found.is_null() {
                let note = f["counterexample_note"].as_str().unwrap_or_default();
                assert!(note.starts_with("none found among"), "{sub}: {f}");
                continue;
            }
            with += 1;
            let case = check_call(&corpus, &checkpoint, found);
            let brief = f["brief"].as_str().unwrap().to_string();
            calls.entry(sub).or_default().push((case, brief));
        }
        for (sub, cases) in calls {
            let submission: Vec<_> = submissions
                .iter()
                .filter(|s| s.id == sub)
                .cloned()
                .collect();
            let mut unique: Vec<Case> = Vec::new();
            for (case, _) in &cases {
                if !unique.iter().any(|u| u.call == case.call) {
                    let mut case = case.clone();
                    case.name = format!("c{}", unique.len());
                    case.id = format!("{}/{}", case.checkpoint, case.name);
                    unique.push(case);
                }
            }
            let again = record_support::corpus(unique.clone());
            let opts = record_support::options(&tmp.path().join("again"), 1, 2);
            let recorded = record_support::record(&again, &submission, &opts, choice);
            let rec = record_support::recording(&recorded, &sub);
            for (case, brief) in &cases {
                let id = &unique.iter().find(|u| u.call == case.call).unwrap().id;
                let outcome = record_support::outcome(rec, id);
                let expected =
                    autograder::reference::call(&case.checkpoint, &case.args, &case.kwargs)
                        .unwrap();
                let verdict = autograder::grade::verdict::judge_case(
                    &case.checkpoint,
                    &expected,
                    Some(outcome),
                );
                assert!(!verdict.passed, "{sub}: {} passes", case.call);
                assert_eq!(
                    verdict.brief.as_deref(),
                    Some(brief.as_str()),
                    "{sub}: {} fails otherwise than its hidden case",
                    case.call
                );
            }
        }
        reports.insert(lesson, report);
    }
    let share = with as f64 / total as f64;
    eprintln!(
        "counterexamples: {with} of {total} hidden failures ({:.0}%)",
        100.0 * share
    );
    assert!(total > 0 && share >= 0.8, "{with} of {total}");
    // Searched again from scratch (the graded outcomes kept): the same calls.
    std::fs::remove_dir_all(work.join("counterexamples")).unwrap();
    for lesson in LESSONS {
        let again = grade(
            tier,
            lesson,
            &work,
            &tmp.path().join(format!("{lesson}-again.json")),
        );
        assert_eq!(
            counterexamples(&again),
            counterexamples(&reports[lesson]),
            "{lesson}: a regrade shows other counterexamples"
        );
    }
}
