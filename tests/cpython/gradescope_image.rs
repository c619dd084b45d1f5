//! The README's Gradescope recipe, run as written in a stand-in for each
//! Gradescope autograder image `package gradescope` names: `/usr/bin/python3`
//! is the CPython its Ubuntu ships (20.04: 3.8, 22.04: 3.10, 24.04: 3.12)
//! and bubblewrap is installed but cannot start (an unprivileged container
//! refuses its namespaces). Built, as root, in a private mount namespace
//! (`unshare --mount`): pyenv's CPython is bound over
//! `/usr/bin/python3`, a `bwrap` that fails over `/usr/bin/bwrap`, and a
//! 0755 `/root` holding only `.pyenv` over the 0700 one (a Gradescope image's
//! own CPython is world-readable too). Then `run_autograder`'s command:
//! landlock is chosen, `results.json` says so, the model solution scores
//! full marks, and a submission that reads the case files gets nothing of
//! them.

use crate::util::deploy::{cannot_run, cpython, fake_bwrap, in_namespace, repo, submission};
use serde_json::Value;
use std::fs;
use std::path::Path;

/// Runs `command` (a shell line) in the stand-in image; returns its output.
fn in_image(tmp: &Path, python_home: &Path, minor: &str, command: &str) -> std::process::Output {
    let pyenv_root = python_home
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == ".pyenv"))
        .expect("a pyenv folder");
    let hold = tmp.join("pyenv");
    fs::create_dir_all(&hold).unwrap();
    let fake_bwrap = fake_bwrap(tmp);
    let script = format!(
        "set -e
mount --bind {pyenv} {hold}
mount -t tmpfs -o mode=0755 tmpfs /root
mkdir /root/.pyenv
mount --bind {hold} /root/.pyenv
mount --bind {python} /usr/bin/python3
if [ -e /usr/bin/bwrap ]; then mount --bind {fake} /usr/bin/bwrap; fi
/usr/bin/python3 --version
{command}",
        pyenv = pyenv_root.display(),
        hold = hold.display(),
        python = python_home.join(format!("bin/python{minor}")).display(),
        fake = fake_bwrap.display(),
    );
    in_namespace(&script)
}

/// The Ubuntu images `package gradescope` names, by the CPython they ship.
const IMAGES: [(&str, &str); 3] = [("20.04", "3.8"), ("22.04", "3.10"), ("24.04", "3.12")];

#[test]
fn the_gradescope_recipe_works_with_each_images_cpython_and_no_usable_bwrap() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Cpython) {
        return;
    }
    if !autograder::runner::sandbox::is_root() {
        return cannot_run("the Gradescope image stand-in needs root (a private mount namespace)");
    }
    for (ubuntu, minor) in IMAGES {
        let Some(python_home) = cpython(minor) else {
            return cannot_run(&format!(
                "the Gradescope image stand-in for Ubuntu {ubuntu} needs pyenv's CPython {minor}"
            ));
        };
        in_each_image(&python_home, minor);
    }
}

fn in_each_image(python_home: &Path, minor: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let model = fs::read_to_string(repo().join("submissions/model-solution/main.py")).unwrap();
    let case_file = repo().join("cases/tool-proposals/validate_tool_call.toml");
    let leak = format!(
        "import glob\n\n\ndef parse_contract_json(text):\n    found = []\n    for p in glob.glob({:?}) + [{:?}]:\n        try:\n            found.append(open(p).read())\n        except OSError as e:\n            found.append(type(e).__name__)\n    return found\n",
        format!("{}/cases/*/*.toml", repo().display()),
        case_file.display().to_string(),
    );
    let subs = [
        ("model", submission(tmp.path(), "model", &model)),
        ("leak", submission(tmp.path(), "leak", &leak)),
    ];
    let binary = env!("CARGO_BIN_EXE_autograder");
    for (name, dir) in &subs {
        let results = tmp.path().join(format!("results-{name}.json"));
        // run_autograder, as the README writes it.
        let command = format!(
            "cd {source} && {binary} grade {submission} --cases cases --main-py-only --gradescope {results} --quiet",
            source = repo().display(),
            submission = dir.display(),
            results = results.display(),
        );
        let out = in_image(tmp.path(), python_home, minor, &command);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name}: {stdout}\n{stderr}");
        assert!(stdout.contains(&format!("Python {minor}.")), "{stdout}");
        assert!(
            stderr.contains(&format!("sandbox: landlock · CPython {minor}.")),
            "{stderr}"
        );
        assert!(stderr.contains("bubblewrap is not usable here"), "{stderr}");
        let text = fs::read_to_string(&results).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["extra_data"]["isolation"][0], "landlock", "{name}");
        assert!(v["extra_data"]["python"][0]
            .as_str()
            .unwrap()
            .starts_with(&format!("{minor}.")));
        // No hidden test (Gradescope would show students no total): the
        // environment is in extra_data.
        assert!(
            v["tests"]
                .as_array()
                .unwrap()
                .iter()
                .all(|t| t["visibility"] != "hidden"),
            "{text}"
        );
        assert!(v["extra_data"]["sandbox"]
            .as_str()
            .unwrap()
            .contains("landlock: ABI"));
        if *name == "model" {
            assert_eq!(v["score"], v["max_score"], "{text}");
        } else {
            let corpus = fs::read_to_string(&case_file).unwrap();
            for line in corpus.lines().filter(|l| l.starts_with("call = ")) {
                assert!(
                    !text.contains(line),
                    "a case file's line reached results.json: {line}"
                );
            }
            assert!(
                !text.contains("checkpoint = "),
                "a case file reached results.json"
            );
            // The student's code ran, and its reads were refused.
            assert!(text.contains("PermissionError"), "{text}");
        }
    }
    say!("Gradescope image stand-in: CPython {minor} at /usr/bin/python3, bwrap unusable: landlock chosen and reported");
}
