//! Structured hostile inputs for the five checkpoints other than
//! `parse_contract_json`: tickets, retry policies, tool calls and results.

use super::json_texts;
use autograder::value::{PyDict, PyStr, PyValue};
use num_bigint::BigInt;
use rand::seq::SliceRandom;
use rand::Rng;

/// A call: function name, positional arguments, keyword arguments.
pub type Call = (&'static str, Vec<PyValue>, Vec<(String, PyValue)>);

fn s(text: &str) -> PyValue {
    PyValue::str(text)
}

fn int(i: i64) -> PyValue {
    PyValue::int(i)
}

fn big(pow: u32, delta: i64) -> PyValue {
    PyValue::Int(BigInt::from(10).pow(pow) + delta)
}

fn dict(entries: Vec<(&str, PyValue)>) -> PyValue {
    PyValue::dict_of(entries)
}

/// A value of a surprising type, for "wrong types at every position".
pub fn wrong_type<R: Rng>(rng: &mut R) -> PyValue {
    match rng.gen_range(0..10) {
        0 => PyValue::None,
        1 => PyValue::Bool(rng.gen()),
        2 => int(rng.gen_range(-3..4)),
        3 => PyValue::Float(
            *[1.0, 0.0, -0.0, f64::NAN, f64::INFINITY, 2.5]
                .choose(rng)
                .unwrap(),
        ),
        4 => PyValue::List(vec![s("a")]),
        5 => PyValue::Tuple(vec![int(1), s("x")]),
        6 => PyValue::dict_of(vec![]),
        7 => big(30, 0),
        8 => s(""),
        _ => PyValue::Str(PyStr::from_code_points(vec![0x72, 0xD800])),
    }
}

/// Shuffles a dict's entries, and sometimes drops one, adds one (text or
/// non-text key) or replaces a value with a wrong type.
pub fn disturb<R: Rng>(rng: &mut R, v: PyValue, p: f64) -> PyValue {
    let PyValue::Dict(d) = v else { return v };
    let mut entries = d.into_entries();
    entries.shuffle(rng);
    if rng.gen_bool(p) {
        match rng.gen_range(0..5) {
            0 if !entries.is_empty() => {
                let i = rng.gen_range(0..entries.len());
                entries.remove(i);
            }
            1 => entries.push((s(["extra", "ID", "id ", "Id"].choose(rng).unwrap()), int(1))),
            2 => entries.push((
                [
                    int(1),
                    PyValue::Bool(true),
                    PyValue::Tuple(vec![s("id")]),
                    PyValue::None,
                ]
                .choose(rng)
                .unwrap()
                .clone(),
                s("x"),
            )),
            3 if !entries.is_empty() => {
                let i = rng.gen_range(0..entries.len());
                entries[i].1 = wrong_type(rng);
            }
            _ => {}
        }
    }
    let mut out = PyDict::new();
    for (k, v) in entries {
        out.insert(k, v);
    }
    PyValue::Dict(out)
}

// ---------------------------------------------------------------- lesson 02

const SOURCE_PIECES: &[&str] = &[
    "Mijn ", "factuur", " mist.", "é", "😀", "中", "\n", " ", "ß", "e\u{301}", "storing", "?",
    "\u{0}",
];

fn source<R: Rng>(rng: &mut R) -> PyStr {
    let mut cps: Vec<u32> = Vec::new();
    match rng.gen_range(0..20) {
        0 => {}
        1 => cps.push('x' as u32),
        2 => cps.extend(std::iter::repeat('y' as u32).take(rng.gen_range(1999..2002))),
        3 => {
            cps.extend(std::iter::repeat(0xE9).take(rng.gen_range(1990..2002)));
        }
        _ => {
            for _ in 0..rng.gen_range(1..8) {
                cps.extend(SOURCE_PIECES.choose(rng).unwrap().chars().map(|c| c as u32));
            }
            if rng.gen_bool(0.05) {
                let i = rng.gen_range(0..=cps.len());
                cps.insert(i, 0xDC00);
            }
        }
    }
    PyStr::from_code_points(cps)
}

fn request_id<R: Rng>(rng: &mut R) -> PyValue {
    match rng.gen_range(0..20) {
        0 => s(""),
        1 => s(&"r".repeat(40)),
        2 => s(&"r".repeat(41)),
        3 => s("r1\n"),
        4 => s("é😀"),
        5 => wrong_type(rng),
        _ => s(&format!("r{}", rng.gen_range(0..4))),
    }
}

/// `s[start:end]` by UTF-8 byte offsets: the classic student mistake.
fn byte_slice(src: &PyStr, start: usize, end: usize) -> PyStr {
    let bytes: Vec<u8> = src.to_string_lossy().into_bytes();
    let piece = bytes.get(start..end.min(bytes.len())).unwrap_or(&[]);
    PyStr::from(String::from_utf8_lossy(piece).into_owned())
}

fn offset<R: Rng>(rng: &mut R, i: usize) -> PyValue {
    match rng.gen_range(0..30) {
        0 => PyValue::Bool(i == 1),
        1 => PyValue::Float(i as f64),
        2 => int(i as i64 - 1),
        3 => int(i as i64 + 1),
        4 => big(20, i as i64),
        5 => int(-1),
        6 => s(&i.to_string()),
        _ => int(i as i64),
    }
}

fn evidence<R: Rng>(rng: &mut R, src: &PyStr) -> PyValue {
    let n = src.len();
    let (start, end) = if n == 0 {
        (0, rng.gen_range(0..2))
    } else {
        let a = rng.gen_range(0..n);
        (a, rng.gen_range(a + 1..=n))
    };
    let text = match rng.gen_range(0..12) {
        0 => PyValue::Str(byte_slice(src, start, end)),
        1 if end <= n && start < end => PyValue::Str(src.slice(start + 1, end)),
        2 => wrong_type(rng),
        3 => s("factuur"),
        _ => PyValue::Str(src.slice(start.min(n), end.min(n))),
    };
    let (st, en) = if rng.gen_bool(0.05) {
        (end, start)
    } else {
        (start, end)
    };
    let ev = dict(vec![
        ("start", offset(rng, st)),
        ("end", offset(rng, en)),
        ("text", text),
    ]);
    if rng.gen_bool(0.05) {
        return wrong_type(rng);
    }
    disturb(rng, ev, 0.08)
}

fn ticket<R: Rng>(rng: &mut R, rid: &PyValue, src: &PyStr) -> PyValue {
    let label = match rng.gen_range(0..20) {
        0 => s(["Factuur", "factuur ", "other", ""].choose(rng).unwrap()),
        1 => wrong_type(rng),
        _ => s(["factuur", "storing", "vraag", "onduidelijk"]
            .choose(rng)
            .unwrap()),
    };
    let unclear = label.as_str().is_some_and(|l| l.eq_str("onduidelijk"));
    let none = if unclear { 0.8 } else { 0.05 };
    let ev = if rng.gen_bool(none) {
        PyValue::None
    } else {
        evidence(rng, src)
    };
    let id = match rng.gen_range(0..12) {
        0 => request_id(rng),
        1 => wrong_type(rng),
        _ => rid.clone(),
    };
    let t = dict(vec![("id", id), ("label", label), ("evidence", ev)]);
    if rng.gen_bool(0.03) {
        return wrong_type(rng);
    }
    disturb(rng, t, 0.08)
}

pub fn validate_ticket<R: Rng>(rng: &mut R) -> Call {
    let rid = request_id(rng);
    let src = source(rng);
    let t = ticket(rng, &rid, &src);
    let src = if rng.gen_bool(0.03) {
        wrong_type(rng)
    } else {
        PyValue::Str(src)
    };
    ("validate_ticket", vec![t, rid, src], vec![])
}

/// JSON text for a value, with random escaping; lone surrogates become
/// `\uXXXX` escapes (so the decoder, not the text, carries them).
fn to_json<R: Rng>(rng: &mut R, v: &PyValue, out: &mut Vec<u32>) {
    match v {
        PyValue::None => json_texts::push(out, "null"),
        PyValue::Bool(b) => json_texts::push(out, if *b { "true" } else { "false" }),
        PyValue::Int(i) => json_texts::push(out, &i.to_string()),
        PyValue::Float(f) if f.is_nan() => json_texts::push(out, "NaN"),
        PyValue::Float(f) if f.is_infinite() => {
            json_texts::push(out, if *f > 0.0 { "Infinity" } else { "-Infinity" })
        }
        PyValue::Float(f) => json_texts::push(out, &format!("{f:?}")),
        PyValue::Str(st) => {
            out.push('"' as u32);
            for &c in st.code_points() {
                let escape = c < 0x20
                    || c == 0x22
                    || c == 0x5C
                    || (0xD800..=0xDFFF).contains(&c)
                    || (c > 0x7F && c < 0x10000 && rng.gen_bool(0.3));
                if escape {
                    json_texts::push(out, &format!("\\u{c:04x}"));
                } else {
                    out.push(c);
                }
            }
            out.push('"' as u32);
        }
        PyValue::List(items) | PyValue::Tuple(items) => {
            json_texts::push(out, "[");
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    json_texts::push(out, ", ");
                }
                to_json(rng, x, out);
            }
            json_texts::push(out, "]");
        }
        PyValue::Dict(d) => {
            json_texts::push(out, "{");
            for (i, (k, x)) in d.iter().enumerate() {
                if i > 0 {
                    json_texts::push(out, ",");
                }
                match k {
                    PyValue::Str(_) => to_json(rng, k, out),
                    other => to_json(rng, &s(&format!("{other:?}")), out),
                }
                json_texts::push(out, ":");
                to_json(rng, x, out);
            }
            json_texts::push(out, "}");
        }
        PyValue::Opaque { .. } | PyValue::Match(_) => json_texts::push(out, "null"),
    }
}

fn policy_value<R: Rng>(rng: &mut R) -> PyValue {
    match rng.gen_range(0..20) {
        0 => int(*[-1, 0, 4, 5].choose(rng).unwrap()),
        1 => PyValue::Bool(rng.gen()),
        2 => PyValue::Float(*[1.0, 2.0, 3.0].choose(rng).unwrap()),
        3 => big(20, 2),
        4 => [s("1"), PyValue::None].choose(rng).unwrap().clone(),
        _ => int(rng.gen_range(1..4)),
    }
}

pub fn accept_ticket<R: Rng>(rng: &mut R) -> Call {
    let rid = request_id(rng);
    let src = source(rng);
    let t = ticket(rng, &rid, &src);
    let raw = match rng.gen_range(0..20) {
        0 => t.clone(), // the dict itself, not its JSON
        1 => wrong_type(rng),
        2 => PyValue::Str(PyStr::from_code_points(json_texts::text(rng))),
        _ => {
            let mut text = Vec::new();
            to_json(rng, &t, &mut text);
            if rng.gen_bool(0.1) {
                let extra = *["\n", " trailing", "```", "\u{feff}"].choose(rng).unwrap();
                json_texts::push(&mut text, extra);
            }
            PyValue::Str(PyStr::from_code_points(text))
        }
    };
    let src = if rng.gen_bool(0.03) {
        wrong_type(rng)
    } else {
        PyValue::Str(src)
    };
    let attempt = policy_value(rng);
    let limit = policy_value(rng);
    let mut args = vec![raw, rid, src, attempt];
    let mut kwargs = Vec::new();
    match rng.gen_range(0..4) {
        0 => {} // limit=2 by default
        1 => args.push(limit),
        _ => kwargs.push(("limit".to_string(), limit)),
    }
    if rng.gen_bool(0.1) {
        // Pass a trailing run of parameters by keyword instead.
        let names = ["raw", "request_id", "source", "attempt"];
        let k = rng.gen_range(0..4);
        if args.len() == 4 {
            for (name, v) in names[k..].iter().zip(args.drain(k..)) {
                kwargs.push((name.to_string(), v));
            }
            kwargs.shuffle(rng);
        }
    }
    ("accept_ticket", args, kwargs)
}

// ---------------------------------------------------------------- lesson 03

fn call_id<R: Rng>(rng: &mut R) -> PyValue {
    const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";
    match rng.gen_range(0..30) {
        0 => s(""),
        1 => s(&"c".repeat(32)),
        2 => s(&"c".repeat(33)),
        3 => s([
            "c 1", "c1\n", "c.1", "cé", "\u{663}", "ａ", "\u{212a}", "c1\u{0}", "\nc1", "c/1",
        ]
        .choose(rng)
        .unwrap()),
        4 => wrong_type(rng),
        5..=14 => {
            let n = rng.gen_range(1..=32);
            s(&(0..n)
                .map(|_| char::from(*ALNUM.choose(rng).unwrap()))
                .collect::<String>())
        }
        _ => s(&format!("c{}", rng.gen_range(0..10))),
    }
}

pub fn factor<R: Rng>(rng: &mut R) -> PyValue {
    match rng.gen_range(0..30) {
        0 => int(1_000_000),
        1 => int(-1_000_000),
        2 => int(1_000_001),
        3 => int(-1_000_001),
        4 => PyValue::Bool(rng.gen()),
        5 => PyValue::Float(6.0),
        6 => s("6"),
        7 => big(25, 0),
        8 => PyValue::None,
        _ => int(rng.gen_range(-1_000_000..=1_000_000)),
    }
}

pub fn sku<R: Rng>(rng: &mut R) -> PyValue {
    let pool = [
        "pen",
        "notebook",
        "pen",
        "notebook",
        "eraser",
        "pen-1",
        "a",
        "0",
        "-",
        "--",
        "Pen",
        "PEN",
        "pen\n",
        "pen ",
        "pén",
        "a_b",
        "",
        "x",
        "notebook ",
        "\u{131}",
    ];
    match rng.gen_range(0..20) {
        0 => s(&"x".repeat(30)),
        1 => s(&"x".repeat(31)),
        2 => wrong_type(rng),
        _ => s(pool.choose(rng).unwrap()),
    }
}

fn tool_call<R: Rng>(rng: &mut R, id: PyValue) -> PyValue {
    let multiply = rng.gen_bool(0.5);
    let name = match rng.gen_range(0..20) {
        0 => s(["Multiply", "multiply ", "add", "__import__", "STOCK", ""]
            .choose(rng)
            .unwrap()),
        1 => wrong_type(rng),
        _ => s(if multiply { "multiply" } else { "stock" }),
    };
    let args = if rng.gen_bool(0.05) {
        // Arguments of the other tool.
        if multiply {
            dict(vec![("sku", sku(rng))])
        } else {
            dict(vec![("x", factor(rng)), ("y", factor(rng))])
        }
    } else if multiply {
        dict(vec![("x", factor(rng)), ("y", factor(rng))])
    } else {
        dict(vec![("sku", sku(rng))])
    };
    let args = if rng.gen_bool(0.04) {
        wrong_type(rng)
    } else {
        disturb(rng, args, 0.06)
    };
    let call = dict(vec![("id", id), ("name", name), ("arguments", args)]);
    if rng.gen_bool(0.03) {
        return wrong_type(rng);
    }
    disturb(rng, call, 0.06)
}

pub fn validate_tool_call<R: Rng>(rng: &mut R) -> Call {
    let id = call_id(rng);
    ("validate_tool_call", vec![tool_call(rng, id)], vec![])
}

pub fn execute_tool<R: Rng>(rng: &mut R) -> Call {
    let id = call_id(rng);
    let (f, args, kwargs) = ("execute_tool", vec![tool_call(rng, id)], vec![]);
    if rng.gen_bool(0.1) {
        let call = args.into_iter().next().unwrap_or(PyValue::None);
        return (f, vec![], vec![("call".to_string(), call)]);
    }
    (f, args, kwargs)
}

/// A result for a call (by its arguments), right or subtly wrong.
fn result_for<R: Rng>(rng: &mut R, call: &PyValue) -> PyValue {
    let d = call.as_dict();
    let id = d
        .and_then(|d| d.get_str("id"))
        .cloned()
        .unwrap_or_else(|| s("c0"));
    let is_multiply = d
        .and_then(|d| d.get_str("name"))
        .and_then(PyValue::as_str)
        .is_some_and(|n| n.eq_str("multiply"));
    let result = if is_multiply != rng.gen_bool(0.05) {
        let value = match rng.gen_range(0..20) {
            0 => big(12, 0),
            1 => big(12, 1),
            2 => PyValue::Int(-BigInt::from(10).pow(12)),
            3 => PyValue::Int(-BigInt::from(10).pow(12) - 1),
            4 => PyValue::Bool(true),
            5 => PyValue::Float(42.0),
            6 => int(999),
            _ => {
                let arg = |k: &str| {
                    d.and_then(|d| d.get_str("arguments"))
                        .and_then(PyValue::as_dict)
                        .and_then(|a| a.get_str(k))
                        .and_then(PyValue::as_exact_int)
                        .cloned()
                        .unwrap_or_default()
                };
                PyValue::Int(arg("x") * arg("y"))
            }
        };
        dict(vec![("value", value)])
    } else {
        let (found, quantity) = match rng.gen_range(0..20) {
            0 => (PyValue::Bool(true), int(0)),
            1 => (PyValue::Bool(true), int(1_000_000)),
            2 => (PyValue::Bool(true), int(1_000_001)),
            3 => (PyValue::Bool(true), int(-1)),
            4 => (PyValue::Bool(true), PyValue::None),
            5 => (PyValue::Bool(false), int(0)),
            6 => (int(1), int(5)),
            7 => (PyValue::Bool(true), PyValue::Bool(true)),
            8 => (PyValue::Bool(false), PyValue::Bool(false)),
            9..=13 => (PyValue::Bool(false), PyValue::None),
            _ => (PyValue::Bool(true), int(rng.gen_range(0..100))),
        };
        dict(vec![("found", found), ("quantity", quantity)])
    };
    let result = if rng.gen_bool(0.03) {
        wrong_type(rng)
    } else {
        disturb(rng, result, 0.04)
    };
    let id = if rng.gen_bool(0.03) { call_id(rng) } else { id };
    disturb(rng, dict(vec![("call_id", id), ("result", result)]), 0.04)
}

pub fn order_tool_results<R: Rng>(rng: &mut R) -> Call {
    let n = rng.gen_range(0..=9);
    let calls: Vec<PyValue> = (0..n)
        .map(|i| {
            let id = if rng.gen_bool(0.9) {
                s(&format!("c{i}"))
            } else {
                call_id(rng)
            };
            // Mostly valid calls so that results get checked.
            let mut call = tool_call(rng, id);
            if rng.gen_bool(0.7) {
                let multiply = rng.gen_bool(0.5);
                let args = if multiply {
                    dict(vec![
                        ("x", int(rng.gen_range(-9..10))),
                        ("y", int(rng.gen_range(-1_000_000..=1_000_000))),
                    ])
                } else {
                    dict(vec![(
                        "sku",
                        s(["pen", "notebook", "eraser"].choose(rng).unwrap()),
                    )])
                };
                let id = call
                    .as_dict()
                    .and_then(|d| d.get_str("id"))
                    .cloned()
                    .unwrap_or_else(|| s("c"));
                call = dict(vec![
                    ("id", id),
                    ("name", s(if multiply { "multiply" } else { "stock" })),
                    ("arguments", args),
                ]);
            }
            call
        })
        .collect();
    let mut results: Vec<PyValue> = calls.iter().map(|c| result_for(rng, c)).collect();
    results.shuffle(rng);
    match rng.gen_range(0..12) {
        0 if !results.is_empty() => {
            results.pop();
        }
        1 if !results.is_empty() => {
            let i = rng.gen_range(0..results.len());
            let j = rng.gen_range(0..results.len());
            results[i] = results[j].clone(); // duplicated answer
        }
        2 => {
            let extra = result_for(rng, &PyValue::None);
            results.push(extra);
        }
        3 if !results.is_empty() => {
            let i = rng.gen_range(0..results.len());
            results[i] = wrong_type(rng);
        }
        _ => {}
    }
    let wrap = |rng: &mut R, items: Vec<PyValue>| {
        if rng.gen_bool(0.03) {
            PyValue::Tuple(items)
        } else {
            PyValue::List(items)
        }
    };
    let calls = wrap(rng, calls);
    let results = wrap(rng, results);
    ("order_tool_results", vec![calls, results], vec![])
}
