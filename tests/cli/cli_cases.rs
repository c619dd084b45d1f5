//! The `eval` and `cases` commands, run as the binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn autograder(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_autograder"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn good() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus-good")
}

fn good_str() -> String {
    good().display().to_string()
}

/// A copy of the good fixture in a temp dir, with `edit` applied to one file.
fn edited_copy(rel: &str, edit: impl Fn(String) -> String) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for entry in walkdir::WalkDir::new(good()) {
        let entry = entry.expect("walk");
        let to = dir
            .path()
            .join(entry.path().strip_prefix(good()).expect("inside"));
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).expect("mkdir");
        } else {
            std::fs::copy(entry.path(), &to).expect("copy");
        }
    }
    let path = dir.path().join(rel);
    let text = std::fs::read_to_string(&path).expect("read");
    std::fs::write(&path, edit(text)).expect("write");
    dir
}

/// `autograder cases export --visible DEST --cases <the good corpus>`.
fn export_visible(dest: &Path) -> Output {
    autograder(&[
        "cases",
        "export",
        "--visible",
        &dest.display().to_string(),
        "--cases",
        &good_str(),
    ])
}

/// `autograder cases check --cases DIR`.
fn check(dir: &Path) -> Output {
    autograder(&["cases", "check", "--cases", &dir.display().to_string()])
}

#[test]
fn eval_prints_python_repr() {
    let o = autograder(&[
        "eval",
        "execute_tool({'id': 'c1', 'name': 'multiply', 'arguments': {'x': 6, 'y': 7}})",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "{'call_id': 'c1', 'result': {'value': 42}}\n");
    let o = autograder(&["eval", r#"parse_contract_json('{"x":NaN}')"#]);
    assert_eq!(stdout(&o), "raises ValueError\n");
    let o = autograder(&[
        "eval",
        r#"parse_contract_json('{"s":"\\u00e9\\ud83d\\ude00","f":1e16,"n":-0.0}')"#,
    ]);
    assert_eq!(stdout(&o), "{'s': 'é😀', 'f': 1e+16, 'n': -0.0}\n");
    let o = autograder(&["eval", "accept_ticket('{}', 'r1', 'src', 1, limit=3)"]);
    assert_eq!(stdout(&o), "{'status': 'retry', 'value': None}\n");
}

#[test]
fn eval_refuses_bad_calls_with_the_column() {
    let o = autograder(&["eval", "validate_tool_call({'id': 'c1', 'x': [1, 2})"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("column 43: SyntaxError"), "{err}");
    assert!(
        err.contains(&format!("\n  {}^", " ".repeat(42))),
        "a caret under column 43:\n{err}"
    );
    let o = autograder(&["eval", "validate_tool_call({}, {})"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("positional argument"), "{}", stderr(&o));
    let o = autograder(&["eval", "rm_rf('/')"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown checkpoint function"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).is_empty());
}

#[test]
fn check_counts_cases_per_checkpoint() {
    let o = autograder(&["cases", "check", "--cases", &good_str()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let row = |name: &str| -> Vec<String> {
        out.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no row {name} in\n{out}"))
            .split_whitespace()
            .skip(1)
            .map(str::to_string)
            .collect()
    };
    assert_eq!(row("parse_contract_json"), ["10", "9", "2"]);
    assert_eq!(row("validate_ticket"), ["0", "0", "0"]);
    assert_eq!(row("total"), ["24", "22", "5"]);
    assert!(out.contains("ok: 24 cases"), "{out}");
}

#[test]
fn shipped_corpus_checks() {
    let o = autograder(&["cases", "check"]);
    assert_eq!(o.status.code(), Some(0), "{}\n{}", stdout(&o), stderr(&o));
    println!("{}", stdout(&o));
}

#[test]
fn check_reports_a_wrong_pin_with_file_line_and_reprs() {
    let dir = edited_copy("tool-proposals/execute_tool.toml", |t| {
        t.replace("{'value': 42}}", "{'value': 43}}")
    });
    let o = check(dir.path());
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("execute_tool.toml:6: case execute_tool/lesson-multiply: the pin says {'call_id': 'c1', 'result': {'value': 43}} but the core gives {'call_id': 'c1', 'result': {'value': 42}}"),
        "{err}"
    );
    let dir = edited_copy("json-contract/accept_ticket.toml", |t| {
        t.replace(
            "expect = \"{'status': 'reject', 'value': None}\"",
            "expect = \"ValueError\"",
        )
    });
    let o = check(dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("accept_ticket/lesson-reject: the pin says raises ValueError but the core gives {'status': 'reject', 'value': None}"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn check_reports_load_problems() {
    let dir = edited_copy("tool-proposals/order_tool_results.toml", |t| {
        t.replace("tags = [\"size-limits\"]", "tags = [\"sizes\"]")
    });
    let o = check(dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(
            "order_tool_results.toml:31: case order_tool_results/nine-calls: unknown tag \"sizes\""
        ),
        "{}",
        stderr(&o)
    );
    let o = autograder(&["cases", "check", "--cases", "/nonexistent/corpus"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn list_json_has_one_object_per_case_with_the_core_outcome() {
    let o = autograder(&["cases", "list", "--json", "--cases", &good_str()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(lines.len(), 24);
    let keys: Vec<&str> = lines[0]
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "id",
            "lesson",
            "checkpoint",
            "tags",
            "visibility",
            "weight",
            "call",
            "expected"
        ]
    );
    let find = |id: &str| lines.iter().find(|l| l["id"] == id).expect(id);
    let m = find("execute_tool/lesson-multiply");
    assert_eq!(m["lesson"], "tool-proposals");
    assert_eq!(m["checkpoint"], "execute_tool");
    assert_eq!(m["call"], "execute_tool(mul)");
    assert_eq!(
        m["expected"],
        serde_json::json!({"returns": {"call_id": "c1", "result": {"value": 42}}})
    );
    let d = find("parse_contract_json/escaped-duplicate");
    assert_eq!(d["visibility"], "hidden");
    assert_eq!(d["expected"], serde_json::json!({"raises": "ValueError"}));
    // Unpinned cases list the core's outcome too; tagged JSON for big ints.
    let s = find("parse_contract_json/raw-surrogate");
    assert_eq!(s["expected"], serde_json::json!({"raises": "ValueError"}));
    let z = find("parse_contract_json/minus-zero");
    assert_eq!(
        z["expected"]["returns"]["big"],
        serde_json::json!({"$int": "123456789012345678901234567890"})
    );
    assert_eq!(find("parse_contract_json/exactly-4096-bytes")["weight"], 2);
}

#[test]
fn list_plain_is_one_line_per_case() {
    let o = autograder(&["cases", "list", "--cases", &good_str()]);
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 24);
    let line = out
        .lines()
        .find(|l| l.starts_with("order_tool_results/lesson-order "))
        .expect("a line");
    assert!(
        line.contains("visible") && line.contains("shuffled-results,valid"),
        "{line}"
    );
    assert!(
        line.contains("[{'call_id': 'c1', 'result': {'value': 42}}"),
        "{line}"
    );
}

#[test]
fn stats_tabulates_tags_by_checkpoint() {
    let o = autograder(&["cases", "stats", "--cases", &good_str()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let row = |name: &str| -> Vec<String> {
        out.lines()
            .find(|l| l.starts_with(&format!("{name}  ")))
            .unwrap_or_else(|| panic!("no row {name} in\n{out}"))[24..]
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    assert_eq!(row("tag"), ["pcj", "vt", "at", "vtc", "et", "otr", "total"]);
    // The course's shape: each lesson with its checkpoints, as course.toml has them.
    let course = autograder::corpus::load(Path::new(&good_str())).unwrap();
    let shape = format!("\n{} lessons, 6 checkpoints:\n", course.lessons.len());
    assert!(out.contains(&shape), "{out}");
    for lesson in &course.lessons {
        let names: Vec<&str> = lesson.checkpoints.iter().map(|c| c.id.as_str()).collect();
        assert!(
            out.lines()
                .any(|l| l.trim_start().starts_with(&lesson.id) && l.ends_with(&names.join(", "))),
            "no line for lesson {} in\n{out}",
            lesson.id
        );
    }
    assert_eq!(row("valid"), ["4", "-", "1", "-", "4", "2", "11"]);
    assert_eq!(row("retry-policy"), ["-", "-", "4", "-", "-", "-", "4"]);
    assert_eq!(
        row("evidence-mismatch"),
        ["-", "-", "-", "-", "-", "-", "-"]
    );
    assert_eq!(row("cases"), ["10", "0", "5", "0", "5", "4", "24"]);
    assert_eq!(row("hidden"), ["2", "0", "1", "0", "1", "1", "5"]);
    assert_eq!(
        row("hidden share"),
        ["20%", "-", "20%", "-", "20%", "25%", "21%"]
    );
    assert_eq!(
        row("pinned share"),
        ["90%", "-", "100%", "-", "100%", "75%", "92%"]
    );
    assert!(out.contains("pcj = parse_contract_json"), "{out}");
    // The small fixture leaves tags uncovered; the shipped corpus none.
    assert!(
        out.contains(
            "\ngaps (tags that apply to a checkpoint, without a case):\n  pcj: nan-infinity, "
        ),
        "{out}"
    );
    let shipped = autograder(&["cases", "stats"]);
    assert!(!stdout(&shipped).contains("gaps"), "{}", stdout(&shipped));
    assert!(
        stdout(&shipped).contains("rtool rtools"),
        "{}",
        stdout(&shipped)
    );
}

#[test]
fn export_writes_only_visible_cases() {
    let out = tempfile::tempdir().expect("temp dir");
    let dest = out.path().join("visible");
    let o = export_visible(&dest);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("wrote 19 visible cases"),
        "{}",
        stdout(&o)
    );
    let exported = autograder::corpus::load(&dest).expect("the export loads");
    assert_eq!(exported.cases.len(), 19);
    assert!(exported
        .cases
        .iter()
        .all(|c| c.visibility == autograder::corpus::Visibility::Visible));
    let text =
        std::fs::read_to_string(dest.join("json-contract/parse_contract_json.toml")).expect("read");
    assert!(!text.contains("escaped-duplicate") && !text.contains("one-byte-over"));
    assert!(
        text.contains("# A let may use the lets above it."),
        "comments survive"
    );
    assert!(text.contains("[let]\npad = \"'x' * 4088\""));
    assert_eq!(
        std::fs::read(dest.join("course.toml")).expect("read"),
        std::fs::read(good().join("course.toml")).expect("read")
    );
    // Into an existing non-empty folder, or into the corpus itself: refused.
    let o = export_visible(&dest);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not an empty folder"), "{}", stderr(&o));
    let inside = good().join("exported");
    let o = export_visible(&inside);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("refusing to export into the source corpus"),
        "{}",
        stderr(&o)
    );
    assert!(!inside.exists());
}

#[test]
fn check_refuses_a_duplicate_call_and_warns_of_an_exposed_hidden_input() {
    // A second case making lesson-multiply's call (through another spelling:
    // the let and a dict written out), and a hidden validate_tool_call case
    // passing the arguments of the visible execute_tool/lesson-stock.
    let dir = edited_copy("tool-proposals/execute_tool.toml", |t| {
        t + r#"
[[case]]
id = "multiply-again"
call = "execute_tool({'id': 'c1', 'name': 'multiply', 'arguments': {'x': 3 * 2, 'y': 7}})"
tags = ["valid"]
"#
    });
    std::fs::write(
        dir.path().join("tool-proposals/validate_tool_call.toml"),
        r#"checkpoint = "validate_tool_call"

[[case]]
id = "stock-pen"
call = "validate_tool_call({'id': 'c2', 'name': 'stock', 'arguments': {'sku': 'pen'}})"
tags = ["valid"]
visibility = "hidden"

[[case]]
id = "stock-pen-true"
call = "validate_tool_call({'id': 'c2', 'name': 'stock', 'arguments': {'sku': 'pen'}, 'x': True})"
tags = ["valid"]
visibility = "hidden"
"#,
    )
    .unwrap();
    let o = check(dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(
        err.contains(
            ": case execute_tool/multiply-again: makes the same call as case execute_tool/lesson-multiply"
        ),
        "{err}"
    );
    let warnings: Vec<&str> = err.lines().filter(|l| l.contains("hidden, but")).collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(
        warnings[0].starts_with("warning: ")
            && warnings[0].contains(": case validate_tool_call/stock-pen: hidden, but visible case execute_tool/lesson-stock ("),
        "{err}"
    );

    // The warning alone does not fail the check.
    let dir = edited_copy("tool-proposals/execute_tool.toml", |t| t);
    std::fs::write(
        dir.path().join("tool-proposals/validate_tool_call.toml"),
        "checkpoint = \"validate_tool_call\"\n\n[[case]]\nid = \"stock-pen\"\ncall = \"validate_tool_call({'id': 'c2', 'name': 'stock', 'arguments': {'sku': 'pen'}})\"\ntags = [\"valid\"]\nvisibility = \"hidden\"\n",
    )
    .unwrap();
    let o = check(dir.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning: "), "{}", stderr(&o));
}

#[test]
fn the_bundled_corpus_repeats_no_call_and_exposes_no_hidden_input() {
    let o = autograder(&["cases", "check"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stderr(&o).contains("hidden, but"), "{}", stderr(&o));
}
