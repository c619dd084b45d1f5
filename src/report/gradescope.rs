//! `--gradescope`: Gradescope's `results.json` for one submission.
//!
//! Its output is shown to students, so it always follows the student rules:
//! a failed hidden case shows only its tags and a value-free reason. Hidden
//! cases get Gradescope's `"visibility": "hidden"` by default (the test is
//! never shown to students; its points still count), or `"after_published"`
//! when the instructor wants students to see, once grades are published, that
//! it failed (never its input); others are `visible`.
//! `execution_time` is 0: recordings carry no timings, and a constant keeps
//! the file reproducible.
//!
//! By default (`--gradescope-tests checkpoint`) each checkpoint is one test
//! worth its points, whose output lists its first failures as the terminal's
//! student view does (visible ones first, see [`super::FailedCheckpoint`])
//! and counts the hidden ones, or says in one line that `main.py` does not
//! define its function; `case` gives one test per case instead (a
//! checkpoint without cases stays one test, so the tests still add up to
//! the total). A reason every case failed with (main.py did not import) is
//! said once, at the top, after the points; then the checkpoints by lesson
//! with their titles.

use super::{
    all_failed_text, case_label, failure_details, failure_section, fmt_points, fmt_score,
    import_failed, student_checkpoints, terminal, FailedCheckpoint, FailureSection, FIRST_FAILURES,
};
use crate::corpus::{Scoring, Visibility};
use crate::grade::{Audience, CheckpointGrade, GradeRun, Status};
use serde_json::{json, Value};

/// How a case test that passed without its share of the points starts its
/// output (the policy holds them back until other cases pass).
pub const PASSED_WITHHELD: &str = "passed, but under the scoring policy";

/// The name of the instructors-only test (Gradescope shows `hidden` tests to
/// instructors alone) saying which sandbox tier and interpreter recorded the
/// submission, written only when the results hold hidden case tests anyway
/// (with any hidden test, Gradescope shows students no total);
/// `extra_data` always carries the same.
pub const ENVIRONMENT_TEST: &str = "Grading environment (instructors only)";

/// The format of every `output` (Gradescope's `output_format`): plain text,
/// shown as written, so the aligned tables keep their lines and a student's
/// `<`, `>` or `&` is shown, never read as HTML (without it Gradescope
/// reads `simple_format`, HTML with line breaks). What a student wrote is
/// escaped for it as for a terminal ([`crate::text::escaped`]: controls,
/// bidi and line separators as escapes).
pub const OUTPUT_FORMAT: &str = "text";

/// The Gradescope visibility given to the corpus's hidden cases
/// (`--gradescope-hidden`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HiddenVisibility {
    /// Never shown to students (Gradescope's `hidden`); their points count.
    #[default]
    Hidden,
    /// Shown, without input, once grades are published.
    AfterPublished,
}

impl HiddenVisibility {
    /// The value Gradescope reads.
    pub fn as_str(self) -> &'static str {
        match self {
            HiddenVisibility::Hidden => "hidden",
            HiddenVisibility::AfterPublished => "after_published",
        }
    }
}

/// What one Gradescope test is (`--gradescope-tests`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tests {
    /// One test per checkpoint, with its points and its first failures.
    #[default]
    Checkpoint,
    /// One test per case, worth its share of its checkpoint's points.
    Case,
}

/// How the Gradescope report is laid out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub hidden: HiddenVisibility,
    pub tests: Tests,
}

/// Why a Gradescope report cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum GradescopeError {
    #[error("--gradescope needs exactly one submission, found {0}")]
    NotOne(usize),
}

/// `results.json` text for the run's only submission.
pub fn render(run: &GradeRun, options: Options) -> Result<String, GradescopeError> {
    if run.submissions.len() != 1 {
        return Err(GradescopeError::NotOne(run.submissions.len()));
    }
    let env = super::Provenance::of(run);
    let run = run.view(Audience::Student);
    // Its case grades, read back when the run is spooled.
    let s = run.full_one(&run.submissions[0]);
    let s = s.as_ref();
    // A reason every case failed with (main.py did not import) is said once,
    // at the top; the tests then only name it.
    let section = failure_section(s, Audience::Student);
    let (common, failed) = match &section {
        FailureSection::AllFailed(reason) => (Some(*reason), &[][..]),
        FailureSection::Checkpoints(failed) => (None, failed.as_slice()),
        FailureSection::NotGraded(_) => (None, &[][..]),
    };
    let mut tests = Vec::new();
    if s.status == Status::Graded {
        for (ci, cp) in s.checkpoints.iter().enumerate() {
            let failed = failed.iter().find(|c| std::ptr::eq(c.checkpoint, cp));
            match options.tests {
                // A checkpoint without cases (every submission gets its
                // points) is one test in every layout: else the tests would
                // add up to less than the total.
                Tests::Checkpoint
                    if run.corpus.scoring == Scoring::Criteria && !cp.cases.is_empty() =>
                {
                    let info = &run.corpus.checkpoints[ci];
                    let lines = super::criteria(info, cp);
                    tests.extend((0..).zip(&lines).map(|(k, l)| criterion_test(ci, k, cp, l)));
                }
                Tests::Checkpoint => tests.push(checkpoint_test(ci, cp, failed, common.is_some())),
                Tests::Case if cp.cases.is_empty() => {
                    tests.push(checkpoint_test(ci, cp, failed, common.is_some()))
                }
                Tests::Case => {
                    for (ki, case) in cp.cases.iter().enumerate() {
                        // A case is worth its share of the checkpoint's points.
                        let max = if cp.weight_total == 0 {
                            0.0
                        } else {
                            cp.max_points * f64::from(case.weight) / cp.weight_total as f64
                        };
                        let score = if case.passed {
                            earned(cp, case.weight)
                        } else {
                            0.0
                        };
                        let output = match &case.failure {
                            // Passed, its points withheld by the policy.
                            None if score < max - 1e-9 => format!(
                                "{PASSED_WITHHELD} `{}` its points need other cases to pass too",
                                run.corpus.scoring.name()
                            ),
                            None => "passed".to_string(),
                            Some(_) if common.is_some() => {
                                "failed for the reason at the top of the page".to_string()
                            }
                            Some(f) if failed.is_some_and(|c| c.not_defined) => f.reason.clone(),
                            Some(f) => {
                                let mut lines = vec![f.reason.clone()];
                                lines.extend(failure_details(f));
                                lines.join("\n")
                            }
                        };
                        tests.push(json!({
                            "name": case.id,
                            "number": format!("{}.{}", ci + 1, ki + 1),
                            "score": score,
                            "max_score": max,
                            "status": if case.passed { "passed" } else { "failed" },
                            "output": output,
                            "output_format": OUTPUT_FORMAT,
                            "tags": case.tags,
                            "visibility": match case.visibility {
                                Visibility::Visible => "visible",
                                Visibility::Hidden => options.hidden.as_str(),
                            },
                        }));
                    }
                }
            }
        }
    }
    // Gradescope shows no total to students while any test is hidden: the
    // environment (in `extra_data` always) is a test only where hidden
    // tests are asked for anyway (`--gradescope-tests case`, hidden cases).
    let any_hidden = tests.iter().any(|t| t["visibility"] == "hidden");
    if let Some(env) = env.as_ref().filter(|_| any_hidden) {
        // Hidden tests are shown to instructors only.
        tests.push(json!({
            "name": ENVIRONMENT_TEST,
            "number": "0",
            "score": 0.0,
            "max_score": 0.0,
            "status": "passed",
            "output": env.line(),
            "output_format": OUTPUT_FORMAT,
            "tags": [],
            "visibility": "hidden",
        }));
    }
    let output = match (&s.error, common) {
        (Some(e), _) => format!("Your submission could not be graded: {e}"),
        (None, common) => format!(
            "{} of {} points.\n\n{}{}{}",
            fmt_score(s.points, s.max_points),
            fmt_points(s.max_points),
            common.map_or(String::new(), |r| format!("{}\n\n", all_failed_text(s, r))),
            // Said once when nothing could run: no checkpoint listed.
            if common.is_some_and(import_failed) {
                String::new()
            } else {
                checkpoint_list(&run, s)
            },
            terminal::render(&run, false, false),
        ),
    };
    // Which Python graded them, whatever the outcome.
    let output = match env.as_ref() {
        Some(e) => format!("{}\n\n{}\n", output.trim_end(), e.student_line()),
        None => output,
    };
    let doc: Value = json!({
        "score": s.points,
        "max_score": s.max_points,
        "execution_time": 0,
        "output": output,
        "output_format": OUTPUT_FORMAT,
        "test_output_format": OUTPUT_FORMAT,
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {
            "sandbox": env.as_ref().map(|e| e.line()),
            "isolation": env.as_ref().map(|e| e.isolation.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>()),
            "python": env.as_ref().map(|e| e.python.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>()),
        },
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    Ok(text)
}

/// The course's checkpoints by lesson with their titles, passed or not, as
/// the terminal's student view starts a submission's failures:
/// `json-contract — your checkpoints 2 / 3` then `  ✓ id — title` lines.
/// Titles are `course.toml`'s, escaped as all of the output's text.
fn checkpoint_list(run: &GradeRun, s: &crate::grade::SubmissionGrade) -> String {
    let shown = crate::text::escaped;
    let mut out = String::new();
    for lesson in student_checkpoints(run, s).into_iter().flatten() {
        out.push_str(&shown(&lesson.heading(run.corpus.scoring)));
        out.push('\n');
        for c in &lesson.checkpoints {
            out.push_str(&format!("  {} {}\n", c.mark(), shown(&c.text())));
        }
        out.push('\n');
    }
    out
}

/// What a passed case of `cp` earns as a test: the checkpoint's points
/// (under the run's policy) shared over its passed cases by weight, so the
/// case tests add up to the score whatever the policy (under `cases`, each
/// its share of the checkpoint's points).
fn earned(cp: &CheckpointGrade, weight: u32) -> f64 {
    if cp.weight_passed == 0 {
        0.0
    } else {
        cp.points * f64::from(weight) / cp.weight_passed as f64
    }
}

/// Under the `criteria` policy, one criterion as one test: its points, and
/// its failed cases by name (visible ones first).
fn criterion_test(
    index: usize,
    k: usize,
    cp: &CheckpointGrade,
    line: &super::CriterionLine,
) -> Value {
    let n = line.info.cases.len();
    let output = if line.grade.passed {
        format!("all {n} cases passed")
    } else {
        format!(
            "{} of {n} cases failed: {}",
            line.failed.len(),
            line.failed_names(FIRST_FAILURES)
        )
    };
    json!({
        "name": format!("{}: {}", cp.id, line.info.title),
        "number": format!("{}.{}", index + 1, k + 1),
        "score": line.grade.points,
        "max_score": line.info.points,
        "status": if line.grade.passed { "passed" } else { "failed" },
        "output": output,
        "output_format": OUTPUT_FORMAT,
        "visibility": "visible",
    })
}

/// One checkpoint as one test: its points, and its first failures (as the
/// student may see them, in the order the terminal's student view shows
/// them: see [`FailedCheckpoint`]) in the output; one line when `main.py`
/// does not define its function.
fn checkpoint_test(
    index: usize,
    cp: &CheckpointGrade,
    failed: Option<&FailedCheckpoint>,
    common: bool,
) -> Value {
    let mut lines = Vec::new();
    if cp.cases_total == 0 {
        lines.push("no cases yet: its points are given to every submission".into());
    } else if cp.passed {
        lines.push(format!("all {} cases passed", cp.cases_total));
    } else if common {
        lines.push(format!(
            "{} of {} cases failed",
            cp.cases_total - cp.cases_passed,
            cp.cases_total
        ));
        lines.push("(every case failed for the reason at the top of the page)".into());
    } else if let Some(line) = failed.and_then(FailedCheckpoint::not_defined_line) {
        lines.push(line);
    } else {
        lines.push(failed.map_or_else(
            || {
                format!(
                    "{} of {} cases failed",
                    cp.cases_total - cp.cases_passed,
                    cp.cases_total
                )
            },
            |c| c.count_text(Audience::Student),
        ));
        let failed = failed.map_or(&[][..], |c| c.failed.as_slice());
        for (case, f) in failed.iter().take(FIRST_FAILURES) {
            lines.push(String::new());
            lines.push(format!("✗ {}: {}", case_label(case), f.reason));
            lines.extend(failure_details(f).into_iter().map(|l| format!("    {l}")));
        }
        if failed.len() > FIRST_FAILURES {
            lines.push(String::new());
            lines.push(format!("… and {} more", failed.len() - FIRST_FAILURES));
        }
    }
    json!({
        "name": cp.id,
        "number": format!("{}", index + 1),
        "score": cp.points,
        "max_score": cp.max_points,
        "status": if cp.passed { "passed" } else { "failed" },
        "output": lines.join("\n"),
        "output_format": OUTPUT_FORMAT,
        "visibility": "visible",
    })
}
