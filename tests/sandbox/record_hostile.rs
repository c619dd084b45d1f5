//! Hostile submissions end with the right per-case outcome while their other
//! cases, and every other submission, record normally. Run under both
//! isolation modes.

use crate::util::record as record_support;

use autograder::recording::format::{ArgChange, CaseOutcome, MemoryLimit, MemoryScope};
use autograder::runner::IsolationChoice;
use autograder::value::PyValue;
use record_support::*;
use serde_json::json;
use std::path::Path;

const TIMEOUT_SECS: u64 = 2;

fn processes_named(name: &str) -> Vec<String> {
    let mut found = Vec::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for entry in dir.flatten() {
            if let Ok(comm) = std::fs::read_to_string(entry.path().join("comm")) {
                if comm.trim() == name {
                    found.push(entry.file_name().to_string_lossy().into_owned());
                }
            }
        }
    }
    found
}

fn check_hostile(isolation: IsolationChoice) {
    let _serial = crate::util::machine::exclusive();
    let bwrap = isolation == IsolationChoice::Bwrap;
    let landlock = isolation == IsolationChoice::Landlock;
    let root = autograder::runner::sandbox::is_root();
    let other_main = fixtures().join("echo/main.py");
    let corpus_file = fixtures().join(".corpus/course.toml");
    let corpus = hostile_corpus(&other_main, &corpus_file);
    let subs = hostile_submissions();
    assert_eq!(subs.len(), 25, "every fixture is discovered");
    let work = tempfile::tempdir().unwrap();
    // Where the submissions share the grader's uid (no root) outside bwrap,
    // concurrent workers share one process count, and the fork bomb would
    // leave fill-disk no room to fork: documented; one worker here.
    let jobs = if root || bwrap { 2 } else { 1 };
    let results = record(
        &corpus,
        &subs,
        &options(work.path(), jobs, TIMEOUT_SECS),
        isolation,
    );
    assert_eq!(results.len(), subs.len());
    let iso = tier_name(isolation);

    // Every fixture but the syntax error answers the normal cases normally.
    for r in &results {
        let rec = recording(&results, &r.id);
        assert_eq!(rec.isolation, iso);
        assert_eq!(rec.outcomes.len(), corpus.cases.len(), "{}", r.id);
        if r.id == "syntax-error" || r.id == "import-loop" {
            continue;
        }
        assert_eq!(
            outcome(rec, "parse_contract_json/before"),
            &echo("before"),
            "{}",
            r.id
        );
        assert_eq!(
            outcome(rec, "parse_contract_json/after"),
            &echo("after"),
            "{}",
            r.id
        );
        if r.id != "echo" && r.id != "aliasing" {
            assert_eq!(
                outcome(rec, "validate_tool_call/echo"),
                &CaseOutcome::Missing,
                "{}",
                r.id
            );
        }
        if r.id != "read-files" {
            assert_eq!(
                outcome(rec, "read_file/corpus"),
                &CaseOutcome::Missing,
                "{}",
                r.id
            );
        }
        // The recording file is where the work dir says.
        assert!(autograder::recording::recording_path(work.path(), &r.id).is_file());
    }
    let hostile =
        |id: &str| outcome(recording(&results, id), "parse_contract_json/hostile").clone();

    assert_eq!(hostile("echo"), echo("boom"));
    let echo_rec = recording(&results, "echo");
    assert_eq!(
        outcome(echo_rec, "validate_tool_call/echo"),
        &CaseOutcome::Returned {
            value: json!({"id": "c1", "n": 2}).into(),
            shares_with_args: false,
            args_changed: false,
            shares_with_state: false,
            shared: None,
            changed: None,
        }
    );
    let timeout = CaseOutcome::Timeout {
        seconds: TIMEOUT_SECS as f64,
        submission_budget: None,
    };
    assert_eq!(hostile("infinite-loop"), timeout);
    assert_eq!(
        hostile("os-exit"),
        CaseOutcome::Crashed {
            exit_code: Some(3),
            signal: None
        }
    );
    for id in ["sys-exit", "raise-systemexit"] {
        let o = hostile(id);
        let (class, mro) = raised(&o);
        assert_eq!(class, "SystemExit", "{id}");
        assert_eq!(mro, ["SystemExit", "BaseException", "object"], "{id}");
    }
    match hostile("raise-systemexit") {
        CaseOutcome::Raised { message, .. } => assert_eq!(message, "leaving"),
        other => panic!("{other:?}"),
    }
    let o = hostile("keyboard-interrupt");
    assert_eq!(
        raised(&o).1,
        ["KeyboardInterrupt", "BaseException", "object"]
    );
    // MemoryError: the per-process limit, the default 1 GiB.
    assert_eq!(
        hostile("memory-bomb"),
        CaseOutcome::OutOfMemory {
            limit: Some(MemoryLimit {
                bytes: 1 << 30,
                of: MemoryScope::Process,
            }),
        }
    );
    // Four writers in their own sessions: stopped at the disk limit, and
    // what they wrote is gone before the next case (which runs normally,
    // checked above for every fixture).
    assert_eq!(
        hostile("fill-disk"),
        CaseOutcome::DiskLimit { bytes: 64 << 20 }
    );
    assert_eq!(hostile("fork-bomb"), timeout);
    assert_eq!(hostile("double-fork"), echo("forked"));
    assert_eq!(
        processes_named("agdoublefork"),
        Vec::<String>::new(),
        "the double-forked grandchild outlived its recording"
    );
    let printed = recording(&results, "print-100mb");
    assert_eq!(hostile("print-100mb"), echo("printed"));
    assert!(
        printed.output.starts_with("hello from before\n"),
        "{:?}",
        &printed.output[..40]
    );
    assert!(printed.output.len() < 100_000, "output is capped");
    assert!(printed.output.contains("more bytes of output cut"));
    let o = hostile("write-1gb");
    let (class, _) = raised(&o);
    assert_eq!(class, "OSError");
    if bwrap || landlock {
        let o = hostile("socket");
        assert!(raised(&o).1.contains(&"OSError".to_string()), "{o:?}");
    } else {
        assert!(matches!(
            hostile("socket"),
            CaseOutcome::Raised { .. } | CaseOutcome::Returned { .. }
        ));
    }
    let reader = recording(&results, "read-files");
    assert_eq!(hostile("read-files"), echo("boom"));
    for case in ["read_file/other-main", "read_file/corpus"] {
        let o = outcome(reader, case);
        if bwrap {
            let (class, mro) = raised(o);
            assert_eq!(class, "FileNotFoundError", "{case}");
            assert!(mro.contains(&"OSError".to_string()));
        } else if landlock {
            let (class, _) = raised(o);
            assert_eq!(class, "PermissionError", "{case}");
        } else {
            // rlimits does not hide world-readable files: documented.
            assert!(matches!(
                o,
                CaseOutcome::Returned { .. } | CaseOutcome::Raised { .. }
            ));
        }
    }
    assert_eq!(hostile("monkeypatch"), echo("boom"));
    assert_eq!(
        hostile("self-reference"),
        CaseOutcome::Returned {
            value: json!([1, {"$opaque": {"type": "list", "repr": "<cycle>"}}]).into(),
            shares_with_args: false,
            args_changed: false,
            shares_with_state: false,
            shared: None,
            changed: None,
        }
    );
    assert_eq!(hostile("huge-list"), CaseOutcome::OutputTooLarge);
    match hostile("eq-always-true") {
        CaseOutcome::Returned { value, .. } => {
            assert_eq!(
                value.to_json().unwrap()["$opaque"]["type"],
                json!("Anything")
            )
        }
        other => panic!("{other:?}"),
    }
    let broken = recording(&results, "syntax-error");
    for (case, o) in &broken.outcomes {
        match o {
            CaseOutcome::ImportError { exc_type, line, .. } => {
                assert_eq!(exc_type, "SyntaxError", "{case}");
                assert_eq!(*line, Some(5), "{case}");
            }
            other => panic!("{case}: {other:?}"),
        }
    }
    assert_eq!(
        outcome(
            recording(&results, "missing-functions"),
            "validate_tool_call/echo"
        ),
        &CaseOutcome::Missing
    );
    // Garbage in the result channel fails that case only, as a crash, and
    // the supervisor flags it for the instructor (a runtime finding, with
    // where it happened); a submission that leaves the channel alone has none.
    assert_eq!(
        hostile("garbage-channel"),
        CaseOutcome::Crashed {
            exit_code: None,
            signal: None
        }
    );
    let runtime = |id: &str| -> Vec<String> {
        recording(&results, id)
            .integrity
            .iter()
            .filter(|f| f.source == autograder::integrity::Source::Runtime)
            .map(|f| format!("{}: {}", f.kind, f.what))
            .collect()
    };
    assert_eq!(
        runtime("garbage-channel"),
        ["result-channel: a line the harness did not write on the result channel (during case 2 of 6)"]
    );
    assert_eq!(runtime("echo"), Vec::<String>::new());
    assert_eq!(
        outcome(recording(&results, "aliasing"), "validate_tool_call/echo"),
        &CaseOutcome::Returned {
            value: json!({"args": [1, 2]}).into(),
            shares_with_args: true,
            args_changed: true,
            shares_with_state: false,
            // Where, in the result and in the arguments.
            shared: Some("got['args'] is args[0]['args']".into()),
            // Where the argument changed, and how.
            changed: Some(ArgChange {
                path: "args[0]['id']".into(),
                before: Some(json!("c1").into()),
                after: Some(json!("changed").into()),
            }),
        }
    );
    // Every tier's seccomp filter (and, as root, its own uid) keeps it from
    // signalling the supervisor, whatever the Landlock ABI.
    let o = hostile("kill-parent");
    assert_eq!(raised(&o).0, "PermissionError", "{o:?}");
    assert_eq!(hostile("no-new-privs"), echo("1"));
    // An import that never ends times every case out, once.
    let looping = recording(&results, "import-loop");
    for o in looping.outcomes.values() {
        assert_eq!(o, &timeout);
    }
}

#[test]
fn hostile_fixtures_under_rlimits() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Heavy) {
        return;
    }
    if tier_or_skip(IsolationChoice::Rlimits, "hostile_fixtures") {
        check_hostile(IsolationChoice::Rlimits);
    }
}

#[test]
fn hostile_fixtures_under_bwrap() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Heavy) {
        return;
    }
    if tier_or_skip(IsolationChoice::Bwrap, "hostile_fixtures") {
        check_hostile(IsolationChoice::Bwrap);
    }
}

#[test]
fn hostile_fixtures_under_landlock() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Heavy) {
        return;
    }
    if tier_or_skip(IsolationChoice::Landlock, "hostile_fixtures") {
        check_hostile(IsolationChoice::Landlock);
    }
}

/// How many threads the grader runs (one per core, two per worker) never
/// decides whether a student's fork succeeds. Without root the submission
/// shares the grader's uid, whose every task RLIMIT_NPROC counts: 64 more
/// threads of this process must leave the submission its own room.
#[test]
fn a_submission_may_fork_however_many_threads_the_grader_runs() {
    let _serial = crate::util::machine::exclusive();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/forker");
    let subs = autograder::submission::discover(&dir).expect("the forker fixture is readable");
    let corpus = corpus(vec![case(
        "parse_contract_json",
        "fork",
        vec![PyValue::str("boom")],
    )]);
    for tier in TIERS {
        if !tier_or_skip(
            tier,
            "a_submission_may_fork_however_many_threads_the_grader_runs",
        ) {
            continue;
        }
        let work = tempfile::tempdir().unwrap();
        let parked = std::sync::Barrier::new(65);
        let results = std::thread::scope(|s| {
            for _ in 0..64 {
                s.spawn(|| parked.wait());
            }
            let results = record(&corpus, &subs, &options(work.path(), 2, TIMEOUT_SECS), tier);
            parked.wait();
            results
        });
        assert_eq!(
            outcome(recording(&results, "forker"), "parse_contract_json/fork"),
            &CaseOutcome::Returned {
                value: json!({"forked": 6}).into(),
                shares_with_args: false,
                args_changed: false,
                shares_with_state: false,
                shared: None,
                changed: None,
            },
            "under {tier:?}"
        );
    }
}

/// A worker's last job is answered without the file cleanup that comes
/// between jobs where the worker's own end covers it (bwrap, landlock as
/// root): what the submission left running still dies with the worker,
/// before the recording returns, under every tier.
#[test]
fn a_last_jobs_leftover_processes_die_with_its_worker_under_every_tier() {
    let _serial = crate::util::machine::exclusive();
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("double-fork");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::copy(fixtures().join("double-fork/main.py"), sub.join("main.py")).unwrap();
    let subs = autograder::submission::discover(dir.path()).expect("the submission is readable");
    let corpus = corpus(vec![case(
        "parse_contract_json",
        "boom",
        vec![PyValue::str("boom")],
    )]);
    for tier in TIERS {
        if !tier_or_skip(tier, "a_last_jobs_leftover_processes_die_with_its_worker") {
            continue;
        }
        let work = tempfile::tempdir().unwrap();
        let results = record(&corpus, &subs, &options(work.path(), 1, TIMEOUT_SECS), tier);
        assert_eq!(
            outcome(
                recording(&results, "double-fork"),
                "parse_contract_json/boom"
            ),
            &echo("forked"),
            "{tier:?}"
        );
        assert_eq!(
            processes_named("agdoublefork"),
            Vec::<String>::new(),
            "{tier:?}: the last job's grandchild outlived its worker"
        );
    }
}

/// What the last call prints and leaves in the child's buffer is in the
/// recording: the child flushes its output before it says it is done, and
/// the supervisor answers on that word, without waiting for its exit.
#[test]
fn output_still_buffered_after_the_last_call_is_recorded() {
    let _serial = crate::util::machine::exclusive();
    let tmp = tempfile::tempdir().unwrap();
    let sub = tmp.path().join("subs/late-printer");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(
        sub.join("main.py"),
        "import sys\n\
         def parse_contract_json(text):\n    \
             print('said last', end='')\n    \
             sys.stderr.write('and on stderr')\n    \
             return {'ok': True}\n",
    )
    .unwrap();
    let subs = autograder::submission::discover(&tmp.path().join("subs")).unwrap();
    let corpus = corpus(vec![case(
        "parse_contract_json",
        "last",
        vec![PyValue::str("x")],
    )]);
    for tier in TIERS {
        if !tier_or_skip(
            tier,
            "output_still_buffered_after_the_last_call_is_recorded",
        ) {
            continue;
        }
        let work = tempfile::tempdir().unwrap();
        let results = record(&corpus, &subs, &options(work.path(), 1, TIMEOUT_SECS), tier);
        let rec = recording(&results, "late-printer");
        assert!(
            rec.output.contains("said last") && rec.output.contains("and on stderr"),
            "under {tier:?}: {:?}",
            rec.output
        );
    }
}
