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

/// A folder with `cases/` (see [`write_cases`]) and `subs/` holding two
/// hostile fixtures: `echo` and `os-exit` (which exits on case `boom`).
fn echo_and_os_exit() -> tempfile::TempDir {
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
    tmp
}

#[test]
fn record_writes_recordings_under_the_work_dir_and_summarises() {
    let tmp = echo_and_os_exit();
    let (code, out, err) = autograder(&["record", "subs", "--case-timeout", "2"], tmp.path());
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("echo     2 cases: 2 returned"), "{out}");
    assert!(
        out.contains("os-exit  2 cases: 1 returned, 1 crashed"),
        "{out}"
    );
    let rec = tmp.path().join(".autograder/recordings/os-exit.json");
    let rec = autograder::recording::read_recording(&rec).unwrap();
    assert_eq!(
        rec.outcomes["parse_contract_json/boom"],
        autograder::recording::format::CaseOutcome::Crashed {
            exit_code: Some(3),
            signal: None
        }
    );
    // Nothing is written into the students' folders.
    let names: Vec<_> = std::fs::read_dir(tmp.path().join("subs/echo"))
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

/// The `recorded k/n submissions (p%)` lines of a run's stderr, as (k, n, p).
fn progress_lines(stderr: &str) -> Vec<(usize, usize, usize)> {
    stderr
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("recorded ")?;
            let (counts, pct) = rest.split_once(" submissions (")?;
            let (k, n) = counts.split_once('/')?;
            let pct = pct.strip_suffix("%)")?;
            Some((k.parse().ok()?, n.parse().ok()?, pct.parse().ok()?))
        })
        .collect()
}

#[test]
fn a_log_gets_plain_progress_lines_unless_quiet() {
    let tmp = tempfile::tempdir().unwrap();
    write_cases(&tmp.path().join("cases"));
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile");
    let subs = tmp.path().join("subs");
    for i in 0..4 {
        let dir = subs.join(format!("s{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(fixtures.join("echo/main.py"), dir.join("main.py")).unwrap();
    }
    // stderr is a pipe here, not a terminal: no bar, plain lines.
    let (code, out, err) = autograder(&["record", "subs", "--no-cache"], tmp.path());
    assert_eq!(code, 0, "{out}{err}");
    // 4 submissions: every one crosses a tenth of the run.
    assert_eq!(
        progress_lines(&err),
        [(1, 4, 25), (2, 4, 50), (3, 4, 75), (4, 4, 100)],
        "{err}"
    );
    assert!(!err.contains('\r') && !err.contains('\x1b'), "{err:?}");
    let (code, out, err) = autograder(
        &[
            "grade",
            "subs",
            "--no-cache",
            "--summary-only",
            "--cases",
            "cases",
        ],
        tmp.path(),
    );
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(progress_lines(&err).last(), Some(&(4, 4, 100)), "{err}");
    let (code, out, err) = autograder(
        &["grade", "subs", "--no-cache", "--quiet", "--cases", "cases"],
        tmp.path(),
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(progress_lines(&err).is_empty(), "{err}");
}

/// `grade --timings` says where the run went: store lookups that miss, then
/// (the next run) find every submission whole; both runs grade them all.
#[test]
fn grade_timings_count_what_the_store_held_and_what_was_graded() {
    let tmp = echo_and_os_exit();
    std::fs::create_dir_all(tmp.path().join("subs/unusable")).unwrap();
    let lines = |err: &str| -> Vec<String> {
        err.lines()
            .filter(|l| l.contains("store lookups") || l.trim_start().starts_with("grading"))
            .map(|l| {
                l.split_once(" s CPU ")
                    .or_else(|| l.split_once(" s wall "))
                    .map_or(l, |(_, counts)| counts)
                    .to_string()
            })
            .collect()
    };
    // The first run records both main.py submissions, the second finds them.
    for found in [0, 2] {
        let (code, out, err) = autograder(&["grade", "subs", "-q", "--timings"], tmp.path());
        assert_eq!(code, 0, "{out}{err}");
        let store = format!("(2 submissions looked up, {found} found whole)");
        assert_eq!(lines(&err), [store.as_str(), "(3 submissions)"], "{err}");
    }
    // Without the flag, none of it.
    let (_, _, err) = autograder(&["grade", "subs", "-q"], tmp.path());
    assert!(!err.contains("timings"), "{err}");
}
