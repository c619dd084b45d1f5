//! Hostile inputs for lesson 04: tool names differing by case, type or
//! spelling; `True` in every integer slot; duplicate, unanswered and unknown
//! tool_use ids; a tool_result after a text part; error results with empty
//! content; 16 and 17 parts; tuples for lists.

use super::structured::{disturb, factor, sku, wrong_type, Call};
use autograder::value::{PyStr, PyValue};
use rand::seq::SliceRandom;
use rand::Rng;

fn s(text: &str) -> PyValue {
    PyValue::str(text)
}

fn dict(entries: Vec<(&str, PyValue)>) -> PyValue {
    PyValue::dict_of(entries)
}

/// A tool name: mostly right, else off by case, space, spelling or type.
fn tool_name<R: Rng>(rng: &mut R, multiply: bool) -> PyValue {
    match rng.gen_range(0..24) {
        0 => s([
            "Multiply",
            "MULTIPLY",
            "multiply ",
            " stock",
            "stock\n",
            "Stock",
            "mul",
            "multiple",
            "stocks",
            "",
            "multiply\u{0}",
            "\u{ff4d}ultiply",
            "st\u{f6}ck",
            "execute_tool",
            "__import__",
            "multiply\u{200b}",
            "\u{1d5c6}ultiply",
        ]
        .choose(rng)
        .unwrap()),
        1 => wrong_type(rng),
        2 => [
            PyValue::List(vec![s("multiply")]),
            PyValue::Tuple(vec![s("stock")]),
            dict(vec![("multiply", PyValue::int(1))]),
            PyValue::Str(PyStr::from_code_points(vec![0x73, 0x74, 0xD800])),
        ]
        .choose(rng)
        .unwrap()
        .clone(),
        _ => s(if multiply { "multiply" } else { "stock" }),
    }
}

/// A tool's input: its arguments, the other tool's, or nonsense.
fn tool_input<R: Rng>(rng: &mut R, multiply: bool) -> PyValue {
    let multiply = multiply != rng.gen_bool(0.05);
    let args = if multiply {
        dict(vec![("x", factor(rng)), ("y", factor(rng))])
    } else {
        dict(vec![("sku", sku(rng))])
    };
    match rng.gen_range(0..30) {
        0 => wrong_type(rng),
        1 => PyValue::List(vec![]),
        _ => disturb(rng, args, 0.06),
    }
}

pub fn run_tool<R: Rng>(rng: &mut R) -> Call {
    let multiply = rng.gen_bool(0.5);
    let name = tool_name(rng, multiply);
    let input = tool_input(rng, multiply);
    match rng.gen_range(0..10) {
        0 => (
            "run_tool",
            vec![],
            vec![("name".into(), name), ("input".into(), input)],
        ),
        1 => ("run_tool", vec![name], vec![("input".into(), input)]),
        _ => ("run_tool", vec![name, input], vec![]),
    }
}

/// A tool_use id: mostly valid, else empty, 65 long, non-ASCII, spaced...
fn tool_use_id<R: Rng>(rng: &mut R, i: usize) -> PyValue {
    const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";
    match rng.gen_range(0..40) {
        0 => s(""),
        1 => s(&"t".repeat(64)),
        2 => s(&"t".repeat(65)),
        3 => s([
            "t 1",
            "t1\n",
            "t.1",
            "t\u{e9}",
            "\u{663}",
            "\u{ff54}1",
            "\u{212a}",
            "t1\u{0}",
            "toolu_01/x",
        ]
        .choose(rng)
        .unwrap()),
        4 => wrong_type(rng),
        5..=12 => {
            let n = rng.gen_range(1..=64);
            s(&(0..n)
                .map(|_| char::from(*ALNUM.choose(rng).unwrap()))
                .collect::<String>())
        }
        13..=16 => s(&format!("toolu_{:024}", rng.gen_range(0..1000u64))),
        _ => s(&format!("t{i}")),
    }
}

/// A part that is not a tool_use (or not a part at all).
fn other_part<R: Rng>(rng: &mut R) -> PyValue {
    match rng.gen_range(0..20) {
        0 => wrong_type(rng),
        1 => dict(vec![("text", s("no type"))]),
        2 => dict(vec![("type", wrong_type(rng))]),
        3 => dict(vec![("type", s("Tool_use")), ("id", s("x"))]),
        4 => dict(vec![("type", s("image")), ("source", PyValue::None)]),
        5 => dict(vec![("type", s("tool_result")), ("tool_use_id", s("t0"))]),
        _ => dict(vec![("type", s("text")), ("text", s("Let me check."))]),
    }
}

/// A tool_use part with id `id`, right or disturbed.
fn tool_use_part<R: Rng>(rng: &mut R, id: PyValue, p: f64) -> PyValue {
    let multiply = rng.gen_bool(0.5);
    let name = tool_name(rng, multiply);
    let input = tool_input(rng, multiply);
    let part = dict(vec![
        ("type", s("tool_use")),
        ("id", id),
        ("name", name),
        ("input", input),
    ]);
    disturb(rng, part, p)
}

/// An assistant message: tool_use parts (some ids repeated) among others.
fn assistant_parts<R: Rng>(rng: &mut R, disturb_p: f64) -> Vec<PyValue> {
    let n = match rng.gen_range(0..20) {
        0 => 0,
        1 => 16,
        2 => 17,
        _ => rng.gen_range(1..6),
    };
    let mut parts = Vec::with_capacity(n);
    for i in 0..n {
        if rng.gen_bool(0.25) {
            parts.push(other_part(rng));
            continue;
        }
        let id = if rng.gen_bool(0.04) && i > 0 {
            s(&format!("t{}", i - 1)) // perhaps a duplicate
        } else {
            tool_use_id(rng, i)
        };
        parts.push(tool_use_part(rng, id, disturb_p));
    }
    parts
}

fn wrap<R: Rng>(rng: &mut R, items: Vec<PyValue>) -> PyValue {
    match rng.gen_range(0..40) {
        0 => PyValue::Tuple(items),
        1 => wrong_type(rng),
        _ => PyValue::List(items),
    }
}

pub fn run_tools<R: Rng>(rng: &mut R) -> Call {
    let parts = assistant_parts(rng, 0.03);
    let parts = wrap(rng, parts);
    ("run_tools", vec![parts], vec![])
}

/// A result answering a tool_use id: right or subtly wrong.
fn result_part<R: Rng>(rng: &mut R, id: PyValue) -> PyValue {
    let status = match rng.gen_range(0..24) {
        0 => s(["Success", "ERROR", "ok", "failed", "", "success "]
            .choose(rng)
            .unwrap()),
        1 => wrong_type(rng),
        2..=9 => s("error"),
        _ => s("success"),
    };
    let content = match rng.gen_range(0..16) {
        0 => s(""),
        1 => s(" "),
        2 => wrong_type(rng),
        3 => PyValue::List(vec![dict(vec![("type", s("text")), ("text", s("42"))])]),
        _ => s([
            "{\"value\": 42}",
            "Error: unknown tool",
            "no such sku",
            "\u{e9}",
        ]
        .choose(rng)
        .unwrap()),
    };
    let id = if rng.gen_bool(0.04) {
        tool_use_id(rng, 9)
    } else {
        id
    };
    disturb(
        rng,
        dict(vec![
            ("type", s("tool_result")),
            ("tool_use_id", id),
            ("content", content),
            ("status", status),
        ]),
        0.04,
    )
}

pub fn check_tool_results<R: Rng>(rng: &mut R) -> Call {
    let mut assistant = assistant_parts(rng, 0.01);
    assistant.truncate(rng.gen_range(0..=16));
    // Mostly valid tool_uses: str names, dict inputs, distinct ids.
    let ids: Vec<PyValue> = assistant
        .iter()
        .filter_map(|p| p.as_dict())
        .filter(|d| {
            d.get_str("type")
                .and_then(PyValue::as_str)
                .is_some_and(|t| t.eq_str("tool_use"))
        })
        .filter_map(|d| d.get_str("id").cloned())
        .collect();
    let mut results: Vec<PyValue> = ids.iter().map(|id| result_part(rng, id.clone())).collect();
    results.shuffle(rng);
    match rng.gen_range(0..14) {
        0 if !results.is_empty() => {
            results.pop(); // one unanswered
        }
        1 if !results.is_empty() => {
            let i = rng.gen_range(0..results.len());
            let twice = results[i].clone();
            results.push(twice); // one answered twice
        }
        2 => {
            let id = tool_use_id(rng, 20);
            results.push(result_part(rng, id)); // an answer to no request
        }
        3 => {
            let at = rng.gen_range(0..=results.len());
            results.insert(
                at,
                dict(vec![("type", s("text")), ("text", s("Here you go."))]),
            );
        }
        4 => results.push(dict(vec![("type", s("text")), ("text", s("Thanks."))])),
        5 => {
            let at = rng.gen_range(0..=results.len());
            results.insert(at, other_part(rng));
        }
        _ => {}
    }
    if rng.gen_bool(0.02) {
        results.extend(std::iter::repeat(dict(vec![("type", s("text"))])).take(17));
    }
    let assistant = wrap(rng, assistant);
    let user = wrap(rng, results);
    ("check_tool_results", vec![assistant, user], vec![])
}
