//! Lesson 04 — `tool-results`: `run_tool`, `run_tools`, `check_tool_results`,
//! exactly as `checkpoints.md` defines them.
//!
//! The tools are lesson 03's (`multiply`, `stock`, same argument rules and
//! catalogue). Structural errors in what the model sent raise `ValueError`; a
//! tool that fails on its input becomes an `error` result whose wording is
//! the student's (a matcher: any non-empty str).

use super::json;
use super::tool_proposals::{fullmatches, Tool};
use super::{Checkpoint, Param, Refusal};
use crate::value::{Matcher, PyDict, PyStr, PyValue};

/// At most this many parts in a message.
pub const MAX_PARTS: usize = 16;
/// A tool_use id fullmatches `[a-zA-Z0-9_-]{1,64}`.
pub const MAX_ID: usize = 64;

/// The lesson's checkpoints, in course order.
pub const CHECKPOINTS: &[Checkpoint] = &[
    Checkpoint {
        name: "run_tool",
        params: &[Param::required("name"), Param::required("input")],
        run: |a| run_tool(&a[0], &a[1]),
        tags: &[
            "valid",
            "unknown-tool",
            "boolean-ints",
            "wrong-types",
            "missing-or-extra-fields",
            "out-of-range",
            "size-limits",
            "surrogates",
            "nan-infinity",
            "aliasing-and-mutation",
        ],
    },
    Checkpoint {
        name: "run_tools",
        params: &[Param::required("parts")],
        run: |a| run_tools(&a[0]),
        tags: &[
            "valid",
            "unknown-tool",
            "unpaired-results",
            "bad-ids",
            "boolean-ints",
            "wrong-types",
            "missing-or-extra-fields",
            "out-of-range",
            "size-limits",
            "surrogates",
            "nan-infinity",
            "aliasing-and-mutation",
        ],
    },
    Checkpoint {
        name: "check_tool_results",
        params: &[
            Param::required("assistant_parts"),
            Param::required("user_parts"),
        ],
        run: |a| check_tool_results(&a[0], &a[1]),
        tags: &[
            "valid",
            "unpaired-results",
            "shuffled-results",
            "bad-ids",
            "unknown-tool",
            "boolean-ints",
            "wrong-types",
            "missing-or-extra-fields",
            "size-limits",
            "surrogates",
            "aliasing-and-mutation",
        ],
    },
];

/// `run_tool(name, input)`: the tool's result as a new dict, or a refusal
/// (an unknown tool, or input that is not the tool's arguments).
pub fn run_tool(name: &PyValue, input: &PyValue) -> Result<PyValue, Refusal> {
    let tool = Tool::named(name).ok_or("unknown tool")?;
    let arguments = tool.check_arguments(input)?;
    Ok(tool.run(arguments))
}

/// Whether a str is a tool_use id: fullmatches `[a-zA-Z0-9_-]{1,64}`.
fn is_tool_use_id(s: &PyStr) -> bool {
    fullmatches(s, MAX_ID, |b| {
        b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
    })
}

/// A list of at most 16 dicts, each holding a str `type`: the parts and
/// their types.
fn parts_of(parts: &PyValue) -> Result<Vec<(&PyStr, &PyDict)>, Refusal> {
    let items = parts
        .as_list()
        .filter(|l| l.len() <= MAX_PARTS)
        .ok_or("parts must be a list of at most 16 items")?;
    items
        .iter()
        .map(|p| {
            let d = p.as_dict().ok_or("a part must be a dict")?;
            let t = d
                .get_str("type")
                .and_then(PyValue::as_str)
                .ok_or("a part holds a str type")?;
            Ok((t, d))
        })
        .collect()
}

/// A tool_use part that passed `run_tools` steps 1–2.
struct ToolUse<'a> {
    id: &'a PyStr,
    name: &'a PyValue,
    input: &'a PyValue,
}

/// `run_tools` steps 1–2: the tool_use parts of `parts`, in order.
fn tool_uses(parts: &PyValue) -> Result<Vec<ToolUse<'_>>, Refusal> {
    let mut uses: Vec<ToolUse> = Vec::new();
    for (t, d) in parts_of(parts)? {
        if !t.eq_str("tool_use") {
            continue;
        }
        if !d.has_exact_str_keys(&["type", "id", "name", "input"]) {
            return Err("a tool_use part has exactly the keys type, id, name, input".into());
        }
        let id = d
            .get_str("id")
            .and_then(PyValue::as_str)
            .filter(|id| is_tool_use_id(id))
            .ok_or("bad tool_use id")?;
        if uses.iter().any(|u| u.id == id) {
            return Err("two tool_use parts share an id".into());
        }
        let field = |k: &str| d.get_str(k).unwrap_or(&PyValue::None);
        uses.push(ToolUse {
            id,
            name: field("name"),
            input: field("input"),
        });
    }
    Ok(uses)
}

/// `run_tools(parts)`: one tool_result per tool_use part, in order; a tool
/// that fails is an `error` result (any non-empty wording), never a raise.
pub fn run_tools(parts: &PyValue) -> Result<PyValue, Refusal> {
    let results = tool_uses(parts)?
        .into_iter()
        .map(|u| {
            let (content, status) = match run_tool(u.name, u.input) {
                Ok(r) => {
                    let text = json::dumps(&r).map_err(|e| e.to_string())?;
                    (PyValue::Str(text), "success")
                }
                Err(_) => (PyValue::Match(Matcher::non_empty_str()), "error"),
            };
            Ok(PyValue::dict_of(vec![
                ("type", PyValue::str("tool_result")),
                ("tool_use_id", PyValue::Str(u.id.clone())),
                ("content", content),
                ("status", PyValue::str(status)),
            ]))
        })
        .collect::<Result<Vec<_>, Refusal>>()?;
    Ok(PyValue::List(results))
}

/// `check_tool_results(assistant_parts, user_parts)`: every tool_use answered
/// exactly once, by its id; `[{'id', 'name', 'status'}]` in tool_use order.
pub fn check_tool_results(
    assistant_parts: &PyValue,
    user_parts: &PyValue,
) -> Result<PyValue, Refusal> {
    let uses = tool_uses(assistant_parts)?;
    for u in &uses {
        if u.name.as_str().is_none() || u.input.as_dict().is_none() {
            return Err("a tool_use part has a str name and a dict input".into());
        }
    }
    let mut answers: Vec<Option<&PyStr>> = vec![None; uses.len()];
    let mut others_seen = false;
    for (t, d) in parts_of(user_parts)? {
        if !t.eq_str("tool_result") {
            others_seen = true;
            continue;
        }
        if others_seen {
            return Err("tool_result parts come first".into());
        }
        if !d.has_exact_str_keys(&["type", "tool_use_id", "content", "status"]) {
            return Err(
                "a tool_result part has exactly the keys type, tool_use_id, content, status".into(),
            );
        }
        let id = d
            .get_str("tool_use_id")
            .and_then(PyValue::as_str)
            .ok_or("tool_use_id must be a str")?;
        let slot = uses
            .iter()
            .position(|u| u.id == id)
            .ok_or("a result answers no tool_use")?;
        if answers[slot].is_some() {
            return Err("a tool_use answered twice".into());
        }
        let content = d
            .get_str("content")
            .and_then(PyValue::as_str)
            .ok_or("content must be a str")?;
        let status = d
            .get_str("status")
            .and_then(PyValue::as_str)
            .filter(|s| s.eq_str("success") || s.eq_str("error"))
            .ok_or("status must be 'success' or 'error'")?;
        if status.eq_str("error") && content.is_empty() {
            return Err("an error result says what went wrong".into());
        }
        answers[slot] = Some(status);
    }
    uses.iter()
        .zip(answers)
        .map(|(u, status)| {
            let status = status.ok_or("a tool_use is unanswered")?;
            Ok(PyValue::dict_of(vec![
                ("id", PyValue::Str(u.id.clone())),
                ("name", u.name.clone()),
                ("status", PyValue::Str(status.clone())),
            ]))
        })
        .collect::<Result<Vec<_>, Refusal>>()
        .map(PyValue::List)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{matches, strict_eq};

    fn s(text: &str) -> PyValue {
        PyValue::str(text)
    }

    fn args(entries: Vec<(&str, PyValue)>) -> PyValue {
        PyValue::dict_of(entries)
    }

    fn tool_use(id: &str, name: PyValue, input: PyValue) -> PyValue {
        PyValue::dict_of(vec![
            ("type", s("tool_use")),
            ("id", s(id)),
            ("name", name),
            ("input", input),
        ])
    }

    fn result(id: &str, content: &str, status: &str) -> PyValue {
        PyValue::dict_of(vec![
            ("type", s("tool_result")),
            ("tool_use_id", s(id)),
            ("content", s(content)),
            ("status", s(status)),
        ])
    }

    fn mul(x: PyValue, y: PyValue) -> PyValue {
        args(vec![("x", x), ("y", y)])
    }

    #[test]
    fn run_tool_matches_or_refuses() {
        let r = run_tool(&s("multiply"), &mul(PyValue::int(6), PyValue::int(7))).unwrap();
        assert!(strict_eq(&r, &args(vec![("value", PyValue::int(42))])));
        let r = run_tool(&s("stock"), &args(vec![("sku", s("eraser"))])).unwrap();
        assert!(strict_eq(
            &r,
            &args(vec![
                ("found", PyValue::Bool(false)),
                ("quantity", PyValue::None)
            ])
        ));
        for name in [s("Multiply"), s("multiply "), s("add"), PyValue::None] {
            assert!(run_tool(&name, &mul(PyValue::int(1), PyValue::int(1))).is_err());
        }
        assert!(run_tool(&s("multiply"), &mul(PyValue::Bool(true), PyValue::int(1))).is_err());
        assert!(run_tool(&s("multiply"), &args(vec![("sku", s("pen"))])).is_err());
        assert!(run_tool(&s("stock"), &PyValue::List(vec![])).is_err());
    }

    #[test]
    fn run_tools_answers_each_tool_use_and_errors_are_data() {
        let parts = PyValue::List(vec![
            args(vec![("type", s("text")), ("text", s("Let me check."))]),
            tool_use("a", s("multiply"), mul(PyValue::int(6), PyValue::int(7))),
            tool_use("b", s("stock"), args(vec![("sku", s("pen"))])),
            tool_use("c", s("divide"), args(vec![])),
        ]);
        let got = run_tools(&parts).unwrap();
        let want = |c2: PyValue| {
            PyValue::List(vec![
                result("a", r#"{"value": 42}"#, "success"),
                result("b", r#"{"found": true, "quantity": 30}"#, "success"),
                PyValue::dict_of(vec![
                    ("type", s("tool_result")),
                    ("tool_use_id", s("c")),
                    ("content", c2),
                    ("status", s("error")),
                ]),
            ])
        };
        assert!(strict_eq(
            &got,
            &want(PyValue::Match(Matcher::non_empty_str()))
        ));
        assert!(matches(&got, &want(s("unknown tool: divide"))));
        assert!(!matches(&got, &want(s(""))));
        let dup = PyValue::List(vec![
            tool_use("a", s("stock"), args(vec![("sku", s("pen"))])),
            tool_use("a", s("stock"), args(vec![("sku", s("pen"))])),
        ]);
        assert!(run_tools(&dup).is_err());
        assert!(strict_eq(
            &run_tools(&PyValue::List(vec![])).unwrap(),
            &PyValue::List(vec![])
        ));
        let seventeen = PyValue::List(vec![args(vec![("type", s("text"))]); 17]);
        assert!(run_tools(&seventeen).is_err());
        assert!(run_tools(&PyValue::List(vec![args(vec![("type", PyValue::None)])])).is_err());
        let id64 = "i".repeat(64);
        assert!(run_tools(&PyValue::List(vec![tool_use(&id64, s("x"), PyValue::None)])).is_ok());
        let id65 = "i".repeat(65);
        assert!(run_tools(&PyValue::List(vec![tool_use(&id65, s("x"), PyValue::None)])).is_err());
    }

    #[test]
    fn check_tool_results_pairs_every_request_once() {
        let assistant = PyValue::List(vec![
            tool_use("a", s("multiply"), mul(PyValue::int(6), PyValue::int(7))),
            tool_use("b", s("Nope"), args(vec![])),
        ]);
        let run = |user: Vec<PyValue>| check_tool_results(&assistant, &PyValue::List(user));
        let ra = result("a", "42", "success");
        let rb = result("b", " ", "error");
        let got = run(vec![rb.clone(), ra.clone()]).unwrap();
        let row = |id: &str, name: &str, status: &str| {
            PyValue::dict_of(vec![
                ("id", s(id)),
                ("name", s(name)),
                ("status", s(status)),
            ])
        };
        assert!(strict_eq(
            &got,
            &PyValue::List(vec![
                row("a", "multiply", "success"),
                row("b", "Nope", "error")
            ])
        ));
        let text = args(vec![("type", s("text")), ("text", s("thanks"))]);
        assert!(run(vec![ra.clone(), rb.clone(), text.clone()]).is_ok());
        assert!(run(vec![ra.clone(), text, rb.clone()]).is_err());
        assert!(run(vec![ra.clone()]).is_err());
        assert!(run(vec![ra.clone(), ra.clone(), rb.clone()]).is_err());
        assert!(run(vec![ra.clone(), result("b", "", "error")]).is_err());
        assert!(run(vec![ra.clone(), result("b", "", "success")]).is_ok());
        assert!(run(vec![ra, rb, result("z", "x", "success")]).is_err());
        let none = PyValue::List(vec![]);
        assert!(strict_eq(&check_tool_results(&none, &none).unwrap(), &none));
        let bad_input = PyValue::List(vec![tool_use("a", s("multiply"), PyValue::None)]);
        assert!(check_tool_results(&bad_input, &none).is_err());
    }
}
