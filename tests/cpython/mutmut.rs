//! The corpus proved by mutmut, a mutation tool no one here wrote:
//! `scripts/mutmut_corpus.py --check` mutates the model solution and every
//! independent solution with mutmut (the version the script pins; `.ci/run`
//! installs it), has this build's grader judge every mutant as
//! `autograder grade --main-py-only --fail-under 100` would, and fails on a
//! survivor that is neither message-only nor in the reviewed list
//! `tests/fixtures/mutation/mutmut-equivalent.toml`, on a listed mutant that
//! no longer survives, and on figures in docs/mutation-testing.md that are not
//! this run's. See docs/mutation-testing.md.

use std::path::PathBuf;
use std::process::Command;

use crate::util::deploy::cannot_run;
use crate::util::tier::{runs, Tier};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The script's exit status when mutmut is missing or not the pinned version.
const NO_MUTMUT: i32 = 3;

#[test]
fn mutmut_leaves_no_survivor_outside_the_reviewed_list() {
    if !runs(Tier::Cpython) {
        return;
    }
    let root = repo();
    let started = std::time::Instant::now();
    let out = match Command::new("python3")
        .arg(root.join("scripts/mutmut_corpus.py"))
        .arg("--check")
        .arg("--autograder")
        .arg(env!("CARGO_BIN_EXE_autograder"))
        .arg("--cases")
        .arg(root.join("cases"))
        .output()
    {
        Ok(out) => out,
        Err(e) => return cannot_run(&format!("no python3 to run scripts/mutmut_corpus.py: {e}")),
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(NO_MUTMUT) {
        return cannot_run(&format!("{} (.ci/run installs it)", stderr.trim()));
    }
    println!("{stdout}");
    for line in stdout.lines().filter(|l| l.contains(" mutants, ")) {
        say!("{line}");
    }
    say!(
        "mutmut on every solution: {:.0} s",
        started.elapsed().as_secs_f64()
    );
    assert!(
        out.status.success(),
        "mutmut left survivors outside the reviewed list, or the list or the doc is stale ({}):\n{}\n{stderr}",
        out.status,
        stdout
            .lines()
            .filter(|l| l.starts_with("SURVIVED") || l.starts_with("note:"))
            .collect::<Vec<_>>()
            .join("\n"),
    );
    // Every solution was mutated, one summary line each.
    let solutions = std::fs::read_dir(root.join("tests/fixtures/solutions"))
        .expect("tests/fixtures/solutions")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("main.py").is_file())
        .count();
    let summaries = stdout
        .lines()
        .filter(|l| l.contains(" mutants, ") || l.contains(": skipped, "))
        .count();
    assert_eq!(summaries, solutions + 1, "one line per solution:\n{stdout}");
}

/// The mutant issue 48 found: `check_tool_results` stops scanning
/// `user_parts` at the first part that is not a tool_result (`continue` made
/// `break`), so a tool_result after a text part, every tool_use being
/// answered already, goes unseen. A visible case must catch it.
#[test]
fn stopping_at_the_first_other_part_fails_a_visible_case() {
    if !runs(Tier::Cpython) {
        return;
    }
    let root = repo();
    let model = std::fs::read_to_string(root.join("submissions/model-solution/main.py"))
        .expect("the model solution");
    let scan = "            other_seen = True\n            continue\n";
    assert_eq!(
        model.matches(scan).count(),
        1,
        "the scan of user_parts moved"
    );
    let tmp = tempfile::tempdir().expect("temp dir");
    let folder = tmp.path().join("subs/stops-at-text");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("main.py"),
        model.replace(scan, "            other_seen = True\n            break\n"),
    )
    .unwrap();
    let report = tmp.path().join("report.json");
    let out = Command::new(env!("CARGO_BIN_EXE_autograder"))
        .arg("grade")
        .arg(tmp.path().join("subs"))
        .arg("--cases")
        .arg(root.join("cases"))
        .args(["--lesson", "tool-results", "--main-py-only", "-q", "--json"])
        .arg(&report)
        .arg("--work-dir")
        .arg(tmp.path().join("work"))
        .output()
        .expect("autograder runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let sub = &report["submissions"][0];
    assert_eq!(sub["status"], "graded", "{sub}");
    let failed: Vec<(String, String)> = sub["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| {
            let checkpoint = c["id"].as_str().unwrap_or_default().to_string();
            c["failures"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(move |f| {
                    (
                        format!("{checkpoint}/{}", f["case"].as_str().unwrap_or_default()),
                        f["visibility"].as_str().unwrap_or_default().to_string(),
                    )
                })
        })
        .collect();
    assert!(
        failed.contains(&(
            "check_tool_results/result-after-text-all-answered".to_string(),
            "visible".to_string()
        )),
        "the break mutant is not caught by the visible case: {failed:?}"
    );
}
