//! A JSON decoder that mirrors CPython's `json.loads` on a `str`: the C
//! scanner of `Modules/_json.c` (`scanstring_unicode`, `_match_number_unicode`,
//! `scan_once_unicode`) plus `json.decoder.JSONDecoder.decode`.
//!
//! It works on a Python string's code points, so it sees lone surrogates as
//! CPython does, keeps integers exact, rounds floats correctly (as CPython's
//! `float(str)` does) and joins `\uD8xx\uDCxx` escape pairs exactly where the
//! C scanner joins them. serde_json cannot do any of that faithfully.

use crate::value::{PyDict, PyStr, PyValue};
use num_bigint::BigInt;

/// Why a text was refused. CPython raises `json.JSONDecodeError` (or a
/// hook's `ValueError`) for all of these; the position is for humans only.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{msg} at code point {pos}")]
pub struct JsonError {
    pub msg: String,
    pub pos: usize,
}

/// `object_pairs_hook`: builds a dict from an object's pairs, in document
/// order, or refuses them.
pub type PairsHook = fn(Vec<(PyStr, PyValue)>) -> Result<PyDict, String>;

/// `parse_constant`: called with `"NaN"`, `"Infinity"` or `"-Infinity"`.
pub type ConstantHook = fn(&str) -> Result<PyValue, String>;

/// How deep plain `json.loads` reads: CPython gives up near its default
/// recursion limit (`sys.getrecursionlimit()`, 1000).
pub const DEFAULT_MAX_DEPTH: usize = 1000;

/// The knobs of `json.loads` the checkpoints use.
#[derive(Clone, Copy)]
pub struct Options {
    /// Containers nested deeper than this are refused. CPython gives up with
    /// `RecursionError` near the interpreter's recursion limit; callers that
    /// refuse deep nesting anyway pass their own, smaller bound here, which
    /// also keeps this recursive decoder's stack small.
    pub max_depth: usize,
    pub object_pairs_hook: PairsHook,
    pub parse_constant: ConstantHook,
}

impl Default for Options {
    /// Plain `json.loads`: later duplicate keys win, `NaN`/`Infinity` become
    /// floats, nesting bounded like CPython's default recursion limit.
    fn default() -> Self {
        Options {
            max_depth: DEFAULT_MAX_DEPTH,
            object_pairs_hook: |pairs| {
                let mut d = PyDict::new();
                for (k, v) in pairs {
                    d.insert(PyValue::Str(k), v);
                }
                Ok(d)
            },
            parse_constant: |name| {
                Ok(PyValue::Float(match name {
                    "NaN" => f64::NAN,
                    "Infinity" => f64::INFINITY,
                    _ => f64::NEG_INFINITY,
                }))
            },
        }
    }
}

/// `json.loads(text, ...)` for a `str` argument.
pub fn loads(text: &PyStr, options: &Options) -> Result<PyValue, JsonError> {
    let s = text.code_points();
    if s.first() == Some(&0xFEFF) {
        return Err(JsonError {
            msg: "Unexpected UTF-8 BOM (decode using utf-8-sig)".into(),
            pos: 0,
        });
    }
    let scanner = Scanner { s, options };
    let start = scanner.skip_ws(0);
    let (value, end) = scanner.scan_once(start, 0)?;
    let end = scanner.skip_ws(end);
    if end != s.len() {
        return Err(scanner.err("Extra data", end));
    }
    Ok(value)
}

/// Only these four are JSON whitespace (`json.decoder.WHITESPACE` and the C
/// scanner's `IS_WHITESPACE`); U+00A0, U+000B and friends are not.
fn is_ws(c: u32) -> bool {
    matches!(c, 0x20 | 0x09 | 0x0A | 0x0D)
}

fn is_digit(c: u32) -> bool {
    (b'0' as u32..=b'9' as u32).contains(&c)
}

fn hex_value(c: u32) -> Option<u32> {
    char::from_u32(c)
        .filter(char::is_ascii_hexdigit)
        .and_then(|c| c.to_digit(16))
}

struct Scanner<'a> {
    s: &'a [u32],
    options: &'a Options,
}

impl Scanner<'_> {
    fn err(&self, msg: &str, pos: usize) -> JsonError {
        JsonError {
            msg: msg.to_string(),
            pos,
        }
    }

    fn at(&self, i: usize) -> Option<u32> {
        self.s.get(i).copied()
    }

    fn skip_ws(&self, mut i: usize) -> usize {
        while self.at(i).is_some_and(is_ws) {
            i += 1;
        }
        i
    }

    /// Whether the ASCII word `w` starts at `i`.
    fn word_at(&self, i: usize, w: &str) -> bool {
        let end = i + w.len();
        end <= self.s.len()
            && self.s[i..end]
                .iter()
                .zip(w.bytes())
                .all(|(&c, b)| c == b as u32)
    }

    /// `scan_once_unicode`: one value starting exactly at `i`. `depth` is the
    /// number of containers already open around it.
    fn scan_once(&self, i: usize, depth: usize) -> Result<(PyValue, usize), JsonError> {
        let Some(c) = self.at(i) else {
            return Err(self.err("Expecting value", i));
        };
        match char::from_u32(c) {
            Some('"') => {
                let (s, end) = self.scan_string(i + 1)?;
                Ok((PyValue::Str(s), end))
            }
            Some('{') => self.parse_object(i + 1, depth + 1),
            Some('[') => self.parse_array(i + 1, depth + 1),
            Some('n') if self.word_at(i, "null") => Ok((PyValue::None, i + 4)),
            Some('t') if self.word_at(i, "true") => Ok((PyValue::Bool(true), i + 4)),
            Some('f') if self.word_at(i, "false") => Ok((PyValue::Bool(false), i + 5)),
            Some('N') if self.word_at(i, "NaN") => self.constant("NaN", i, 3),
            Some('I') if self.word_at(i, "Infinity") => self.constant("Infinity", i, 8),
            Some('-') if self.word_at(i, "-Infinity") => self.constant("-Infinity", i, 9),
            _ => self.match_number(i),
        }
    }

    fn constant(&self, name: &str, i: usize, len: usize) -> Result<(PyValue, usize), JsonError> {
        match (self.options.parse_constant)(name) {
            Ok(v) => Ok((v, i + len)),
            Err(msg) => Err(self.err(&msg, i)),
        }
    }

    fn enter(&self, depth: usize, i: usize) -> Result<(), JsonError> {
        if depth > self.options.max_depth {
            Err(self.err("nested too deeply", i))
        } else {
            Ok(())
        }
    }

    /// `_parse_object_unicode`, called just after the `{`.
    fn parse_object(&self, mut i: usize, depth: usize) -> Result<(PyValue, usize), JsonError> {
        self.enter(depth, i)?;
        let mut pairs = Vec::new();
        i = self.skip_ws(i);
        if self.at(i) != Some('}' as u32) {
            loop {
                if self.at(i) != Some('"' as u32) {
                    return Err(self.err("Expecting property name enclosed in double quotes", i));
                }
                let (key, after_key) = self.scan_string(i + 1)?;
                i = self.skip_ws(after_key);
                if self.at(i) != Some(':' as u32) {
                    return Err(self.err("Expecting ':' delimiter", i));
                }
                i = self.skip_ws(i + 1);
                let (value, after_value) = self.scan_once(i, depth)?;
                pairs.push((key, value));
                i = self.skip_ws(after_value);
                match self.at(i).and_then(char::from_u32) {
                    Some('}') => break,
                    Some(',') => i = self.skip_ws(i + 1),
                    _ => return Err(self.err("Expecting ',' delimiter", i)),
                }
            }
        }
        match (self.options.object_pairs_hook)(pairs) {
            Ok(d) => Ok((PyValue::Dict(d), i + 1)),
            Err(msg) => Err(self.err(&msg, i)),
        }
    }

    /// `_parse_array_unicode`, called just after the `[`.
    fn parse_array(&self, mut i: usize, depth: usize) -> Result<(PyValue, usize), JsonError> {
        self.enter(depth, i)?;
        let mut items = Vec::new();
        i = self.skip_ws(i);
        if self.at(i) != Some(']' as u32) {
            loop {
                let (value, after) = self.scan_once(i, depth)?;
                items.push(value);
                i = self.skip_ws(after);
                match self.at(i).and_then(char::from_u32) {
                    Some(']') => break,
                    Some(',') => i = self.skip_ws(i + 1),
                    _ => return Err(self.err("Expecting ',' delimiter", i)),
                }
            }
        }
        Ok((PyValue::List(items), i + 1))
    }

    /// `_match_number_unicode`: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?`.
    /// A fraction or exponent without digits is not part of the number (the
    /// scanner backs off, and the leftover `.`/`e` is then a syntax error).
    fn match_number(&self, start: usize) -> Result<(PyValue, usize), JsonError> {
        let mut i = start;
        if self.at(i) == Some('-' as u32) {
            i += 1;
        }
        match self.at(i) {
            Some(c) if c == '0' as u32 => i += 1,
            Some(c) if is_digit(c) => {
                while self.at(i).is_some_and(is_digit) {
                    i += 1;
                }
            }
            _ => return Err(self.err("Expecting value", start)),
        }
        let mut is_float = false;
        if self.at(i) == Some('.' as u32) && self.at(i + 1).is_some_and(is_digit) {
            is_float = true;
            i += 1;
            while self.at(i).is_some_and(is_digit) {
                i += 1;
            }
        }
        if matches!(self.at(i), Some(c) if c == 'e' as u32 || c == 'E' as u32) {
            let mut j = i + 1;
            if matches!(self.at(j), Some(c) if c == '+' as u32 || c == '-' as u32) {
                j += 1;
            }
            if self.at(j).is_some_and(is_digit) {
                while self.at(j).is_some_and(is_digit) {
                    j += 1;
                }
                is_float = true;
                i = j;
            }
        }
        // Every code point in s[start..i] is ASCII, checked above.
        let literal: String = self.s[start..i]
            .iter()
            .map(|&c| char::from(c as u8))
            .collect();
        let value = if is_float {
            // Correctly rounded like CPython's float(); overflow gives ±inf,
            // underflow gives ±0.0.
            literal
                .parse::<f64>()
                .map(PyValue::Float)
                .map_err(|e| self.err(&format!("bad float {literal}: {e}"), start))?
        } else {
            literal
                .parse::<BigInt>()
                .map(PyValue::Int)
                .map_err(|e| self.err(&format!("bad int {literal}: {e}"), start))?
        };
        Ok((value, i))
    }

    /// `scanstring_unicode` in strict mode, called just after the opening
    /// quote. Returns the decoded string and the index after the closing quote.
    fn scan_string(&self, mut i: usize) -> Result<(PyStr, usize), JsonError> {
        let begin = i.saturating_sub(1);
        let mut out: Vec<u32> = Vec::new();
        loop {
            let Some(c) = self.at(i) else {
                return Err(self.err("Unterminated string starting at", begin));
            };
            i += 1;
            match c {
                0x22 => return Ok((PyStr::from_code_points(out), i)),
                0x00..=0x1F => return Err(self.err("Invalid control character at", i - 1)),
                0x5C => {
                    let Some(e) = self.at(i) else {
                        return Err(self.err("Unterminated string starting at", begin));
                    };
                    i += 1;
                    let simple = match char::from_u32(e) {
                        Some('"') => Some('"'),
                        Some('\\') => Some('\\'),
                        Some('/') => Some('/'),
                        Some('b') => Some('\u{8}'),
                        Some('f') => Some('\u{c}'),
                        Some('n') => Some('\n'),
                        Some('r') => Some('\r'),
                        Some('t') => Some('\t'),
                        Some('u') => None,
                        _ => return Err(self.err("Invalid \\escape", i - 2)),
                    };
                    if let Some(ch) = simple {
                        out.push(ch as u32);
                        continue;
                    }
                    let unit = self.hex4(i)?;
                    i += 4;
                    // A high surrogate escape immediately followed by a low
                    // surrogate escape is one code point; anything else after
                    // it is scanned on its own and the high surrogate stays lone.
                    if (0xD800..=0xDBFF).contains(&unit)
                        && self.at(i) == Some('\\' as u32)
                        && self.at(i + 1) == Some('u' as u32)
                    {
                        let low = self.hex4(i + 2)?;
                        if (0xDC00..=0xDFFF).contains(&low) {
                            out.push(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00));
                            i += 6;
                            continue;
                        }
                    }
                    out.push(unit);
                }
                _ => out.push(c),
            }
        }
    }

    /// The four hex digits of a `\uXXXX` escape starting at `i`.
    fn hex4(&self, i: usize) -> Result<u32, JsonError> {
        let mut v = 0u32;
        for k in 0..4 {
            match self.at(i + k).and_then(hex_value) {
                Some(d) => v = (v << 4) | d,
                None => return Err(self.err("Invalid \\uXXXX escape", i.saturating_sub(1))),
            }
        }
        Ok(v)
    }
}

/// Why `json.dumps` raised: CPython raises `ValueError` for an int of more
/// than 4300 digits (`int.__repr__`'s limit) and `TypeError` for a value or
/// key it cannot serialise (a set, bytes, a tuple key...).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DumpsError {
    #[error("ValueError: {0}")]
    ValueError(String),
    #[error("TypeError: {0}")]
    TypeError(String),
}

/// `json.dumps(v)` with every default, as CPython 3.11's C encoder writes
/// it: `ensure_ascii` (every code point outside `' '..='~'` as `\uXXXX`,
/// astral ones as a surrogate pair, lone surrogates as themselves), the
/// separators `', '` and `': '`, floats as `float.__repr__` with `NaN`,
/// `Infinity` and `-Infinity` (allow_nan), ints as `int.__repr__`, tuples as
/// arrays, dict keys in insertion order (str as is; float, True/False/None and
/// int keys converted to text).
pub fn dumps(v: &PyValue) -> Result<PyStr, DumpsError> {
    let mut out = String::new();
    dump(v, &mut out)?;
    Ok(PyStr::from(out))
}

fn dump(v: &PyValue, out: &mut String) -> Result<(), DumpsError> {
    match v {
        PyValue::None => out.push_str("null"),
        PyValue::Bool(true) => out.push_str("true"),
        PyValue::Bool(false) => out.push_str("false"),
        PyValue::Int(i) => out.push_str(&int_text(i)?),
        PyValue::Float(f) => out.push_str(&float_text(*f)),
        PyValue::Str(s) => dump_str(s, out),
        PyValue::List(items) | PyValue::Tuple(items) => {
            out.push('[');
            for (n, x) in items.iter().enumerate() {
                if n > 0 {
                    out.push_str(", ");
                }
                dump(x, out)?;
            }
            out.push(']');
        }
        PyValue::Dict(d) => {
            out.push('{');
            for (n, (k, x)) in d.iter().enumerate() {
                if n > 0 {
                    out.push_str(", ");
                }
                let key = match k {
                    PyValue::Str(s) => s.clone(),
                    PyValue::Float(f) => PyStr::from(float_text(*f)),
                    PyValue::Bool(b) => PyStr::from(if *b { "true" } else { "false" }),
                    PyValue::None => PyStr::from("null"),
                    PyValue::Int(i) => PyStr::from(int_text(i)?),
                    other => {
                        return Err(DumpsError::TypeError(format!(
                            "keys must be str, int, float, bool or None, not {}",
                            other.type_name()
                        )))
                    }
                };
                dump_str(&key, out);
                out.push_str(": ");
                dump(x, out)?;
            }
            out.push('}');
        }
        PyValue::Opaque { type_name, .. } => {
            return Err(DumpsError::TypeError(format!(
                "Object of type {type_name} is not JSON serializable"
            )))
        }
        PyValue::Match(_) => {
            return Err(DumpsError::TypeError(
                "a matcher is not a value (only expected values hold matchers)".into(),
            ))
        }
    }
    Ok(())
}

/// `int.__repr__`, which refuses more than 4300 digits in CPython 3.11.
fn int_text(i: &BigInt) -> Result<String, DumpsError> {
    let text = i.to_string();
    let digits = text.trim_start_matches('-').len();
    if digits > crate::value::int_digits::MAX_INT_DIGITS {
        return Err(DumpsError::ValueError(
            "Exceeds the limit (4300 digits) for integer string conversion".into(),
        ));
    }
    Ok(text)
}

/// `float.__repr__`, with JavaScript's names for the non-finite values.
fn float_text(f: f64) -> String {
    if f.is_nan() {
        "NaN".into()
    } else if f.is_infinite() {
        if f > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        crate::value::repr::float_repr(f)
    }
}

/// `py_encode_basestring_ascii`: a quoted JSON string, ASCII only.
fn dump_str(s: &PyStr, out: &mut String) {
    use std::fmt::Write;
    out.push('"');
    for &c in s.code_points() {
        match c {
            0x22 => out.push_str("\\\""),
            0x5C => out.push_str("\\\\"),
            0x0A => out.push_str("\\n"),
            0x0D => out.push_str("\\r"),
            0x09 => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0C => out.push_str("\\f"),
            0x20..=0x7E => out.push(c as u8 as char),
            0x10000.. => {
                let v = c - 0x10000;
                let _ = write!(
                    out,
                    "\\u{:04x}\\u{:04x}",
                    0xD800 | (v >> 10),
                    0xDC00 | (v & 0x3FF)
                );
            }
            _ => {
                let _ = write!(out, "\\u{c:04x}");
            }
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::strict_eq;

    fn plain(text: &str) -> Result<PyValue, JsonError> {
        loads(&PyStr::from(text), &Options::default())
    }

    fn cps(text: &str) -> Vec<u32> {
        match plain(text) {
            Ok(PyValue::List(items)) => match items.as_slice() {
                [PyValue::Str(s)] => s.code_points().to_vec(),
                other => panic!("not one string: {other:?}"),
            },
            other => panic!("not a list: {other:?}"),
        }
    }

    #[test]
    fn numbers_are_exact_ints_or_correctly_rounded_floats() {
        let big = "1".repeat(300);
        let v = plain(&format!(
            "[{big}, -0, 0.1, 1e999, -1e999, 1e-999, -0.0, 1E+2]"
        ))
        .unwrap();
        let expected = PyValue::List(vec![
            PyValue::Int(big.parse().unwrap()),
            PyValue::int(0),
            PyValue::Float(0.1),
            PyValue::Float(f64::INFINITY),
            PyValue::Float(f64::NEG_INFINITY),
            PyValue::Float(0.0),
            PyValue::Float(-0.0),
            PyValue::Float(100.0),
        ]);
        assert!(strict_eq(&v, &expected), "{v:?}");
        // -0.0 keeps its sign.
        match plain("[-0.0]").unwrap() {
            PyValue::List(items) => {
                assert!(matches!(items[0], PyValue::Float(f) if f.is_sign_negative()))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn number_grammar_is_strict() {
        for bad in [
            "[01]", "[1.]", "[.5]", "[1e]", "[+1]", "[-]", "[1.e5]", "[0x1]", "[1e+]",
        ] {
            assert!(plain(bad).is_err(), "{bad} should be refused");
        }
    }

    #[test]
    fn surrogate_escapes_join_exactly_as_cpython() {
        assert_eq!(cps(r#"["\ud83d\ude00"]"#), vec![0x1F600]);
        assert_eq!(cps(r#"["\ud800"]"#), vec![0xD800]);
        assert_eq!(cps(r#"["\udc00\ud800"]"#), vec![0xDC00, 0xD800]);
        assert_eq!(cps(r#"["\ud800\ud800\udc00"]"#), vec![0xD800, 0x10000]);
        assert_eq!(cps(r#"["\ud800\n"]"#), vec![0xD800, 0x0A]);
        assert_eq!(cps(r#"["\ud800x"]"#), vec![0xD800, 0x78]);
        assert!(plain(r#"["\ud800\uzzzz"]"#).is_err());
        assert!(plain(r#"["\u12"]"#).is_err());
    }

    #[test]
    fn strings_are_strict() {
        assert!(plain("[\"a\u{1F}\"]").is_err());
        assert!(plain("[\"a\u{7F}\"]").is_ok());
        assert!(plain(r#"["\x41"]"#).is_err());
        assert!(plain(r#"["\'"]"#).is_err());
        assert_eq!(cps(r#"["\"\\\/\b\f\n\r\t\u00e9"]"#), {
            "\"\\/\u{8}\u{c}\n\r\t\u{e9}"
                .chars()
                .map(|c| c as u32)
                .collect::<Vec<_>>()
        });
    }

    #[test]
    fn whitespace_bom_and_trailing_data() {
        assert!(plain(" \t\n\r{} \t\n\r").is_ok());
        assert!(plain("\u{a0}{}").is_err());
        assert!(plain("{}\u{b}").is_err());
        assert!(plain("\u{feff}{}").is_err());
        assert!(plain("{}{}").is_err());
        assert!(plain("").is_err());
        assert!(plain("```json\n{}\n```").is_err());
    }

    #[test]
    fn constants_go_through_the_hook() {
        let v = plain("[NaN, Infinity, -Infinity]").unwrap();
        let expected = PyValue::List(vec![
            PyValue::Float(f64::NAN),
            PyValue::Float(f64::INFINITY),
            PyValue::Float(f64::NEG_INFINITY),
        ]);
        assert!(strict_eq(&v, &expected));
        assert!(plain("[nan]").is_err());
        assert!(plain("[-NaN]").is_err());
        assert!(plain("[infinity]").is_err());
    }

    #[test]
    fn default_hook_keeps_the_last_duplicate_in_first_position() {
        let v = plain(r#"{"a": 1, "b": 2, "\u0061": 3}"#).unwrap();
        let expected = PyValue::dict_of(vec![("a", PyValue::int(3)), ("b", PyValue::int(2))]);
        assert!(strict_eq(&v, &expected), "{v:?}");
    }

    #[test]
    fn deep_nesting_is_refused_without_overflowing_the_stack() {
        let deep = "[".repeat(100_000);
        assert!(plain(&deep).is_err());
        let options = Options {
            max_depth: 2,
            ..Options::default()
        };
        assert!(loads(&PyStr::from("[[1]]"), &options).is_ok());
        assert!(loads(&PyStr::from("[[[1]]]"), &options).is_err());
    }

    fn dumped(v: &PyValue) -> String {
        dumps(v).unwrap().to_rust_string().unwrap()
    }

    #[test]
    fn dumps_with_cpython_defaults() {
        let d = PyValue::dict_of(vec![
            ("found", PyValue::Bool(true)),
            ("quantity", PyValue::int(12)),
        ]);
        assert_eq!(dumped(&d), r#"{"found": true, "quantity": 12}"#);
        let d = PyValue::dict_of(vec![
            ("found", PyValue::Bool(false)),
            ("quantity", PyValue::None),
        ]);
        assert_eq!(dumped(&d), r#"{"found": false, "quantity": null}"#);
        let s = PyValue::Str(PyStr::from_code_points(vec![
            0x22, 0x5C, 0x0A, 0x01, 0x7F, 0xE9, 0x1F600, 0xD800, 0x2F,
        ]));
        assert_eq!(
            dumped(&s),
            r#""\"\\\n\u0001\u007f\u00e9\ud83d\ude00\ud800/""#
        );
        let l = PyValue::Tuple(vec![
            PyValue::Float(0.1),
            PyValue::Float(1e16),
            PyValue::Float(f64::NAN),
            PyValue::Float(f64::NEG_INFINITY),
            PyValue::List(vec![]),
            PyValue::dict_of(vec![]),
        ]);
        assert_eq!(dumped(&l), "[0.1, 1e+16, NaN, -Infinity, [], {}]");
        let keys: PyDict = vec![
            (PyValue::int(1), PyValue::int(1)),
            (PyValue::Bool(false), PyValue::int(2)),
            (PyValue::None, PyValue::int(3)),
            (PyValue::Float(2.5), PyValue::int(4)),
        ]
        .into_iter()
        .collect();
        assert_eq!(
            dumped(&PyValue::Dict(keys)),
            r#"{"1": 1, "false": 2, "null": 3, "2.5": 4}"#
        );
        let tuple_key: PyDict = vec![(PyValue::Tuple(vec![]), PyValue::None)]
            .into_iter()
            .collect();
        assert!(matches!(
            dumps(&PyValue::Dict(tuple_key)),
            Err(DumpsError::TypeError(_))
        ));
        let huge = PyValue::Int(BigInt::from(10).pow(4300));
        assert!(matches!(dumps(&huge), Err(DumpsError::ValueError(_))));
        let most = PyValue::Int(BigInt::from(10).pow(4300) - 1);
        assert!(dumps(&most).is_ok());
    }
}
