//! Correct solutions the reference core was not written from: every folder
//! under `tests/fixtures/solutions/` holds a `main.py` written from
//! `checkpoints.md` alone, in a style unlike the model solution (dict
//! subclasses, ValueError subclasses, JSONDecoder subclasses, re.ASCII...).
//! A solution may cover only some lessons (`independent-d` is lesson 04):
//! graded through the CLI, each must score 100% on every checkpoint whose
//! function it defines, and every checkpoint of the course must be defined
//! by at least one solution. A lost case is a bug in a pin, in the core or
//! in grading.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn solution_folders() -> BTreeSet<String> {
    std::fs::read_dir(repo().join("tests/fixtures/solutions"))
        .expect("tests/fixtures/solutions is readable")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("main.py").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

fn checkpoint_names() -> Vec<String> {
    let course = std::fs::read_to_string(repo().join("cases/course.toml")).expect("course.toml");
    let value: toml::Value = toml::from_str(&course).expect("course.toml parses");
    value["lesson"]
        .as_array()
        .expect("lessons")
        .iter()
        .flat_map(|l| l["checkpoint"].as_array().cloned().unwrap_or_default())
        .map(|c| c["function"].as_str().expect("function").to_string())
        .collect()
}

fn checkpoint_count() -> usize {
    let course = std::fs::read_to_string(repo().join("cases/course.toml")).expect("course.toml");
    let value: toml::Value = toml::from_str(&course).expect("course.toml parses");
    value["lesson"]
        .as_array()
        .expect("lessons")
        .iter()
        .map(|l| l["checkpoint"].as_array().map_or(0, Vec::len))
        .sum()
}

#[test]
fn every_independent_solution_scores_full_marks() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Cpython) {
        return;
    }
    let folders = solution_folders();
    assert!(folders.len() >= 2, "only {folders:?}");
    let checkpoints = checkpoint_count();
    assert!(checkpoints > 0);

    let tmp = tempfile::tempdir().expect("temp dir");
    let report_path = tmp.path().join("report.json");
    let out = Command::new(env!("CARGO_BIN_EXE_autograder"))
        .arg("grade")
        .arg(repo().join("tests/fixtures/solutions"))
        .arg("--cases")
        .arg(repo().join("cases"))
        .arg("--work-dir")
        .arg(tmp.path().join("work"))
        .arg("--no-cache")
        .arg("--quiet")
        .arg("--fail-under")
        .arg("100")
        .arg("--json")
        .arg(&report_path)
        .output()
        .expect("autograder runs");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report_path).expect("report written"))
            .expect("report is JSON");

    let mut graded = BTreeSet::new();
    let mut problems = Vec::new();
    let mut covered: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for sub in report["submissions"].as_array().expect("submissions") {
        let id = sub["id"].as_str().expect("id").to_string();
        if sub["status"] != "graded" {
            problems.push(format!("{id}: not graded: {}", sub["error"]));
            continue;
        }
        let cps = sub["checkpoints"].as_array().expect("checkpoints");
        if cps.len() != checkpoints {
            problems.push(format!("{id}: {} checkpoints graded", cps.len()));
        }
        for cp in cps {
            let name = cp["id"].as_str().unwrap_or("?").to_string();
            // Not written by this solution: every case says so.
            let failures = cp["failures"].as_array().cloned().unwrap_or_default();
            let undefined = cp["cases_passed"] == 0
                && !failures.is_empty()
                && failures
                    .iter()
                    .all(|f| f["reason"] == "function not defined");
            if undefined {
                continue;
            }
            covered.entry(name).or_default().push(id.clone());
            if cp["passed"] == true && cp["score"] == 1.0 {
                continue;
            }
            for f in cp["failures"].as_array().into_iter().flatten() {
                problems.push(format!(
                    "{id}: {}/{}: {} (call {})",
                    cp["id"].as_str().unwrap_or("?"),
                    f["case"].as_str().unwrap_or("?"),
                    f["reason"].as_str().unwrap_or("?"),
                    f["call"].as_str().unwrap_or("?"),
                ));
            }
            problems.push(format!("{id}: {} scores {}", cp["id"], cp["score"]));
        }
        graded.insert(id);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(graded, folders, "every solution folder is graded");
    for cp in checkpoint_names() {
        let by = covered.get(&cp).cloned().unwrap_or_default();
        say!(
            "{cp}: 100% for {} independent solution(s): {}",
            by.len(),
            by.join(", ")
        );
        assert!(!by.is_empty(), "no independent solution defines {cp}");
    }
    // --fail-under 100 fails the partial solutions, and only those.
    let partial = folders.len() > covered.values().map(Vec::len).min().unwrap_or(0);
    assert_eq!(
        out.status.code(),
        Some(if partial { 1 } else { 0 }),
        "--fail-under 100: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
