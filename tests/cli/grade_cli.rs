//! `autograder grade` as a user runs it: arguments, exit codes, reports.

use std::process::Command;

fn autograder() -> Command {
    Command::new(env!("CARGO_BIN_EXE_autograder"))
}

#[test]
fn a_bad_fail_under_is_a_usage_error() {
    for bad in ["150", "-1", "abc", "nan"] {
        let out = autograder()
            .args(["grade", "--fail-under", bad])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--fail-under {bad}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("percentage"));
    }
}

#[test]
fn a_bad_case_timeout_is_a_usage_error() {
    for bad in ["0", "-2", "inf"] {
        let out = autograder()
            .args(["grade", "--case-timeout", bad])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--case-timeout {bad}");
    }
}

#[test]
fn a_missing_corpus_is_an_input_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = autograder()
        .current_dir(dir.path())
        .args(["grade", "--cases", "no-such-folder"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: ") && err.contains("no-such-folder"),
        "{err}"
    );
}
