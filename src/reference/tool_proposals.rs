//! Lesson 03 — `tool-proposals`: `validate_tool_call`, `execute_tool`,
//! `order_tool_results`, exactly as `checkpoints.md` defines them.

use super::{Checkpoint, Param, Refusal};
use crate::value::{PyDict, PyStr, PyValue};
use num_bigint::BigInt;

/// The tags every checkpoint of this lesson is tested with.
const TAGS: &[&str] = &[
    "valid",
    "duplicate-keys",
    "nan-infinity",
    "deep-nesting",
    "surrogates",
    "boolean-ints",
    "bad-ids",
    "size-limits",
    "wrong-types",
    "missing-or-extra-fields",
    "out-of-range",
    "trailing-garbage",
    "aliasing-and-mutation",
];

/// The lesson's checkpoints, in course order.
pub const CHECKPOINTS: &[Checkpoint] = &[
    Checkpoint {
        name: "validate_tool_call",
        params: &[Param::required("call")],
        run: |a| validate_tool_call(&a[0]),
        tags: TAGS_VTC,
    },
    Checkpoint {
        name: "execute_tool",
        params: &[Param::required("call")],
        run: |a| execute_tool(&a[0]),
        tags: TAGS,
    },
    Checkpoint {
        name: "order_tool_results",
        params: &[Param::required("calls"), Param::required("results")],
        run: |a| order_tool_results(&a[0], &a[1]),
        tags: TAGS_OTR,
    },
];

/// `validate_tool_call` also checks ids for Unicode look-alikes.
const TAGS_VTC: &[&str] = &[
    "valid",
    "duplicate-keys",
    "nan-infinity",
    "deep-nesting",
    "surrogates",
    "boolean-ints",
    "bad-ids",
    "size-limits",
    "wrong-types",
    "missing-or-extra-fields",
    "out-of-range",
    "unicode-offsets",
    "trailing-garbage",
    "aliasing-and-mutation",
];

/// `order_tool_results` also pairs shuffled results.
const TAGS_OTR: &[&str] = &[
    "valid",
    "duplicate-keys",
    "nan-infinity",
    "deep-nesting",
    "surrogates",
    "boolean-ints",
    "bad-ids",
    "shuffled-results",
    "size-limits",
    "wrong-types",
    "missing-or-extra-fields",
    "out-of-range",
    "trailing-garbage",
    "aliasing-and-mutation",
];

/// `|x|, |y| <= 1_000_000` for multiply.
pub const MAX_FACTOR: i64 = 1_000_000;
/// `|value| <= 10**12` for a multiply result.
pub const MAX_PRODUCT: i64 = 1_000_000_000_000;
/// A found item's quantity is in `0..=1_000_000`.
pub const MAX_QUANTITY: i64 = 1_000_000;
/// At most this many calls per batch.
pub const MAX_CALLS: usize = 8;
/// The fixed stock catalogue.
pub const CATALOGUE: &[(&str, i64)] = &[("notebook", 12), ("pen", 30)];

/// The two tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tool {
    Multiply,
    Stock,
}

impl Tool {
    /// The tool a name names: a str equal to `multiply` or `stock` (never
    /// looked up dynamically; another case, type or spelling names nothing).
    pub(crate) fn named(name: &PyValue) -> Option<Tool> {
        match name.as_str() {
            Some(n) if n.eq_str("multiply") => Some(Tool::Multiply),
            Some(n) if n.eq_str("stock") => Some(Tool::Stock),
            _ => None,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Tool::Multiply => "multiply",
            Tool::Stock => "stock",
        }
    }

    /// `validate_tool_call` steps 4–5: the tool's arguments, checked.
    pub(crate) fn check_arguments(self, arguments: &PyValue) -> Result<&PyDict, Refusal> {
        let arguments = arguments.as_dict().ok_or("arguments must be a dict")?;
        match self {
            Tool::Multiply => {
                let ok = arguments.has_exact_str_keys(&["x", "y"])
                    && ["x", "y"].iter().all(|k| {
                        arguments
                            .get_str(k)
                            .and_then(|v| exact_int_within(v, MAX_FACTOR))
                            .is_some()
                    });
                if !ok {
                    return Err("multiply takes exact ints x, y with |v| <= 1_000_000".into());
                }
            }
            Tool::Stock => {
                let ok = arguments.has_exact_str_keys(&["sku"])
                    && arguments
                        .get_str("sku")
                        .and_then(PyValue::as_str)
                        .is_some_and(|s| {
                            fullmatches(s, 30, |b| {
                                b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'
                            })
                        });
                if !ok {
                    return Err("stock takes exactly a valid sku".into());
                }
            }
        }
        Ok(arguments)
    }

    /// Runs the tool on checked arguments: `{'value': x * y}`, or
    /// `{'found': bool, 'quantity': int or None}`, keys in that order.
    pub(crate) fn run(self, arguments: &PyDict) -> PyValue {
        let arg = |k: &str| arguments.get_str(k).cloned().unwrap_or(PyValue::None);
        match self {
            Tool::Multiply => {
                let product = match (arg("x"), arg("y")) {
                    (PyValue::Int(x), PyValue::Int(y)) => PyValue::Int(x * y),
                    _ => PyValue::None, // unreachable: checked arguments
                };
                PyValue::dict_of(vec![("value", product)])
            }
            Tool::Stock => {
                let quantity = arg("sku").as_str().and_then(|sku| {
                    CATALOGUE
                        .iter()
                        .find(|(name, _)| sku.eq_str(name))
                        .map(|&(_, q)| q)
                });
                PyValue::dict_of(vec![
                    ("found", PyValue::Bool(quantity.is_some())),
                    ("quantity", quantity.map_or(PyValue::None, PyValue::int)),
                ])
            }
        }
    }
}

/// A call that passed checkpoint 1.
struct ValidCall<'a> {
    id: &'a PyStr,
    tool: Tool,
    arguments: &'a PyDict,
}

/// `re.fullmatch(r'[...]{1,max}', s)` for an ASCII class.
pub(crate) fn fullmatches(s: &PyStr, max: usize, allowed: impl Fn(u8) -> bool) -> bool {
    (1..=max).contains(&s.len()) && s.all_ascii_in(allowed)
}

/// `type(v) is int and abs(v) <= bound`.
fn exact_int_within(v: &PyValue, bound: i64) -> Option<&BigInt> {
    v.as_exact_int()
        .filter(|i| i.magnitude() <= BigInt::from(bound).magnitude())
}

fn check_call(call: &PyValue) -> Result<ValidCall<'_>, Refusal> {
    let d = call
        .as_dict()
        .filter(|d| d.has_exact_str_keys(&["id", "name", "arguments"]))
        .ok_or("a call has exactly the keys id, name, arguments")?;
    let id = d
        .get_str("id")
        .and_then(PyValue::as_str)
        .filter(|s| {
            fullmatches(s, 32, |b| {
                b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
            })
        })
        .ok_or("bad call id")?;
    let tool = d
        .get_str("name")
        .and_then(Tool::named)
        .ok_or("unknown tool")?;
    let arguments = tool.check_arguments(d.get_str("arguments").unwrap_or(&PyValue::None))?;
    Ok(ValidCall {
        id,
        tool,
        arguments,
    })
}

/// `validate_tool_call(call)`: the call as a new dict, or a refusal.
pub fn validate_tool_call(call: &PyValue) -> Result<PyValue, Refusal> {
    let c = check_call(call)?;
    Ok(PyValue::dict_of(vec![
        ("id", PyValue::Str(c.id.clone())),
        ("name", PyValue::str(c.tool.name())),
        ("arguments", PyValue::Dict(c.arguments.clone())),
    ]))
}

/// `execute_tool(call)`: validate, then run the one tool the call names.
pub fn execute_tool(call: &PyValue) -> Result<PyValue, Refusal> {
    let c = check_call(call)?;
    Ok(PyValue::dict_of(vec![
        ("call_id", PyValue::Str(c.id.clone())),
        ("result", c.tool.run(c.arguments)),
    ]))
}

/// Whether a result dict has the shape its call's tool produces.
fn result_fits(tool: Tool, result: &PyDict) -> bool {
    match tool {
        Tool::Multiply => {
            result.has_exact_str_keys(&["value"])
                && result
                    .get_str("value")
                    .and_then(|v| exact_int_within(v, MAX_PRODUCT))
                    .is_some()
        }
        Tool::Stock => {
            if !result.has_exact_str_keys(&["found", "quantity"]) {
                return false;
            }
            match (result.get_str("found"), result.get_str("quantity")) {
                (Some(PyValue::Bool(true)), Some(q)) => q
                    .as_exact_int()
                    .is_some_and(|q| *q >= BigInt::from(0) && *q <= BigInt::from(MAX_QUANTITY)),
                (Some(PyValue::Bool(false)), Some(PyValue::None)) => true,
                _ => false,
            }
        }
    }
}

/// `order_tool_results(calls, results)`: results paired with their calls by
/// ID, as a new list in call order.
pub fn order_tool_results(calls: &PyValue, results: &PyValue) -> Result<PyValue, Refusal> {
    let (Some(calls), Some(results)) = (calls.as_list(), results.as_list()) else {
        return Err("calls and results must be lists".into());
    };
    if calls.len() > MAX_CALLS || results.len() != calls.len() {
        return Err("at most 8 calls, and one result per call".into());
    }
    let mut checked: Vec<ValidCall> = Vec::with_capacity(calls.len());
    for call in calls {
        let c = check_call(call)?;
        if checked.iter().any(|other| other.id == c.id) {
            return Err("duplicate call id".into());
        }
        checked.push(c);
    }
    let mut answers: Vec<Option<&PyDict>> = vec![None; checked.len()];
    for item in results {
        let item = item
            .as_dict()
            .filter(|d| d.has_exact_str_keys(&["call_id", "result"]))
            .ok_or("a result has exactly the keys call_id, result")?;
        let call_id = item
            .get_str("call_id")
            .and_then(PyValue::as_str)
            .ok_or("call_id must be a str")?;
        let slot = checked
            .iter()
            .position(|c| c.id == call_id)
            .ok_or("result for an unknown call")?;
        if answers[slot].is_some() {
            return Err("call answered twice".into());
        }
        let result = item
            .get_str("result")
            .and_then(PyValue::as_dict)
            .ok_or("result must be a dict")?;
        if !result_fits(checked[slot].tool, result) {
            return Err("result does not fit its call's tool".into());
        }
        answers[slot] = Some(result);
    }
    // Every slot is filled: as many results as calls, none answered twice.
    checked
        .iter()
        .zip(answers)
        .map(|(c, answer)| {
            let result = answer.ok_or("a call has no result")?;
            Ok(PyValue::dict_of(vec![
                ("call_id", PyValue::Str(c.id.clone())),
                ("result", PyValue::Dict(result.clone())),
            ]))
        })
        .collect::<Result<Vec<_>, Refusal>>()
        .map(PyValue::List)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::strict_eq;

    fn s(text: &str) -> PyValue {
        PyValue::str(text)
    }

    fn multiply(id: &str, x: PyValue, y: PyValue) -> PyValue {
        PyValue::dict_of(vec![
            ("id", s(id)),
            ("name", s("multiply")),
            ("arguments", PyValue::dict_of(vec![("x", x), ("y", y)])),
        ])
    }

    fn stock(id: &str, sku: &str) -> PyValue {
        PyValue::dict_of(vec![
            ("id", s(id)),
            ("name", s("stock")),
            ("arguments", PyValue::dict_of(vec![("sku", s(sku))])),
        ])
    }

    fn result(id: &str, result: PyValue) -> PyValue {
        PyValue::dict_of(vec![("call_id", s(id)), ("result", result)])
    }

    #[test]
    fn lesson_examples() {
        let call = multiply("c1", PyValue::int(6), PyValue::int(7));
        assert!(strict_eq(&validate_tool_call(&call).unwrap(), &call));
        let r1 = result("c1", PyValue::dict_of(vec![("value", PyValue::int(42))]));
        assert!(strict_eq(&execute_tool(&call).unwrap(), &r1));
        let pen = stock("c2", "pen");
        let r2 = result(
            "c2",
            PyValue::dict_of(vec![
                ("found", PyValue::Bool(true)),
                ("quantity", PyValue::int(30)),
            ]),
        );
        assert!(strict_eq(&execute_tool(&pen).unwrap(), &r2));
        let calls = PyValue::List(vec![call, pen]);
        let ordered = order_tool_results(&calls, &PyValue::List(vec![r2.clone(), r1.clone()]));
        assert!(strict_eq(&ordered.unwrap(), &PyValue::List(vec![r1, r2])));
        let empty = PyValue::List(vec![]);
        assert!(strict_eq(
            &order_tool_results(&empty, &empty).unwrap(),
            &empty
        ));
    }

    #[test]
    fn unknown_sku_is_not_found() {
        let v = execute_tool(&stock("c3", "eraser")).unwrap();
        let expected = result(
            "c3",
            PyValue::dict_of(vec![
                ("found", PyValue::Bool(false)),
                ("quantity", PyValue::None),
            ]),
        );
        assert!(strict_eq(&v, &expected));
    }

    #[test]
    fn bounds_bools_and_patterns() {
        let m = |x: PyValue| validate_tool_call(&multiply("c1", x, PyValue::int(1)));
        assert!(m(PyValue::int(1_000_000)).is_ok());
        assert!(m(PyValue::int(-1_000_000)).is_ok());
        assert!(m(PyValue::int(1_000_001)).is_err());
        assert!(m(PyValue::Bool(true)).is_err());
        assert!(m(PyValue::Float(1.0)).is_err());
        assert!(validate_tool_call(&stock(&"a".repeat(32), "pen")).is_ok());
        assert!(validate_tool_call(&stock(&"a".repeat(33), "pen")).is_err());
        assert!(validate_tool_call(&stock("c1\n", "pen")).is_err());
        assert!(validate_tool_call(&stock("cé", "pen")).is_err());
        assert!(validate_tool_call(&stock("c1", "Pen")).is_err());
        assert!(validate_tool_call(&stock("c1", "")).is_err());
        assert!(validate_tool_call(&stock("c1", &"a".repeat(31))).is_err());
    }

    #[test]
    fn results_must_fit_and_answer_each_call_once() {
        let calls = PyValue::List(vec![
            multiply("a", PyValue::int(6), PyValue::int(7)),
            stock("b", "pen"),
        ]);
        let value = |v: PyValue| result("a", PyValue::dict_of(vec![("value", v)]));
        let found = |f: PyValue, q: PyValue| {
            result("b", PyValue::dict_of(vec![("found", f), ("quantity", q)]))
        };
        let run = |rs: Vec<PyValue>| order_tool_results(&calls, &PyValue::List(rs));
        let ok_b = found(PyValue::Bool(true), PyValue::int(0));
        assert!(run(vec![value(PyValue::int(999)), ok_b.clone()]).is_ok());
        assert!(run(vec![value(PyValue::int(10i64.pow(12) + 1)), ok_b.clone()]).is_err());
        assert!(run(vec![value(PyValue::int(1)), value(PyValue::int(1))]).is_err());
        assert!(run(vec![value(PyValue::int(1))]).is_err());
        assert!(run(vec![
            value(PyValue::int(1)),
            found(PyValue::Bool(false), PyValue::int(0))
        ])
        .is_err());
        assert!(run(vec![
            value(PyValue::int(1)),
            found(PyValue::int(1), PyValue::int(3))
        ])
        .is_err());
        let dup = PyValue::List(vec![stock("a", "pen"), stock("a", "pen")]);
        let r = result(
            "a",
            PyValue::dict_of(vec![
                ("found", PyValue::Bool(true)),
                ("quantity", PyValue::int(1)),
            ]),
        );
        assert!(order_tool_results(&dup, &PyValue::List(vec![r.clone(), r])).is_err());
    }
}
