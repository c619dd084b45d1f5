//! `autograder cases ...`: check, list, count and export the case corpus.

use super::eval::outcome_text;
use super::{EXIT_ERROR, EXIT_OK};
use crate::corpus::{self, Case, Corpus, Visibility};
use crate::reference;
use crate::reference::TAGS;
use crate::value::{Outcome, PyValue};
use anyhow::Context;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Subcommands of `autograder cases`.
#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// Load every case, evaluate it on the core and verify every pin.
    Check {
        #[command(flatten)]
        dir: CasesDir,
    },
    /// One line per case; with --json, one JSON object per line with the core's outcome.
    List {
        #[command(flatten)]
        dir: CasesDir,
        /// JSON lines: id, lesson, checkpoint, tags, visibility, weight, call, expected.
        #[arg(long)]
        json: bool,
    },
    /// Case counts per tag and checkpoint, with hidden and pinned shares.
    Stats {
        #[command(flatten)]
        dir: CasesDir,
    },
    /// Write a copy of the corpus without its hidden cases (for students).
    Export {
        #[command(flatten)]
        dir: CasesDir,
        /// Where to write the visible corpus (a new or empty folder outside the corpus).
        #[arg(long, value_name = "DIR")]
        visible: PathBuf,
    },
}

/// The `--cases DIR` and `--assignment ID` options shared by every subcommand.
#[derive(clap::Args, Debug)]
pub struct CasesDir {
    /// The case corpus (the folder holding course.toml).
    #[arg(long = "cases", value_name = "DIR", default_value = "cases")]
    path: PathBuf,
    #[command(flatten)]
    assignment: super::record::AssignmentArgs,
}

/// Runs one `cases` subcommand; returns the exit code.
pub fn run(cmd: Command) -> anyhow::Result<i32> {
    let result = match cmd {
        Command::Check { dir } => check(&dir),
        Command::List { dir, json } => list(&dir, json),
        Command::Stats { dir } => stats(&dir),
        Command::Export { dir, visible } => export(&dir, &visible),
    };
    // A reader that stops early (`| head`) is not an error.
    match result {
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            Ok(EXIT_OK)
        }
        other => other,
    }
}

/// Loads the corpus (cut to the assignments asked for), printing every
/// problem on failure.
fn load(dir: &CasesDir) -> anyhow::Result<Result<Corpus, i32>> {
    match corpus::load(&dir.path) {
        Ok(c) => Ok(Ok(
            c.select(&dir.assignment.assignments, &dir.assignment.lessons)?
        )),
        Err(e) => {
            eprintln!("error: {e}");
            Ok(Err(EXIT_ERROR))
        }
    }
}

/// The core's outcome for a case; a core panic (a bug) becomes an error
/// naming the case instead of ending the run.
fn core_outcome(case: &Case) -> Result<Outcome, String> {
    let run = || reference::call(&case.checkpoint, &case.args, &case.kwargs);
    match std::panic::catch_unwind(run) {
        Ok(Ok(o)) => Ok(o),
        Ok(Err(e)) => Err(format!("the reference core refuses the call: {e}")),
        Err(_) => Err("the reference core panicked on this case (a bug in the core)".into()),
    }
}

fn location(case: &Case) -> String {
    format!("{}:{}: case {}", case.file.display(), case.line, case.id)
}

/// `file:line: case id: the pin says … but the core gives …` when the case's
/// pin disagrees with the core's outcome `got`; `None` when it agrees or
/// there is no pin. Shared with `grade`, which refuses such a corpus.
pub(super) fn pin_mismatch(case: &Case, got: &Outcome) -> Option<String> {
    let pin = case.expect.as_ref()?;
    (!pin.strict_eq(got)).then(|| {
        format!(
            "{}: the pin says {} but the core gives {}",
            location(case),
            outcome_text(pin),
            outcome_text(got)
        )
    })
}

/// Warns (stderr) about checkpoints without a single case: they score full
/// points, which a missing or misnamed case file would otherwise hide.
pub(super) fn warn_empty_checkpoints(corpus: &Corpus) {
    for cp in corpus.checkpoints() {
        if !corpus.cases.iter().any(|c| c.checkpoint == cp.id) {
            eprintln!(
                "warning: checkpoint {} has no cases (no {}/{}.toml): every submission gets its points",
                cp.id, cp.lesson, cp.id
            );
        }
    }
}

fn check(dir: &CasesDir) -> anyhow::Result<i32> {
    let corpus = match load(dir)? {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    let mut problems: Vec<String> = Vec::new();
    let mut rows: Vec<(String, usize, usize, usize)> = Vec::new();
    for cp in corpus.checkpoints() {
        let (mut n, mut pinned, mut hidden) = (0, 0, 0);
        for case in corpus.cases.iter().filter(|c| c.checkpoint == cp.id) {
            n += 1;
            hidden += usize::from(case.visibility == Visibility::Hidden);
            let got = match core_outcome(case) {
                Ok(o) => o,
                Err(why) => {
                    problems.push(format!("{}: {why}", location(case)));
                    continue;
                }
            };
            pinned += usize::from(case.expect.is_some());
            problems.extend(pin_mismatch(case, &got));
        }
        rows.push((cp.id.clone(), n, pinned, hidden));
    }
    let overlaps = corpus::overlap::find(&corpus);
    for d in &overlaps.duplicates {
        problems.push(format!(
            "{}: makes the same call as case {} ({}:{})",
            location(d.case),
            d.first.id,
            d.first.file.display(),
            d.first.line
        ));
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{:<24} {:>6} {:>7} {:>7}",
        "checkpoint", "cases", "pinned", "hidden"
    )?;
    let (mut tn, mut tp, mut th) = (0, 0, 0);
    for (id, n, p, h) in &rows {
        writeln!(out, "{id:<24} {n:>6} {p:>7} {h:>7}")?;
        (tn, tp, th) = (tn + n, tp + p, th + h);
    }
    writeln!(out, "{:<24} {tn:>6} {tp:>7} {th:>7}", "total")?;
    warn_empty_checkpoints(&corpus);
    for e in &overlaps.exposed {
        eprintln!(
            "warning: {}: hidden, but visible case {} ({}:{}) passes the same arguments: \
             student reports print its call, and so this input",
            location(e.hidden),
            e.visible.id,
            e.visible.file.display(),
            e.visible.line
        );
    }
    if problems.is_empty() {
        writeln!(
            out,
            "ok: {tn} cases load and run on the core, {tp} pins agree (corpus {})",
            &corpus.fingerprint[..12]
        )?;
        Ok(EXIT_OK)
    } else {
        drop(out);
        let n = problems.len();
        eprintln!("error: {n} problem{}:", if n == 1 { "" } else { "s" });
        for p in &problems {
            eprintln!("  {p}");
        }
        Ok(EXIT_ERROR)
    }
}

fn list(dir: &CasesDir, json: bool) -> anyhow::Result<i32> {
    let corpus = match load(dir)? {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut failed = false;
    for case in &corpus.cases {
        let outcome = match core_outcome(case) {
            Ok(o) => o,
            Err(why) => {
                eprintln!("error: {}: {why}", location(case));
                failed = true;
                continue;
            }
        };
        if json {
            let line = serde_json::json!({
                "id": case.id,
                "lesson": case.lesson,
                "checkpoint": case.checkpoint,
                "tags": case.tags,
                "visibility": case.visibility,
                "weight": case.weight,
                "call": case.call,
                "expected": outcome.to_json(),
            });
            writeln!(out, "{line}")?;
        } else {
            let mut shown = outcome_text(&outcome);
            if shown.chars().count() > 60 {
                shown = shown.chars().take(57).collect::<String>() + "...";
            }
            let vis = case.visibility.name();
            writeln!(
                out,
                "{:<48} {vis:<7} w{:<2} {:<40} {}",
                case.id,
                case.weight,
                case.tags.join(","),
                shown
            )?;
        }
    }
    out.flush()?;
    Ok(if failed { EXIT_ERROR } else { EXIT_OK })
}

/// A short column label for a checkpoint: the initials of its words.
fn initials(function: &str) -> String {
    function
        .split('_')
        .filter_map(|w| w.chars().next())
        .collect()
}

/// Column labels for checkpoints: their initials, except where two share
/// initials (`run_tool`, `run_tools`): those keep their last word whole
/// (`rtool`, `rtools`), or, failing that, their full name.
fn labels(functions: &[&str]) -> Vec<String> {
    let short: Vec<String> = functions.iter().map(|f| initials(f)).collect();
    let clash = |label: &str, all: &[String]| all.iter().filter(|l| *l == label).count() > 1;
    let longer: Vec<String> = functions
        .iter()
        .zip(&short)
        .map(|(f, l)| {
            if !clash(l, &short) {
                return l.clone();
            }
            match f.rsplit_once('_') {
                Some((head, last)) => format!("{}{last}", initials(head)),
                None => f.to_string(),
            }
        })
        .collect();
    functions
        .iter()
        .zip(&longer)
        .map(|(f, l)| {
            if clash(l, &longer) {
                f.to_string()
            } else {
                l.clone()
            }
        })
        .collect()
}

fn stats(dir: &CasesDir) -> anyhow::Result<i32> {
    let corpus = match load(dir)? {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    let cps: Vec<&str> = corpus.checkpoints().map(|c| c.id.as_str()).collect();
    let labels: Vec<String> = labels(&cps);
    let width = labels.iter().map(String::len).max().unwrap_or(0).max(5);
    let count = |f: &dyn Fn(&Case) -> bool, cp: Option<&str>| {
        corpus
            .cases
            .iter()
            .filter(|c| cp.map_or(true, |cp| c.checkpoint == cp) && f(c))
            .count()
    };
    let mut out = String::new();
    let row = |out: &mut String, name: &str, cells: Vec<String>| {
        out.push_str(&format!("{name:<24}"));
        for c in cells {
            out.push_str(&format!(" {c:>width$}"));
        }
        out.push('\n');
    };
    let mut header: Vec<String> = labels.clone();
    header.push("total".into());
    row(&mut out, "tag", header);
    let cell = |n: usize| {
        if n == 0 {
            "-".to_string()
        } else {
            n.to_string()
        }
    };
    for tag in TAGS {
        let has = |c: &Case| c.tags.iter().any(|t| t == tag);
        let mut cells: Vec<String> = cps.iter().map(|cp| cell(count(&has, Some(cp)))).collect();
        cells.push(cell(count(&has, None)));
        row(&mut out, tag, cells);
    }
    let all = |_: &Case| true;
    let hidden = |c: &Case| c.visibility == Visibility::Hidden;
    let pinned = |c: &Case| c.expect.is_some();
    let share = |part: usize, whole: usize| {
        (part * 100 + whole / 2)
            .checked_div(whole)
            .map_or_else(|| "-".to_string(), |pct| format!("{pct}%"))
    };
    let per = |f: &dyn Fn(&Case) -> bool, pct: bool| -> Vec<String> {
        let mut cells: Vec<String> = cps
            .iter()
            .map(|cp| {
                let n = count(f, Some(cp));
                if pct {
                    share(n, count(&all, Some(cp)))
                } else {
                    n.to_string()
                }
            })
            .collect();
        let n = count(f, None);
        cells.push(if pct {
            share(n, corpus.cases.len())
        } else {
            n.to_string()
        });
        cells
    };
    out.push_str(&"-".repeat(24 + (width + 1) * (cps.len() + 1)));
    out.push('\n');
    row(&mut out, "cases", per(&all, false));
    row(&mut out, "hidden", per(&hidden, false));
    row(&mut out, "hidden share", per(&hidden, true));
    row(&mut out, "pinned", per(&pinned, false));
    row(&mut out, "pinned share", per(&pinned, true));
    out.push('\n');
    for (label, cp) in labels.iter().zip(&cps) {
        out.push_str(&format!("{label:>width$} = {cp}\n"));
    }
    // The course's shape, lesson by lesson.
    out.push_str(&format!(
        "\n{} lesson{}, {} checkpoint{}:\n",
        corpus.lessons.len(),
        if corpus.lessons.len() == 1 { "" } else { "s" },
        cps.len(),
        if cps.len() == 1 { "" } else { "s" },
    ));
    let lesson_width = corpus.lessons.iter().map(|l| l.id.len()).max().unwrap_or(0);
    for lesson in &corpus.lessons {
        let names: Vec<&str> = lesson.checkpoints.iter().map(|c| c.id.as_str()).collect();
        out.push_str(&format!(
            "  {:<lesson_width$}  {}\n",
            lesson.id,
            names.join(", ")
        ));
    }
    // Tags the registry says apply to a checkpoint, without a case there.
    let gaps = corpus::tag_gaps(&corpus);
    if !gaps.is_empty() {
        out.push_str("\ngaps (tags that apply to a checkpoint, without a case):\n");
        for (label, cp) in labels.iter().zip(&cps) {
            let tags: Vec<&str> = gaps
                .iter()
                .filter(|(c, _)| c == cp)
                .map(|(_, t)| *t)
                .collect();
            if !tags.is_empty() {
                out.push_str(&format!("{label:>width$}: {}\n", tags.join(", ")));
            }
        }
    }
    std::io::stdout().lock().write_all(out.as_bytes())?;
    Ok(EXIT_OK)
}

fn export(dir: &CasesDir, dest: &Path) -> anyhow::Result<i32> {
    let corpus = match load(dir)? {
        Ok(c) => c,
        Err(code) => return Ok(code),
    };
    let summary = export_visible(&corpus, dest)?;
    println!(
        "wrote {} visible cases in {} files to {} ({} hidden cases left out)",
        summary.visible,
        summary.files,
        dest.display(),
        summary.hidden_dropped
    );
    Ok(EXIT_OK)
}

/// Writes `corpus`'s visible cases to `dest`, checked against the reference
/// (`cases export --visible`, and `package ci`).
pub(super) fn export_visible(
    corpus: &Corpus,
    dest: &Path,
) -> anyhow::Result<corpus::export::ExportSummary> {
    let check = |f: &str, args: &[PyValue], kwargs: &[(String, PyValue)]| {
        reference::check_call(f, args, kwargs)
    };
    corpus::export::export_visible(corpus, dest, &check)
        .with_context(|| format!("exporting the visible cases to {}", dest.display()))
}

#[cfg(test)]
mod tests {
    use super::labels;

    #[test]
    fn column_labels_are_initials_unless_they_clash() {
        assert_eq!(
            labels(&["parse_contract_json", "run_tool", "run_tools", "read_file"]),
            ["pcj", "rtool", "rtools", "rf"]
        );
        assert_eq!(labels(&["a_b", "a_b_", "ab"]), ["a_b", "a_b_", "a"]);
    }
}
