//! A course grades lesson by lesson: `--assignment ID` / `--lesson ID` cut
//! every command and report to that part of the course, and
//! `[[assignment]]` tables in `course.toml` name other parts.

use crate::util::record as record_support;

use crate::util::TestCommand;
use record_support::{tier_name, tier_or_skip, TIERS};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cases() -> PathBuf {
    root().join("cases")
}

/// A correct solution of lessons 02 and 03 only: the model's functions of
/// lessons 04 and 05 are not defined.
fn two_lessons(dir: &Path) {
    let mut src =
        std::fs::read_to_string(root().join("submissions/model-solution/main.py")).unwrap();
    src.push_str(
        "\n\n# Lessons 04 and 05 are not written yet.\n\
         del run_tool, run_tools, check_tool_results, validate_tool_arguments, read_file, run_tool_loop\n",
    );
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("main.py"), src).unwrap();
}

fn autograder(tier: &str) -> TestCommand {
    let mut cmd = TestCommand::new();
    cmd.env("AUTOGRADER_ISOLATION", tier);
    cmd
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The course's case count per lesson, and visible count, from the corpus.
fn counts(lesson: &str) -> (usize, usize) {
    let corpus = autograder::corpus::load(&cases()).unwrap();
    let of: Vec<_> = corpus.cases.iter().filter(|c| c.lesson == lesson).collect();
    let visible = of
        .iter()
        .filter(|c| c.visibility == autograder::corpus::Visibility::Visible)
        .count();
    (of.len(), visible)
}

#[test]
fn a_two_lesson_solution_passes_each_of_its_lessons() {
    let Some(tier) = TIERS.into_iter().find(|&t| tier_or_skip(t, "assignments")) else {
        return;
    };
    let tier = tier_name(tier);
    let tmp = tempfile::tempdir().unwrap();
    let sub = tmp.path().join("student");
    two_lessons(&sub);
    let work = tmp.path().join("work");
    let grade = |extra: &[&str]| -> Output {
        autograder(tier)
            .arg("grade")
            .arg(&sub)
            .arg("--cases")
            .arg(cases())
            .arg("--work-dir")
            .arg(&work)
            .args(extra)
            .output()
    };
    let p = |name: &str| tmp.path().join(name).to_string_lossy().into_owned();
    for lesson in ["json-contract", "tool-proposals"] {
        let md = p(&format!("{lesson}.md"));
        let json = p(&format!("{lesson}.json"));
        let gs = p(&format!("{lesson}-results.json"));
        let out = grade(&[
            "--assignment",
            lesson,
            "--fail-under",
            "100",
            "--markdown",
            &md,
            "--json",
            &json,
            "--timings",
        ]);
        assert_eq!(out.status.code(), Some(0), "{lesson}: {}", stderr(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("3/3 (100%)"), "{stdout}");
        let markdown = std::fs::read_to_string(&md).unwrap();
        assert!(!markdown.contains("not defined"), "{markdown}");
        let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let assignments = report["corpus"]["assignments"].as_array().unwrap();
        assert_eq!(assignments.len(), 1);
        assert_eq!(assignments[0]["id"], lesson);
        assert_eq!(report["corpus"]["checkpoints"].as_array().unwrap().len(), 3);
        assert_eq!(report["corpus"]["cases"], counts(lesson).0);
        // Gradescope: the lesson's points are the maximum.
        let out = grade(&["--assignment", lesson, "--gradescope", &gs]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let results: Value = serde_json::from_str(&std::fs::read_to_string(&gs).unwrap()).unwrap();
        assert_eq!(results["max_score"], 3.0);
        assert_eq!(results["score"], 3.0);
    }
    // Both lessons were recorded on their own: together, nothing is recorded again.
    let out = grade(&[
        "--lesson",
        "json-contract",
        "--lesson",
        "tool-proposals",
        "--timings",
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("1 submissions looked up, 1 found whole"),
        "{}",
        stderr(&out)
    );
    // The whole course: below 100 %, one column per lesson in the gradebook.
    let csv_path = p("all.csv");
    let out = grade(&[
        "--assignment",
        "all",
        "--fail-under",
        "100",
        "--csv",
        &csv_path,
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = std::fs::read_to_string(&csv_path).unwrap();
    let mut csv = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = csv.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        &header[..6],
        [
            "id",
            "status",
            "json-contract",
            "tool-proposals",
            "tool-results",
            "function-calling"
        ]
    );
    assert_eq!(header[6], "parse_contract_json");
    let row = csv.records().next().unwrap().unwrap();
    assert_eq!((&row[2], &row[3], &row[4], &row[5]), ("3", "3", "0", "0"));
    say!("lessons 02 and 03 graded on their own under {tier}");
}

#[test]
fn record_and_export_cut_to_one_lesson() {
    let Some(tier) = TIERS.into_iter().find(|&t| tier_or_skip(t, "assignments")) else {
        return;
    };
    let tier = tier_name(tier);
    let tmp = tempfile::tempdir().unwrap();
    let subs = tmp.path().join("subs");
    two_lessons(&subs.join("student"));
    let work = tmp.path().join("work");
    let out = autograder(tier)
        .arg("record")
        .arg(&subs)
        .arg("--cases")
        .arg(cases())
        .arg("--work-dir")
        .arg(&work)
        .args(["--assignment", "json-contract"])
        .output();
    assert!(out.status.success(), "{}", stderr(&out));
    let rec: Value = serde_json::from_str(
        &std::fs::read_to_string(work.join("recordings/student.json")).unwrap(),
    )
    .unwrap();
    let outcomes = rec["outcomes"].as_object().unwrap();
    let (lesson_cases, _) = counts("json-contract");
    assert_eq!(outcomes.len(), lesson_cases, "only lesson 02's cases run");
    assert!(outcomes.keys().all(|k| {
        ["parse_contract_json/", "validate_ticket/", "accept_ticket/"]
            .iter()
            .any(|p| k.starts_with(p))
    }));

    let dest = tmp.path().join("visible");
    let out = Command::new(env!("CARGO_BIN_EXE_autograder"))
        .args([
            "cases",
            "export",
            "--assignment",
            "tool-proposals",
            "--cases",
        ])
        .arg(cases())
        .arg("--visible")
        .arg(&dest)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let exported = autograder::corpus::load(&dest).unwrap();
    let (_, visible) = counts("tool-proposals");
    assert_eq!(exported.cases.len(), visible);
    assert!(exported
        .cases
        .iter()
        .all(|c| c.lesson == "tool-proposals"
            && c.visibility == autograder::corpus::Visibility::Visible));
    assert_eq!(exported.lessons.len(), 1);
    assert_eq!(exported.assignments()[0].id, "tool-proposals");
    say!("record and export cut to one lesson ({lesson_cases} cases recorded)");
}

/// A corpus like the course's with `extra` appended to its course.toml.
fn course_with(dir: &Path, extra: &str) {
    for entry in walkdir::WalkDir::new(cases()) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(cases()).unwrap();
        let to = dir.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    let course = dir.join("course.toml");
    let text = std::fs::read_to_string(&course).unwrap() + extra;
    std::fs::write(course, text).unwrap();
}

#[test]
fn an_assignment_of_the_course_file_grades_its_lessons_and_nothing_else() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus_dir = tmp.path().join("cases");
    course_with(
        &corpus_dir,
        "\n[[assignment]]\nid = \"first-half\"\ntitle = \"Lessons 02 and 03\"\n\
         lessons = [\"json-contract\", \"tool-proposals\"]\npoints = 12\n",
    );
    let corpus = autograder::corpus::load(&corpus_dir).unwrap();
    assert_eq!(corpus.assignments().len(), 1);
    let cut = corpus
        .clone()
        .select(&["first-half".to_string()], &[])
        .unwrap();
    let ids: Vec<&str> = cut.checkpoints().map(|c| c.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "parse_contract_json",
            "validate_ticket",
            "accept_ticket",
            "validate_tool_call",
            "execute_tool",
            "order_tool_results"
        ]
    );
    // Its 12 points spread over its six checkpoints.
    assert!(cut.checkpoints().all(|c| c.points == 2.0));
    assert!(cut
        .cases
        .iter()
        .all(|c| c.lesson == "json-contract" || c.lesson == "tool-proposals"));
    assert_eq!(
        cut.cases.len() + cut.selection.as_ref().unwrap().others.len(),
        corpus.cases.len()
    );
    assert_ne!(
        cut.selection.as_ref().unwrap().fingerprint,
        corpus.fingerprint
    );
    // With assignments declared, lessons are no longer assignments by name.
    let e = corpus
        .clone()
        .select(&["json-contract".to_string()], &[])
        .unwrap_err();
    assert!(e.to_string().contains("first-half, all"), "{e}");
    // `--lesson` still cuts to one lesson.
    let one = corpus.select(&[], &["tool-results".to_string()]).unwrap();
    assert_eq!(one.checkpoints().count(), 3);
}

#[test]
fn a_broken_assignment_names_its_file_and_line() {
    for (extra, problem) in [
        (
            "[[assignment]]\nid = \"a\"\ntitle = \"A\"\nlessons = [\"no-such-lesson\"]\n",
            "unknown lesson \"no-such-lesson\"",
        ),
        (
            "[[assignment]]\nid = \"a\"\ntitle = \"A\"\nlessons = []\n",
            "lessons is empty",
        ),
        (
            "[[assignment]]\nid = \"a\"\ntitle = \"A\"\n",
            "give its lessons = [...] or checkpoints = [...]",
        ),
        (
            "[[assignment]]\nid = \"all\"\ntitle = \"A\"\nlessons = [\"json-contract\"]\n",
            "\"all\" is taken",
        ),
        (
            "[[assignment]]\nid = \"a\"\ntitle = \"A\"\ncheckpoints = [\"run_tool\", \"run_tool\"]\n",
            "in this assignment twice",
        ),
        (
            "[[assignment]]\nid = \"a\"\ntitle = \"A\"\ncheckpoints = [\"nope\"]\n",
            "checkpoint \"nope\" is not in the course",
        ),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("cases");
        course_with(&dir, &format!("\n{extra}"));
        let lines = std::fs::read_to_string(dir.join("course.toml"))
            .unwrap()
            .lines()
            .count();
        let e = autograder::corpus::load(&dir).unwrap_err();
        let p = e
            .problems
            .iter()
            .find(|p| p.message.contains(problem))
            .unwrap_or_else(|| panic!("{problem:?} not in {e}"));
        assert!(p.file.ends_with("course.toml"), "{p}");
        let line = p.line.expect("a line");
        assert!(line + 6 > lines && line <= lines, "{p} (of {lines} lines)");
    }
    // An unknown --assignment is a usage error naming the known ones.
    let out = Command::new(env!("CARGO_BIN_EXE_autograder"))
        .args(["cases", "list", "--assignment", "nope", "--cases"])
        .arg(cases())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("no assignment \"nope\"") && err.contains("json-contract"),
        "{err}"
    );
}
