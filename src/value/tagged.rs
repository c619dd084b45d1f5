//! The tagged-JSON codec: how Python values cross the process boundary between
//! the Rust side and the Python harness, and how recordings store them.
//!
//! Plain JSON carries None, bools, text without surrogates, lists, ints that fit
//! in an i64 and finite floats. Everything else is a one-key object whose key
//! starts with `$`:
//! `{"$int": "<decimal>"}`, `{"$float": "nan"|"inf"|"-inf"}`,
//! `{"$str": [code points]}`, `{"$tuple": [...]}`, `{"$dict": [[k, v], ...]}`
//! (for dicts whose keys are not all plain text or that start with `$`),
//! `{"$opaque": {"type": ..., "repr": ...}}`, and, in expected values only,
//! `{"$match": {"call": "any_str(min_len=1)", "text": "<any non-empty str>"}}`
//! (a matcher: [`decode`] refuses it, [`decode_expected`] reads it).
//! Floats are always written with a `.` or an exponent, so a plain JSON number
//! without one is an int.

use super::{PyDict, PyStr, PyValue};
use num_bigint::BigInt;
use num_traits::ToPrimitive;
use serde_json::{Map, Number, Value};

/// Errors decoding a tagged-JSON value.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum TaggedError {
    #[error("unknown tag {0:?}")]
    UnknownTag(String),
    #[error("malformed {tag}: {why}")]
    Malformed { tag: &'static str, why: String },
    #[error("unhashable dict key of type {0}")]
    UnhashableKey(String),
    #[error("a matcher ($match) is an expected value, never a returned one")]
    MatcherNotAllowed,
}

/// Encodes a value as tagged JSON.
pub fn encode(v: &PyValue) -> Value {
    match v {
        PyValue::None => Value::Null,
        PyValue::Bool(b) => Value::Bool(*b),
        PyValue::Int(i) => match i.to_i64() {
            Some(small) => Value::Number(small.into()),
            None => tag("$int", Value::String(i.to_string())),
        },
        PyValue::Float(f) => match Number::from_f64(*f) {
            Some(n) => Value::Number(n),
            None => tag(
                "$float",
                Value::String(
                    if f.is_nan() {
                        "nan"
                    } else if *f > 0.0 {
                        "inf"
                    } else {
                        "-inf"
                    }
                    .into(),
                ),
            ),
        },
        PyValue::Str(s) => encode_str(s),
        PyValue::List(items) => Value::Array(items.iter().map(encode).collect()),
        PyValue::Tuple(items) => tag("$tuple", Value::Array(items.iter().map(encode).collect())),
        PyValue::Dict(d) => {
            let plain = d.iter().all(|(k, _)| match k {
                PyValue::Str(s) => {
                    !s.has_surrogate() && s.code_points().first() != Some(&('$' as u32))
                }
                _ => false,
            });
            if plain {
                let mut m = Map::new();
                for (k, v) in d.iter() {
                    let key = k
                        .as_str()
                        .and_then(PyStr::to_rust_string)
                        .unwrap_or_default();
                    m.insert(key, encode(v));
                }
                Value::Object(m)
            } else {
                tag(
                    "$dict",
                    Value::Array(
                        d.iter()
                            .map(|(k, v)| Value::Array(vec![encode(k), encode(v)]))
                            .collect(),
                    ),
                )
            }
        }
        PyValue::Opaque { type_name, repr } => tag(
            "$opaque",
            serde_json::json!({ "type": type_name, "repr": repr }),
        ),
        PyValue::Match(m) => tag(
            "$match",
            serde_json::json!({ "call": m.call(), "text": m.text() }),
        ),
    }
}

fn encode_str(s: &PyStr) -> Value {
    match s.to_rust_string() {
        Some(text) => Value::String(text),
        None => tag(
            "$str",
            Value::Array(
                s.code_points()
                    .iter()
                    .map(|&c| Value::Number(c.into()))
                    .collect(),
            ),
        ),
    }
}

fn tag(name: &str, inner: Value) -> Value {
    let mut m = Map::new();
    m.insert(name.to_string(), inner);
    Value::Object(m)
}

/// Decodes tagged JSON into a value (a returned value, an argument): a
/// `$match` anywhere is an error.
pub fn decode(v: &Value) -> Result<PyValue, TaggedError> {
    decode_with(v, false)
}

/// Decodes tagged JSON of an expected value, which may hold matchers.
pub fn decode_expected(v: &Value) -> Result<PyValue, TaggedError> {
    decode_with(v, true)
}

fn decode_with(v: &Value, matchers: bool) -> Result<PyValue, TaggedError> {
    let decode = |v: &Value| decode_with(v, matchers);
    Ok(match v {
        Value::Null => PyValue::None,
        Value::Bool(b) => PyValue::Bool(*b),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                PyValue::Int(BigInt::from(i))
            } else if let Some(u) = n.as_u64() {
                PyValue::Int(BigInt::from(u))
            } else {
                PyValue::Float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        Value::String(s) => PyValue::str(s),
        Value::Array(items) => PyValue::List(items.iter().map(decode).collect::<Result<_, _>>()?),
        Value::Object(m) => {
            let only_entry = m.iter().next().filter(|_| m.len() == 1);
            if let Some((k, inner)) = only_entry.filter(|(k, _)| k.starts_with('$')) {
                decode_tag(k, inner, matchers)?
            } else {
                let mut d = PyDict::new();
                for (k, v) in m {
                    if k.starts_with('$') {
                        return Err(TaggedError::UnknownTag(k.clone()));
                    }
                    d.push_unique(PyValue::str(k), decode(v)?);
                }
                PyValue::Dict(d)
            }
        }
    })
}

fn malformed(tag: &'static str, why: impl Into<String>) -> TaggedError {
    TaggedError::Malformed {
        tag,
        why: why.into(),
    }
}

/// Parses `$int` text: decimal, or `0x...`/`-0x...` hexadecimal (which the
/// harness writes when CPython's int/str digit limit refuses decimal).
fn parse_int_text(s: &str) -> Option<BigInt> {
    let (negative, rest) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let magnitude = match rest.strip_prefix("0x") {
        Some(hex) => BigInt::parse_bytes(hex.as_bytes(), 16)?,
        None => BigInt::parse_bytes(rest.as_bytes(), 10)?,
    };
    if magnitude.sign() == num_bigint::Sign::Minus || rest.starts_with(['+', '-']) {
        return None;
    }
    Some(if negative { -magnitude } else { magnitude })
}

fn decode_tag(key: &str, inner: &Value, matchers: bool) -> Result<PyValue, TaggedError> {
    let decode = |v: &Value| decode_with(v, matchers);
    match key {
        "$int" => {
            let s = inner
                .as_str()
                .ok_or_else(|| malformed("$int", "not a string"))?;
            if s.is_empty() || s.len() > 100_000 {
                return Err(malformed("$int", "bad length"));
            }
            parse_int_text(s)
                .map(PyValue::Int)
                .ok_or_else(|| malformed("$int", format!("not an integer: {s:.40}")))
        }
        "$float" => match inner.as_str() {
            Some("nan") => Ok(PyValue::Float(f64::NAN)),
            Some("inf") => Ok(PyValue::Float(f64::INFINITY)),
            Some("-inf") => Ok(PyValue::Float(f64::NEG_INFINITY)),
            _ => Err(malformed("$float", "expected \"nan\", \"inf\" or \"-inf\"")),
        },
        "$str" => {
            let items = inner
                .as_array()
                .ok_or_else(|| malformed("$str", "not a list"))?;
            let cps = items
                .iter()
                .map(|c| c.as_u64().filter(|&c| c <= 0x10FFFF).map(|c| c as u32))
                .collect::<Option<Vec<u32>>>()
                .ok_or_else(|| malformed("$str", "code points must be integers 0..=0x10FFFF"))?;
            Ok(PyValue::Str(PyStr::from_code_points(cps)))
        }
        "$tuple" => {
            let items = inner
                .as_array()
                .ok_or_else(|| malformed("$tuple", "not a list"))?;
            Ok(PyValue::Tuple(
                items.iter().map(decode).collect::<Result<_, _>>()?,
            ))
        }
        "$dict" => {
            let items = inner
                .as_array()
                .ok_or_else(|| malformed("$dict", "not a list"))?;
            let mut pairs = Vec::with_capacity(items.len());
            for pair in items {
                let pair = pair
                    .as_array()
                    .filter(|p| p.len() == 2)
                    .ok_or_else(|| malformed("$dict", "entries must be [key, value] pairs"))?;
                let k = decode(&pair[0])?;
                if matches!(k, PyValue::List(_) | PyValue::Dict(_) | PyValue::Match(_)) {
                    return Err(TaggedError::UnhashableKey(k.type_name().to_string()));
                }
                pairs.push((k, decode(&pair[1])?));
            }
            // Collected by key hash: a recorded dict may hold 100,000 keys.
            Ok(PyValue::Dict(pairs.into_iter().collect()))
        }
        "$opaque" => {
            let field = |name: &str| inner.get(name).and_then(Value::as_str).map(str::to_string);
            match (field("type"), field("repr")) {
                (Some(type_name), Some(repr)) => Ok(PyValue::Opaque { type_name, repr }),
                _ => Err(malformed("$opaque", "needs string fields type and repr")),
            }
        }
        "$match" if !matchers => Err(TaggedError::MatcherNotAllowed),
        "$match" => {
            let call = inner
                .get("call")
                .and_then(Value::as_str)
                .ok_or_else(|| malformed("$match", "needs a string field call"))?;
            match super::reader::eval_expr(call, &super::reader::Lets::new()) {
                Ok(PyValue::Match(m)) => Ok(PyValue::Match(m)),
                _ => Err(malformed(
                    "$match",
                    format!("not a matcher call: {call:.60}"),
                )),
            }
        }
        other => Err(TaggedError::UnknownTag(other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::strict_eq;

    fn round_trip(v: PyValue) {
        let back = decode(&encode(&v)).expect("decodes");
        assert!(strict_eq(&v, &back), "{v:?} came back as {back:?}");
        // And through text, as recordings travel.
        let text = serde_json::to_string(&encode(&v)).expect("serializes");
        let parsed: Value = serde_json::from_str(&text).expect("parses");
        let back = decode(&parsed).expect("decodes");
        assert!(
            strict_eq(&v, &back),
            "{v:?} came back from {text} as {back:?}"
        );
    }

    #[test]
    fn scalars_round_trip() {
        round_trip(PyValue::None);
        round_trip(PyValue::Bool(true));
        round_trip(PyValue::int(-7));
        round_trip(PyValue::Int(BigInt::from(2u8).pow(200)));
        round_trip(PyValue::Int(-BigInt::from(2u8).pow(63) - 1));
        round_trip(PyValue::Float(1.0));
        round_trip(PyValue::Float(-0.0));
        round_trip(PyValue::Float(1e16));
        round_trip(PyValue::Float(5e-324));
        round_trip(PyValue::Float(f64::NAN));
        round_trip(PyValue::Float(f64::NEG_INFINITY));
        round_trip(PyValue::str("é\u{1F600}"));
        round_trip(PyValue::Str(PyStr::from_code_points(vec![0x61, 0xD800])));
    }

    #[test]
    fn containers_round_trip() {
        let d: PyDict = vec![
            (PyValue::int(1), PyValue::str("int key")),
            (PyValue::Tuple(vec![PyValue::None]), PyValue::List(vec![])),
        ]
        .into_iter()
        .collect();
        round_trip(PyValue::Dict(d));
        round_trip(PyValue::dict_of(vec![("$int", PyValue::int(1))]));
        round_trip(PyValue::dict_of(vec![
            ("b", PyValue::int(1)),
            ("a", PyValue::Tuple(vec![])),
        ]));
    }

    #[test]
    fn float_without_fraction_stays_float() {
        assert_eq!(
            serde_json::to_string(&encode(&PyValue::Float(3.0))).unwrap(),
            "3.0"
        );
    }

    #[test]
    fn opaque_never_equals_itself() {
        let o = PyValue::Opaque {
            type_name: "set".into(),
            repr: "{1}".into(),
        };
        let back = decode(&encode(&o)).unwrap();
        assert!(matches!(back, PyValue::Opaque { .. }));
        assert!(!strict_eq(&o, &back));
    }

    #[test]
    fn bad_tags_are_errors() {
        assert!(decode(&serde_json::json!({"$nope": 1})).is_err());
        assert!(decode(&serde_json::json!({"$str": [1114112]})).is_err());
        assert!(decode(&serde_json::json!({"$dict": [[[1], 2]]})).is_err());
        assert!(decode(&serde_json::json!({"$int": "12x"})).is_err());
        assert!(decode(&serde_json::json!({"$int": "--1"})).is_err());
        assert!(decode(&serde_json::json!({"$int": "-+1"})).is_err());
    }

    #[test]
    fn matchers_travel_only_as_expected_values() {
        use crate::value::Matcher;
        let v = PyValue::List(vec![PyValue::dict_of(vec![(
            "content",
            PyValue::Match(Matcher::non_empty_str()),
        )])]);
        let j = encode(&v);
        assert_eq!(
            j,
            serde_json::json!([{"content": {"$match": {
                "call": "any_str(min_len=1)", "text": "<any non-empty str>"}}}])
        );
        assert!(strict_eq(&decode_expected(&j).unwrap(), &v));
        assert_eq!(decode(&j).err(), Some(TaggedError::MatcherNotAllowed));
        let nested = serde_json::json!({"$tuple": [{"$match": {"call": "any()"}}]});
        assert_eq!(decode(&nested).err(), Some(TaggedError::MatcherNotAllowed));
        assert!(decode_expected(&serde_json::json!({"$match": {"call": "float('nan')"}})).is_err());
        assert!(decode_expected(&serde_json::json!({"$match": {"call": "any_str(x=1)"}})).is_err());
    }

    #[test]
    fn hex_ints_decode() {
        let v = decode(&serde_json::json!({"$int": "-0x1f"})).unwrap();
        assert!(strict_eq(&v, &PyValue::int(-31)));
    }
}
