//! `grade --shard K/N` and `merge`: shards merged give the very bytes of a
//! single run in every format; shards partition the submissions; merge
//! refuses what does not belong together. Through the binary, on the
//! fixture recordings shipped as `recording.json` (never run).

use crate::util::grading as support;

use crate::util::TestCommand;
use autograder::grade::Audience;
use autograder::report;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

/// Every fixture recording as a submission folder, plus a few copies under
/// other names so shards hold several submissions each.
fn submissions(root: &Path) {
    let dir = support::fixture_dir().join("recordings");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let id = path.file_stem().unwrap().to_string_lossy().into_owned();
        for name in [id.clone(), format!("{id}-copy")] {
            std::fs::create_dir_all(root.join(&name)).unwrap();
            std::fs::copy(&path, root.join(&name).join("recording.json")).unwrap();
        }
    }
}

fn autograder(args: &[&str]) -> Output {
    TestCommand::new().args(args).output()
}

struct Setup {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Setup {
    fn new() -> Setup {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        submissions(&root.join("subs"));
        Setup { _tmp: tmp, root }
    }

    fn path(&self, name: &str) -> String {
        self.root.join(name).to_string_lossy().into_owned()
    }

    /// `grade` with every mergeable report written as `<prefix>.<ext>`.
    fn grade(&self, prefix: &str, extra: &[&str]) -> Output {
        let cases = support::fixture_dir().join("cases");
        let mut args = vec![
            "grade".to_string(),
            self.path("subs"),
            "--cases".into(),
            cases.to_string_lossy().into_owned(),
            "--work-dir".into(),
            self.path("work"),
            "--quiet".into(),
        ];
        args.extend(report_args(&self.root, prefix));
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        autograder(&args)
    }

    fn merge(&self, prefix: &str, shards: &[&str], extra: &[&str]) -> Output {
        let mut args = vec!["merge".to_string(), "--quiet".into()];
        args.extend(shards.iter().map(|s| self.path(&format!("{s}.json"))));
        args.extend(report_args(&self.root, prefix));
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        autograder(&args)
    }

    fn read(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.root.join(name)).unwrap()
    }
}

const FORMATS: &[(&str, &str)] = &[
    ("--json", "json"),
    ("--csv", "csv"),
    ("--junit", "xml"),
    ("--markdown", "md"),
    ("--html", "html"),
];

fn report_args(root: &Path, prefix: &str) -> Vec<String> {
    FORMATS
        .iter()
        .flat_map(|(flag, ext)| {
            [
                flag.to_string(),
                root.join(format!("{prefix}.{ext}"))
                    .to_string_lossy()
                    .into_owned(),
            ]
        })
        .collect()
}

fn ok(out: &Output) {
    assert!(
        out.status.code() == Some(0),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn ids(report: &[u8]) -> Vec<String> {
    let v: Value = serde_json::from_slice(report).unwrap();
    v["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect()
}

fn same_reports(s: &Setup, a: &str, b: &str) {
    for (_, ext) in FORMATS {
        let (x, y) = (s.read(&format!("{a}.{ext}")), s.read(&format!("{b}.{ext}")));
        assert!(!x.is_empty(), "{a}.{ext} is empty");
        assert!(
            x == y,
            "{a}.{ext} and {b}.{ext} differ:\n{}",
            similar::TextDiff::from_lines(
                String::from_utf8_lossy(&x).as_ref(),
                String::from_utf8_lossy(&y).as_ref()
            )
            .unified_diff()
        );
    }
}

#[test]
fn shards_merged_equal_a_single_run_in_every_format() {
    let s = Setup::new();
    ok(&s.grade("single", &[]));
    ok(&s.grade("s1", &["--shard", "1/2"]));
    ok(&s.grade("s2", &["--shard", "2/2"]));
    // The shards are real slices: neither holds everything.
    let all = ids(&s.read("single.json"));
    assert_eq!(all.len(), 10);
    let (a, b) = (ids(&s.read("s1.json")), ids(&s.read("s2.json")));
    assert_eq!((a.len(), b.len()), (5, 5));
    ok(&s.merge("merged", &["s2", "s1"], &[]));
    same_reports(&s, "single", "merged");
}

#[test]
fn student_shards_merge_like_a_student_run() {
    let s = Setup::new();
    ok(&s.grade("single", &["--audience", "student"]));
    // Instructor shards merged for students...
    ok(&s.grade("i1", &["--shard", "1/2"]));
    ok(&s.grade("i2", &["--shard", "2/2"]));
    ok(&s.merge("from-instructor", &["i1", "i2"], &["--audience", "student"]));
    same_reports(&s, "single", "from-instructor");
    // ...and student shards merged as they are.
    ok(&s.grade("t1", &["--shard", "1/2", "--audience", "student"]));
    ok(&s.grade("t2", &["--shard", "2/2", "--audience", "student"]));
    ok(&s.merge("from-student", &["t1", "t2"], &[]));
    same_reports(&s, "single", "from-student");
    // Student shards cannot become an instructor report.
    let out = s.merge("nope", &["t1", "t2"], &["--audience", "instructor"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("written for students"));
}

#[test]
fn shards_partition_the_submissions() {
    let s = Setup::new();
    ok(&s.grade("single", &[]));
    let all: BTreeSet<String> = ids(&s.read("single.json")).into_iter().collect();
    let mut seen = BTreeSet::new();
    for k in 1..=4 {
        ok(&s.grade(&format!("p{k}"), &["--shard", &format!("{k}/4")]));
        for id in ids(&s.read(&format!("p{k}.json"))) {
            assert!(seen.insert(id.clone()), "{id} is in two shards");
        }
    }
    assert_eq!(seen, all);
    // More shards than submissions: the extra shards are empty, not errors.
    ok(&s.grade("empty", &["--shard", "12/12"]));
    assert!(ids(&s.read("empty.json")).is_empty());
    ok(&s.merge("merged", &["p1", "p2", "p3", "p4"], &[]));
    same_reports(&s, "single", "merged");
}

#[test]
fn bad_shards_are_usage_errors() {
    let s = Setup::new();
    for bad in ["0/2", "3/2", "1/0", "2", "a/b", "-1/2", "1/2/3"] {
        let out = s.grade("x", &["--shard", bad]);
        assert_eq!(out.status.code(), Some(2), "--shard {bad}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("K/N"),
            "--shard {bad}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fn write_json(s: &Setup, name: &str, v: &Value) {
    std::fs::write(
        s.root.join(format!("{name}.json")),
        serde_json::to_vec(v).unwrap(),
    )
    .unwrap();
}

fn merge_fails(s: &Setup, shards: &[&str], says: &str) {
    let out = s.merge("bad", shards, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{shards:?}: {err}");
    assert!(err.contains(says), "{shards:?}: {err}");
    assert!(!s.root.join("bad.json").exists(), "wrote a report anyway");
}

#[test]
fn merge_refuses_what_does_not_belong_together() {
    let s = Setup::new();
    ok(&s.grade("s1", &["--shard", "1/2"]));
    ok(&s.grade("s2", &["--shard", "2/2"]));
    let s2: Value = serde_json::from_slice(&s.read("s2.json")).unwrap();

    merge_fails(&s, &["s1", "s1"], "is in both");

    let mut other = s2.clone();
    other["corpus"]["fingerprint"] = "0000".into();
    write_json(&s, "other-corpus", &other);
    merge_fails(&s, &["s1", "other-corpus"], "graded another corpus");

    let mut v = s2.clone();
    v["corpus"]["checkpoints"][0]["points"] = 7.0.into();
    write_json(&s, "other-points", &v);
    merge_fails(
        &s,
        &["s1", "other-points"],
        "describes the corpus differently",
    );

    let mut v = s2.clone();
    v["schema"] = "autograder-report/2".into();
    write_json(&s, "other-schema", &v);
    merge_fails(&s, &["s1", "other-schema"], "autograder-report/2");

    // A report from before the fields merging needs.
    let mut v = s2.clone();
    for cp in v["corpus"]["checkpoints"].as_array_mut().unwrap() {
        cp.as_object_mut().unwrap().remove("case_list");
    }
    write_json(&s, "old", &v);
    merge_fails(&s, &["s1", "old"], "case_list");

    std::fs::write(s.root.join("garbage.json"), "{\"schema\": [").unwrap();
    merge_fails(&s, &["s1", "garbage"], "garbage.json");
    merge_fails(&s, &["s1", "missing"], "cannot read");
}

#[test]
fn json_reads_back_into_the_same_run() {
    let mut run = support::run();
    // A failure whose expected value holds a matcher carries it through.
    let failure = run
        .submissions
        .iter_mut()
        .flat_map(|s| s.checkpoints.iter_mut())
        .flat_map(|c| c.cases.iter_mut())
        .filter_map(|c| c.failure.as_mut())
        .next()
        .expect("the fixtures have a failure");
    failure.matchers.push(autograder::grade::MatcherInfo {
        at: "['content']".into(),
        matcher: "any_str(min_len=1)".into(),
        text: "<any non-empty str>".into(),
    });
    let text = report::json::render(&run);
    assert!(text.contains("\"matcher\": \"any_str(min_len=1)\""));
    for audience in [Audience::Instructor, Audience::Student] {
        let view = run.for_audience(audience);
        let back = report::read::parse(&report::json::render(&view)).unwrap();
        assert_eq!(back, view);
    }
}

/// The text of every report `merge`/`grade` wrote as `<prefix>.*`.
fn report_texts(s: &Setup, prefix: &str) -> Vec<(String, String)> {
    FORMATS
        .iter()
        .map(|(_, ext)| {
            let name = format!("{prefix}.{ext}");
            let text = String::from_utf8(s.read(&name)).unwrap();
            (name, text)
        })
        .collect()
}

#[test]
fn merge_refuses_a_missing_shard_unless_told_and_then_says_partial() {
    let s = Setup::new();
    for k in 1..=3 {
        ok(&s.grade(&format!("t{k}"), &["--shard", &format!("{k}/3")]));
    }
    // A shard's own reports say what they hold (10 submissions: 4, 3, 3).
    let v: Value = serde_json::from_slice(&s.read("t2.json")).unwrap();
    assert_eq!(
        v["shards"],
        serde_json::json!({"held": [2], "of": 3, "submissions": 10})
    );
    for (name, text) in report_texts(&s, "t2") {
        if !name.ends_with(".csv") && !name.ends_with(".json") {
            assert!(
                text.contains("partial: shard 2 of 3 (3 of 10 submissions)"),
                "{name}:\n{text}"
            );
        }
    }

    // 2 of 3 shards: refused, naming what is missing, nothing written.
    merge_fails(&s, &["t1", "t3"], "shard 2 of 3 is missing");
    merge_fails(&s, &["t3"], "shards 1, 2 of 3 are missing");
    let out = s.merge("bad", &["t1", "t3"], &[]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("hold 7 of the run's 10 submissions"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // --allow-partial: written, and every report says so.
    let out = s.merge("partial", &["t3", "t1"], &["--allow-partial"]);
    ok(&out);
    let note = "partial: shards 1, 3 of 3 (7 of 10 submissions)";
    for (name, text) in report_texts(&s, "partial") {
        if name.ends_with(".csv") {
            // A gradebook has no room for a note; it lists what it has.
            assert_eq!(text.lines().count(), 1 + 7, "{text}");
        } else if name.ends_with(".json") {
            // Said in a field (below).
        } else {
            assert!(text.contains(note), "{name}:\n{text}");
        }
    }
    support::assert_valid_junit(&String::from_utf8(s.read("partial.xml")).unwrap());
    let v: Value = serde_json::from_slice(&s.read("partial.json")).unwrap();
    assert_eq!(ids(&s.read("partial.json")).len(), 7);
    assert_eq!(
        v["shards"],
        serde_json::json!({"held": [1, 3], "of": 3, "submissions": 10})
    );
    let out = autograder(&[
        "merge",
        &s.path("t1.json"),
        &s.path("t3.json"),
        "--allow-partial",
    ]);
    ok(&out);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with(note));

    // The partial merge and the missing shard make the whole run.
    ok(&s.grade("single", &[]));
    ok(&s.merge("whole", &["partial", "t2"], &[]));
    same_reports(&s, "single", "whole");
}

#[test]
fn merge_refuses_shards_that_do_not_make_one_run() {
    let s = Setup::new();
    ok(&s.grade("h1", &["--shard", "1/2"]));
    ok(&s.grade("t2", &["--shard", "2/3"]));
    ok(&s.grade("single", &[]));
    merge_fails(&s, &["h1", "t2"], "not shards of one run");
    merge_fails(&s, &["single", "h1"], "not shards of one run");
    // Two whole runs are the same slice twice.
    merge_fails(&s, &["single", "single"], "is in both");

    // A shard report that lost a submission.
    let mut v: Value = serde_json::from_slice(&s.read("h1.json")).unwrap();
    v["submissions"].as_array_mut().unwrap().pop();
    write_json(&s, "short", &v);
    ok(&s.grade("h2", &["--shard", "2/2"]));
    merge_fails(
        &s,
        &["short", "h2"],
        "holds 4 submissions, but shard 1 of 2 of a run of 10 holds 5",
    );

    // Shards of runs over different folders.
    let mut v: Value = serde_json::from_slice(&s.read("h2.json")).unwrap();
    v["shards"]["submissions"] = 12.into();
    write_json(&s, "elsewhere", &v);
    merge_fails(&s, &["h1", "elsewhere"], "not shards of one run");
}

#[test]
fn a_partial_run_reads_back_with_its_shards() {
    let mut run = support::run();
    run.shards = Some(autograder::grade::HeldShards {
        held: vec![2],
        of: 3,
        submissions: 14,
    });
    let back = report::read::parse(&report::json::render(&run)).unwrap();
    assert_eq!(back, run);
}

/// A report read into a spool (as `merge` reads shards) is the run it was
/// written from, one submission at a time; one whose submissions come
/// before its corpus cannot be read that way and says so.
#[test]
fn a_report_reads_back_into_a_spool() {
    let run = support::run();
    let text = report::json::render(&run);
    let details = autograder::grade::CaseGradeStorage::spooled().unwrap();
    let back = report::read::read(text.as_bytes(), &details).unwrap();
    assert!(back
        .submissions
        .iter()
        .all(|s| s.checkpoints.iter().all(|c| c.cases.is_empty())));
    let full: Vec<_> = back.full().map(|s| s.into_owned()).collect();
    assert_eq!(full, run.submissions);
    assert_eq!(details.error(), None);

    let mut value: Value = serde_json::from_str(&text).unwrap();
    let object = value.as_object_mut().unwrap();
    let corpus = object.remove("corpus").unwrap();
    object.insert("corpus".into(), corpus);
    let err = report::read::parse(&value.to_string()).unwrap_err();
    assert!(
        err.to_string()
            .contains("\"submissions\" comes before \"corpus\""),
        "{err}"
    );
}

/// Shards graded under different policies are refused (exit 2, naming
/// both); `merge --scoring` scores the merged run under another policy,
/// the same bytes as a single run graded so; a report without `scoring`
/// (written before policies) reads as `cases`, how it was scored, with its
/// cases' tags as its criteria.
#[test]
fn merge_refuses_mixed_policies_and_rescores_on_request() {
    let s = Setup::new();
    ok(&s.grade("s1", &["--shard", "1/2"]));
    ok(&s.grade("s2", &["--shard", "2/2", "--scoring", "cases"]));
    let out = s.merge("bad", &["s1", "s2"], &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("was scored under policy cases") && err.contains("under checkpoints"),
        "{err}"
    );
    assert!(!s.root.join("bad.json").exists(), "wrote a report anyway");

    ok(&s.grade("c1", &["--shard", "1/2", "--scoring", "cases"]));
    ok(&s.merge("cases-merged", &["c1", "s2"], &[]));
    ok(&s.grade("cases-single", &["--scoring", "cases"]));
    same_reports(&s, "cases-single", "cases-merged");
    // Rescored on merge: as graded under the policy in the first place.
    ok(&s.merge("criteria-merged", &["c1", "s2"], &["--scoring", "criteria"]));
    ok(&s.grade("criteria-single", &["--scoring", "criteria"]));
    same_reports(&s, "criteria-single", "criteria-merged");
    let v: Value = serde_json::from_slice(&s.read("criteria-merged.json")).unwrap();
    assert_eq!(v["corpus"]["scoring"], "criteria");

    // Written before policies: no `scoring`, no criteria (its cases' tags
    // are its criteria).
    let mut old: Value = serde_json::from_slice(&s.read("s2.json")).unwrap();
    old["corpus"].as_object_mut().unwrap().remove("scoring");
    for cp in old["corpus"]["checkpoints"].as_array_mut().unwrap() {
        cp.as_object_mut().unwrap().remove("criteria");
    }
    write_json(&s, "old-s2", &old);
    ok(&s.merge("old-merged", &["c1", "old-s2"], &[]));
    same_reports(&s, "cases-single", "old-merged");
    ok(&s.merge(
        "old-criteria",
        &["old-s2", "c1"],
        &["--scoring", "criteria"],
    ));
    same_reports(&s, "criteria-single", "old-criteria");
}
