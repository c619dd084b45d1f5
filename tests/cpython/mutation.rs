//! The mutation check of the corpus: grading the bundled `submissions/`, the
//! model solution scores 100% on every checkpoint and every buggy submission
//! scores below 100% on the checkpoint its row in `submissions/README.md`
//! names. The README table is parsed here, so the two never drift.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

const MODEL: &str = "model-solution";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One row of the README table: a buggy folder and the checkpoint it must fail.
#[derive(Debug)]
struct Row {
    folder: String,
    checkpoint: String,
}

/// Reads `| `folder` | mistake | `checkpoint` |` rows (header and rule skipped).
fn readme_rows(readme: &str) -> Vec<Row> {
    let mut rows = Vec::new();
    for line in readme.lines() {
        let line = line.trim();
        if !line.starts_with('|') {
            continue;
        }
        // A `\|` inside the mistake text is not a column separator.
        let cells: Vec<String> = line
            .replace("\\|", "\u{0}")
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().replace('\u{0}', "|"))
            .collect();
        let first = cells.first().map(String::as_str).unwrap_or("");
        if cells.len() != 3 || first == "folder" || first.starts_with("---") {
            continue;
        }
        let code = |c: &str| c.trim_matches('`').to_string();
        rows.push(Row {
            folder: code(&cells[0]),
            checkpoint: code(&cells[2]),
        });
    }
    rows
}

fn submission_folders(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .expect("submissions/ is readable")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("main.py").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

fn checkpoint_ids() -> BTreeSet<String> {
    let course = std::fs::read_to_string(repo().join("cases/course.toml")).expect("course.toml");
    let value: toml::Value = toml::from_str(&course).expect("course.toml parses");
    let mut ids = BTreeSet::new();
    for lesson in value["lesson"].as_array().expect("lessons") {
        for cp in lesson["checkpoint"].as_array().expect("checkpoints") {
            ids.insert(cp["function"].as_str().expect("function").to_string());
        }
    }
    ids
}

#[test]
fn readme_table_matches_the_submission_folders() {
    let dir = repo().join("submissions");
    let readme = std::fs::read_to_string(dir.join("README.md")).expect("submissions/README.md");
    let rows = readme_rows(&readme);
    let listed: BTreeSet<String> = rows.iter().map(|r| r.folder.clone()).collect();
    assert_eq!(listed.len(), rows.len(), "a folder is listed twice");
    let mut on_disk = submission_folders(&dir);
    assert!(
        on_disk.remove(MODEL),
        "submissions/{MODEL}/main.py is missing"
    );
    assert_eq!(listed, on_disk, "README rows and buggy folders differ");
    assert!(rows.len() >= 12, "only {} buggy submissions", rows.len());
    let checkpoints = checkpoint_ids();
    for r in &rows {
        assert!(
            checkpoints.contains(&r.checkpoint),
            "row {}: unknown checkpoint {}",
            r.folder,
            r.checkpoint
        );
    }
}

/// checkpoint id -> (score, passed) for each submission id in a JSON report.
fn scores(report: &serde_json::Value) -> BTreeMap<String, BTreeMap<String, (f64, bool)>> {
    let mut out = BTreeMap::new();
    for sub in report["submissions"].as_array().expect("submissions") {
        let id = sub["id"].as_str().expect("id").to_string();
        assert_eq!(
            sub["status"], "graded",
            "{id} was not graded: {}",
            sub["error"]
        );
        let mut cps = BTreeMap::new();
        for cp in sub["checkpoints"].as_array().expect("checkpoints") {
            cps.insert(
                cp["id"].as_str().expect("checkpoint id").to_string(),
                (
                    cp["score"].as_f64().expect("score"),
                    cp["passed"].as_bool().expect("passed"),
                ),
            );
        }
        out.insert(id, cps);
    }
    out
}

#[test]
fn every_buggy_submission_fails_its_checkpoint() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Cpython) {
        return;
    }
    let root = repo();
    let readme =
        std::fs::read_to_string(root.join("submissions/README.md")).expect("submissions/README.md");
    let rows = readme_rows(&readme);
    let tmp = tempfile::tempdir().expect("temp dir");
    let report_path = tmp.path().join("report.json");
    let out = Command::new(env!("CARGO_BIN_EXE_autograder"))
        .arg("grade")
        .arg(root.join("submissions"))
        .arg("--cases")
        .arg(root.join("cases"))
        .arg("--work-dir")
        .arg(tmp.path().join("work"))
        .arg("--no-cache")
        .arg("--quiet")
        .arg("--json")
        .arg(&report_path)
        .output()
        .expect("autograder runs");
    assert!(
        out.status.success(),
        "autograder grade failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report_path).expect("report written"))
            .expect("report is JSON");
    let scores = scores(&report);

    let model = scores.get(MODEL).expect("the model solution was graded");
    assert_eq!(
        model.len(),
        checkpoint_ids().len(),
        "model solution: checkpoints missing"
    );
    for (cp, (score, passed)) in model {
        assert!(
            *passed && *score == 1.0,
            "the model solution scores {score} on {cp}"
        );
    }

    let mut caught = 0;
    let mut missed = Vec::new();
    for r in &rows {
        let sub = scores
            .get(&r.folder)
            .unwrap_or_else(|| panic!("{} was not graded", r.folder));
        let (score, passed) = sub
            .get(&r.checkpoint)
            .unwrap_or_else(|| panic!("{} has no checkpoint {}", r.folder, r.checkpoint));
        let below: Vec<String> = sub
            .iter()
            .filter(|(_, (s, _))| *s < 1.0)
            .map(|(cp, (s, _))| format!("{cp} {:.0}%", s * 100.0))
            .collect();
        if !passed && *score < 1.0 {
            caught += 1;
            say!("caught  {:28} {}", r.folder, below.join(", "));
        } else {
            say!("MISSED  {:28} {} scores {score}", r.folder, r.checkpoint);
            missed.push(r.folder.clone());
        }
    }
    say!(
        "mutation score: {caught}/{} buggy submissions caught",
        rows.len()
    );
    assert!(
        missed.is_empty(),
        "not caught on their checkpoint: {missed:?}"
    );
}

#[test]
fn readme_rows_parse_escaped_pipes_and_skip_the_header() {
    let text = "| folder | mistake | must fail |\n|---|---|---|\n\
                | `a-b` | uses `x \\| y` | `execute_tool` |\n\
                not a row\n";
    let rows = readme_rows(text);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].folder, "a-b");
    assert_eq!(rows[0].checkpoint, "execute_tool");
}
