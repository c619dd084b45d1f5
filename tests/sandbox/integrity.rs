//! Integrity findings end to end: a `main.py` that reaches into its
//! harness is flagged with each construct and its line, one that only
//! mentions them in comments and strings is not, and the findings appear in
//! the instructors' JSON, CSV, HTML and terminal output and nowhere a
//! student looks (checked by parsing each output).

use crate::util::grading::submission;
use crate::util::record as record_support;

use crate::util::TestCommand;
use record_support::{tier_name, tier_or_skip, TIERS};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/integrity")
}

fn cases() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/grading/cases")
}

/// What the scan must find in `forger/main.py`, in line order.
fn forger_findings() -> Value {
    let f = |line: u32, kind: &str, what: &str| json!({"source": "static", "kind": kind, "line": line, "what": what});
    json!([
        f(4, "introspection", "import gc"),
        f(6, "frames", "inspect.currentframe"),
        f(7, "native-code", "import ctypes"),
        f(10, "frames", "sys._getframe"),
        f(11, "frames", ".f_back"),
        f(11, "frames", "inspect.currentframe"),
        f(12, "introspection", "gc.get_objects"),
        f(13, "harness-modules", "sys.modules"),
        f(15, "file-descriptors", "os.write"),
        f(16, "exit", "os._exit"),
        f(17, "tracing", "sys.settrace"),
    ])
}

struct Outputs {
    dir: PathBuf,
    terminal: String,
}

impl Outputs {
    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(name)).unwrap()
    }
}

/// Grades `subs` for `audience` under `tier` into every format.
fn grade(subs: &Path, work: &Path, out: &Path, audience: &str, tier: &str) -> Outputs {
    std::fs::create_dir_all(out).unwrap();
    let p = |name: &str| out.join(name).into_os_string();
    let terminal = TestCommand::grade(subs, &cases(), work)
        .args(["--audience", audience, "--all-failures"])
        .args([
            "--json".as_ref(),
            p("report.json").as_os_str(),
            "--csv".as_ref(),
            p("grades.csv").as_os_str(),
            "--html".as_ref(),
            p("dashboard.html").as_os_str(),
            "--markdown".as_ref(),
            p("summary.md").as_os_str(),
            "--junit".as_ref(),
            p("junit.xml").as_os_str(),
        ])
        .env("AUTOGRADER_ISOLATION", tier)
        .stdout();
    Outputs {
        dir: out.to_path_buf(),
        terminal,
    }
}

/// Texts only the findings would put in a report.
const FINDING_TEXTS: &[&str] = &[
    "main.py:4 import gc",
    "sys._getframe",
    "inspect.currentframe",
];

#[test]
fn findings_reach_instructors_and_never_students() {
    let Some(tier) = TIERS.into_iter().find(|&t| tier_or_skip(t, "integrity")) else {
        return;
    };
    let tier = tier_name(tier);
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");

    let staff = grade(
        &fixtures(),
        &work,
        &tmp.path().join("staff"),
        "instructor",
        tier,
    );
    // JSON: exactly the expected findings with their lines; none for the
    // submission that only mentions them.
    let report: Value = serde_json::from_str(&staff.read("report.json")).unwrap();
    let forger = submission(&report, "forger");
    assert_eq!(forger["status"], "graded", "{}", forger["error"]);
    assert_eq!(forger["percent"], 100.0, "the forger still answers right");
    assert_eq!(forger["integrity"], forger_findings());
    assert_eq!(submission(&report, "mentions")["integrity"], json!([]));
    // CSV: the count, in the `integrity` column.
    let gradebook = staff.read("grades.csv");
    let mut csv = csv::Reader::from_reader(gradebook.as_bytes());
    let header = csv.headers().unwrap().clone();
    let col = header
        .iter()
        .position(|h| h == "integrity")
        .expect("an integrity column");
    let counts: Vec<(String, String)> = csv
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[0].to_string(), r[col].to_string())
        })
        .collect();
    assert_eq!(
        counts,
        [
            ("forger".to_string(), "11".to_string()),
            ("mentions".into(), "0".into())
        ]
    );
    // HTML: a badge on the forger's row (its tooltip names the findings) and
    // the list in its details; none for the other.
    let html = staff.read("dashboard.html");
    let doc = badge_titles(&html);
    let html = with_details(&html);
    assert_eq!(doc.len(), 1, "{doc:?}");
    assert!(doc[0].contains("11 findings: main.py:4 import gc; main.py:6 inspect.currentframe"));
    assert!(html.contains("<div class=\"integrity\"><b>Integrity (instructors only)</b>"));
    assert!(html.contains("main.py:17 sys.settrace"));
    // Terminal: one line for the forger.
    let lines: Vec<&str> = staff
        .terminal
        .lines()
        .skip_while(|l| !l.starts_with("integrity"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert_eq!(lines.len(), 1, "{}", staff.terminal);
    assert!(
        lines[0].starts_with("  forger: 11 findings: main.py:4 import gc;"),
        "{}",
        lines[0]
    );
    assert!(lines[0].ends_with("… 6 more"), "{}", lines[0]);

    let student = grade(
        &fixtures(),
        &work,
        &tmp.path().join("student"),
        "student",
        tier,
    );
    let report: Value = serde_json::from_str(&student.read("report.json")).unwrap();
    for s in report["submissions"].as_array().unwrap() {
        assert!(s.get("integrity").is_none(), "{}", s["id"]);
    }
    let gradebook = student.read("grades.csv");
    let mut csv = csv::Reader::from_reader(gradebook.as_bytes());
    assert!(!csv.headers().unwrap().iter().any(|h| h == "integrity"));
    assert!(badge_titles(&student.read("dashboard.html")).is_empty());
    assert!(!with_details(&student.read("dashboard.html")).contains("Integrity (instructors only)"));
    assert!(!student.terminal.lines().any(|l| l.starts_with("integrity")));
    for text in [
        student.terminal.clone(),
        student.read("report.json"),
        student.read("grades.csv"),
        with_details(&student.read("dashboard.html")),
        student.read("summary.md"),
        student.read("junit.xml"),
        // Instructors' Markdown and JUnit (CI's formats) carry none either.
        staff.read("summary.md"),
        staff.read("junit.xml"),
    ] {
        for finding in FINDING_TEXTS {
            assert!(!text.contains(finding), "{finding} shown");
        }
    }
    // Gradescope (always the student view), for the forger alone.
    let gs = tmp.path().join("results.json");
    let out = TestCommand::grade(&fixtures().join("forger"), &cases(), &work)
        .arg("--gradescope")
        .arg(&gs)
        .arg("--quiet")
        .env("AUTOGRADER_ISOLATION", tier)
        .output();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results = std::fs::read_to_string(&gs).unwrap();
    let _: Value = serde_json::from_str(&results).unwrap();
    for finding in FINDING_TEXTS {
        assert!(!results.contains(finding), "{finding} shown on Gradescope");
    }
    say!("integrity findings checked under {tier}");
}

/// The dashboard's data (the table's rows and each submission's details,
/// which its script draws): `<script type="application/json" id="data">`.
fn page_data(html: &str) -> Value {
    let open = "<script type=\"application/json\" id=\"data\">";
    let start = html.find(open).expect("the dashboard has its data") + open.len();
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end]).unwrap()
}

/// The page with the details its script draws appended (as HTML).
fn with_details(html: &str) -> String {
    let mut out = html.to_string();
    for d in page_data(html)["details"].as_array().unwrap() {
        match d.as_str() {
            Some(h) => out.push_str(h),
            None => out.push_str(&d.to_string()),
        }
    }
    out
}

/// The `title` of every integrity badge: the findings line of each row
/// that has one (a row is `[id, status, total, %, findings, line, ...]`).
fn badge_titles(html: &str) -> Vec<String> {
    page_data(html)["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r[5].as_str().map(str::to_string))
        .collect()
}

/// A `main.py` in UTF-7 (a PEP 263 cookie) runs the same reach as its
/// plain twin, spelled so that a scan reading UTF-8 sees none of it: the
/// cookie itself is a finding, and the twin keeps its own findings.
#[test]
fn a_coding_cookie_the_scan_cannot_read_is_a_finding() {
    let Some(tier) = TIERS.into_iter().find(|&t| tier_or_skip(t, "integrity")) else {
        return;
    };
    let tier = tier_name(tier);
    let tmp = tempfile::tempdir().unwrap();
    let subs = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/integrity-encoding");
    let out = grade(
        &subs,
        &tmp.path().join("work"),
        tmp.path(),
        "instructor",
        tier,
    );
    let report: Value = serde_json::from_str(&out.read("report.json")).unwrap();
    let kinds = |id: &str| -> Vec<String> {
        let s = submission(&report, id);
        assert_eq!(s["status"], "graded", "{id}: {}", s["error"]);
        s["integrity"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| format!("{}:{}", f["kind"].as_str().unwrap(), f["line"]))
            .collect()
    };
    let plain = kinds("plain");
    assert!(plain.contains(&"frames:7".to_string()), "{plain:?}");
    assert!(
        !plain.iter().any(|k| k.starts_with("source-encoding")),
        "{plain:?}"
    );
    let utf7 = kinds("utf7");
    assert!(
        utf7.contains(&"source-encoding:1".to_string()),
        "the UTF-7 cookie is flagged: {utf7:?}"
    );
    // Both ran the same code: CPython decoded the UTF-7 file.
    assert_eq!(
        submission(&report, "utf7")["percent"],
        submission(&report, "plain")["percent"]
    );
    say!("utf-7 findings under {tier}: {utf7:?}");
}
