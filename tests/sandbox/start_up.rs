//! How a run starts: from an empty work dir, its first worker's harness
//! settles the interpreter and the sandbox tier itself (its hello line: the
//! probe's facts and, in bwrap, bwrap's check, run in its own sandbox), so
//! neither needs a process of its own; a run of one submission leaves the
//! common modules to its child, a batch's zygote warms them for its
//! children. Read off `--timings`, whose steps name what ran.

use crate::util::TestCommand;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `copies` folders holding the model solution under `dir/subs`.
fn model_copies(dir: &Path, copies: usize) -> PathBuf {
    let model = std::fs::read(manifest().join("submissions/model-solution/main.py")).unwrap();
    let subs = dir.join("subs");
    for i in 0..copies {
        let sub = subs.join(format!("s{i}"));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join("main.py"), &model).unwrap();
    }
    subs
}

/// Grades `path` from an empty work dir: its `--timings` lines, and each
/// submission's percent.
fn graded(dir: &Path, path: &Path, extra: &[&str]) -> (String, Vec<f64>) {
    graded_with(dir, path, extra, None)
}

/// [`graded`], its user's cache folder `cache` when given.
fn graded_with(
    dir: &Path,
    path: &Path,
    extra: &[&str],
    cache: Option<&Path>,
) -> (String, Vec<f64>) {
    let report = dir.join("report.json");
    let mut cmd = TestCommand::grade(path, &manifest().join("cases"), &dir.join("work"));
    if let Some(cache) = cache {
        cmd.env("XDG_CACHE_HOME", cache);
    }
    let out = cmd
        .args(["--timings", "--quiet", "--json"])
        .arg(&report)
        .args(extra)
        .output();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let report: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let percents = report["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["percent"].as_f64().unwrap())
        .collect();
    (stderr, percents)
}

#[test]
fn one_submission_is_settled_by_its_own_harness_which_warms_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let subs = model_copies(tmp.path(), 1);
    let (timings, percents) = graded(tmp.path(), &subs.join("s0"), &["--main-py-only"]);
    assert_eq!(percents, [100.0], "{timings}");
    assert!(
        timings.contains("settled by the harness started ahead")
            && timings.contains("harness: hello"),
        "{timings}"
    );
    for absent in [
        "interpreter probe",
        "sandbox tier resolved",
        "harness: warm imports",
    ] {
        assert!(!timings.contains(absent), "{absent}: {timings}");
    }
}

#[test]
fn a_batch_is_settled_the_same_way_and_its_zygote_warms_the_common_modules() {
    let tmp = tempfile::tempdir().unwrap();
    let subs = model_copies(tmp.path(), 2);
    let (timings, percents) = graded(tmp.path(), &subs, &["--no-cache"]);
    assert_eq!(percents, [100.0, 100.0], "{timings}");
    assert!(
        timings.contains("settled by the harness started ahead")
            && timings.contains("harness: warm imports")
            && !timings.contains("interpreter probe"),
        "{timings}"
    );
}

/// The one file of compiled programs under the cache folder `cache`.
fn cache_file(cache: &Path) -> PathBuf {
    let files: Vec<PathBuf> = std::fs::read_dir(cache.join("autograder/harness"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files.into_iter().next().unwrap()
}

/// Writes the cache file `file` as the grader does (src/runner/compiled.rs):
/// its magic, the MAC of the rest under this build's key, the tag (JSON)
/// and the code.
fn forge(file: &Path, tag: &str, code: &[u8]) {
    let mut rest = serde_json::to_vec(tag).unwrap();
    rest.push(b'\n');
    rest.extend_from_slice(code);
    let folder = file.parent().unwrap();
    let name = file.file_name().unwrap().to_str().unwrap();
    autograder::user_cache::write(
        folder.parent().unwrap(),
        "harness",
        name,
        "autograder-harness-code/1",
        &rest,
    )
    .unwrap();
}

/// The tag and code of a cache file.
fn tag_and_code(file: &[u8]) -> (String, Vec<u8>) {
    let mut parts = file.splitn(4, |&b| b == b'\n');
    let (_, _) = (parts.next(), parts.next());
    let tag: String = serde_json::from_slice(parts.next().unwrap()).unwrap();
    (tag, parts.next().unwrap().to_vec())
}

/// One copy of the model solution in `dir`, graded from an empty work dir
/// under --main-py-only with the user's cache folder `dir/xdg`: each call
/// (with more arguments) checks it got full marks and gives its --timings.
fn one_submission_cached(dir: &Path) -> impl Fn(&[&str]) -> String + '_ {
    let sub = model_copies(dir, 1).join("s0");
    move |extra| {
        let _ = std::fs::remove_dir_all(dir.join("work"));
        let extra: Vec<&str> = ["--main-py-only"].iter().chain(extra).copied().collect();
        let (timings, percents) = graded_with(dir, &sub, &extra, Some(&dir.join("xdg")));
        assert_eq!(percents, [100.0], "{timings}");
        timings
    }
}

#[test]
fn the_harness_programs_compiled_once_are_loaded_by_the_next_run_and_a_bad_copy_is_not() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("xdg");
    let graded = one_submission_cached(tmp.path());
    let run = |extra: &[&str]| {
        let timings = graded(extra);
        let loaded = timings.contains("harness: programs loaded (compiled by an earlier run)");
        assert_ne!(
            loaded,
            timings.contains("harness: programs compiled"),
            "{timings}"
        );
        loaded
    };
    // The first run compiles and keeps what it compiled; the next loads it.
    assert!(!run(&[]));
    let file = cache_file(&cache);
    let kept = std::fs::read(&file).unwrap();
    assert!(run(&[]));
    assert_eq!(std::fs::read(&file).unwrap(), kept);
    // --no-cache compiles, and leaves the file alone.
    std::fs::write(&file, b"not a cache file").unwrap();
    assert!(!run(&["--no-cache"]));
    assert_eq!(std::fs::read(&file).unwrap(), b"not a cache file");
    // A broken file is ignored and replaced.
    assert!(!run(&[]));
    assert_eq!(std::fs::read(&file).unwrap(), kept);
    let (tag, code) = tag_and_code(&kept);
    // Another interpreter's code (its tag), sound as a file: compiled again.
    forge(&file, "3.99.0 (another build)|0|cpython-399", &code);
    assert!(!run(&[]));
    assert_eq!(std::fs::read(&file).unwrap(), kept);
    // This interpreter's tag over code that is not the harness's programs
    // (marshalled, but of other things): the harness compiles its own.
    let python = autograder::runner::Python::find(None).unwrap();
    let not_programs = std::process::Command::new(&python.executable)
        .args(["-c", "import marshal,sys; sys.stdout.buffer.write(marshal.dumps((compile('x=1','sharing.py','exec'),)*3))"])
        .output()
        .unwrap()
        .stdout;
    for code in [
        &not_programs[..],
        b"\xff\x00 not marshal",
        &code[..code.len() / 2],
    ] {
        forge(&file, &tag, code);
        assert!(!run(&[]));
        assert_eq!(std::fs::read(&file).unwrap(), kept);
    }
}

#[test]
fn the_corpus_parsed_once_is_read_by_the_next_run_from_the_users_cache() {
    let tmp = tempfile::tempdir().unwrap();
    let graded = one_submission_cached(tmp.path());
    let run = |extra: &[&str]| {
        graded(extra).contains("cases parsed by an earlier run (the user's cache)")
    };
    let folder = tmp.path().join("xdg/autograder/corpus");
    assert!(!run(&["--no-cache"]));
    assert!(!folder.exists(), "--no-cache keeps nothing");
    assert!(!run(&[]));
    assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 1);
    assert!(run(&[]));
    // A file that is not the cache's is parsed over, and replaced.
    let file = std::fs::read_dir(&folder)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let kept = std::fs::read(&file).unwrap();
    std::fs::write(&file, b"autograder-corpus-cases/1\nnot a digest\n").unwrap();
    assert!(!run(&[]));
    assert_eq!(std::fs::read(&file).unwrap(), kept);
    assert!(run(&[]));
}
