//! The CLI on hostile or broken input, as a careless or malicious user gives
//! it: every broken submission is reported for itself with the reason while
//! the others are graded, input errors exit 2 with one clear message, and
//! source files in unusual encodings or line endings grade like any other.

use crate::util::TestCommand;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The small grading fixture corpus (three checkpoints).
fn cases() -> PathBuf {
    repo().join("tests/fixtures/grading/cases")
}

fn model_source() -> String {
    fs::read_to_string(repo().join("submissions/model-solution/main.py")).unwrap()
}

fn run(args: &[&std::ffi::OsStr]) -> Output {
    TestCommand::new()
        .args(args)
        .env_remove("NO_COLOR")
        .output()
}

/// `grade SUBS --cases <the fixture corpus> --work-dir WORK EXTRA...`.
fn grade(subs: &Path, work: &Path, extra: &[&str]) -> Output {
    grade_with(&cases(), subs, work, extra)
}

/// `grade SUBS --cases CASES --work-dir WORK EXTRA...`.
fn grade_with(cases: &Path, subs: &Path, work: &Path, extra: &[&str]) -> Output {
    TestCommand::grade(subs, cases, work)
        .args(extra)
        .env_remove("NO_COLOR")
        .output()
}

fn write(path: &Path, bytes: &[u8]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

/// Leading runs of four spaces become tabs (`unexpand --first-only -t4`).
fn tabs_for_indent(source: &str) -> String {
    source
        .lines()
        .map(|line| {
            let n = line.len() - line.trim_start_matches(' ').len();
            format!(
                "{}{}{}\n",
                "\t".repeat(n / 4),
                " ".repeat(n % 4),
                &line[n..]
            )
        })
        .collect()
}

fn submissions(report: &Value) -> Vec<&Value> {
    report["submissions"].as_array().unwrap().iter().collect()
}

fn by_id<'a>(report: &'a Value, id: &str) -> &'a Value {
    submissions(report)
        .into_iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no submission {id:?} in the report"))
}

#[test]
fn broken_folders_are_reported_with_the_reason_and_the_rest_graded() {
    let root = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let r = root.path();
    let model = model_source();
    write(&r.join("good/main.py"), model.as_bytes());
    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend(model.as_bytes());
    write(&r.join("bom/main.py"), &bom);
    write(
        &r.join("crlf/main.py"),
        model.replace('\n', "\r\n").as_bytes(),
    );
    let tabbed = tabs_for_indent(&model);
    assert!(
        tabbed.contains("\n\t\t"),
        "the tab copy is indented by tabs"
    );
    write(&r.join("tabs/main.py"), tabbed.as_bytes());
    write(&r.join("nested/sec-a/alice/main.py"), model.as_bytes());
    // Latin-1 in a string literal: CPython refuses to import it (in a
    // comment it would not care).
    let mut latin1 = b"GREETING = '\xe9t\xe9'\n".to_vec();
    latin1.extend(model.as_bytes());
    write(&r.join("latin1/main.py"), &latin1);
    fs::create_dir_all(r.join("empty")).unwrap();
    fs::create_dir_all(r.join("dirmain/main.py")).unwrap();
    fs::create_dir_all(r.join("shadow")).unwrap();
    std::os::unix::fs::symlink("/etc/shadow", r.join("shadow/main.py")).unwrap();
    write(&outside.path().join("main.py"), model.as_bytes());
    std::os::unix::fs::symlink(outside.path(), r.join("linked")).unwrap();
    write(&r.join("misnamed/Main.py"), model.as_bytes());
    fs::create_dir_all(r.join("good/__pycache__")).unwrap();

    let json = work.path().join("report.json");
    let out = grade(
        r,
        &work.path().join("work"),
        &["--json", json.to_str().unwrap(), "--fail-under", "100"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The broken ones are not gradable, so --fail-under fails the run.
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let report: Value = serde_json::from_slice(&fs::read(&json).unwrap()).unwrap();
    let ids: Vec<&str> = submissions(&report)
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "bom",
            "crlf",
            "dirmain",
            "empty",
            "good",
            "latin1",
            "linked",
            "misnamed",
            "nested/sec-a/alice",
            "shadow",
            "tabs"
        ]
    );
    for id in ["good", "bom", "crlf", "tabs", "nested/sec-a/alice"] {
        let s = by_id(&report, id);
        assert_eq!(s["status"], "graded", "{id}");
        assert_eq!(s["points"], s["max_points"], "{id} scores full points");
    }
    let latin1 = by_id(&report, "latin1");
    assert_eq!(latin1["status"], "graded");
    assert_eq!(latin1["points"], 0.0);
    let reason = latin1["checkpoints"][0]["failures"][0]["reason"].as_str();
    assert!(
        reason.is_some_and(|r| r.contains("did not import") && r.contains("utf-8")),
        "{latin1}"
    );
    let errors = [
        ("dirmain", "dirmain/main.py is a folder, not a file"),
        (
            "empty",
            "empty: no main.py or recording.json (an empty folder)",
        ),
        (
            "linked",
            "linked is a symbolic link to a folder (links are not followed)",
        ),
        (
            "misnamed",
            "misnamed: no main.py or recording.json (it holds Main.py)",
        ),
        (
            "shadow",
            "shadow/main.py is a symbolic link (links are not followed)",
        ),
    ];
    for (id, why) in errors {
        let s = by_id(&report, id);
        assert_eq!(s["status"], "error", "{id}");
        let error = s["error"].as_str().unwrap();
        assert!(error.ends_with(why), "{id}: {error}");
        assert!(stderr.contains(&format!("{id}: not graded: ")), "{stderr}");
    }
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn an_unusable_work_dir_is_one_input_error() {
    let root = tempfile::tempdir().unwrap();
    write(
        &root.path().join("s/main.py"),
        b"def parse_contract_json(t):\n    return {}\n",
    );
    let not_a_folder = root.path().join("work-file");
    fs::write(&not_a_folder, "").unwrap();
    let json = root.path().join("report.json");
    let out = grade(
        &root.path().join("s"),
        &not_a_folder,
        &["--json", json.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: cannot store recordings in --work-dir ")
            && stderr.contains("work-file"),
        "{stderr}"
    );
    assert!(!json.exists(), "no report from a run that could not record");

    let (sub, cases) = (root.path().join("s"), cases());
    let out = run(&[
        "record".as_ref(),
        sub.as_os_str(),
        "--cases".as_ref(),
        cases.as_os_str(),
        "--work-dir".as_ref(),
        not_a_folder.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot store recordings"));
}

#[test]
fn a_missing_submissions_path_is_named_once() {
    let work = tempfile::tempdir().unwrap();
    let out = grade(Path::new("/no/such/submissions"), work.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("/no/such/submissions"), "{stderr}");
    assert_eq!(
        stderr.matches("No such file or directory").count(),
        1,
        "{stderr}"
    );
}

#[test]
fn a_recording_of_another_corpus_is_flagged_and_odd_ids_stay_on_one_line() {
    let root = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let rec = serde_json::json!({
        "format": autograder::recording::format::RECORDING_FORMAT,
        "submission": "x",
        "corpus_fingerprint": "0000",
        "harness": "browser/1",
        "isolation": "browser",
        "outcomes": {},
    });
    let id = "new\nline\u{1b}[31m";
    write(
        &root.path().join(id).join("recording.json"),
        rec.to_string().as_bytes(),
    );
    let out = grade(root.path(), work.path(), &[]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("another version of the corpus"), "{stdout}");
    assert!(!stdout.contains('\u{1b}'), "no escape reaches the terminal");
    let row = stdout.lines().nth(1).unwrap();
    assert!(row.starts_with("new\\nline\\x1b[31m "), "{row}");
}

#[test]
fn cases_check_warns_about_a_checkpoint_without_cases() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("cases");
    for rel in [
        "course.toml",
        "json-contract/parse_contract_json.toml",
        "tool-proposals/validate_tool_call.toml",
    ] {
        write(&corpus.join(rel), &fs::read(cases().join(rel)).unwrap());
    }
    let out = run(&[
        "cases".as_ref(),
        "check".as_ref(),
        "--cases".as_ref(),
        corpus.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "warning: checkpoint order_tool_results has no cases (no tool-proposals/order_tool_results.toml)"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("parse_contract_json"), "{stderr}");

    // grade says the same, and still grades.
    let sub = dir.path().join("s");
    write(&sub.join("main.py"), model_source().as_bytes());
    let out = grade_with(&corpus, &sub, &dir.path().join("work"), &[]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: checkpoint order_tool_results has no cases"),
        "{stderr}"
    );
}

#[test]
fn merge_of_a_truncated_report_says_why_once() {
    let dir = tempfile::tempdir().unwrap();
    let shard = dir.path().join("shard.json");
    fs::write(&shard, "{\"schema\":").unwrap();
    let out = run(&["merge".as_ref(), shard.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("shard.json"), "{stderr}");
    assert_eq!(stderr.matches("EOF while parsing").count(), 1, "{stderr}");
}

#[test]
fn gradescope_without_main_py_tells_the_student_in_results_json() {
    let dir = tempfile::tempdir().unwrap();
    let upload = dir.path().join("submission");
    write(&upload.join("solution.py"), model_source().as_bytes());
    let results = dir.path().join("results/results.json");
    let out = grade(
        &upload,
        &dir.path().join("work"),
        &["--gradescope", results.to_str().unwrap(), "--quiet"],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let doc: Value = serde_json::from_slice(&fs::read(&results).unwrap()).unwrap();
    assert_eq!(doc["score"], 0.0);
    let output = doc["output"].as_str().unwrap();
    assert!(
        output.starts_with("Your submission could not be graded: ")
            && output.ends_with("submission: no main.py or recording.json (it holds solution.py)"),
        "{output}"
    );
}

#[test]
fn ci_on_a_repository_without_main_py_writes_the_reports_and_fails() {
    // `grade . --junit --markdown --fail-under 100` in a student's repository
    // that holds no main.py (only .git and a misnamed file): the CI test
    // reporter and step summary must say why, and the job must fail.
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("student-repo");
    write(&repo.join("solution.py"), model_source().as_bytes());
    write(&repo.join(".git/HEAD"), b"ref: refs/heads/main\n");
    let (junit, summary) = (dir.path().join("junit.xml"), dir.path().join("summary.md"));
    let why = "student-repo: no main.py or recording.json (it holds solution.py)";
    for extra in [&["--fail-under", "100"][..], &[]] {
        let _ = fs::remove_file(&junit);
        let _ = fs::remove_file(&summary);
        let mut args = vec![
            "--junit",
            junit.to_str().unwrap(),
            "--markdown",
            summary.to_str().unwrap(),
        ];
        args.extend(extra);
        let out = grade(&repo, &dir.path().join("work"), &args);
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr.matches("student-repo: not graded: ").count(),
            1,
            "{stderr}"
        );
        assert!(stderr.trim_end().ends_with(why), "{stderr}");
        let junit_text = fs::read_to_string(&junit).unwrap();
        assert!(
            junit_text.contains("<failure") || junit_text.contains("<error"),
            "{junit_text}"
        );
        assert!(junit_text.contains(why), "{junit_text}");
        let md = fs::read_to_string(&summary).unwrap();
        assert!(md.contains("### student-repo: not graded"), "{md}");
        assert!(md.contains(why), "{md}");
    }

    // A PATH that is not a folder, or does not exist, stays a usage error.
    for path in [repo.join("solution.py"), dir.path().join("missing")] {
        let out = grade(
            &path,
            &dir.path().join("work"),
            &["--junit", junit.to_str().unwrap()],
        );
        assert_eq!(out.status.code(), Some(2), "{path:?}: {out:?}");
    }
}

#[test]
fn folder_names_that_are_not_utf8_keep_distinct_ids() {
    use std::os::unix::ffi::OsStrExt;
    let root = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    for name in [&b"\xff"[..], &b"\xfe"[..]] {
        let dir = root.path().join(std::ffi::OsStr::from_bytes(name));
        write(&dir.join("main.py"), model_source().as_bytes());
    }
    let json = work.path().join("report.json");
    let out = grade(
        root.path(),
        &work.path().join("work"),
        &["--json", json.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&fs::read(&json).unwrap()).unwrap();
    let ids: Vec<&str> = submissions(&report)
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["\\xfe", "\\xff"]);
    // So the report can be merged (merge refuses an id seen twice).
    let out = run(&["merge".as_ref(), json.as_os_str(), "--quiet".as_ref()]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

#[test]
fn a_recording_committed_in_the_students_own_folder_is_never_reused() {
    // CI runs `grade .` in the student's repository, so the default work dir
    // `.autograder/` is inside the submission: a student could commit a
    // "cached" perfect recording there for their own (wrong) source.
    let dir = tempfile::tempdir().unwrap();
    let model_dir = dir.path().join("model");
    write(&model_dir.join("main.py"), model_source().as_bytes());
    let model_work = dir.path().join("model-work");
    assert_eq!(grade(&model_dir, &model_work, &[]).status.code(), Some(0));
    // The model's stored outcomes, forged for a wrong source.
    use autograder::recording::case_store::{read_store_file, store_path, write_store};
    let stored = walkdir::WalkDir::new(model_work.join("store"))
        .into_iter()
        .flatten()
        .find(|e| e.file_type().is_file())
        .expect("grade stored the model's outcomes");
    let mut forged = read_store_file(stored.path()).expect("the store reads back");
    assert_eq!(forged.source_sha256, sha256_hex(model_source().as_bytes()));

    let stu = dir.path().join("stu");
    let wrong = b"def parse_contract_json(text):\n    return {}\n";
    write(&stu.join("main.py"), wrong);
    forged.source_sha256 = sha256_hex(wrong);
    let forged_path = store_path(
        &stu.join(".autograder"),
        &forged.source_sha256,
        &forged.made,
    );
    write_store(&forged_path, &forged).unwrap();
    // (Outside the student's folder, the same file would be used.)
    let elsewhere = dir.path().join("elsewhere");
    write_store(
        &store_path(&elsewhere, &forged.source_sha256, &forged.made),
        &forged,
    )
    .unwrap();
    let reused = grade(&stu, &elsewhere, &["--fail-under", "100"]);
    assert_eq!(reused.status.code(), Some(0), "{reused:?}");
    let json = dir.path().join("report.json");
    let out = Command::new(env!("CARGO_BIN_EXE_autograder"))
        .current_dir(&stu)
        .args(["grade", ".", "--cases"])
        .arg(cases())
        .args(["--fail-under", "100", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let report: Value = serde_json::from_slice(&fs::read(&json).unwrap()).unwrap();
    let s = by_id(&report, "stu");
    assert_eq!(s["status"], "graded");
    assert!(s["points"].as_f64().unwrap() < s["max_points"].as_f64().unwrap());
}

#[test]
fn main_py_only_refuses_shipped_recordings() {
    let root = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    write(&root.path().join("ok/main.py"), model_source().as_bytes());
    write(&root.path().join("shipped/recording.json"), b"{}");
    let json = work.path().join("report.json");
    let out = grade(
        root.path(),
        &work.path().join("work"),
        &["--main-py-only", "--json", json.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report: Value = serde_json::from_slice(&fs::read(&json).unwrap()).unwrap();
    assert_eq!(by_id(&report, "ok")["status"], "graded");
    let shipped = by_id(&report, "shipped");
    assert_eq!(shipped["status"], "error");
    assert!(shipped["error"]
        .as_str()
        .unwrap()
        .ends_with("shipped/recording.json: a shipped recording is not accepted (--main-py-only); submit main.py"));
}

#[test]
fn a_missing_default_corpus_says_how_to_point_at_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_autograder"))
        .current_dir(dir.path())
        .args(["cases", "check"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cases: no such folder") && stderr.contains("--cases DIR"),
        "{stderr}"
    );
}

#[test]
fn record_says_when_a_shipped_recording_answers_another_corpus() {
    let root = tempfile::tempdir().unwrap();
    let rec = serde_json::json!({
        "format": autograder::recording::format::RECORDING_FORMAT,
        "submission": "browser",
        "corpus_fingerprint": "0000",
        "harness": "browser/1",
        "isolation": "browser",
        "outcomes": {},
    });
    let sub = root.path().join("browser");
    write(&sub.join("recording.json"), rec.to_string().as_bytes());
    let (cases, work) = (cases(), root.path().join("work"));
    let out = run(&[
        "record".as_ref(),
        sub.as_os_str(),
        "--cases".as_ref(),
        cases.as_os_str(),
        "--work-dir".as_ref(),
        work.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("browser  0 cases:  [browser] — answers another version of the corpus"),
        "{stdout}"
    );
}

#[test]
fn grade_refuses_a_corpus_whose_pin_the_core_contradicts() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("cases");
    for rel in [
        "course.toml",
        "json-contract/parse_contract_json.toml",
        "tool-proposals/validate_tool_call.toml",
        "tool-proposals/order_tool_results.toml",
    ] {
        write(&corpus.join(rel), &fs::read(cases().join(rel)).unwrap());
    }
    // A case whose pin says it returns while the core raises.
    let file = corpus.join("json-contract/parse_contract_json.toml");
    let mut text = fs::read_to_string(&file).unwrap();
    text.push_str(
        "\n[[case]]\nid = \"wrong-pin\"\ncall = \"parse_contract_json('[]')\"\ntags = [\"wrong-types\"]\nexpect = \"[]\"\n",
    );
    fs::write(&file, &text).unwrap();
    let line = text
        .lines()
        .position(|l| l == "id = \"wrong-pin\"")
        .unwrap();
    let sub = dir.path().join("s");
    write(&sub.join("main.py"), model_source().as_bytes());
    let out = grade_with(&corpus, &sub, &dir.path().join("work"), &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The [[case]] header is the line above the id.
    let at = format!("parse_contract_json.toml:{line}: case parse_contract_json/wrong-pin: the pin says [] but the core gives raises ValueError");
    assert!(stderr.contains(&at), "{stderr}");
}

#[test]
fn gradescope_grades_the_one_main_py_among_upload_leftovers() {
    // An archive unpacked as project/main.py, with a docs/ folder and the
    // __MACOSX/ resource forks macOS adds: one submission, graded.
    let dir = tempfile::tempdir().unwrap();
    let upload = dir.path().join("submission");
    write(&upload.join("project/main.py"), model_source().as_bytes());
    write(&upload.join("docs/notes.md"), b"notes");
    write(
        &upload.join("__MACOSX/project/._main.py"),
        b"\0\x05\x16\x07",
    );
    let results = dir.path().join("results.json");
    let out = grade(
        &upload,
        &dir.path().join("work"),
        &["--gradescope", results.to_str().unwrap(), "--quiet"],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let doc: Value = serde_json::from_slice(&fs::read(&results).unwrap()).unwrap();
    assert_eq!(doc["score"], doc["max_score"], "{doc}");

    // Two folders with nothing to grade: the report lists what was uploaded.
    fs::remove_dir_all(upload.join("project")).unwrap();
    write(&upload.join("src/solution.py"), b"pass\n");
    let out = grade(
        &upload,
        &dir.path().join("work"),
        &["--gradescope", results.to_str().unwrap(), "--quiet"],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let doc: Value = serde_json::from_slice(&fs::read(&results).unwrap()).unwrap();
    assert_eq!(doc["score"], 0.0);
    let output = doc["output"].as_str().unwrap();
    assert!(
        output.ends_with("submission: no main.py or recording.json (it holds docs/, src/)"),
        "{output}"
    );
}

#[test]
fn gradescope_with_two_folders_holding_main_py_tells_the_student_in_results_json() {
    // `v1/main.py` and `v2/main.py`: nothing to choose between, so the
    // student is told what was found and what to upload (not Gradescope's
    // generic failure for a missing results.json).
    let dir = tempfile::tempdir().unwrap();
    let upload = dir.path().join("submission");
    write(&upload.join("v1/main.py"), model_source().as_bytes());
    write(&upload.join("v2/main.py"), model_source().as_bytes());
    write(&upload.join("notes/todo.md"), b"todo");
    let results = dir.path().join("results.json");
    let out = grade(
        &upload,
        &dir.path().join("work"),
        &["--gradescope", results.to_str().unwrap(), "--quiet"],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let doc: Value = serde_json::from_slice(&fs::read(&results).unwrap()).unwrap();
    assert_eq!(doc["score"], 0.0);
    assert!(doc["max_score"].as_f64().unwrap() > 0.0, "{doc}");
    let output = doc["output"].as_str().unwrap();
    assert!(
        output.starts_with("Your submission could not be graded: ")
            && output.contains("2 folders hold a submission (v1/main.py, v2/main.py)")
            && output.contains("upload exactly one main.py"),
        "{output}"
    );
}

#[test]
fn two_reports_into_one_file_is_a_usage_error() {
    let root = tempfile::tempdir().unwrap();
    write(&root.path().join("s/main.py"), model_source().as_bytes());
    let (json, csv) = (root.path().join("same.out"), root.path().join("./same.out"));
    let out = grade(
        &root.path().join("s"),
        &root.path().join("work"),
        &[
            "--json",
            json.to_str().unwrap(),
            "--csv",
            csv.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: --json and --csv both write ") && stderr.contains("same.out"),
        "{stderr}"
    );
    assert!(!json.exists());
}

/// A repository made by `package ci` holds its cases: that folder is never
/// a submission, so a repository without main.py is reported for its root,
/// with what it holds, never as `cases/<lesson>: no main.py`.
#[test]
fn the_corpus_folder_inside_the_graded_folder_is_never_a_submission() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("student-repo");
    let cases = repo.join("cases");
    copy_dir(&self::cases(), &cases);
    write(&repo.join("notes.txt"), b"main.py is not written yet\n");
    let out = grade_with(&cases, &repo, &dir.path().join("work"), &["--main-py-only"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The line as it reads unfolded (a long temporary path folds it).
    let unfolded: String = stdout.lines().map(str::trim_start).collect();
    assert!(
        unfolded
            .contains("student-repo: no main.py or recording.json (it holds cases/, notes.txt)"),
        "{stdout}"
    );
    assert!(
        !stdout.lines().any(|l| l.trim_start().starts_with("cases")),
        "{stdout}"
    );
    // With main.py at its root, the repository is the one submission.
    write(&repo.join("main.py"), model_source().as_bytes());
    let out = grade_with(&cases, &repo, &dir.path().join("work"), &["--main-py-only"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).into_iter().flatten() {
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            fs::create_dir_all(&target).unwrap();
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}
