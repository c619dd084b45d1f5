//! The submissions: the table's head, and the page's data the script draws
//! the table and the failures by submission from, a page at a time.

use super::details::{submission_details, DETAIL_FAILURES};
use super::escape::{esc, script_json};
use crate::grade::{GradeRun, Status, SubmissionGrade};
use crate::report::{failure_section, has_failures, integrity_line, total_cell, FailureSection};
use serde_json::json;
use std::fmt::Write;

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

/// The submissions table's head, pager and filter; its rows are drawn by
/// the page's script from the data (see [`data`]), a page at a time.
pub(super) fn submissions_table(out: &mut String, run: &GradeRun) {
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
pub(super) struct Cut {
    /// Submissions whose failures are shown in full (the first ones).
    full: usize,
    /// Submissions after them, shown in brief.
    brief: usize,
}

/// Writes the page's data, `<script type="application/json" id="data">`:
/// `{"checkpoints": [...], "cases": [[name...]...], "rows": [...],
/// "details": [...]}`. A row is `[id, status, total text, total %
/// (-1 for an error), integrity findings, their line or null, a cell per
/// checkpoint ("✓", "passed/total" weight, or "–")]`. A submission's
/// details are its `<details>` element as HTML (escaped here, as the rest
/// of the page) for the first submissions, up to [`DETAILS_BUDGET`] bytes;
/// after that, in brief, as data the script writes as text.
pub(super) fn data(w: &mut dyn std::io::Write, run: &GradeRun) -> std::io::Result<Cut> {
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
        let s = if has_failures(summary) {
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
pub(super) fn row(run: &GradeRun, s: &SubmissionGrade) -> serde_json::Value {
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
        json!(integrity_line(run, s).map(|l| replaced(&l))),
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
pub(super) fn brief(run: &GradeRun, i: usize, s: &SubmissionGrade) -> serde_json::Value {
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
pub(super) fn failures_section(out: &mut String, run: &GradeRun, cut: Cut) {
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
