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
    let report = dir.join("report.json");
    let out = TestCommand::grade(path, &manifest().join("cases"), &dir.join("work"))
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
