//! Lesson 02 — `json-contract`: `parse_contract_json`, `validate_ticket`,
//! `accept_ticket`, exactly as `checkpoints.md` defines them.

use super::json::{self, Options};
use super::{Checkpoint, Param, Refusal};
use crate::value::{PyDict, PyStr, PyValue};
use num_bigint::BigInt;

/// At most this many code points, and this many UTF-8 bytes.
pub const MAX_TEXT: usize = 4096;
/// The root container has depth 1; no container may be deeper.
pub const MAX_DEPTH: usize = 8;
/// The four ticket labels (invoice, outage, question, unclear).
pub const LABELS: &[&str] = &["factuur", "storing", "vraag", "onduidelijk"];

/// The lesson's checkpoints, in course order.
pub const CHECKPOINTS: &[Checkpoint] = &[
    Checkpoint {
        name: "parse_contract_json",
        params: &[Param::required("text")],
        run: |a| parse_contract_json(&a[0]),
        tags: &[
            "valid",
            "duplicate-keys",
            "nan-infinity",
            "deep-nesting",
            "surrogates",
            "boolean-ints",
            "size-limits",
            "wrong-types",
            "out-of-range",
            "trailing-garbage",
        ],
    },
    Checkpoint {
        name: "validate_ticket",
        params: &[
            Param::required("value"),
            Param::required("request_id"),
            Param::required("source"),
        ],
        run: |a| validate_ticket(&a[0], &a[1], &a[2]),
        tags: &[
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
            "evidence-mismatch",
            "unicode-offsets",
            "trailing-garbage",
            "aliasing-and-mutation",
        ],
    },
    Checkpoint {
        name: "accept_ticket",
        params: &[
            Param::required("raw"),
            Param::required("request_id"),
            Param::required("source"),
            Param::required("attempt"),
            Param::optional("limit", || PyValue::int(2)),
        ],
        run: |a| accept_ticket(&a[0], &a[1], &a[2], &a[3], &a[4]),
        tags: &[
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
            "evidence-mismatch",
            "unicode-offsets",
            "retry-policy",
            "trailing-garbage",
        ],
    },
];

/// The contract's `object_pairs_hook`: refuse a key seen twice (after escape
/// decoding) or one that cannot be UTF-8 encoded; keep document order.
fn unique_keys(pairs: Vec<(PyStr, PyValue)>) -> Result<PyDict, String> {
    let mut seen = std::collections::HashSet::with_capacity(pairs.len());
    let mut d = PyDict::new();
    for (key, value) in pairs {
        if key.has_surrogate() {
            return Err("key cannot be UTF-8 encoded".into());
        }
        if !seen.insert(key.clone()) {
            return Err("duplicate key".into());
        }
        d.push_unique(PyValue::Str(key), value);
    }
    Ok(d)
}

/// The contract's `parse_constant`: `NaN`, `Infinity`, `-Infinity` are refused.
fn refuse_constant(name: &str) -> Result<PyValue, String> {
    Err(format!("{name} is not allowed"))
}

/// Step 4's walk: finite floats and encodable strings only. Depth is already
/// bounded by the decoder (`max_depth` = 8), which refuses exactly the texts
/// the walk would refuse for depth.
fn check_tree(v: &PyValue) -> Result<(), Refusal> {
    match v {
        PyValue::Float(f) if !f.is_finite() => Err("non-finite number".into()),
        PyValue::Str(s) if s.has_surrogate() => Err("string cannot be UTF-8 encoded".into()),
        PyValue::List(items) => items.iter().try_for_each(check_tree),
        PyValue::Dict(d) => d.iter().try_for_each(|(_, v)| check_tree(v)),
        _ => Ok(()),
    }
}

/// `parse_contract_json(text)`: exactly one bounded JSON object, as a new dict.
pub fn parse_contract_json(text: &PyValue) -> Result<PyValue, Refusal> {
    let text = text.as_str().ok_or("text must be a str")?;
    if text.len() > MAX_TEXT {
        return Err("more than 4096 code points".into());
    }
    match text.utf8_len() {
        None => return Err("text cannot be UTF-8 encoded".into()),
        Some(n) if n > MAX_TEXT => return Err("more than 4096 bytes".into()),
        Some(_) => {}
    }
    let options = Options {
        max_depth: MAX_DEPTH,
        object_pairs_hook: unique_keys,
        parse_constant: refuse_constant,
    };
    let value = json::loads(text, &options).map_err(|e| e.to_string())?;
    check_tree(&value)?;
    match value {
        PyValue::Dict(_) => Ok(value),
        _ => Err("the root must be an object".into()),
    }
}

/// A str of `lo..=hi` code points.
fn bounded_str(v: &PyValue, lo: usize, hi: usize) -> Option<&PyStr> {
    v.as_str().filter(|s| (lo..=hi).contains(&s.len()))
}

/// `validate_ticket(value, request_id, source)`: form and provenance of a
/// ticket, returned as a new dict.
pub fn validate_ticket(
    value: &PyValue,
    request_id: &PyValue,
    source: &PyValue,
) -> Result<PyValue, Refusal> {
    bounded_str(request_id, 1, 40).ok_or("request_id must be a str of 1..40 code points")?;
    let source = bounded_str(source, 1, 2000).ok_or("source must be a str of 1..2000")?;
    let ticket = value
        .as_dict()
        .filter(|d| d.has_exact_str_keys(&["id", "label", "evidence"]))
        .ok_or("a ticket has exactly the keys id, label, evidence")?;
    // Python's `==` between any value and a str holds only for an equal str.
    if ticket.get_str("id").and_then(PyValue::as_str) != request_id.as_str() {
        return Err("the ticket answers another request".into());
    }
    let label = ticket
        .get_str("label")
        .and_then(PyValue::as_str)
        .filter(|l| LABELS.iter().any(|x| l.eq_str(x)))
        .ok_or("unknown label")?;
    let evidence = ticket.get_str("evidence").unwrap_or(&PyValue::None);
    let new_ticket = |evidence: PyValue| {
        PyValue::dict_of(vec![
            ("id", request_id.clone()),
            ("label", PyValue::Str(label.clone())),
            ("evidence", evidence),
        ])
    };
    if label.eq_str("onduidelijk") {
        return match evidence {
            PyValue::None => Ok(new_ticket(PyValue::None)),
            _ => Err("an unclear ticket carries no evidence".into()),
        };
    }
    let ev = evidence
        .as_dict()
        .filter(|d| d.has_exact_str_keys(&["start", "end", "text"]))
        .ok_or("evidence has exactly the keys start, end, text")?;
    let exact = |k: &str| ev.get_str(k).and_then(PyValue::as_exact_int);
    let (Some(start), Some(end)) = (exact("start"), exact("end")) else {
        return Err("start and end must be exact ints".into());
    };
    let zero = BigInt::from(0);
    if !(&zero <= start && start < end && *end <= BigInt::from(source.len())) {
        return Err("evidence span out of range".into());
    }
    // Both fit in usize now: 0 <= start < end <= len(source).
    let (start, end) = (usize_of(start), usize_of(end));
    let quoted = ev.get_str("text").and_then(PyValue::as_str);
    if quoted != Some(&source.slice(start, end)) {
        return Err("evidence text is not the quoted span".into());
    }
    Ok(new_ticket(evidence.clone()))
}

fn usize_of(i: &BigInt) -> usize {
    usize::try_from(i).unwrap_or(0)
}

/// An exact int in `1..=3` (the only range the retry policy allows).
fn small_exact_int(v: &PyValue) -> Option<u8> {
    v.as_exact_int()
        .and_then(|i| u8::try_from(i).ok())
        .filter(|n| (1..=3).contains(n))
}

/// `accept_ticket(raw, request_id, source, attempt, limit=2)`: one step of a
/// bounded repair loop. Only a bad retry policy raises.
pub fn accept_ticket(
    raw: &PyValue,
    request_id: &PyValue,
    source: &PyValue,
    attempt: &PyValue,
    limit: &PyValue,
) -> Result<PyValue, Refusal> {
    let (Some(attempt), Some(limit)) = (small_exact_int(attempt), small_exact_int(limit)) else {
        return Err("attempt and limit must be exact ints in 1..=3".into());
    };
    if attempt > limit {
        return Err("attempt must not exceed limit".into());
    }
    let answer = |status: &str, value: PyValue| {
        Ok(PyValue::dict_of(vec![
            ("status", PyValue::str(status)),
            ("value", value),
        ]))
    };
    match parse_contract_json(raw).and_then(|v| validate_ticket(&v, request_id, source)) {
        Ok(ticket) => answer("accept", ticket),
        Err(_) if attempt < limit => answer("retry", PyValue::None),
        Err(_) => answer("reject", PyValue::None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::strict_eq;

    const SOURCE: &str = "Mijn factuur mist.";

    fn s(text: &str) -> PyValue {
        PyValue::str(text)
    }

    fn ticket() -> PyValue {
        PyValue::dict_of(vec![
            ("id", s("r1")),
            ("label", s("factuur")),
            (
                "evidence",
                PyValue::dict_of(vec![
                    ("start", PyValue::int(5)),
                    ("end", PyValue::int(12)),
                    ("text", s("factuur")),
                ]),
            ),
        ])
    }

    fn parses(text: &str) -> bool {
        parse_contract_json(&s(text)).is_ok()
    }

    #[test]
    fn lesson_parse_examples() {
        let v = parse_contract_json(&s(r#"{"id":"r1"}"#)).unwrap();
        assert!(strict_eq(&v, &PyValue::dict_of(vec![("id", s("r1"))])));
        assert!(!parses(r#"{"id":"r1","id":"r2"}"#));
        assert!(!parses(r#"{"x":NaN}"#));
        assert!(parses(r#"{"x":[{"y":1}]}"#));
    }

    #[test]
    fn parse_refusals() {
        assert!(!parses(r#"{"a":1,"\u0061":2}"#));
        assert!(!parses(r#"{"a":{"b":1,"b":2}}"#));
        assert!(parses(r#"{"a":{"b":1},"b":{"a":2}}"#));
        assert!(!parses(r#"{"a":"\ud800"}"#));
        assert!(!parses(r#"{"\udc00":1}"#));
        assert!(parses(r#"{"a":"\ud83d\ude00"}"#));
        assert!(!parses(r#"{"a":1e999}"#));
        assert!(!parses(r#"{"a":-Infinity}"#));
        assert!(!parses("[1]"));
        assert!(!parses("\"x\""));
        assert!(parse_contract_json(&PyValue::int(1)).is_err());
        let lone = PyValue::Str(PyStr::from_code_points(vec![0x7B, 0x7D, 0xD800]));
        assert!(parse_contract_json(&lone).is_err());
    }

    #[test]
    fn depth_eight_is_the_limit() {
        let nest = |n: usize| format!("{{\"a\":{}1{}}}", "[".repeat(n - 1), "]".repeat(n - 1));
        assert!(parses(&nest(8)));
        assert!(!parses(&nest(9)));
        assert!(!parses(&"[".repeat(100_000)));
    }

    #[test]
    fn size_limits_count_code_points_and_bytes() {
        let fill = |c: &str, n: usize| format!("{{\"a\":\"{}\"}}", c.repeat(n));
        assert!(parses(&fill("x", 4096 - 8)));
        assert!(!parses(&fill("x", 4096 - 7)));
        // 'é' is 2 bytes: 8 + 2n <= 4096.
        assert!(parses(&fill("é", 2044)));
        assert!(!parses(&fill("é", 2045)));
    }

    #[test]
    fn validate_ticket_lesson_example() {
        let v = validate_ticket(&ticket(), &s("r1"), &s(SOURCE)).unwrap();
        assert!(strict_eq(&v, &ticket()));
        assert!(validate_ticket(&ticket(), &s("r2"), &s(SOURCE)).is_err());
        let unclear = PyValue::dict_of(vec![
            ("id", s("r1")),
            ("label", s("onduidelijk")),
            ("evidence", PyValue::None),
        ]);
        let v = validate_ticket(&unclear, &s("r1"), &s(SOURCE)).unwrap();
        assert!(strict_eq(&v, &unclear));
    }

    #[test]
    fn evidence_offsets_are_code_points_and_exact_ints() {
        let with = |start: PyValue, end: i64, text: &str| {
            PyValue::dict_of(vec![
                ("id", s("r1")),
                ("label", s("vraag")),
                (
                    "evidence",
                    PyValue::dict_of(vec![
                        ("start", start),
                        ("end", PyValue::int(end)),
                        ("text", s(text)),
                    ]),
                ),
            ])
        };
        let src = s("é😀 factuur");
        assert!(validate_ticket(&with(PyValue::int(1), 2, "😀"), &s("r1"), &src).is_ok());
        assert!(validate_ticket(&with(PyValue::int(0), 1, "é"), &s("r1"), &src).is_ok());
        assert!(validate_ticket(&with(PyValue::Bool(false), 1, "é"), &s("r1"), &src).is_err());
        assert!(validate_ticket(&with(PyValue::int(1), 1, ""), &s("r1"), &src).is_err());
        assert!(validate_ticket(&with(PyValue::int(3), 10, "factuur"), &s("r1"), &src).is_ok());
        assert!(validate_ticket(&with(PyValue::int(3), 11, "factuur"), &s("r1"), &src).is_err());
    }

    #[test]
    fn accept_ticket_lesson_examples() {
        let status = |raw: &str, attempt: i64| {
            let v = accept_ticket(
                &s(raw),
                &s("r1"),
                &s(SOURCE),
                &PyValue::int(attempt),
                &PyValue::int(2),
            )
            .unwrap();
            v.as_dict()
                .and_then(|d| d.get_str("status"))
                .cloned()
                .unwrap()
        };
        assert!(strict_eq(&status("{}", 1), &s("retry")));
        assert!(strict_eq(&status("{}", 2), &s("reject")));
        let raw =
            r#"{"id":"r1","label":"factuur","evidence":{"start":5,"end":12,"text":"factuur"}}"#;
        assert!(strict_eq(&status(raw, 1), &s("accept")));
    }

    #[test]
    fn accept_ticket_policy_errors_raise() {
        let call = |attempt: PyValue, limit: PyValue| {
            accept_ticket(&s("{}"), &s("r1"), &s(SOURCE), &attempt, &limit)
        };
        assert!(call(PyValue::int(3), PyValue::int(2)).is_err());
        assert!(call(PyValue::int(0), PyValue::int(2)).is_err());
        assert!(call(PyValue::int(1), PyValue::int(4)).is_err());
        assert!(call(PyValue::Bool(true), PyValue::int(2)).is_err());
        assert!(call(PyValue::int(3), PyValue::int(3)).is_ok());
    }
}
