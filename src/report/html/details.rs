//! A submission's failures in full, as the `<details>` element the page
//! shows: integrity findings, then each failed checkpoint's first cases.

use super::escape::esc;
use crate::corpus::Visibility;
use crate::grade::{GradeRun, SubmissionGrade};
use crate::report::{
    all_failed_text, case_label, failure_fields, failure_section, integrity_line, total_cell,
    FailedCheckpoint, FailureSection,
};
use std::fmt::Write;

/// How many failures per checkpoint a submission's details list.
pub(super) const DETAIL_FAILURES: usize = 20;

/// A submission's `<details>`: its summary line, its integrity findings
/// (instructors only) and its failures.
pub(super) fn submission_details(out: &mut String, i: usize, s: &SubmissionGrade, run: &GradeRun) {
    let failures: usize = s.checkpoints.iter().map(|c| c.failures().count()).sum();
    let summary = match &s.error {
        Some(_) => "not graded".to_string(),
        None if failures == 0 => "all cases passed".to_string(),
        None => format!(
            "{failures} failed case{}",
            if failures == 1 { "" } else { "s" }
        ),
    };
    let _ = writeln!(
        out,
        "<details id=\"sub-{i}\" data-id=\"{id}\"><summary><b>{id}</b> — {} — {}</summary>",
        esc(&total_cell(s)),
        summary,
        id = esc(&s.id),
    );
    if integrity_line(run, s).is_some() {
        out.push_str("<div class=\"integrity\"><b>Integrity (instructors only)</b><ul>\n");
        for f in &s.integrity {
            let _ = writeln!(
                out,
                "<li data-source=\"{}\" data-kind=\"{}\">{} <i>({}, {})</i></li>",
                f.source.name(),
                esc(&f.kind),
                esc(&f.label()),
                f.source.name(),
                esc(&f.kind)
            );
        }
        out.push_str("</ul></div>\n");
    }
    match failure_section(s, run.audience) {
        FailureSection::NotGraded(e) => {
            let _ = writeln!(out, "<pre>error: {}</pre>", esc(e));
        }
        FailureSection::AllFailed(reason) => {
            let _ = writeln!(out, "<pre>{}</pre>", esc(&all_failed_text(s, reason)));
        }
        FailureSection::Checkpoints(checkpoints) => {
            failed_checkpoints(out, &checkpoints, run.audience)
        }
    }
    out.push_str("</details>\n");
}

/// Each failed checkpoint of a submission: its first failed cases in full,
/// or one line when `main.py` does not define its function.
pub(super) fn failed_checkpoints(
    out: &mut String,
    checkpoints: &[FailedCheckpoint],
    audience: crate::grade::Audience,
) {
    for c in checkpoints {
        let (cp, failed) = (c.checkpoint, &c.failed);
        if let Some(line) = c.not_defined_line() {
            let _ = writeln!(out, "<h4 class=\"missing\">{}</h4>", esc(&line));
            continue;
        }
        let _ = writeln!(
            out,
            "<h4>{}: {}</h4>",
            esc(&cp.id),
            esc(&c.count_text(audience))
        );
        out.push_str("<ul class=\"failures\">\n");
        for (case, f) in failed.iter().take(DETAIL_FAILURES) {
            let hidden = if case.visibility == Visibility::Hidden {
                " hidden"
            } else {
                ""
            };
            let _ = write!(
                out,
                "<li class=\"failure{hidden}\"><div><b>{}</b> — {}</div>",
                esc(&case_label(case)),
                esc(&f.reason)
            );
            let lines = failure_fields(f);
            let diff = f.diff.as_deref().map(diff_lines);
            if !lines.is_empty() || diff.is_some() {
                let mut text = esc(&lines.join("\n"));
                if let Some(d) = diff {
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str(&d);
                }
                let _ = write!(out, "<pre>{text}</pre>");
            }
            out.push_str("</li>\n");
        }
        if failed.len() > DETAIL_FAILURES {
            let _ = writeln!(
                out,
                "<li class=\"more\">… and {} more (see the JSON report)</li>",
                failed.len() - DETAIL_FAILURES
            );
        }
        out.push_str("</ul>\n");
    }
}

/// A unified diff, escaped, with added and removed lines marked.
pub(super) fn diff_lines(diff: &str) -> String {
    diff.lines()
        .map(|l| {
            let class = match l.as_bytes().first() {
                Some(b'+') if !l.starts_with("+++") => "add",
                Some(b'-') if !l.starts_with("---") => "del",
                Some(b'@') => "hunk",
                _ => return esc(l),
            };
            format!("<span class=\"{class}\">{}</span>", esc(l))
        })
        .collect::<Vec<_>>()
        .join("\n")
}
