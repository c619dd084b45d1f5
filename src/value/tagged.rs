//! The tagged-JSON codec: how Python values cross the process boundary between
//! the Rust side and the Python harness, and how recordings store them.
//!
//! Plain JSON carries None, bools, text without surrogates, lists, ints that fit
//! in an i64 and finite floats. Everything else is a one-key object whose key
//! starts with `$`:
//! `{"$int": "<decimal>"}` (at most 4300 digits, CPython's limit; a wider
//! int as `"0x<hex>"`/`"-0x<hex>"`, which reads in linear time),
//! `{"$float": "nan"|"inf"|"-inf"}`,
//! `{"$str": [code points]}`, `{"$tuple": [...]}`, `{"$dict": [[k, v], ...]}`
//! (for dicts whose keys are not all plain text or that start with `$`),
//! `{"$opaque": {"type": ..., "repr": ...}}`, and, in expected values only,
//! `{"$match": {"call": "any_str(min_len=1)", "text": "<any non-empty str>"}}`
//! (a matcher: [`decode`] refuses it, [`decode_expected`] reads it).
//! Floats are always written with a `.` or an exponent, so a plain JSON number
//! without one is an int.

use super::{budget, int_digits, PyDict, PyStr, PyValue};
use num_bigint::BigInt;
use num_traits::ToPrimitive;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

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
    /// Valid, but over what the grader reads (`value::budget`): the case
    /// fails "returned a value too large to grade", the recording stays.
    #[error("too large to grade: {0}")]
    TooLarge(String),
}

/// Encodes a value as tagged JSON.
pub fn encode(v: &PyValue) -> Value {
    serde_json::to_value(Tagged(v)).expect("tagged JSON has text keys only")
}

/// A value as tagged JSON, written straight to a serializer (no
/// `serde_json::Value` in between): the codec's encoder.
#[derive(Clone, Copy)]
pub struct Tagged<'a>(pub &'a PyValue);

impl Serialize for Tagged<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            PyValue::None => s.serialize_unit(),
            PyValue::Bool(b) => s.serialize_bool(*b),
            PyValue::Int(i) => match i.to_i64() {
                Some(small) => s.serialize_i64(small),
                None => tag(s, "$int", &int_text(i)),
            },
            PyValue::Float(f) if f.is_finite() => s.serialize_f64(*f),
            PyValue::Float(f) => tag(
                s,
                "$float",
                if f.is_nan() {
                    "nan"
                } else if *f > 0.0 {
                    "inf"
                } else {
                    "-inf"
                },
            ),
            PyValue::Str(text) => match text.to_rust_string() {
                Some(text) => s.serialize_str(&text),
                None => tag(s, "$str", text.code_points()),
            },
            PyValue::List(items) => s.collect_seq(items.iter().map(Tagged)),
            PyValue::Tuple(items) => tag(s, "$tuple", &Items(items)),
            PyValue::Dict(d) => {
                let plain = d.iter().all(|(k, _)| match k {
                    PyValue::Str(s) => {
                        !s.has_surrogate() && s.code_points().first() != Some(&('$' as u32))
                    }
                    _ => false,
                });
                if plain {
                    s.collect_map(d.iter().map(|(k, v)| {
                        let key = k
                            .as_str()
                            .and_then(PyStr::to_rust_string)
                            .unwrap_or_default();
                        (key, Tagged(v))
                    }))
                } else {
                    tag(s, "$dict", &Entries(d))
                }
            }
            PyValue::Opaque { type_name, repr } => tag(
                s,
                "$opaque",
                &Fields(&[("type", type_name.as_str()), ("repr", repr.as_str())]),
            ),
            PyValue::Match(m) => tag(
                s,
                "$match",
                &Fields(&[("call", m.call().as_str()), ("text", m.text().as_str())]),
            ),
        }
    }
}

/// Items as a tagged-JSON array.
struct Items<'a>(&'a [PyValue]);

impl Serialize for Items<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(Tagged))
    }
}

/// A dict as `[[key, value], ...]`.
struct Entries<'a>(&'a PyDict);

impl Serialize for Entries<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|(k, v)| [Tagged(k), Tagged(v)]))
    }
}

/// A JSON object of text fields, in order.
struct Fields<'a>(&'a [(&'a str, &'a str)]);

impl Serialize for Fields<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().copied())
    }
}

/// `{name: inner}`.
fn tag<S: Serializer, T: Serialize + ?Sized>(
    s: S,
    name: &str,
    inner: &T,
) -> Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(Some(1))?;
    m.serialize_entry(name, inner)?;
    m.end()
}

/// Decodes tagged JSON into a value (a returned value, an argument): a
/// `$match` anywhere is an error. Only an object with a key starting with
/// `$` (a tag, or a key refused as one) can make it fail: JSON without one
/// always decodes, which [`DollarKeys`] relies on.
pub fn decode(v: &Value) -> Result<PyValue, TaggedError> {
    decode_with(v, false, &Default::default())
}

/// Whether JSON text holds an object key starting with `$` anywhere, read
/// as the JSON of a [`Value`] is (same parser, same errors) but never
/// built: a value without one is known to [`decode`] without building it
/// or its Python value.
pub struct DollarKeys(pub bool);

impl<'de> serde::Deserialize<'de> for DollarKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(DollarKeysVisitor)
    }
}

struct DollarKeysVisitor;

impl<'de> serde::de::Visitor<'de> for DollarKeysVisitor {
    type Value = DollarKeys;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<DollarKeys, E> {
        Ok(DollarKeys(false))
    }

    fn visit_i64<E>(self, _: i64) -> Result<DollarKeys, E> {
        Ok(DollarKeys(false))
    }

    fn visit_u64<E>(self, _: u64) -> Result<DollarKeys, E> {
        Ok(DollarKeys(false))
    }

    fn visit_i128<E>(self, _: i128) -> Result<DollarKeys, E> {
        Ok(DollarKeys(false))
    }

    fn visit_u128<E>(self, _: u128) -> Result<DollarKeys, E> {
        Ok(DollarKeys(false))
    }

    fn visit_f64<E>(self, _: f64) -> Result<DollarKeys, E> {
        Ok(DollarKeys(false))
    }

    fn visit_str<E>(self, _: &str) -> Result<DollarKeys, E> {
        Ok(DollarKeys(false))
    }

    fn visit_unit<E>(self) -> Result<DollarKeys, E> {
        Ok(DollarKeys(false))
    }

    fn visit_none<E>(self) -> Result<DollarKeys, E> {
        Ok(DollarKeys(false))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<DollarKeys, A::Error> {
        let mut any = false;
        while let Some(DollarKeys(inside)) = seq.next_element()? {
            any |= inside;
        }
        Ok(DollarKeys(any))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<DollarKeys, A::Error> {
        let mut any = false;
        while let Some(DollarKey(key)) = map.next_key()? {
            let DollarKeys(inside) = map.next_value()?;
            any |= key || inside;
        }
        Ok(DollarKeys(any))
    }
}

/// Whether an object key starts with `$` (read as [`Value`] reads keys).
struct DollarKey(bool);

impl<'de> serde::Deserialize<'de> for DollarKey {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl serde::de::Visitor<'_> for KeyVisitor {
            type Value = DollarKey;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string key")
            }

            fn visit_str<E>(self, key: &str) -> Result<DollarKey, E> {
                Ok(DollarKey(key.starts_with('$')))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

/// Decodes tagged JSON of an expected value, which may hold matchers.
pub fn decode_expected(v: &Value) -> Result<PyValue, TaggedError> {
    decode_with(v, true, &Default::default())
}

/// `wide` counts the digits of the value's wide decimal `$int` texts so far
/// (see [`budget::MAX_WIDE_DECIMAL_DIGITS`]).
fn decode_with(
    v: &Value,
    matchers: bool,
    wide: &std::cell::Cell<usize>,
) -> Result<PyValue, TaggedError> {
    let decode = |v: &Value| decode_with(v, matchers, wide);
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
                decode_tag(k, inner, matchers, wide)?
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

/// `$int` text of an int outside i64: decimal up to
/// [`budget::DECIMAL_BITS`] bits (309 digits), else hexadecimal, as the
/// harness writes it (no wide int goes through quadratic decimal).
fn int_text(i: &BigInt) -> String {
    if i.bits() <= budget::DECIMAL_BITS {
        return i.to_string();
    }
    let sign = if i.sign() == num_bigint::Sign::Minus {
        "-"
    } else {
        ""
    };
    format!("{sign}0x{}", i.magnitude().to_str_radix(16))
}

/// Hexadecimal digits (only: no sign, no `_`) as an unsigned int, 32 bits
/// at a time from the end: several times faster than num-bigint's general
/// parser on the harness's widest ints (75,000 digits, decoded once when a
/// recording is read and once when its case is graded).
fn parse_plain_hex(hex: &[u8]) -> Option<num_bigint::BigUint> {
    if hex.is_empty() {
        return None;
    }
    /// Each byte's value as a hexadecimal digit; 16 for any other byte.
    const NIBBLE: [u8; 256] = {
        let mut t = [16u8; 256];
        let mut b = 0;
        while b < 256 {
            t[b] = match b as u8 {
                c @ b'0'..=b'9' => c - b'0',
                c @ b'a'..=b'f' => c - b'a' + 10,
                c @ b'A'..=b'F' => c - b'A' + 10,
                _ => 16,
            };
            b += 1;
        }
        t
    };
    let mut words = Vec::with_capacity(hex.len() / 8 + 1);
    let mut bad = 0u8;
    for chunk in hex.rchunks(8) {
        let mut word = 0u32;
        for &b in chunk {
            let nibble = NIBBLE[usize::from(b)];
            bad |= nibble & 16;
            word = word << 4 | u32::from(nibble & 15);
        }
        words.push(word);
    }
    (bad == 0).then(|| num_bigint::BigUint::new(words))
}

/// Parses `$int` text: decimal of at most [`int_digits::MAX_INT_DIGITS`]
/// digits, or `0x...`/`-0x...` hexadecimal (which the harness writes for
/// any int over [`budget::NARROW_DECIMAL_DIGITS`]). Decimal text with more
/// digits, or wide decimal text past [`budget::MAX_WIDE_DECIMAL_DIGITS`]
/// in one value (`wide` counts them), is [`TaggedError::TooLarge`]:
/// reading decimal costs quadratic time, and CPython itself refuses over
/// 4300 digits.
fn parse_int_text(s: &str, wide: &std::cell::Cell<usize>) -> Result<BigInt, TaggedError> {
    let bad = || malformed("$int", format!("not an integer: {s:.40}"));
    let (negative, rest) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    if rest.starts_with(['+', '-']) {
        return Err(bad());
    }
    let magnitude = match rest.strip_prefix("0x") {
        Some(hex) => match parse_plain_hex(hex.as_bytes()) {
            Some(magnitude) => BigInt::from(magnitude),
            None => BigInt::parse_bytes(hex.as_bytes(), 16).ok_or_else(bad)?,
        },
        None => {
            if !rest.bytes().all(|b| b.is_ascii_digit() || b == b'_') {
                return Err(bad());
            }
            let digits = rest.bytes().filter(u8::is_ascii_digit).count();
            if digits > int_digits::MAX_INT_DIGITS {
                return Err(TaggedError::TooLarge(format!(
                    "an int written in {digits} decimal digits (the grader reads at most {}, \
                     as Python does; a wider int is written in hexadecimal)",
                    int_digits::MAX_INT_DIGITS
                )));
            }
            if digits > budget::NARROW_DECIMAL_DIGITS {
                wide.set(wide.get() + digits);
                if wide.get() > budget::MAX_WIDE_DECIMAL_DIGITS {
                    return Err(TaggedError::TooLarge(format!(
                        "ints written in more than {} decimal digits together (the grader \
                         reads so many digits of ints over {} digits in one value; wider ints \
                         are written in hexadecimal)",
                        budget::MAX_WIDE_DECIMAL_DIGITS,
                        budget::NARROW_DECIMAL_DIGITS
                    )));
                }
            }
            BigInt::parse_bytes(rest.as_bytes(), 10).ok_or_else(bad)?
        }
    };
    if magnitude.sign() == num_bigint::Sign::Minus {
        return Err(bad());
    }
    Ok(if negative { -magnitude } else { magnitude })
}

fn decode_tag(
    key: &str,
    inner: &Value,
    matchers: bool,
    wide: &std::cell::Cell<usize>,
) -> Result<PyValue, TaggedError> {
    let decode = |v: &Value| decode_with(v, matchers, wide);
    match key {
        "$int" => {
            let s = inner
                .as_str()
                .ok_or_else(|| malformed("$int", "not a string"))?;
            if s.is_empty() || s.len() > budget::MAX_INT_TEXT_CHARS {
                return Err(malformed("$int", "bad length"));
            }
            parse_int_text(s, wide).map(PyValue::Int)
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

    /// The scan reads what `Value` reads, and finds every `$` key: where
    /// it finds none, the text decodes.
    #[test]
    fn dollar_keys_are_found_wherever_they_are() {
        use crate::recording::json::{from_slice, MAX_VALUE_NESTING};
        let scan = |t: &str| from_slice::<DollarKeys>(t.as_bytes(), MAX_VALUE_NESTING).map(|d| d.0);
        for (text, dollar) in [
            ("null", false),
            (
                "[1, -2, 3.5, 1e300, 18446744073709551615, -9223372036854775808, \"$x\", true]",
                false,
            ),
            (
                "{\"a\": {\"b\": [{}, {\"c\": \"$int\"}]}, \"d\": []}",
                false,
            ),
            ("{\"k\": 1, \"k\": {\"$nope\": 1}}", true),
            ("{\"$int\": \"123456789012345678901234567890\"}", true),
            ("[[[{\"a\": 1, \"$b\": 2}]]]", true),
            ("{\"\\u0024esc\": 1}", true),
            ("{\"\\ud83d\\ude00\": \"\\u00e9\"}", false),
        ] {
            assert_eq!(scan(text).unwrap(), dollar, "{text}");
            let value: Value = serde_json::from_str(text).unwrap();
            if !dollar {
                assert!(decode(&value).is_ok(), "{text}");
            }
        }
        // What `Value` refuses, the scan refuses.
        for text in [
            "1e400",
            "[1,]",
            "{\"a\" 1}",
            "\"\\ud800\"",
            "[1] 2",
            "{1: 2}",
            "nul",
        ] {
            assert!(serde_json::from_str::<Value>(text).is_err(), "{text}");
            assert!(scan(text).is_err(), "{text}");
        }
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
    fn every_kind_has_its_exact_text() {
        use crate::value::Matcher;
        let d: PyDict = vec![
            (PyValue::int(1), PyValue::str("int key")),
            (PyValue::str("$k"), PyValue::Tuple(vec![PyValue::None])),
        ]
        .into_iter()
        .collect();
        let v = PyValue::List(vec![
            PyValue::None,
            PyValue::Bool(true),
            PyValue::int(-7),
            PyValue::Int(BigInt::from(2u8).pow(70)),
            PyValue::Int(-BigInt::from(2u8).pow(1100)),
            PyValue::Float(3.0),
            PyValue::Float(-0.0),
            PyValue::Float(1e300),
            PyValue::Float(5e-324),
            PyValue::Float(f64::NAN),
            PyValue::Float(f64::INFINITY),
            PyValue::Float(f64::NEG_INFINITY),
            PyValue::str("é\"\n\u{1F600}"),
            PyValue::Str(PyStr::from_code_points(vec![0x61, 0xD800])),
            PyValue::Tuple(vec![PyValue::int(1), PyValue::Tuple(vec![])]),
            PyValue::Dict(d),
            PyValue::dict_of(vec![("b", PyValue::int(1)), ("a", PyValue::List(vec![]))]),
            PyValue::Opaque {
                type_name: "set".into(),
                repr: "{1}".into(),
            },
            PyValue::Match(Matcher::non_empty_str()),
        ]);
        let text = format!(
            concat!(
                r#"[null,true,-7,{{"$int":"1180591620717411303424"}},{{"$int":"-0x1{}"}},"#,
                r#"3.0,-0.0,1e+300,5e-324,{{"$float":"nan"}},{{"$float":"inf"}},{{"$float":"-inf"}},"#,
                r#""é\"\n😀",{{"$str":[97,55296]}},{{"$tuple":[1,{{"$tuple":[]}}]}},"#,
                r#"{{"$dict":[[1,"int key"],["$k",{{"$tuple":[null]}}]]}},{{"b":1,"a":[]}},"#,
                r#"{{"$opaque":{{"type":"set","repr":"{{1}}"}}}},"#,
                r#"{{"$match":{{"call":"any_str(min_len=1)","text":"<any non-empty str>"}}}}]"#
            ),
            "0".repeat(275)
        );
        // Written straight, and through a `serde_json::Value`, alike.
        assert_eq!(serde_json::to_string(&Tagged(&v)).unwrap(), text);
        assert_eq!(encode(&v).to_string(), text);
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
        // Beyond the fast path: what num-bigint reads, as before.
        let v = decode(&serde_json::json!({"$int": "0x1_f"})).unwrap();
        assert!(strict_eq(&v, &PyValue::int(31)));
        assert!(decode(&serde_json::json!({"$int": "0x"})).is_err());
        assert!(decode(&serde_json::json!({"$int": "0xg"})).is_err());
        assert!(decode(&serde_json::json!({"$int": "-0x-1"})).is_err());
    }

    #[test]
    fn plain_hex_reads_as_num_bigint_does() {
        let mut i = BigInt::from(1);
        for _ in 0..400 {
            let hex = i.to_str_radix(16);
            let upper = hex.to_uppercase();
            for text in [&hex, &upper, &format!("000{hex}")] {
                let fast = parse_plain_hex(text.as_bytes()).map(BigInt::from);
                assert_eq!(fast, BigInt::parse_bytes(text.as_bytes(), 16), "{text}");
            }
            i = i * 7 + 3;
        }
    }

    #[test]
    fn wide_ints_travel_in_hex_and_round_trip() {
        use crate::value::budget::DECIMAL_BITS;
        use crate::value::int_digits::MAX_INT_DIGITS;
        let limit: BigInt = num_traits::pow(BigInt::from(10), MAX_INT_DIGITS);
        let one = BigInt::from(1);
        let widest: BigInt = (&one << DECIMAL_BITS) - 1u8;
        for i in [
            (&one << 64u32) + 1u8,
            widest.clone(),
            -widest,
            &one << DECIMAL_BITS,
            &limit - 1u8,
            limit.clone(),
            -limit.clone(),
            (&one << 299_990u32) + 12345u16,
            -(&one << 299_990u32),
        ] {
            let text = int_text(&i);
            let hex = text.trim_start_matches('-').starts_with("0x");
            assert_eq!(hex, i.bits() > DECIMAL_BITS, "{} bits", i.bits());
            round_trip(PyValue::Int(i));
        }
        // Many wide ints in one value round-trip too (in hexadecimal, none
        // counts against the decimal budget).
        round_trip(PyValue::List(vec![PyValue::Int(&limit - 1u8); 100]));
    }

    #[test]
    fn wide_decimal_text_is_read_up_to_a_budget_per_value() {
        use crate::value::budget::{MAX_WIDE_DECIMAL_DIGITS, NARROW_DECIMAL_DIGITS};
        let int =
            |digits: usize| serde_json::json!({"$int": format!("1{}", "0".repeat(digits - 1))});
        // Narrow decimal: as much as a value holds.
        let narrow = Value::Array(vec![int(NARROW_DECIMAL_DIGITS); 2000]);
        assert!(decode(&narrow).is_ok());
        // Wide decimal: up to the budget, in one value.
        let n = MAX_WIDE_DECIMAL_DIGITS / 4000;
        let within = Value::Array(vec![int(4000); n]);
        assert!(decode(&within).is_ok());
        let over = serde_json::json!([within, {"$tuple": [int(4000)]}]);
        match decode(&over) {
            Err(TaggedError::TooLarge(why)) => assert_eq!(
                why,
                "ints written in more than 100000 decimal digits together (the grader reads so \
                 many digits of ints over 309 digits in one value; wider ints are written in \
                 hexadecimal)"
            ),
            other => panic!("{other:?}"),
        }
        // Each value has its own budget.
        assert!(decode(&within).is_ok());
    }

    #[test]
    fn decimal_over_cpythons_limit_is_too_large_not_malformed() {
        let digits = |n: usize| format!("1{}", "0".repeat(n - 1));
        let ok = decode(&serde_json::json!({"$int": digits(4300)})).unwrap();
        assert!(strict_eq(
            &ok,
            &PyValue::Int(num_traits::pow(BigInt::from(10), 4299))
        ));
        for text in [digits(4301), format!("-{}", digits(90_309))] {
            match decode(&serde_json::json!({"$int": text})) {
                Err(TaggedError::TooLarge(why)) => assert!(
                    why.starts_with(&format!(
                        "an int written in {} decimal digits (the grader reads at most 4300",
                        text.trim_start_matches('-').len()
                    )),
                    "{why}"
                ),
                other => panic!("{other:?}"),
            }
        }
        // Inside a container too; and malformed text stays malformed.
        let nested = serde_json::json!([1, {"$tuple": [{"$int": digits(5000)}]}]);
        assert!(matches!(decode(&nested), Err(TaggedError::TooLarge(_))));
        let bad = format!("{}x", digits(5000));
        assert!(matches!(
            decode(&serde_json::json!({"$int": bad})),
            Err(TaggedError::Malformed { .. })
        ));
        assert!(matches!(
            decode(&serde_json::json!({"$int": "+1"})),
            Err(TaggedError::Malformed { .. })
        ));
    }
}
