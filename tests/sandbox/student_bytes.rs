//! Student bytes are data, never control: hostile submissions (escapes in
//! class names, messages, folder and file names; ids made to be formulas;
//! exceptions named by their hidden input; a store committed in a student's
//! repository) graded with the README's commands, each output read by a
//! parser as its real reader would.

use crate::util::record as record_support;

use crate::util::TestCommand;
use autograder::recording::case_store::{read_store_file, store_path, write_store};
use record_support::{tier_name, tier_or_skip, TIERS};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn model_source() -> String {
    std::fs::read_to_string(root().join("submissions/model-solution/main.py")).unwrap()
}

/// The model solution with `fixture` (a file of tests/fixtures/student-bytes) after it.
fn hostile(fixture: &str) -> String {
    let tail =
        std::fs::read_to_string(root().join("tests/fixtures/student-bytes").join(fixture)).unwrap();
    model_source() + &tail
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(name), text).unwrap();
}

/// The sandbox tier this test records under (`None`: skipped, said why).
fn tier(test: &str) -> Option<&'static str> {
    TIERS
        .into_iter()
        .find(|&t| tier_or_skip(t, test))
        .map(tier_name)
}

fn autograder(tier: &str) -> TestCommand {
    let mut cmd = TestCommand::bare();
    cmd.env("AUTOGRADER_ISOLATION", tier)
        .env_remove("CLICOLOR_FORCE");
    cmd
}

/// The characters no output may carry from a student: C0 and C1 controls
/// (but a line feed: every format's own line breaks), DEL, and the bidi
/// controls. Carriage returns and tabs only where the format writes them
/// itself is not checked here: none of ours does.
fn controls(text: &str) -> Vec<String> {
    text.char_indices()
        .filter(|&(_, c)| c != '\n' && autograder::text::hidden(c))
        .map(|(i, c)| {
            let start = text[..i].char_indices().rev().nth(30).map_or(0, |(j, _)| j);
            format!("{:?} after {:?}", c, &text[start..i])
        })
        .take(5)
        .collect()
}

/// Every string of a JSON document (keys too), as its readers see them.
fn json_strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|x| json_strings(x, out)),
        Value::Object(m) => m.iter().for_each(|(k, x)| {
            out.push(k.clone());
            json_strings(x, out)
        }),
        _ => {}
    }
}

fn no_controls(what: &str, text: &str) {
    let found = controls(text);
    assert!(found.is_empty(), "{what} carries controls: {found:?}");
}

fn no_controls_in_json(what: &str, text: &str) {
    let v: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{what}: {e}"));
    let mut strings = Vec::new();
    json_strings(&v, &mut strings);
    no_controls(what, &strings.join("\n"));
}

/// Folders named to attack a terminal, a spreadsheet and a CSV import.
const HOSTILE_NAMES: &[&str] = &[
    "evil\x1b[31mred\x1b[0m",
    "=HYPERLINK(\"http:example.com\",\"x\")",
    "=cmd|' -C calc'!A0",
    "+1+1",
    "-2+3",
    "@SUM(A1)",
    "\tTAB",
    "\rCR",
    "\u{ff1d}1+1",
    "www.evil.example &lt;b&gt; a@b.example",
];

fn run_ok(out: &Output, what: &str) {
    assert!(
        out.status.code() == Some(0),
        "{what}: exit {:?}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn no_student_byte_reaches_a_reader_as_control() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Heavy) {
        return;
    }
    let Some(tier) = tier("student_bytes") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let subs = tmp.path().join("subs");
    // The bundled submissions, and the hostile ones.
    for entry in std::fs::read_dir(root().join("submissions")).unwrap() {
        let entry = entry.unwrap();
        if entry.path().join("main.py").is_file() {
            let text = std::fs::read_to_string(entry.path().join("main.py")).unwrap();
            write(&subs.join(entry.file_name()), "main.py", &text);
        }
    }
    for name in HOSTILE_NAMES {
        write(&subs.join(name), "main.py", &hostile("escapes.py"));
    }
    write(&subs.join("leak"), "main.py", &hostile("leak.py"));
    // An error row quoting a hostile folder name and a hostile file name.
    write(
        &subs.join("bad\x1b]52;c;eA==\x07name"),
        "Main\x1b[2J.py",
        "x = 1\n",
    );
    let out = tmp.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let reports = |dir: &Path, audience: &str, color: bool| -> Output {
        std::fs::create_dir_all(dir).unwrap();
        let mut cmd = autograder(tier);
        cmd.arg("grade")
            .arg(&subs)
            .arg("--cases")
            .arg(root().join("cases"))
            .arg("--work-dir")
            .arg(tmp.path().join("work"))
            .args(["--audience", audience, "--all-failures"]);
        for (flag, file) in [
            ("--json", "report.json"),
            ("--csv", "grades.csv"),
            ("--markdown", "summary.md"),
            ("--junit", "junit.xml"),
            ("--html", "dashboard.html"),
        ] {
            cmd.arg(flag).arg(dir.join(file));
        }
        if color {
            cmd.env("CLICOLOR_FORCE", "1");
        } else {
            cmd.env("NO_COLOR", "1");
        }
        cmd.output()
    };
    for audience in ["instructor", "student"] {
        let dir = out.join(audience);
        let run = reports(&dir, audience, false);
        run_ok(&run, audience);
        let stdout = String::from_utf8_lossy(&run.stdout);
        no_controls(&format!("{audience} stdout"), &stdout);
        no_controls(
            &format!("{audience} stderr"),
            &String::from_utf8_lossy(&run.stderr),
        );
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
        no_controls_in_json(&format!("{audience} JSON"), &read("report.json"));
        no_controls(&format!("{audience} Markdown"), &read("summary.md"));
        if let Some(html) = github_markdown(&read("summary.md")) {
            assert!(!html.contains("<a "), "GitHub makes a link: {html}");
            assert!(html.contains("&amp;lt;b&amp;gt;"), "an entity decoded");
        }
        no_controls(&format!("{audience} JUnit"), &read("junit.xml"));
        no_controls(&format!("{audience} HTML"), &read("dashboard.html"));
        // The CSV as a spreadsheet reads it: no cell is a formula.
        let csv_text = read("grades.csv");
        no_controls(&format!("{audience} CSV"), &csv_text);
        let report: Value = serde_json::from_str(&read("report.json")).unwrap();
        let json_ids: Vec<&str> = report["submissions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_str().unwrap())
            .collect();
        let mut csv = csv::Reader::from_reader(csv_text.as_bytes());
        let mut ids = Vec::new();
        for record in csv.records() {
            let record = record.unwrap();
            for cell in record.iter() {
                assert!(
                    !cell.starts_with(['=', '+', '-', '@', '\t', '\r', '\u{ff1d}']),
                    "a formula cell: {cell:?}"
                );
            }
            ids.push(record[0].to_string());
        }
        // The CSV's ids are the JSON's, each as a spreadsheet cell; every
        // hostile folder has its row.
        let cells: Vec<String> = json_ids
            .iter()
            .map(|id| autograder::text::spreadsheet_cell(id))
            .collect();
        assert_eq!(ids, cells);
        assert_eq!(ids.len(), 41 + HOSTILE_NAMES.len() + 2, "{ids:?}");
        let formulas = ids.iter().filter(|id| id.starts_with('\'')).count();
        assert_eq!(formulas, 5, "{ids:?}");
        // The fake row the class name draws is shown as text, escaped.
        assert!(stdout.contains("\\x1b[2J\\x1b[Hmodel-solution"), "{stdout}");
    }
    // Colours are the only control sequences the terminal writes: SGR.
    let run = reports(&out.join("color"), "instructor", true);
    run_ok(&run, "colour");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let without_sgr = strip_sgr(&stdout);
    assert!(without_sgr.len() < stdout.len(), "CLICOLOR_FORCE colours");
    no_controls("coloured stdout", &without_sgr);
    say!("no control character from a student in any report under {tier}");
}

/// `markdown` as GitHub renders it (cmark-gfm with its extensions, raw
/// HTML kept as GitHub's sanitizer keeps `<wbr>`), through the `cmarkgfm`
/// Python package; `None` (said why) where it is not installed, except in
/// CI, which installs it.
fn github_markdown(markdown: &str) -> Option<String> {
    let script = "import sys, cmarkgfm\n\
        from cmarkgfm.cmark import Options as O\n\
        sys.stdout.write(cmarkgfm.github_flavored_markdown_to_html(sys.stdin.read(), options=O.CMARK_OPT_UNSAFE))";
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(markdown.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    if out.status.success() {
        return Some(String::from_utf8(out.stdout).unwrap());
    }
    let why = String::from_utf8_lossy(&out.stderr);
    assert!(
        std::env::var_os("CI").is_none(),
        "cmark-gfm (pip install cmarkgfm) is needed in CI: {why}"
    );
    say!("skipping the GitHub rendering check: cmarkgfm is not installed ({why})");
    None
}

/// `text` without the SGR sequences (`ESC [ digits ; ... m`) the terminal
/// report colours with.
fn strip_sgr(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("\x1b[") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let len = after
            .find(|c: char| !(c.is_ascii_digit() || c == ';'))
            .unwrap_or(after.len());
        if after[len..].starts_with('m') {
            rest = &after[len + 1..];
        } else {
            out.push_str("\x1b[");
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// The hidden cases' inputs (each argument's repr) and ids that no
/// visible case shares (in its arguments or its expected value): what a
/// student's view must never show.
fn hidden_secrets() -> (Vec<String>, Vec<String>) {
    use autograder::value::{repr::repr, Outcome};
    let corpus = autograder::corpus::load(&root().join("cases")).unwrap();
    let expected = autograder::grade::expected_outcomes(&corpus).unwrap();
    let of = |hidden: bool| {
        let mut reprs = std::collections::HashSet::new();
        let mut ids = std::collections::HashSet::new();
        for (c, want) in corpus.cases.iter().zip(&expected) {
            if (c.visibility == autograder::corpus::Visibility::Hidden) != hidden {
                continue;
            }
            for a in &c.args {
                reprs.insert(repr(a));
            }
            if let (false, Outcome::Returns(v)) = (hidden, want) {
                reprs.insert(repr(v));
            }
            ids.insert(c.name.clone());
        }
        (reprs, ids)
    };
    let (hidden_reprs, hidden_ids) = of(true);
    let (visible_reprs, visible_ids) = of(false);
    let mut reprs: Vec<String> = hidden_reprs
        .into_iter()
        .filter(|r| {
            r.chars().count() >= 12 && !visible_reprs.iter().any(|v| v.contains(r.as_str()))
        })
        .collect();
    reprs.sort();
    let mut ids: Vec<String> = hidden_ids
        .into_iter()
        .filter(|i| !visible_ids.contains(i))
        .collect();
    ids.sort();
    (reprs, ids)
}

#[test]
fn a_hidden_input_never_reaches_a_students_view() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Heavy) {
        return;
    }
    let Some(tier) = tier("hidden_leak") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let sub = tmp.path().join("leak");
    write(&sub, "main.py", &hostile("leak.py"));
    let work = tmp.path().join("work");
    let grade = |extra: &[&str]| -> Output {
        autograder(tier)
            .arg("grade")
            .arg(&sub)
            .arg("--cases")
            .arg(root().join("cases"))
            .arg("--work-dir")
            .arg(&work)
            .env("NO_COLOR", "1")
            .args(extra)
            .output()
    };
    let p = |name: &str| tmp.path().join(name).to_string_lossy().into_owned();
    let student = grade(&[
        "--audience",
        "student",
        "--all-failures",
        "--markdown",
        &p("summary.md"),
        "--json",
        &p("student.json"),
        "--junit",
        &p("junit.xml"),
    ]);
    run_ok(&student, "student");
    let gradescope = grade(&[
        "--gradescope",
        &p("results.json"),
        "--gradescope-tests",
        "case",
        "--gradescope-hidden",
        "after-published",
    ]);
    run_ok(&gradescope, "gradescope");
    let instructor = grade(&["--json", &p("instructor.json")]);
    run_ok(&instructor, "instructor");
    let read = |name: &str| std::fs::read_to_string(tmp.path().join(name)).unwrap();

    let (reprs, ids) = hidden_secrets();
    assert!(
        reprs.len() > 50 && ids.len() > 50,
        "{} {}",
        reprs.len(),
        ids.len()
    );
    // The instructors' view shows them: the submission does leak its input
    // into its exceptions' names, and hidden cases keep their ids there.
    let staff = read("instructor.json");
    let leaked = |text: &str| reprs.iter().filter(|r| text.contains(r.as_str())).count();
    assert!(leaked(&staff) > 10, "the fixture leaks nothing to find");
    assert!(ids.iter().any(|i| staff.contains(&format!("\"{i}\""))));
    for (name, text) in [
        (
            "terminal",
            String::from_utf8_lossy(&student.stdout).into_owned(),
        ),
        ("Markdown", read("summary.md")),
        ("student JSON", read("student.json")),
        ("JUnit", read("junit.xml")),
        ("Gradescope", read("results.json")),
    ] {
        let shown: Vec<&String> = reprs.iter().filter(|r| text.contains(r.as_str())).collect();
        assert!(
            shown.is_empty(),
            "{name} shows hidden inputs: {:?}",
            &shown[..shown.len().min(3)]
        );
        // Hidden cases are named neutrally; their ids can tell the input.
        let named: Vec<&String> = ids
            .iter()
            .filter(|i| {
                [
                    format!("\"{i}\""),
                    format!(" {i} "),
                    format!("/{i}\""),
                    format!("/{i} "),
                ]
                .iter()
                .any(|p| text.contains(p.as_str()))
            })
            .collect();
        assert!(
            named.is_empty(),
            "{name} names hidden cases: {:?}",
            &named[..named.len().min(3)]
        );
        // The views that list every case name the hidden ones neutrally (the
        // terminal and Markdown show visible failures first, so may show none).
        if !matches!(name, "terminal" | "Markdown") {
            assert!(text.contains("hidden case 1 of "), "{name}");
        }
    }
    // What the brief says of the raise: only the grader's words.
    let results: Value = serde_json::from_str(&read("results.json")).unwrap();
    let outputs: Vec<&str> = results["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["name"].as_str().unwrap().contains("hidden case"))
        .filter_map(|t| t["output"].as_str())
        .collect();
    assert!(
        outputs
            .iter()
            .any(|o| o.contains("raised a subclass of ValueError")),
        "{outputs:?}"
    );
    assert!(
        outputs
            .iter()
            .any(|o| o.contains("raised a subclass of KeyError")),
        "{outputs:?}"
    );
    // A counterexample line quotes what the submission did on a visible
    // call of its own (checked above: never a hidden input); the rest of a
    // hidden case's output is the grader's words only.
    let graders_words = |o: &&str| {
        o.lines()
            .filter(|l| !l.contains("the same mistake on a call you can try"))
            .all(|l| !l.contains("LEAK") && !l.contains("main."))
    };
    assert!(outputs.iter().all(graders_words), "{outputs:?}");
    say!("no hidden input in any student view under {tier}");
}

/// The README's CI step in a repository whose `main.py` is in a subfolder,
/// with a forged store committed at the repository's root (where the
/// default work dir is): the buggy submission must not pass.
#[test]
fn a_store_committed_in_a_students_repository_is_not_trusted() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Heavy) {
        return;
    }
    let Some(tier) = tier("committed_store") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let buggy =
        std::fs::read_to_string(root().join("submissions/returns-input-call/main.py")).unwrap();
    write(&repo.join("solution"), "main.py", &buggy);
    // The forgery: the model solution's outcomes, stored under the buggy
    // source's hash, in the repository's `.autograder/`.
    let model = tmp.path().join("model");
    write(&model, "main.py", &model_source());
    let store = repo.join(".autograder");
    let made = autograder(tier)
        .arg("grade")
        .arg(&model)
        .arg("--cases")
        .arg(root().join("cases"))
        .arg("--work-dir")
        .arg(&store)
        .arg("--quiet")
        .output();
    run_ok(&made, "recording the model solution");
    let files: Vec<PathBuf> = walkdir::WalkDir::new(store.join("store"))
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let mut forged = read_store_file(&files[0]).expect("a store file");
    use sha2::Digest;
    forged.source_sha256 = hex::encode(sha2::Sha256::digest(buggy.as_bytes()));
    let path = store_path(&store, &forged.source_sha256, &forged.made);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    write_store(&path, &forged).unwrap();
    std::fs::remove_file(&files[0]).unwrap();

    let ci_step = |extra: &[&str]| -> Output {
        autograder(tier)
            .current_dir(&repo)
            .args(["grade", "solution", "--cases"])
            .arg(root().join("cases"))
            .args(extra)
            .args([
                "--audience",
                "student",
                "--junit",
                "junit.xml",
                "--markdown",
                "summary.md",
                "--fail-under",
                "100",
            ])
            .env("NO_COLOR", "1")
            .output()
    };
    // Without --main-py-only (an instructor's own folder) the store is
    // used: the forgery is a real one.
    let trusted = ci_step(&[]);
    assert_eq!(trusted.status.code(), Some(0), "the forged store is read");
    // The README's step verbatim: recorded afresh, and graded as it is.
    let ci = ci_step(&["--main-py-only"]);
    assert_eq!(
        ci.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&ci.stderr)
    );
    let junit = std::fs::read_to_string(repo.join("junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&junit).unwrap();
    let failures: usize = doc
        .root_element()
        .attribute("failures")
        .unwrap()
        .parse()
        .unwrap();
    assert!(failures > 0, "{junit}");
    assert!(!String::from_utf8_lossy(&ci.stdout).contains("12/12"));
    // A work dir in the repository, asked for by name: refused (exit 2).
    let named = ci_step(&["--main-py-only", "--work-dir", ".autograder"]);
    assert_eq!(named.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&named.stderr);
    assert!(stderr.contains("a tree a student controls"), "{stderr}");
    // One outside it is used.
    let outside = tmp.path().join("outside-work");
    let elsewhere = ci_step(&["--main-py-only", "--work-dir", outside.to_str().unwrap()]);
    assert_eq!(elsewhere.status.code(), Some(1));
    assert!(outside.join("store").is_dir());
    say!("a committed store is refused under --main-py-only ({tier})");
}
