//! `--html`: a self-contained course dashboard for course staff: headline
//! numbers, the score distribution, pass rates per checkpoint, a tag ×
//! checkpoint heatmap of failure rates, the most failed cases, and every
//! submission with its failures. One file, no external resources: inline
//! CSS and SVG, and a little inline script that only adds sorting and
//! filtering (the page reads fully without it). Every piece of text from
//! the run is escaped; the page is a pure function of the run.

pub mod stats;
mod svg;

use super::{
    case_label, failure_fields, failure_section, fmt_score, total_cell, FailedCheckpoint,
    FailureSection,
};
use crate::corpus::Visibility;
use crate::grade::{GradeRun, Status, SubmissionGrade};
use stats::{Rate, Stats};
use std::fmt::Write;
use svg::pct_text;

/// How many failures per checkpoint a submission's details list.
const DETAIL_FAILURES: usize = 20;
/// How many cases the "most failed" table lists.
const TOP_CASES: usize = 25;

/// Text made safe for HTML element content and quoted attribute values:
/// what [`super::text`] hides becomes U+FFFD, markup is escaped.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in super::text::replaced(text).chars() {
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
        super::Environment::of(run).map_or(String::new(), |env| format!(
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
    let _ = writeln!(
        out,
        "<section><h2>Score distribution</h2><p class=\"note\">Graded submissions by share of points, rounded down.</p>{}</section>",
        svg::histogram(&stats)
    );
    let _ = writeln!(
        out,
        "<section><h2>Checkpoints</h2><p class=\"note\">Share of graded submissions that pass every case of the checkpoint, and their mean score.</p>{}</section>",
        svg::checkpoint_bars(&stats)
    );
    heatmap(&mut out, run, &stats);
    failed_cases(&mut out, &stats);
    submissions_table(&mut out, run);
    details(&mut out, run);
    out.push_str(SCRIPT);
    out.push_str("</body>\n</html>\n");
    out
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

fn heatmap(out: &mut String, run: &GradeRun, stats: &Stats) {
    out.push_str("<section><h2>Where the class fails: tag × checkpoint</h2><p class=\"note\">Of all case runs with the tag in the checkpoint (graded submissions), the share that failed. Empty: no such case.</p>\n");
    if stats.tags.is_empty() || stats.graded == 0 {
        out.push_str("<p>No graded case runs.</p></section>\n");
        return;
    }
    out.push_str("<div class=\"scroll\"><table class=\"heat\"><thead><tr><th>tag</th>");
    for cp in &run.corpus.checkpoints {
        let _ = write!(
            out,
            "<th title=\"{}\">{}</th>",
            esc(&cp.title),
            esc(&cp.id).replace('_', "_<wbr>")
        );
    }
    out.push_str("</tr></thead><tbody>\n");
    for (tag, row) in stats.tags.iter().zip(&stats.heat) {
        let _ = write!(out, "<tr><th>{}</th>", esc(tag));
        for (cell, cp) in row.iter().zip(&run.corpus.checkpoints) {
            match cell {
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
    out.push_str("</tbody></table></div>\n<p class=\"legend\">");
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

fn failed_cases(out: &mut String, stats: &Stats) {
    out.push_str("<section><h2>Most failed cases</h2>\n");
    if stats.failed_cases.is_empty() {
        out.push_str("<p>No case failed.</p></section>\n");
        return;
    }
    let _ = writeln!(
        out,
        "<p class=\"note\">The {} cases failed by the most graded submissions ({} cases failed at least once), with the most common reason.</p>",
        stats.failed_cases.len().min(TOP_CASES),
        stats.failed_cases.len()
    );
    out.push_str("<div class=\"scroll\"><table class=\"cases\"><thead><tr><th>case</th><th>tags</th><th>failed</th><th>most common reason</th></tr></thead><tbody>\n");
    for c in stats.failed_cases.iter().take(TOP_CASES) {
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
    out.push_str("</tbody></table></div></section>\n");
}

fn tags(list: &[String]) -> String {
    list.iter()
        .map(|t| format!("<span class=\"tag\">{}</span>", esc(t)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn submissions_table(out: &mut String, run: &GradeRun) {
    out.push_str("<section><h2>Submissions</h2>\n<p class=\"note\">✓: every case passed; otherwise passed/total case weight. Click an id for its failures.<span class=\"js-only\" hidden> Click a column to sort.</span></p>\n");
    out.push_str("<input id=\"filter\" type=\"search\" placeholder=\"filter by id…\" title=\"filters this table and the failures below\" hidden>\n");
    out.push_str("<div class=\"scroll\"><table id=\"subs\" class=\"subs\"><thead><tr><th data-kind=\"text\">submission</th><th data-kind=\"text\">status</th>");
    for cp in &run.corpus.checkpoints {
        let _ = write!(
            out,
            "<th data-kind=\"num\" title=\"{}\">{}</th>",
            esc(&cp.title),
            esc(&cp.id).replace('_', "_<wbr>")
        );
    }
    out.push_str("<th data-kind=\"num\">total</th></tr></thead><tbody>\n");
    for (i, s) in run.submissions.iter().enumerate() {
        // Integrity findings (instructors only): a badge, the findings in its tooltip.
        let badge = match super::integrity_line(run, s) {
            Some(line) => format!(
                " <a class=\"integrity\" href=\"#sub-{i}\" title=\"{}\">⚑ {}</a>",
                esc(&line),
                s.integrity.len()
            ),
            None => String::new(),
        };
        let _ = write!(
            out,
            "<tr><td data-v=\"{id}\" class=\"nowrap\"><a href=\"#sub-{i}\">{id}</a>{badge}</td><td data-v=\"{st}\" class=\"{st}\">{st}</td>",
            id = esc(&s.id),
            st = s.status.name()
        );
        for cp in &s.checkpoints {
            let (text, class, v) = match s.status {
                Status::Error => ("–".to_string(), "err", -1.0),
                Status::Graded if cp.passed => ("✓".to_string(), "ok", cp.score),
                Status::Graded => (
                    format!("{}/{}", cp.weight_passed, cp.weight_total),
                    "ko",
                    cp.score,
                ),
            };
            let _ = write!(out, "<td data-v=\"{v}\" class=\"{class}\">{text}</td>");
        }
        let v = match s.status {
            Status::Error => -1.0,
            Status::Graded => s.percent(),
        };
        let _ = writeln!(
            out,
            "<td data-v=\"{v}\" class=\"nowrap\">{}</td></tr>",
            esc(&total_cell(s))
        );
    }
    out.push_str("</tbody></table></div></section>\n");
}

fn details(out: &mut String, run: &GradeRun) {
    out.push_str("<section><h2>Failures by submission</h2>\n");
    for (i, s) in run.submissions.iter().enumerate() {
        submission_details(out, i, s, run);
    }
    out.push_str("</section>\n");
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
    match failure_section(s) {
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

/// Each failed checkpoint of a submission: its first failed cases in full.
fn failed_checkpoints(out: &mut String, checkpoints: &[FailedCheckpoint]) {
    for c in checkpoints {
        let (cp, failed) = (c.checkpoint, &c.failed);
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
body { margin: 0 auto; max-width: 1120px; padding: 24px 28px 60px; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #fff; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 34px 0 6px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
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
#filter { margin: 4px 0 8px; padding: 5px 9px; width: 260px; border: 1px solid #cfd4dc; border-radius: 6px; font: inherit; }
</style>
</head>
<body>
"##;

/// Sorting and filtering of the submissions table; the page does not
/// depend on it. No data from the run is ever inside the script.
const SCRIPT: &str = r#"<script>
(function () {
  // Open the submission a link points at (and keep it open on reload).
  function openTarget() {
    var t = location.hash && document.getElementById(location.hash.slice(1));
    if (t && t.tagName === 'DETAILS') { t.open = true; }
  }
  window.addEventListener('hashchange', openTarget);
  openTarget();
  var table = document.getElementById('subs');
  if (!table) return;
  var filter = document.getElementById('filter');
  filter.hidden = false;
  document.querySelectorAll('.js-only').forEach(function (e) { e.hidden = false; });
  var body = table.tBodies[0];
  // The filter applies to the table and to "Failures by submission".
  var sections = document.querySelectorAll('details[data-id]');
  filter.addEventListener('input', function () {
    var q = filter.value.toLowerCase();
    function miss(id) { return q !== '' && id.toLowerCase().indexOf(q) < 0; }
    Array.prototype.forEach.call(body.rows, function (r) {
      r.hidden = miss(r.cells[0].getAttribute('data-v'));
    });
    Array.prototype.forEach.call(sections, function (d) {
      d.hidden = miss(d.getAttribute('data-id'));
    });
  });
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
    th.style.cursor = 'pointer';
    var asc = true;
    th.addEventListener('click', function () {
      var num = th.getAttribute('data-kind') === 'num';
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[col].getAttribute('data-v'), y = b.cells[col].getAttribute('data-v');
        var c = num ? parseFloat(x) - parseFloat(y) : (x < y ? -1 : x > y ? 1 : 0);
        return asc ? c : -c;
      });
      asc = !asc;
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
})();
</script>
"#;
