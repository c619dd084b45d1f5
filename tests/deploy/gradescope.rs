//! `package gradescope`, run as Gradescope runs it: the zip unpacked into
//! /autograder/source, `setup.sh` once, then `/autograder/run_autograder` on
//! each upload in /autograder/submission, in a stand-in for Gradescope's
//! image (a private mount namespace: /usr/bin/python3 is CPython 3.10, the
//! installed bubblewrap cannot start). results.json is checked against
//! Gradescope's specification (`util::gradescope_spec`) and against
//! `autograder grade` on the host.

use crate::util::deploy::*;
use crate::util::gradescope_spec::checked;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

const ASSIGNMENT: &str = "tool-proposals";
/// The assignment's points in cases/course.toml (three checkpoints of 1).
const POINTS: f64 = 3.0;

/// Unpacks `zip` as Gradescope does and grades the upload `upload`; returns
/// the script's output and results.json.
fn run_as_gradescope(tmp: &Path, python_home: &Path, zip: &Path, upload: &Path) -> (String, Value) {
    let pyenv_root = python_home
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == ".pyenv"))
        .expect("a pyenv folder");
    let hold = tmp.join("pyenv-hold");
    fs::create_dir_all(&hold).unwrap();
    let fake = fake_bwrap(tmp);
    let results = tmp.join("results.json");
    let _ = fs::remove_file(&results);
    let script = format!(
        "set -e
mount --bind {pyenv} {hold}
mount -t tmpfs -o mode=0755 tmpfs /root
mkdir /root/.pyenv
mount --bind {hold} /root/.pyenv
mount --bind {python} /usr/bin/python3
{hide}mount -t tmpfs -o mode=0755 tmpfs /autograder
mkdir -p /autograder/source /autograder/submission /autograder/results
unzip -q {zip} -d /autograder/source
cp -R {upload}/. /autograder/submission/
cp /autograder/source/run_autograder /autograder/run_autograder
cd /autograder/source && bash ./setup.sh
cache=\"${{XDG_CACHE_HOME:-$HOME/.cache}}/autograder/harness\"
warmed=$(stat -c %i \"$cache\"/*.code)
set +e
/autograder/run_autograder
echo \"run_autograder exit $?\"
[ \"$(stat -c %i \"$cache\"/*.code)\" = \"$warmed\" ] && echo \"the programs setup.sh cached were loaded\"
cp /autograder/results/results.json {results} 2>/dev/null || true
",
        pyenv = pyenv_root.display(),
        hold = hold.display(),
        python = python_home.join("bin/python3.10").display(),
        hide = hide_bwrap(&fake),
        zip = quote(&zip.display().to_string()),
        upload = quote(&upload.display().to_string()),
        results = results.display(),
    );
    let out = in_namespace(&script);
    let log = format!("{}\n{}", text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{log}");
    // setup.sh's warm-up grade cached the harness's compiled programs, and
    // the student's run loaded them (the file was not replaced).
    assert!(
        log.contains("the programs setup.sh cached were loaded"),
        "{log}"
    );
    let json = fs::read(&results).unwrap_or_else(|_| panic!("no results.json:\n{log}"));
    (
        log,
        checked(&json, "results.json of the Gradescope stand-in"),
    )
}

/// Gradescope's score for `upload`, from `autograder grade` on this machine.
fn host_score(upload: &Path) -> f64 {
    let tmp = tempfile::tempdir().unwrap();
    let results = tmp.path().join("results.json");
    let out = autograder(
        &repo(),
        &[
            "grade",
            upload.to_str().unwrap(),
            "--cases",
            "cases",
            "--assignment",
            ASSIGNMENT,
            "--main-py-only",
            "--gradescope",
            results.to_str().unwrap(),
            "--quiet",
        ],
    );
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        text(&out.stderr)
    );
    let v: Value = serde_json::from_str(&fs::read_to_string(results).unwrap()).unwrap();
    v["score"].as_f64().unwrap()
}

#[test]
fn the_gradescope_zip_grades_as_gradescope_runs_it() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Deploy) {
        return;
    }
    if !is_root() {
        return cannot_run("the Gradescope stand-in needs root (a private mount namespace)");
    }
    let Some(python_home) = cpython_3_10() else {
        return cannot_run("the Gradescope stand-in needs pyenv's CPython 3.10");
    };
    // Gradescope's layout lives at /autograder; inside the namespace it is a
    // tmpfs, and the mount point is removed again if this test made it.
    let made = !Path::new("/autograder").exists();
    if made {
        fs::create_dir("/autograder").unwrap();
    }
    struct Remove(bool);
    impl Drop for Remove {
        fn drop(&mut self) {
            if self.0 {
                let _ = fs::remove_dir("/autograder");
            }
        }
    }
    let _remove = Remove(made);

    let tmp = shared_tempdir();
    let course = course(tmp.path());
    std::os::unix::fs::symlink(bin(), course.join("autograder")).unwrap();
    let out = run_recipe(2, &course, &[]);
    let zip = course.join("autograder.zip");
    expect_code(&out, 0, "package gradescope");
    // The assignment's hidden cases, as the corpus has them.
    let corpus = autograder::corpus::load(&repo().join("cases")).unwrap();
    let lesson = corpus
        .lessons
        .iter()
        .find(|l| l.id == "tool-proposals")
        .unwrap();
    let hidden = corpus
        .cases
        .iter()
        .filter(|c| lesson.checkpoints.iter().any(|cp| cp.id == c.checkpoint))
        .filter(|c| c.visibility == autograder::corpus::Visibility::Hidden)
        .count();
    assert!(
        text(&out.stdout).contains(&format!("({hidden} hidden)")),
        "{}",
        text(&out.stdout)
    );
    // The normal build needs a newer glibc than the portable one: said so.
    assert!(
        text(&out.stderr).contains("scripts/dist.sh"),
        "{}",
        text(&out.stderr)
    );
    let listing = text(
        &std::process::Command::new("unzip")
            .arg("-Z1")
            .arg(&zip)
            .output()
            .unwrap()
            .stdout,
    );
    let mut names: Vec<&str> = listing.lines().collect();
    names.sort();
    assert_eq!(
        names,
        [
            "autograder",
            "cases/course.toml",
            "cases/tool-proposals/execute_tool.toml",
            "cases/tool-proposals/order_tool_results.toml",
            "cases/tool-proposals/validate_tool_call.toml",
            "run_autograder",
            "setup.sh",
        ]
    );

    let uploads = tmp.path().join("uploads");
    let model = submission(&uploads, "model", &bundled("model-solution"));
    let buggy = submission(&uploads, "buggy", &bundled("returns-input-call"));
    let empty = uploads.join("empty");
    fs::create_dir_all(empty.join("notes")).unwrap();
    fs::write(empty.join("notes/solution.txt"), "def f(): pass\n").unwrap();
    let two = uploads.join("two");
    submission(&two, "v1", &bundled("model-solution"));
    submission(&two, "v2", &bundled("returns-input-call"));

    let buggy_host = host_score(&buggy);
    assert!(buggy_host < POINTS, "the buggy submission fails some case");
    let cases: [(&str, &PathBuf, Option<f64>); 4] = [
        ("model", &model, Some(POINTS)),
        ("buggy", &buggy, Some(buggy_host)),
        ("no main.py", &empty, None),
        ("two main.py", &two, None),
    ];
    for (name, upload, score) in cases {
        let (log, v) = run_as_gradescope(tmp.path(), &python_home, &zip, upload);
        assert_eq!(v["max_score"].as_f64(), Some(POINTS), "{name}: {v}");
        match score {
            Some(score) => {
                assert!(
                    log.contains("sandbox: landlock · CPython 3.10."),
                    "{name}: {log}"
                );
                assert_eq!(v["score"].as_f64(), Some(score), "{name}: {v}");
                assert_eq!(v["extra_data"]["isolation"][0], "landlock", "{name}");
                let tests = v["tests"].as_array().unwrap();
                let graded: f64 = tests.iter().filter_map(|t| t["score"].as_f64()).sum();
                assert!(
                    (graded - score).abs() < 1e-9,
                    "{name}: tests add up to {graded}: {v}"
                );
                assert!(
                    tests
                        .iter()
                        .any(|t| t["name"].as_str().unwrap().contains("validate_tool_call")),
                    "{v}"
                );
            }
            None => {
                assert_eq!(v["score"].as_f64(), Some(0.0), "{name}: {v}");
                let said = v.to_string();
                assert!(said.contains("main.py"), "{name}: says what to upload: {v}");
                if name == "two main.py" {
                    assert!(
                        said.contains("v1/main.py") && said.contains("v2/main.py"),
                        "{v}"
                    );
                }
            }
        }
    }
    say!("package gradescope: setup.sh and run_autograder under CPython 3.10 without bwrap: model {POINTS}/{POINTS}, buggy {buggy_host}/{POINTS}, missing and doubled main.py explained");
}
