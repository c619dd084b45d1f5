//! The sections drawn as SVG charts: the score distribution and the
//! checkpoints' pass rates.

use super::groups::{block, group_heading, group_ids, lessons};
use super::stats::Stats;
use super::svg;
use crate::grade::GradeRun;
use crate::report::fmt_score;
use std::fmt::Write;

/// The score histogram of the whole course and of each lesson (a group's
/// score: its checkpoints' points only, see
/// [`percent_of`](super::stats::percent_of)).
pub(super) fn score_distribution(out: &mut String, run: &GradeRun, stats: &Stats) {
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
pub(super) fn checkpoint_bars(out: &mut String, run: &GradeRun, stats: &Stats) {
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
