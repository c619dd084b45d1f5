//! The grader's own failures are never a student's grade: no usable
//! interpreter, a sandbox that cannot start, a harness that dies midway, an
//! unwritable report. Each stops the run with exit 2 and a clear message,
//! before any gradebook is written (or, for one report path, after the
//! others are). And where bubblewrap cannot start, `auto` takes landlock and
//! every report says so.

use crate::util::TestCommand;
use serde_json::Value;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The small grading corpus (three checkpoints, hidden cases among them).
fn cases() -> PathBuf {
    repo().join("tests/fixtures/grading/cases")
}

fn model_source() -> String {
    fs::read_to_string(repo().join("submissions/model-solution/main.py")).unwrap()
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn executable(path: &Path, text: &str) {
    write(path, text);
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// `n` copies of the model solution, each with its own source.
fn model_copies(root: &Path, n: usize) -> PathBuf {
    let subs = root.join("subs");
    for i in 0..n {
        write(
            &subs.join(format!("s{i:02}/main.py")),
            &format!("# copy {i}\n{}", model_source()),
        );
    }
    subs
}

/// The report flags every test asks for, inside `out`.
fn report_args(out: &Path) -> Vec<String> {
    ["json", "csv", "markdown", "html", "junit"]
        .iter()
        .flat_map(|kind| {
            [
                format!("--{kind}"),
                out.join(format!("report.{kind}")).display().to_string(),
            ]
        })
        .collect()
}

fn no_reports(out: &Path) {
    let left: Vec<_> = fs::read_dir(out)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(
        left.is_empty(),
        "reports written after a grader failure: {left:?}"
    );
}

fn grade(subs: &Path, work: &Path, extra: &[String], env: &[(&str, &str)]) -> Output {
    let mut cmd = TestCommand::grade(subs, &cases(), work);
    cmd.args(extra)
        .env_remove("AUTOGRADER_PYTHON")
        .env_remove("AUTOGRADER_ISOLATION");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn no_usable_interpreter_stops_the_run_with_exit_2_and_no_reports() {
    let tmp = tempfile::tempdir().unwrap();
    let subs = model_copies(tmp.path(), 2);
    let out = tmp.path().join("out");
    let broken = tmp.path().join("broken-python");
    executable(
        &broken,
        "#!/bin/sh\necho 'error while loading shared libraries' >&2\nexit 127\n",
    );
    let mut tried: Vec<(String, &str)> = vec![
        (
            broken.display().to_string(),
            "does not work as a Python interpreter",
        ),
        (
            "/nonexistent/python3".into(),
            "cannot run /nonexistent/python3",
        ),
    ];
    // The machine's old interpreters, when pyenv has them.
    let pyenv = Command::new("pyenv").arg("root").output().ok();
    let pyenv_root = pyenv
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    for old in ["3.6", "3.7"] {
        let found = pyenv_root.as_ref().and_then(|root| {
            fs::read_dir(Path::new(root).join("versions"))
                .ok()?
                .flatten()
                .map(|e| e.path())
                .find(|p| {
                    let name = p.file_name().unwrap().to_string_lossy().into_owned();
                    name.starts_with(&format!("{old}.")) && p.join("bin/python3").is_file()
                })
        });
        match found {
            Some(dir) => tried.push((
                dir.join("bin/python3").display().to_string(),
                "the harness needs CPython 3.8 or newer",
            )),
            None => say!("skipping the CPython {old} refusal: no pyenv version {old}.x here"),
        }
    }
    for (python, says) in &tried {
        let mut args = report_args(&out);
        args.extend(["--python".into(), python.clone()]);
        let run = grade(&subs, &tmp.path().join("work"), &args, &[]);
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(2), "{python}: {err}");
        assert!(err.contains(says), "{python}: {err}");
        assert!(err.contains("--python PATH"), "the fix is named: {err}");
        no_reports(&out);
        // AUTOGRADER_PYTHON says the same.
        let run = grade(
            &subs,
            &tmp.path().join("work"),
            &report_args(&out),
            &[("AUTOGRADER_PYTHON", python)],
        );
        assert_eq!(run.status.code(), Some(2), "{python}: {}", stderr(&run));
        no_reports(&out);
    }
}

#[test]
fn a_bad_isolation_value_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let subs = model_copies(tmp.path(), 1);
    let out = tmp.path().join("out");
    let run = grade(
        &subs,
        &tmp.path().join("work"),
        &report_args(&out),
        &[("AUTOGRADER_ISOLATION", "namespaces")],
    );
    assert_eq!(run.status.code(), Some(2));
    assert!(
        stderr(&run).contains("invalid value 'namespaces'"),
        "{}",
        stderr(&run)
    );
    let mut args = report_args(&out);
    args.extend(["--isolation".into(), "none".into()]);
    let run = grade(&subs, &tmp.path().join("work"), &args, &[]);
    assert_eq!(run.status.code(), Some(2));
    assert!(stderr(&run).contains("[possible values: auto, bwrap, landlock, rlimits]"));
    no_reports(&out);
}

/// A `bwrap` first on PATH that cannot start, as in an unprivileged
/// container: `auto` takes landlock, says so when the run starts, and every
/// report carries it; student code then cannot read the corpus.
#[test]
fn auto_takes_landlock_when_bwrap_cannot_start_and_every_report_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let fake = tmp.path().join("bin");
    executable(
        &fake.join("bwrap"),
        "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n",
    );
    let path = format!(
        "{}:{}",
        fake.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // A student whose function returns the text of a case file when it can.
    let corpus_file = cases().join("tool-proposals/validate_tool_call.toml");
    assert!(corpus_file.is_file());
    let sub = tmp.path().join("student");
    write(
        &sub.join("main.py"),
        &format!(
            "def parse_contract_json(text):\n    try:\n        return open({:?}).read()\n    except OSError as e:\n        return type(e).__name__\n",
            corpus_file.display().to_string()
        ),
    );
    let out = tmp.path().join("out");
    let mut args = report_args(&out);
    args.extend([
        "--gradescope".into(),
        out.join("results.json").display().to_string(),
        "--main-py-only".into(),
    ]);
    let run = grade(&sub, &tmp.path().join("work"), &args, &[("PATH", &path)]);
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(0), "{err}");
    assert!(err.contains("sandbox: landlock"), "{err}");
    assert!(
        err.contains("bubblewrap is not usable here") && err.contains("No permissions"),
        "the fallback is said, with bwrap's own words: {err}"
    );
    let json: Value =
        serde_json::from_str(&fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(
        json["environment"]["isolation"][0][0], "landlock",
        "{}",
        json["environment"]
    );
    let rec = &json["submissions"][0]["recording"];
    assert_eq!(rec["isolation"], "landlock");
    assert!(
        rec["sandbox"]
            .as_str()
            .unwrap()
            .starts_with("landlock: ABI "),
        "{rec}"
    );
    assert!(rec["python"].as_str().unwrap().starts_with("3."), "{rec}");
    let markdown = fs::read_to_string(out.join("report.markdown")).unwrap();
    assert!(markdown.contains("sandbox: landlock: ABI "), "{markdown}");
    let html = fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("id=\"environment\">sandbox: landlock: ABI "));
    let gradescope: Value =
        serde_json::from_str(&fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(gradescope["extra_data"]["isolation"][0], "landlock");
    // The corpus stayed unreadable: the student got PermissionError, and the
    // case file's text is nowhere.
    assert!(
        fs::read_to_string(out.join("report.json"))
            .unwrap()
            .contains("'PermissionError'"),
        "the student's read was refused"
    );
    let corpus_text = fs::read_to_string(&corpus_file).unwrap();
    let hidden_call = corpus_text
        .lines()
        .find(|l| l.contains("call ="))
        .expect("a call in the case file");
    for report in [
        "report.json",
        "results.json",
        "report.markdown",
        "report.html",
    ] {
        let text = fs::read_to_string(out.join(report)).unwrap();
        assert!(
            !text.contains("checkpoint = "),
            "{report} shows the case file"
        );
        assert!(
            !text.contains(hidden_call.trim()),
            "{report} shows a case's source"
        );
    }
}

/// The interpreter of tests/fixtures/interpreters/dies-after.py, set up in
/// `dir` with its rule.
fn dying_python(dir: &Path, rule: &str) -> PathBuf {
    let real = Command::new("/usr/bin/python3")
        .args([
            "-S",
            "-c",
            "import os, sys; print(os.path.realpath(sys.executable))",
        ])
        .output()
        .expect("the tests need /usr/bin/python3");
    let python = dir.join("python3");
    let text =
        fs::read_to_string(repo().join("tests/fixtures/interpreters/dies-after.py")).unwrap();
    executable(&python, &text);
    write(
        &dir.join("real"),
        String::from_utf8_lossy(&real.stdout).trim(),
    );
    write(&dir.join("rule"), rule);
    python
}

/// `grade` of `n` model copies through the dying interpreter with `rule`,
/// on one worker under landlock, all reports into `<tmp>/out`; the count
/// of jobs the interpreter saw.
fn grade_dying(tmp: &Path, n: usize, rule: &str, extra: &[&str]) -> (Output, String) {
    let subs = model_copies(tmp, n);
    let python = dying_python(&tmp.join("py"), rule);
    let mut args = report_args(&tmp.join("out"));
    args.extend(["--python".into(), python.display().to_string()]);
    args.extend(
        ["--isolation", "landlock", "--jobs", "1"]
            .iter()
            .chain(extra)
            .map(|a| a.to_string()),
    );
    let run = grade(&subs, &tmp.join("work"), &args, &[]);
    let count = fs::read_to_string(tmp.join("py/count")).unwrap_or_default();
    (run, count.trim().to_string())
}

/// The harness dies for every submission after the fourth: the fifth is
/// retried once on a fresh worker, then the run stops, and no gradebook gives
/// anyone a 0.
#[test]
fn a_harness_that_dies_midway_stops_the_run_before_any_report() {
    let tmp = tempfile::tempdir().unwrap();
    let (run, count) = grade_dying(tmp.path(), 8, "after 4", &[]);
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(
        err.contains("recording s04 failed on the grader's side, twice")
            && err.contains("the harness stopped"),
        "{err}"
    );
    no_reports(&tmp.path().join("out"));
    // Four jobs went through, then the fifth twice (the retry).
    assert_eq!(count, "6");
}

#[test]
fn a_one_off_harness_failure_is_retried_and_the_run_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let (run, count) = grade_dying(tmp.path(), 5, "once 3", &["--fail-under", "100"]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let out = tmp.path().join("out");
    let mut csv = csv::Reader::from_path(out.join("report.csv")).unwrap();
    let rows: Vec<csv::StringRecord> = csv.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 5);
    for row in &rows {
        assert_eq!(&row[1], "graded", "{row:?}");
    }
    assert_eq!(count, "6", "one job was sent twice");
}

#[test]
fn an_unwritable_report_does_not_stop_the_others_and_the_run_exits_2() {
    let tmp = tempfile::tempdir().unwrap();
    let subs = model_copies(tmp.path(), 1);
    let blocker = tmp.path().join("blocker");
    fs::write(&blocker, "a file where a folder should be").unwrap();
    let out = tmp.path().join("out");
    let args: Vec<String> = vec![
        "--csv".into(),
        blocker.join("grades.csv").display().to_string(),
        "--json".into(),
        out.join("report.json").display().to_string(),
        "--markdown".into(),
        out.join("summary.md").display().to_string(),
        "--isolation".into(),
        "landlock".into(),
    ];
    let run = grade(&subs, &tmp.path().join("work"), &args, &[]);
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(err.contains("1 report could not be written"), "{err}");
    assert!(err.contains(&blocker.display().to_string()), "{err}");
    assert!(out.join("report.json").is_file());
    assert!(out.join("summary.md").is_file());
}
