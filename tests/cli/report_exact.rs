//! A score below full never prints as full, in any format: the model
//! solution's recording on the bundled corpus with one failing case of 246,
//! graded through the binary into every report, each read back by a real
//! reader (csv, serde_json).

use crate::util::grading as support;

use crate::util::TestCommand;
use autograder::recording::format::CaseOutcome;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

fn bundled_cases() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("cases")
}

/// `<root>/subs/model-solution/recording.json`: every case of the bundled
/// corpus answered as the reference core does, except one
/// `parse_contract_json` case, which timed out.
fn one_failure(root: &Path) -> PathBuf {
    let corpus = autograder::corpus::load(&bundled_cases()).expect("the bundled corpus loads");
    let mut rec = support::perfect_recording(&corpus, "model-solution");
    let first = corpus
        .cases
        .iter()
        .find(|c| c.checkpoint == "parse_contract_json")
        .expect("a parse_contract_json case");
    rec.outcomes.insert(
        first.id.clone(),
        CaseOutcome::Timeout {
            seconds: 2.0,
            submission_budget: None,
        },
    );
    let dir = root.join("subs").join("model-solution");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("recording.json"),
        serde_json::to_vec(&rec).unwrap(),
    )
    .unwrap();
    dir
}

fn grade(path: &Path, work: &Path, extra: &[&str]) -> Output {
    TestCommand::grade(path, &bundled_cases(), work)
        .args(extra)
        .output()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// What a full score of `max` points looks like in the reports' words (as
/// whole words: `5.996/6` is not `6/6`).
fn full_scores(max: f64) -> [String; 4] {
    [
        format!("{max}/{max}"),
        "(100%)".into(),
        format!("{max} of {max} points"),
        "100%</div><div>mean".into(),
    ]
}

fn assert_not_full(format: &str, text: &str, max: f64) {
    for full in &full_scores(max) {
        let shown = text.match_indices(full).any(|(at, _)| {
            !text[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_digit() || c == '.')
        });
        assert!(!shown, "{format} shows {full:?}:\n{text}");
    }
}

#[test]
fn one_failure_in_246_never_prints_as_a_full_score() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let submission = one_failure(root);
    let p = |name: &str| root.join(name).to_string_lossy().into_owned();
    let out = grade(
        &root.join("subs"),
        &root.join("work"),
        &[
            // Proportional credit: one case's share is what must not round up.
            "--scoring",
            "cases",
            "--json",
            &p("r.json"),
            "--csv",
            &p("r.csv"),
            "--markdown",
            &p("r.md"),
            "--html",
            &p("r.html"),
            "--fail-under",
            "100",
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");

    let json: Value = serde_json::from_str(&read(&root.join("r.json"))).unwrap();
    let sub = &json["submissions"][0];
    let (points, max) = (
        sub["points"].as_f64().unwrap(),
        sub["max_points"].as_f64().unwrap(),
    );
    // One point per checkpoint of the bundled course.
    let checkpoints = json["corpus"]["checkpoints"].as_array().unwrap().len() as f64;
    assert!(points < max && max == checkpoints, "{points} of {max}");

    // Terminal, Markdown and HTML: the shortfall shows, in points and percent.
    let row = stdout
        .lines()
        .find(|l| l.starts_with("model-solution"))
        .unwrap();
    let shown = format!(
        "{}/{} ({})",
        autograder::report::fmt_score(points, max),
        autograder::report::fmt_points(max),
        autograder::report::fmt_percent(100.0 * points / max)
    );
    assert!(
        shown.contains(".996/") && shown.contains("(99.9") && !shown.contains("100%"),
        "{shown}"
    );
    assert!(row.ends_with(&shown), "{row}");
    assert_not_full("the terminal", &stdout, max);
    assert_not_full("Markdown", &read(&root.join("r.md")), max);
    assert_not_full("HTML", &read(&root.join("r.html")), max);
    // --fail-under says the same number.
    assert!(
        stderr.contains(&format!(
            "model-solution: {} is below --fail-under 100%",
            autograder::report::fmt_percent(100.0 * points / max)
        )),
        "{stderr}"
    );

    // CSV: the checkpoint cells add up, as a reader adds them, to the JSON's
    // exact score, and the total is that score.
    let mut csv = csv::Reader::from_path(root.join("r.csv")).unwrap();
    let header = csv.headers().unwrap().clone();
    let record = csv.records().next().unwrap().unwrap();
    let cell = |name: &str| -> f64 {
        let i = header.iter().position(|h| h == name).unwrap();
        record[i].parse().unwrap()
    };
    let checkpoints: Vec<&str> = header
        .iter()
        .filter(|h| !matches!(*h, "id" | "status" | "total" | "max" | "integrity"))
        .collect();
    assert_eq!(checkpoints.len() as f64, max);
    let sum: f64 = checkpoints.iter().map(|c| cell(c)).sum();
    assert_eq!(sum, points);
    assert_eq!(cell("total"), points);
    assert_eq!(cell("max"), max);
    assert!(cell("parse_contract_json") < 1.0);

    // Gradescope: the score is exact and the text says it is not full.
    let out = grade(
        &submission,
        &root.join("work"),
        &[
            "--scoring",
            "cases",
            "--gradescope",
            &p("results.json"),
            "--quiet",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let results: Value = serde_json::from_str(&read(&root.join("results.json"))).unwrap();
    assert_eq!(results["score"].as_f64(), Some(points));
    let output = results["output"].as_str().unwrap();
    assert!(
        output.starts_with(&format!(
            "{} of {} points.",
            autograder::report::fmt_score(points, max),
            autograder::report::fmt_points(max)
        )),
        "{output}"
    );
    assert_not_full("Gradescope", output, max);
}
