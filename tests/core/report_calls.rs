//! A failing call in a report can be run again: when the call is written
//! with `[let]` names (it is too long to spell out), the report shows the
//! bindings it uses and where the case is written (issue 9, item 6).

use crate::util::grading as support;

use autograder::corpus::{self, Case, Corpus, Visibility};
use autograder::grade::{self, feedback::call_text, Audience};
use autograder::recording::format::{CaseOutcome, Recording};
use autograder::report;
use autograder::value::reader::{parse_call, Lets};
use autograder::value::strict_eq;
use std::path::Path;

fn bundled() -> Corpus {
    corpus::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("cases")).expect("the corpus loads")
}

/// Runs a report's bindings and call with the call reader, as a reader of
/// the report would in Python: the arguments it gives.
fn rerun(call: &str, bindings: &[String]) -> autograder::value::reader::Call {
    let mut lets = Lets::new();
    for b in bindings {
        let (name, source) = b.split_once(" = ").expect("a binding is `name = source`");
        lets.define(name, source)
            .unwrap_or_else(|e| panic!("binding {b:?} does not run: {e}"));
    }
    parse_call(call, &lets).unwrap_or_else(|e| panic!("call {call:?} does not run: {e}"))
}

#[test]
fn every_call_a_report_shows_reruns_to_the_same_arguments() {
    let corpus = bundled();
    let mut with_bindings = 0;
    for case in &corpus.cases {
        let shown = call_text(case);
        if shown.call.contains("; the whole call is at ") {
            continue;
        }
        with_bindings += usize::from(!shown.bindings.is_empty());
        let call = rerun(&shown.call, &shown.bindings);
        assert_eq!(call.args.len(), case.args.len(), "{}", case.id);
        for (a, b) in call.args.iter().zip(&case.args) {
            assert!(
                strict_eq(a, b),
                "{}: {} reruns differently",
                case.id,
                shown.call
            );
        }
        for ((ka, a), (kb, b)) in call.kwargs.iter().zip(&case.kwargs) {
            assert!(ka == kb && strict_eq(a, b), "{}", case.id);
        }
    }
    // The bundled corpus has long calls written with lets (the issue counts 26 failures).
    assert!(with_bindings > 0, "no call needed its bindings");
}

/// A recording in which `case` returns None and every other case passes.
fn failing(corpus: &Corpus, case: &Case) -> Recording {
    let mut rec = support::perfect_recording(corpus, "s");
    rec.outcomes.insert(
        case.id.clone(),
        CaseOutcome::Returned {
            value: serde_json::Value::Null.into(),
            shares_with_args: false,
            args_changed: false,
            shares_with_state: false,
            shared: None,
            changed: None,
        },
    );
    rec
}

#[test]
fn reports_show_the_bindings_and_the_case_file_and_line() {
    let corpus = bundled();
    let expected = grade::expected_outcomes(&corpus).unwrap();
    for visibility in [Visibility::Visible, Visibility::Hidden] {
        let case = corpus
            .cases
            .iter()
            .find(|c| c.visibility == visibility && !call_text(c).bindings.is_empty())
            .expect("a case written with lets");
        let shown = call_text(case);
        let run = grade::grade_recordings(
            &corpus,
            &expected,
            vec![("s".into(), Ok(failing(&corpus, case)))],
        );
        let text = report::terminal::render(&run, false, true);
        assert!(
            text.contains(&format!("call:     {}", shown.call)),
            "{}: {text}",
            case.id
        );
        assert!(
            text.contains(&format!("where:    {}", shown.bindings[0])),
            "{}: {text}",
            case.id
        );
        let file = case.file.file_name().unwrap().to_string_lossy();
        assert!(
            text.contains(&format!("case at:  {}/{file}:{}", case.lesson, case.line)),
            "{}: {text}",
            case.id
        );
        let json = report::json::render(&run);
        assert!(json.contains("\"where\": ["), "{json}");
        // Students see visible inputs, never hidden ones.
        let student = report::terminal::render(&run.for_audience(Audience::Student), false, true);
        match visibility {
            Visibility::Visible => {
                assert!(student.contains(&format!("where:    {}", shown.bindings[0])));
                assert!(!student.contains("case at:"), "{student}");
            }
            Visibility::Hidden => {
                assert!(!student.contains("where:") && !student.contains(&shown.call));
                assert!(!student.contains(&shown.bindings[0]));
                assert!(!student.contains("case at:"), "{student}");
            }
        }
    }
}
