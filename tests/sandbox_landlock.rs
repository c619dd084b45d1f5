//! What the landlock tier promises, tried from student code (as root, and in
//! CI's unprivileged pass as a plain user, where there is no uid of its own
//! to lean on): it cannot read the corpus, another submission, the user's
//! home or the grader's binary; cannot write outside its own folder; cannot
//! connect to or bind on 127.0.0.1 (nor open any network socket); cannot
//! signal or ptrace its supervisor. The same probe under bwrap checks what
//! bwrap promises in turn.

#[macro_use]
mod common;

mod record_support;

use autograder::record::format::CaseOutcome;
use autograder::record::{discover, IsolationChoice};
use autograder::value::PyValue;
use record_support::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn tiers_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tiers")
}

/// What the probe managed to do under `tier`; the host paths it tried to
/// write are returned too, to check from outside.
fn probe(tier: IsolationChoice) -> (Vec<String>, Vec<PathBuf>) {
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    let tag = format!("agprobe-{}-{tier:?}", std::process::id());
    let writes: Vec<PathBuf> = vec![
        PathBuf::from(format!("/tmp/{tag}")),
        Path::new(&home).join(&tag),
        tiers_fixtures().join(&tag),
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("cases")
            .join(&tag),
    ];
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a local port");
    let port = listener.local_addr().unwrap().port();
    let corpus_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/course.toml");
    let mut home_file = Path::new(&home).join(".profile");
    if !home_file.is_file() {
        home_file = Path::new(&home).join(format!("{tag}.home"));
        std::fs::write(&home_file, "home").expect("a file in the home folder");
    }
    let spec = json!({
        "read": {
            "corpus": corpus_file,
            "another submission": tiers_fixtures().join("other/main.py"),
            "home": home_file,
            "grader": env!("CARGO_BIN_EXE_autograder"),
        },
        "write": writes,
        "port": port,
    });
    let corpus = corpus(vec![case(
        "parse_contract_json",
        "probe",
        vec![PyValue::str(&spec.to_string())],
    )]);
    let subs = discover(&tiers_fixtures()).expect("the fixtures are readable");
    let work = tempfile::tempdir().unwrap();
    let results = record(&corpus, &subs, &options(work.path(), 2, 5), tier);
    let _ = std::fs::remove_file(Path::new(&home).join(format!("{tag}.home")));
    let rec = recording(&results, "probe");
    assert_eq!(rec.isolation, tier_name(tier));
    let worked = match outcome(rec, "parse_contract_json/probe") {
        CaseOutcome::Returned { value, .. } => value.to_json().unwrap(),
        other => panic!("{tier:?}: the probe did not return: {other:?}"),
    };
    let worked: Vec<String> = serde_json::from_value::<Vec<Value>>(worked)
        .unwrap()
        .into_iter()
        .map(|v| v.as_str().unwrap_or("?").to_string())
        .collect();
    drop(listener);
    (worked, writes)
}

#[test]
fn landlock_keeps_student_code_in_its_folder_off_the_network_and_away_from_its_supervisor() {
    if !tier_or_skip(IsolationChoice::Landlock, "landlock_probe") {
        return;
    }
    let (worked, writes) = probe(IsolationChoice::Landlock);
    say!(
        "landlock probe as uid {}: {worked:?}",
        // SAFETY: getuid has no preconditions.
        unsafe { libc::getuid() }
    );
    assert_eq!(worked, Vec::<String>::new(), "landlock let these through");
    for path in &writes {
        assert!(!path.exists(), "{} was written", path.display());
    }
}

#[test]
fn bwrap_hides_the_host_and_its_network() {
    if !tier_or_skip(IsolationChoice::Bwrap, "bwrap_probe") {
        return;
    }
    let (worked, writes) = probe(IsolationChoice::Bwrap);
    say!("bwrap probe: {worked:?}");
    // /tmp is bwrap's own (a tmpfs per worker), / is its own root, and its
    // network is a namespace of its own (sockets work, but reach nothing of
    // the host's: the connect fails); no signal reaches the supervisor (the
    // seccomp filter), and ptrace only without a uid of its own (not root)
    // and without Landlock.
    let allowed = |w: &str| {
        w.starts_with("write /tmp/")
            || ["list /", "tcp bind", "udp socket"].contains(&w)
            || (!supervisor_scoped_everywhere() && w == "ptrace supervisor")
    };
    let refused: Vec<&String> = worked.iter().filter(|w| !allowed(w)).collect();
    assert!(refused.is_empty(), "bwrap let these through: {refused:?}");
    for path in &writes {
        assert!(!path.exists(), "{} was written on the host", path.display());
    }
}
