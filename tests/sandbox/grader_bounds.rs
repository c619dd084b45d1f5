//! What one student's results may cost the grader (issue 42, items 1 and
//! 2): nothing that ends the run, and little memory and CPU. The child's
//! result channel is writable by student code, and a marshalled result
//! expands: 4 MiB of marshal bytes (one long str and back-references to
//! it) stood for 80 GB, which the grader allocated and aborted on, with no
//! report for anyone; an import-error line holding such a result was
//! expanded once for every case; a wide int and a dict of many keys were
//! read in quadratic time. The fixtures (`tests/fixtures/bounded/`,
//! each appended to the model solution) forge those results, and return
//! `[s] * 3750` honestly, beside two clean copies of the model solution.
//!
//! The run finishes; the clean submissions keep full marks; the forged
//! cases fail as too large to grade (or, for the dict, which fits, as a
//! wrong value); the import error copied into every case costs each case
//! too large to grade, or, when its value fits one case but not the
//! submission's total, the submission (an error row); and the grader's own
//! peak memory and CPU stay small (printed, so CI logs show them).

use crate::util::cmd::{timings_cpu, Measured};
use crate::util::grading::submission as graded;
use crate::util::record::{tier_name, tier_or_skip, TIERS};
use crate::util::TestCommand;
use autograder::runner::IsolationChoice;
use serde_json::Value;
use std::path::Path;

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The grader's peak memory may not reach this, whatever one student sends.
const MAX_PEAK_BYTES: u64 = 300 << 20;

/// The grader's own CPU seconds for the whole run (five submissions of the
/// bundled corpus's 1,506 cases; a release build takes a fraction of it).
fn max_cpu_seconds() -> f64 {
    if cfg!(debug_assertions) {
        15.0
    } else {
        4.0
    }
}

/// `subs/<id>/main.py`: the model solution, then `fixture` (if any).
fn submission(subs: &Path, id: &str, fixture: Option<&str>) {
    let mut source =
        std::fs::read_to_string(manifest().join("submissions/model-solution/main.py")).unwrap();
    if let Some(fixture) = fixture {
        let path = manifest().join("tests/fixtures/bounded").join(fixture);
        source = source + "\n\n" + &std::fs::read_to_string(path).unwrap();
    }
    std::fs::create_dir_all(subs.join(id)).unwrap();
    std::fs::write(subs.join(id).join("main.py"), source).unwrap();
}

/// Every failure's reason.
fn reasons(s: &Value) -> Vec<String> {
    s["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|cp| cp["failures"].as_array().unwrap().iter())
        .map(|f| f["reason"].as_str().unwrap().to_string())
        .collect()
}

fn check(tier: IsolationChoice) {
    let tmp = tempfile::tempdir().unwrap();
    let subs = tmp.path().join("subs");
    submission(&subs, "clean-a", None);
    submission(&subs, "clean-b", None);
    submission(&subs, "forged-results", Some("forged-results.py"));
    submission(&subs, "forged-import", Some("forged-import.py"));
    submission(&subs, "forged-import-total", Some("forged-import-total.py"));
    let work = tmp.path().join("work");
    let report = tmp.path().join("report.json");
    let (out, cost): (_, Measured) = TestCommand::grade(&subs, &manifest().join("cases"), &work)
        .arg("--json")
        .arg(&report)
        .args(["--timings", "--quiet"])
        .env("AUTOGRADER_ISOLATION", tier_name(tier))
        .measured();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}:\n{stderr}", out.status);
    let cpu = timings_cpu(&stderr).expect("a --timings total");
    say!(
        "grader_bounds under {tier:?}: grader peak {} MiB, {cpu:.2} s CPU ({:.2} s with the sandbox's processes)",
        cost.peak_bytes >> 20,
        cost.cpu_with_children
    );
    let report: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    for id in ["clean-a", "clean-b"] {
        let s = graded(&report, id);
        assert_eq!(s["status"], "graded", "{id}: {}", s["error"]);
        assert_eq!(s["percent"], 100.0, "{id}: {:?}", reasons(s));
    }
    let too_large = "returned a value too large to record";
    // About one case in forty forged (or returned `[s] * 3750`): those fail.
    let forged = graded(&report, "forged-results");
    assert_eq!(forged["status"], "graded", "{}", forged["error"]);
    let failed = reasons(forged);
    assert!(failed.len() >= 8, "{failed:?}");
    let (large, wrong): (Vec<&String>, Vec<&String>) =
        failed.iter().partition(|r| r.starts_with(too_large));
    assert!(large.len() >= 4, "{failed:?}");
    for r in &wrong {
        // The dict of 40,000 int keys fits: a wrong value, in full.
        assert!(
            r.starts_with("returned a wrong value: {0: None, 1: None, ")
                || r.starts_with("expected ValueError, got return {0: None, 1: None, "),
            "{r}"
        );
    }
    // The import error copied into every case: each case too large.
    let import = graded(&report, "forged-import");
    assert_eq!(import["status"], "graded", "{}", import["error"]);
    let failed = reasons(import);
    assert!(failed.len() > 1000, "{} failures", failed.len());
    assert!(
        failed.iter().all(|r| r.starts_with(too_large)),
        "{failed:?}"
    );
    // One that fits a case but not 1,506 of them: the submission is refused.
    let total = graded(&report, "forged-import-total");
    assert_eq!(total["status"], "error");
    let error = total["error"].as_str().unwrap();
    assert!(
        error.contains("more than the 64 MiB one submission may record"),
        "{error}"
    );
    assert!(
        cost.peak_bytes < MAX_PEAK_BYTES,
        "the grader's peak memory was {} MiB",
        cost.peak_bytes >> 20
    );
    assert!(
        cpu < max_cpu_seconds(),
        "the grader took {cpu:.2} s of CPU (at most {} s)",
        max_cpu_seconds()
    );
}

#[test]
fn forged_and_expanding_results_end_no_run_and_cost_the_grader_little_under_every_tier() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Heavy) {
        return;
    }
    for tier in TIERS {
        if tier_or_skip(tier, "forged_and_expanding_results_end_no_run") {
            check(tier);
        }
    }
}
