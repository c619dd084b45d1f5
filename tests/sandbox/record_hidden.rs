//! Hidden inputs never reach a visible result (issue 12, item 5): the
//! harness runs a submission's visible cases first and hands the hidden
//! cases' inputs to its process only once every visible case is answered.
//! A submission that looks for them from a visible case, through the
//! harness's objects, the collector and its own memory, finds nothing, under
//! every tier; the same search from a hidden case finds them (the search
//! works). Outcomes still come back in corpus order, whatever the order the
//! harness ran them in, across crashes in either part.

use crate::util::record as record_support;

use autograder::corpus::Visibility;
use autograder::recording::format::CaseOutcome;
use autograder::submission::discover;
use autograder::value::PyValue;
use record_support::*;
use serde_json::json;
use std::path::Path;

fn smuggle_fixtures() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/smuggle")
}

/// Visible and hidden cases interleaved in corpus order.
fn corpus() -> autograder::corpus::Corpus {
    let mut cases = Vec::new();
    for (name, text, hidden) in [
        ("v1", "first", false),
        ("h1", "HIDDEN-MARKER-7976931348623158e308", true),
        ("v2", "second", false),
        ("h2", "HIDDEN-MARKER-98765432109876543210987654321", true),
        ("v3", "third", false),
    ] {
        let mut c = case("parse_contract_json", name, vec![PyValue::str(text)]);
        if hidden {
            c.visibility = Visibility::Hidden;
        }
        cases.push(c);
    }
    record_support::corpus(cases)
}

fn returned(o: &CaseOutcome) -> serde_json::Value {
    match o {
        CaseOutcome::Returned { value, .. } => value.to_json().unwrap(),
        other => panic!("expected a returned value, got {other:?}"),
    }
}

#[test]
fn no_visible_case_can_see_a_hidden_input_under_any_tier() {
    let corpus = corpus();
    let subs = discover(&smuggle_fixtures()).unwrap();
    for tier in TIERS {
        if !tier_or_skip(tier, "no_visible_case_can_see_a_hidden_input") {
            continue;
        }
        let work = tempfile::tempdir().unwrap();
        let results = record(&corpus, &subs, &options(work.path(), 1, 5), tier);
        let rec = recording(&results, "smuggler");
        // Corpus order, each case with its own input.
        let ids: Vec<&String> = rec.outcomes.keys().collect();
        assert_eq!(ids.len(), 5, "{tier:?}");
        for (case, input) in [("v1", "first"), ("v2", "second"), ("v3", "third")] {
            let value = returned(outcome(rec, &format!("parse_contract_json/{case}")));
            assert_eq!(value["echo"], json!(input), "{tier:?}");
            assert_eq!(
                value["found"],
                json!([]),
                "{tier:?}: visible case {case} saw a hidden input"
            );
        }
        for case in ["h1", "h2"] {
            let value = returned(outcome(rec, &format!("parse_contract_json/{case}")));
            assert!(
                value["echo"]
                    .as_str()
                    .unwrap()
                    .starts_with("HIDDEN-MARKER-"),
                "{tier:?}"
            );
            // The same search, from a hidden case, does find them.
            assert_ne!(value["found"], json!([]), "{tier:?}: the search is blind");
        }
        let crasher = recording(&results, "crasher");
        let crashed = CaseOutcome::Crashed {
            exit_code: Some(5),
            signal: None,
        };
        for (case, want) in [
            ("v1", echo("first")),
            ("h1", crashed.clone()),
            ("v2", crashed.clone()),
            ("h2", echo("HIDDEN-MARKER-98765432109876543210987654321")),
            ("v3", echo("third")),
        ] {
            assert_eq!(
                outcome(crasher, &format!("parse_contract_json/{case}")),
                &want,
                "{tier:?}: {case}"
            );
        }
        say!("hidden inputs under {tier:?}: unseen from the visible cases");
    }
}

/// What one submission leaves in the harness never reaches the next one run
/// by the same worker: every child starts from the zygote's memory (which
/// never holds a source, an outcome or a hidden input), and the long-lived
/// supervisor, which holds them all, cannot be read. `b-seeker`, recorded
/// after `a-secret`, searches its own objects and every process whose
/// memory it can read for `a-secret`'s marker, under every tier; from a hidden case whose own input
/// is the marker, the same search finds it (the search works).
#[test]
fn a_later_submission_finds_nothing_of_an_earlier_one_in_any_process_it_can_read() {
    const MARKER: &str = "EARLIER-SUBMISSION-MARKER-5316027";
    let mut control = case("parse_contract_json", "control", vec![PyValue::str(MARKER)]);
    control.visibility = Visibility::Hidden;
    let corpus = record_support::corpus(vec![
        case("parse_contract_json", "look", vec![PyValue::str("plain")]),
        control,
    ]);
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/leak");
    let subs = discover(&fixtures).unwrap();
    assert_eq!(subs[0].id, "a-secret");
    for tier in TIERS {
        if !tier_or_skip(tier, "a_later_submission_finds_nothing_of_an_earlier_one") {
            continue;
        }
        let work = tempfile::tempdir().unwrap();
        // One worker: a-secret, then b-seeker, in the same harness.
        let results = record(&corpus, &subs, &options(work.path(), 1, 5), tier);
        let secret = returned(outcome(
            recording(&results, "a-secret"),
            "parse_contract_json/look",
        ));
        assert_eq!(secret["secret"], json!(MARKER), "{tier:?}");
        let seeker = recording(&results, "b-seeker");
        let look = returned(outcome(seeker, "parse_contract_json/look"));
        assert_eq!(look["echo"], json!("plain"), "{tier:?}");
        assert_eq!(
            look["found"],
            json!([]),
            "{tier:?}: the earlier submission's marker was readable"
        );
        let control = returned(outcome(seeker, "parse_contract_json/control"));
        assert_ne!(control["found"], json!([]), "{tier:?}: the search is blind");
        say!(
            "under {tier:?}: nothing of the earlier submission found ({} processes' memory readable)",
            look["readable"]
        );
    }
}

/// Student code that replaces builtins (`len`, `type`, `json.loads`: the
/// `monkeypatch` fixture) cannot break how the harness gets its hidden
/// inputs: they arrive prepared, and the child only unmarshals them. (When
/// the child parsed them itself, `json`'s own `len` was the student's and
/// every hidden case was recorded as a crash.)
#[test]
fn hidden_cases_run_whatever_builtins_the_submission_replaced() {
    let corpus = corpus();
    let subs: Vec<_> = hostile_submissions()
        .into_iter()
        .filter(|s| s.id == "monkeypatch")
        .collect();
    assert_eq!(subs.len(), 1);
    let work = tempfile::tempdir().unwrap();
    let results = record(
        &corpus,
        &subs,
        &options(work.path(), 1, 5),
        autograder::runner::IsolationChoice::Rlimits,
    );
    let rec = recording(&results, "monkeypatch");
    for (case, text) in [
        ("v1", "first"),
        ("h1", "HIDDEN-MARKER-7976931348623158e308"),
        ("v2", "second"),
        ("h2", "HIDDEN-MARKER-98765432109876543210987654321"),
        ("v3", "third"),
    ] {
        assert_eq!(
            outcome(rec, &format!("parse_contract_json/{case}")),
            &echo(text),
            "{case}"
        );
    }
}
