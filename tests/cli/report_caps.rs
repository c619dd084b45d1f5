//! No report grows with what one submission returned: a shipped recording
//! with a 40 MB exception class name, a 20 MB message, a 10 MB MRO entry, a
//! 3 MB returned string and a value whose diff has long lines, graded
//! through the CLI into every format, for both audiences.

use crate::util::grading as support;

use crate::util::TestCommand;
use autograder::recording::format::CaseOutcome;
use autograder::value::Outcome;
use serde_json::{json, Value};
use std::path::Path;

/// Every report of one submission stays under this, whatever it returned.
const BOUND: u64 = 1 << 20;

/// The hostile recording: every case of the fixture corpus fails with as
/// much text as the recording file's 80 MiB allow.
fn ship_hostile(dir: &Path) {
    let corpus = support::corpus();
    let expected = support::expected(&corpus);
    let mut rec = support::perfect_recording(&corpus, "evil");
    let (mut raised, mut returned) = (false, 0);
    for (case, want) in corpus.cases.iter().zip(&expected) {
        let outcome = match want {
            Outcome::Raises(_) if !raised => {
                raised = true;
                CaseOutcome::Raised {
                    class: format!("\u{1b}[2J{}", "C".repeat(40_000_000)),
                    mro: vec![
                        format!("main.{}", "M".repeat(10_000_000)),
                        "Exception".into(),
                        "BaseException".into(),
                        "object".into(),
                    ],
                    message: "m".repeat(20_000_000),
                }
            }
            Outcome::Returns(_) => {
                returned += 1;
                let value = if returned == 1 {
                    json!("s".repeat(3_000_000))
                } else {
                    // A diff of 200 lines of 5,000 characters.
                    json!((0..200)
                        .map(|i| format!("{i}{}", "d".repeat(5000)))
                        .collect::<Vec<_>>())
                };
                CaseOutcome::Returned {
                    value: value.into(),
                    shares_with_args: false,
                    args_changed: false,
                    shares_with_state: false,
                    shared: None,
                    changed: None,
                }
            }
            Outcome::Raises(_) => continue,
        };
        rec.outcomes.insert(case.id.clone(), outcome);
    }
    assert!(raised && returned >= 2, "the fixture corpus has both kinds");
    std::fs::create_dir_all(dir).unwrap();
    let bytes = serde_json::to_vec(&rec).unwrap();
    assert!(bytes.len() > 70 << 20, "{}", bytes.len());
    std::fs::write(dir.join("recording.json"), bytes).unwrap();
}

fn grade(subs: &Path, work: &Path, out: &Path, audience: &str) -> String {
    let path = |name: &str| out.join(name).into_os_string();
    TestCommand::grade(subs, &support::fixture_dir().join("cases"), work)
        .args(["--audience", audience, "--all-failures"])
        .arg("--json")
        .arg(path("report.json"))
        .arg("--csv")
        .arg(path("grades.csv"))
        .arg("--junit")
        .arg(path("junit.xml"))
        .arg("--markdown")
        .arg(path("summary.md"))
        .arg("--html")
        .arg(path("dashboard.html"))
        .arg("--gradescope")
        .arg(path("results.json"))
        .stdout()
}

#[test]
fn no_report_grows_with_what_one_submission_returned() {
    let tmp = tempfile::tempdir().unwrap();
    let subs = tmp.path().join("subs");
    ship_hostile(&subs.join("evil"));
    for audience in ["instructor", "student"] {
        let out = tmp.path().join(audience);
        std::fs::create_dir_all(&out).unwrap();
        let terminal = grade(&subs, &tmp.path().join("work"), &out, audience);
        assert!(
            (terminal.len() as u64) < BOUND,
            "{audience} terminal: {} bytes",
            terminal.len()
        );
        for entry in std::fs::read_dir(&out).unwrap() {
            let entry = entry.unwrap();
            let size = entry.metadata().unwrap().len();
            assert!(size < BOUND, "{audience} {:?}: {size} bytes", entry.path());
        }
        // The submission was graded (every case failed), not refused.
        let report: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap())
                .unwrap();
        let evil = &report["submissions"][0];
        assert_eq!(evil["status"], "graded", "{}", evil["error"]);
        let failures: Vec<&Value> = evil["checkpoints"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|c| c["failures"].as_array().unwrap())
            .collect();
        assert!(failures.len() >= 3);
        for f in &failures {
            for field in ["reason", "brief", "got", "expected", "diff"] {
                let text = f[field].as_str().unwrap_or_default();
                assert!(text.chars().count() <= 6100, "{field}: {}", text.len());
                assert!(!text.contains('\u{1b}'), "{field} holds an escape");
            }
        }
        if audience == "instructor" {
            // What was cut says how much.
            let all = serde_json::to_string(&failures).unwrap();
            assert!(all.contains("more characters)"), "nothing says it was cut");
        }
    }
}
