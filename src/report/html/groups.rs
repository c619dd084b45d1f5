//! The lessons the page shows apart: their blocks' attributes and
//! headings, and the row of buttons that shows one lesson's blocks.

use super::escape::esc;
use super::stats::{self, Group, Stats};
use crate::grade::GradeRun;
use std::fmt::Write;

/// The lessons the page shows apart: none when the course has a single
/// lesson (its blocks would only repeat the whole course's).
pub(super) fn lessons(stats: &Stats) -> &[stats::GroupStat] {
    match stats.groups.get(1..) {
        Some(lessons) if lessons.len() > 1 => lessons,
        _ => &[],
    }
}

/// The attributes of a block the lesson buttons show or hide: shown for
/// each group key of `keys` (`all` for the whole course), hidden for others.
pub(super) fn block(keys: &[&str], class: &str) -> String {
    format!(
        " class=\"group{}{class}\" data-groups=\"{}\"",
        if class.is_empty() { "" } else { " " },
        keys.join(" ")
    )
}

/// A group's heading: `Lesson <id> · 3 checkpoints · 3 points`.
pub(super) fn group_heading(run: &GradeRun, g: &Group) -> String {
    let n = g.checkpoints.len();
    let points: f64 = g
        .checkpoints
        .iter()
        .filter_map(|&i| run.corpus.checkpoints.get(i))
        .map(|c| c.points)
        .sum();
    let points = crate::report::fmt_points(points);
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
pub(super) fn group_ids(run: &GradeRun, g: &Group) -> String {
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
pub(super) fn group_buttons(out: &mut String, run: &GradeRun, stats: &Stats) {
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
