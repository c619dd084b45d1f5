//! `--html`: a self-contained course dashboard for course staff: headline
//! numbers, the score distribution, pass rates per checkpoint, a tag ×
//! checkpoint heatmap of failure rates, under the `criteria` policy each
//! criterion's failure rate, the most failed cases, and every
//! submission with its failures. The class-wide sections are grouped by
//! lesson (see [`stats::groups`]): a block per lesson, and for the score
//! distribution and the most failed cases one for the whole course too; a
//! row of buttons shows one lesson's blocks or the course's. One file, no
//! external resources: inline CSS and SVG, and a little inline script that
//! only adds the lesson buttons, sorting and filtering (the page reads
//! fully without it: every block shown, each under its lesson's heading).
//! Every piece of text from the run is escaped; the page is a pure
//! function of the run.

mod assets;
mod cases;
mod charts;
mod details;
mod escape;
mod groups;
mod header;
mod heatmap;
pub mod stats;
mod submissions;
mod svg;

pub use escape::{esc, script_json};
pub use submissions::{BRIEF_CASES, BRIEF_CHARS, DETAILS_BUDGET, PAGE};

use crate::grade::GradeRun;
use std::io::Write as _;

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
    out.push_str(assets::HEAD);
    header::header(&mut out, run);
    header::headline(&mut out, &stats);
    groups::group_buttons(&mut out, run, &stats);
    charts::score_distribution(&mut out, run, &stats);
    charts::checkpoint_bars(&mut out, run, &stats);
    heatmap::heatmap(&mut out, run, &stats);
    cases::criteria(&mut out, run, &stats);
    cases::failed_cases(&mut out, run, &stats);
    submissions::submissions_table(&mut out, run);
    w.write_all(out.as_bytes())?;
    let cut = submissions::data(&mut w, run)?;
    let mut out = String::new();
    submissions::failures_section(&mut out, run, cut);
    out.push_str(assets::SCRIPT);
    out.push_str("</body>\n</html>\n");
    w.write_all(out.as_bytes())?;
    w.flush()
}
