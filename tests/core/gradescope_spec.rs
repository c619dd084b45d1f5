//! The Gradescope specification checker (`util::gradescope_spec`) on the
//! library's `results.json` for every fixture recording and layout, and on
//! files broken one rule at a time: each must be caught, so a checker that
//! stopped checking a rule fails here. The built binary's files, for real
//! uploads, are checked in `tests/sandbox/gradescope_results.rs`.

use crate::util::gradescope_spec::{check, checked, hidden_tests};
use crate::util::grading as support;
use autograder::grade::{self, GradeRun};
use autograder::report::gradescope::{render, HiddenVisibility, Options, Tests};

/// Every layout `--gradescope-hidden` and `--gradescope-tests` give.
fn layouts() -> Vec<Options> {
    let mut all = Vec::new();
    for hidden in [HiddenVisibility::Hidden, HiddenVisibility::AfterPublished] {
        for tests in [Tests::Checkpoint, Tests::Case] {
            all.push(Options { hidden, tests });
        }
    }
    all
}

/// The fixture run with only the named submission.
fn only(id: &str) -> GradeRun {
    let corpus = support::corpus();
    let expected = support::expected(&corpus);
    let recs = support::recordings()
        .into_iter()
        .filter(|(i, _)| i == id)
        .collect();
    grade::grade_recordings(&corpus, &expected, recs)
}

#[test]
fn every_fixture_results_json_meets_the_specification() {
    let ids: Vec<String> = support::recordings()
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert!(ids.len() >= 5, "{ids:?}");
    for id in &ids {
        for options in layouts() {
            let text = render(&only(id), options).unwrap();
            let doc = checked(text.as_bytes(), &format!("{id} {options:?}"));
            // A hidden test only where hidden case tests are asked for.
            let asked = options
                == Options {
                    hidden: HiddenVisibility::Hidden,
                    tests: Tests::Case,
                };
            let hidden = hidden_tests(&doc);
            assert!(asked || hidden.is_empty(), "{id} {options:?}: {hidden:?}");
        }
    }
}

/// A file that meets every rule, with hidden tests, failures and the
/// environment test: the start of every broken one below.
fn good() -> String {
    let options = Options {
        hidden: HiddenVisibility::Hidden,
        tests: Tests::Case,
    };
    render(&only("partial"), options).unwrap()
}

/// `good()` with `from` replaced by `to` once (it must be there).
fn broken(from: &str, to: &str) -> Vec<u8> {
    let text = good();
    assert!(text.contains(from), "{from:?} is not in the file");
    text.replacen(from, to, 1).into_bytes()
}

#[test]
fn a_file_breaking_one_rule_is_caught() {
    let text = good();
    checked(text.as_bytes(), "the unbroken file");
    assert!(text.contains("\"status\": \"failed\""), "{text}");
    let first_test = "\"tests\": [\n    {\n";
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "not UTF-8",
            [text.as_bytes(), b"\xff"].concat(),
            "not UTF-8",
        ),
        (
            "NaN",
            broken("\"execution_time\": 0", "\"execution_time\": NaN"),
            "not strict JSON",
        ),
        (
            "Infinity",
            broken("\"execution_time\": 0", "\"execution_time\": Infinity"),
            "not strict JSON",
        ),
        (
            "a key twice",
            broken(
                "\"execution_time\": 0",
                "\"execution_time\": 0, \"execution_time\": 1",
            ),
            "twice",
        ),
        (
            "an unknown field",
            broken(
                "\"execution_time\": 0",
                "\"execution_time\": 0, \"grade\": 1",
            ),
            "unknown top-level field",
        ),
        (
            "a top-level visibility Gradescope does not know",
            broken("\"visibility\": \"visible\"", "\"visibility\": \"public\""),
            "is not one of",
        ),
        (
            "a test's visibility Gradescope does not know",
            broken("\"visibility\": \"hidden\"", "\"visibility\": \"secret\""),
            "is not one of",
        ),
        (
            "an output format Gradescope does not know",
            broken("\"output_format\": \"text\"", "\"output_format\": \"rtf\""),
            "is not one of",
        ),
        (
            "a format this checker has no escaping rule for",
            broken("\"output_format\": \"text\"", "\"output_format\": \"html\""),
            "no escaping rule",
        ),
        (
            "a test's output without its format",
            broken(",\n      \"output_format\": \"text\"", ""),
            "without its output_format",
        ),
        (
            "a raw escape in an output",
            broken("\"output\": \"", "\"output\": \"\\u001b[2J"),
            "unescaped",
        ),
        (
            "a raw escape in a test's name",
            broken(
                &format!("{first_test}      \"name\": \""),
                &format!("{first_test}      \"name\": \"\\u202e"),
            ),
            "name: an unescaped",
        ),
        (
            "a status that contradicts the points",
            broken("\"status\": \"failed\"", "\"status\": \"passed\""),
            "status passed with",
        ),
        (
            "tests that do not add up to the score",
            broken("\"score\": ", "\"score\": 0.5, \"x\": "),
            "add up to",
        ),
        (
            "a negative score",
            broken("\"max_score\": ", "\"max_score\": -1, \"y\": "),
            "not a number of points",
        ),
        (
            "tags that are not strings",
            broken("\"tags\": [", "\"tags\": [1, "),
            "tags are not a list of strings",
        ),
        (
            "no score at all",
            br#"{"output": "x", "output_format": "text", "tests": [{"name": "a"}]}"#.to_vec(),
            "no top-level score",
        ),
        (
            "a test's score above its max_score",
            br#"{"tests": [{"score": 2, "max_score": 1, "status": "passed"}]}"#.to_vec(),
            "above max_score",
        ),
        (
            "a leaderboard row without a name",
            br#"{"score": 0, "leaderboard": [{"value": 1}]}"#.to_vec(),
            "leaderboard row",
        ),
    ];
    for (what, raw, said) in cases {
        match check(&raw) {
            Ok(_) => panic!("{what}: not caught:\n{}", String::from_utf8_lossy(&raw)),
            Err(problems) => assert!(
                problems.iter().any(|p| p.contains(said)),
                "{what}: caught, but not as {said:?}: {problems:?}"
            ),
        }
    }
}

#[test]
fn a_checkpoint_without_cases_is_a_test_in_every_layout() {
    // Every submission gets such a checkpoint's points (`cases` warns of
    // it): one test per case would leave them out of the tests, which then
    // add up to less than the total students are shown.
    let tmp = tempfile::tempdir().unwrap();
    let cases = tmp.path().join("cases");
    for entry in walkdir::WalkDir::new(support::fixture_dir().join("cases")) {
        let entry = entry.unwrap();
        let to = cases.join(
            entry
                .path()
                .strip_prefix(support::fixture_dir().join("cases"))
                .unwrap(),
        );
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    let course = cases.join("course.toml");
    let mut toml = std::fs::read_to_string(&course).unwrap();
    toml.push_str(
        "\n  [[lesson.checkpoint]]\n  function = \"execute_tool\"\n  title = \"Not written yet\"\n  points = 1.0\n",
    );
    std::fs::write(&course, toml).unwrap();
    let corpus = autograder::corpus::load(&cases).unwrap();
    let expected = support::expected(&corpus);
    let recs = support::recordings()
        .into_iter()
        .filter(|(i, _)| i == "partial")
        .collect();
    let run = grade::grade_recordings(&corpus, &expected, recs);
    for options in layouts() {
        let text = render(&run, options).unwrap();
        let doc = checked(text.as_bytes(), &format!("{options:?}"));
        let empty = doc["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "execute_tool")
            .unwrap_or_else(|| panic!("{options:?}: no test for execute_tool"));
        assert_eq!(empty["score"], 1.0, "{options:?}: {empty}");
    }
}
