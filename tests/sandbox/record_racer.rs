//! Issue 12's racer: a submission leaves a native daemon (setsid + double
//! fork, two processes) that SIGKILLs, or SIGSTOPs, the newest pids as fast
//! as it can. Recorded first on a single worker, followed by three normal
//! submissions, 20 times per tier (10 with SIGSTOP): the neighbours' outcomes
//! never change, no worker is held past its budget (a stopped supervisor
//! would stall the run: the run must end normally), and nothing of the
//! racer outlives its submission.

use crate::util::record as record_support;

use autograder::recording::format::CaseOutcome;
use autograder::submission::discover;
use record_support::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The racer, compiled with the machine's C compiler.
fn racer_binary(dir: &Path) -> Vec<u8> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/racer/racer.c");
    let out = dir.join("racer");
    let status = Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&out)
        .arg(&source)
        .status()
        .expect("a C compiler (cc) to build the racer");
    assert!(status.success(), "cc could not build {}", source.display());
    std::fs::read(&out).unwrap()
}

/// `a-racer` (sending `signal`: `K` or `S`) and three echo neighbours.
fn submissions(root: &Path, racer: &[u8], signal: &str) -> PathBuf {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let template = std::fs::read_to_string(fixtures.join("racer/main.py.in")).unwrap();
    let main = template
        .replace("@RACER@", &hex::encode(racer))
        .replace("@SIGNAL@", signal);
    let subs = root.join(format!("subs-{signal}"));
    std::fs::create_dir_all(subs.join("a-racer")).unwrap();
    std::fs::write(subs.join("a-racer/main.py"), main).unwrap();
    let echo = std::fs::read_to_string(fixtures.join("hostile/echo/main.py")).unwrap();
    for n in ["b-echo", "c-echo", "d-echo"] {
        std::fs::create_dir_all(subs.join(n)).unwrap();
        std::fs::write(subs.join(n).join("main.py"), format!("# {n}\n{echo}")).unwrap();
    }
    subs
}

/// Processes whose command name is `racer` (the native daemon).
fn racers() -> usize {
    std::fs::read_dir("/proc")
        .map(|d| {
            d.flatten()
                .filter(|e| {
                    std::fs::read_to_string(e.path().join("comm"))
                        .is_ok_and(|c| c.trim() == "racer")
                })
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn a_racing_daemon_never_touches_the_next_submissions() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Heavy) {
        return;
    }
    // Runs with or without a uid of the worker's own: the racer only
    // signals, and every tier's seccomp filter keeps a child's signals to
    // itself (were it missing, the racer would fail this test, not skip it).
    let tmp = tempfile::tempdir().unwrap();
    let racer = racer_binary(tmp.path());
    let other_main = fixtures().join("echo/main.py");
    let corpus = hostile_corpus(&other_main, &fixtures().join(".corpus/course.toml"));
    for tier in TIERS {
        if !tier_or_skip(tier, "a_racing_daemon_never_touches_the_next_submissions") {
            continue;
        }
        for (signal, runs) in [("K", 20), ("S", 10)] {
            let subs = discover(&submissions(tmp.path(), &racer, signal)).unwrap();
            for run in 0..runs {
                let work = tempfile::tempdir().unwrap();
                // One worker: the neighbours run right after the racer, as
                // the same worker (uid).
                let results = record(&corpus, &subs, &options(work.path(), 1, 2), tier);
                for id in ["b-echo", "c-echo", "d-echo"] {
                    let rec = recording(&results, id);
                    for (case, input) in [
                        ("parse_contract_json/before", "before"),
                        ("parse_contract_json/hostile", "boom"),
                        ("parse_contract_json/after", "after"),
                    ] {
                        assert_eq!(
                            outcome(rec, case),
                            &echo(input),
                            "{tier:?}, SIG{signal} run {run}: {id} was touched"
                        );
                    }
                    assert!(
                        !rec.outcomes.values().any(|o| matches!(
                            o,
                            CaseOutcome::Crashed { .. } | CaseOutcome::Timeout { .. }
                        )),
                        "{tier:?}, SIG{signal} run {run}: {id} crashed or timed out"
                    );
                }
                assert_eq!(
                    racers(),
                    0,
                    "{tier:?}, SIG{signal} run {run}: the racer outlived its submission"
                );
            }
            say!("racer under {tier:?}: SIG{signal} x{runs}, no neighbour touched");
        }
    }
}
