//! `--markdown`: a short summary for a CI step summary
//! (`$GITHUB_STEP_SUMMARY`): the table, then the first failures of each
//! checkpoint in fenced blocks (student text is never read as Markdown).

use super::{
    case_label, failure_details, failure_section, fmt_points, fmt_score, has_failures,
    student_checkpoints, total_cell, FailureSection, FIRST_FAILURES,
};
use crate::grade::{GradeRun, Status, SubmissionGrade};
use std::fmt::Write;

/// The summary as Markdown text.
pub fn render(run: &GradeRun) -> String {
    super::to_string(|w| write(run, w))
}

/// Writes the summary into `w`: the table from summaries, then each
/// submission's failures as its case grades are read back.
pub fn write(run: &GradeRun, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut out = String::new();
    let graded = run
        .submissions
        .iter()
        .filter(|s| s.status == Status::Graded)
        .count();
    let _ = writeln!(
        out,
        "## Autograder: {} submission{}, {} graded\n",
        run.submissions.len(),
        if run.submissions.len() == 1 { "" } else { "s" },
        graded
    );
    if let Some(env) = super::Provenance::of(run) {
        let _ = writeln!(out, "{}\n", cell(&env.line_for(run.audience)));
    }
    let _ = writeln!(out, "{}\n", cell(&super::scoring_line(run)));
    if let Some(shards) = &run.shards {
        let _ = writeln!(out, "**{}**\n", shards.note());
    }
    let _ = write!(out, "| submission |");
    for cp in &run.corpus.checkpoints {
        let _ = write!(out, " {} |", cell(&cp.id));
    }
    let _ = writeln!(out, " total |");
    let _ = writeln!(
        out,
        "|---|{}---|",
        "---|".repeat(run.corpus.checkpoints.len())
    );
    for s in &run.submissions {
        let _ = write!(out, "| {} |", cell(&s.id));
        for cp in &s.checkpoints {
            let text = match s.status {
                Status::Error => "-".to_string(),
                Status::Graded if cp.passed => "✓".to_string(),
                Status::Graded => format!(
                    "{}/{} ({}/{})",
                    fmt_score(cp.points, cp.max_points),
                    fmt_points(cp.max_points),
                    cp.weight_passed,
                    cp.weight_total
                ),
            };
            let _ = write!(out, " {text} |");
        }
        let _ = writeln!(out, " {} |", total_cell(s));
        w.write_all(out.as_bytes())?;
        out.clear();
    }
    let _ = writeln!(out);
    w.write_all(out.as_bytes())?;
    for summary in &run.submissions {
        if !has_failures(summary) {
            continue;
        }
        let s = run.full_one(summary);
        w.write_all(submission(run, &s).as_bytes())?;
    }
    Ok(())
}

/// One submission's failure section: for students, its checkpoints by
/// lesson first ([`student_checkpoints`]).
fn submission(run: &GradeRun, s: &SubmissionGrade) -> String {
    let mut out = String::new();
    let section = failure_section(s, run.audience);
    match section {
        FailureSection::NotGraded(e) => {
            let _ = writeln!(out, "### {}: not graded\n", cell(&s.id));
            let _ = writeln!(out, "{}", fenced(&format!("error: {e}")));
            return out;
        }
        FailureSection::AllFailed(reason) => {
            let heading = if super::import_failed(reason) {
                "nothing could run"
            } else {
                "every case failed"
            };
            let _ = writeln!(out, "### {}: {heading}\n", cell(&s.id));
            let _ = writeln!(out, "{}", fenced(&super::all_failed_text(s, reason)));
            if super::import_failed(reason) {
                return out;
            }
        }
        FailureSection::Checkpoints(_) => {}
    }
    if let Some(lessons) = student_checkpoints(run, s) {
        let _ = writeln!(out, "### {}: your checkpoints\n", cell(&s.id));
        for lesson in lessons {
            let _ = writeln!(out, "**{}**\n", cell(&lesson.heading(run.corpus.scoring)));
            for c in &lesson.checkpoints {
                let _ = writeln!(out, "- {} {}", c.mark(), cell(&c.text()));
            }
            let _ = writeln!(out);
        }
    }
    let FailureSection::Checkpoints(checkpoints) = section else {
        return out;
    };
    for c in checkpoints {
        let (cp, failed) = (c.checkpoint, &c.failed);
        if let Some(line) = c.not_defined_line() {
            // As the other checkpoint headings: ids are the corpus's.
            let _ = writeln!(out, "### {} / {line}\n", cell(&s.id));
            continue;
        }
        let _ = writeln!(
            out,
            "### {} / {}: {}\n",
            cell(&s.id),
            cp.id,
            c.count_text(run.audience)
        );
        let info = run.corpus.checkpoints.iter().find(|i| *i.id == *cp.id);
        let criteria: Vec<String> = info
            .map(|i| super::criteria(i, cp))
            .unwrap_or_default()
            .iter()
            .filter(|line| !line.grade.passed)
            .map(|line| {
                format!(
                    "- ✗ criterion {}: {}",
                    cell(&line.text()),
                    cell(&line.failed_names(FIRST_FAILURES))
                )
            })
            .collect();
        if !criteria.is_empty() {
            let _ = writeln!(out, "{}\n", criteria.join("\n"));
        }
        for (case, f) in failed.iter().take(FIRST_FAILURES) {
            let mut lines = vec![format!("✗ {}: {}", case_label(case), f.reason)];
            lines.extend(failure_details(f).into_iter().map(|l| format!("    {l}")));
            let _ = writeln!(out, "{}", fenced(&lines.join("\n")));
        }
        if failed.len() > FIRST_FAILURES {
            let _ = writeln!(out, "… and {} more\n", failed.len() - FIRST_FAILURES);
        }
    }
    out
}

/// Text safe inside a table cell or a heading: read literally, never as
/// emphasis, code, a link or HTML (`a_b_c` and `*x*` stay as written), as
/// GitHub's cmark-gfm reads it: no entity is decoded (`&lt;` stays that),
/// and nothing is autolinked (`https://` and `www.` lose their link to an
/// escaped `:` or `.`; an address to a `<wbr>` after its `@`, which GitHub
/// keeps and shows as nothing).
fn cell(text: &str) -> String {
    let text = crate::text::replaced(text);
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' | '|' | '*' | '_' | '`' | '[' | ']' | '~' => {
                out.push('\\');
                out.push(c);
            }
            ':' if chars.peek() == Some(&'/') => out.push_str("\\:"),
            '.' if out.len() >= 3
                && out.as_bytes()[out.len() - 3..].eq_ignore_ascii_case(b"www") =>
            {
                out.push_str("\\.")
            }
            '<' => out.push_str("&lt;"),
            '&' => out.push_str("&amp;"),
            '@' => out.push_str("@<wbr>"),
            '\n' | '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A fenced code block whose fence is longer than any backtick run inside;
/// what [`crate::text`] hides becomes U+FFFD.
fn fenced(text: &str) -> String {
    let text = crate::text::replaced(text);
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}text\n{text}\n{fence}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_never_emphasis() {
        assert_eq!(cell("a_b_c"), "a\\_b\\_c");
        assert_eq!(
            cell("*x* `y` [z](u) ~~s~~"),
            "\\*x\\* \\`y\\` \\[z\\](u) \\~\\~s\\~\\~"
        );
        assert_eq!(cell("a|b\\<i>\n"), "a\\|b\\\\&lt;i> ");
    }

    #[test]
    fn nothing_is_autolinked_or_decoded() {
        assert_eq!(
            cell("www.x.com https://y.org a@b.co &lt;"),
            "www\\.x.com https\\://y.org a@<wbr>b.co &amp;lt;"
        );
    }

    #[test]
    fn fence_outgrows_backticks() {
        let f = fenced("a ```` b");
        assert!(f.starts_with("`````text\n"), "{f}");
    }
}
