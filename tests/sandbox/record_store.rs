//! Discovery, caching, shipped recordings and recording-file validation.

use crate::util::record as record_support;

use autograder::recording::format::{CaseOutcome, RECORDING_FORMAT};
use autograder::recording::{read_recording, recording_path};
use autograder::runner::IsolationChoice;
use autograder::submission::{discover, SubmissionError, SubmissionSource};
use autograder::value::PyValue;
use record_support::*;
use std::fs;
use std::path::Path;

fn small_corpus() -> autograder::corpus::Corpus {
    corpus(vec![
        case("parse_contract_json", "a", vec![PyValue::str("a")]),
        case("parse_contract_json", "b", vec![PyValue::str("b")]),
    ])
}

fn write(path: &std::path::Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

const ECHO: &str = "def parse_contract_json(text):\n    return {'echo': text}\n";

#[test]
fn discover_finds_nested_submissions_sorted_skips_hidden_and_reports_unusable_folders() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    write(&r.join("b/main.py"), ECHO);
    write(&r.join("a/main.py"), ECHO);
    write(&r.join("group/c/recording.json"), "{}");
    write(&r.join(".autograder/x/main.py"), ECHO);
    write(&r.join("notes/readme.txt"), "no submission here");
    std::os::unix::fs::symlink("/etc", r.join("linked")).unwrap();
    fs::create_dir_all(r.join("evil")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", r.join("evil/main.py")).unwrap();
    let subs = discover(r).unwrap();
    let ids: Vec<&str> = subs.iter().map(|s| s.id.as_str()).collect();
    // Links are never followed, but a folder that cannot be graded is listed
    // (with why) rather than silently missing from the gradebook.
    assert_eq!(ids, ["a", "b", "evil", "group/c", "linked", "notes"]);
    assert!(matches!(subs[3].source, SubmissionSource::Recording(_)));
    let why = |i: usize| match &subs[i].source {
        SubmissionSource::Unusable(why) => why.clone(),
        other => panic!("{} should be unusable, is {other:?}", subs[i].id),
    };
    assert!(why(2).ends_with("evil/main.py is a symbolic link (links are not followed)"));
    assert!(why(4).ends_with("linked is a symbolic link to a folder (links are not followed)"));
    assert!(why(5).ends_with("notes: no main.py or recording.json (it holds readme.txt)"));
    // One submission folder given directly.
    let one = discover(&r.join("a")).unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].id, "a");
    assert!(matches!(
        discover(&r.join("a/main.py")),
        Err(SubmissionError::NotAFolder(_))
    ));
}

/// The one store file under `work` (the submissions recorded there share a source).
fn store_file(work: &Path) -> std::path::PathBuf {
    let files: Vec<_> = walkdir::WalkDir::new(work.join("store"))
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files.into_iter().next().unwrap()
}

/// Replaces every stored outcome with `returned {'echo': 'MARK'}`: a reuse
/// keeps the mark, a new recording does not.
fn mark(work: &Path) {
    use autograder::recording::case_store::{outcome_text, read_store_file, write_store};
    let path = store_file(work);
    let mut store = read_store_file(&path).unwrap();
    let marked = outcome_text(&echo("MARK"));
    for (_, text) in &mut store.outcomes {
        *text = marked.clone();
    }
    write_store(&path, &store).unwrap();
}

/// One submission `s` recorded with the store on, again and again.
struct StoredSubmission {
    root: tempfile::TempDir,
    work: tempfile::TempDir,
    subs: Vec<autograder::submission::Submission>,
    opts: autograder::runner::RecordOptions,
}

impl StoredSubmission {
    fn new(source: &str) -> StoredSubmission {
        let root = tempfile::tempdir().unwrap();
        let work = tempfile::tempdir().unwrap();
        write(&root.path().join("s/main.py"), source);
        let subs = discover(root.path()).unwrap();
        let mut opts = options(work.path(), 1, 2);
        opts.use_cache = true;
        StoredSubmission {
            root,
            work,
            subs,
            opts,
        }
    }

    /// Records `corpus` (only what the store lacks).
    fn record(
        &self,
        corpus: &autograder::corpus::Corpus,
    ) -> autograder::recording::format::Recording {
        let results = record(corpus, &self.subs, &self.opts, IsolationChoice::Rlimits);
        recording(&results, "s").clone()
    }

    /// The store file (the only one: one source).
    fn store(&self) -> autograder::recording::case_store::StoreFile {
        autograder::recording::case_store::read_store_file(&store_file(self.work.path())).unwrap()
    }
}

#[test]
fn stored_outcomes_are_reused_until_source_changes_and_no_cache_redoes_them() {
    let mut one = StoredSubmission::new(ECHO);
    let corpus = small_corpus();
    let rec = one.record(&corpus);
    assert_eq!(outcome(&rec, "parse_contract_json/a"), &echo("a"));
    // The JSON recording is written too, as the interchange format.
    assert_eq!(
        read_recording(&recording_path(one.work.path(), "s"))
            .unwrap()
            .outcomes,
        rec.outcomes
    );
    mark(one.work.path());
    let again = one.record(&corpus);
    assert_eq!(outcome(&again, "parse_contract_json/a"), &echo("MARK"));
    one.opts.use_cache = false;
    let fresh = one.record(&corpus);
    assert_eq!(outcome(&fresh, "parse_contract_json/a"), &echo("a"));
    // A changed source is recorded again even with the cache on.
    mark(one.work.path());
    write(
        &one.root.path().join("s/main.py"),
        "def parse_contract_json(text):\n    return [text]\n",
    );
    one.opts.use_cache = true;
    let rec = one.record(&corpus);
    assert!(
        matches!(outcome(&rec, "parse_contract_json/b"), CaseOutcome::Returned { value, .. } if value.to_json().unwrap() == serde_json::json!(["b"]))
    );
}

#[test]
fn a_shipped_recording_is_read_not_run() {
    let root = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let shipped = serde_json::json!({
        "format": RECORDING_FORMAT,
        "submission": "browser",
        "corpus_fingerprint": "test-2",
        "harness": "pyodide-runner/1",
        "isolation": "browser",
        "outcomes": {
            "parse_contract_json/a": {"kind": "returned", "value": {"$tuple": [1]}, "shares_with_args": false, "args_changed": false},
            "parse_contract_json/b": {"kind": "timeout", "seconds": 2.0}
        }
    });
    write(
        &root.path().join("browser/recording.json"),
        &shipped.to_string(),
    );
    let subs = discover(root.path()).unwrap();
    let got = record(
        &small_corpus(),
        &subs,
        &options(work.path(), 1, 2),
        IsolationChoice::Rlimits,
    );
    let rec = recording(&got, "browser");
    assert_eq!(rec.isolation, "browser");
    assert_eq!(
        outcome(rec, "parse_contract_json/b"),
        &CaseOutcome::Timeout {
            seconds: 2.0,
            submission_budget: None
        }
    );
}

#[test]
fn read_recording_refuses_bad_files_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let check = |name: &str, text: &str, needle: &str| {
        let p = dir.path().join(name);
        fs::write(&p, text).unwrap();
        let err = read_recording(&p).expect_err(name).to_string();
        assert!(err.contains(needle), "{name}: {err}");
    };
    let base = |outcomes: &str, format: &str| {
        format!(
            r#"{{"format":"{format}","submission":"s","corpus_fingerprint":"f","harness":"h","isolation":"i","outcomes":{outcomes}}}"#
        )
    };
    check(
        "version.json",
        &base("{}", "autograder-recording/99"),
        "not supported",
    );
    check(
        "kind.json",
        &base(r#"{"a/b":{"kind":"exploded"}}"#, RECORDING_FORMAT),
        "not a valid recording",
    );
    check(
        "tagged.json",
        &base(
            r#"{"a/b":{"kind":"returned","value":{"$bogus":1},"shares_with_args":false,"args_changed":false}}"#,
            RECORDING_FORMAT,
        ),
        "a/b",
    );
    check(
        "deep.json",
        &format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)),
        "nested deeper",
    );
    check("garbage.json", "not json", "not valid JSON");
    let big = dir.path().join("big.json");
    let f = fs::File::create(&big).unwrap();
    f.set_len(81 * 1024 * 1024).unwrap();
    assert!(read_recording(&big)
        .unwrap_err()
        .to_string()
        .contains("limit"));
}

#[test]
fn the_model_solution_records_values_and_value_errors() {
    let model = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("submissions/model-solution");
    assert!(
        model.join("main.py").is_file(),
        "submissions/model-solution/main.py ships with the repository"
    );
    let work = tempfile::tempdir().unwrap();
    let corpus = corpus(vec![
        case(
            "parse_contract_json",
            "object",
            vec![PyValue::str("{\"a\": [1, 2.5, null]}")],
        ),
        case(
            "parse_contract_json",
            "nan",
            vec![PyValue::str("{\"a\": NaN}")],
        ),
        case("parse_contract_json", "not-text", vec![PyValue::int(5)]),
    ]);
    let subs = discover(&model).unwrap();
    let got = record(
        &corpus,
        &subs,
        &options(work.path(), 1, 5),
        IsolationChoice::Auto,
    );
    let rec = recording(&got, "model-solution");
    assert_eq!(
        outcome(rec, "parse_contract_json/object"),
        &CaseOutcome::Returned {
            value: serde_json::json!({"a": [1, 2.5, null]}).into(),
            shares_with_args: false,
            args_changed: false,
            shares_with_state: false,
            shared: None,
            changed: None,
        }
    );
    for case in ["parse_contract_json/nan", "parse_contract_json/not-text"] {
        let o = outcome(rec, case);
        assert!(
            raised(o).1.contains(&"ValueError".to_string()),
            "{case}: {o:?}"
        );
    }
}

#[test]
fn a_sleeping_call_times_out_on_the_wall_clock() {
    // CPU time does not advance while it sleeps: the wall cap (3x) ends it.
    let root = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    write(
        &root.path().join("sleepy/main.py"),
        "import time\ndef parse_contract_json(text):\n    if text == 'a':\n        time.sleep(600)\n    return [text]\n",
    );
    let subs = discover(root.path()).unwrap();
    let got = record(
        &small_corpus(),
        &subs,
        &options(work.path(), 1, 1),
        IsolationChoice::Rlimits,
    );
    let rec = recording(&got, "sleepy");
    assert_eq!(
        outcome(rec, "parse_contract_json/a"),
        &CaseOutcome::Timeout {
            seconds: 1.0,
            submission_budget: None
        }
    );
    assert!(matches!(
        outcome(rec, "parse_contract_json/b"),
        CaseOutcome::Returned { .. }
    ));
}

#[test]
fn files_left_in_shared_temporary_folders_are_gone_before_the_next_submission() {
    let root = tempfile::tempdir().unwrap();
    let leak = format!(
        "/tmp/autograder-leak-test-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    // Sorted ids: the writer runs first, then the reader, on the same worker.
    write(
        &root.path().join("a-writer/main.py"),
        "def parse_contract_json(path):\n    open(path, 'w').write('secret')\n    return 'wrote'\n",
    );
    write(
        &root.path().join("b-reader/main.py"),
        "def parse_contract_json(path):\n    return open(path).read()\n",
    );
    let corpus = corpus(vec![case(
        "parse_contract_json",
        "leak",
        vec![PyValue::str(&leak)],
    )]);
    let subs = discover(root.path()).unwrap();
    const TEST: &str = "files_left_in_shared_temporary_folders";
    for mode in TIERS {
        if !tier_or_skip(mode, TEST) {
            continue;
        }
        // Under bwrap and rlimits the reaper removes what the worker uid
        // wrote; under landlock nothing outside the submission's folder is
        // writable at all.
        if mode != IsolationChoice::Landlock && !root_or_say(&format!("{TEST} under {mode:?}")) {
            continue;
        }
        let work = tempfile::tempdir().unwrap();
        let got = record(&corpus, &subs, &options(work.path(), 1, 2), mode);
        let wrote = outcome(recording(&got, "a-writer"), "parse_contract_json/leak");
        if mode == IsolationChoice::Landlock {
            assert_eq!(raised(wrote).0, "PermissionError", "{mode:?}");
        } else {
            assert!(
                matches!(wrote, CaseOutcome::Returned { .. }),
                "{mode:?}: {wrote:?}"
            );
        }
        let read = outcome(recording(&got, "b-reader"), "parse_contract_json/leak");
        assert_eq!(raised(read).0, "FileNotFoundError", "{mode:?}");
        assert!(!Path::new(&leak).exists());
    }
}

/// A corpus change re-records only what it changes: the process groups (a
/// checkpoint's cases of one visibility, which run in a process of their
/// own) it adds cases to or whose calls it edits run again, whole; the
/// others are read from the store.
#[test]
fn a_corpus_change_records_only_the_groups_it_adds_to_or_edits() {
    let one = StoredSubmission::new(
        "def parse_contract_json(text):\n    print('RAN', text)\n    return {'echo': text}\n\
         validate_ticket = parse_contract_json\n",
    );
    let ran = |corpus: &autograder::corpus::Corpus| (one.record(corpus), one.store().output);
    let (_, output) = ran(&small_corpus());
    assert_eq!(output, "RAN a\nRAN b\n");

    // A case of another checkpoint: only it runs.
    let mut added = small_corpus();
    added
        .cases
        .push(case("validate_ticket", "c", vec![PyValue::str("c")]));
    let (rec, output) = ran(&added);
    assert_eq!(output, "RAN c\n");
    for x in ["a", "b"] {
        assert_eq!(outcome(&rec, &format!("parse_contract_json/{x}")), &echo(x));
    }
    assert_eq!(outcome(&rec, "validate_ticket/c"), &echo("c"));

    // Edited call: its group is re-recorded, whole (a call may depend on
    // those before it); renamed case with the same call: not.
    let mut edited = added.clone();
    edited.cases[1] = case("parse_contract_json", "b", vec![PyValue::str("b2")]);
    edited.cases[2] = case("validate_ticket", "see", vec![PyValue::str("c")]);
    let (rec, output) = ran(&edited);
    assert_eq!(output, "RAN a\nRAN b2\n");
    assert_eq!(outcome(&rec, "parse_contract_json/b"), &echo("b2"));
    assert_eq!(outcome(&rec, "validate_ticket/see"), &echo("c"));

    // A case added to a group: the group runs again, whole.
    let mut grown = edited.clone();
    grown
        .cases
        .push(case("parse_contract_json", "d", vec![PyValue::str("d")]));
    let (_, output) = ran(&grown);
    assert_eq!(output, "RAN a\nRAN b2\nRAN d\n");

    // Nothing changed: nothing runs (the last session's output stays).
    let (_, output) = ran(&grown);
    assert_eq!(output, "RAN a\nRAN b2\nRAN d\n");
}

/// A store file that does not read (truncated, overwritten) is recorded
/// again, never trusted nor fatal.
#[test]
fn a_broken_store_file_is_recorded_again() {
    let one = StoredSubmission::new(ECHO);
    let corpus = small_corpus();
    one.record(&corpus);
    let path = store_file(one.work.path());
    let bytes = fs::read(&path).unwrap();
    for broken in [
        &bytes[..bytes.len() / 2],
        b"\xff\xff\xff\xff\xff\xff\xff\xff".as_slice(),
    ] {
        fs::write(&path, broken).unwrap();
        let again = one.record(&corpus);
        assert_eq!(outcome(&again, "parse_contract_json/b"), &echo("b"));
        assert_eq!(fs::read(&path).unwrap(), bytes);
    }
}

/// Submissions with the same `main.py` are recorded once in a run: one
/// runs (its recording has what it printed), the others read its outcomes.
#[test]
fn a_source_shared_by_submissions_is_recorded_once() {
    let root = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let source =
        "def parse_contract_json(text):\n    print('RAN', text)\n    return {'echo': text}\n";
    for id in ["s1", "s2", "s3"] {
        write(&root.path().join(id).join("main.py"), source);
    }
    let subs = discover(root.path()).unwrap();
    let mut opts = options(work.path(), 2, 2);
    opts.use_cache = true;
    let results = record(&small_corpus(), &subs, &opts, IsolationChoice::Rlimits);
    let outputs: Vec<&str> = ["s1", "s2", "s3"]
        .iter()
        .map(|id| recording(&results, id).output.as_str())
        .collect();
    assert_eq!(
        outputs.iter().filter(|o| **o == "RAN a\nRAN b\n").count(),
        1,
        "{outputs:?}"
    );
    for id in ["s1", "s2", "s3"] {
        assert_eq!(
            outcome(recording(&results, id), "parse_contract_json/b"),
            &echo("b")
        );
    }
    // Without the store, each runs.
    opts.use_cache = false;
    let results = record(&small_corpus(), &subs, &opts, IsolationChoice::Rlimits);
    for id in ["s1", "s2", "s3"] {
        assert_eq!(recording(&results, id).output, "RAN a\nRAN b\n");
    }
}

/// The first session compiles `main.py` once and the store keeps the
/// result; a later session of the same source (here, for an added case)
/// imports that instead of compiling: it prints no compile-time warning.
/// The line that carries the compiled code is the harness's alone: student
/// code writing one is a line the harness did not write.
#[test]
fn compiled_code_is_stored_and_a_later_session_imports_it() {
    let one = StoredSubmission::new(
        "import os\nLITERAL = 1 is 1\n\ndef parse_contract_json(text):\n    print('RAN', text)\n    if text == 'forge':\n        os.write(3, b'K 00\\n')\n    return {'echo': text}\n\nvalidate_ticket = accept_ticket = parse_contract_json\n",
    );
    let ran = |corpus: &autograder::corpus::Corpus| (one.record(corpus), one.store());
    let (_, store) = ran(&small_corpus());
    assert!(store.output.contains("SyntaxWarning"), "{}", store.output);
    assert!(store.output.ends_with("RAN a\nRAN b\n"), "{}", store.output);
    assert!(store.pyc.len() > 100, "{}", store.pyc);
    let pyc = store.pyc.clone();

    let mut added = small_corpus();
    added
        .cases
        .push(case("validate_ticket", "c", vec![PyValue::str("c")]));
    let (rec, store) = ran(&added);
    assert_eq!(store.output, "RAN c\n");
    assert_eq!(store.pyc, pyc);
    assert_eq!(outcome(&rec, "validate_ticket/c"), &echo("c"));

    // A forged line, in a session given the compiled code and in one
    // that compiles it: the case is lost and the instructor told.
    for fresh in [false, true] {
        let mut forged = added.clone();
        forged
            .cases
            .push(case("accept_ticket", "forge", vec![PyValue::str("forge")]));
        if fresh {
            fs::remove_dir_all(one.work.path().join("store")).unwrap();
        }
        let (rec, store) = ran(&forged);
        assert_eq!(
            outcome(&rec, "accept_ticket/forge"),
            &CaseOutcome::Crashed {
                exit_code: None,
                signal: None
            },
            "fresh: {fresh}"
        );
        assert!(
            rec.integrity
                .iter()
                .any(|f| f.what.starts_with("a line the harness did not write")),
            "fresh: {fresh}: {:?}",
            rec.integrity
        );
        assert_eq!(store.pyc, pyc, "fresh: {fresh}");
        assert_eq!(outcome(&rec, "validate_ticket/c"), &echo("c"));
    }
}

/// What `main` looks like to its own code, as JSON text: the facts a
/// submission could see of how it was imported.
const IMPORT_FACTS: &str = r#"import sys, os, inspect, json

def parse_contract_json(text):
    return json.dumps({
        "file": [os.path.basename(__file__), os.path.isabs(__file__)],
        "cached": os.path.basename(__cached__ or ""),
        "spec": [__spec__.name, __spec__.origin == __file__, __spec__.has_location,
                 __spec__.parent, __spec__.submodule_search_locations],
        "loader": type(__loader__).__name__,
        "module": [__name__, __package__, sys.modules["main"].__dict__ is globals()],
        "code_file": parse_contract_json.__code__.co_filename == __file__,
        "source": inspect.getsource(parse_contract_json).splitlines()[0],
        "dunders": sorted(k for k in globals() if k.startswith("__")),
        "at_import": AT_IMPORT,
    }, sort_keys=True)

AT_IMPORT = [sys.modules["main"].__spec__._initializing, "main" in sys.modules]
"#;

/// A module that puts another object in its place in sys.modules: import
/// returns that one.
const IMPORT_REPLACED: &str = "import sys, types\nother = types.ModuleType('main')\nother.parse_contract_json = lambda text: 'replaced'\nsys.modules['main'] = other\ndef parse_contract_json(text):\n    return 'original'\n";

/// A module that imports itself before it defines what it imports.
const IMPORT_CIRCULAR: &str =
    "from main import parse_contract_json\ndef parse_contract_json(text):\n    return 1\n";

/// What CPython itself gives for `main.parse_contract_json('a')` after a
/// plain `import main` in the submission's folder: the returned text, or the
/// last line of the traceback.
fn cpython_import(dir: &Path) -> Result<String, String> {
    let python = autograder::runner::Python::find(None).expect("an interpreter");
    let out = std::process::Command::new(&python.executable)
        .args([
            "-B",
            "-c",
            "import main; print(main.parse_contract_json('a'))",
        ])
        .current_dir(dir)
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).trim_end().to_string();
    if out.status.success() {
        Ok(text(&out.stdout))
    } else {
        Err(text(&out.stderr).lines().last().unwrap_or("").to_string())
    }
}

#[test]
fn main_is_imported_as_cpython_imports_it_in_a_first_and_a_later_session() {
    let mut added = small_corpus();
    added
        .cases
        .push(case("parse_contract_json", "c", vec![PyValue::str("a")]));
    for source in [IMPORT_FACTS, IMPORT_REPLACED] {
        let one = StoredSubmission::new(source);
        let cpython = cpython_import(&one.root.path().join("s")).expect("imports");
        let returned = CaseOutcome::Returned {
            value: serde_json::Value::String(cpython.clone()).into(),
            shares_with_args: false,
            args_changed: false,
            shares_with_state: false,
            shared: None,
            changed: None,
        };
        // The first session compiles main.py; the later one (a case added)
        // is given the compiled code from the store.
        let first = one.record(&small_corpus());
        assert!(!one.store().pyc.is_empty());
        assert_eq!(
            outcome(&first, "parse_contract_json/a"),
            &returned,
            "{cpython}"
        );
        let later = one.record(&added);
        assert_eq!(one.store().output, "", "only case c ran");
        assert_eq!(
            outcome(&later, "parse_contract_json/c"),
            &returned,
            "{cpython}"
        );
    }
    let one = StoredSubmission::new(IMPORT_CIRCULAR);
    let cpython = cpython_import(&one.root.path().join("s")).expect_err("fails");
    let circular = "cannot import name 'parse_contract_json' from partially initialized module 'main' (most likely due to a circular import)";
    assert!(cpython.contains(circular), "{cpython}");
    for (corpus, case) in [(small_corpus(), "a"), (added, "c")] {
        let rec = one.record(&corpus);
        assert!(!one.store().pyc.is_empty());
        match outcome(&rec, &format!("parse_contract_json/{case}")) {
            CaseOutcome::ImportError {
                exc_type,
                message,
                line,
                ..
            } => {
                assert_eq!(exc_type, "ImportError");
                assert!(message.contains(circular), "{message}");
                assert_eq!(*line, Some(1));
            }
            other => panic!("{other:?}"),
        }
    }
}
