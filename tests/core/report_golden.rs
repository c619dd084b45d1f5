//! Every report format on the fixture corpus and recordings, compared byte
//! for byte with golden files (`UPDATE_GOLDEN=1 cargo test --test core`
//! rewrites them), plus structural checks of each format.

use crate::util::grading as support;

use autograder::corpus::Scoring;
use autograder::grade::{self, Audience, GradeRun};
use autograder::report;
use autograder::report::gradescope::{HiddenVisibility, Options, Tests};
use serde_json::Value;
use std::collections::HashSet;

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
fn terminal_golden() {
    let run = support::run();
    let text = report::terminal::render(&run, false, true);
    assert!(!text.contains('\x1b'));
    support::check_golden("terminal.txt", &text);
    let student = report::terminal::render(&run.for_audience(Audience::Student), false, true);
    support::check_golden("terminal-student.txt", &student);
}

#[test]
fn terminal_colours_only_on_request() {
    let run = support::run();
    let coloured = report::terminal::render(&run, true, true);
    assert!(coloured.contains("✓\x1b[0m"));
    assert!(coloured.contains("\x1b[31m"));
    // Without the escapes it is the same text.
    let plain = report::terminal::render(&run, false, true);
    let stripped = coloured
        .replace("\x1b[32m", "")
        .replace("\x1b[31m", "")
        .replace("\x1b[1m", "")
        .replace("\x1b[0m", "");
    assert_eq!(stripped, plain);
}

#[test]
fn json_golden_and_schema() {
    let run = support::run();
    let text = report::json::render(&run);
    support::check_golden("report.json", &text);
    // The schema's types describe the whole file: read into them and
    // written again, it is the same bytes (no field unknown to them).
    let typed: report::schema::Report = serde_json::from_str(&text).unwrap();
    let mut again = serde_json::to_string_pretty(&typed).unwrap();
    again.push('\n');
    assert!(again == text, "the schema types lose or reorder fields");
    assert_eq!(typed, report::json::report(&run));
    assert_eq!(typed.submissions.len(), 5);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["schema"], "autograder-report/1");
    assert_eq!(v["corpus"]["cases"], 8);
    assert!(v["corpus"]["fingerprint"].is_string());
    let subs = v["submissions"].as_array().unwrap();
    assert_eq!(subs.len(), 5);
    for s in subs {
        for key in [
            "id",
            "status",
            "error",
            "points",
            "max_points",
            "checkpoints",
        ] {
            assert!(s.get(key).is_some(), "submission lacks {key}");
        }
        assert!(matches!(s["status"].as_str(), Some("graded" | "error")));
        for c in s["checkpoints"].as_array().unwrap() {
            for key in [
                "id",
                "lesson",
                "score",
                "passed",
                "cases_passed",
                "cases_total",
                "failures",
            ] {
                assert!(c.get(key).is_some(), "checkpoint lacks {key}");
            }
            for f in c["failures"].as_array().unwrap() {
                for key in ["case", "tags", "reason", "expected", "got", "diff"] {
                    assert!(f.get(key).is_some(), "failure lacks {key}");
                }
            }
        }
    }
    let broken = subs.iter().find(|s| s["id"] == "broken").unwrap();
    assert_eq!(broken["status"], "error");
    assert!(broken["error"].as_str().unwrap().contains("EOF"));
}

#[test]
fn csv_golden() {
    let run = support::run();
    let text = report::csv::render(&run).unwrap();
    support::check_golden("gradebook.csv", &text);
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        header,
        [
            "id",
            "status",
            "parse_contract_json",
            "validate_tool_call",
            "order_tool_results",
            "total",
            "max",
            "integrity"
        ]
    );
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), run.submissions.len());
    let model = rows.iter().find(|r| &r[0] == "model").unwrap();
    assert_eq!((&model[5], &model[6], &model[7]), ("4", "4", "0"));
    // A student's gradebook has no integrity column.
    let student = report::csv::render(&run.for_audience(Audience::Student)).unwrap();
    assert!(student.starts_with(
        "id,status,parse_contract_json,validate_tool_call,order_tool_results,total,max\n"
    ));
}

#[test]
fn junit_golden_parses_with_unique_cases() {
    let run = support::run();
    let xml = report::junit::render(&run).unwrap();
    support::check_golden("junit.xml", &xml);
    support::assert_valid_junit(&xml);
    let doc = roxmltree::Document::parse(&xml).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let suites: Vec<_> = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    // Every suite and the whole report have a time (readers that sum
    // missing times show NaN): the recorded times, added up.
    assert_eq!(root.attribute("time"), Some("2.000"));
    for suite in &suites {
        let time = suite.attribute("time").expect("a testsuite time");
        let sum: f64 = suite
            .children()
            .filter(|n| n.has_tag_name("testcase"))
            .map(|c| c.attribute("time").unwrap().parse::<f64>().unwrap())
            .sum();
        assert_eq!(time, format!("{sum:.3}"));
    }
    // A submission that was not graded says why in the error's body too
    // (GitLab shows the body, not the message).
    let error = root
        .descendants()
        .find(|n| n.has_tag_name("error"))
        .unwrap();
    let message = error.attribute("message").unwrap();
    assert!(
        message.starts_with("submission not gradable: "),
        "{message}"
    );
    assert_eq!(error.text(), Some(message));
    // 4 graded submissions × 3 checkpoints + 1 suite for the broken one.
    assert_eq!(suites.len(), 4 * 3 + 1);
    assert!(suites
        .iter()
        .any(|s| s.attribute("name") == Some("partial/order_tool_results")));
    let mut seen = HashSet::new();
    let mut failures = 0;
    for case in root.descendants().filter(|n| n.has_tag_name("testcase")) {
        let key = (
            case.attribute("classname").unwrap().to_string(),
            case.attribute("name").unwrap().to_string(),
        );
        assert!(seen.insert(key.clone()), "duplicate testcase {key:?}");
        assert!(case.attribute("time").is_some());
        if let Some(f) = case.children().find(|n| n.has_tag_name("failure")) {
            failures += 1;
            assert!(!f.attribute("message").unwrap_or("").is_empty());
        }
    }
    assert_eq!(seen.len(), 4 * 8 + 1);
    let expected_failures: usize = run
        .submissions
        .iter()
        .flat_map(|s| &s.checkpoints)
        .map(|c| c.failures().count())
        .sum();
    assert_eq!(failures, expected_failures);
    // The diff travels in the failure body.
    let object = root
        .descendants()
        .find(|n| {
            n.attribute("classname") == Some("partial.parse_contract_json")
                && n.attribute("name") == Some("object")
        })
        .unwrap();
    let body = object
        .children()
        .find(|n| n.has_tag_name("failure"))
        .and_then(|f| f.text())
        .unwrap();
    assert!(body.contains("--- expected\n+++ got"), "{body}");
    // The timed-out case carries its recorded time.
    let timed = root
        .descendants()
        .find(|n| {
            n.attribute("classname") == Some("partial.order_tool_results")
                && n.attribute("name") == Some("shuffled")
        })
        .unwrap();
    assert_eq!(timed.attribute("time"), Some("2.000"));
}

#[test]
fn junit_validates_for_every_kind_of_run() {
    let run = support::run();
    support::assert_valid_junit(
        &report::junit::render(&run.for_audience(Audience::Student)).unwrap(),
    );
    // A partial run, and ids and reasons holding markup, quotes and
    // characters XML cannot carry.
    let mut odd = run.clone();
    odd.shards = Some(grade::HeldShards {
        held: vec![1, 3],
        of: 3,
        submissions: 9,
    });
    for s in &mut odd.submissions {
        s.id = format!("{}<&\"'\u{1b}]0;x\u{7}\u{ffff}", s.id);
        if let Some(e) = &mut s.error {
            e.push_str(" <b>\u{0}\u{8}");
        }
        for case in s.checkpoints.iter_mut().flat_map(|c| c.cases.iter_mut()) {
            if let Some(f) = &mut case.failure {
                f.reason.push_str(" \u{1}]]>&amp;");
            }
        }
    }
    let xml = report::junit::render(&odd).unwrap();
    support::assert_valid_junit(&xml);
    let doc = roxmltree::Document::parse(&xml).expect("well-formed XML");
    assert_eq!(
        doc.root_element().attribute("name"),
        Some("autograder (partial: shards 1, 3 of 3 (6 of 9 submissions))")
    );
    assert!(doc.descendants().any(|n| n.attribute("name")
        == Some("mixed<&\"'\u{fffd}]0;x\u{fffd}\u{fffd}/parse_contract_json")));
}

#[test]
fn markdown_golden() {
    let run = support::run();
    support::check_golden("summary.md", &report::markdown::render(&run));
}

/// Gradescope with one test per case.
fn per_case(hidden: HiddenVisibility) -> Options {
    Options {
        hidden,
        tests: Tests::Case,
    }
}

#[test]
fn gradescope_tests_are_checkpoints_by_default() {
    let text = report::gradescope::render(&only("partial"), Options::default()).unwrap();
    support::check_golden("gradescope-partial-checkpoints.json", &text);
    let v: Value = serde_json::from_str(&text).unwrap();
    let tests = v["tests"].as_array().unwrap();
    let names: Vec<&str> = tests.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "parse_contract_json",
            "validate_tool_call",
            "order_tool_results",
        ]
    );
    // No hidden test, so Gradescope shows students their total; the
    // environment is in extra_data.
    assert!(tests.iter().all(|t| t["visibility"] != "hidden"));
    assert!(v["extra_data"]["sandbox"].as_str().is_some());
    let score: f64 = tests.iter().map(|t| t["score"].as_f64().unwrap()).sum();
    let max: f64 = tests.iter().map(|t| t["max_score"].as_f64().unwrap()).sum();
    assert_eq!(score, v["score"].as_f64().unwrap());
    assert_eq!(max, v["max_score"].as_f64().unwrap());
    // The first failures of the checkpoint, the visible ones in full; the
    // hidden ones counted, never shown.
    let parse = tests[0]["output"].as_str().unwrap();
    // The hidden failures counted in the same line as all of them.
    assert!(
        parse.starts_with(
            "3 of 3 cases failed, 1 of its 1 hidden case (hidden cases show no input)\n"
        ),
        "{parse}"
    );
    assert!(parse.contains("call:     parse_contract_json("), "{parse}");
    assert!(!parse.contains("NaN"), "{parse}");
}

#[test]
fn gradescope_says_an_import_error_once_at_the_top() {
    let run = only("syntax-error");
    let reason = autograder::report::common_reason(&run.submissions[0])
        .expect("every case fails with the import error")
        .to_string();
    for tests in [Tests::Checkpoint, Tests::Case] {
        let options = Options {
            tests,
            ..Options::default()
        };
        let text = report::gradescope::render(&run, options).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        let top = v["output"].as_str().unwrap();
        // Once, as nothing having run, and no checkpoint listed one by one.
        let why = reason.strip_prefix("main.py did not import: ").unwrap();
        let said = format!("main.py did not import, so none of its cases could run: {why}");
        assert!(
            top.starts_with(&format!("0 of 4 points.\n\n{said}\n")),
            "{top}"
        );
        assert!(!top.contains("your checkpoints"), "{top}");
        // Said once in the whole file: the tests only point at it.
        assert_eq!(
            text.matches(&serde_json::to_string(&said).unwrap()[1..said.len() - 1])
                .count(),
            1,
            "{tests:?}: {text}"
        );
        for t in v["tests"].as_array().unwrap() {
            let out = t["output"].as_str().unwrap();
            assert!(out.len() < 80, "{tests:?}: {out}");
        }
    }
}

#[test]
fn gradescope_golden_and_fields() {
    let run = only("partial");
    let text = report::gradescope::render(&run, per_case(HiddenVisibility::Hidden)).unwrap();
    support::check_golden("gradescope-partial.json", &text);
    let v: Value = serde_json::from_str(&text).unwrap();
    for key in [
        "score",
        "max_score",
        "execution_time",
        "output",
        "visibility",
        "stdout_visibility",
        "tests",
    ] {
        assert!(v.get(key).is_some(), "results.json lacks {key}");
    }
    let tests = v["tests"].as_array().unwrap();
    // One per case, then the instructors-only environment line.
    assert_eq!(tests.len(), 9);
    let env = &tests[8];
    assert_eq!(env["name"], report::gradescope::ENVIRONMENT_TEST);
    assert_eq!(env["visibility"], "hidden");
    assert_eq!(env["max_score"], 0.0);
    assert_eq!(env["output"], v["extra_data"]["sandbox"]);
    assert!(env["output"].as_str().unwrap().starts_with("sandbox: "));
    let mut total = 0.0;
    for t in tests {
        for key in [
            "name",
            "number",
            "score",
            "max_score",
            "status",
            "output",
            "tags",
            "visibility",
        ] {
            assert!(t.get(key).is_some(), "test lacks {key}");
        }
        assert!(matches!(t["status"].as_str(), Some("passed" | "failed")));
        total += t["score"].as_f64().unwrap();
    }
    assert!((total - v["score"].as_f64().unwrap()).abs() < 1e-9);
    let max: f64 = tests.iter().map(|t| t["max_score"].as_f64().unwrap()).sum();
    assert!((max - v["max_score"].as_f64().unwrap()).abs() < 1e-9);
    // Hidden cases: Gradescope visibility, and nothing of their input.
    // (Named neutrally: the ids `nan` and `bool-x` tell the input.)
    for name in [
        "parse_contract_json/hidden case 1 of 1",
        "validate_tool_call/hidden case 1 of 1",
    ] {
        let t = tests.iter().find(|t| t["name"] == name).unwrap();
        assert_eq!(t["visibility"], "hidden");
        let out = t["output"].as_str().unwrap();
        assert!(out.starts_with("a hidden case failed: "), "{out}");
        assert!(
            !out.contains("call:") && !out.contains("NaN") && !out.contains("True"),
            "{out}"
        );
    }
    let visible = tests
        .iter()
        .find(|t| t["name"] == "parse_contract_json/object")
        .unwrap();
    assert_eq!(visible["visibility"], "visible");
    assert!(visible["output"].as_str().unwrap().contains("call:"));
}

#[test]
fn gradescope_hidden_cases_can_show_after_publishing() {
    let text =
        report::gradescope::render(&only("partial"), per_case(HiddenVisibility::AfterPublished))
            .unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let tests = v["tests"].as_array().unwrap();
    let t = tests
        .iter()
        .find(|t| t["name"] == "parse_contract_json/hidden case 1 of 1")
        .unwrap();
    assert_eq!(t["visibility"], "after_published");
    assert!(t["output"]
        .as_str()
        .unwrap()
        .starts_with("a hidden case failed: "));
    let visible = tests
        .iter()
        .find(|t| t["name"] == "parse_contract_json/object")
        .unwrap();
    assert_eq!(visible["visibility"], "visible");
}

#[test]
fn gradescope_reports_an_error_and_refuses_several_submissions() {
    let text = report::gradescope::render(&only("broken"), Options::default()).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["score"], 0.0);
    assert_eq!(v["max_score"], 4.0);
    assert!(v["output"]
        .as_str()
        .unwrap()
        .starts_with("Your submission could not be graded: "));
    assert!(report::gradescope::render(&support::run(), Options::default()).is_err());
}

#[test]
fn reports_are_written_atomically_to_their_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.json");
    let text = report::json::render(&support::run());
    report::write_atomic(&path, text.as_bytes()).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

/// Every report of `run`, as (name, text).
fn every_report(run: &GradeRun) -> Vec<(String, String)> {
    use report::terminal::FailureDetail;
    let mut out = vec![
        ("json".to_string(), report::json::render(run)),
        ("csv".into(), report::csv::render(run).unwrap()),
        ("junit".into(), report::junit::render(run).unwrap()),
        ("markdown".into(), report::markdown::render(run)),
        ("html".into(), report::html::render(run)),
        ("footer".into(), report::terminal::footer(run, 100)),
    ];
    for (name, details) in [
        ("none", FailureDetail::None),
        ("capped", FailureDetail::Capped),
        ("all", FailureDetail::All),
    ] {
        for color in [false, true] {
            out.push((
                format!("terminal {name} color={color}"),
                report::terminal::render_with(run, color, details),
            ));
        }
    }
    out
}

/// A run whose case grades are spooled to disk (every report reads them
/// back one submission at a time) writes every report byte for byte as the
/// same run kept in memory, for both audiences.
#[test]
fn every_report_is_the_same_from_a_spooled_run() {
    let run = support::run();
    let spooled = support::run().spooled().unwrap();
    assert!(spooled
        .submissions
        .iter()
        .all(|s| s.checkpoints.iter().all(|c| c.cases.is_empty())));
    for audience in [Audience::Instructor, Audience::Student] {
        let (a, b) = (run.view(audience), spooled.view(audience));
        for ((name, want), (_, got)) in every_report(&a).into_iter().zip(every_report(&b)) {
            assert!(want == got, "{audience:?} {name} differs when spooled");
        }
        assert_eq!(report::json::report(&a), report::json::report(&b));
    }
    assert_eq!(spooled.details.error(), None);
    // Gradescope (one submission, always the student view), both layouts.
    for id in ["partial", "syntax-error", "broken", "model"] {
        let (one, spooled) = (only(id), only(id).spooled().unwrap());
        for tests in [Tests::Checkpoint, Tests::Case] {
            for hidden in [HiddenVisibility::Hidden, HiddenVisibility::AfterPublished] {
                let options = Options { hidden, tests };
                assert!(
                    report::gradescope::render(&one, options).unwrap()
                        == report::gradescope::render(&spooled, options).unwrap(),
                    "gradescope {id} {options:?}"
                );
            }
        }
        assert_eq!(spooled.details.error(), None);
    }
}

/// Every `output` of a results.json names its format, `text`, top level and
/// per test (without it Gradescope reads HTML), whatever the options and
/// the submission.
#[test]
fn every_gradescope_output_names_its_format() {
    for id in ["model", "partial", "mixed", "syntax-error", "broken"] {
        for tests in [Tests::Checkpoint, Tests::Case] {
            for hidden in [HiddenVisibility::Hidden, HiddenVisibility::AfterPublished] {
                let run = only(id);
                let text = report::gradescope::render(&run, Options { hidden, tests }).unwrap();
                let v: Value = serde_json::from_str(&text).unwrap();
                let what = format!("{id} {tests:?} {hidden:?}");
                assert_eq!(v["output_format"], "text", "{what}");
                assert_eq!(v["test_output_format"], "text", "{what}");
                for t in v["tests"].as_array().unwrap() {
                    assert_eq!(t["output_format"], "text", "{what}: {t}");
                }
            }
        }
    }
}

/// The fixture run with only `id`, scored by criteria.
fn only_by_criteria(id: &str) -> GradeRun {
    let run = support::run_under(Scoring::Criteria);
    GradeRun {
        submissions: run.submissions.into_iter().filter(|s| s.id == id).collect(),
        ..run
    }
}

/// Under `criteria` every report shows the criteria: the terminal and
/// Markdown name the failed ones with their failed cases, JUnit has one
/// testcase per criterion, Gradescope one test per criterion whose scores
/// add up to the total, JSON each criterion's result (and reads back).
#[test]
fn criteria_reports_golden() {
    let run = support::run_under(Scoring::Criteria);
    let student = run.for_audience(Audience::Student);
    let text = report::terminal::render(&student, false, true);
    support::check_golden("terminal-criteria-student.txt", &text);
    // mixed: validate_tool_call's `valid` failed, `boolean-ints` passed.
    assert!(
        text.contains("✗ criterion valid 0/0.5 (0/1 cases): ok"),
        "{text}"
    );
    assert!(
        text.contains("points 0.5 / 3 (scoring: criteria, partial credit)"),
        "{text}"
    );
    support::check_golden("summary-criteria.md", &report::markdown::render(&run));

    let xml = report::junit::render(&run).unwrap();
    support::assert_valid_junit(&xml);
    support::check_golden("junit-criteria.xml", &xml);
    assert!(xml.contains("<testcase name=\"boolean-ints\" classname=\"mixed.validate_tool_call\""));

    let json = report::json::render(&run);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["corpus"]["scoring"], "criteria");
    let vtc = &support::submission(&v, "mixed")["checkpoints"][1];
    assert_eq!(vtc["criteria"][0]["title"], "valid");
    assert_eq!(vtc["criteria"][0]["passed"], false);
    assert_eq!(vtc["criteria"][0]["failed"], serde_json::json!(["ok"]));
    assert_eq!(vtc["criteria"][1]["points"], 0.5);
    assert_eq!(report::read::parse(&json).unwrap(), run);

    let mixed = only_by_criteria("mixed");
    let text = report::gradescope::render(&mixed, Options::default()).unwrap();
    support::check_golden("gradescope-mixed-criteria.json", &text);
    let g: Value = serde_json::from_str(&text).unwrap();
    let tests = g["tests"].as_array().unwrap();
    let names: Vec<&str> = tests.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(
        names.contains(&"validate_tool_call: boolean-ints"),
        "{names:?}"
    );
    let sum: f64 = tests.iter().map(|t| t["score"].as_f64().unwrap()).sum();
    let max: f64 = tests.iter().map(|t| t["max_score"].as_f64().unwrap()).sum();
    assert!((sum - g["score"].as_f64().unwrap()).abs() < 1e-9);
    assert!((max - g["max_score"].as_f64().unwrap()).abs() < 1e-9);
    assert_eq!(g["score"], 0.5);

    // The dashboard: each criterion's failure rate among graded submissions
    // (mixed and model pass boolean-ints; partial and syntax-error fail it).
    let html = report::html::render(&run);
    assert!(html.contains("<section id=\"criteria\">"));
    assert!(
        html.contains("<td><code>validate_tool_call</code></td><td>boolean-ints</td><td>0.5</td><td class=\"nowrap\"><span class=\"meter\"><span style=\"width:50.0%\"></span></span> 50% <span class=\"muted\">(2 of 4)</span>"),
        "{html}"
    );
    assert!(!report::html::render(&support::run()).contains("<section id=\"criteria\">"));

    let spooled = support::run_under(Scoring::Criteria).spooled().unwrap();
    for audience in [Audience::Instructor, Audience::Student] {
        let (a, b) = (run.view(audience), spooled.view(audience));
        for ((name, want), (_, got)) in every_report(&a).into_iter().zip(every_report(&b)) {
            assert!(want == got, "{audience:?} {name} differs when spooled");
        }
    }
}

/// The student view's "your checkpoints" never disagrees with its points
/// without saying why: under `cases` it names the policy, by default the
/// points are those of the passed checkpoints and no note is needed.
#[test]
fn the_student_view_says_why_points_differ_from_checkpoints() {
    let student = |scoring| {
        let run = support::run_under(scoring).for_audience(Audience::Student);
        report::terminal::render(&run, false, true)
    };
    let cases = student(Scoring::Cases);
    assert!(
        cases.contains("Lesson 03 — Tool proposals — your checkpoints 0 / 2 — points 0.5 / 3 (scoring: cases, partial credit)"),
        "{cases}"
    );
    let default = student(Scoring::Checkpoints);
    assert!(
        default.contains("Lesson 03 — Tool proposals — your checkpoints 0 / 2\n"),
        "{default}"
    );
    assert!(!default.contains("partial credit"), "{default}");
}

/// Gradescope's tests add up to its score under every policy and layout
/// (a passed case earns its checkpoint's points shared over its passed
/// cases), and `max_score` is the graded points.
#[test]
fn gradescope_tests_add_up_to_the_score_under_every_policy() {
    for scoring in Scoring::ALL {
        for id in ["model", "mixed", "partial"] {
            let run = support::run_under(scoring);
            let one = GradeRun {
                submissions: run.submissions.into_iter().filter(|s| s.id == id).collect(),
                ..run
            };
            for tests in [Tests::Checkpoint, Tests::Case] {
                let options = Options {
                    tests,
                    hidden: HiddenVisibility::AfterPublished,
                };
                let v: Value =
                    serde_json::from_str(&report::gradescope::render(&one, options).unwrap())
                        .unwrap();
                let what = format!("{id} {scoring:?} {tests:?}");
                let sum = |key: &str| -> f64 {
                    v["tests"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|t| t[key].as_f64().unwrap())
                        .sum()
                };
                let score = v["score"].as_f64().unwrap();
                assert!((sum("score") - score).abs() < 1e-9, "{what}: {v}");
                assert!((sum("max_score") - 4.0).abs() < 1e-9, "{what}: {v}");
                assert_eq!(v["max_score"], 4.0, "{what}");
                assert_eq!(score, one.submissions[0].points, "{what}");
            }
        }
    }
}
