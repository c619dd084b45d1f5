//! Verdicts per `checkpoints.md`: each rule and its edges.

use autograder::grade::{judge, Verdict};
use autograder::recording::format::{ArgChange, CaseOutcome, MemoryLimit, MemoryScope};
use autograder::value::{tagged, Exception, Outcome};
use serde_json::{json, Value};

const VE_MRO: &[&str] = &["ValueError", "Exception", "BaseException", "object"];

fn returns(v: Value) -> Outcome {
    Outcome::Returns(tagged::decode(&v).expect("valid tagged JSON"))
}

fn raises() -> Outcome {
    Outcome::Raises(Exception::ValueError)
}

fn returned(v: Value) -> CaseOutcome {
    CaseOutcome::Returned {
        value: v.into(),
        shares_with_args: false,
        args_changed: false,
        shares_with_state: false,
        shared: None,
        changed: None,
    }
}

fn raised(class: &str, mro: &[&str], message: &str) -> CaseOutcome {
    CaseOutcome::Raised {
        class: class.into(),
        mro: mro.iter().map(|s| s.to_string()).collect(),
        message: message.into(),
    }
}

fn check(expected: &Outcome, got: CaseOutcome) -> Verdict {
    judge(expected, Some(&got))
}

fn reason(v: &Verdict) -> &str {
    assert!(!v.passed, "expected a failure");
    v.reason.as_deref().expect("a failure has a reason")
}

#[test]
fn one_true_and_one_point_zero_are_three_values() {
    let values = [json!(1), json!(true), json!(1.0)];
    for (i, want) in values.iter().enumerate() {
        for (j, got) in values.iter().enumerate() {
            let v = check(&returns(want.clone()), returned(got.clone()));
            assert_eq!(v.passed, i == j, "expected {want} got {got}");
        }
    }
    let v = check(&returns(json!(1)), returned(json!(true)));
    assert_eq!(reason(&v), "returned a wrong value: True");
    assert_eq!(v.got.as_deref(), Some("True"));
}

#[test]
fn tuple_is_not_list() {
    let want = returns(json!({"$tuple": [1, 2]}));
    assert!(!check(&want, returned(json!([1, 2]))).passed);
    assert!(check(&want, returned(json!({"$tuple": [1, 2]}))).passed);
    assert!(!check(&returns(json!([])), returned(json!({"$tuple": []}))).passed);
}

#[test]
fn nan_equals_nan() {
    let want = returns(json!({"x": {"$float": "nan"}}));
    assert!(check(&want, returned(json!({"x": {"$float": "nan"}}))).passed);
    assert!(!check(&want, returned(json!({"x": {"$float": "inf"}}))).passed);
}

#[test]
fn dict_order_is_ignored_list_order_is_not() {
    let want = returns(json!({"a": 1, "b": [1, 2]}));
    assert!(check(&want, returned(json!({"b": [1, 2], "a": 1}))).passed);
    assert!(!check(&want, returned(json!({"b": [2, 1], "a": 1}))).passed);
}

#[test]
fn ordered_dict_recorded_as_plain_dict_passes() {
    // The harness records a dict subclass (OrderedDict) as a plain dict, here
    // with its own key order: it counts as a dict.
    let want = returns(json!({"id": "c1", "name": "stock", "arguments": {"sku": "pen"}}));
    let got = returned(json!({"arguments": {"sku": "pen"}, "name": "stock", "id": "c1"}));
    assert!(check(&want, got).passed);
}

#[test]
fn value_error_and_its_subclasses_pass() {
    assert!(check(&raises(), raised("ValueError", VE_MRO, "bad")).passed);
    let json_err = [
        "json.decoder.JSONDecodeError",
        "ValueError",
        "Exception",
        "BaseException",
        "object",
    ];
    let v = check(
        &raises(),
        raised("JSONDecodeError", &json_err, "Expecting value"),
    );
    assert!(v.passed && v.reason.is_none());
    let unicode = [
        "UnicodeEncodeError",
        "UnicodeError",
        "ValueError",
        "Exception",
        "BaseException",
        "object",
    ];
    assert!(
        check(
            &raises(),
            raised("UnicodeEncodeError", &unicode, "surrogates")
        )
        .passed
    );
    let own_sub = [
        "main.BadTicket",
        "ValueError",
        "Exception",
        "BaseException",
        "object",
    ];
    assert!(check(&raises(), raised("BadTicket", &own_sub, "")).passed);
}

#[test]
fn type_error_where_value_error_expected_fails() {
    let v = check(
        &raises(),
        raised(
            "TypeError",
            &["TypeError", "Exception", "BaseException", "object"],
            "nope",
        ),
    );
    assert_eq!(reason(&v), "raised TypeError: nope");
    assert_eq!(v.brief.as_deref(), Some("raised TypeError"));
    for (class, mro) in [
        (
            "KeyError",
            vec![
                "KeyError",
                "LookupError",
                "Exception",
                "BaseException",
                "object",
            ],
        ),
        (
            "RecursionError",
            vec![
                "RecursionError",
                "RuntimeError",
                "Exception",
                "BaseException",
                "object",
            ],
        ),
    ] {
        assert!(!check(&raises(), raised(class, &mro, "")).passed, "{class}");
    }
}

#[test]
fn student_class_named_value_error_fails() {
    let mro = ["main.ValueError", "Exception", "BaseException", "object"];
    let v = check(&raises(), raised("ValueError", &mro, "bad id"));
    assert_eq!(
        reason(&v),
        "raised main.ValueError: bad id (a class of its own, not the builtin ValueError)"
    );
}

#[test]
fn raising_when_a_value_is_expected_fails() {
    let v = check(
        &returns(json!({"a": 1})),
        raised("ValueError", VE_MRO, "no"),
    );
    assert_eq!(reason(&v), "raised ValueError: no");
}

#[test]
fn returning_when_value_error_expected_fails() {
    let v = check(&raises(), returned(json!({"a": [1, "x"]})));
    assert_eq!(
        reason(&v),
        "expected ValueError, got return {'a': [1, 'x']}"
    );
    assert_eq!(
        v.brief.as_deref(),
        Some("expected ValueError, got a return value")
    );
}

#[test]
fn aliased_result_fails_even_when_equal() {
    let want = returns(json!({"x": 1}));
    let got = CaseOutcome::Returned {
        value: json!({"x": 1}).into(),
        shares_with_args: true,
        args_changed: false,
        shares_with_state: false,
        shared: None,
        changed: None,
    };
    assert_eq!(
        reason(&check(&want, got)),
        "returned an object that is also in its arguments (must be a new dict/list)"
    );
}

#[test]
fn mutated_argument_fails_even_when_equal() {
    let want = returns(json!({"x": 1}));
    let got = CaseOutcome::Returned {
        value: json!({"x": 1}).into(),
        shares_with_args: false,
        args_changed: true,
        shares_with_state: false,
        shared: None,
        changed: None,
    };
    assert_eq!(reason(&check(&want, got.clone())), "changed its argument");
    // Where the recording says where: the path from the parameter's name
    // (the checkpoint's signature), the part before and after the call.
    let CaseOutcome::Returned { value, .. } = got else {
        unreachable!()
    };
    let got = CaseOutcome::Returned {
        value,
        shares_with_args: false,
        args_changed: true,
        shares_with_state: false,
        shared: None,
        changed: Some(ArgChange {
            path: "args[0]['args'][1]".into(),
            before: Some(json!(2).into()),
            after: Some(json!("\u{1b}[2J").into()),
        }),
    };
    let v = autograder::grade::verdict::judge_case("validate_tool_call", &want, Some(&got));
    assert_eq!(
        reason(&v),
        r"changed its argument: call['args'][1] was 2 before the call, '\x1b[2J' after"
    );
    // The brief may stand for a hidden case: it names no value.
    assert_eq!(v.brief.as_deref(), Some("changed its argument"));
}

#[test]
fn a_wrong_value_is_reported_before_aliasing() {
    let got = CaseOutcome::Returned {
        value: json!({"x": 2}).into(),
        shares_with_args: true,
        args_changed: true,
        shares_with_state: false,
        shared: None,
        changed: None,
    };
    assert_eq!(
        reason(&check(&returns(json!({"x": 1})), got)),
        "returned a wrong value: {'x': 2}"
    );
}

#[test]
fn outcomes_without_a_value_have_plain_reasons() {
    let cases: Vec<(CaseOutcome, &str)> = vec![
        (
            CaseOutcome::Timeout {
                seconds: 2.0,
                submission_budget: None,
            },
            "timed out after 2 s",
        ),
        (
            CaseOutcome::Timeout {
                seconds: 0.5,
                submission_budget: None,
            },
            "timed out after 0.5 s",
        ),
        (
            CaseOutcome::Crashed {
                exit_code: Some(3),
                signal: None,
            },
            "crashed (exit code 3)",
        ),
        (
            CaseOutcome::Crashed {
                exit_code: None,
                signal: Some(9),
            },
            "crashed (killed by signal 9)",
        ),
        (
            CaseOutcome::Crashed {
                exit_code: None,
                signal: None,
            },
            "crashed",
        ),
        (
            CaseOutcome::OutOfMemory { limit: None },
            "ran out of memory",
        ),
        (
            CaseOutcome::OutOfMemory {
                limit: Some(MemoryLimit {
                    bytes: 1 << 30,
                    of: MemoryScope::Process,
                }),
            },
            "ran out of memory (limit: 1 GiB a process)",
        ),
        (
            CaseOutcome::OutOfMemory {
                limit: Some(MemoryLimit {
                    bytes: 768 << 20,
                    of: MemoryScope::Grader,
                }),
            },
            "ran out of memory (limit: 768 MiB for the grader's container or job)",
        ),
        (
            CaseOutcome::OutOfMemory {
                limit: Some(MemoryLimit {
                    bytes: 24 << 30,
                    of: MemoryScope::Machine,
                }),
            },
            "ran out of memory (the machine's 24 GiB)",
        ),
        (CaseOutcome::Missing, "function not defined"),
        (
            CaseOutcome::OutputTooLarge,
            "returned a value too large to record",
        ),
        (
            CaseOutcome::ImportError {
                exc_type: "SyntaxError".into(),
                message: "invalid syntax".into(),
                line: Some(12),
                source_line: None,
            },
            "main.py did not import: SyntaxError line 12: invalid syntax",
        ),
        (
            CaseOutcome::ImportError {
                exc_type: "ModuleNotFoundError".into(),
                message: String::new(),
                line: None,
                source_line: None,
            },
            "main.py did not import: ModuleNotFoundError",
        ),
    ];
    for want in [raises(), returns(json!(null))] {
        for (got, text) in &cases {
            let v = check(&want, got.clone());
            assert_eq!(reason(&v), *text);
            assert!(v.got.is_none());
        }
    }
    let v = judge(&raises(), None);
    assert_eq!(reason(&v), "not recorded");
}

#[test]
fn unreadable_recorded_values_fail_without_panicking() {
    for bad in [
        json!({"$nope": 1}),
        json!({"$str": [1114112]}),
        json!({"$dict": [[[1], 2]]}),
        json!({"$int": "12x"}),
        json!([1, {"$float": "big"}]),
        json!({"$a": 1, "$b": 2}),
    ] {
        for want in [raises(), returns(json!(1))] {
            let v = check(&want, returned(bad.clone()));
            assert!(
                reason(&v)
                    .starts_with("returned a value that could not be read from the recording: "),
                "{bad}: {:?}",
                v.reason
            );
        }
    }
}

#[test]
fn student_text_cannot_inject_terminal_escapes() {
    let v = check(
        &raises(),
        raised(
            "TypeError",
            &["TypeError", "Exception"],
            "\x1b[2Jgone\nline",
        ),
    );
    let r = reason(&v);
    assert!(!r.chars().any(|c| c.is_control()), "{r:?}");
    assert_eq!(r, "raised TypeError: \\x1b[2Jgone\\nline");
}

#[test]
fn big_ints_and_surrogates_compare_exactly() {
    let big = "123456789012345678901234567890";
    let want = returns(json!({"$int": big}));
    assert!(check(&want, returned(json!({"$int": big}))).passed);
    assert!(!check(&want, returned(json!(1.2345678901234568e29))).passed);
    let want = returns(json!({"$str": [97, 0xD800]}));
    assert!(check(&want, returned(json!({"$str": [97, 0xD800]}))).passed);
    assert!(!check(&want, returned(json!("a"))).passed);
}

#[test]
fn opaque_values_never_pass() {
    let opaque = json!({"$opaque": {"type": "set", "repr": "{1}"}});
    let v = check(&returns(json!([1])), returned(opaque));
    assert_eq!(reason(&v), "returned a wrong value: {1}");
}

#[test]
fn long_values_are_cut_in_reasons() {
    let long = "x".repeat(5000);
    let v = check(&raises(), returned(json!(long)));
    let r = reason(&v);
    assert!(r.chars().count() < 200, "{}", r.len());
    assert!(r.ends_with("… (4882 more characters)"), "{r}");
    // The full repr stays available for the report (which cuts it itself).
    assert_eq!(v.got.as_deref().map(str::len), Some(5002));
}

/// An expected value with matchers, from tagged JSON.
fn expects(v: Value) -> Outcome {
    Outcome::Returns(tagged::decode_expected(&v).expect("valid tagged JSON"))
}

fn any_non_empty() -> Value {
    json!({"$match": {"call": "any_str(min_len=1)"}})
}

#[test]
fn a_matcher_accepts_its_class_and_everything_else_stays_strict() {
    let want =
        expects(json!([{"type": "tool_result", "content": any_non_empty(), "status": "error"}]));
    let got = |content: Value, status: &str| {
        returned(json!([{"type": "tool_result", "content": content, "status": status}]))
    };
    assert!(check(&want, got(json!("x is not a tool"), "error")).passed);
    assert!(check(&want, got(json!(" "), "error")).passed);
    assert!(check(&want, got(json!({"$str": [0xD800]}), "error")).passed);
    for bad in [
        json!(""),
        json!(1),
        json!(null),
        json!(["x"]),
        json!({"$opaque": {"type": "S", "repr": "'x'"}}),
    ] {
        let v = check(&want, got(bad.clone(), "error"));
        assert!(!v.passed, "{bad} accepted");
        assert!(reason(&v).starts_with("returned a wrong value"));
    }
    // Around the matcher, strict equality as before.
    assert!(!check(&want, got(json!("boom"), "success")).passed);
    let extra =
        returned(json!([{"type": "tool_result", "content": "x", "status": "error", "id": 1}]));
    assert!(!check(&want, extra).passed);
    // The fresh-result and untouched-input rules still hold.
    let shared = CaseOutcome::Returned {
        value: json!([{"type": "tool_result", "content": "x", "status": "error"}]).into(),
        shares_with_args: true,
        args_changed: false,
        shares_with_state: false,
        shared: None,
        changed: None,
    };
    assert!(!check(&want, shared).passed);
}

#[test]
fn a_recording_can_never_hold_a_matcher() {
    // A forged recording answering with a matcher does not read as one.
    let want = expects(json!({"content": any_non_empty()}));
    let v = check(&want, returned(json!({"content": any_non_empty()})));
    assert!(!v.passed);
    assert!(
        reason(&v).contains("could not be read from the recording"),
        "{}",
        reason(&v)
    );
    let anything = expects(json!({"$match": {"call": "any()"}}));
    assert!(check(&anything, returned(json!(null))).passed);
    assert!(!check(&anything, returned(json!({"$match": {"call": "any()"}}))).passed);
}

#[test]
fn failures_show_matchers_readably_and_diff_only_what_is_wrong() {
    use autograder::corpus::{Case, Visibility};
    use autograder::grade::feedback::failure;
    let want = expects(json!([
        {"tool_use_id": "a", "content": any_non_empty(), "status": "error"},
        {"tool_use_id": "b", "content": "{\"value\": 42}", "status": "success"}
    ]));
    let got = returned(json!([
        {"tool_use_id": "a", "content": "unknown tool", "status": "error"},
        {"tool_use_id": "b", "content": "{\"value\": 43}", "status": "success"}
    ]));
    let v = check(&want, got);
    assert!(!v.passed);
    let case = Case {
        id: "run_tools/c".into(),
        name: "c".into(),
        lesson: "tool-results".into(),
        checkpoint: "run_tools".into(),
        call: "run_tools([])".into(),
        args: vec![],
        kwargs: vec![],
        lets: vec![],
        tags: vec!["valid".into()],
        visibility: Visibility::Visible,
        weight: 1,
        expect: None,
        note: None,
        file: "x.toml".into(),
        line: 1,
    };
    let f = failure(&case, &want, &v);
    let expected = f.expected.as_deref().unwrap();
    assert!(
        expected.contains("'content': <any non-empty str>"),
        "{expected}"
    );
    let diff = f.diff.as_deref().unwrap();
    assert!(
        !diff.contains("<any non-empty str>"),
        "an accepted place is not a difference:\n{diff}"
    );
    assert!(
        !diff.contains("-        'content': 'unknown tool'"),
        "{diff}"
    );
    assert!(
        diff.contains("+        'content': '{\"value\": 43}',"),
        "{diff}"
    );
    assert_eq!(f.matchers.len(), 1);
    assert_eq!(f.matchers[0].at, "[0]['content']");
    assert_eq!(f.matchers[0].matcher, "any_str(min_len=1)");
    assert_eq!(f.matchers[0].text, "<any non-empty str>");
}
