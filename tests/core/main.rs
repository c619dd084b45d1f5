//! The library without the built binary or a sandbox: the corpus loader,
//! verdicts and scores, every report format against golden files, and
//! JSONTestSuite. Seconds.

#[macro_use]
#[path = "../util/mod.rs"]
mod util;

mod corpus_loader;
mod grade_scores;
mod grade_verdict;
mod gradescope_spec;
mod jsontestsuite;
mod report_calls;
mod report_counterexamples;
mod report_golden;
mod report_html;
mod report_scale;
mod report_sections;
mod report_text;

/// `AUTOGRADER_TESTS` names the slow tiers to run (`util::tier`).
#[test]
fn tier_names_select_their_tier() {
    use util::tier::{selects, Tier};
    assert!(selects("all", Tier::Cpython));
    assert!(selects("browser, cpython", Tier::Cpython));
    assert!(selects("browser", Tier::Browser));
    assert!(!selects("browser", Tier::Cpython));
    assert!(!selects("", Tier::Browser));
}
