//! The harness runs on every CPython from 3.8 (Ubuntu 20.04) to 3.13: the
//! model solution and every hostile fixture, graded on the bundled corpus
//! with each interpreter pyenv has here, get identical grades. A version that
//! is not installed prints a skip line naming it. (The refusal of 3.6 and 3.7
//! is in tests/grader_faults.rs.)

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// pyenv's folder of installed versions, if pyenv is here.
fn pyenv_versions() -> Option<PathBuf> {
    let out = Command::new("pyenv").arg("root").output().ok()?;
    let root = String::from_utf8_lossy(&out.stdout).trim().to_string();
    out.status
        .success()
        .then(|| Path::new(&root).join("versions"))
}

/// The newest installed `3.minor.x` interpreter.
fn installed(versions: &Path, minor: u32) -> Option<PathBuf> {
    let prefix = format!("3.{minor}.");
    let mut found: Vec<(u32, PathBuf)> = fs::read_dir(versions)
        .ok()?
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let micro = name.strip_prefix(&prefix)?.parse().ok()?;
            let python = e.path().join("bin/python3");
            python.is_file().then_some((micro, python))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, p)| p)
}

/// The model solution and every hostile fixture, each in its own folder.
fn submissions(root: &Path) -> PathBuf {
    let subs = root.join("subs");
    let copy = |from: &Path, id: &str| {
        let dir = subs.join(id);
        fs::create_dir_all(&dir).unwrap();
        fs::copy(from, dir.join("main.py")).unwrap();
    };
    copy(
        &repo().join("submissions/model-solution/main.py"),
        "model-solution",
    );
    for entry in fs::read_dir(repo().join("tests/fixtures/hostile")).unwrap() {
        let dir = entry.unwrap().path();
        let main = dir.join("main.py");
        if main.is_file() {
            copy(&main, &dir.file_name().unwrap().to_string_lossy());
        }
    }
    subs
}

#[test]
fn every_cpython_from_3_8_grades_the_model_and_the_hostile_fixtures_identically() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Cpython) {
        return;
    }
    let Some(versions) = pyenv_versions() else {
        say!("skipping: no pyenv here, so no other CPython to compare");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let subs = submissions(tmp.path());
    let mut gradebooks: Vec<(String, String)> = Vec::new();
    for minor in 8..=13 {
        let Some(python) = installed(&versions, minor) else {
            say!(
                "skipping CPython 3.{minor}: not installed under {}",
                versions.display()
            );
            continue;
        };
        let csv = tmp.path().join(format!("3.{minor}.csv"));
        // bwrap binds the interpreter's own folders, so a pyenv under a
        // 0700 /root works for the worker uid too.
        let out = Command::new(env!("CARGO_BIN_EXE_autograder"))
            .arg("grade")
            .arg(&subs)
            .arg("--work-dir")
            .arg(tmp.path().join(format!("work-3.{minor}")))
            .args(["--isolation", "bwrap", "--case-timeout", "2", "--quiet"])
            .arg("--python")
            .arg(&python)
            .arg("--csv")
            .arg(&csv)
            .current_dir(repo())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        if out.status.code() == Some(2) && err.contains("cannot run") {
            // Not root: pyenv under /root is out of this user's reach.
            say!("skipping CPython 3.{minor}: {}", err.trim());
            continue;
        }
        assert_eq!(out.status.code(), Some(0), "CPython 3.{minor}: {err}");
        assert!(err.contains(&format!("CPython 3.{minor}.")), "{err}");
        let text = fs::read_to_string(&csv).unwrap();
        let model = text
            .lines()
            .find(|l| l.starts_with("model-solution,"))
            .expect("the model solution's row");
        let (total, max) = {
            let header: Vec<&str> = text.lines().next().unwrap_or_default().split(',').collect();
            let cells: Vec<&str> = model.split(',').collect();
            let cell = |name: &str| {
                let at = header.iter().position(|h| *h == name);
                cells[at.unwrap_or_else(|| panic!("no {name} column"))]
            };
            (cell("total"), cell("max"))
        };
        assert_eq!(
            total, max,
            "CPython 3.{minor}: the model solution scored {model}"
        );
        gradebooks.push((format!("3.{minor}"), text));
    }
    say!(
        "graded {} submissions with CPython {}",
        fs::read_dir(&subs).unwrap().count(),
        gradebooks
            .iter()
            .map(|(v, _)| v.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let Some((first, reference)) = gradebooks.first() else {
        return;
    };
    for (version, text) in &gradebooks[1..] {
        if text != reference {
            let diff = similar::TextDiff::from_lines(reference.as_str(), text.as_str());
            panic!(
                "CPython {version} grades differently from {first}:\n{}",
                diff.unified_diff()
            );
        }
    }
}
