//! CPython's `repr` of values, and a pretty multi-line form for diffs.
//!
//! Students see expected and actual values as Python would print them, so the
//! text must be exactly CPython 3.11's: same quote choice, same escapes (from
//! the same Unicode database), same float digits.

mod printable;

use super::{PyStr, PyValue};
use std::fmt::Write;

/// Exactly what CPython's `repr(v)` prints.
///
/// Ints print all their digits (CPython 3.11 refuses above 4300 digits
/// unless `sys.set_int_max_str_digits(0)`; a grader must still show them).
pub fn repr(v: &PyValue) -> String {
    let mut out = String::new();
    write_repr(&mut out, v);
    out
}

fn write_repr(out: &mut String, v: &PyValue) {
    match v {
        PyValue::None => out.push_str("None"),
        PyValue::Bool(true) => out.push_str("True"),
        PyValue::Bool(false) => out.push_str("False"),
        PyValue::Int(i) => {
            let _ = write!(out, "{i}");
        }
        PyValue::Float(f) => out.push_str(&float_repr(*f)),
        PyValue::Str(s) => write_str_repr(out, s),
        PyValue::List(items) => write_seq(out, "[", items, "]"),
        PyValue::Tuple(items) if items.len() == 1 => {
            out.push('(');
            write_repr(out, &items[0]);
            out.push_str(",)");
        }
        PyValue::Tuple(items) => write_seq(out, "(", items, ")"),
        PyValue::Dict(d) => {
            out.push('{');
            for (n, (k, x)) in d.iter().enumerate() {
                if n > 0 {
                    out.push_str(", ");
                }
                write_repr(out, k);
                out.push_str(": ");
                write_repr(out, x);
            }
            out.push('}');
        }
        PyValue::Opaque { repr, .. } => out.push_str(repr),
        PyValue::Match(m) => out.push_str(&m.text()),
    }
}

fn write_seq(out: &mut String, open: &str, items: &[PyValue], close: &str) {
    out.push_str(open);
    for (n, x) in items.iter().enumerate() {
        if n > 0 {
            out.push_str(", ");
        }
        write_repr(out, x);
    }
    out.push_str(close);
}

/// Python's `str(v)`: a str is itself, anything else its `repr` (a float
/// `'1e+16'`, a bool `'True'`, None `'None'`, containers with their items'
/// reprs). As in CPython 3.11, printing an int of more than 4300 digits,
/// alone or anywhere inside a container, raises `ValueError` (the `Err`).
pub fn str_of(v: &PyValue) -> Result<PyStr, String> {
    if let PyValue::Str(s) = v {
        return Ok(s.clone());
    }
    if has_unprintable_int(v) {
        return Err("Exceeds the limit (4300 digits) for integer string conversion".into());
    }
    Ok(PyStr::from(repr(v)))
}

/// Whether `v` holds an int too long for `int.__repr__` (more than 4300 digits).
fn has_unprintable_int(v: &PyValue) -> bool {
    match v {
        PyValue::Int(i) => {
            static LIMIT: std::sync::OnceLock<num_bigint::BigInt> = std::sync::OnceLock::new();
            let limit = LIMIT.get_or_init(|| {
                num_traits::pow(num_bigint::BigInt::from(10), super::reader::MAX_INT_DIGITS)
            });
            i.magnitude() >= limit.magnitude()
        }
        PyValue::List(items) | PyValue::Tuple(items) => items.iter().any(has_unprintable_int),
        PyValue::Dict(d) => d
            .iter()
            .any(|(k, x)| has_unprintable_int(k) || has_unprintable_int(x)),
        _ => false,
    }
}

/// Python's `round(x, ndigits)` for a float and `ndigits >= 0`: the double
/// nearest to the decimal rounded to `ndigits` places, ties to even on the
/// exact binary value (`round(0.25, 1) == 0.2`, `round(2.675, 2) == 2.67`),
/// as CPython's `double_round` does with `_Py_dg_dtoa` mode 3. nan, inf and
/// the sign of zero come back unchanged (`round(-0.04, 1) == -0.0`).
pub fn round_float(x: f64, ndigits: usize) -> f64 {
    if !x.is_finite() {
        return x;
    }
    // Rust's fixed-precision formatting is exact (correctly rounded, ties
    // to even), and parsing back is correctly rounded.
    format!("{x:.ndigits$}").parse().unwrap_or(x)
}

/// CPython's `float.__repr__`: the shortest digits that round-trip, in fixed
/// notation when the decimal point position is in `-3..=16` (that is,
/// `1e-4 <= |x| < 1e16`), else in exponent form with at least two exponent
/// digits (`1e-05`, `1.5e+16`).
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let (digits, decpt) = shortest_digits(x.abs());
    let mut out = String::new();
    if x.is_sign_negative() {
        out.push('-');
    }
    let n = digits.len() as i32;
    if (-3..=16).contains(&decpt) {
        if decpt <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat('0').take((-decpt) as usize));
            out.push_str(&digits);
        } else if n <= decpt {
            out.push_str(&digits);
            out.extend(std::iter::repeat('0').take((decpt - n) as usize));
            out.push_str(".0");
        } else {
            let (int_part, frac) = digits.split_at(decpt as usize);
            out.push_str(int_part);
            out.push('.');
            out.push_str(frac);
        }
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let e = decpt - 1;
        let _ = write!(out, "e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    out
}

/// The shortest decimal digits that round-trip to `x` (finite, >= 0), closest
/// to `x` with ties to even as David Gay's `dtoa` mode 0 (which CPython uses)
/// picks them, and the decimal point position: `x = 0.DIGITS * 10^decpt`.
///
/// Ryu makes the same choice; Rust's own `{:e}` does not always (it prints
/// `1000000000000000.3` where CPython prints `1000000000000000.2`).
fn shortest_digits(x: f64) -> (String, i32) {
    let mut buf = ryu::Buffer::new();
    // Ryu prints "123.0", "0.00001" or "1.2345e-7"; normalise all three.
    let text = buf.format_finite(x);
    let (mantissa, exp) = text.split_once('e').unwrap_or((text, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (int_part, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{int_part}{frac}");
    let mut decpt = int_part.len() as i32 + exp;
    let trimmed = all.trim_start_matches('0');
    decpt -= (all.len() - trimmed.len()) as i32;
    let digits = trimmed.trim_end_matches('0');
    if digits.is_empty() {
        ("0".into(), 1)
    } else {
        (digits.into(), decpt)
    }
}

/// CPython's `str.isprintable()` for one code point (Unicode 14.0.0, as in
/// CPython 3.11): false for controls, separators other than the ASCII space,
/// format characters, surrogates, private use and unassigned code points.
pub fn is_printable(cp: u32) -> bool {
    printable::PRINTABLE
        .binary_search_by(|&(first, last)| {
            if last < cp {
                std::cmp::Ordering::Less
            } else if first > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// CPython's `str.__repr__` (`unicode_repr` in `Objects/unicodeobject.c`).
fn write_str_repr(out: &mut String, s: &PyStr) {
    let cps = s.code_points();
    let has_single = cps.contains(&('\'' as u32));
    let has_double = cps.contains(&('"' as u32));
    let quote = if has_single && !has_double { '"' } else { '\'' };
    out.push(quote);
    for &cp in cps {
        match cp {
            0x5C => out.push_str("\\\\"),
            0x09 => out.push_str("\\t"),
            0x0A => out.push_str("\\n"),
            0x0D => out.push_str("\\r"),
            _ if cp == quote as u32 => {
                out.push('\\');
                out.push(quote);
            }
            0x00..=0x1F | 0x7F => {
                let _ = write!(out, "\\x{cp:02x}");
            }
            0x20..=0x7E => out.push(cp as u8 as char),
            _ => match char::from_u32(cp) {
                Some(c) if is_printable(cp) => out.push(c),
                _ if cp <= 0xFF => {
                    let _ = write!(out, "\\x{cp:02x}");
                }
                _ if cp <= 0xFFFF => {
                    let _ = write!(out, "\\u{cp:04x}");
                }
                _ => {
                    let _ = write!(out, "\\U{cp:08x}");
                }
            },
        }
    }
    out.push(quote);
}

/// The widest line [`pretty`] tries to keep a container on.
pub const PRETTY_WIDTH: usize = 72;

/// A multi-line, indented repr for diffs, so that a line diff of two values
/// points at the element that differs.
///
/// The rule: a scalar, an empty container, or a container whose one-line
/// [`repr`] fits on its line prints as that one-line repr. "Fits" means the
/// line, from column 0 through the repr and the `,` that follows it inside a
/// parent, is at most [`PRETTY_WIDTH`] characters (code points). A container
/// that does not fit prints its opening bracket, then each element (for a
/// dict, `key: value` with the key as a one-line repr) on its own line,
/// indented 4 spaces deeper than the line the container starts on and
/// followed by `,`, then the closing bracket on its own line at the
/// container's indentation. Elements follow the same rule, so nested
/// containers break only as far as they must. A one-element tuple keeps its
/// comma either way, and the output reads back with `ast.literal_eval` as
/// the same value, like `repr` (unless it holds nan, inf or an Opaque value).
pub fn pretty(v: &PyValue) -> String {
    let mut out = String::new();
    write_pretty(&mut out, v, 0, 0, 0);
    out
}

/// Writes `v` starting at column `col` of a line indented by `indent`
/// spaces; `after` characters (a comma) will follow it on its last line.
fn write_pretty(out: &mut String, v: &PyValue, col: usize, indent: usize, after: usize) {
    let one_line = repr(v);
    let (open, close) = match v {
        PyValue::List(items) if !items.is_empty() => ("[", "]"),
        PyValue::Tuple(items) if !items.is_empty() => ("(", ")"),
        PyValue::Dict(d) if !d.is_empty() => ("{", "}"),
        _ => {
            out.push_str(&one_line);
            return;
        }
    };
    if col + one_line.chars().count() + after <= PRETTY_WIDTH {
        out.push_str(&one_line);
        return;
    }
    let inner = indent + 4;
    out.push_str(open);
    out.push('\n');
    let element = |out: &mut String, key: Option<&PyValue>, x: &PyValue| {
        out.extend(std::iter::repeat(' ').take(inner));
        let mut col = inner;
        if let Some(k) = key {
            let k = repr(k);
            col += k.chars().count() + 2;
            out.push_str(&k);
            out.push_str(": ");
        }
        write_pretty(out, x, col, inner, 1);
        out.push_str(",\n");
    };
    match v {
        PyValue::List(items) | PyValue::Tuple(items) => {
            for x in items {
                element(out, None, x);
            }
        }
        PyValue::Dict(d) => {
            for (k, x) in d.iter() {
                element(out, Some(k), x);
            }
        }
        _ => {}
    }
    out.extend(std::iter::repeat(' ').take(indent));
    out.push_str(close);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::PyDict;
    use num_bigint::BigInt;

    fn s(cps: &[u32]) -> PyValue {
        PyValue::Str(PyStr::from_code_points(cps.to_vec()))
    }

    #[test]
    fn scalars() {
        assert_eq!(repr(&PyValue::None), "None");
        assert_eq!(repr(&PyValue::Bool(true)), "True");
        assert_eq!(repr(&PyValue::Bool(false)), "False");
        assert_eq!(repr(&PyValue::int(-42)), "-42");
        let big: BigInt = BigInt::from(10).pow(40) + 1;
        assert_eq!(
            repr(&PyValue::Int(-big)),
            "-10000000000000000000000000000000000000001"
        );
    }

    #[test]
    fn floats() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (-2.5, "-2.5"),
            (0.1, "0.1"),
            (1e16, "1e+16"),
            (9999999999999998.0, "9999999999999998.0"),
            (1e15, "1000000000000000.0"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (1e-4, "0.0001"),
            (1.5e-4, "0.00015"),
            (1e-5, "1e-05"),
            (1.5e-5, "1.5e-05"),
            (1e100, "1e+100"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (2.2250738585072014e-308, "2.2250738585072014e-308"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
            (-f64::NAN, "nan"),
            // A tie between two shortest candidates: Gay's dtoa rounds to even.
            (f64::from_bits(1e15f64.to_bits() + 2), "1000000000000000.2"),
            (123.0, "123.0"),
            (1e22, "1e+22"),
            (0.5, "0.5"),
            (100.25, "100.25"),
        ];
        for &(x, want) in cases {
            assert_eq!(float_repr(x), want, "{x:e}");
            assert_eq!(repr(&PyValue::Float(x)), want);
        }
    }

    #[test]
    fn string_quotes() {
        assert_eq!(repr(&PyValue::str("")), "''");
        assert_eq!(repr(&PyValue::str("abc")), "'abc'");
        assert_eq!(repr(&PyValue::str("it's")), "\"it's\"");
        assert_eq!(repr(&PyValue::str("say \"hi\"")), "'say \"hi\"'");
        assert_eq!(repr(&PyValue::str("'\"")), "'\\'\"'");
        assert_eq!(repr(&PyValue::str("a\\b")), "'a\\\\b'");
    }

    #[test]
    fn string_escapes() {
        assert_eq!(repr(&PyValue::str("\t\n\r")), "'\\t\\n\\r'");
        assert_eq!(repr(&s(&[0, 0x1b, 0x7f])), "'\\x00\\x1b\\x7f'");
        assert_eq!(
            repr(&s(&[0x80, 0x9f, 0xa0, 0xad])),
            "'\\x80\\x9f\\xa0\\xad'"
        );
        assert_eq!(repr(&s(&[0xa1, 0xe9])), "'¡é'");
        assert_eq!(repr(&s(&[0xd800])), "'\\ud800'");
        assert_eq!(repr(&s(&[0xdfff, 0x41])), "'\\udfffA'");
        assert_eq!(
            repr(&s(&[0x2028, 0x200b, 0xfeff])),
            "'\\u2028\\u200b\\ufeff'"
        );
        assert_eq!(repr(&s(&[0x3000])), "'\\u3000'");
        assert_eq!(repr(&s(&[0x4e2d, 0x1f600])), "'中😀'");
        assert_eq!(repr(&s(&[0xe0001, 0x10ffff])), "'\\U000e0001\\U0010ffff'");
        assert_eq!(repr(&s(&[0xf0000])), "'\\U000f0000'");
    }

    #[test]
    fn printable_table_bounds() {
        assert!(is_printable(' ' as u32));
        assert!(is_printable('~' as u32));
        assert!(!is_printable(0x1f));
        assert!(!is_printable(0x7f));
        assert!(!is_printable(0xa0));
        assert!(is_printable(0xa1));
        assert!(!is_printable(0x110000));
        let table = printable::PRINTABLE;
        assert!(table.windows(2).all(|w| w[0].1 + 1 < w[1].0));
        assert!(table.iter().all(|&(a, b)| a <= b && b <= 0x10FFFF));
    }

    #[test]
    fn containers() {
        let one = PyValue::int(1);
        assert_eq!(repr(&PyValue::List(vec![])), "[]");
        assert_eq!(
            repr(&PyValue::List(vec![one.clone(), PyValue::int(2)])),
            "[1, 2]"
        );
        assert_eq!(repr(&PyValue::Tuple(vec![])), "()");
        assert_eq!(repr(&PyValue::Tuple(vec![one.clone()])), "(1,)");
        assert_eq!(
            repr(&PyValue::Tuple(vec![one.clone(), PyValue::None])),
            "(1, None)"
        );
        assert_eq!(repr(&PyValue::Dict(PyDict::new())), "{}");
        let mut d = PyDict::new();
        d.insert(PyValue::str("b"), one.clone());
        d.insert(
            PyValue::Tuple(vec![PyValue::Float(1.5)]),
            PyValue::List(vec![PyValue::dict_of(vec![("a", PyValue::None)])]),
        );
        d.insert(PyValue::None, PyValue::Bool(true));
        assert_eq!(
            repr(&PyValue::Dict(d)),
            "{'b': 1, (1.5,): [{'a': None}], None: True}"
        );
        let opaque = PyValue::Opaque {
            type_name: "set".into(),
            repr: "{1, 2}".into(),
        };
        assert_eq!(repr(&PyValue::List(vec![opaque])), "[{1, 2}]");
    }
    fn long_str(n: usize) -> PyValue {
        PyValue::str(&"x".repeat(n))
    }

    #[test]
    fn pretty_scalars_and_short_containers_are_one_line() {
        let values = [
            PyValue::None,
            PyValue::Float(1e16),
            long_str(200),
            PyValue::List(vec![]),
            PyValue::Tuple(vec![PyValue::int(1)]),
            PyValue::dict_of(vec![("a", PyValue::int(1))]),
        ];
        for v in &values {
            assert_eq!(pretty(v), repr(v));
        }
    }

    #[test]
    fn pretty_width_boundary() {
        // "['xx…x']" is exactly PRETTY_WIDTH wide: stays on one line.
        let fits = PyValue::List(vec![long_str(PRETTY_WIDTH - 4)]);
        assert_eq!(repr(&fits).chars().count(), PRETTY_WIDTH);
        assert_eq!(pretty(&fits), repr(&fits));
        // One more character and it breaks.
        let breaks = PyValue::List(vec![long_str(PRETTY_WIDTH - 3)]);
        assert_eq!(
            pretty(&breaks),
            format!("[\n    {},\n]", repr(&long_str(PRETTY_WIDTH - 3)))
        );
    }

    #[test]
    fn pretty_breaks_only_what_does_not_fit() {
        let v = PyValue::dict_of(vec![
            ("id", PyValue::str("c1")),
            (
                "items",
                PyValue::List(vec![
                    PyValue::Tuple(vec![PyValue::int(1)]),
                    long_str(70),
                    PyValue::dict_of(vec![("k", PyValue::None)]),
                ]),
            ),
            ("t", PyValue::Tuple(vec![long_str(80)])),
        ]);
        let want = format!(
            "{{\n    'id': 'c1',\n    'items': [\n        (1,),\n        '{x70}',\n        {{'k': None}},\n    ],\n    't': (\n        '{x80}',\n    ),\n}}",
            x70 = "x".repeat(70),
            x80 = "x".repeat(80)
        );
        assert_eq!(pretty(&v), want);
    }

    #[test]
    fn pretty_counts_the_key_and_trailing_comma() {
        // At depth 1 after `'k': `, a 62-character list plus its comma ends at
        // column 4 + 5 + 62 + 1 = 72: fits. One more character does not.
        let list_of = |n: usize| PyValue::List(vec![long_str(n)]);
        // A second, long entry forces the dict itself onto several lines.
        let dict_of = |n: usize| PyValue::dict_of(vec![("k", list_of(n)), ("z", long_str(80))]);
        let fits = dict_of(58);
        assert!(pretty(&fits).contains(&format!("'k': {},", repr(&list_of(58)))));
        let breaks = dict_of(59);
        assert!(pretty(&breaks).contains("'k': [\n        'xxx"));
    }
}
