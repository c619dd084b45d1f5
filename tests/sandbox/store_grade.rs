//! A grade from the store equals a `--no-cache` grade of the same corpus
//! cut, whatever was recorded before: after any sequence of assignments
//! into one work dir, and after a change of `--case-timeout` (an outcome
//! holds only under the limits that shaped it).

use crate::util::record as record_support;

use crate::util::TestCommand;
use autograder::recording::format::CaseOutcome;
use autograder::submission::discover;
use autograder::value::PyValue;
use record_support::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The model solution with module-level state: every call of a checkpoint
/// (not those one checkpoint makes of another) counts, and past `limit`
/// calls in one process every function returns None. `limit` is more than
/// any checkpoint's cases of one visibility, fewer than a lesson's.
fn stateful(dir: &Path, limit: usize) {
    let mut src =
        std::fs::read_to_string(root().join("submissions/model-solution/main.py")).unwrap();
    src.push_str(&format!(
        "\n\n# Module-level state: a count of every call this process made.\n\
         _CALLS = [0]\n\
         _INSIDE = [False]\n\
         def _counted(f):\n\
         \x20   def counted(*args, **kwargs):\n\
         \x20       if _INSIDE[0]:\n\
         \x20           return f(*args, **kwargs)\n\
         \x20       _CALLS[0] += 1\n\
         \x20       if _CALLS[0] > {limit}:\n\
         \x20           return None\n\
         \x20       _INSIDE[0] = True\n\
         \x20       try:\n\
         \x20           return f(*args, **kwargs)\n\
         \x20       finally:\n\
         \x20           _INSIDE[0] = False\n\
         \x20   return counted\n\
         for _name in [\n\
         \x20   'parse_contract_json', 'validate_ticket', 'accept_ticket', 'validate_tool_call',\n\
         \x20   'execute_tool', 'order_tool_results', 'run_tool', 'run_tools', 'check_tool_results',\n\
         \x20   'validate_tool_arguments', 'read_file', 'run_tool_loop',\n\
         ]:\n\
         \x20   globals()[_name] = _counted(globals()[_name])\n"
    ));
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("main.py"), src).unwrap();
}

/// What a JSON report says of each submission's checkpoints: its id, score
/// and the failures (case and what went wrong), nothing about where the
/// outcomes came from.
fn grades(report: &Path) -> Vec<Value> {
    let report: Value = serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    report["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["checkpoints"].as_array().unwrap().clone())
        .map(|c| {
            serde_json::json!({
                "id": c["id"],
                "score": c["score"],
                "cases_passed": c["cases_passed"],
                "failures": c["failures"],
            })
        })
        .collect()
}

/// Each lesson graded in turn into one work dir, then the whole course
/// from that store, then each lesson again: every grade equals the
/// `--no-cache` grade of its cut.
#[test]
fn a_store_grade_equals_a_fresh_grade_after_any_sequence_of_assignments() {
    let corpus = autograder::corpus::load(&root().join("cases")).unwrap();
    let mut groups = std::collections::HashMap::<_, usize>::new();
    for case in &corpus.cases {
        *groups
            .entry(autograder::corpus::process_group(case))
            .or_default() += 1;
    }
    let largest = groups.values().copied().max().unwrap();
    let smallest_lesson = corpus
        .lessons
        .iter()
        .map(|l| corpus.cases.iter().filter(|c| c.lesson == l.id).count())
        .min()
        .unwrap();
    assert!(largest + 1 < smallest_lesson, "{largest} {smallest_lesson}");
    let lessons: Vec<String> = corpus.lessons.iter().map(|l| l.id.clone()).collect();
    for tier in TIERS {
        if !tier_or_skip(tier, "store_grade") {
            continue;
        }
        let tmp = tempfile::tempdir().unwrap();
        let sub = tmp.path().join("stateful");
        stateful(&sub, largest + 1);
        let work = tmp.path().join("work");
        let grade = |cut: &str, fresh: bool| -> Vec<Value> {
            let json = tmp.path().join(format!("{cut}-{fresh}.json"));
            let mut cmd = TestCommand::grade(&sub, &root().join("cases"), &work);
            cmd.env("AUTOGRADER_ISOLATION", tier_name(tier))
                .args(["--assignment", cut, "--quiet", "--json"])
                .arg(&json);
            if fresh {
                cmd.arg("--no-cache");
            }
            cmd.assert_exit(0);
            grades(&json)
        };
        let sequence = lessons
            .iter()
            .map(String::as_str)
            .chain(["all"])
            .chain(lessons.iter().rev().map(String::as_str));
        for cut in sequence {
            let stored = grade(cut, false);
            let fresh = grade(cut, true);
            assert_eq!(stored, fresh, "{cut} under {tier:?}");
            // Each checkpoint's calls stay within the limit in its own
            // process: every checkpoint passes.
            for c in &stored {
                assert_eq!(c["score"], 1.0, "{cut} under {tier:?}: {c}");
            }
        }
    }
}

/// Busy for `seconds` of CPU, then the text back: correct, but slow.
fn slow(seconds: f64) -> String {
    format!(
        "import time\n\
         def parse_contract_json(text):\n\
         \x20   end = time.process_time() + {seconds}\n\
         \x20   while time.process_time() < end:\n\
         \x20       pass\n\
         \x20   return {{'echo': text}}\n"
    )
}

/// A store made at one `--case-timeout` is not reused at another: a
/// timeout at 0.3 s is recorded again at 2 s (and passes), a pass at 2 s
/// is recorded again at 0.3 s (and times out).
#[test]
fn a_stored_outcome_holds_only_under_the_case_timeout_that_shaped_it() {
    let corpus = corpus(vec![
        case("parse_contract_json", "a", vec![PyValue::str("a")]),
        case("parse_contract_json", "b", vec![PyValue::str("b")]),
    ]);
    for tier in TIERS {
        if !tier_or_skip(tier, "stored_timeout") {
            continue;
        }
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("subs/slow")).unwrap();
        std::fs::write(tmp.path().join("subs/slow/main.py"), slow(0.6)).unwrap();
        let subs = discover(&tmp.path().join("subs")).unwrap();
        let work = tmp.path().join("work");
        let kinds = |timeout: Duration| -> Vec<bool> {
            let mut opts = options(&work, 1, 2);
            opts.case_timeout = timeout;
            opts.use_cache = true;
            let results = record(&corpus, &subs, &opts, tier);
            let rec = recording(&results, "slow");
            ["a", "b"]
                .iter()
                .map(
                    |c| match outcome(rec, &format!("parse_contract_json/{c}")) {
                        CaseOutcome::Timeout { .. } => true,
                        o if *o == echo(c) => false,
                        o => panic!("{c} under {tier:?}: {o:?}"),
                    },
                )
                .collect()
        };
        let short = Duration::from_millis(300);
        let long = Duration::from_secs(2);
        assert_eq!(kinds(short), [true, true], "{tier:?}");
        assert_eq!(
            kinds(long),
            [false, false],
            "{tier:?}: timeouts at 0.3 s reused at 2 s"
        );
        assert_eq!(
            kinds(short),
            [true, true],
            "{tier:?}: passes at 2 s reused at 0.3 s"
        );
    }
}
