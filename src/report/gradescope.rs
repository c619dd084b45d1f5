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

use super::{failure_details, fmt_points, fmt_score, terminal};
use crate::corpus::Visibility;
use crate::grade::{Audience, GradeRun, Status};
use serde_json::{json, Value};

/// The Gradescope visibility given to the corpus's hidden cases.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HiddenVisibility {
    /// Never shown to students (Gradescope's `hidden`).
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

/// Why a Gradescope report cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum GradescopeError {
    #[error("--gradescope needs exactly one submission, found {0}")]
    NotOne(usize),
}

/// `results.json` text for the run's only submission.
pub fn render(run: &GradeRun, hidden: HiddenVisibility) -> Result<String, GradescopeError> {
    if run.submissions.len() != 1 {
        return Err(GradescopeError::NotOne(run.submissions.len()));
    }
    let run = run.view(Audience::Student);
    let s = &run.submissions[0];
    let mut tests = Vec::new();
    if s.status == Status::Graded {
        for (ci, cp) in s.checkpoints.iter().enumerate() {
            for (ki, case) in cp.cases.iter().enumerate() {
                // A case is worth its share of the checkpoint's points.
                let max = if cp.weight_total == 0 {
                    0.0
                } else {
                    cp.max_points * f64::from(case.weight) / cp.weight_total as f64
                };
                let output = match &case.failure {
                    None => "passed".to_string(),
                    Some(f) => {
                        let mut lines = vec![f.reason.clone()];
                        lines.extend(failure_details(f));
                        lines.join("\n")
                    }
                };
                tests.push(json!({
                    "name": case.id,
                    "number": format!("{}.{}", ci + 1, ki + 1),
                    "score": if case.passed { max } else { 0.0 },
                    "max_score": max,
                    "status": if case.passed { "passed" } else { "failed" },
                    "output": output,
                    "tags": case.tags,
                    "visibility": match case.visibility {
                        Visibility::Visible => "visible",
                        Visibility::Hidden => hidden.as_str(),
                    },
                }));
            }
        }
    }
    let output = match &s.error {
        Some(e) => format!("Your submission could not be graded: {e}"),
        None => format!(
            "{} of {} points.\n\n{}",
            fmt_score(s.points, s.max_points),
            fmt_points(s.max_points),
            terminal::render(&run, false, false)
        ),
    };
    let doc: Value = json!({
        "score": s.points,
        "max_score": s.max_points,
        "execution_time": 0,
        "output": output,
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    Ok(text)
}
