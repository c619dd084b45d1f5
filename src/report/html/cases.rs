//! "Most failed cases": the cases failed by the most graded submissions,
//! of the whole course and of each lesson.

use super::escape::esc;
use super::groups::{block, group_heading, lessons};
use super::stats::{self, Rate, Stats};
use super::svg::pct_text;
use crate::grade::GradeRun;
use std::fmt::Write;

/// How many cases the "most failed" table lists.
const TOP_CASES: usize = 25;

pub(super) fn rate_bar(rate: Rate) -> String {
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
pub(super) fn failed_cases(out: &mut String, run: &GradeRun, stats: &Stats) {
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

/// Under the `criteria` policy: each lesson's criteria with how many graded
/// submissions failed each (the points a criterion is worth need all of
/// its cases).
pub(super) fn criteria(out: &mut String, run: &GradeRun, stats: &Stats) {
    if stats.criteria.is_empty() {
        return;
    }
    out.push_str("<section id=\"criteria\"><h2>Criteria</h2>\n<p class=\"note\">Each criterion's share of its checkpoint's points needs every one of its cases; failed by how many graded submissions.</p>\n");
    let lessons = lessons(stats);
    let groups: Vec<_> = if lessons.is_empty() {
        stats.groups.iter().take(1).collect()
    } else {
        lessons.iter().collect()
    };
    for g in groups.into_iter().map(|g| &g.group) {
        let _ = write!(out, "<div{}>", block(&[&g.key], ""));
        if !lessons.is_empty() {
            out.push_str(&group_heading(run, g));
        }
        out.push_str("<div class=\"scroll\"><table class=\"cases\"><thead><tr><th>checkpoint</th><th>criterion</th><th>points</th><th>failed</th></tr></thead><tbody>\n");
        for c in stats
            .criteria
            .iter()
            .filter(|c| g.checkpoints.contains(&c.checkpoint))
        {
            let _ = writeln!(
                out,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td class=\"nowrap\">{}</td></tr>",
                esc(&run.corpus.checkpoints[c.checkpoint].id),
                esc(&c.title),
                esc(&crate::report::fmt_points(c.points)),
                rate_bar(c.failed)
            );
        }
        out.push_str("</tbody></table></div></div>\n");
    }
    out.push_str("</section>\n");
}

pub(super) fn tags(list: &[String]) -> String {
    list.iter()
        .map(|t| format!("<span class=\"tag\">{}</span>", esc(t)))
        .collect::<Vec<_>>()
        .join(" ")
}
