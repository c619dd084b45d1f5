//! What every human-readable report (terminal, Markdown, HTML, Gradescope)
//! says in a submission's failure section: a function `main.py` does not
//! define is one line per checkpoint, never a list of calls; an import error
//! is said once, at the top; a student's view starts with the course's
//! checkpoints by lesson, with their titles, and shows visible failures
//! before hidden ones.

use crate::util::grading as support;

use autograder::corpus::{Corpus, Visibility};
use autograder::grade::{self, Audience, GradeRun};
use autograder::recording::format::{CaseOutcome, Recording};
use autograder::report;
use autograder::report::gradescope::{Options, Tests};
use serde_json::Value;
use std::path::Path;

/// The course's own corpus (`cases/`).
fn course() -> Corpus {
    autograder::corpus::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("cases"))
        .expect("the course corpus loads")
}

/// `rec` graded against `corpus`, for instructors.
fn graded(corpus: &Corpus, id: &str, rec: Recording) -> GradeRun {
    let expected = support::expected(corpus);
    grade::grade_recordings(corpus, &expected, vec![(id.to_string(), Ok(rec))])
}

/// A correct solution, except that `main.py` defines none of `missing`.
fn without(corpus: &Corpus, missing: &[&str]) -> Recording {
    let mut rec = support::perfect_recording(corpus, "sub");
    for case in corpus
        .cases
        .iter()
        .filter(|c| missing.contains(&c.checkpoint.as_str()))
    {
        rec.outcomes.insert(case.id.clone(), CaseOutcome::Missing);
    }
    rec
}

fn crashed() -> CaseOutcome {
    CaseOutcome::Crashed {
        exit_code: Some(3),
        signal: None,
    }
}

fn cases_of(corpus: &Corpus, checkpoint: &str) -> usize {
    corpus
        .cases
        .iter()
        .filter(|c| c.checkpoint == checkpoint)
        .count()
}

fn not_defined_line(checkpoint: &str, n: usize) -> String {
    format!("{checkpoint}: not defined in main.py — {n} cases not run")
}

/// Every report of `run` (for its audience) as `(name, text)`; Gradescope
/// twice, a test per checkpoint and per case. Of the HTML, only the
/// submissions' details (the page's own text and script name every kind of
/// section).
fn reports(run: &GradeRun) -> Vec<(&'static str, String)> {
    let gradescope = |tests| {
        report::gradescope::render(
            run,
            Options {
                tests,
                ..Options::default()
            },
        )
        .unwrap()
    };
    vec![
        ("terminal", report::terminal::render(run, false, true)),
        ("markdown", report::markdown::render(run)),
        ("html", html_details(&report::html::render(run))),
        ("gradescope", gradescope(Tests::Checkpoint)),
        ("gradescope per case", gradescope(Tests::Case)),
    ]
}

/// The submissions' details of a dashboard: its data after `"details":[`
/// (HTML escaped, then as JSON with `<`, `>` and `&` as `\u003c`...).
fn html_details(page: &str) -> String {
    let at = page.find("\"details\":[").expect("the page has details");
    let end = at + page[at..].find("</script>").expect("the data ends");
    page[at..end].to_string()
}

/// Gradescope's JSON text of `text` (a report's text inside a JSON string).
fn json_text(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap();
    quoted[1..quoted.len() - 1].to_string()
}

#[test]
fn a_function_not_defined_is_one_line_per_checkpoint_and_no_call() {
    let corpus = course();
    let n = cases_of(&corpus, "run_tool");
    assert!(n > FIRST, "run_tool has more cases than a report shows");
    let line = not_defined_line("run_tool", n);
    let instructor = graded(&corpus, "sub", without(&corpus, &["run_tool"]));
    let student = instructor.for_audience(Audience::Student);
    for run in [&instructor, &student] {
        for (name, text) in reports(run) {
            let audience = run.audience.name();
            let shown = if name.starts_with("gradescope") {
                json_text(&line)
            } else {
                line.clone()
            };
            let want = if name == "gradescope per case" { 0 } else { 1 };
            assert_eq!(
                text.matches(&shown).count(),
                want,
                "{name} ({audience}) says {line:?} once:\n{text}"
            );
            assert!(
                !text.contains("call:     run_tool("),
                "{name} ({audience}) lists a call of run_tool:\n{text}"
            );
            assert!(
                !text.contains("cases failed") || name.starts_with("gradescope"),
                "{name} ({audience}) has another failed checkpoint:\n{text}"
            );
            assert!(!text.contains("… and"), "{name} ({audience}):\n{text}");
            assert!(
                !text.to_lowercase().contains("every case failed"),
                "{name} ({audience}):\n{text}"
            );
        }
    }
    // The terminal: the one line, after the submission's id.
    let text = report::terminal::render(&instructor, false, true);
    assert!(text.contains(&format!("\nsub {line}\n")), "{text}");
    // Markdown: a heading and nothing under it.
    let text = report::markdown::render(&instructor);
    assert!(text.ends_with(&format!("### sub / {line}\n\n")), "{text}");
    // HTML: a heading, no list of failures.
    let text = html_details(&report::html::render(&instructor));
    assert!(
        text.contains(&format!(
            "\\u003ch4 class=\\\"missing\\\"\\u003e{line}\\u003c/h4\\u003e"
        )),
        "{text}"
    );
    assert!(!text.contains("class=\\\"failure"), "{text}");
    // Gradescope: the checkpoint's test is that line, the others passed;
    // per case, each case says only why, no call.
    for (tests, want) in [
        (Tests::Checkpoint, line.clone()),
        (Tests::Case, "function not defined".to_string()),
    ] {
        let v: Value = serde_json::from_str(
            &report::gradescope::render(
                &instructor,
                Options {
                    tests,
                    ..Options::default()
                },
            )
            .unwrap(),
        )
        .unwrap();
        for t in v["tests"].as_array().unwrap() {
            let name = t["name"].as_str().unwrap();
            let out = t["output"].as_str().unwrap();
            if name == "run_tool" || name.starts_with("run_tool/") {
                // A hidden case's reason says it is one.
                assert!(
                    out == want || out == format!("a hidden case failed: {want}"),
                    "{tests:?} {name}: {out}"
                );
            } else if !name.starts_with("Grading environment") {
                assert_eq!(t["status"], "passed", "{tests:?} {name}: {out}");
            }
        }
    }
}

const FIRST: usize = report::FIRST_FAILURES;

#[test]
fn functions_missing_beside_others_failing_are_one_line_each() {
    let corpus = course();
    let mut rec = without(&corpus, &["run_tool", "read_file"]);
    // validate_ticket is defined, and fails every case.
    for case in corpus
        .cases
        .iter()
        .filter(|c| c.checkpoint == "validate_ticket")
    {
        rec.outcomes.insert(case.id.clone(), crashed());
    }
    let run = graded(&corpus, "sub", rec);
    let text = report::terminal::render(&run, false, true);
    for cp in ["run_tool", "read_file"] {
        let line = not_defined_line(cp, cases_of(&corpus, cp));
        assert_eq!(text.matches(&line).count(), 1, "{text}");
        assert!(!text.contains(&format!("call:     {cp}(")), "{text}");
    }
    let n = cases_of(&corpus, "validate_ticket");
    assert!(
        text.contains(&format!("sub validate_ticket — {n} of {n} cases failed")),
        "{text}"
    );
    assert_eq!(text.matches("call:     validate_ticket(").count(), FIRST);
    assert!(text.contains(&format!("  … and {} more\n", n - FIRST)));
    let md = report::markdown::render(&run);
    assert_eq!(md.matches("call:     validate_ticket(").count(), FIRST);
    assert!(!md.contains("call:     run_tool(") && !md.contains("call:     read_file("));
}

#[test]
fn a_main_py_that_defines_nothing_says_so_per_checkpoint() {
    let corpus = course();
    let ids: Vec<&str> = corpus
        .lessons
        .iter()
        .flat_map(|l| &l.checkpoints)
        .map(|c| c.id.as_str())
        .collect();
    let run = graded(&corpus, "sub", without(&corpus, &ids));
    assert!(report::common_reason(&run.submissions[0]).is_none());
    for (name, text) in reports(&run) {
        for cp in &ids {
            let line = not_defined_line(cp, cases_of(&corpus, cp));
            let line = if name.starts_with("gradescope") {
                json_text(&line)
            } else {
                line
            };
            let want = if name == "gradescope per case" { 0 } else { 1 };
            assert_eq!(text.matches(&line).count(), want, "{name}:\n{text}");
        }
        assert!(!text.contains("call:     "), "{name}:\n{text}");
        assert!(!text.to_lowercase().contains("every case failed"), "{name}");
    }
}

#[test]
fn an_import_error_is_said_once_at_the_top_and_no_call_is_listed() {
    let corpus = course();
    let mut rec = support::perfect_recording(&corpus, "sub");
    for outcome in rec.outcomes.values_mut() {
        *outcome = CaseOutcome::ImportError {
            exc_type: "SyntaxError".into(),
            message: "invalid syntax".into(),
            line: Some(3),
            source_line: None,
        };
    }
    let instructor = graded(&corpus, "sub", rec);
    let reason = "main.py did not import: SyntaxError line 3: invalid syntax";
    assert_eq!(
        report::common_reason(&instructor.submissions[0]),
        Some(reason)
    );
    // Said once, as nothing having run (the recording names no Python).
    let said = "main.py did not import, so none of its cases could run: SyntaxError line 3: invalid syntax";
    let student = instructor.for_audience(Audience::Student);
    for run in [&instructor, &student] {
        for (name, text) in reports(run) {
            let audience = run.audience.name();
            let shown = if name.starts_with("gradescope") {
                json_text(said)
            } else {
                said.to_string()
            };
            assert_eq!(
                text.matches(&shown).count(),
                1,
                "{name} ({audience}):\n{text}"
            );
            assert!(!text.contains("call:     "), "{name} ({audience}):\n{text}");
            assert!(!text.contains("not defined"), "{name} ({audience})");
        }
    }
    // Once, and no checkpoint listed one by one: none of them ran.
    let text = report::terminal::render(&student, false, true);
    assert!(text.contains(&format!("sub: {said}")), "{text}");
    assert!(!text.contains("your checkpoints"), "{text}");
    let md = report::markdown::render(&student);
    assert!(md.contains("### sub: nothing could run"), "{md}");
    assert!(!md.contains("### sub: your checkpoints"), "{md}");
    let v: Value =
        serde_json::from_str(&report::gradescope::render(&instructor, Options::default()).unwrap())
            .unwrap();
    let top = v["output"].as_str().unwrap();
    assert!(top.contains(&format!("points.\n\n{said}\n\n")), "{top}");
}

/// A correct solution but for `checkpoint`, where the cases `fail` picks
/// crash.
fn failing(corpus: &Corpus, checkpoint: &str, fail: impl Fn(usize, &str) -> bool) -> Recording {
    let mut rec = support::perfect_recording(corpus, "sub");
    let cases: Vec<_> = corpus
        .cases
        .iter()
        .filter(|c| c.checkpoint == checkpoint)
        .collect();
    for (i, case) in cases.iter().enumerate() {
        if fail(i, case.visibility.name()) {
            rec.outcomes.insert(case.id.clone(), crashed());
        }
    }
    rec
}

/// The `✗` lines a terminal section shows under its checkpoint's heading.
fn shown_cases<'a>(text: &'a str, heading: &str) -> Vec<&'a str> {
    let at = text
        .find(heading)
        .unwrap_or_else(|| panic!("{heading}:\n{text}"));
    text[at..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter(|l| l.starts_with("  ✗ "))
        .collect()
}

/// A checkpoint of the course with hidden cases before some visible ones.
fn mixed_checkpoint(corpus: &Corpus) -> (&str, Vec<Visibility>) {
    for lesson in &corpus.lessons {
        for cp in &lesson.checkpoints {
            let vis: Vec<Visibility> = corpus
                .cases
                .iter()
                .filter(|c| c.checkpoint == cp.id)
                .map(|c| c.visibility)
                .collect();
            let first_hidden = vis.iter().position(|v| *v == Visibility::Hidden);
            if let Some(h) = first_hidden {
                let visible_after = vis[h..]
                    .iter()
                    .filter(|v| **v == Visibility::Visible)
                    .count();
                if h > 0 && visible_after >= FIRST {
                    return (&cp.id, vis);
                }
            }
        }
    }
    panic!("no checkpoint of the course has hidden cases before visible ones");
}

#[test]
fn students_see_visible_failures_before_hidden_ones() {
    let corpus = course();
    let (cp, vis) = mixed_checkpoint(&corpus);
    let h = vis.iter().position(|v| *v == Visibility::Hidden).unwrap();
    // Every case from the first hidden one on fails: in corpus order the
    // first three failures hold a hidden one, and more than three visible fail.
    let run = graded(&corpus, "sub", failing(&corpus, cp, |i, _| i >= h));
    let student = run.for_audience(Audience::Student);
    let failed = vis.len() - h;
    let heading = format!("sub {cp} — {failed} of {} cases failed", vis.len());
    let text = report::terminal::render(&run, false, true);
    let shown = shown_cases(&text, &heading);
    assert_eq!(shown.len(), FIRST);
    assert!(
        shown[0].contains("(hidden)"),
        "instructors: corpus order\n{text}"
    );
    let text = report::terminal::render(&student, false, true);
    let shown = shown_cases(&text, &heading);
    assert_eq!(shown.len(), FIRST, "{text}");
    assert!(
        shown.iter().all(|l| !l.contains("hidden case")),
        "a hidden failure took a visible one's place:\n{text}"
    );
    assert!(text.contains(&format!("  … and {} more\n", failed - FIRST)));
    // Markdown and Gradescope show the same three.
    let md = report::markdown::render(&student);
    let gs: Value =
        serde_json::from_str(&report::gradescope::render(&run, Options::default()).unwrap())
            .unwrap();
    let test = gs["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == cp)
        .unwrap();
    let out = test["output"].as_str().unwrap();
    for line in &shown {
        let label = line.trim_start_matches("  ✗ ");
        assert!(md.contains(&format!("✗ {label}")), "{label}\n{md}");
        assert!(out.contains(&format!("✗ {label}")), "{label}\n{out}");
    }
    assert!(!md.contains("✗ hidden case"), "{md}");
    assert!(!out.contains("✗ hidden case"), "{out}");

    // One visible failure: it comes first, then hidden ones fill the three.
    let last_visible = vis.iter().rposition(|v| *v == Visibility::Visible).unwrap();
    let run = graded(
        &corpus,
        "sub",
        failing(&corpus, cp, |i, v| i == last_visible || v == "hidden"),
    );
    let hidden = vis.iter().filter(|v| **v == Visibility::Hidden).count();
    let student = run.for_audience(Audience::Student);
    let text = report::terminal::render(&student, false, true);
    let heading = format!("sub {cp} — {} of {} cases failed", hidden + 1, vis.len());
    let shown = shown_cases(&text, &heading);
    assert_eq!(shown.len(), FIRST.min(hidden + 1), "{text}");
    assert!(!shown[0].contains("hidden case"), "{text}");
    assert!(
        shown[1..].iter().all(|l| l.contains("hidden case")),
        "{text}"
    );
}

#[test]
fn the_student_view_starts_with_the_checkpoints_by_lesson() {
    let corpus = course();
    let mut rec = without(&corpus, &["run_tool"]);
    let crash = corpus
        .cases
        .iter()
        .find(|c| c.checkpoint == "validate_ticket")
        .unwrap();
    rec.outcomes.insert(crash.id.clone(), crashed());
    let run = graded(&corpus, "sub", rec);
    let student = run.for_audience(Audience::Student);
    let n = |cp: &str| cases_of(&corpus, cp);
    // Every lesson by its title, every checkpoint with its title, passed or not.
    let mut want = Vec::new();
    for lesson in &corpus.lessons {
        let passed = lesson
            .checkpoints
            .iter()
            .filter(|c| c.id != "run_tool" && c.id != "validate_ticket")
            .count();
        let mut lines = vec![format!(
            "{} — your checkpoints {passed} / {}",
            lesson.title,
            lesson.checkpoints.len()
        )];
        for c in &lesson.checkpoints {
            lines.push(match c.id.as_str() {
                "run_tool" => format!("  ✗ run_tool — {} (0/{})", c.title, n("run_tool")),
                "validate_ticket" => format!(
                    "  ✗ validate_ticket — {} ({}/{})",
                    c.title,
                    n("validate_ticket") - 1,
                    n("validate_ticket")
                ),
                id => format!("  ✓ {id} — {}", c.title),
            });
        }
        want.push(lines);
    }
    let terminal = report::terminal::render(&student, false, true);
    let gradescope: Value =
        serde_json::from_str(&report::gradescope::render(&run, Options::default()).unwrap())
            .unwrap();
    let top = gradescope["output"].as_str().unwrap();
    for lines in &want {
        // The terminal names the submission before each lesson.
        let block = format!("\nsub {}\n", lines.join("\n"));
        assert!(terminal.contains(&block), "{block}\n{terminal}");
        let block = format!("{}\n\n", lines.join("\n"));
        assert!(top.contains(&block), "{block}\n{top}");
    }
    // Then the first failures.
    let list = terminal.find("your checkpoints").unwrap();
    let failures = terminal.find("sub validate_ticket — 1 of").unwrap();
    let missing = terminal
        .find(&not_defined_line("run_tool", n("run_tool")))
        .unwrap();
    assert!(list < failures && failures < missing, "{terminal}");
    // Markdown: the same lines, as a list (ids escaped as every cell).
    let md = report::markdown::render(&student);
    assert!(md.contains("### sub: your checkpoints\n"), "{md}");
    assert!(
        md.contains("**Lesson 02 — JSON contract — your checkpoints 2 / 3**"),
        "{md}"
    );
    assert!(
        md.contains(&format!(
            "- ✗ run\\_tool — A requested tool is matched, or refused (0/{})",
            n("run_tool")
        )),
        "{md}"
    );
    assert!(md.contains("- ✓ parse\\_contract\\_json — "), "{md}");
    // Instructors' views have no such list.
    for (name, text) in [
        ("terminal", report::terminal::render(&run, false, true)),
        ("markdown", report::markdown::render(&run)),
    ] {
        assert!(!text.contains("your checkpoints"), "{name}:\n{text}");
    }
}

/// A value holding characters that pass for ASCII ones (the Kelvin sign in
/// an id, an Arabic-Indic digit) is followed by their names in every view
/// that shows it, for students and instructors alike.
#[test]
fn characters_that_pass_for_ascii_are_named_under_the_value() {
    let corpus = course();
    let mut rec = support::perfect_recording(&corpus, "sub");
    let case = corpus
        .cases
        .iter()
        .find(|c| c.checkpoint == "validate_tool_call" && c.visibility == Visibility::Visible)
        .unwrap();
    rec.outcomes.insert(
        case.id.clone(),
        CaseOutcome::Returned {
            value: serde_json::json!({"id": "call_\u{212a}\u{661}"}).into(),
            shares_with_args: false,
            args_changed: false,
            shares_with_state: false,
            shared: None,
            changed: None,
        },
    );
    let instructor = graded(&corpus, "sub", rec);
    let student = instructor.for_audience(Audience::Student);
    let junit = report::junit::render(&instructor).unwrap();
    for run in [&instructor, &student] {
        let mut views = reports(run);
        views.push(("junit", junit.clone()));
        for (name, text) in views {
            for named in [
                "U+212A KELVIN SIGN (not K)",
                "U+0661 ARABIC-INDIC DIGIT ONE (not 1)",
            ] {
                assert!(text.contains(named), "{name}: {named}\n{text}");
            }
        }
    }
}
