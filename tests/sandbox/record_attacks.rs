//! Attacks on the sandbox that need their own set-up: one submission leaving
//! things behind for the next one on the same worker, and floods of the
//! result channel. Run under both isolation modes.

use crate::util::record as record_support;

use autograder::recording::format::CaseOutcome;
use autograder::runner::IsolationChoice;
use autograder::submission::{discover, Submission};
use record_support::*;
use serde_json::json;
use std::path::PathBuf;
use std::sync::Mutex;

/// One test at a time: the memory check reads this process's peak.
static SERIAL: Mutex<()> = Mutex::new(());

fn attacks() -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/attacks")
}

fn submissions(ids: &[&str]) -> Vec<Submission> {
    let all = discover(&attacks()).expect("the attack fixtures are readable");
    let subs: Vec<Submission> = all.into_iter().filter(|s| ids.contains(&&*s.id)).collect();
    assert_eq!(subs.len(), ids.len(), "every fixture is discovered");
    subs
}

fn corpus() -> autograder::corpus::Corpus {
    let other = fixtures().join("echo/main.py");
    hostile_corpus(&other, &fixtures().join(".corpus/course.toml"))
}

/// a-plant leaves files, IPC objects, a message queue and a background
/// process holding an abstract socket; b-probe runs next on the same worker
/// (same uid) and must find none of it.
fn check_leftovers(isolation: IsolationChoice) {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let landlock = isolation == IsolationChoice::Landlock;
    // Landlock keeps leftovers from being made at all (files outside the
    // submission's folder, IPC objects refused) and kills every descendant;
    // the other tiers clean up by the worker's own uid, which needs root.
    if !landlock
        && !root_or_say(&format!(
            "nothing_left_for_the_next_submission under {isolation:?}"
        ))
    {
        return;
    }
    let corpus = corpus();
    let subs = submissions(&["a-plant", "b-probe"]);
    let work = tempfile::tempdir().unwrap();
    // One worker: the probe runs right after the planter, as the same uid.
    let results = record(&corpus, &subs, &options(work.path(), 1, 5), isolation);
    let planted = match outcome(
        recording(&results, "a-plant"),
        "parse_contract_json/hostile",
    ) {
        CaseOutcome::Returned { value, .. } => value.to_json().unwrap(),
        other => panic!("{other:?}"),
    };
    let planted: Vec<&str> = planted
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    // The attack really ran: the IPC objects, /tmp and the process at least
    // (under landlock only the process: the rest is refused).
    let expected: &[&str] = if landlock {
        &["process"]
    } else {
        &["shm", "msg", "sem", "mq", "/tmp", "process"]
    };
    for thing in expected {
        assert!(planted.contains(thing), "{thing} not planted: {planted:?}");
    }
    let root = autograder::runner::sandbox::is_root();
    if landlock {
        // Without root the scratch root is the user's own: chmod is no
        // Landlock right, but there is no other uid to open it to, and no
        // other submission's folder is within the domain anyway.
        let harmless = |p: &&str| *p == "process" || (!root && *p == "scratch-root");
        assert!(
            planted.iter().all(harmless),
            "landlock let leftovers be made: {planted:?}"
        );
    }
    if root {
        assert!(
            !planted.contains(&"scratch-root"),
            "a submission opened its worker's scratch root to other uids"
        );
    }
    assert_eq!(
        outcome(
            recording(&results, "b-probe"),
            "parse_contract_json/hostile"
        ),
        &CaseOutcome::Returned {
            value: json!([]).into(),
            shares_with_args: false,
            args_changed: false,
            shares_with_state: false,
            shared: None,
            changed: None,
        },
        "the next submission found what the previous one left (planted: {planted:?})"
    );
    // From outside the sandbox: the background process and its abstract
    // socket are gone (bwrap's are in the worker's own network namespace).
    if isolation != IsolationChoice::Bwrap {
        let sockets = std::fs::read_to_string("/proc/net/unix").unwrap_or_default();
        assert!(
            !sockets.contains("@agplant"),
            "a-plant's background process outlived its submission"
        );
    }
    for leftover in [
        "/tmp/agplant",
        "/var/tmp/agplant",
        "/dev/shm/agplant",
        "/run/lock/agplant",
    ] {
        let host = std::path::Path::new(leftover);
        // Under bwrap these are the sandbox's own; the host's are untouched.
        if isolation != IsolationChoice::Bwrap {
            assert!(!host.exists(), "{leftover} outlived the recording");
        }
    }
}

#[test]
fn nothing_left_for_the_next_submission_under_every_tier() {
    for tier in TIERS {
        if tier_or_skip(tier, "nothing_left_for_the_next_submission") {
            check_leftovers(tier);
        }
    }
}

/// This process's peak resident memory, in bytes.
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

/// Attacks on the harness from inside the child. 40 MiB of control
/// characters in the result channel is refused by the supervisor (only the case it was written in crashes); it never reaches
/// Rust escaped sixfold (and, at import, copied into every case).
fn check_harness_attacks(isolation: IsolationChoice) {
    let landlock = isolation == IsolationChoice::Landlock;
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let corpus = corpus();
    let subs = submissions(&[
        "channel-flood-case",
        "channel-flood-import",
        "never-exits",
        "trace-harness",
        "neighbours",
    ]);
    let work = tempfile::tempdir().unwrap();
    let before = peak_rss();
    let results = record(&corpus, &subs, &options(work.path(), 2, 5), isolation);
    let grown = peak_rss().saturating_sub(before);
    let crashed = CaseOutcome::Crashed {
        exit_code: None,
        signal: None,
    };
    let import = recording(&results, "channel-flood-import");
    for (case, o) in &import.outcomes {
        assert_eq!(o, &crashed, "{case}");
    }
    let case = recording(&results, "channel-flood-case");
    assert_eq!(outcome(case, "parse_contract_json/before"), &echo("before"));
    assert_eq!(outcome(case, "parse_contract_json/hostile"), &crashed);
    assert_eq!(outcome(case, "parse_contract_json/after"), &echo("after"));
    // A child that does not exit after its last case is killed, not waited for.
    let never = recording(&results, "never-exits");
    assert_eq!(outcome(never, "parse_contract_json/hostile"), &echo("boom"));
    assert_eq!(outcome(never, "parse_contract_json/after"), &echo("after"));
    // As root, student code runs as its own uid; under landlock, in its own
    // domain with ptrace refused and signals scoped: either way it cannot
    // ptrace, open the memory or stdin of, or signal its supervisor or the
    // zygote.
    if landlock || supervisor_scoped_everywhere() {
        assert_eq!(
            outcome(
                recording(&results, "trace-harness"),
                "parse_contract_json/hostile"
            ),
            &CaseOutcome::Returned {
                value: json!([]).into(),
                shares_with_args: false,
                args_changed: false,
                shares_with_state: false,
                shared: None,
                changed: None,
            }
        );
    }
    // Whatever the tier and uid, no other process is the child's to
    // signal, re-limit, renice, re-pin or hand SIGIO to (its own seccomp
    // filter, or its own uid); the same calls on itself work.
    assert_eq!(
        outcome(
            recording(&results, "neighbours"),
            "parse_contract_json/hostile"
        ),
        &CaseOutcome::Returned {
            value: json!({
                "others": [],
                "own": ["signal", "limits", "priority", "affinity", "group signal"]
            })
            .into(),
            shares_with_args: false,
            args_changed: false,
            shares_with_state: false,
            shared: None,
            changed: None,
        },
        "under {isolation:?}"
    );
    assert!(
        grown < 200 << 20,
        "recording the floods took {} MiB more memory",
        grown >> 20
    );
}

#[test]
fn attacks_on_the_harness_under_every_tier() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Heavy) {
        return;
    }
    // It reads this process's peak memory: no other test may share it.
    if crate::util::process::ran_alone(module_path!(), "attacks_on_the_harness_under_every_tier") {
        return;
    }
    for tier in TIERS {
        if tier_or_skip(tier, "attacks_on_the_harness") {
            check_harness_attacks(tier);
        }
    }
}

/// A child that stops reading its hidden inputs (a student's thread holding
/// the interpreter lock while the harness reads them, with more to read than
/// a pipe holds) costs its case a timeout, not the worker: the supervisor
/// writes them without blocking, and a fresh child runs the rest.
fn check_stalled_hidden_read(isolation: IsolationChoice) {
    use autograder::corpus::Visibility;
    use autograder::value::PyValue;
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut cases = vec![case(
        "parse_contract_json",
        "before",
        vec![PyValue::str("before")],
    )];
    for (name, text) in [("big", "x".repeat(3 << 20)), ("after", "after".into())] {
        let mut hidden = case("parse_contract_json", name, vec![PyValue::str(&text)]);
        hidden.visibility = Visibility::Hidden;
        cases.push(hidden);
    }
    let corpus = record_support::corpus(cases);
    let subs = submissions(&["stall-hidden"]);
    let work = tempfile::tempdir().unwrap();
    let results = record(&corpus, &subs, &options(work.path(), 1, 1), isolation);
    let rec = recording(&results, "stall-hidden");
    assert_eq!(outcome(rec, "parse_contract_json/before"), &echo("before"));
    // The attack held: the child never got past reading its hidden inputs.
    assert!(
        matches!(
            outcome(rec, "parse_contract_json/big"),
            CaseOutcome::Timeout { .. }
        ),
        "{:?}",
        outcome(rec, "parse_contract_json/big")
    );
    assert_eq!(outcome(rec, "parse_contract_json/after"), &echo("after"));
}

#[test]
fn a_child_that_stops_reading_its_hidden_inputs_times_out_under_every_tier() {
    for tier in TIERS {
        if tier_or_skip(tier, "a_child_that_stops_reading_its_hidden_inputs") {
            check_stalled_hidden_read(tier);
        }
    }
}

/// A run that was killed leaves its student processes and files behind
/// under the worker uid; a later run leasing that uid kills and removes them
/// before its first submission, under rlimits and landlock alike (landlock
/// skips that reap only when the uid's last worker ended with nothing of it
/// left, which a killed run never says).
#[test]
fn a_killed_runs_leftovers_are_gone_before_the_first_submission() {
    for tier in [IsolationChoice::Rlimits, IsolationChoice::Landlock] {
        if tier_or_skip(
            tier,
            "a_killed_runs_leftovers_are_gone_before_the_first_submission",
        ) {
            check_killed_runs_leftovers(tier);
        }
    }
}

fn check_killed_runs_leftovers(tier: IsolationChoice) {
    use std::os::unix::process::CommandExt;
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let lease = match autograder::runner::sandbox::lease_uid() {
        Ok(Some(lease)) => lease,
        _ => {
            say!("skipping: without root workers have no uid of their own");
            return;
        }
    };
    let uid = lease.uid;
    // What a killed run left: a process and a file of the uid. (Leased and
    // dropped with no worker ended on it: any mark of a clean end is gone.)
    let mut stale = std::process::Command::new("/bin/sleep")
        .arg("1000")
        .uid(uid)
        .gid(uid)
        .spawn()
        .expect("sleep starts");
    let file = PathBuf::from(format!("/tmp/agstale-{uid}"));
    std::fs::write(&file, "stale").unwrap();
    std::os::unix::fs::chown(&file, Some(uid), Some(uid)).unwrap();
    drop(lease);
    let corpus = corpus();
    let subs = submissions(&["whoami"]);
    let work = tempfile::tempdir().unwrap();
    let results = record(&corpus, &subs, &options(work.path(), 1, 5), tier);
    let seen = match outcome(recording(&results, "whoami"), "parse_contract_json/hostile") {
        CaseOutcome::Returned { value, .. } => value.to_json().unwrap(),
        other => panic!("{other:?}"),
    };
    if seen["uid"] != json!(uid) {
        // Another run on this machine took the uid between our lease and the worker's.
        let _ = stale.kill();
        let _ = stale.wait();
        let _ = std::fs::remove_file(&file);
        say!(
            "skipping: the worker got uid {} instead of {uid}",
            seen["uid"]
        );
        return;
    }
    // (Landlock keeps the submission from listing /proc.)
    let others = match tier {
        IsolationChoice::Landlock => json!(null),
        _ => json!(0),
    };
    assert_eq!(
        seen,
        json!({"uid": uid, "others": others, "stale_file": false}),
        "under {tier:?}"
    );
    // Killed before the worker answered ready; collect it (bounded wait).
    let mut status = None;
    for _ in 0..500 {
        status = stale.try_wait().unwrap();
        if status.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    if status.is_none() {
        let _ = stale.kill();
        let _ = stale.wait();
    }
    assert!(
        status.is_some(),
        "the stale process outlived the next run under {tier:?}"
    );
    assert!(
        !file.exists(),
        "the stale file outlived the next run under {tier:?}"
    );
    // That run's worker ended with nothing of the uid left, and said so for
    // the uid's next one; never under rlimits, whose processes may leave
    // the zygote's tree.
    assert_eq!(
        autograder::runner::sandbox::marked_clean(uid),
        tier == IsolationChoice::Landlock,
        "the mark of a clean end under {tier:?}"
    );
}
