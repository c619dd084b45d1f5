//! Scoring policies through the binary (issue 44): the bundled submissions
//! under each policy (recorded once, then graded from the store), a rubric
//! criterion in `course.toml` scored and shown by its title, and the
//! problems that stop a run with exit 2 naming `course.toml` and its line.

use crate::util::grading as support;

use crate::util::TestCommand;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn ok(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "exit {:?}\n{stdout}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A copy of the bundled corpus whose course.toml says `scoring = "…"`.
fn bundled_cases_scored(dir: &Path, policy: &str) -> PathBuf {
    let cases = dir.join("cases");
    std::fs::create_dir_all(&cases).unwrap();
    for entry in walkdir::WalkDir::new(root().join("cases")) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(root().join("cases")).unwrap();
        let to = cases.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    let course = std::fs::read_to_string(cases.join("course.toml")).unwrap();
    let course = course.replacen(
        "\n[[lesson]]",
        &format!("\nscoring = \"{policy}\"\n\n[[lesson]]"),
        1,
    );
    std::fs::write(cases.join("course.toml"), course).unwrap();
    cases
}

/// The acceptance list of issue 44 on the bundled course and submissions:
/// arrival-order on tool-proposals is 2/3 by default (its student view says
/// 2 / 3, Gradescope 2 of 3), 2.86/3 under `cases`, strictly between 2 and
/// 3 under `criteria`, the same from course.toml as from the flag; every
/// total is its passed checkpoints' points and the class spreads over at
/// least three ten-percent bins. A policy change re-records nothing.
#[test]
fn the_bundled_submissions_under_each_policy() {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    let subs = root().join("submissions");
    let cases = root().join("cases");
    let p = |name: &str| tmp.path().join(name);

    // The whole class, default policy.
    ok(&TestCommand::grade(&subs, &cases, &work)
        .args(["--quiet", "--json"])
        .arg(p("all.json"))
        .output());
    let all = json(&p("all.json"));
    assert_eq!(all["corpus"]["scoring"], "checkpoints");
    let mut bins = std::collections::BTreeSet::new();
    let subs_json = all["submissions"].as_array().unwrap();
    assert_eq!(subs_json.len(), 41);
    for s in subs_json {
        assert_eq!(s["status"], "graded", "{}", s["id"]);
        let passed: f64 = s["checkpoints"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["passed"] == true)
            .map(|c| c["max_points"].as_f64().unwrap())
            .sum();
        assert_eq!(s["points"].as_f64().unwrap(), passed, "{}", s["id"]);
        bins.insert(autograder::report::html::stats::bin(
            s["percent"].as_f64().unwrap(),
        ));
    }
    assert!(bins.len() >= 3, "the histogram's bins: {bins:?}");

    let arrival = subs.join("arrival-order");
    let lesson = |extra: &[&str], cases: &Path| -> (Value, String) {
        let name = format!("arrival-{}.json", extra.join("-"));
        let out = TestCommand::grade(&arrival, cases, &work)
            .args(["--lesson", "tool-proposals", "--timings", "--json"])
            .arg(p(&name))
            .args(extra)
            .output();
        let stdout = ok(&out);
        // From the store: nothing recorded again (a student's view also
        // records the calls its counterexample search tries, in a store of
        // their own: not a case of the corpus recorded again).
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !extra.contains(&"student") {
            assert!(
                stderr.contains("recorded by the harness") && stderr.contains("(0 submissions)"),
                "{stderr}"
            );
        }
        (json(&p(&name)), stdout)
    };
    let points = |v: &Value| v["submissions"][0]["points"].as_f64().unwrap();

    let (default, _) = lesson(&[], &cases);
    assert_eq!(
        (
            points(&default),
            default["submissions"][0]["max_points"].as_f64()
        ),
        (2.0, Some(3.0))
    );
    let (_, student) = lesson(&["--audience", "student"], &cases);
    assert!(
        student.contains("Lesson 03 — Tool proposals — your checkpoints 2 / 3\n"),
        "{student}"
    );
    assert!(student.contains("2/3 (67%)"), "{student}");

    let out = TestCommand::grade(&arrival, &cases, &work)
        .args(["--lesson", "tool-proposals", "--quiet", "--gradescope"])
        .arg(p("results.json"))
        .output();
    ok(&out);
    let results = json(&p("results.json"));
    assert_eq!(
        (results["score"].as_f64(), results["max_score"].as_f64()),
        (Some(2.0), Some(3.0))
    );

    // --fail-under follows the policy: 67 % by default, 95 % by cases.
    let fail_under = |extra: &[&str]| {
        TestCommand::grade(&arrival, &cases, &work)
            .args([
                "--lesson",
                "tool-proposals",
                "--quiet",
                "--fail-under",
                "90",
            ])
            .args(extra)
            .output()
            .status
            .code()
    };
    assert_eq!(fail_under(&[]), Some(1));
    assert_eq!(fail_under(&["--scoring", "cases"]), Some(0));

    let (cases_run, _) = lesson(&["--scoring", "cases"], &cases);
    let proportional = points(&cases_run);
    assert_eq!(autograder::report::fmt_score(proportional, 3.0), "2.86");

    let (criteria, _) = lesson(&["--scoring", "criteria"], &cases);
    let by_criteria = points(&criteria);
    assert!(2.0 < by_criteria && by_criteria < 3.0, "{by_criteria}");
    let order = &criteria["submissions"][0]["checkpoints"][2];
    assert_eq!(order["id"], "order_tool_results");
    let failed: Vec<&Value> = order["criteria"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["passed"] == false)
        .collect();
    assert!(
        failed.iter().any(|c| c["title"] == "shuffled-results"),
        "{order}"
    );

    // course.toml's `scoring = "criteria"` is the flag's policy.
    let scored = bundled_cases_scored(tmp.path(), "criteria");
    let (from_toml, _) = lesson(&[], &scored);
    assert_eq!(from_toml["corpus"]["scoring"], "criteria");
    assert_eq!(
        from_toml["submissions"][0]["checkpoints"],
        criteria["submissions"][0]["checkpoints"]
    );
    assert_eq!(points(&from_toml), by_criteria);
}

/// The fixture corpus with `criteria` (TOML tables) appended to
/// order_tool_results's checkpoint, and `extra` at its top.
fn fixture_with(dir: &Path, top: &str, criteria: &str) -> PathBuf {
    let cases = dir.join("cases");
    for lesson in ["json-contract", "tool-proposals"] {
        let from = support::fixture_dir().join("cases").join(lesson);
        std::fs::create_dir_all(cases.join(lesson)).unwrap();
        for f in std::fs::read_dir(&from).unwrap() {
            let f = f.unwrap().path();
            std::fs::copy(&f, cases.join(lesson).join(f.file_name().unwrap())).unwrap();
        }
    }
    let course = std::fs::read_to_string(support::fixture_dir().join("cases/course.toml")).unwrap();
    let course = course.replacen("\n[[lesson]]", &format!("\n{top}\n[[lesson]]"), 1);
    std::fs::write(cases.join("course.toml"), format!("{course}{criteria}")).unwrap();
    cases
}

/// A shipped recording for `cases`: the perfect one, with order_tool_results's
/// `tuple-calls` wrong.
fn ship_one_failure(cases: &Path, subs: &Path) {
    use autograder::recording::format::CaseOutcome;
    let corpus = autograder::corpus::load(cases).unwrap();
    let mut rec = support::perfect_recording(&corpus, "one");
    rec.outcomes.insert(
        "order_tool_results/tuple-calls".into(),
        CaseOutcome::Returned {
            value: serde_json::json!([]).into(),
            shares_with_args: false,
            args_changed: false,
            shares_with_state: false,
            shared: None,
            changed: None,
        },
    );
    std::fs::create_dir_all(subs.join("one")).unwrap();
    std::fs::write(
        subs.join("one/recording.json"),
        serde_json::to_vec(&rec).unwrap(),
    )
    .unwrap();
}

const RUBRIC: &str = r#"
    [[lesson.checkpoint.criterion]]
    title = "Results follow the calls' order"
    tags = ["shuffled-results"]
    cases = ["empty"]
    points = 1.5

    [[lesson.checkpoint.criterion]]
    title = "Wrong types are refused"
    cases = ["tuple-calls"]
    points = 0.5
"#;

/// A rubric criterion in course.toml is scored under `criteria` and shown
/// by its title, in the terminal, JSON and JUnit.
#[test]
fn a_rubric_criterion_is_scored_and_shown_by_its_title() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = fixture_with(tmp.path(), "scoring = \"criteria\"\n", RUBRIC);
    let subs = tmp.path().join("subs");
    ship_one_failure(&cases, &subs);
    let p = |name: &str| tmp.path().join(name);
    let out = TestCommand::grade(&subs, &cases, &p("work"))
        .arg("--json")
        .arg(p("r.json"))
        .arg("--junit")
        .arg(p("r.xml"))
        .output();
    let stdout = ok(&out);
    assert!(
        stdout.contains("✗ criterion Wrong types are refused 0/0.5 (0/1 cases): tuple-calls"),
        "{stdout}"
    );
    let v = json(&p("r.json"));
    let order = &v["submissions"][0]["checkpoints"][2];
    let titles: Vec<&str> = order["criteria"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        ["Results follow the calls' order", "Wrong types are refused"]
    );
    assert_eq!(order["points"], 1.5);
    assert_eq!(v["submissions"][0]["points"], 3.5);
    let xml = std::fs::read_to_string(p("r.xml")).unwrap();
    assert!(
        xml.contains(
            "<testcase name=\"Wrong types are refused\" classname=\"one.order_tool_results\""
        ),
        "{xml}"
    );
}

/// What stops a run with exit 2 and names course.toml with the line.
#[test]
fn a_bad_policy_or_criterion_is_an_error_at_its_line() {
    let bad: &[(&str, &str, &str, &str)] = &[
        (
            "scoring = \"strict\"\n",
            "",
            "course.toml:3: unknown scoring policy \"strict\"",
            "top-level policy",
        ),
        (
            "",
            &RUBRIC.replace("cases = [\"tuple-calls\"]", "cases = [\"tuple-call\"]"),
            "the checkpoint has no case \"tuple-call\"",
            "unknown case",
        ),
        (
            "",
            &RUBRIC.replace("tags = [\"shuffled-results\"]", "tags = [\"bad-ids\"]"),
            "no case of the checkpoint has tag \"bad-ids\"",
            "unknown tag",
        ),
        (
            "",
            &RUBRIC.replace("points = 0.5", "points = 1"),
            "the criteria's points add up to 2.5, the checkpoint's points are 2",
            "points",
        ),
    ];
    for (top, criteria, says, what) in bad {
        let tmp = tempfile::tempdir().unwrap();
        let cases = fixture_with(tmp.path(), top, criteria);
        let subs = tmp.path().join("subs");
        std::fs::create_dir_all(subs.join("x")).unwrap();
        let out = TestCommand::grade(&subs, &cases, &tmp.path().join("work")).output();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
        assert!(stderr.contains(says), "{what}: {stderr}");
        let line = stderr
            .lines()
            .find(|l| l.contains(says))
            .unwrap_or_default();
        let at = line.find("course.toml:").map(|i| &line[i + 12..]);
        assert!(
            at.is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit())),
            "{what}: no course.toml:LINE in {line:?}"
        );
    }
    // The criterion's own line: the table that names the unknown case.
    let tmp = tempfile::tempdir().unwrap();
    let criteria = RUBRIC.replace("cases = [\"tuple-calls\"]", "cases = [\"tuple-call\"]");
    let cases = fixture_with(tmp.path(), "", &criteria);
    let text = std::fs::read_to_string(cases.join("course.toml")).unwrap();
    let table = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("[[lesson.checkpoint.criterion]]"))
        .nth(1)
        .unwrap()
        .0
        + 1;
    let out = TestCommand::new()
        .args(["cases", "check", "--cases"])
        .arg(&cases)
        .output();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("course.toml:{table}: criterion")),
        "{stderr}"
    );
    // An unknown --scoring is a usage error.
    let out = TestCommand::new()
        .args(["grade", "--scoring", "strict"])
        .output();
    assert_eq!(out.status.code(), Some(2));
}
