//! Shared helpers of the recorder's integration tests: a small hand-built
//! corpus and the hostile fixtures.
#![allow(dead_code)]

use autograder::corpus::{Case, Checkpoint, Corpus, Lesson, Visibility};
use autograder::recording::format::{CaseOutcome, Recording};
use autograder::runner::{
    IsolationChoice, Python, RecordOptions, Request, SubmissionRecording, Tuning,
};
use autograder::submission::{discover, Submission};
use autograder::value::{PyDict, PyValue};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile")
}

pub fn case(checkpoint: &str, name: &str, args: Vec<PyValue>) -> Case {
    Case {
        id: format!("{checkpoint}/{name}"),
        name: name.to_string(),
        lesson: "test".to_string(),
        checkpoint: checkpoint.to_string(),
        call: format!("{checkpoint}(...)"),
        args,
        kwargs: Vec::new(),
        lets: Vec::new(),
        tags: vec!["valid".to_string()],
        visibility: Visibility::Visible,
        weight: 1,
        expect: None,
        note: None,
        file: PathBuf::from("test.toml"),
        line: 1,
    }
}

pub fn corpus(cases: Vec<Case>) -> Corpus {
    let mut checkpoints: Vec<Checkpoint> = Vec::new();
    for c in &cases {
        if !checkpoints.iter().any(|k| k.id == c.checkpoint) {
            checkpoints.push(Checkpoint {
                id: c.checkpoint.clone(),
                lesson: "test".into(),
                title: c.checkpoint.clone(),
                points: 1.0,
                criteria: Vec::new(),
            });
        }
    }
    let fingerprint = format!("test-{}", cases.len());
    Corpus {
        root: PathBuf::from("cases"),
        lessons: vec![Lesson {
            id: "test".into(),
            title: "test".into(),
            checkpoints,
        }],
        cases,
        fingerprint,
        settings: Default::default(),
        selection: None,
        scoring: Default::default(),
    }
}

/// The corpus every hostile fixture answers: a normal case, the hostile one
/// (input "boom"), another normal one, a second function, and two file reads
/// whose paths are given.
pub fn hostile_corpus(other_main: &Path, corpus_file: &Path) -> Corpus {
    let mut call = PyDict::new();
    call.insert(PyValue::str("id"), PyValue::str("c1"));
    call.insert(
        PyValue::str("args"),
        PyValue::List(vec![PyValue::int(1), PyValue::int(2)]),
    );
    corpus(vec![
        case(
            "parse_contract_json",
            "before",
            vec![PyValue::str("before")],
        ),
        case("parse_contract_json", "hostile", vec![PyValue::str("boom")]),
        case("parse_contract_json", "after", vec![PyValue::str("after")]),
        case("validate_tool_call", "echo", vec![PyValue::Dict(call)]),
        case(
            "read_file",
            "other-main",
            vec![PyValue::str(&other_main.to_string_lossy())],
        ),
        case(
            "read_file",
            "corpus",
            vec![PyValue::str(&corpus_file.to_string_lossy())],
        ),
    ])
}

pub fn options(work_dir: &Path, jobs: usize, timeout_secs: u64) -> RecordOptions {
    RecordOptions {
        jobs,
        case_timeout: Duration::from_secs(timeout_secs),
        work_dir: work_dir.to_path_buf(),
        use_cache: false,
        show_progress: false,
    }
}

pub fn tuning(isolation: IsolationChoice) -> Tuning {
    Tuning {
        isolation: Ok(isolation),
        ..Tuning::default()
    }
}

/// Every sandbox tier, strongest first: sandbox tests run under each.
pub const TIERS: [IsolationChoice; 3] = [
    IsolationChoice::Bwrap,
    IsolationChoice::Landlock,
    IsolationChoice::Rlimits,
];

/// `AUTOGRADER_REQUIRE_SANDBOX=1` (set by `.ci/run`): a sandbox test whose
/// tier cannot run here fails instead of skipping.
pub fn sandbox_required() -> bool {
    std::env::var("AUTOGRADER_REQUIRE_SANDBOX").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Whether `tier` works on this machine. When it does not, the test is
/// skipped with the reason printed, or fails under `AUTOGRADER_REQUIRE_SANDBOX`.
pub fn tier_or_skip(tier: IsolationChoice, test: &str) -> bool {
    let works = match Python::find(None) {
        Ok(python) => tier.resolve(&python).map(|_| ()).map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    match works {
        Ok(()) => true,
        Err(e) if sandbox_required() => panic!(
            "{test}: the {tier:?} tier cannot run here ({e}), and AUTOGRADER_REQUIRE_SANDBOX is set"
        ),
        Err(e) => {
            // Shown even when the test passes (libtest captures eprintln!).
            let _ = writeln!(std::io::stderr(), "skipping {test} under {tier:?}: {e}");
            false
        }
    }
}

/// A check that needs root (a uid of the worker's own): `false` with the
/// reason printed when not root. Not a skip of something that could run:
/// without root the guarantee does not exist (documented), and CI's root
/// pass runs it.
pub fn root_or_say(test: &str) -> bool {
    let root = autograder::runner::sandbox::is_root();
    if !root {
        let _ = writeln!(
            std::io::stderr(),
            "{test}: not applicable without root (workers get no uid of their own); CI's root pass runs it"
        );
    }
    root
}

/// The tier's name as recordings store it.
pub fn tier_name(tier: IsolationChoice) -> &'static str {
    match tier {
        IsolationChoice::Bwrap => "bwrap",
        IsolationChoice::Landlock => "landlock",
        IsolationChoice::Rlimits => "rlimits",
        IsolationChoice::Auto => "auto",
    }
}

pub fn record(
    corpus: &Corpus,
    subs: &[Submission],
    opts: &RecordOptions,
    isolation: IsolationChoice,
) -> Vec<SubmissionRecording> {
    let _machine = super::machine::shared();
    Request::new(corpus, subs, opts)
        .tuning(&tuning(isolation))
        .recordings()
        .unwrap_or_else(|e| panic!("the grader could not record under {isolation:?}: {e}"))
}

pub fn hostile_submissions() -> Vec<Submission> {
    discover(&fixtures()).expect("the fixtures folder is readable")
}

pub fn recording<'a>(results: &'a [SubmissionRecording], id: &str) -> &'a Recording {
    let r = results
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("no result for {id}"));
    match &r.result {
        Ok(rec) => rec,
        Err(e) => panic!("{id} was not recorded: {e}"),
    }
}

pub fn outcome<'a>(rec: &'a Recording, case: &str) -> &'a CaseOutcome {
    rec.outcomes
        .get(case)
        .unwrap_or_else(|| panic!("{}: no outcome for {case}", rec.submission))
}

pub fn echo(text: &str) -> CaseOutcome {
    CaseOutcome::Returned {
        value: serde_json::json!({ "echo": text }).into(),
        shares_with_args: false,
        args_changed: false,
        shares_with_state: false,
        shared: None,
        changed: None,
    }
}

/// The class and MRO of a raised outcome, or a panic saying what it was.
pub fn raised(o: &CaseOutcome) -> (&str, &[String]) {
    match o {
        CaseOutcome::Raised { class, mro, .. } => (class, mro),
        other => panic!("expected raised, got {other:?}"),
    }
}

/// Whether a child without a uid of its own is still kept from signalling
/// and tracing its supervisor in every tier: the harness's seccomp filter
/// keeps signals off other processes on every kernel, and its scope-only
/// Landlock domain refuses ptrace out of it on every Landlock ABI.
pub fn supervisor_scoped_everywhere() -> bool {
    autograder::runner::sandbox::is_root() || autograder::runner::sandbox::landlock_abi().is_ok()
}
