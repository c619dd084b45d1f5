//! A submission's total memory is bounded where the machine allows it
//! (issue 12, item 6): five processes of 600 MiB each, every one under the
//! per-process limit, never all hold their memory at once inside the
//! worker's 2 GiB memory cgroup, under every tier; and the recording says
//! which bound held. Without the right to make a cgroup (not root), the
//! recording says the bound is per process only.

use crate::util::record as record_support;

use autograder::recording::format::CaseOutcome;
use autograder::submission::discover;
use record_support::*;
use std::path::Path;

#[test]
fn a_submissions_processes_together_stay_within_the_workers_memory_cgroup() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Heavy) {
        return;
    }
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/memory");
    let subs = discover(&fixtures).unwrap();
    let corpus = hostile_corpus(
        &fixtures.join("team/main.py"),
        &fixtures.join("team/main.py"),
    );
    for tier in TIERS {
        if !tier_or_skip(tier, "memory_cgroup") {
            continue;
        }
        let work = tempfile::tempdir().unwrap();
        let results = record(&corpus, &subs, &options(work.path(), 1, 30), tier);
        let rec = recording(&results, "team");
        let sandbox = rec.sandbox.clone().unwrap_or_default();
        if !autograder::runner::sandbox::is_root() {
            assert!(sandbox.contains("memory: per process only"), "{sandbox}");
            say!("memory_cgroup under {tier:?}: not root, so per process only, as the recording says");
            continue;
        }
        assert!(sandbox.contains("memory: cgroup v"), "{sandbox}");
        let o = outcome(rec, "parse_contract_json/hostile");
        match o {
            // The cgroup's OOM killer took the case's own process...
            CaseOutcome::Crashed {
                signal: Some(9), ..
            } => {}
            // ... or some of its children: never all five at once.
            CaseOutcome::Returned { value, .. } => {
                let held = value.to_json().unwrap()["held"].as_u64().unwrap();
                assert!(
                    held < 5,
                    "{tier:?}: all five held 600 MiB at once ({sandbox})"
                );
            }
            other => panic!("{tier:?}: {other:?}"),
        }
        // The harness itself was never the OOM killer's choice: the next
        // case ran.
        assert_eq!(outcome(rec, "parse_contract_json/after"), &echo("after"));
        say!("memory_cgroup under {tier:?}: {o:?} ({sandbox})");
    }
}
