//! `autograder record` end to end: exit codes, the summary line, where the
//! recordings go.

use std::path::Path;
use std::process::Command;

fn write_cases(dir: &Path) {
    std::fs::create_dir_all(dir.join("l")).unwrap();
    std::fs::write(
        dir.join("course.toml"),
        "title = \"t\"\n[[lesson]]\nid = \"l\"\ntitle = \"L\"\n  [[lesson.checkpoint]]\n  function = \"parse_contract_json\"\n  title = \"p\"\n  points = 1.0\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("l/parse_contract_json.toml"),
        "checkpoint = \"parse_contract_json\"\n[[case]]\nid = \"boom\"\ncall = \"parse_contract_json('boom')\"\ntags = [\"valid\"]\n[[case]]\nid = \"after\"\ncall = \"parse_contract_json('after')\"\ntags = [\"valid\"]\n",
    )
    .unwrap();
}

fn autograder(args: &[&str], cwd: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_autograder"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn record_writes_recordings_under_the_work_dir_and_summarises() {
    let tmp = tempfile::tempdir().unwrap();
    write_cases(&tmp.path().join("cases"));
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile");
    let subs = tmp.path().join("subs");
    for name in ["echo", "os-exit"] {
        std::fs::create_dir_all(subs.join(name)).unwrap();
        std::fs::copy(
            fixtures.join(name).join("main.py"),
            subs.join(name).join("main.py"),
        )
        .unwrap();
    }
    let (code, out, err) = autograder(&["record", "subs", "--case-timeout", "2"], tmp.path());
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("echo     2 cases: 2 returned"), "{out}");
    assert!(
        out.contains("os-exit  2 cases: 1 returned, 1 crashed"),
        "{out}"
    );
    let rec = tmp.path().join(".autograder/recordings/os-exit.json");
    let rec = autograder::record::read_recording(&rec).unwrap();
    assert_eq!(
        rec.outcomes["parse_contract_json/boom"],
        autograder::record::format::CaseOutcome::Crashed {
            exit_code: Some(3),
            signal: None
        }
    );
    // Nothing is written into the students' folders.
    let names: Vec<_> = std::fs::read_dir(subs.join("echo"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["main.py"]);
}

#[test]
fn usage_and_corpus_errors_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    write_cases(&tmp.path().join("cases"));
    let echo = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile/echo");
    let echo = echo.to_str().unwrap();
    let (code, _, err) = autograder(&["record", echo, "--isolation", "bogus"], tmp.path());
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("invalid value 'bogus' for '--isolation"),
        "{err}"
    );
    let (code, _, err) = autograder(&["record", echo, "--cases", "nowhere"], tmp.path());
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = autograder(&["record", "missing-folder"], tmp.path());
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = autograder(&["record", echo, "--case-timeout", "0"], tmp.path());
    assert_eq!(code, 2, "{err}");
}
