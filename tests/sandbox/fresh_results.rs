//! A result must be new (docs/checkpoints.md, "How an outcome is judged"):
//! the harness reports a list or dict of the result that the arguments,
//! the module's globals or an earlier call's result hold, and where
//! (`shared`); the verdict fails it, naming the path, for the checkpoints
//! the contract says "new" for (`reference::RETURNS_NEW`). And the corpus
//! tries an unhashable value in every str field: a check written as
//! `status not in {'success', 'error'}` raises TypeError there and fails.

use crate::util::grading::submission;
use crate::util::record as record_support;

use crate::util::TestCommand;
use autograder::grade::verdict::{judge, judge_case};
use autograder::recording::format::{CaseOutcome, SHARED_CHARS};
use autograder::reference::{checkpoints, returns_new, RETURNS_NEW};
use autograder::value::{Outcome, PyValue};
use record_support::{tier_name, tier_or_skip, TIERS};
use serde_json::Value;
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn returned(args: bool, state: bool, shared: Option<&str>) -> CaseOutcome {
    CaseOutcome::Returned {
        value: serde_json::json!({"a": [1]}).into(),
        shares_with_args: args,
        args_changed: false,
        shares_with_state: state,
        shared: shared.map(str::to_string),
        changed: None,
    }
}

fn right() -> Outcome {
    let mut d = autograder::value::PyDict::new();
    d.insert(PyValue::str("a"), PyValue::List(vec![PyValue::int(1)]));
    Outcome::Returns(PyValue::Dict(d))
}

fn reason(checkpoint: &str, o: &CaseOutcome) -> Option<String> {
    judge_case(checkpoint, &right(), Some(o)).reason
}

#[test]
fn an_object_the_module_holds_or_an_earlier_call_returned_fails_where_the_contract_says_new() {
    let held = returned(false, true, Some("got['a'] is main.AVAILABLE_FILES"));
    for cp in checkpoints() {
        let v = judge_case(cp.name, &right(), Some(&held));
        assert_eq!(v.passed, !returns_new(cp.name), "{}", cp.name);
        if returns_new(cp.name) {
            assert_eq!(
                v.reason.as_deref(),
                Some("returned an object that is not new: got['a'] is main.AVAILABLE_FILES (must be a new dict/list)"),
            );
            // The path's keys may be a hidden input's: never in the brief.
            assert_eq!(
                v.brief.as_deref(),
                Some("returned an object that is not new: the module holds it, or an earlier call returned it (must be a new dict/list)")
            );
        }
    }
    assert!(!returns_new("accept_ticket") && !returns_new("execute_tool"));
    assert_eq!(RETURNS_NEW.len(), 10);
    // Without the path (another runner): the rule still holds.
    assert_eq!(
        reason("read_file", &returned(false, true, None)).as_deref(),
        Some("returned an object that is not new: the module holds it, or an earlier call returned it (must be a new dict/list)")
    );
    // A wrong value is the reason first.
    let mut wrong = held.clone();
    if let CaseOutcome::Returned { value, .. } = &mut wrong {
        *value = serde_json::json!({"a": [2]}).into();
    }
    assert!(reason("read_file", &wrong)
        .unwrap()
        .starts_with("returned a wrong value"));
    // `judge` alone applies every rule.
    assert!(!judge(&right(), Some(&held)).passed);
}

#[test]
fn an_object_shared_with_the_arguments_is_named_by_its_parameter() {
    let cases = [
        (
            "validate_tool_call",
            "got['arguments'] is args[0]['arguments']",
            "got['arguments'] is call['arguments']",
        ),
        ("validate_tool_call", "got is args[0]", "got is call"),
        (
            "order_tool_results",
            "got[0]['result'] is args[1][0]['result']",
            "got[0]['result'] is results[0]['result']",
        ),
        (
            "run_tool_loop",
            "got['messages'][0]['tool_calls'][0]['arguments'] is kwargs['turns'][0][0]['arguments']",
            "got['messages'][0]['tool_calls'][0]['arguments'] is turns[0][0]['arguments']",
        ),
        // Not a parameter: shown as written.
        ("read_file", "got is args[3]", "got is args[3]"),
        ("read_file", "got is kwargs['nope']", "got is kwargs['nope']"),
    ];
    for (cp, shared, shown) in cases {
        // Every checkpoint, accept_ticket's too: the arguments' rule is everyone's.
        let r = reason(cp, &returned(true, false, Some(shared))).unwrap();
        assert_eq!(
            r,
            format!("returned an object that is also in its arguments: {shown} (must be a new dict/list)"),
        );
    }
    let r = reason("accept_ticket", &returned(true, false, None)).unwrap();
    assert_eq!(
        r, "returned an object that is also in its arguments (must be a new dict/list)",
        "an older recording without the path reads as before"
    );
    let v = judge_case(
        "validate_tool_call",
        &right(),
        Some(&returned(true, false, Some("got is args[0]"))),
    );
    assert_eq!(
        v.brief.as_deref(),
        Some("returned an object that is also in its arguments (must be a new dict/list)")
    );
}

/// A shipped recording's `shared` is the student's text: shown escaped and
/// cut, and refused past its cap.
#[test]
fn a_forged_path_is_shown_escaped_and_cut() {
    let forged = format!(
        "got is \u{1b}[31mred\u{202e}{}",
        "x".repeat(SHARED_CHARS - 20)
    );
    let r = reason("read_file", &returned(false, true, Some(&forged))).unwrap();
    assert!(!r.contains('\u{1b}') && !r.contains('\u{202e}'), "{r}");
    assert!(r.contains("\\x1b[31mred\\u202e"), "{r}");
    assert!(
        r.chars().count() < SHARED_CHARS + 120,
        "{}",
        r.chars().count()
    );
    let text = format!(
        r#"{{"kind":"returned","value":1,"shares_with_args":false,"args_changed":false,"shares_with_state":true,"shared":"{}"}}"#,
        "y".repeat(SHARED_CHARS + 1)
    );
    assert!(serde_json::from_str::<CaseOutcome>(&text).is_err());
}

/// The model solution with one str check turned into a lookup that hashes
/// the value (no str check first), each as `(name, old, new, checkpoints it
/// must now fail)`: a list or dict where a str belongs raises TypeError.
const HASHING_MUTANTS: &[(&str, &str, &str, &[&str])] = &[
    (
        "status-set",
        r#"if not isinstance(status, str) or status not in ("success", "error"):"#,
        r#"if status not in {"success", "error"}:"#,
        &["check_tool_results"],
    ),
    (
        "label-set",
        "if not isinstance(label, str) or label not in LABELS:",
        "if label not in set(LABELS):",
        &["validate_ticket", "accept_ticket"],
    ),
    (
        "call-name-set",
        r#"    if not isinstance(name, str) or name not in ("multiply", "stock"):
        raise ValueError("unknown tool")"#,
        r#"    if name not in {"multiply", "stock"}:
        raise ValueError("unknown tool")"#,
        &["validate_tool_call", "execute_tool", "order_tool_results"],
    ),
    (
        "tool-name-set",
        r#"    if not isinstance(name, str) or name not in ("multiply", "stock"):
        raise ValueError(f"unknown tool: {name!r}")"#,
        r#"    if name not in {"multiply", "stock"}:
        raise ValueError(f"unknown tool: {name!r}")"#,
        &["run_tool", "run_tools"],
    ),
    (
        "call-id-dict",
        "if not isinstance(call_id, str) or call_id not in names:",
        "if call_id not in names:",
        &["order_tool_results"],
    ),
    (
        "tool-use-id-set",
        r#"if not isinstance(tool_use_id, str) or tool_use_id not in {u["id"] for u in uses}:"#,
        r#"if tool_use_id not in {u["id"] for u in uses}:"#,
        &["check_tool_results"],
    ),
    (
        "enum-set",
        r#"if "enum" in spec and arg_value not in spec["enum"]:"#,
        r#"if "enum" in spec and arg_value not in set(spec["enum"]):"#,
        &["validate_tool_arguments", "run_tool_loop"],
    ),
];

fn percent_of(report: &Value, id: &str, checkpoint: &str) -> f64 {
    let s = submission(report, id);
    let cp = s["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == checkpoint)
        .unwrap_or_else(|| panic!("{id}: no {checkpoint}"));
    cp["score"].as_f64().unwrap() * 100.0
}

fn failures<'a>(report: &'a Value, id: &str, checkpoint: &str) -> Vec<&'a Value> {
    let s = submission(report, id);
    assert_eq!(s["status"], "graded", "{id}: {}", s["error"]);
    s["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == checkpoint)
        .unwrap()["failures"]
        .as_array()
        .unwrap()
        .iter()
        .collect()
}

/// End to end under the first sandbox tier that runs here: the fixtures of
/// `tests/fixtures/fresh-results/` (a module-level list in every NOT_FOUND
/// answer; one closure-held dict for all of them), the model solution and
/// its hashing mutants, graded against `cases/` in one run.
#[test]
fn shared_results_and_hashed_str_fields_fail_end_to_end() {
    let Some(tier) = TIERS
        .into_iter()
        .find(|&t| tier_or_skip(t, "fresh_results"))
    else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let subs = tmp.path().join("subs");
    let model = std::fs::read_to_string(repo().join("submissions/model-solution/main.py")).unwrap();
    let put = |id: &str, text: &str| {
        std::fs::create_dir_all(subs.join(id)).unwrap();
        std::fs::write(subs.join(id).join("main.py"), text).unwrap();
    };
    put("model-solution", &model);
    for (name, old, new, _) in HASHING_MUTANTS {
        assert_eq!(
            model.matches(old).count(),
            1,
            "{name}: the model no longer reads {old:?}"
        );
        put(name, &model.replacen(old, new, 1));
    }
    for id in ["shared-global", "same-object"] {
        let fixture = repo()
            .join("tests/fixtures/fresh-results")
            .join(id)
            .join("main.py");
        put(id, &std::fs::read_to_string(fixture).unwrap());
    }
    let report_path = tmp.path().join("report.json");
    let out = TestCommand::grade(&subs, &repo().join("cases"), &tmp.path().join("work"))
        .args(["--all-failures", "--quiet", "--json"])
        .arg(&report_path)
        .env("AUTOGRADER_ISOLATION", tier_name(tier))
        .output();
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap_or_else(|e| {
            panic!(
                "no report ({e}): {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        }))
        .unwrap();

    // The model solution is untouched by the new rule and the new cases.
    let model_grade = submission(&report, "model-solution");
    assert_eq!(
        model_grade["percent"].as_f64(),
        Some(100.0),
        "{model_grade}"
    );

    // Every NOT_FOUND case of read_file, and nothing else of it.
    let corpus = autograder::corpus::load(&repo().join("cases")).unwrap();
    let not_found: Vec<&str> = corpus
        .cases
        .iter()
        .filter(|c| c.checkpoint == "read_file")
        .filter(|c| {
            let Ok(Outcome::Returns(PyValue::Dict(d))) =
                autograder::reference::call(&c.checkpoint, &c.args, &c.kwargs)
            else {
                return false;
            };
            d.get_str("code")
                .is_some_and(|code| autograder::value::strict_eq(code, &PyValue::str("NOT_FOUND")))
        })
        .map(|c| c.name.as_str())
        .collect();
    assert!(not_found.len() > 10, "{not_found:?}");
    let case_ids = |fs: &[&Value]| -> Vec<String> {
        fs.iter()
            .map(|f| f["case"].as_str().unwrap().to_string())
            .collect()
    };

    let global = failures(&report, "shared-global", "read_file");
    assert_eq!(
        case_ids(&global),
        not_found,
        "shared-global fails exactly the NOT_FOUND cases"
    );
    for f in &global {
        assert_eq!(
            f["reason"],
            "returned an object that is not new: got['available_files'] is main.AVAILABLE_FILES (must be a new dict/list)"
        );
        assert_eq!(f["expected"], f["got"], "right values, wrong objects");
    }

    // The same dict every time: every NOT_FOUND answer after the first one
    // its process ran (a checkpoint's visible cases run in one process, its
    // hidden ones in another, each in corpus order).
    let first_of = |visibility| {
        corpus
            .cases
            .iter()
            .find(|c| {
                c.checkpoint == "read_file"
                    && c.visibility == visibility
                    && not_found.contains(&c.name.as_str())
            })
            .map(|c| c.name.clone())
    };
    use autograder::corpus::Visibility;
    let firsts = [first_of(Visibility::Visible), first_of(Visibility::Hidden)];
    let same = failures(&report, "same-object", "read_file");
    let mut later: Vec<String> = not_found
        .iter()
        .filter(|&&n| !firsts.iter().flatten().any(|f| f == n))
        .map(|n| n.to_string())
        .collect();
    let mut got = case_ids(&same);
    later.sort();
    got.sort();
    assert_eq!(
        got, later,
        "same-object fails every NOT_FOUND case but the first of each process, {firsts:?}"
    );
    for f in &same {
        assert_eq!(
            f["reason"],
            "returned an object that is not new: got is an earlier call's result (must be a new dict/list)"
        );
    }

    // Each hashing mutant now fails where its check is used, on a TypeError.
    for (name, _, _, must_fail) in HASHING_MUTANTS {
        for cp in *must_fail {
            let p = percent_of(&report, name, cp);
            assert!(p < 100.0, "{name} survives on {cp}");
            assert!(
                failures(&report, name, cp).iter().any(|f| f["reason"]
                    .as_str()
                    .unwrap()
                    .starts_with("raised TypeError: unhashable type")),
                "{name}: no unhashable value failed {cp}"
            );
        }
        say!(
            "{name}: {:.2}% ({})",
            submission(&report, name)["percent"].as_f64().unwrap(),
            must_fail.join(", ")
        );
    }
}
