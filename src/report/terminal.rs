//! The terminal summary: a table submissions × checkpoints (✓ when passed,
//! else passed/total weight), totals, then the first failures of every
//! checkpoint with call, expected, got and a diff.

use super::{
    case_label, checkpoint_ids, failure_details, failure_section, has_failures, total_cell,
    FailureSection, FIRST_FAILURES,
};
use crate::grade::{GradeRun, Status, SubmissionGrade};
use std::fmt::Write;

const GREEN: &str = "\x1b[32m";
const RED: &str = "\x1b[31m";
const BOLD: &str = "\x1b[1m";
const RESET: &str = "\x1b[0m";

/// Whether to colour stdout, from the environment (see [`color_wanted`]).
pub fn want_color() -> bool {
    use is_terminal::IsTerminal;
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    color_wanted(
        std::io::stdout().is_terminal(),
        var("NO_COLOR").is_some(),
        var("CLICOLOR_FORCE").is_some_and(|v| v != "0"),
        var("TERM").as_deref(),
    )
}

/// The last line of the terminal summary: where the recordings were made.
pub fn footer(run: &GradeRun) -> String {
    super::Environment::of(run).map_or(String::new(), |env| {
        format!("\n{}\n", printable(&env.line()))
    })
}

/// The colour decision: `NO_COLOR` (set, non-empty) never colours;
/// `CLICOLOR_FORCE` (set, not `0`) colours even into a pipe; otherwise
/// colour only a terminal that is not `TERM=dumb`.
pub fn color_wanted(tty: bool, no_color: bool, force: bool, term: Option<&str>) -> bool {
    if no_color {
        false
    } else if force {
        true
    } else {
        tty && term != Some("dumb")
    }
}

/// How much of the failures the summary shows after its table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Details {
    /// The table only (`--summary-only`, and Gradescope's overview).
    None,
    /// The first failures of the first [`DETAILED_SUBMISSIONS`] submissions
    /// with failures, then how many more there are.
    Capped,
    /// Every submission's first failures.
    All,
}

/// How many submissions' failures the terminal shows by default: a large
/// run's details belong in `--html` or `--json`.
pub const DETAILED_SUBMISSIONS: usize = 25;

/// The summary text. `color` adds ANSI colours; `failures` adds the
/// per-checkpoint failure details after the table.
pub fn render(run: &GradeRun, color: bool, failures: bool) -> String {
    render_with(
        run,
        color,
        if failures {
            Details::All
        } else {
            Details::None
        },
    )
}

/// [`render`] with the failure details chosen by `details`.
pub fn render_with(run: &GradeRun, color: bool, details: Details) -> String {
    super::to_string(|w| write_with(run, color, details, w))
}

/// Writes [`render_with`]'s text into `out`: the table (summaries only),
/// then each detailed submission's failures as its case grades are read
/// back, one submission at a time.
pub fn write_with(
    run: &GradeRun,
    color: bool,
    details: Details,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    table(run, color, w)?;
    if details == Details::None {
        return Ok(());
    }
    let mut detailed = 0;
    let total_with_failures = run.submissions.iter().filter(|s| has_failures(s)).count();
    for summary in &run.submissions {
        let mut out = String::new();
        if details == Details::Capped && has_failures(summary) {
            if detailed == DETAILED_SUBMISSIONS {
                let _ = writeln!(
                    out,
                    "\n… {} more submissions with failures: see --html or --json",
                    total_with_failures - detailed
                );
                w.write_all(out.as_bytes())?;
                break;
            }
            detailed += 1;
        }
        // Only a submission with failures has anything to read back.
        let s = if has_failures(summary) {
            run.full_one(summary)
        } else {
            std::borrow::Cow::Borrowed(summary)
        };
        submission_failures(&mut out, &s, color);
        w.write_all(out.as_bytes())?;
    }
    Ok(())
}

/// The summary table (and the integrity findings), from summaries alone.
fn table(run: &GradeRun, color: bool, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let paint = |text: &str, code: &str| {
        if color {
            format!("{code}{text}{RESET}")
        } else {
            text.to_string()
        }
    };
    let ids = checkpoint_ids(run);
    let mut header = vec!["submission".to_string()];
    header.extend(ids.iter().map(|s| s.to_string()));
    header.push("total".into());
    // A row's cells as (text, colour), made twice (for the widths, then to
    // write it) rather than kept: the table of a large run is not held.
    let row = |s: &SubmissionGrade| -> Vec<(String, Option<&str>)> {
        let mut row = vec![(printable(&s.id), None)];
        for cp in &s.checkpoints {
            row.push(match s.status {
                Status::Error => ("-".to_string(), Some(RED)),
                Status::Graded if cp.passed => ("✓".to_string(), Some(GREEN)),
                Status::Graded => (
                    format!("{}/{}", cp.weight_passed, cp.weight_total),
                    Some(RED),
                ),
            });
        }
        let ok = s.status == Status::Graded && s.checkpoints.iter().all(|c| c.passed);
        row.push((total_cell(s), Some(if ok { GREEN } else { RED })));
        row
    };
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for s in &run.submissions {
        for (width, (text, _)) in widths.iter_mut().zip(row(s)) {
            *width = (*width).max(text.chars().count());
        }
    }
    let mut out = String::new();
    if let Some(shards) = &run.shards {
        let _ = writeln!(out, "{}", paint(&shards.note(), RED));
    }
    let pad = |text: &str, width: usize, left: bool| {
        let fill = " ".repeat(width.saturating_sub(text.chars().count()));
        if left {
            format!("{text}{fill}")
        } else {
            format!("{fill}{text}")
        }
    };
    let head: Vec<String> = header
        .iter()
        .enumerate()
        .map(|(i, h)| pad(h, widths[i], i == 0))
        .collect();
    let _ = writeln!(out, "{}", paint(head.join("  ").trim_end(), BOLD));
    for s in &run.submissions {
        let cells: Vec<String> = row(s)
            .iter()
            .enumerate()
            .map(|(i, (text, code))| {
                let padded = pad(text, widths[i], i == 0);
                match code {
                    Some(code) => paint(&padded, code),
                    None => padded,
                }
            })
            .collect();
        let _ = writeln!(out, "{}", cells.join("  "));
        w.write_all(out.as_bytes())?;
        out.clear();
    }
    let flagged: Vec<(String, String)> = run
        .submissions
        .iter()
        .filter_map(|s| Some((printable(&s.id), super::integrity_line(run, s)?)))
        .collect();
    if !flagged.is_empty() {
        let _ = writeln!(
            out,
            "\n{} (instructors only; see --json or --html for every finding)",
            paint("integrity", BOLD)
        );
        for (id, line) in flagged {
            let _ = writeln!(out, "  {}: {}", paint(&id, BOLD), printable(&line));
        }
    }
    w.write_all(out.as_bytes())
}

/// One submission's failure details (as [`failure_section`] decides them).
fn submission_failures(out: &mut String, s: &SubmissionGrade, color: bool) {
    let paint = |text: &str, code: &str| {
        if color {
            format!("{code}{text}{RESET}")
        } else {
            text.to_string()
        }
    };
    let id = printable(&s.id);
    let section = failure_section(s);
    if let FailureSection::NotGraded(e) = section {
        let _ = writeln!(
            out,
            "\n{}: {}",
            paint(&id, BOLD),
            paint(&format!("error: {}", printable(e)), RED)
        );
        return;
    }
    if s.recording.as_ref().is_some_and(|r| r.stale) {
        let _ = writeln!(
            out,
            "\n{}: {}",
            paint(&id, BOLD),
            paint(
                "note: its recording answers another version of the corpus \
                 (cases it lacks count as not recorded); record it again",
                RED
            )
        );
    }
    let checkpoints = match section {
        FailureSection::NotGraded(_) => return,
        FailureSection::AllFailed(reason) => {
            let _ = writeln!(
                out,
                "\n{}: every case failed: {}",
                paint(&id, BOLD),
                paint(&printable(reason), RED)
            );
            return;
        }
        FailureSection::Checkpoints(checkpoints) => checkpoints,
    };
    for c in checkpoints {
        let (cp, failed) = (c.checkpoint, &c.failed);
        let _ = writeln!(
            out,
            "\n{} {} — {} of {} cases failed",
            paint(&id, BOLD),
            cp.id,
            failed.len(),
            cp.cases_total
        );
        for (case, f) in failed.iter().take(FIRST_FAILURES) {
            let _ = writeln!(
                out,
                "  {} {}: {}",
                paint("✗", RED),
                printable(&case_label(case)),
                printable(&f.reason)
            );
            for line in failure_details(f) {
                let line = printable(&line);
                let line = if !color {
                    line
                } else if line.starts_with('+') && !line.starts_with("+++") {
                    paint(&line, GREEN)
                } else if line.starts_with('-') && !line.starts_with("---") {
                    paint(&line, RED)
                } else {
                    line
                };
                let _ = writeln!(out, "      {line}");
            }
        }
        if failed.len() > FIRST_FAILURES {
            let _ = writeln!(out, "  … and {} more", failed.len() - FIRST_FAILURES);
        }
    }
}

/// Text from a submission (its id, reasons, values, messages) as the
/// terminal may show it: folder names, class names and messages can hold
/// newlines, escape sequences or bidi overrides, which would break the
/// table, drive the terminal or reorder what it shows (see [`super::text`]).
/// Grading escapes them already; the terminal makes sure of it, since the
/// colours it adds are the only control sequences it may write.
fn printable(text: &str) -> String {
    super::text::escaped(text)
}

#[cfg(test)]
mod tests {
    use super::color_wanted;

    #[test]
    fn colour_follows_no_color_clicolor_force_and_term() {
        assert!(color_wanted(true, false, false, Some("xterm")));
        assert!(!color_wanted(true, false, false, Some("dumb")));
        assert!(!color_wanted(false, false, false, Some("xterm")));
        assert!(color_wanted(false, false, true, Some("dumb")));
        assert!(!color_wanted(true, true, true, Some("xterm")));
    }
}
