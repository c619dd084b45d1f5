//! The user's cache in the graded tree (issue 42, item 3): a CI job that
//! sets `XDG_CACHE_HOME` (or `HOME`) inside the student's checkout, where a
//! committed `.cache/autograder/harness/<name>.code` would be loaded as the
//! harness itself, outside the sandbox, as the grader's user. The planted
//! harness here says so on stderr and stops; the real tool is run as the
//! README's CI step runs it.

use crate::util::TestCommand;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const MAGIC: &str = "autograder-harness-code/1";
const KIND: &str = "harness";
const PLANTED: &str = "PLANTED HARNESS RAN";

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The README's CI step, in `repo`, with `env` set (and the cache
/// variables it does not set removed).
fn ci_step(repo: &Path, env: &[(&str, &Path)]) -> Output {
    let mut cmd = TestCommand::new();
    cmd.current_dir(repo)
        .env_remove("XDG_CACHE_HOME")
        .args(["grade", ".", "--cases"])
        .arg(manifest().join("cases"))
        .args([
            "--main-py-only",
            "--audience",
            "student",
            "--junit",
            "junit.xml",
            "--markdown",
            "summary.md",
            "--fail-under",
            "100",
        ]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output()
}

/// A genuine harness cache file's name and payload (tag line and code), as
/// a run of this binary on this machine keeps it.
fn genuine(tmp: &Path) -> (String, Vec<u8>) {
    let model = tmp.join("model");
    std::fs::create_dir_all(&model).unwrap();
    std::fs::copy(
        manifest().join("submissions/model-solution/main.py"),
        model.join("main.py"),
    )
    .unwrap();
    let scratch = tmp.join("scratch");
    let out = TestCommand::grade(&model, &manifest().join("cases"), &tmp.join("work"))
        .env("XDG_CACHE_HOME", &scratch)
        .args(["--main-py-only", "--quiet"])
        .output();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cache = scratch.join("autograder");
    let names: Vec<String> = std::fs::read_dir(cache.join(KIND))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    let name = names.into_iter().next().unwrap();
    let payload = autograder::user_cache::read(&cache, KIND, &name, MAGIC).expect("a sound file");
    (name, payload)
}

/// `payload` with harness.py's code replaced by code that says it ran and
/// stops (the other programs kept): what a student would commit.
fn planted(payload: &[u8]) -> Vec<u8> {
    let python = autograder::runner::Python::find(None).unwrap();
    let script = r#"
import marshal, sys
tag, code = sys.stdin.buffer.read().split(b"\n", 1)
programs = marshal.loads(code)
evil = compile(
    "import os\nos.write(2, b'PLANTED HARNESS RAN as uid %d\\n' % os.getuid())\nos._exit(3)\n",
    "harness.py", "exec")
sys.stdout.buffer.write(tag + b"\n" + marshal.dumps(programs[:3] + (evil,)))
"#;
    let mut child = Command::new(&python.executable)
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(payload).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    out.stdout
}

/// The frame anyone can write: magic, the payload's SHA-256, the payload.
fn framed_by_hand(payload: &[u8]) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    let mut out = format!("{MAGIC}\n{}\n", hex::encode(Sha256::digest(payload))).into_bytes();
    out.extend_from_slice(payload);
    out
}

/// Puts `payload` in the cache folder `cache` as `name`, framed by hand or
/// by this build's own writer; returns the file.
fn plant(cache: &Path, name: &str, payload: &[u8], by_hand: bool) -> PathBuf {
    let _ = std::fs::remove_dir_all(cache);
    if by_hand {
        std::fs::create_dir_all(cache.join(KIND)).unwrap();
        std::fs::write(cache.join(KIND).join(name), framed_by_hand(payload)).unwrap();
    } else {
        autograder::user_cache::write(cache, KIND, name, MAGIC, payload).unwrap();
    }
    cache.join(KIND).join(name)
}

fn junit_failures(repo: &Path) -> usize {
    let junit = std::fs::read_to_string(repo.join("junit.xml")).unwrap_or_default();
    let doc = roxmltree::Document::parse(&junit).expect("junit.xml");
    doc.root_element()
        .attribute("failures")
        .unwrap()
        .parse()
        .unwrap()
}

/// A genuine cache file's name, the planted payload, and the student's
/// checkout: a git repository whose main.py implements nothing.
fn fixture(tmp: &Path) -> (String, Vec<u8>, PathBuf) {
    let (name, payload) = genuine(tmp);
    let evil = planted(&payload);
    let repo = tmp.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let git = Command::new("git")
        .args(["init", "-q", "."])
        .current_dir(&repo)
        .status()
        .unwrap();
    assert!(git.success());
    std::fs::write(repo.join("main.py"), "# nothing yet\n").unwrap();
    (name, evil, repo)
}

#[test]
fn a_harness_cache_planted_in_the_students_checkout_is_never_run() {
    let tmp = tempfile::tempdir().unwrap();
    let (name, evil, repo) = fixture(tmp.path());
    let dot_cache = repo.join(".cache");
    let committed = dot_cache.join("autograder");
    // Framed by hand, or by this build's writer (as if its key were known):
    // refused for where it is, whatever it holds.
    for by_hand in [true, false] {
        for var in ["XDG_CACHE_HOME", "HOME"] {
            let value = if var == "HOME" { &repo } else { &dot_cache };
            let file = plant(&committed, &name, &evil, by_hand);
            let before = std::fs::read(&file).unwrap();
            let _ = std::fs::remove_file(repo.join("junit.xml"));
            let out = ci_step(&repo, &[(var, value)]);
            let stderr = String::from_utf8_lossy(&out.stderr);
            let what = format!("{var} in the checkout, framed by hand: {by_hand}\n{stderr}");
            assert!(!stderr.contains(PLANTED), "{what}");
            assert_eq!(out.status.code(), Some(1), "{what}");
            assert!(junit_failures(&repo) > 0, "{what}");
            // Said in one line; the folder neither read nor written.
            let said: Vec<&str> = stderr
                .lines()
                .filter(|l| l.contains("cache") && l.contains(&*committed.to_string_lossy()))
                .collect();
            assert_eq!(said.len(), 1, "{what}");
            assert!(said[0].contains("not used"), "{what}");
            assert_eq!(std::fs::read(&file).unwrap(), before, "{what}");
            assert!(!committed.join("corpus").exists(), "{what}");
        }
    }
    // The same file in the user's own folder, outside the checkout, written
    // by this build, is the user's own file, and run: the fixture is potent,
    // and what is refused above is refused for where it lies.
    let own = tmp.path().join("xdg");
    plant(&own.join("autograder"), &name, &evil, false);
    let out = ci_step(&repo, &[("XDG_CACHE_HOME", &own)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(PLANTED), "{stderr}");
}

#[test]
fn a_harness_cache_this_build_did_not_write_is_not_run() {
    let tmp = tempfile::tempdir().unwrap();
    let (name, evil, repo) = fixture(tmp.path());
    // In the user's own folder, outside every graded tree: framed by hand
    // (a digest anyone can compute, no key of this build), it is not run,
    // and the run's own programs replace it.
    let own = tmp.path().join("xdg");
    let file = plant(&own.join("autograder"), &name, &evil, true);
    let out = ci_step(&repo, &[("XDG_CACHE_HOME", &own)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains(PLANTED), "{stderr}");
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(junit_failures(&repo) > 0, "{stderr}");
    let kept = std::fs::read(&file).unwrap();
    assert_ne!(kept, framed_by_hand(&evil));
    assert!(autograder::user_cache::read(&own.join("autograder"), KIND, &name, MAGIC).is_some());
}
