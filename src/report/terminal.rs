//! The terminal summary: a table submissions × checkpoints (✓ when passed,
//! else passed/total weight), totals, then the first failures of every
//! checkpoint with call, expected, got and a diff. The table fits the
//! terminal's width: when the checkpoints do not, its columns are lessons,
//! else totals only (see [`Layout`]); a row never wraps.

use super::{
    case_label, checkpoint_ids, failure_details, failure_section, has_failures,
    student_checkpoints, total_cell, FailureSection, FIRST_FAILURES,
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

/// The last line of the terminal summary: where the recordings were made
/// (for students, only which Python graded them), folded to `width`.
pub fn footer(run: &GradeRun, width: usize) -> String {
    super::Provenance::of(run).map_or(String::new(), |env| {
        folded(
            &format!("\n{}\n", printable(&env.line_for(run.audience))),
            width,
        )
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
pub enum FailureDetail {
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
            FailureDetail::All
        } else {
            FailureDetail::None
        },
    )
}

/// [`render`] with the failure details chosen by `details`. Its table is
/// not fitted to a width: one column per checkpoint.
pub fn render_with(run: &GradeRun, color: bool, details: FailureDetail) -> String {
    super::to_string(|w| write_fitted(run, color, details, usize::MAX, w))
}

/// [`render_with`] with the table fitted to `width` columns (see [`Layout`]).
pub fn render_fitted(run: &GradeRun, color: bool, details: FailureDetail, width: usize) -> String {
    super::to_string(|w| write_fitted(run, color, details, width, w))
}

/// What `autograder grade` prints on stdout: [`write_fitted`] at the
/// [`width`] the environment says.
pub fn write_with(
    run: &GradeRun,
    color: bool,
    details: FailureDetail,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    write_fitted(run, color, details, width(), w)
}

/// Writes [`render_fitted`]'s text into `out`: the table (summaries only,
/// fitted to `width` columns), then each detailed submission's failures as
/// its case grades are read back, one submission at a time.
pub fn write_fitted(
    run: &GradeRun,
    color: bool,
    details: FailureDetail,
    width: usize,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    table(run, color, details, width, w)?;
    if details == FailureDetail::None {
        return Ok(());
    }
    let mut detailed = 0;
    let total_with_failures = run.submissions.iter().filter(|s| has_failures(s)).count();
    for summary in &run.submissions {
        let mut out = String::new();
        if details == FailureDetail::Capped && has_failures(summary) {
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
        submission_failures(&mut out, run, &s, color);
        w.write_all(folded(&out, width).as_bytes())?;
    }
    Ok(())
}

/// The width the table is fitted to when neither `COLUMNS` nor a terminal
/// says one (a pipe, a file, a CI log).
pub const DEFAULT_WIDTH: usize = 100;

/// The width `autograder grade` fits its table to (see [`width_from`]):
/// `COLUMNS`, else the width of stdout when it is a terminal, else
/// [`DEFAULT_WIDTH`].
pub fn width() -> usize {
    let tty = console::Term::stdout()
        .size_checked()
        .map(|(_rows, columns)| usize::from(columns));
    width_from(std::env::var("COLUMNS").ok().as_deref(), tty)
}

/// The width decision: `columns` (the `COLUMNS` variable) when it is a
/// positive integer, else `tty` (the terminal's width, when stdout is one
/// and says it), else [`DEFAULT_WIDTH`].
pub fn width_from(columns: Option<&str>, tty: Option<usize>) -> usize {
    columns
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .or(tty.filter(|&n| n > 0))
        .unwrap_or(DEFAULT_WIDTH)
}

/// The table's layouts, tried in this order: the first that fits the width
/// is used (see [`fit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// One column per checkpoint: `✓`, or the passed weight of its cases
    /// out of their total (`104/107`).
    Checkpoints,
    /// One column per lesson, headed by its id: `✓` when every checkpoint
    /// of the lesson passed, else its points out of its maximum (`2.85/3`).
    Lessons,
    /// The id and the total only; the id column is cut (`…`) if even this
    /// is wider than the width.
    Totals,
}

/// A cell's text and colour.
type Cell = (String, Option<&'static str>);

/// One submission's cells in every layout. Made twice (for the widths,
/// then to write the row) rather than kept: the table of a large run is
/// not held.
struct Cells {
    id: String,
    checkpoints: Vec<Cell>,
    lessons: Vec<Cell>,
    total: Cell,
}

impl Cells {
    fn of(s: &SubmissionGrade, lessons: &[&str]) -> Cells {
        let checkpoints = s
            .checkpoints
            .iter()
            .map(|cp| match s.status {
                Status::Error => ("-".to_string(), Some(RED)),
                Status::Graded if cp.passed => ("✓".to_string(), Some(GREEN)),
                Status::Graded => (
                    format!("{}/{}", cp.weight_passed, cp.weight_total),
                    Some(RED),
                ),
            })
            .collect();
        let lessons = lessons
            .iter()
            .map(|&lesson| {
                let of_lesson = || s.checkpoints.iter().filter(|c| *c.lesson == *lesson);
                match s.status {
                    Status::Error => ("-".to_string(), Some(RED)),
                    Status::Graded if of_lesson().all(|c| c.passed) => {
                        ("✓".to_string(), Some(GREEN))
                    }
                    Status::Graded => {
                        let points: f64 = of_lesson().map(|c| c.points).sum();
                        let max: f64 = of_lesson().map(|c| c.max_points).sum();
                        let shown = super::fmt_score(points, max);
                        (format!("{shown}/{}", super::fmt_points(max)), Some(RED))
                    }
                }
            })
            .collect();
        let ok = s.status == Status::Graded && s.checkpoints.iter().all(|c| c.passed);
        Cells {
            id: printable(&s.id),
            checkpoints,
            lessons,
            total: (total_cell(s), Some(if ok { GREEN } else { RED })),
        }
    }

    /// The row in `layout`.
    fn row(&self, layout: Layout) -> Vec<Cell> {
        let middle: &[Cell] = match layout {
            Layout::Checkpoints => &self.checkpoints,
            Layout::Lessons => &self.lessons,
            Layout::Totals => &[],
        };
        let mut row = vec![(self.id.clone(), None)];
        row.extend_from_slice(middle);
        row.push(self.total.clone());
        row
    }
}

/// The summary table (and the integrity findings), from summaries alone,
/// in the first [`Layout`] that fits `width` columns; a grouped layout
/// says so in a line under the table. No line of the table is wider than
/// `width` characters (colours do not count).
fn table(
    run: &GradeRun,
    color: bool,
    details: FailureDetail,
    width: usize,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let paint = |text: &str, code: &str| {
        if color {
            format!("{code}{text}{RESET}")
        } else {
            text.to_string()
        }
    };
    let ids = checkpoint_ids(run);
    let mut lessons: Vec<&str> = Vec::new();
    for c in &run.corpus.checkpoints {
        if !lessons.contains(&c.lesson.as_str()) {
            lessons.push(&c.lesson);
        }
    }
    let header = |layout: Layout| -> Vec<String> {
        let middle: &[&str] = match layout {
            Layout::Checkpoints => &ids,
            Layout::Lessons => &lessons,
            Layout::Totals => &[],
        };
        let mut header = vec!["submission".to_string()];
        header.extend(middle.iter().map(|s| s.to_string()));
        header.push("total".into());
        header
    };
    // The widest cell of every column of every layout (headers aside).
    let layouts = [Layout::Checkpoints, Layout::Lessons, Layout::Totals];
    let mut cell_widths: Vec<Vec<usize>> =
        layouts.iter().map(|&l| vec![0; header(l).len()]).collect();
    for s in &run.submissions {
        let cells = Cells::of(s, &lessons);
        for (widths, &layout) in cell_widths.iter_mut().zip(&layouts) {
            for (width, (text, _)) in widths.iter_mut().zip(cells.row(layout)) {
                *width = (*width).max(text.chars().count());
            }
        }
    }
    // Lessons are a layout of their own only when they group checkpoints.
    let mut chosen = None;
    for (i, &layout) in layouts.iter().enumerate() {
        if layout == Layout::Lessons && lessons.len() >= ids.len() {
            continue;
        }
        if let Some(widths) = fit(&header(layout), &cell_widths[i], width) {
            chosen = Some((layout, widths));
            break;
        }
    }
    let (layout, widths) = chosen.unwrap_or_else(|| {
        let totals = header(Layout::Totals);
        (
            Layout::Totals,
            totals_widths(&totals, &cell_widths[2], width),
        )
    });
    let head = header(layout);

    let mut out = String::new();
    if let Some(shards) = &run.shards {
        let _ = writeln!(out, "{}", paint(&shards.note(), RED));
    }
    let pad = |text: &str, width: usize, left: bool| {
        let text = cut(text, width);
        let fill = " ".repeat(width.saturating_sub(text.chars().count()));
        if left {
            format!("{text}{fill}")
        } else {
            format!("{fill}{text}")
        }
    };
    let head: Vec<Cell> = head
        .iter()
        .enumerate()
        .map(|(i, h)| (pad(h, widths[i], i == 0), None))
        .collect();
    let _ = writeln!(
        out,
        "{}",
        paint(joined(&head, width, false).trim_end(), BOLD)
    );
    for s in &run.submissions {
        let cells: Vec<Cell> = Cells::of(s, &lessons)
            .row(layout)
            .into_iter()
            .enumerate()
            .map(|(i, (text, code))| (pad(&text, widths[i], i == 0), code))
            .collect();
        let _ = writeln!(out, "{}", joined(&cells, width, color));
        w.write_all(out.as_bytes())?;
        out.clear();
    }
    if layout != Layout::Checkpoints {
        let what = match layout {
            Layout::Lessons => "columns are lessons",
            _ => "totals only",
        };
        let place = if details == FailureDetail::None {
            "see --html or --json"
        } else {
            "see the failures below"
        };
        // How wide the table is with a column per checkpoint.
        let all: usize = header(Layout::Checkpoints)
            .iter()
            .zip(&cell_widths[0])
            .map(|(h, &c)| h.chars().count().max(c) + 2)
            .sum::<usize>()
            - 2;
        let notes = [
            format!(
                "{what}, to fit {width} columns: {place} (or COLUMNS={all}) for each checkpoint"
            ),
            format!("{what}, to fit {width} columns: {place} for each checkpoint"),
            format!("{what}: {place} for each checkpoint"),
            what.to_string(),
        ];
        let note = notes
            .iter()
            .find(|n| n.chars().count() <= width)
            .unwrap_or(&notes[3]);
        let _ = writeln!(out, "{}", joined(&[(note.clone(), None)], width, false));
    }
    // After a blank line: the table ends where its rows do.
    let scoring = joined(&[(super::scoring_line(run), None)], width, false);
    let _ = writeln!(out, "\n{scoring}");
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

/// The column widths of a table with `headers` and cells at most `cells`
/// wide (per column) that fit in `width` characters (two spaces between
/// columns): each column as wide as its header and its cells when that
/// fits. Else the headers between the id and the total are cut
/// (`validate_tool_c…`), the widest first and only as far as needed, never
/// narrower than their widest cell nor to a prefix that starts another
/// header too (so `run_tool` is never cut: it starts `run_tools`). `None`
/// when even that does not fit.
fn fit(headers: &[String], cells: &[usize], width: usize) -> Option<Vec<usize>> {
    let n = headers.len();
    let seps = 2 * n.saturating_sub(1);
    let total = |widths: &[usize]| widths.iter().sum::<usize>() + seps;
    let natural: Vec<usize> = headers
        .iter()
        .zip(cells)
        .map(|(h, &c)| h.chars().count().max(c))
        .collect();
    if total(&natural) <= width {
        return Some(natural);
    }
    let least: Vec<usize> = (0..n)
        .map(|i| {
            if i == 0 || i + 1 == n {
                natural[i]
            } else {
                cells[i].max(shortest_cut(headers, i)).min(natural[i])
            }
        })
        .collect();
    // Every column at most `level` wide, as far as it may be cut.
    let at = |level: usize| -> Vec<usize> {
        natural
            .iter()
            .zip(&least)
            .map(|(&nat, &min)| nat.min(level).max(min))
            .collect()
    };
    let top = natural.iter().copied().max().unwrap_or(0);
    let level = (0..top).rev().find(|&l| total(&at(l)) <= width)?;
    let mut widths = at(level);
    // What is left at that level goes to the first of the cut columns.
    let mut room = width - total(&widths);
    for (w, &nat) in widths.iter_mut().zip(&natural) {
        if room == 0 {
            break;
        }
        if *w == level && nat > level {
            *w += 1;
            room -= 1;
        }
    }
    Some(widths)
}

/// The width of the shortest cut of header `i` (`prefix…`) whose prefix
/// starts no other header; its own width when there is none.
fn shortest_cut(headers: &[String], i: usize) -> usize {
    let own: Vec<char> = headers[i].chars().collect();
    (1..own.len())
        .find(|&p| {
            let prefix: String = own[..p].iter().collect();
            !headers
                .iter()
                .enumerate()
                .any(|(j, other)| j != i && other.starts_with(&prefix))
        })
        .map_or(own.len(), |p| (p + 1).min(own.len()))
}

/// The widths of the id and total columns: the id column cut to what the
/// total leaves of `width` (at least one character).
fn totals_widths(headers: &[String], cells: &[usize], width: usize) -> Vec<usize> {
    let natural: Vec<usize> = headers
        .iter()
        .zip(cells)
        .map(|(h, &c)| h.chars().count().max(c))
        .collect();
    let (id, total) = (natural[0], natural[1]);
    vec![id.min(width.saturating_sub(total + 2)).max(1), total]
}

/// `text` in at most `width` characters: cut, ending with `…`, when longer.
fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    if width > 0 {
        cut.push('…');
    }
    cut
}

/// A line of cells (padded already) two spaces apart, each painted in its
/// colour when `color`, cut to `width` characters (the last one `…`) when
/// longer: a line of the table never wraps.
fn joined(cells: &[Cell], width: usize, color: bool) -> String {
    let mut pieces: Vec<(&str, Option<&str>)> = Vec::new();
    for (i, (text, code)) in cells.iter().enumerate() {
        if i > 0 {
            pieces.push(("  ", None));
        }
        pieces.push((text, *code));
    }
    let len: usize = pieces.iter().map(|(t, _)| t.chars().count()).sum();
    // Characters still to show, the `…` aside.
    let mut room = if len > width {
        width.saturating_sub(1)
    } else {
        len
    };
    let mut out = String::new();
    for (text, code) in pieces {
        let n = text.chars().count();
        let whole = n <= room;
        let mut piece: String = if whole {
            text.to_string()
        } else {
            text.chars().take(room).collect()
        };
        room -= n.min(room);
        if !whole {
            piece.push('…');
        }
        match code {
            Some(code) if color => {
                let _ = write!(out, "{code}{piece}{RESET}");
            }
            _ => out.push_str(&piece),
        }
        if !whole {
            break;
        }
    }
    out
}

/// One submission's failure details (as [`failure_section`] decides them):
/// for students, its checkpoints by lesson first ([`student_checkpoints`]).
fn submission_failures(out: &mut String, run: &GradeRun, s: &SubmissionGrade, color: bool) {
    let paint = |text: &str, code: &str| {
        if color {
            format!("{code}{text}{RESET}")
        } else {
            text.to_string()
        }
    };
    let id = printable(&s.id);
    let section = failure_section(s, run.audience);
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
    if let FailureSection::AllFailed(reason) = section {
        let _ = writeln!(
            out,
            "\n{}: {}",
            paint(&id, BOLD),
            paint(&printable(&super::all_failed_text(s, reason)), RED)
        );
    }
    let nothing_ran = matches!(section, FailureSection::AllFailed(r) if super::import_failed(r));
    // A submission without failures has no section to start; one whose
    // main.py did not import has said so once.
    if has_failures(s) && !nothing_ran {
        for lesson in student_checkpoints(run, s).into_iter().flatten() {
            let _ = writeln!(
                out,
                "\n{} {}",
                paint(&id, BOLD),
                printable(&lesson.heading(run.corpus.scoring))
            );
            for c in &lesson.checkpoints {
                let mark = paint(c.mark(), if c.passed { GREEN } else { RED });
                let _ = writeln!(out, "  {mark} {}", printable(&c.text()));
            }
        }
    }
    let FailureSection::Checkpoints(checkpoints) = section else {
        return;
    };
    for c in checkpoints {
        let (cp, failed) = (c.checkpoint, &c.failed);
        if let Some(line) = c.not_defined_line() {
            let _ = writeln!(
                out,
                "\n{} {}",
                paint(&id, BOLD),
                paint(&printable(&line), RED)
            );
            continue;
        }
        let _ = writeln!(
            out,
            "\n{} {} — {}",
            paint(&id, BOLD),
            cp.id,
            c.count_text(run.audience)
        );
        let info = run.corpus.checkpoints.iter().find(|i| *i.id == *cp.id);
        for line in info.map(|i| super::criteria(i, cp)).unwrap_or_default() {
            if !line.grade.passed {
                let _ = writeln!(
                    out,
                    "  {} criterion {}: {}",
                    paint("✗", RED),
                    printable(&line.text()),
                    printable(&line.failed_names(FIRST_FAILURES))
                );
            }
        }
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

/// `text` with every line at most `width` columns wide: a longer one goes
/// on below, each further line indented two more than the line, broken
/// after a space where one is in the line's second half, else where the
/// width ends (colours do not count).
fn folded(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if console::measure_text_width(line) <= width {
            out.push_str(line);
            continue;
        }
        let lead = line.len() - line.trim_start_matches(' ').len();
        let indent = (lead + 2).min(width / 2);
        // The line as pieces: a character and its width, or a colour (none).
        let mut pieces: Vec<(&str, usize)> = Vec::new();
        let mut rest = line;
        while let Some(c) = rest.chars().next() {
            let len = if c == '\x1b' {
                rest.find('m').map_or(rest.len(), |m| m + 1)
            } else {
                c.len_utf8()
            };
            let (piece, tail) = rest.split_at(len);
            let w = if c == '\x1b' {
                0
            } else {
                console::measure_text_width(piece)
            };
            pieces.push((piece, w));
            rest = tail;
        }
        let mut row: Vec<(&str, usize)> = Vec::new();
        let mut column = 0;
        let mut first = true;
        for piece in pieces {
            let start = if first { 0 } else { indent };
            if column + piece.1 > width && column > start {
                // Where to break: after the row's last space in its second half.
                let half = start + (width - start) / 2;
                let mut at = row.len();
                let mut seen = start;
                let mut space = None;
                for (k, (p, w)) in row.iter().enumerate() {
                    seen += w;
                    if *p == " " && seen > half {
                        space = Some(k + 1);
                    }
                }
                if let Some(k) = space {
                    at = k;
                }
                let carried = row.split_off(at);
                if !first {
                    out.push_str(&" ".repeat(indent));
                }
                out.extend(row.iter().map(|(p, _)| *p));
                out.push('\n');
                first = false;
                column = indent + carried.iter().map(|(_, w)| w).sum::<usize>();
                row = carried;
            }
            row.push(piece);
            column += piece.1;
        }
        if !first {
            out.push_str(&" ".repeat(indent));
        }
        out.extend(row.iter().map(|(p, _)| *p));
    }
    out
}

/// Text from a submission (its id, reasons, values, messages) as the
/// terminal may show it: folder names, class names and messages can hold
/// newlines, escape sequences or bidi overrides, which would break the
/// table, drive the terminal or reorder what it shows (see [`crate::text`]).
/// Grading escapes them already; the terminal makes sure of it, since the
/// colours it adds are the only control sequences it may write.
fn printable(text: &str) -> String {
    crate::text::escaped(text)
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

    #[test]
    fn the_width_is_columns_else_the_terminal_else_100() {
        use super::{width_from, DEFAULT_WIDTH};
        assert_eq!(DEFAULT_WIDTH, 100);
        assert_eq!(width_from(Some("80"), Some(120)), 80);
        assert_eq!(width_from(Some("300"), None), 300);
        // Not a positive integer: as if unset.
        for bad in [
            "",
            "0",
            "-5",
            "wide",
            " 80",
            "80x",
            "99999999999999999999999",
        ] {
            assert_eq!(width_from(Some(bad), Some(120)), 120, "{bad:?}");
            assert_eq!(width_from(Some(bad), None), 100, "{bad:?}");
        }
        assert_eq!(width_from(None, Some(132)), 132);
        assert_eq!(width_from(None, Some(0)), 100);
        assert_eq!(width_from(None, None), 100);
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn headers_are_cut_only_as_far_as_needed_and_never_ambiguously() {
        use super::{fit, shortest_cut};
        let headers = strings(&[
            "submission",
            "run_tool",
            "run_tools",
            "run_tool_loop",
            "total",
        ]);
        // `run_tool` starts the others: never cut; `run_tool_loop` no shorter than `run_tool_…`.
        assert_eq!(shortest_cut(&headers, 1), 8);
        assert_eq!(shortest_cut(&headers, 2), 9);
        assert_eq!(shortest_cut(&headers, 3), 10);
        let cells = [12, 1, 5, 5, 10];
        // 12 + 8 + 9 + 13 + 10 and four gaps of two.
        assert_eq!(fit(&headers, &cells, 60), Some(vec![12, 8, 9, 13, 10]));
        assert_eq!(fit(&headers, &cells, 61), Some(vec![12, 8, 9, 13, 10]));
        // The widest header is cut first, as far as needed.
        assert_eq!(fit(&headers, &cells, 58), Some(vec![12, 8, 9, 11, 10]));
        assert_eq!(fit(&headers, &cells, 57), Some(vec![12, 8, 9, 10, 10]));
        assert_eq!(fit(&headers, &cells, 56), None);
        // Cuts share what is left, the first columns taking the spare.
        let headers = strings(&[
            "id",
            "json-contract",
            "tool-proposals",
            "tool-results",
            "total",
        ]);
        let cells = [2, 6, 6, 6, 5];
        assert_eq!(fit(&headers, &cells, 54), Some(vec![2, 13, 14, 12, 5]));
        assert_eq!(fit(&headers, &cells, 50), Some(vec![2, 12, 12, 11, 5]));
        assert_eq!(fit(&headers, &cells, 36), Some(vec![2, 7, 7, 7, 5]));
        // Never narrower than the cells, nor than `tool-p…` and `tool-r…`.
        assert_eq!(fit(&headers, &cells, 35), Some(vec![2, 6, 7, 7, 5]));
        assert_eq!(fit(&headers, &cells, 34), None);
    }

    #[test]
    fn a_long_line_is_folded_to_the_width_below_itself() {
        use super::{folded, RED, RESET};
        let line = format!("      got:      {RED}[{}]{RESET}", "'ab', ".repeat(10));
        let text = folded(&format!("head\n{line}\n"), 30);
        let lines: Vec<&str> = text.split('\n').collect();
        assert_eq!(lines[0], "head");
        assert!(lines.len() > 3, "{text}");
        for l in &lines {
            assert!(console::measure_text_width(l) <= 30, "{l:?}");
        }
        // Continued eight columns in (the line's six and two), nothing lost.
        assert!(
            lines[2].starts_with("        ") && !lines[2].starts_with("         "),
            "{text}"
        );
        let back: String = lines[1..].iter().map(|l| l.trim_start()).collect();
        assert_eq!(
            console::strip_ansi_codes(&back),
            console::strip_ansi_codes(line.trim_start())
        );
        // Wide characters count twice.
        assert_eq!(folded("漢字漢字", 4), "漢字\n  漢\n  字");
        // Prose breaks after a space in the line's second half.
        assert_eq!(
            folded("sandbox: one two three four five", 16),
            "sandbox: one \n  two three \n  four five"
        );
    }

    #[test]
    fn a_line_is_cut_to_the_width_and_colours_do_not_count() {
        use super::{cut, joined, GREEN, RED, RESET};
        assert_eq!(cut("validate_tool_call", 8), "validat…");
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut("abc", 1), "…");
        let cells = vec![
            ("alice".to_string(), None),
            ("✓".to_string(), Some(GREEN)),
            ("1/2".to_string(), Some(RED)),
        ];
        // 5 + 2 + 1 + 2 + 3: fits in 13 as it is.
        assert_eq!(joined(&cells, 13, false), "alice  ✓  1/2");
        assert_eq!(
            joined(&cells, 13, true),
            format!("alice  {GREEN}✓{RESET}  {RED}1/2{RESET}")
        );
        assert_eq!(joined(&cells, 12, false), "alice  ✓  1…");
        assert_eq!(
            joined(&cells, 12, true),
            format!("alice  {GREEN}✓{RESET}  {RED}1…{RESET}")
        );
        assert_eq!(joined(&cells, 9, false), "alice  ✓…");
        assert_eq!(joined(&cells, 3, false), "al…");
        assert_eq!(joined(&cells, 1, false), "…");
    }
}
