//! Submission ids end to end: folders whose names are alike, or look
//! alike, or are past the system's path limit are each their own row, with
//! ids a reader can tell apart, and `record` gives each its own recording
//! file (issue 22, items 5 and 8).

use crate::util::grading as support;

use crate::util::TestCommand;
use serde_json::Value;
use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The folder names that used to collide or look alike, and the id each
/// must get. (The deep folder is made apart: see [`deep`].)
const NAMES: &[(&[u8], &str)] = &[
    (b"\xff", "\\xff"),
    (b"\\xff", "\\\\xff"),
    (b"bob\\carol", "bob\\\\carol"),
    (b"bob_carol", "bob_carol"),
    (b"clean-a", "clean-a"),
    ("clean-a\u{200b}".as_bytes(), "clean-a\\u{200b}"),
    // A Cyrillic `а` (U+0430) among Latin letters.
    ("clean-\u{430}".as_bytes(), "clean-\\u{430}"),
    ("élève".as_bytes(), "élève"),
];

fn autograder(args: &[&OsStr], cwd: &Path) -> Output {
    TestCommand::new().args(args).current_dir(cwd).output()
}

fn ok(out: &Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn folder(root: &Path, name: &[u8]) -> PathBuf {
    let dir = root.join(OsStr::from_bytes(name));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `depth` nested folders of 250 `d`s under `dir` (made through open
/// folders: the whole path is past what the system takes), `file` holding
/// `bytes` in the last.
fn deep(dir: &Path, depth: usize, file: &str, bytes: &[u8]) {
    use rustix::fs::{openat, Mode, OFlags};
    let name = "d".repeat(250);
    std::fs::create_dir_all(dir).unwrap();
    let mut fd = openat(rustix::fs::CWD, dir, OFlags::DIRECTORY, Mode::empty()).unwrap();
    for _ in 0..depth {
        rustix::fs::mkdirat(&fd, name.as_str(), Mode::RWXU).unwrap();
        fd = openat(&fd, name.as_str(), OFlags::DIRECTORY, Mode::empty()).unwrap();
    }
    let f = openat(
        &fd,
        file,
        OFlags::CREATE | OFlags::WRONLY,
        Mode::RUSR | Mode::WUSR,
    )
    .unwrap();
    rustix::io::write(&f, bytes).unwrap();
}

fn ids(report: &Value) -> Vec<String> {
    report["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect()
}

/// `subs/` holding a shipped recording in every folder of [`NAMES`], and
/// one 20 folders of 250 characters deep (past the 4096 bytes a path may
/// have).
fn shipped(root: &Path) -> PathBuf {
    let subs = root.join("subs");
    let rec = serde_json::to_vec(&support::perfect_recording(&support::corpus(), "x")).unwrap();
    for (name, _) in NAMES {
        std::fs::write(folder(&subs, name).join("recording.json"), &rec).unwrap();
    }
    deep(&subs.join("zz-deep"), 20, "recording.json", &rec);
    subs
}

fn grade(subs: &Path, work: &Path, extra: &[&str]) -> Output {
    TestCommand::grade(subs, &support::fixture_dir().join("cases"), work)
        .args(extra)
        .current_dir(work.parent().unwrap())
        .output()
}

#[test]
fn every_folder_is_its_own_row_and_look_alikes_read_differently() {
    let tmp = tempfile::tempdir().unwrap();
    let subs = shipped(tmp.path());
    let work = tmp.path().join("work");
    let json = tmp.path().join("report.json");
    let out = grade(&subs, &work, &["--json", json.to_str().unwrap()]);
    ok(&out);
    let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let got = ids(&report);
    assert_eq!(got.iter().collect::<BTreeSet<_>>().len(), got.len());
    let mut sorted = got.clone();
    sorted.sort();
    assert_eq!(got, sorted);
    let (deep, named): (Vec<_>, Vec<_>) = report["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .partition(|s| s["id"].as_str().unwrap().starts_with("zz-deep/ddd"));
    let mut want: Vec<&str> = NAMES.iter().map(|(_, id)| *id).collect();
    want.sort();
    let named_ids: Vec<&str> = named.iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(named_ids, want);
    for s in &named {
        assert_eq!(s["status"], "graded", "{}", s["id"]);
        assert_eq!(s["points"], s["max_points"], "{}", s["id"]);
    }

    // The folder past the path limit: an error row that says why, its
    // path cut in the middle.
    assert_eq!(deep.len(), 1);
    let deep = deep[0];
    assert_eq!(deep["status"], "error");
    let error = deep["error"].as_str().unwrap();
    assert!(
        error
            .ends_with("bytes long, more than the system takes (File name too long (os error 36))"),
        "{error}"
    );
    assert!(error.contains(" characters left out) …"), "{error}");
    assert!(error.starts_with(subs.to_str().unwrap()), "{error}");
    assert!(error.chars().count() < 700, "{error}");

    // The terminal: every row its own name, the look-alikes told apart.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains('\u{200b}'), "{stdout}");
    assert!(!stdout.contains('\u{430}'), "{stdout}");
    let rows: Vec<&str> = stdout
        .lines()
        .skip(1)
        .take(NAMES.len() + 1)
        .map(|l| l.split("  ").next().unwrap())
        .collect();
    for (_, id) in NAMES {
        assert_eq!(
            rows.iter().filter(|r| *r == id).count(),
            1,
            "{id} in {rows:?}\n{stdout}"
        );
    }
}

#[test]
fn shards_of_such_ids_merge_into_the_single_run() {
    let tmp = tempfile::tempdir().unwrap();
    let subs = shipped(tmp.path());
    let work = tmp.path().join("work");
    let path = |name: &str| tmp.path().join(name).to_string_lossy().into_owned();
    ok(&grade(
        &subs,
        &work,
        &["--quiet", "--json", &path("all.json")],
    ));
    for k in 1..=2 {
        let shard = format!("{k}/2");
        let json = path(&format!("s{k}.json"));
        ok(&grade(
            &subs,
            &work,
            &["--quiet", "--shard", &shard, "--json", &json],
        ));
    }
    let merged = path("merged.json");
    let (s1, s2) = (path("s1.json"), path("s2.json"));
    let args: Vec<&OsStr> = ["merge", "--quiet", &s1, &s2, "--json", &merged]
        .into_iter()
        .map(OsStr::new)
        .collect();
    ok(&autograder(&args, tmp.path()));
    let read = |p: &str| -> Value { serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap() };
    let all = ids(&read(&path("all.json")));
    assert_eq!(all.len(), NAMES.len() + 1);
    assert_eq!(ids(&read(&merged)), all);
    assert_eq!(
        std::fs::read(path("all.json")).unwrap(),
        std::fs::read(&merged).unwrap()
    );
}

fn write_cases(dir: &Path) {
    std::fs::create_dir_all(dir.join("l")).unwrap();
    std::fs::write(
        dir.join("course.toml"),
        "title = \"t\"\n[[lesson]]\nid = \"l\"\ntitle = \"L\"\n  [[lesson.checkpoint]]\n  function = \"parse_contract_json\"\n  title = \"p\"\n  points = 1.0\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("l/parse_contract_json.toml"),
        "checkpoint = \"parse_contract_json\"\n[[case]]\nid = \"one\"\ncall = \"parse_contract_json('one')\"\ntags = [\"valid\"]\n",
    )
    .unwrap();
}

#[test]
fn record_writes_one_recording_file_per_submission() {
    let tmp = tempfile::tempdir().unwrap();
    write_cases(&tmp.path().join("cases"));
    let subs = tmp.path().join("subs");
    let source = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile/echo/main.py"),
    )
    .unwrap();
    for (name, _) in NAMES {
        std::fs::write(folder(&subs, name).join("main.py"), &source).unwrap();
    }
    // A deep folder whose path still fits: its id is too long for a file
    // name, twice over.
    deep(&subs.join("long"), 10, "main.py", &source);
    let out = autograder(
        &[
            "record".as_ref(),
            "subs".as_ref(),
            "--case-timeout".as_ref(),
            "5".as_ref(),
        ],
        tmp.path(),
    );
    ok(&out);
    let dir = tmp.path().join(".autograder/recordings");
    let mut files = BTreeSet::new();
    let mut recorded = BTreeSet::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        assert!(name.len() <= 255, "{} bytes", name.len());
        let rec = autograder::recording::read_recording(&entry.path()).unwrap();
        assert_eq!(
            rec.outcomes.len(),
            1,
            "{}: {:?}",
            rec.submission,
            rec.outcomes
        );
        assert!(
            recorded.insert(rec.submission.clone()),
            "{} twice",
            rec.submission
        );
        assert_eq!(
            autograder::recording::recording_path(Path::new(".autograder"), &rec.submission)
                .file_name(),
            Some(name.as_os_str())
        );
        files.insert(name);
    }
    let long = format!("long{}", format!("/{}", "d".repeat(250)).repeat(10));
    let mut want: BTreeSet<String> = NAMES.iter().map(|(_, id)| id.to_string()).collect();
    want.insert(long);
    assert_eq!(recorded, want);
    assert_eq!(files.len(), NAMES.len() + 1, "{files:?}");
}
