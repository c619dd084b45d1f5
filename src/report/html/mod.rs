//! `--html`: a self-contained course dashboard for course staff: headline
//! numbers, the score distribution, pass rates per checkpoint, a tag ×
//! checkpoint heatmap of failure rates, the most failed cases, and every
//! submission with its failures. The class-wide sections are grouped by
//! lesson (see [`stats::groups`]): a block per lesson, and for the score
//! distribution and the most failed cases one for the whole course too; a
//! row of buttons shows one lesson's blocks or the course's. One file, no
//! external resources: inline CSS and SVG, and a little inline script that
//! only adds the lesson buttons, sorting and filtering (the page reads
//! fully without it: every block shown, each under its lesson's heading).
//! Every piece of text from the run is escaped; the page is a pure
//! function of the run.

pub mod stats;
mod svg;

use super::{
    case_label, failure_fields, failure_section, fmt_score, total_cell, FailedCheckpoint,
    FailureSection,
};
use crate::corpus::Visibility;
use crate::grade::{GradeRun, Status, SubmissionGrade};
use serde_json::json;
use stats::{Group, Rate, Stats};
use std::fmt::Write;
use std::io::Write as _;
use svg::pct_text;

/// How many failures per checkpoint a submission's details list.
const DETAIL_FAILURES: usize = 20;
/// How many cases the "most failed" table lists.
const TOP_CASES: usize = 25;
/// How many submissions a page of the table (and of the failures) shows.
pub const PAGE: usize = 100;
/// How many bytes of the page the submissions' failures in full may take
/// (as escaped in the page's data): past it, the next submissions' are
/// shown in brief, so 10,000 submissions stay a page of a few MB.
pub const DETAILS_BUDGET: usize = 8_000_000;
/// In brief, how many failed cases of a checkpoint are named.
pub const BRIEF_CASES: usize = 3;
/// In brief, how many characters of an error or common reason are shown.
pub const BRIEF_CHARS: usize = 300;

/// Text made safe for HTML element content and quoted attribute values:
/// what [`crate::text`] hides becomes U+FFFD, markup is escaped.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in crate::text::replaced(text).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The dashboard as one HTML page.
pub fn render(run: &GradeRun) -> String {
    super::to_string(|w| write(run, w))
}

/// Writes the dashboard into `w`: the class numbers (one pass over the
/// case grades), then every submission's row and failures as data for the
/// page's script (a second pass, one submission at a time).
pub fn write(run: &GradeRun, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::new(w);
    let stats = stats::compute(run);
    let mut out = String::new();
    out.push_str(HEAD);
    let _ = writeln!(
        out,
        "<header><h1>Autograder — course dashboard</h1><p class=\"sub\">{} case{} · corpus <code title=\"{}\">{}</code> · written for the {} audience{}</p>{}{}</header>",
        run.corpus.cases,
        if run.corpus.cases == 1 { "" } else { "s" },
        esc(&run.corpus.fingerprint),
        esc(short(&run.corpus.fingerprint)),
        run.audience.name(),
        if run.audience == crate::grade::Audience::Student {
            " (hidden cases show no input)"
        } else {
            ""
        },
        super::Provenance::of(run).map_or(String::new(), |env| format!(
            "<p class=\"sub{}\" id=\"environment\">{}</p>",
            if env.mixed() { " bad" } else { "" },
            esc(&env.line())
        )),
        run.shards.as_ref().map_or(String::new(), |s| format!(
            "<p class=\"partial\">{}: the other shards' submissions are not in this dashboard</p>",
            esc(&s.note())
        ))
    );
    headline(&mut out, &stats);
    group_buttons(&mut out, run, &stats);
    score_distribution(&mut out, run, &stats);
    checkpoint_bars(&mut out, run, &stats);
    heatmap(&mut out, run, &stats);
    failed_cases(&mut out, run, &stats);
    submissions_table(&mut out, run);
    w.write_all(out.as_bytes())?;
    let cut = data(&mut w, run)?;
    let mut out = String::new();
    failures_section(&mut out, run, cut);
    out.push_str(SCRIPT);
    out.push_str("</body>\n</html>\n");
    w.write_all(out.as_bytes())?;
    w.flush()
}

fn short(fingerprint: &str) -> &str {
    fingerprint.get(..12).unwrap_or(fingerprint)
}

fn headline(out: &mut String, stats: &Stats) {
    let opt = |x: Option<f64>| x.map_or("–".to_string(), |p| format!("{}%", fmt_score(p, 100.0)));
    let tiles = [
        (stats.submissions.to_string(), "submissions"),
        (stats.graded.to_string(), "graded"),
        (stats.errors.to_string(), "not graded (error)"),
        (opt(stats.mean), "mean score"),
        (opt(stats.median), "median score"),
    ];
    out.push_str("<section class=\"tiles\">");
    for (value, label) in tiles {
        let class = if label.starts_with("not graded") && stats.errors > 0 {
            "tile bad"
        } else {
            "tile"
        };
        let _ = write!(
            out,
            "<div class=\"{class}\"><div class=\"big\">{}</div><div>{}</div></div>",
            esc(&value),
            label
        );
    }
    out.push_str("</section>\n");
}

/// The background of a heatmap cell: white for 0 %, deep red for 100 %,
/// on a square-root scale so that the low rates a class mostly has stay
/// visible (10 % is about a third of the way).
fn heat_colour(share: f64) -> String {
    let s = share.clamp(0.0, 1.0).sqrt();
    let mix = |a: f64, b: f64| (a + (b - a) * s).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(250.0, 200.0),
        mix(250.0, 30.0),
        mix(250.0, 40.0)
    )
}

/// The lessons the page shows apart: none when the course has a single
/// lesson (its blocks would only repeat the whole course's).
fn lessons(stats: &Stats) -> &[stats::GroupStat] {
    match stats.groups.get(1..) {
        Some(lessons) if lessons.len() > 1 => lessons,
        _ => &[],
    }
}

/// The attributes of a block the lesson buttons show or hide: shown for
/// each group key of `keys` (`all` for the whole course), hidden for others.
fn block(keys: &[&str], class: &str) -> String {
    format!(
        " class=\"group{}{class}\" data-groups=\"{}\"",
        if class.is_empty() { "" } else { " " },
        keys.join(" ")
    )
}

/// A group's heading: `Lesson <id> · 3 checkpoints · 3 points`.
fn group_heading(run: &GradeRun, g: &Group) -> String {
    let n = g.checkpoints.len();
    let points: f64 = g
        .checkpoints
        .iter()
        .filter_map(|&i| run.corpus.checkpoints.get(i))
        .map(|c| c.points)
        .sum();
    let points = super::fmt_points(points);
    format!(
        "<h3>{} <span class=\"muted\">· {n} checkpoint{} · {points} point{}</span></h3>",
        if g.course {
            "Whole course".to_string()
        } else {
            format!("Lesson <code>{}</code>", esc(&g.name))
        },
        if n == 1 { "" } else { "s" },
        if points == "1" { "" } else { "s" }
    )
}

/// The checkpoint ids of a group, comma separated (escaped).
fn group_ids(run: &GradeRun, g: &Group) -> String {
    let ids: Vec<&str> = g
        .checkpoints
        .iter()
        .filter_map(|&i| run.corpus.checkpoints.get(i))
        .map(|c| c.id.as_str())
        .collect();
    esc(&ids.join(", "))
}

/// The row of buttons that shows one lesson's blocks (or the whole
/// course's), drawn hidden and shown by the page's script; without it
/// every block shows, each under its heading.
fn group_buttons(out: &mut String, run: &GradeRun, stats: &Stats) {
    let lessons = lessons(stats);
    if lessons.is_empty() {
        return;
    }
    out.push_str("<nav id=\"groups\" class=\"groups\" aria-label=\"Show one lesson\" hidden><span class=\"muted\">Show</span>");
    for g in stats.groups.iter().take(1).chain(lessons).map(|g| &g.group) {
        let _ = write!(
            out,
            "<button type=\"button\" data-group=\"{}\" aria-pressed=\"{}\" title=\"{}\">{}</button>",
            g.key,
            g.course,
            if g.course {
                "every checkpoint".to_string()
            } else {
                group_ids(run, g)
            },
            if g.course {
                "whole course".to_string()
            } else {
                format!(
                    "{} <span class=\"count\">{}</span>",
                    esc(&g.name),
                    g.checkpoints.len()
                )
            }
        );
    }
    out.push_str("</nav>\n");
}

/// The score histogram of the whole course and of each lesson (a group's
/// score: its checkpoints' points only, see [`stats::percent_of`]).
fn score_distribution(out: &mut String, run: &GradeRun, stats: &Stats) {
    let lessons = lessons(stats);
    let _ = writeln!(
        out,
        "<section id=\"scores\"><h2>Score distribution</h2><p class=\"note\">Graded submissions by share of points, rounded down{}.</p>",
        if lessons.is_empty() {
            ""
        } else {
            ": of the whole course, and of each lesson (of its checkpoints' points only)"
        }
    );
    let opt = |x: Option<f64>| x.map_or("–".to_string(), |p| format!("{}%", fmt_score(p, 100.0)));
    for gs in stats.groups.iter().take(1).chain(lessons) {
        let g = &gs.group;
        let _ = write!(out, "<div{}>", block(&[&g.key], ""));
        if !lessons.is_empty() {
            let _ = write!(
                out,
                "{}<p class=\"note\">Mean {}, median {}{}.</p>",
                group_heading(run, g),
                opt(gs.scores.mean),
                opt(gs.scores.median),
                if g.course {
                    String::new()
                } else {
                    format!(" of the points of {}", group_ids(run, g))
                }
            );
        }
        let _ = writeln!(
            out,
            "{}</div>",
            svg::histogram(&gs.scores.histogram, &g.name)
        );
    }
    out.push_str("</section>\n");
}

/// Per lesson, its checkpoints' pass rates and mean scores.
fn checkpoint_bars(out: &mut String, run: &GradeRun, stats: &Stats) {
    out.push_str("<section id=\"checkpoints\"><h2>Checkpoints</h2><p class=\"note\">Share of graded submissions that pass every case of the checkpoint, and their mean score, by lesson.</p>\n");
    out.push_str("<p class=\"legend\"><span class=\"key pass\"></span> passed (every case) <span class=\"key mean\"></span> mean score</p>\n");
    for g in stats.groups.iter().skip(1).map(|g| &g.group) {
        let _ = writeln!(
            out,
            "<div{}>{}{}</div>",
            block(&["all", &g.key], ""),
            group_heading(run, g),
            svg::checkpoint_bars(stats, &g.checkpoints)
        );
    }
    out.push_str("</section>\n");
}

fn heatmap(out: &mut String, run: &GradeRun, stats: &Stats) {
    out.push_str("<section id=\"heatmap\"><h2>Where the class fails: tag × checkpoint</h2><p class=\"note\">Of all case runs with the tag in the checkpoint (graded submissions), the share that failed, by lesson: the tags of the lesson's cases. Empty: no such case.</p>\n");
    if stats.tags.is_empty() || stats.graded == 0 {
        out.push_str("<p>No graded case runs.</p></section>\n");
        return;
    }
    out.push_str("<div class=\"heats\">\n");
    for g in stats.groups.iter().skip(1).map(|g| &g.group) {
        let _ = write!(
            out,
            "<div{}>{}",
            block(&["all", &g.key], "heat-block"),
            group_heading(run, g)
        );
        // The tags of the lesson's cases, in the page's order.
        let rows: Vec<(&String, &Vec<Option<Rate>>)> = stats
            .tags
            .iter()
            .zip(&stats.heat)
            .filter(|(_, row)| g.checkpoints.iter().any(|&i| row[i].is_some()))
            .collect();
        if rows.is_empty() {
            out.push_str("<p>No cases.</p></div>\n");
            continue;
        }
        out.push_str("<div class=\"scroll\"><table class=\"heat\"><thead><tr><th>tag</th>");
        for cp in g.checkpoints.iter().map(|&i| &run.corpus.checkpoints[i]) {
            let _ = write!(
                out,
                "<th title=\"{}\">{}</th>",
                esc(&cp.title),
                esc(&cp.id).replace('_', "_<wbr>")
            );
        }
        out.push_str("</tr></thead><tbody>\n");
        for (tag, row) in rows {
            let _ = write!(out, "<tr><th>{}</th>", esc(tag));
            for &i in &g.checkpoints {
                let cp = &run.corpus.checkpoints[i];
                match row[i] {
                    None => out.push_str("<td class=\"none\"></td>"),
                    Some(rate) => {
                        let share = rate.share();
                        let _ = write!(
                            out,
                            "<td style=\"background:{}\"{} title=\"{} in {}: {} of {} runs failed\">{}</td>",
                            heat_colour(share),
                            if share.sqrt() > 0.6 { " class=\"dark\"" } else { "" },
                            esc(tag),
                            esc(&cp.id),
                            rate.failed,
                            rate.runs,
                            pct_text(share)
                        );
                    }
                }
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody></table></div></div>\n");
    }
    out.push_str("</div>\n<p class=\"legend\">");
    for share in [0.0, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0] {
        let _ = write!(
            out,
            "<span style=\"background:{}\"{}>{}</span>",
            heat_colour(share),
            if share.sqrt() > 0.6 {
                " class=\"dark\""
            } else {
                ""
            },
            pct_text(share)
        );
    }
    out.push_str(
        " <span class=\"muted\">failure rate (square-root colour scale)</span></p></section>\n",
    );
}

fn rate_bar(rate: Rate) -> String {
    let share = rate.share();
    format!(
        "<span class=\"meter\"><span style=\"width:{:.1}%\"></span></span> {} <span class=\"muted\">({} of {})</span>",
        share * 100.0,
        pct_text(share),
        rate.failed,
        rate.runs
    )
}

/// The most failed cases of the whole course, and of each lesson.
fn failed_cases(out: &mut String, run: &GradeRun, stats: &Stats) {
    out.push_str("<section id=\"failed\"><h2>Most failed cases</h2>\n");
    if stats.failed_cases.is_empty() {
        out.push_str("<p>No case failed.</p></section>\n");
        return;
    }
    let lessons = lessons(stats);
    for g in stats.groups.iter().take(1).chain(lessons).map(|g| &g.group) {
        let _ = write!(out, "<div{}>", block(&[&g.key], ""));
        if !lessons.is_empty() {
            out.push_str(&group_heading(run, g));
        }
        // Still most failed first, ties in corpus order.
        let cases: Vec<&stats::CaseStat> = stats
            .failed_cases
            .iter()
            .filter(|c| g.checkpoints.contains(&c.checkpoint))
            .collect();
        if cases.is_empty() {
            out.push_str("<p>No case of this lesson failed.</p></div>\n");
            continue;
        }
        let _ = writeln!(
            out,
            "<p class=\"note\">The {} cases failed by the most graded submissions ({} cases failed at least once), with the most common reason.</p>",
            cases.len().min(TOP_CASES),
            cases.len()
        );
        out.push_str("<div class=\"scroll\"><table class=\"cases\"><thead><tr><th>case</th><th>tags</th><th>failed</th><th>most common reason</th></tr></thead><tbody>\n");
        for c in cases.iter().take(TOP_CASES) {
            let _ = writeln!(
                out,
                "<tr><td><code>{}</code>{}</td><td>{}</td><td class=\"nowrap\">{}</td><td>{} <span class=\"muted\">({} of {})</span></td></tr>",
                esc(&c.id),
                if c.hidden { " <span class=\"tag hidden\">hidden</span>" } else { "" },
                tags(&c.tags),
                rate_bar(c.rate),
                esc(&c.top_reason),
                c.top_count,
                c.rate.failed
            );
        }
        out.push_str("</tbody></table></div></div>\n");
    }
    out.push_str("</section>\n");
}

fn tags(list: &[String]) -> String {
    list.iter()
        .map(|t| format!("<span class=\"tag\">{}</span>", esc(t)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The submissions table's head, pager and filter; its rows are drawn by
/// the page's script from the data (see [`data`]), a page at a time.
fn submissions_table(out: &mut String, run: &GradeRun) {
    let _ = writeln!(
        out,
        "<section><h2>Submissions</h2>\n<p class=\"note\">✓: every case passed; otherwise passed/total case weight. Click an id for its failures.<span class=\"js-only\" hidden> Click a column to sort; {PAGE} submissions a page.</span></p>"
    );
    out.push_str("<noscript><p class=\"note bad\">This table and the failures by submission are drawn by the page's script, which is off here: the --csv gradebook and the --json report hold the same.</p></noscript>\n");
    out.push_str("<div class=\"controls\"><input id=\"filter\" type=\"search\" placeholder=\"filter by id…\" title=\"filters this table and the failures below, across all pages\" hidden>\n");
    out.push_str("<span id=\"pager\" hidden><button type=\"button\" id=\"prev\">‹ previous</button> <span id=\"page\"></span> <button type=\"button\" id=\"next\">next ›</button></span></div>\n");
    out.push_str("<div class=\"scroll\"><table id=\"subs\" class=\"subs\"><thead><tr><th data-kind=\"text\">submission</th><th data-kind=\"text\">status</th>");
    for cp in &run.corpus.checkpoints {
        let _ = write!(
            out,
            "<th data-kind=\"num\" title=\"{}\">{}</th>",
            esc(&cp.title),
            esc(&cp.id).replace('_', "_<wbr>")
        );
    }
    out.push_str(
        "<th data-kind=\"num\">total</th></tr></thead><tbody></tbody></table></div></section>\n",
    );
}

/// What the failures by submission leave out (see [`DETAILS_BUDGET`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Cut {
    /// Submissions whose failures are shown in full (the first ones).
    full: usize,
    /// Submissions after them, shown in brief.
    brief: usize,
}

/// JSON for inside `<script type="application/json">`: `<`, `>` and `&`
/// (so no `</script>` or `<!--` can end or change the element) and U+2028,
/// U+2029 are escaped, as JSON allows inside strings (the only place they
/// can occur).
pub fn script_json(value: &impl serde::Serialize) -> String {
    let text = serde_json::to_string(value).unwrap_or_else(|_| "null".to_string());
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// Writes the page's data, `<script type="application/json" id="data">`:
/// `{"checkpoints": [...], "cases": [[name...]...], "rows": [...],
/// "details": [...]}`. A row is `[id, status, total text, total %
/// (-1 for an error), integrity findings, their line or null, a cell per
/// checkpoint ("✓", "passed/total" weight, or "–")]`. A submission's
/// details are its `<details>` element as HTML (escaped here, as the rest
/// of the page) for the first submissions, up to [`DETAILS_BUDGET`] bytes;
/// after that, in brief, as data the script writes as text.
fn data(w: &mut dyn std::io::Write, run: &GradeRun) -> std::io::Result<Cut> {
    let checkpoints: Vec<&str> = run
        .corpus
        .checkpoints
        .iter()
        .map(|c| c.id.as_str())
        .collect();
    let cases: Vec<Vec<&str>> = run
        .corpus
        .checkpoints
        .iter()
        .map(|c| c.case_list.iter().map(|k| k.case.as_str()).collect())
        .collect();
    write!(
        w,
        "<script type=\"application/json\" id=\"data\">{{\"checkpoints\":{},\"cases\":{},\"rows\":[",
        script_json(&checkpoints),
        script_json(&cases)
    )?;
    for (i, s) in run.submissions.iter().enumerate() {
        if i > 0 {
            w.write_all(b",\n")?;
        }
        w.write_all(script_json(&row(run, s)).as_bytes())?;
    }
    w.write_all(b"],\n\"details\":[")?;
    let (mut cut, mut spent) = (Cut::default(), 0usize);
    for (i, summary) in run.submissions.iter().enumerate() {
        if i > 0 {
            w.write_all(b",\n")?;
        }
        // Only a submission with failures has case grades to read back.
        let s = if super::has_failures(summary) {
            run.full_one(summary)
        } else {
            std::borrow::Cow::Borrowed(summary)
        };
        let text = if cut.brief == 0 {
            let mut html = String::new();
            submission_details(&mut html, i, &s, run);
            let text = script_json(&html);
            (spent + text.len() <= DETAILS_BUDGET).then_some(text)
        } else {
            None
        };
        let text = match text {
            Some(text) => {
                cut.full += 1;
                spent += text.len();
                text
            }
            None => {
                cut.brief += 1;
                script_json(&brief(run, i, &s))
            }
        };
        w.write_all(text.as_bytes())?;
    }
    w.write_all(b"]}</script>\n")?;
    Ok(cut)
}

/// A submission's row of the table, as data (see [`data`]).
fn row(run: &GradeRun, s: &SubmissionGrade) -> serde_json::Value {
    use crate::text::replaced;
    let mut row = vec![
        json!(replaced(&s.id)),
        json!(s.status.name()),
        json!(replaced(&total_cell(s))),
        json!(match s.status {
            Status::Error => -1.0,
            Status::Graded => s.percent(),
        }),
        json!(s.integrity.len()),
        json!(super::integrity_line(run, s).map(|l| replaced(&l))),
    ];
    row.extend(s.checkpoints.iter().map(|cp| {
        json!(match s.status {
            Status::Error => "–".to_string(),
            Status::Graded if cp.passed => "✓".to_string(),
            Status::Graded => format!("{}/{}", cp.weight_passed, cp.weight_total),
        })
    }));
    serde_json::Value::Array(row)
}

/// A submission's failures in brief (past [`DETAILS_BUDGET`]): `{"i":
/// index, "id", "total", "n": failed cases, "integrity": findings, and one
/// of "error": why, "all": the one reason every case failed with, or
/// "checkpoints": [[checkpoint index, failed, of, [case index...], not
/// defined]]}` with at most [`BRIEF_CASES`] case indices per checkpoint (in
/// the order the details show them; none when `main.py` does not define its
/// function, `not defined` then `true`) and texts cut to [`BRIEF_CHARS`]
/// characters.
fn brief(run: &GradeRun, i: usize, s: &SubmissionGrade) -> serde_json::Value {
    use crate::text::{cut, replaced};
    let failed: usize = s.checkpoints.iter().map(|c| c.failures().count()).sum();
    let mut v = json!({
        "i": i,
        "id": replaced(&s.id),
        "total": replaced(&total_cell(s)),
        "n": failed,
        "integrity": if run.audience == crate::grade::Audience::Instructor { s.integrity.len() } else { 0 },
    });
    match failure_section(s, run.audience) {
        FailureSection::NotGraded(e) => v["error"] = json!(replaced(&cut(e, BRIEF_CHARS))),
        FailureSection::AllFailed(r) => v["all"] = json!(replaced(&cut(r, BRIEF_CHARS))),
        FailureSection::Checkpoints(checkpoints) => {
            v["checkpoints"] = checkpoints
                .iter()
                .filter_map(|c| {
                    let ci = run
                        .corpus
                        .checkpoints
                        .iter()
                        .position(|k| *k.id == *c.checkpoint.id)?;
                    let first: Vec<usize> = if c.not_defined {
                        Vec::new()
                    } else {
                        c.failed
                            .iter()
                            .take(BRIEF_CASES)
                            .filter_map(|(case, _)| {
                                c.checkpoint
                                    .cases
                                    .iter()
                                    .position(|k| std::ptr::eq(k, *case))
                            })
                            .collect()
                    };
                    Some(json!([
                        ci,
                        c.failed.len(),
                        c.checkpoint.cases_total,
                        first,
                        c.not_defined
                    ]))
                })
                .collect();
        }
    }
    v
}

/// "Failures by submission": what is cut, then the script draws the
/// current page's submissions into `#details`.
fn failures_section(out: &mut String, run: &GradeRun, cut: Cut) {
    out.push_str("<section><h2>Failures by submission</h2>\n");
    let _ = writeln!(
        out,
        "<p class=\"note\">The submissions of the table's page (and filter). Each failed checkpoint shows up to {DETAIL_FAILURES} failed cases in full.</p>"
    );
    if cut.brief > 0 {
        let _ = writeln!(
            out,
            "<p class=\"note bad\" id=\"cut\">To keep this page small, failures are shown in full for the first {} submissions only; for the other {} of {}, each failed checkpoint shows how many cases failed and the first {BRIEF_CASES} of them. The --json report has every failure of every submission.</p>",
            cut.full,
            cut.brief,
            run.submissions.len()
        );
    }
    out.push_str("<div id=\"details\"></div></section>\n");
}

fn submission_details(out: &mut String, i: usize, s: &SubmissionGrade, run: &GradeRun) {
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
    if super::integrity_line(run, s).is_some() {
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
            let _ = writeln!(out, "<p>Every case failed:</p><pre>{}</pre>", esc(reason));
        }
        FailureSection::Checkpoints(checkpoints) => failed_checkpoints(out, &checkpoints),
    }
    out.push_str("</details>\n");
}

/// Each failed checkpoint of a submission: its first failed cases in full,
/// or one line when `main.py` does not define its function.
fn failed_checkpoints(out: &mut String, checkpoints: &[FailedCheckpoint]) {
    for c in checkpoints {
        let (cp, failed) = (c.checkpoint, &c.failed);
        if let Some(line) = c.not_defined_line() {
            let _ = writeln!(out, "<h4 class=\"missing\">{}</h4>", esc(&line));
            continue;
        }
        let _ = writeln!(
            out,
            "<h4>{}: {} of {} cases failed</h4>",
            esc(&cp.id),
            failed.len(),
            cp.cases_total
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
fn diff_lines(diff: &str) -> String {
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

const HEAD: &str = r##"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="autograder">
<title>Autograder — course dashboard</title>
<style>
:root { --ink: #1d2330; --muted: #667085; --line: #e4e7ec; --accent: #3565c9; --ok: #1f7a3a; --bad: #b42318; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0 auto; max-width: 1120px; padding: 24px 28px 60px; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #fff; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 34px 0 6px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 16px; margin: 18px 0 6px; }
h3 code { font-size: 15px; }
h4 { margin: 14px 0 4px; font-size: 15px; }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 13px; }
pre { background: #f6f7f9; border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; overflow-x: auto; white-space: pre-wrap; word-break: break-word; margin: 4px 0 10px; }
.sub, .note, .muted { color: var(--muted); }
.sub.bad { color: var(--bad); font-weight: 600; }
.note { margin: 0 0 10px; font-size: 14px; }
.partial { color: var(--bad); font-weight: 600; margin: 4px 0 0; }
.tiles { display: flex; flex-wrap: wrap; gap: 12px; margin-top: 18px; }
.tile { flex: 1 1 150px; border: 1px solid var(--line); border-radius: 10px; padding: 12px 16px; background: #fafbfc; }
.tile .big { font-size: 28px; font-weight: 650; }
.tile.bad .big { color: var(--bad); }
.chart { width: 100%; height: auto; display: block; }
.chart text { font-size: 13px; fill: var(--ink); }
.chart .axis { fill: var(--muted); font-size: 12px; }
.chart .label { font-size: 14px; font-family: ui-monospace, Menlo, Consolas, monospace; }
.chart .bar { fill: var(--accent); }
.chart .bar.full { fill: var(--ok); }
.chart .bar.mean { fill: #9db6e8; }
.chart .count.in-dark { fill: #fff; }
.chart .count.in-light { fill: var(--ink); }
.scroll { overflow-x: auto; }
nav.groups { position: sticky; top: 0; z-index: 2; display: flex; flex-wrap: wrap; gap: 6px 8px; align-items: center; margin: 18px 0 0; padding: 8px 0; background: #fff; border-bottom: 1px solid var(--line); }
nav.groups button { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 13px; }
nav.groups button .count { display: inline-block; min-width: 18px; margin-left: 4px; padding: 0 5px; border-radius: 8px; background: #eef2fb; color: #2d4a8a; font-size: 11px; }
nav.groups button[aria-pressed="true"] { background: var(--accent); border-color: var(--accent); color: #fff; }
nav.groups button[aria-pressed="true"] .count { background: #fff; }
.heats { display: flex; flex-wrap: wrap; gap: 0 32px; align-items: flex-start; }
.heat-block { flex: 1 1 440px; min-width: 0; max-width: 100%; }
.legend .key { display: inline-block; width: 12px; height: 12px; margin: 0 2px 0 10px; vertical-align: -1px; background: var(--accent); }
.legend .key:first-child { margin-left: 0; }
.legend .key.mean { background: #9db6e8; }
.legend { font-size: 12px; margin: 8px 0 0; }
.legend span[style] { display: inline-block; min-width: 44px; text-align: center; padding: 1px 4px; border: 1px solid #fff; }
.legend span.dark { color: #fff; }
table { border-collapse: collapse; font-size: 14px; }
th, td { padding: 5px 9px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
thead th { background: #f6f7f9; font-weight: 600; }
table.heat td { text-align: center; min-width: 86px; font-variant-numeric: tabular-nums; border: 1px solid #fff; }
table.heat td.none { background: repeating-linear-gradient(45deg, #fbfbfb, #fbfbfb 4px, #f1f1f1 4px, #f1f1f1 8px); }
table.heat td.dark { color: #fff; }
table.heat tbody th { font-weight: 500; white-space: nowrap; }
table.subs td { font-variant-numeric: tabular-nums; }
table.subs td.ok { color: var(--ok); }
table.subs td.ko, table.subs td.error, table.subs td.err { color: var(--bad); }
table.subs thead th { cursor: default; }
.nowrap { white-space: nowrap; }
.integrity { color: var(--bad); }
a.integrity { font-weight: bold; text-decoration: none; cursor: help; }
.tag { display: inline-block; padding: 0 6px; margin: 1px 0; border-radius: 9px; background: #eef2fb; color: #2d4a8a; font-size: 12px; white-space: nowrap; }
.tag.hidden { background: #fff1e6; color: #93370d; }
.meter { display: inline-block; width: 70px; height: 8px; background: #eceef2; border-radius: 4px; vertical-align: middle; overflow: hidden; }
.meter span { display: block; height: 100%; background: var(--bad); }
details { border: 1px solid var(--line); border-radius: 8px; padding: 6px 12px; margin: 6px 0; }
details[open] { padding-bottom: 10px; }
summary { cursor: pointer; }
ul.failures { list-style: none; padding: 0; margin: 0; }
li.failure { border-left: 3px solid var(--bad); padding-left: 10px; margin: 8px 0; }
li.failure.hidden { border-left-color: #f79009; }
pre .add { color: #1f7a3a; background: #e8f5ec; }
pre .del { color: #b42318; background: #fdecea; }
pre .hunk { color: var(--muted); }
button { font: inherit; font-size: 14px; padding: 3px 10px; border: 1px solid #cfd4dc; border-radius: 6px; background: #fff; cursor: pointer; }
button:disabled { color: #aab; cursor: default; }
.controls { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; }
.note.bad { color: var(--bad); }
#filter { margin: 4px 0 8px; padding: 5px 9px; width: 260px; border: 1px solid #cfd4dc; border-radius: 6px; font: inherit; }
</style>
</head>
<body>
"##;

/// Shows one lesson's blocks (the buttons of [`group_buttons`]), and
/// draws the submissions table and their failures from the page's data
/// (`#data`), a page at a time, with sorting, a filter across all pages and
/// a pager. Student text only ever reaches the page as `textContent`, or as
/// the details' HTML, escaped when the page was written. No data from the
/// run is ever inside the script.
const SCRIPT: &str = r#"<script>
// The lesson buttons: show the blocks of one group (a lesson, or the whole
// course: `all`), hide the others.
(function () {
  var nav = document.getElementById('groups');
  if (!nav) return;
  var buttons = nav.querySelectorAll('button[data-group]');
  var blocks = document.querySelectorAll('[data-groups]');
  function show(key) {
    buttons.forEach(function (b) { b.setAttribute('aria-pressed', String(b.getAttribute('data-group') === key)); });
    blocks.forEach(function (e) { e.hidden = e.getAttribute('data-groups').split(' ').indexOf(key) < 0; });
  }
  buttons.forEach(function (b) {
    b.addEventListener('click', function () { show(b.getAttribute('data-group')); });
  });
  nav.hidden = false;
  show('all');
})();
(function () {
  var source = document.getElementById('data');
  var table = document.getElementById('subs');
  if (!source || !table) return;
  var data = JSON.parse(source.textContent);
  var PAGE = 100;
  var filter = document.getElementById('filter');
  var pager = document.getElementById('pager');
  var prev = document.getElementById('prev'), next = document.getElementById('next');
  var label = document.getElementById('page');
  var body = table.tBodies[0];
  var details = document.getElementById('details');
  filter.hidden = false;
  document.querySelectorAll('.js-only').forEach(function (e) { e.hidden = false; });
  var n = data.checkpoints.length;
  var all = data.rows.map(function (r, i) { return i; });
  var shown = all.slice(), page = 0;
  // A column's sort value: the id, the status, a checkpoint's score (-1 for
  // an error), the total percentage (-1 for an error).
  function value(i, col) {
    var r = data.rows[i];
    if (col < 2) return r[col];
    if (col === n + 2) return r[3];
    if (r[1] === 'error') return -1;
    var c = r[col + 4];
    if (c === '\u2713') return 1;
    var p = c.split('/');
    return +p[1] === 0 ? 1 : +p[0] / +p[1];
  }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function cell(tr, text, v, cls) {
    var td = el('td', text, cls);
    td.setAttribute('data-v', v);
    tr.appendChild(td);
  }
  // A submission past the page's budget: its failures in brief.
  function brief(d) {
    var det = el('details');
    det.id = 'sub-' + d.i;
    det.setAttribute('data-id', d.id);
    var sum = el('summary');
    sum.appendChild(el('b', d.id));
    var what = d.error !== undefined ? 'not graded' : d.n === 0 ? 'all cases passed' : d.n + ' failed case' + (d.n === 1 ? '' : 's');
    sum.appendChild(document.createTextNode(' \u2014 ' + d.total + ' \u2014 ' + what + ' (in brief)'));
    det.appendChild(sum);
    if (d.integrity) det.appendChild(el('p', d.integrity + ' integrity finding' + (d.integrity === 1 ? '' : 's') + ' (instructors only): see the table\u2019s \u2691 and the --json report', 'integrity'));
    if (d.error !== undefined) {
      det.appendChild(el('pre', 'error: ' + d.error));
    } else if (d.all !== undefined) {
      det.appendChild(el('p', 'Every case failed:'));
      det.appendChild(el('pre', d.all));
    } else {
      (d.checkpoints || []).forEach(function (c) {
        if (c[4]) {
          det.appendChild(el('h4', data.checkpoints[c[0]] + ': not defined in main.py \u2014 ' + c[2] + ' case' + (c[2] === 1 ? '' : 's') + ' not run', 'missing'));
          return;
        }
        det.appendChild(el('h4', data.checkpoints[c[0]] + ': ' + c[1] + ' of ' + c[2] + ' cases failed'));
        var names = c[3].map(function (k) { return data.cases[c[0]][k]; });
        det.appendChild(el('p', 'first: ' + names.join(', ') + (c[1] > names.length ? ', \u2026 (the --json report has every one)' : ''), 'muted'));
      });
    }
    return det;
  }
  function draw() {
    var pages = Math.max(1, Math.ceil(shown.length / PAGE));
    if (page >= pages) page = pages - 1;
    var slice = shown.slice(page * PAGE, (page + 1) * PAGE);
    var rows = document.createDocumentFragment();
    slice.forEach(function (i) {
      var r = data.rows[i];
      var tr = el('tr');
      var td = el('td', undefined, 'nowrap');
      td.setAttribute('data-v', r[0]);
      var a = el('a', r[0]);
      a.href = '#sub-' + i;
      td.appendChild(a);
      if (r[5] !== null) {
        var badge = el('a', '\u2691 ' + r[4], 'integrity');
        badge.href = '#sub-' + i;
        badge.title = r[5];
        td.appendChild(document.createTextNode(' '));
        td.appendChild(badge);
      }
      tr.appendChild(td);
      cell(tr, r[1], r[1], r[1]);
      for (var col = 2; col < n + 2; col++) {
        var t = r[col + 4];
        cell(tr, t, value(i, col), r[1] === 'error' ? 'err' : t === '\u2713' ? 'ok' : 'ko');
      }
      cell(tr, r[2], r[3], 'nowrap');
      rows.appendChild(tr);
    });
    body.replaceChildren(rows);
    details.replaceChildren();
    slice.forEach(function (i) {
      var d = data.details[i];
      if (typeof d === 'string') details.insertAdjacentHTML('beforeend', d);
      else details.appendChild(brief(d));
    });
    label.textContent = 'page ' + (page + 1) + ' of ' + pages + ' \u00b7 ' + shown.length + ' submission' + (shown.length === 1 ? '' : 's');
    prev.disabled = page === 0;
    next.disabled = page >= pages - 1;
    pager.hidden = data.rows.length <= PAGE;
  }
  function apply() {
    var q = filter.value.toLowerCase();
    shown = q === '' ? all.slice() : all.filter(function (i) { return data.rows[i][0].toLowerCase().indexOf(q) >= 0; });
    page = 0;
    draw();
  }
  filter.addEventListener('input', apply);
  prev.addEventListener('click', function () { page = Math.max(0, page - 1); draw(); });
  next.addEventListener('click', function () { page += 1; draw(); });
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
    th.style.cursor = 'pointer';
    var asc = true;
    th.addEventListener('click', function () {
      var num = th.getAttribute('data-kind') === 'num';
      var dir = asc ? 1 : -1;
      all.sort(function (a, b) {
        var x = value(a, col), y = value(b, col);
        return dir * (num ? x - y : (x < y ? -1 : x > y ? 1 : 0));
      });
      asc = !asc;
      var q = filter.value.toLowerCase();
      shown = q === '' ? all.slice() : all.filter(function (i) { return data.rows[i][0].toLowerCase().indexOf(q) >= 0; });
      draw();
    });
  });
  // Open the submission a link points at, on its page (and keep it open on reload).
  function openTarget() {
    var m = /^#sub-(\d+)$/.exec(location.hash);
    if (m) {
      var i = +m[1], at = shown.indexOf(i);
      if (at < 0 && i < data.rows.length) { filter.value = ''; shown = all.slice(); at = shown.indexOf(i); }
      if (at >= 0 && Math.floor(at / PAGE) !== page) { page = Math.floor(at / PAGE); draw(); }
    }
    var t = location.hash && document.getElementById(location.hash.slice(1));
    if (t && t.tagName === 'DETAILS') { t.open = true; t.scrollIntoView(); }
  }
  draw();
  window.addEventListener('hashchange', openTarget);
  openTarget();
})();
</script>
"#;
