//! The built `autograder` end to end, on shipped recordings (nothing is
//! recorded): its commands, exit codes, reports, shards and merge; and the
//! dashboard in headless Chromium (the browser tier, see `util::tier`).

#[macro_use]
#[path = "../util/mod.rs"]
mod util;

mod cli_cases;
mod cli_robustness;
mod grade_cli;
mod grade_e2e;
mod record_cli;
mod report_caps;
mod report_exact;
mod report_html_browser;
mod scoring;
mod shard_merge;
mod student_ids;
