//! The top of the page: what was graded and for whom, then the headline
//! numbers.

use super::escape::esc;
use super::stats::Stats;
use crate::grade::GradeRun;
use crate::report::{fmt_score, Provenance};
use std::fmt::Write;

/// The page's header: the corpus, the audience, the sandbox environment
/// and, for one shard of a run, that the others are not here.
pub(super) fn header(out: &mut String, run: &GradeRun) {
    let _ = writeln!(
        out,
        "<header><h1>Autograder — course dashboard</h1><p class=\"sub\">{} case{} · corpus <code title=\"{}\">{}</code> · written for the {} audience{}</p><p class=\"sub\" id=\"scoring\">{}</p>{}{}</header>",
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
        esc(&crate::report::scoring_line(run)),
        Provenance::of(run).map_or(String::new(), |env| format!(
            "<p class=\"sub{}\" id=\"environment\">{}</p>",
            if env.mixed() { " bad" } else { "" },
            esc(&env.line_for(run.audience))
        )),
        run.shards.as_ref().map_or(String::new(), |s| format!(
            "<p class=\"partial\">{}: the other shards' submissions are not in this dashboard</p>",
            esc(&s.note())
        ))
    );
}

fn short(fingerprint: &str) -> &str {
    fingerprint.get(..12).unwrap_or(fingerprint)
}

pub(super) fn headline(out: &mut String, stats: &Stats) {
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
