//! Mutation analysis of the corpus: `scripts/mutate.py --check` mutates the
//! model solution (off-by-one limits, `<` for `<=`, isinstance for
//! `type(...) is`, dropped guards and hooks, missing copies...), grades every
//! mutant with this build and fails when a mutant survives (scores 100% on
//! every checkpoint) without being listed, with its reason, in
//! `tests/fixtures/mutation/equivalent.json`. See docs/mutation-testing.md.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn every_non_equivalent_mutant_of_the_model_solution_is_killed() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Cpython) {
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let python = ["python3", "/usr/bin/python3"]
        .into_iter()
        .find(|p| Command::new(p).arg("-c").arg("pass").output().is_ok());
    let Some(python) = python else {
        say!("skipped: no python3 to run scripts/mutate.py");
        return;
    };
    let out = Command::new(python)
        .arg(root.join("scripts/mutate.py"))
        .arg("--check")
        .arg("--autograder")
        .arg(env!("CARGO_BIN_EXE_autograder"))
        .arg("--cases")
        .arg(root.join("cases"))
        .output()
        .expect("mutate.py runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    for line in stdout
        .lines()
        .rev()
        .take(3)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
    {
        say!("{line}");
    }
    assert!(
        out.status.success(),
        "surviving or stale mutants ({}):\n{}\n{}",
        out.status,
        stdout
            .lines()
            .filter(|l| l.starts_with("SURVIVED") || l.starts_with("note:"))
            .collect::<Vec<_>>()
            .join("\n"),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("0 survived"),
        "no summary line in the output:\n{stdout}"
    );
}
