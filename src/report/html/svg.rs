//! Inline SVG charts: the score histogram and the per-checkpoint bars.
//! Plain shapes and text, sized by `viewBox` so they scale with the page
//! (every chart is as wide, so two charts' rows are as tall on the page).

use super::escape::esc;
use super::stats::{Stats, BINS};
use std::fmt::Write;

const WIDTH: f64 = 1000.0;

/// Graded submissions per score bin (`histogram`), as columns with counts
/// on top; `what` completes the chart's accessible name ("Score
/// distribution of graded submissions, {what}"), escaped here.
pub fn histogram(histogram: &[usize; BINS], what: &str) -> String {
    let (left, top, plot_h, bottom) = (40.0, 20.0, 180.0, 40.0);
    let height = top + plot_h + bottom;
    let highest = histogram.iter().copied().max().unwrap_or(0).max(1);
    // The axis runs to a multiple of a round step, in at most 5 ticks.
    let step = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000]
        .into_iter()
        .find(|s| highest.div_ceil(*s) <= 5)
        .unwrap_or_else(|| highest.div_ceil(5));
    let ticks = highest.div_ceil(step);
    let max = step * ticks;
    let slot = (WIDTH - left - 10.0) / BINS as f64;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg class="chart" viewBox="0 0 {WIDTH} {height}" role="img" aria-label="Score distribution of graded submissions, {}">"#,
        esc(what)
    );
    // Baseline and guides at whole, evenly spaced counts.
    for tick in 0..=ticks {
        let y = top + plot_h - plot_h * (tick * step) as f64 / max as f64;
        let _ = write!(
            out,
            r##"<line x1="{left}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="#{}" />"##,
            WIDTH - 10.0,
            if tick == 0 { "888" } else { "e5e5e5" }
        );
        let _ = write!(
            out,
            r#"<text x="{}" y="{:.1}" class="axis" text-anchor="end">{}</text>"#,
            left - 6.0,
            y + 4.0,
            tick * step
        );
    }
    for (i, &n) in histogram.iter().enumerate() {
        let x = left + slot * i as f64 + slot * 0.12;
        let w = slot * 0.76;
        let h = plot_h * n as f64 / max as f64;
        let y = top + plot_h - h;
        let label = if i == BINS - 1 {
            "100".to_string()
        } else {
            format!("{}–{}", i * 10, i * 10 + 9)
        };
        let class = if i == BINS - 1 { "bar full" } else { "bar" };
        let _ = write!(
            out,
            r#"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" class="{class}"><title>{label} %: {n}</title></rect>"#
        );
        if n > 0 {
            let _ = write!(
                out,
                r#"<text x="{:.1}" y="{:.1}" class="count" text-anchor="middle">{n}</text>"#,
                x + w / 2.0,
                y - 5.0
            );
        }
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.1}" class="axis" text-anchor="middle">{label}</text>"#,
            x + w / 2.0,
            top + plot_h + 18.0
        );
    }
    let _ = write!(
        out,
        r#"<text x="{:.1}" y="{:.1}" class="axis" text-anchor="middle">score (% of points)</text>"#,
        left + (WIDTH - left) / 2.0,
        height - 4.0
    );
    out.push_str("</svg>");
    out
}

/// Per checkpoint of `checkpoints` (indexes into `stats.checkpoints`): the
/// share of graded submissions that passed it, and the mean score, as two
/// horizontal bars (the page's legend says which is which).
pub fn checkpoint_bars(stats: &Stats, checkpoints: &[usize]) -> String {
    let (label_w, row_h, top) = (230.0, 46.0, 6.0);
    let plot_w = WIDTH - label_w - 70.0;
    let height = top + row_h * checkpoints.len() as f64 + 20.0;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg class="chart" viewBox="0 0 {WIDTH} {height}" role="img" aria-label="Pass rate and mean score per checkpoint">"#
    );
    for pct in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let x = label_w + plot_w * pct;
        let _ = write!(
            out,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{top}" y2="{:.1}" stroke="#e5e5e5" /><text x="{x:.1}" y="{:.1}" class="axis" text-anchor="middle">{}%</text>"##,
            height - 14.0,
            height - 2.0,
            pct * 100.0
        );
    }
    let rows = checkpoints.iter().filter_map(|&i| stats.checkpoints.get(i));
    for (i, cp) in rows.enumerate() {
        let y = top + row_h * i as f64;
        let pass = if stats.graded == 0 {
            0.0
        } else {
            cp.passed as f64 / stats.graded as f64
        };
        let mean = cp.mean_score.unwrap_or(0.0);
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.1}" class="label" text-anchor="end">{}<title>{}</title></text>"#,
            label_w - 10.0,
            y + 23.0,
            esc(&cp.id),
            esc(&cp.title)
        );
        let _ = write!(
            out,
            r#"<rect x="{label_w}" y="{:.1}" width="{:.1}" height="16" class="bar"><title>{} of {} passed</title></rect>{}"#,
            y + 4.0,
            plot_w * pass,
            cp.passed,
            stats.graded,
            bar_label(
                label_w + plot_w * pass,
                y + 17.0,
                &format!("{} ({}/{})", pct_text(pass), cp.passed, stats.graded),
                "in-dark",
            )
        );
        let _ = write!(
            out,
            r#"<rect x="{label_w}" y="{:.1}" width="{:.1}" height="16" class="bar mean"><title>mean score {}</title></rect>{}"#,
            y + 22.0,
            plot_w * mean,
            pct_text(mean),
            bar_label(
                label_w + plot_w * mean,
                y + 35.0,
                &pct_text(mean),
                "in-light"
            )
        );
    }
    out.push_str("</svg>");
    out
}

/// The count at the end of a bar ending at `end`: after it when it fits in
/// the chart, else inside the bar's end (`inside` is the class that gives
/// it a colour readable on the bar), so a full bar's label is never cut.
fn bar_label(end: f64, y: f64, text: &str, inside: &str) -> String {
    // A generous width for the chart's 13px digits, parentheses and slash.
    let width = 8.0 * text.chars().count() as f64;
    let text = esc(text);
    if end + 6.0 + width <= WIDTH - 2.0 {
        format!(
            r#"<text x="{:.1}" y="{y:.1}" class="count">{text}</text>"#,
            end + 6.0
        )
    } else {
        format!(
            r#"<text x="{:.1}" y="{y:.1}" class="count {inside}" text-anchor="end">{text}</text>"#,
            end - 6.0
        )
    }
}

/// A share in 0..=1 as a whole percentage, rounded down (99.9 % never
/// shows as 100 %), and `<1%` for a share above 0 that would show as 0.
pub fn pct_text(share: f64) -> String {
    let whole = (share * 100.0 + 1e-9).floor() as i64;
    if whole == 0 && share > 0.0 {
        "<1%".to_string()
    } else {
        format!("{whole}%")
    }
}
