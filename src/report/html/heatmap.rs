//! "Where the class fails": the tag × checkpoint heatmap of failure
//! rates, by lesson.

use super::escape::esc;
use super::groups::{block, group_heading};
use super::stats::{Rate, Stats};
use super::svg::pct_text;
use crate::grade::GradeRun;
use std::fmt::Write;

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

/// The heatmap section, a table per lesson, and its colour legend.
pub(super) fn heatmap(out: &mut String, run: &GradeRun, stats: &Stats) {
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
