//! What one submission costs the grader itself (issue 22, item 7): a
//! submission returning lists of ~300,000-bit ints from a few cases cost
//! ~20 s of the grader's CPU on every `grade`, store hits included,
//! converting them to decimal to quote, show and diff them. The sandbox
//! bounds the student's time; `value::budget` bounds the grader's.
//!
//! No timed assertions: the tests check the work instead (the reasons say
//! the values were too large to show in full or to grade; no quoted text
//! holds a long run of digits, which only converting an int to decimal
//! writes; the grade is exactly right), and print the CPU seconds each run
//! took so CI logs show them.

use crate::util::grading::submission;
use crate::util::record as record_support;

use crate::util::grading as support;

use crate::util::TestCommand;
use autograder::recording::format::CaseOutcome;
use autograder::value::{tagged, Outcome, PyValue};
use num_bigint::BigInt;
use record_support::{tier_name, tier_or_skip, TIERS};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// CPU seconds (user + system) of this process's reaped children so far.
fn children_cpu() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) } != 0 {
        return f64::NAN;
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// One `grade` run's report and what it cost.
struct Graded {
    report: Value,
    /// The grader's own CPU seconds, from `--timings` (the sandbox's
    /// processes not counted).
    grader_cpu: String,
    /// CPU seconds of the run and every process it waited for.
    with_children: f64,
}

fn grade(subs: &Path, cases: &Path, work: &Path, tier: Option<&str>) -> Graded {
    let report = work.with_extension("report.json");
    let mut cmd = TestCommand::grade(subs, cases, work);
    cmd.arg("--json")
        .arg(&report)
        .args(["--timings", "--quiet"]);
    if let Some(tier) = tier {
        cmd.env("AUTOGRADER_ISOLATION", tier);
    }
    let before = children_cpu();
    let out = cmd.output();
    let with_children = children_cpu() - before;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // `  total  0.787 s, 0.419 s CPU (the sandbox's processes not counted)`
    let grader_cpu = stderr
        .lines()
        .find_map(|l| {
            let rest = l.trim_start().strip_prefix("total")?;
            let cpu = rest.split(',').nth(1)?.trim();
            Some(cpu.split(" s CPU").next()?.trim().to_string())
        })
        .unwrap_or_else(|| "?".into());
    let report = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    Graded {
        report,
        grader_cpu,
        with_children,
    }
}

/// Every failure of a submission, as (`checkpoint/case`, failure).
fn failures(s: &Value) -> Vec<(String, &Value)> {
    s["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|cp| {
            cp["failures"].as_array().unwrap().iter().map(move |f| {
                (
                    format!(
                        "{}/{}",
                        cp["id"].as_str().unwrap(),
                        f["case"].as_str().unwrap()
                    ),
                    f,
                )
            })
        })
        .collect()
}

/// The longest run of decimal digits in `text`: printing an int writes
/// one as long as the int; `<int of N bits>` writes at most 6.
fn longest_digit_run(text: &str) -> usize {
    text.split(|c: char| !c.is_ascii_digit())
        .map(str::len)
        .max()
        .unwrap_or(0)
}

/// The text a report shows of what a failed case returned: its reason,
/// `got`, and the diff's `+` lines (the expected value is the corpus's).
fn shown_text(f: &Value) -> String {
    let diff = f["diff"].as_str().unwrap_or_default();
    let added = diff
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"));
    [f["reason"].as_str(), f["got"].as_str()]
        .into_iter()
        .flatten()
        .chain(added)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_submission_of_huge_ints_costs_the_grader_little_and_fails_exactly_those_cases() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Heavy) {
        return;
    }
    let Some(tier) = TIERS.into_iter().find(|&t| tier_or_skip(t, "grader_cpu")) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let subs = tmp.path().join("subs");
    std::fs::create_dir_all(subs.join("huge-ints")).unwrap();
    // The model solution with the hostile wrapper after it.
    let model =
        std::fs::read_to_string(manifest().join("submissions/model-solution/main.py")).unwrap();
    let hostile =
        std::fs::read_to_string(manifest().join("tests/fixtures/hostile-grading/huge-ints.py"))
            .unwrap();
    std::fs::write(subs.join("huge-ints/main.py"), model + "\n\n" + &hostile).unwrap();
    let cases = manifest().join("cases");
    let work = tmp.path().join("work");
    let first = grade(&subs, &cases, &work, Some(tier_name(tier)));
    let again = grade(&subs, &cases, &work, Some(tier_name(tier)));
    say!(
        "grader_cpu: huge-ints graded with recording: grader {} s CPU ({:.2} s with the sandbox's processes); from the store: grader {} s CPU ({:.2} s with children)",
        first.grader_cpu,
        first.with_children,
        again.grader_cpu,
        again.with_children
    );
    for run in [&first, &again] {
        let s = submission(&run.report, "huge-ints");
        assert_eq!(s["status"], "graded", "{}", s["error"]);
        let failed = failures(s);
        // The fixture's CRC picks 19 cases of the bundled corpus; what
        // matters is that some are picked and that they alone fail.
        assert!(failed.len() >= 5, "{} failures", failed.len());
        for (case, f) in &failed {
            let reason = f["reason"].as_str().unwrap();
            assert!(
                reason.starts_with("returned a wrong value: ")
                    || reason.starts_with("expected ValueError, got return "),
                "{case}: {reason}"
            );
            assert!(
                reason.contains(
                    "(too large to show in full: an int of 2999" // 299990 or 299991 bits
                ) && reason.ends_with("bits, more than the 4300 digits Python prints)"),
                "{case}: {reason}"
            );
            let got = f["got"].as_str().unwrap();
            assert!(got.contains("int of 2999"), "{case}: {got}");
            // Nothing was converted to decimal.
            let text = shown_text(f);
            assert!(longest_digit_run(&text) < 20, "{case}: {text}");
        }
    }
    // From the store, the same grade.
    assert_eq!(
        submission(&first.report, "huge-ints"),
        submission(&again.report, "huge-ints")
    );
}

/// `bits`-bit ints (2^(bits-1) + i).
fn wide(bits: u32, i: i64) -> BigInt {
    (BigInt::from(1) << (bits - 1)) + i
}

#[test]
fn a_shipped_recording_of_huge_values_costs_the_grader_little_and_grades_right() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Heavy) {
        return;
    }
    let corpus = support::corpus();
    let expected = support::expected(&corpus);
    let returns: Vec<&str> = corpus
        .cases
        .iter()
        .zip(&expected)
        .filter(|(_, want)| matches!(want, Outcome::Returns(_)))
        .map(|(c, _)| c.id.as_str())
        .collect();
    let raises = corpus
        .cases
        .iter()
        .zip(&expected)
        .find(|(_, want)| matches!(want, Outcome::Raises(_)))
        .map(|(c, _)| c.id.as_str())
        .expect("a case that raises");
    assert!(returns.len() >= 4);
    let returned = |value: Value| CaseOutcome::Returned {
        value: value.into(),
        shares_with_args: false,
        args_changed: false,
        shares_with_state: false,
        shared: None,
        changed: None,
    };
    let encoded = |v: PyValue| tagged::encode(&v);
    // 40 ints of 299,991 bits (hexadecimal, as the harness writes them).
    let huge = encoded(PyValue::List(
        (0..40).map(|i| PyValue::Int(wide(299_991, i))).collect(),
    ));
    assert!(huge.to_string().contains("\"0x"), "wide ints travel in hex");
    // One int in 90,309 decimal digits (what a harness whose student lifted
    // CPython's limit wrote): too large to read.
    let decimal = json!([{"$int": format!("1{}", "0".repeat(90_308))}]);
    // 30 ints of 4,215 digits: each printable, together over what a
    // failure prints (in hexadecimal, as the harness writes ints over 1024
    // bits)...
    let ints: Vec<BigInt> = (0..30).map(|i| wide(14_000, i)).collect();
    let many = encoded(PyValue::List(
        ints.iter().cloned().map(PyValue::Int).collect(),
    ));
    assert!(many.to_string().contains("\"0x"), "wide ints travel in hex");
    // ... and in decimal, as CPython's repr (a runner of its own) writes
    // them: over what the grader reads of one value.
    let many_decimal = Value::Array(
        ints.iter()
            .map(|i| json!({"$int": i.to_string()}))
            .collect(),
    );
    let hostile: Vec<(&str, Value)> = vec![
        (returns[0], huge.clone()),
        (returns[1], decimal),
        (returns[2], many),
        (returns[3], many_decimal),
        (raises, huge),
    ];
    let mut rec = support::perfect_recording(&corpus, "huge-values");
    for (case, value) in &hostile {
        rec.outcomes
            .insert(case.to_string(), returned(value.clone()));
    }
    let tmp = tempfile::tempdir().unwrap();
    let subs = tmp.path().join("subs");
    std::fs::create_dir_all(subs.join("huge-values")).unwrap();
    std::fs::write(
        subs.join("huge-values/recording.json"),
        serde_json::to_vec(&rec).unwrap(),
    )
    .unwrap();
    let cases: PathBuf = support::fixture_dir().join("cases");
    let work = tmp.path().join("work");
    let first = grade(&subs, &cases, &work, None);
    let again = grade(&subs, &cases, &work, None);
    say!(
        "grader_cpu: a shipped recording of huge values graded in {} s CPU, then {} s CPU from the store",
        first.grader_cpu,
        again.grader_cpu
    );
    for run in [&first, &again] {
        let s = submission(&run.report, "huge-values");
        assert_eq!(s["status"], "graded", "{}", s["error"]);
        let failed = failures(s);
        let ids: Vec<&str> = failed.iter().map(|(id, _)| id.as_str()).collect();
        let mut want: Vec<&str> = hostile.iter().map(|(id, _)| *id).collect();
        want.sort_by_key(|id| corpus.cases.iter().position(|c| c.id == *id));
        let mut ids_sorted = ids.clone();
        ids_sorted.sort_by_key(|id| corpus.cases.iter().position(|c| c.id == *id));
        assert_eq!(ids_sorted, want, "exactly the hostile cases fail");
        let reason = |id: &str| {
            let f = failed.iter().find(|(c, _)| c == id).unwrap().1;
            (
                f["reason"].as_str().unwrap().to_string(),
                f["got"].as_str().map(str::to_string),
            )
        };
        let (r, got) = reason(returns[0]);
        assert!(
            r.starts_with("returned a wrong value: [<int of 299991 bits>, <int of 299991 bits>, "),
            "{r}"
        );
        assert!(r.ends_with(" (too large to show in full: an int of 299991 bits, more than the 4300 digits Python prints)"), "{r}");
        assert!(got
            .unwrap()
            .starts_with("[<int of 299991 bits>, <int of 299991 bits>"));
        let (r, got) = reason(returns[1]);
        assert_eq!(
            r,
            "returned a value too large to grade: an int written in 90309 decimal digits \
             (the grader reads at most 4300, as Python does; a wider int is written in hexadecimal)"
        );
        assert_eq!(got, None);
        let (r, got) = reason(returns[2]);
        assert!(
            r.starts_with("returned a wrong value: [<int of 14000 bits>, "),
            "{r}"
        );
        assert!(r.ends_with(" (too large to show in full: its ints would print as more than the 100000 digits a failure shows)"), "{r}");
        assert!(got
            .unwrap()
            .starts_with("[<int of 14000 bits>, <int of 14000 bits>"));
        let (r, got) = reason(returns[3]);
        assert_eq!(
            r,
            "returned a value too large to grade: ints written in more than 100000 decimal \
             digits together (the grader reads so many digits of ints over 309 digits in one \
             value; wider ints are written in hexadecimal)"
        );
        assert_eq!(got, None);
        let (r, _) = reason(raises);
        assert!(
            r.starts_with("expected ValueError, got return [<int of 299991 bits>, "),
            "{r}"
        );
        for (case, f) in &failed {
            let text = shown_text(f);
            assert!(longest_digit_run(&text) < 20, "{case}: {text}");
        }
    }
    assert_eq!(
        submission(&first.report, "huge-values"),
        submission(&again.report, "huge-values")
    );
}
