//! `autograder grade` end to end on shipped recordings (`recording.json`, never
//! run): corrupt recordings, determinism across `--jobs`, exit codes.

use crate::util::grading as support;

use crate::util::TestCommand;
use autograder::recording::format::{CaseOutcome, Recording, RECORDING_FORMAT};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cases_dir() -> PathBuf {
    support::fixture_dir().join("cases")
}

/// A recording of what a correct solution does on every fixture case.
fn perfect_recording(id: &str) -> Recording {
    support::perfect_recording(&support::corpus(), id)
}

fn ship(root: &Path, id: &str, bytes: &[u8]) {
    let dir = root.join(id);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("recording.json"), bytes).unwrap();
}

fn ship_recording(root: &Path, rec: &Recording) {
    ship(
        root,
        &rec.submission,
        &serde_json::to_vec_pretty(rec).unwrap(),
    );
}

fn grade(subs: &Path, work: &Path, extra: &[&str]) -> Output {
    TestCommand::grade(subs, &cases_dir(), work)
        .args(extra)
        .output()
}

/// Submissions: a perfect one, one that fails a case, and the corrupt ones.
fn submissions(root: &Path) {
    ship_recording(root, &perfect_recording("perfect"));
    let mut half = perfect_recording("half");
    half.outcomes.insert(
        "order_tool_results/empty".into(),
        CaseOutcome::Timeout {
            seconds: 2.0,
            submission_budget: None,
        },
    );
    ship_recording(root, &half);

    let good = serde_json::to_string(&perfect_recording("x")).unwrap();
    ship(root, "truncated", &good.as_bytes()[..good.len() / 2]);
    let mut v: Value = serde_json::from_str(&good).unwrap();
    v["format"] = "autograder-recording/999".into();
    ship(root, "wrong-version", v.to_string().as_bytes());
    let mut big = perfect_recording("big");
    big.output = "x".repeat(90 * 1024 * 1024);
    ship(root, "big", &serde_json::to_vec(&big).unwrap());
    // Under the file's limit, over what one submission may record: 17
    // values of 4 MB each (each under the 4 MiB a value may have).
    let mut much = perfect_recording("much");
    for i in 0..17 {
        much.outcomes.insert(
            format!("parse_contract_json/extra-{i}"),
            CaseOutcome::Returned {
                value: Value::from("y".repeat(4_000_000)).into(),
                shares_with_args: false,
                args_changed: false,
                shares_with_state: false,
                shared: None,
                changed: None,
            },
        );
    }
    ship(root, "much", &serde_json::to_vec(&much).unwrap());
    let mut named = perfect_recording("named");
    named.harness = "h".repeat(100_000);
    ship(root, "named", &serde_json::to_vec(&named).unwrap());
    let deep = format!(
        r#"{{"format":"{RECORDING_FORMAT}","submission":"deep","corpus_fingerprint":"f","harness":"h","isolation":"i","outcomes":{{"order_tool_results/empty":{{"kind":"returned","shares_with_args":false,"args_changed":false,"value":{}{}}}}}}}"#,
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    ship(root, "deep", deep.as_bytes());
    let mut v: Value = serde_json::from_str(&good).unwrap();
    v["outcomes"]["order_tool_results/empty"]["shares_with_args"] = "no".into();
    ship(root, "wrong-types", v.to_string().as_bytes());
    let mut v: Value = serde_json::from_str(&good).unwrap();
    v["outcomes"] = Value::Array(vec![]);
    ship(root, "outcomes-not-a-map", v.to_string().as_bytes());
}

/// Each corrupt submission and what its error must say.
const BROKEN: &[(&str, &str)] = &[
    ("big", "byte limit"),
    ("much", "more than the 64 MiB one submission may record"),
    (
        "named",
        "`harness` is 100000 characters long, more than 256",
    ),
    ("deep", "nested deeper"),
    ("outcomes-not-a-map", "expected a map"),
    ("truncated", "not valid JSON"),
    ("wrong-types", "expected a boolean"),
    ("wrong-version", "not supported"),
];
#[test]
fn corrupt_recordings_are_reported_and_the_others_graded() {
    let tmp = tempfile::tempdir().unwrap();
    let subs = tmp.path().join("subs");
    submissions(&subs);
    let json = tmp.path().join("out/report.json");
    let out = grade(
        &subs,
        &tmp.path().join("work"),
        &["--json", json.to_str().unwrap()],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let by_id = |id: &str| {
        report["submissions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id)
            .unwrap()
            .clone()
    };
    let perfect = by_id("perfect");
    assert_eq!(perfect["status"], "graded");
    assert_eq!(perfect["points"], perfect["max_points"]);
    let half = by_id("half");
    assert_eq!(half["status"], "graded");
    // order_tool_results (2 points, 3 cases of weight 1) lost one case:
    // all its points, under the default policy.
    let lost = perfect["max_points"].as_f64().unwrap() - half["points"].as_f64().unwrap();
    assert!((lost - 2.0).abs() < 1e-9, "{lost}");
    for &(id, says) in BROKEN {
        let s = by_id(id);
        assert_eq!(s["status"], "error", "{id}");
        assert_eq!(s["points"], 0.0, "{id}");
        let err = s["error"].as_str().unwrap();
        assert!(err.contains(says) && err.len() < 500, "{id}: {err}");
    }
    // The terminal summary names every submission.
    let stdout = String::from_utf8_lossy(&out.stdout);
    for id in BROKEN.iter().map(|(id, _)| *id).chain(["perfect", "half"]) {
        assert!(stdout.contains(id), "{stdout}");
    }
}

#[test]
fn fail_under_sets_the_exit_code() {
    let tmp = tempfile::tempdir().unwrap();
    let subs = tmp.path().join("subs");
    ship_recording(&subs, &perfect_recording("perfect"));
    let mut half = perfect_recording("half");
    half.outcomes.clear();
    ship_recording(&subs, &half);
    let work = tmp.path().join("work");
    let out = grade(
        &subs.join("perfect"),
        &work,
        &["--fail-under", "100", "--quiet"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    let out = grade(&subs, &work, &["--fail-under", "50", "--quiet"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("half"));
    let out = grade(&subs, &work, &["--fail-under", "0", "--quiet"]);
    assert_eq!(out.status.code(), Some(0));
    // Gradescope grades exactly one submission; given several, its
    // results.json says so (the student sees that, not a generic failure).
    let gs = tmp.path().join("results.json");
    let out = grade(&subs, &work, &["--gradescope", gs.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&gs).unwrap()).unwrap();
    let output = v["output"].as_str().unwrap();
    assert!(
        output
            .contains("2 folders hold a submission (half/recording.json, perfect/recording.json)"),
        "{output}"
    );
    let out = grade(
        &subs.join("half"),
        &work,
        &["--gradescope", gs.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&gs).unwrap()).unwrap();
    assert_eq!(v["score"], 0.0);
}

#[test]
fn reports_are_identical_whatever_jobs_is() {
    let tmp = tempfile::tempdir().unwrap();
    let subs = tmp.path().join("subs");
    submissions(&subs);
    let mut outputs = Vec::new();
    for jobs in ["1", "2"] {
        let dir = tmp.path().join(format!("jobs{jobs}"));
        let files = ["r.json", "g.csv", "j.xml", "s.md", "d.html"].map(|f| dir.join(f));
        let out = grade(
            &subs,
            &tmp.path().join(format!("work{jobs}")),
            &[
                "--jobs",
                jobs,
                "--json",
                files[0].to_str().unwrap(),
                "--csv",
                files[1].to_str().unwrap(),
                "--junit",
                files[2].to_str().unwrap(),
                "--markdown",
                files[3].to_str().unwrap(),
                "--html",
                files[4].to_str().unwrap(),
            ],
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut all: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
        all.push(out.stdout);
        outputs.push(all);
    }
    for (i, name) in ["json", "csv", "junit", "markdown", "html", "stdout"]
        .iter()
        .enumerate()
    {
        assert!(
            outputs[0][i] == outputs[1][i],
            "{name} differs between --jobs 1 and --jobs 2"
        );
    }
}

#[test]
fn the_main_command_grades_the_bundled_submissions() {
    // `autograder grade` with no arguments in the repository root, as the
    // README says (only the cache goes elsewhere, to keep the tree clean).
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let json = tmp.path().join("report.json");
    let out = Command::new(env!("CARGO_BIN_EXE_autograder"))
        .current_dir(root)
        .args(["grade", "--work-dir"])
        .arg(tmp.path().join("work"))
        .arg("--json")
        .arg(&json)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first = stdout.lines().next().unwrap_or("");
    assert!(
        first.starts_with("submission") && first.ends_with("total"),
        "{stdout}"
    );
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let subs = report["submissions"].as_array().unwrap();
    assert!(subs.len() > 1);
    let model = subs.iter().find(|s| s["id"] == "model-solution").unwrap();
    assert_eq!(model["status"], "graded");
    assert_eq!(model["points"], model["max_points"]);
    assert_eq!(model["percent"], 100.0);
    // Every other bundled submission is a realistic mistake: graded, below 100 %.
    for s in subs.iter().filter(|s| s["id"] != "model-solution") {
        assert_eq!(s["status"], "graded", "{}", s["id"]);
        assert!(
            s["percent"].as_f64().unwrap() < 100.0,
            "{} scores full marks",
            s["id"]
        );
    }
}

#[test]
fn students_do_not_see_hidden_inputs_through_the_cli() {
    let tmp = tempfile::tempdir().unwrap();
    let subs = tmp.path().join("subs");
    let mut rec = perfect_recording("leaky");
    // The hidden case returns a value derived from its input.
    rec.outcomes.insert(
        "parse_contract_json/nan".into(),
        CaseOutcome::Returned {
            value: serde_json::json!({"a": {"$float": "nan"}}).into(),
            shares_with_args: false,
            args_changed: false,
            shares_with_state: false,
            shared: None,
            changed: None,
        },
    );
    ship_recording(&subs, &rec);
    let work = tmp.path().join("work");
    let json = tmp.path().join("r.json");
    let md = tmp.path().join("s.md");
    let out = grade(
        &subs,
        &work,
        &[
            "--audience",
            "student",
            "--json",
            json.to_str().unwrap(),
            "--markdown",
            md.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["audience"], "student");
    let f = &v["submissions"][0]["checkpoints"][0]["failures"][0];
    // Named neutrally: an id can tell the input.
    let case = f["case"].as_str().unwrap();
    assert!(
        case.starts_with("hidden case ") && case.contains(" of "),
        "{case}"
    );
    assert_eq!(
        f["reason"],
        "a hidden case failed: expected ValueError, got a return value"
    );
    for key in ["call", "expected", "got", "diff"] {
        assert!(f[key].is_null(), "{key} leaks: {}", f[key]);
    }
    for text in [
        String::from_utf8_lossy(&out.stdout).into_owned(),
        std::fs::read_to_string(&md).unwrap(),
    ] {
        assert!(text.contains("a hidden case failed"), "{text}");
        assert!(!text.contains("NaN") && !text.contains("nan}"), "{text}");
    }
    // Instructors see it all.
    let out = grade(&subs, &work, &["--json", json.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let f = &v["submissions"][0]["checkpoints"][0]["failures"][0];
    assert_eq!(f["call"], "parse_contract_json('{\"a\": NaN}')");
    assert_eq!(f["got"], "{'a': nan}");
}

#[test]
fn bundled_submissions_grade_identically_with_1_and_2_jobs() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Heavy) {
        return;
    }
    // Recorded from main.py in the sandbox each time (fresh work dirs).
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let mut outputs = Vec::new();
    for jobs in ["1", "2"] {
        let files =
            ["r.json", "g.csv", "j.xml", "d.html"].map(|f| tmp.path().join(format!("{jobs}-{f}")));
        let out = Command::new(env!("CARGO_BIN_EXE_autograder"))
            .current_dir(root)
            .args(["grade", "--quiet", "--jobs", jobs, "--work-dir"])
            .arg(tmp.path().join(format!("work{jobs}")))
            .arg("--json")
            .arg(&files[0])
            .arg("--csv")
            .arg(&files[1])
            .arg("--junit")
            .arg(&files[2])
            .arg("--html")
            .arg(&files[3])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        outputs.push(files.map(|f| std::fs::read(f).unwrap()));
    }
    for (i, name) in ["json", "csv", "junit", "html"].iter().enumerate() {
        assert!(
            outputs[0][i] == outputs[1][i],
            "{name} differs between --jobs 1 and --jobs 2"
        );
    }
}

#[test]
fn long_runs_cap_the_failure_details_and_summary_only_drops_them() {
    let tmp = tempfile::tempdir().unwrap();
    let subs = tmp.path().join("subs");
    for i in 0..27 {
        let mut rec = perfect_recording(&format!("s{i:02}"));
        rec.outcomes.insert(
            "order_tool_results/empty".into(),
            CaseOutcome::Timeout {
                seconds: 2.0,
                submission_budget: None,
            },
        );
        ship_recording(&subs, &rec);
    }
    let work = tmp.path().join("work");
    let sections = |out: &Output| {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.ends_with("cases failed"))
            .count()
    };
    let out = grade(&subs, &work, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(sections(&out), 25, "{stdout}");
    // The cap's note, then the footer saying where the recordings came from.
    assert!(
        stdout.ends_with(
            "\n… 2 more submissions with failures: see --html or --json\n\nsandbox: none\n"
        ),
        "{stdout}"
    );
    assert_eq!(sections(&grade(&subs, &work, &["--all-failures"])), 27);
    let out = grade(&subs, &work, &["--summary-only"]);
    assert_eq!(sections(&out), 0);
    // The table (header and 27 rows), a blank line and the scoring line,
    // a blank line and the footer.
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().count(),
        1 + 27 + 2 + 2
    );
}

#[test]
fn clicolor_force_colours_a_pipe_and_no_color_wins() {
    let tmp = tempfile::tempdir().unwrap();
    let subs = tmp.path().join("subs");
    ship_recording(&subs, &perfect_recording("perfect"));
    let work = tmp.path().join("work");
    let run = |force: &str, no_color: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_autograder"))
            .args(["grade", "--summary-only", "--work-dir"])
            .arg(&work)
            .arg("--cases")
            .arg(cases_dir())
            .arg(&subs)
            .env("CLICOLOR_FORCE", force)
            .env("NO_COLOR", no_color)
            .env("TERM", "dumb")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).contains('\x1b')
    };
    assert!(run("1", ""));
    assert!(!run("0", ""));
    assert!(!run("1", "1"));
}

/// A main.py that does not import is said once, in every student view: the
/// line it failed on as written, the CPython that graded it, and that none
/// of its cases could run (no ✗ row per checkpoint).
#[test]
fn an_import_error_quotes_its_line_and_names_the_python_once() {
    let tmp = tempfile::tempdir().unwrap();
    let subs = tmp.path().join("subs");
    let dir = subs.join("no-colon");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("main.py"),
        "import json\n\ndef parse_contract_json(text)\n    return json.loads(text)\n",
    )
    .unwrap();
    let md = tmp.path().join("summary.md");
    let gs = tmp.path().join("results.json");
    let out = grade(
        &subs,
        &tmp.path().join("work"),
        &[
            "--assignment",
            "json-contract",
            "--audience",
            "student",
            "--markdown",
            md.to_str().unwrap(),
            "--gradescope",
            gs.to_str().unwrap(),
        ],
    );
    let terminal = String::from_utf8_lossy(&out.stdout).into_owned();
    let unfolded: String = terminal.lines().map(str::trim_start).collect();
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&gs).unwrap()).unwrap();
    let views = [
        ("terminal", unfolded),
        ("markdown", std::fs::read_to_string(&md).unwrap()),
        (
            "gradescope",
            results["output"].as_str().unwrap().to_string(),
        ),
    ];
    for (name, text) in views {
        let at = text
            .find("main.py did not import under CPython 3.")
            .unwrap_or_else(|| panic!("{name}: {text}"));
        assert!(
            text[at..].contains(", so none of its cases could run: SyntaxError line 3"),
            "{name}: {text}"
        );
        assert!(
            text.contains("line 3 reads `def parse_contract_json(text)`"),
            "{name}: {text}"
        );
        assert_eq!(text.matches("did not import").count(), 1, "{name}: {text}");
        assert!(!text.contains("✗ parse_contract_json"), "{name}: {text}");
        assert!(text.contains("graded by CPython 3."), "{name}: {text}");
    }
}

/// Every line of the student's terminal view fits the width (calls, values
/// and the sandbox line fold below themselves), and it names the Python
/// that graded it in one short line.
#[test]
fn every_line_of_the_student_view_fits_the_width() {
    let tmp = tempfile::tempdir().unwrap();
    let subs = tmp.path().join("subs");
    let dir = subs.join("arrival-order");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("submissions/arrival-order/main.py"),
        dir.join("main.py"),
    )
    .unwrap();
    for audience in ["student", "instructor"] {
        let out = TestCommand::grade(&subs, &cases_dir(), &tmp.path().join("work"))
            .args(["--assignment", "tool-proposals", "--audience", audience])
            .env("COLUMNS", "100")
            .output();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("call:"),
            "{audience}: failures in full\n{stdout}"
        );
        for line in stdout.lines() {
            assert!(
                line.chars().count() <= 100,
                "{audience}: {line:?}\n{stdout}"
            );
        }
        let python = stdout
            .lines()
            .any(|l| l.starts_with("graded by CPython 3."));
        assert_eq!(python, audience == "student", "{audience}:\n{stdout}");
    }
}
