//! The evaluator: Python's semantics for the few operations the call
//! language has, with caps on result size so no case file can exhaust memory.

use super::check_int;
use super::parse::{Expr, Node};
use super::{ErrorKind, Lets, ReadError, MAX_DEPTH, MAX_ELEMENTS};
use crate::value::int_digits::MAX_INT_DIGITS;
use crate::value::{PyDict, PyStr, PyValue};
use num_bigint::{BigInt, Sign};
use num_traits::{One, Signed, ToPrimitive, Zero};

/// A value with its size (`weight`: code points plus container items, all
/// the way down) and nesting depth, so caps are checked without re-walking.
#[derive(Clone, Debug)]
pub(crate) struct Val {
    pub v: PyValue,
    pub weight: usize,
    pub depth: usize,
}

impl Val {
    fn scalar(v: PyValue) -> Val {
        let weight = match &v {
            PyValue::Str(s) => s.len(),
            _ => 0,
        };
        Val {
            v,
            weight,
            depth: 0,
        }
    }
}

fn err(pos: usize, kind: ErrorKind, msg: impl Into<String>) -> ReadError {
    ReadError::at(pos, kind, msg)
}

fn type_error(pos: usize, msg: impl Into<String>) -> ReadError {
    err(pos, ErrorKind::TypeError, msg)
}

fn check_size(pos: usize, weight: usize, depth: usize) -> Result<(), ReadError> {
    if weight > MAX_ELEMENTS {
        return Err(err(pos, ErrorKind::LimitError, super::too_large()));
    }
    if depth > MAX_DEPTH {
        return Err(err(
            pos,
            ErrorKind::LimitError,
            format!("value nested deeper than {MAX_DEPTH} levels"),
        ));
    }
    Ok(())
}

/// Python's `float(i)`: correctly rounded (half to even), `None` when it
/// overflows (CPython raises OverflowError).
pub(crate) fn int_to_f64(i: &BigInt) -> Option<f64> {
    let mag = i.magnitude();
    let bits = mag.bits();
    let f = if bits <= 64 {
        mag.to_u64()? as f64
    } else if bits > 1024 {
        return None;
    } else {
        let shift = bits - 64;
        let top = (mag >> shift).to_u64()?;
        let sticky = u64::from(mag.trailing_zeros().unwrap_or(0) < shift);
        // Bit 0 of `top` is far below the rounding point: it acts as a
        // sticky bit, so the hardware's round-half-even stays exact.
        let scale = f64::from_bits((shift + 1023) << 52);
        (top | sticky) as f64 * scale
    };
    if f.is_infinite() {
        return None;
    }
    Some(if i.sign() == Sign::Minus { -f } else { f })
}

enum Num {
    Int(BigInt),
    Float(f64),
}

fn as_num(v: &PyValue) -> Option<Num> {
    match v {
        PyValue::Bool(b) => Some(Num::Int(BigInt::from(u8::from(*b)))),
        PyValue::Int(i) => Some(Num::Int(i.clone())),
        PyValue::Float(f) => Some(Num::Float(*f)),
        _ => None,
    }
}

/// `int` or `bool` as an integer (Python's `__index__`).
fn as_index(v: &PyValue) -> Option<BigInt> {
    match v {
        PyValue::Bool(b) => Some(BigInt::from(u8::from(*b))),
        PyValue::Int(i) => Some(i.clone()),
        _ => None,
    }
}

fn to_float(pos: usize, n: &Num) -> Result<f64, ReadError> {
    match n {
        Num::Float(f) => Ok(*f),
        Num::Int(i) => int_to_f64(i).ok_or_else(|| {
            err(
                pos,
                ErrorKind::OverflowError,
                "int too large to convert to float",
            )
        }),
    }
}

fn int_val(pos: usize, i: BigInt) -> Result<Val, ReadError> {
    check_int(&i).map_err(|m| err(pos, ErrorKind::LimitError, m))?;
    Ok(Val::scalar(PyValue::Int(i)))
}

fn is_seq(v: &PyValue) -> bool {
    matches!(v, PyValue::Str(_) | PyValue::List(_) | PyValue::Tuple(_))
}

fn tn(v: &PyValue) -> &str {
    v.type_name()
}

/// Evaluates a node, consuming it (its constants become parts of the value).
pub(super) fn eval(node: Node, lets: &Lets) -> Result<Val, ReadError> {
    let pos = node.pos;
    match node.expr {
        Expr::Const(v) => Ok(Val::scalar(v)),
        Expr::Name(n) => match lets.get(&n) {
            Some(v) => Ok(v.clone()),
            None if n == "float" || n == "chr" => Err(err(
                pos,
                ErrorKind::Unsupported,
                format!("{n} can only be called, as {n}(...)"),
            )),
            None => Err(err(
                pos,
                ErrorKind::NameError,
                format!("name '{n}' is not defined"),
            )),
        },
        Expr::List(items) => eval_seq(pos, items, lets, PyValue::List),
        Expr::Tuple(items) => eval_seq(pos, items, lets, PyValue::Tuple),
        Expr::Dict(items) => {
            let mut d = PyDict::new();
            let (mut weight, mut depth) = (items.len(), 0);
            for (kn, vn) in items {
                let key_pos = kn.pos;
                let k = eval(kn, lets)?;
                let v = eval(vn, lets)?;
                if let Some(bad) = unhashable_part(&k.v) {
                    return Err(type_error(key_pos, format!("unhashable type: '{bad}'")));
                }
                weight = weight.saturating_add(k.weight).saturating_add(v.weight);
                depth = depth.max(k.depth).max(v.depth);
                check_size(pos, weight, depth + 1)?;
                d.insert(k.v, v.v);
            }
            Ok(Val {
                v: PyValue::Dict(d),
                weight,
                depth: depth + 1,
            })
        }
        Expr::Unary(sign, operand) => {
            let v = eval(*operand, lets)?;
            match as_num(&v.v) {
                Some(Num::Int(i)) => int_val(pos, if sign == '-' { -i } else { i }),
                Some(Num::Float(f)) => Ok(Val::scalar(PyValue::Float(if sign == '-' {
                    -f
                } else {
                    f
                }))),
                None => Err(type_error(
                    pos,
                    format!("bad operand type for unary {sign}: '{}'", tn(&v.v)),
                )),
            }
        }
        Expr::Binary(op, a, b) => {
            let a = eval(*a, lets)?;
            let b = eval(*b, lets)?;
            binary(pos, op, a, b)
        }
        Expr::Call { name, args, kwargs } => {
            if lets.get(&name).is_some() {
                let v = lets
                    .get(&name)
                    .map(|v| tn(&v.v).to_string())
                    .unwrap_or_default();
                return Err(type_error(pos, format!("'{v}' object is not callable")));
            }
            let mut vals = Vec::with_capacity(args.len());
            for a in args {
                vals.push(eval(a, lets)?);
            }
            if crate::value::matcher::NAMES.contains(&name.as_str()) {
                let mut kw = Vec::with_capacity(kwargs.len());
                for (k, _, node) in kwargs {
                    kw.push((k, eval(node, lets)?.v));
                }
                return crate::value::Matcher::from_call(&name, vals.len(), &kw)
                    .map(|m| Val::scalar(PyValue::Match(m)))
                    .map_err(|msg| type_error(pos, msg));
            }
            match name.as_str() {
                "float" | "chr" if !kwargs.is_empty() => Err(type_error(
                    pos,
                    format!("{name}() takes no keyword arguments"),
                )),
                "float" => builtin_float(pos, vals),
                "chr" => builtin_chr(pos, vals),
                _ => Err(err(
                    pos,
                    ErrorKind::NameError,
                    format!("name '{name}' is not defined (only float() and chr() can be called, and the matchers any(), any_str(), any_int(), any_float() in expect)"),
                )),
            }
        }
    }
}

/// A list or tuple display.
fn eval_seq(
    pos: usize,
    items: Vec<Node>,
    lets: &Lets,
    make: fn(Vec<PyValue>) -> PyValue,
) -> Result<Val, ReadError> {
    let mut out = Vec::with_capacity(items.len());
    let (mut weight, mut depth) = (items.len(), 0);
    for item in items {
        let v = eval(item, lets)?;
        weight = weight.saturating_add(v.weight);
        depth = depth.max(v.depth);
        check_size(pos, weight, depth + 1)?;
        out.push(v.v);
    }
    Ok(Val {
        v: make(out),
        weight,
        depth: depth + 1,
    })
}

/// The first unhashable type inside a would-be dict key.
fn unhashable_part(v: &PyValue) -> Option<&str> {
    match v {
        PyValue::List(_) | PyValue::Dict(_) | PyValue::Opaque { .. } | PyValue::Match(_) => {
            Some(tn(v))
        }
        PyValue::Tuple(items) => items.iter().find_map(unhashable_part),
        _ => None,
    }
}

fn binary(pos: usize, op: &str, a: Val, b: Val) -> Result<Val, ReadError> {
    let unsupported = |a: &PyValue, b: &PyValue| {
        let shown = if op == "**" { "** or pow()" } else { op };
        type_error(
            pos,
            format!(
                "unsupported operand type(s) for {shown}: '{}' and '{}'",
                tn(a),
                tn(b)
            ),
        )
    };
    if let (Some(x), Some(y)) = (as_num(&a.v), as_num(&b.v)) {
        return arith(pos, op, x, y);
    }
    match op {
        "+" => {
            let (weight, depth) = (a.weight.saturating_add(b.weight), a.depth.max(b.depth));
            let v = match (a.v, b.v) {
                (PyValue::Str(x), PyValue::Str(y)) => {
                    check_size(pos, weight, depth)?;
                    PyValue::Str(x.concat(&y))
                }
                (PyValue::List(mut x), PyValue::List(y)) => {
                    check_size(pos, weight, depth)?;
                    x.extend(y);
                    PyValue::List(x)
                }
                (PyValue::Tuple(mut x), PyValue::Tuple(y)) => {
                    check_size(pos, weight, depth)?;
                    x.extend(y);
                    PyValue::Tuple(x)
                }
                (x @ (PyValue::Str(_) | PyValue::List(_) | PyValue::Tuple(_)), y) => {
                    return Err(type_error(
                        pos,
                        format!(
                            "can only concatenate {} (not \"{}\") to {}",
                            tn(&x),
                            tn(&y),
                            tn(&x)
                        ),
                    ))
                }
                (x, y) => return Err(unsupported(&x, &y)),
            };
            Ok(Val { v, weight, depth })
        }
        "*" if is_seq(&a.v) || is_seq(&b.v) => {
            let (seq, count) = if is_seq(&a.v) { (a, b) } else { (b, a) };
            let Some(n) = as_index(&count.v) else {
                return Err(type_error(
                    pos,
                    format!(
                        "can't multiply sequence by non-int of type '{}'",
                        tn(&count.v)
                    ),
                ));
            };
            repeat(pos, seq, &n)
        }
        _ => Err(unsupported(&a.v, &b.v)),
    }
}

/// `seq * n` for a str, list or tuple.
fn repeat(pos: usize, seq: Val, n: &BigInt) -> Result<Val, ReadError> {
    if n.bits() > 63 && n.is_positive() {
        return Err(err(
            pos,
            ErrorKind::OverflowError,
            "cannot fit 'int' into an index-sized integer",
        ));
    }
    let n = n.to_usize().unwrap_or(0); // negative counts give an empty result
    let weight = if n == 0 {
        0
    } else {
        seq.weight.saturating_mul(n)
    };
    let depth = if n == 0 && !matches!(seq.v, PyValue::Str(_)) {
        1
    } else {
        seq.depth
    };
    check_size(pos, weight, depth)?;
    let v = match seq.v {
        PyValue::Str(s) => PyValue::Str(s.repeat(n)),
        PyValue::List(items) => PyValue::List(repeat_items(&items, n)),
        PyValue::Tuple(items) => PyValue::Tuple(repeat_items(&items, n)),
        other => other,
    };
    Ok(Val { v, weight, depth })
}

fn repeat_items(items: &[PyValue], n: usize) -> Vec<PyValue> {
    let mut out = Vec::with_capacity(items.len().saturating_mul(n));
    for _ in 0..n {
        out.extend_from_slice(items);
    }
    out
}

fn arith(pos: usize, op: &str, x: Num, y: Num) -> Result<Val, ReadError> {
    if op == "**" {
        return power(pos, x, y);
    }
    match (x, y) {
        (Num::Int(a), Num::Int(b)) => int_val(
            pos,
            match op {
                "+" => a + b,
                "-" => a - b,
                _ => {
                    if a.bits() + b.bits() > 16_000 {
                        return Err(err(
                            pos,
                            ErrorKind::LimitError,
                            format!("int result has more than {MAX_INT_DIGITS} digits (CPython cannot convert it to text)"),
                        ));
                    }
                    a * b
                }
            },
        ),
        (x, y) => {
            let (a, b) = (to_float(pos, &x)?, to_float(pos, &y)?);
            Ok(Val::scalar(PyValue::Float(match op {
                "+" => a + b,
                "-" => a - b,
                _ => a * b,
            })))
        }
    }
}

fn power(pos: usize, x: Num, y: Num) -> Result<Val, ReadError> {
    let (Num::Int(base), Num::Int(exp)) = (x, y) else {
        return Err(err(
            pos,
            ErrorKind::Unsupported,
            "'**' is only supported on ints in the call language",
        ));
    };
    if exp.is_negative() {
        return Err(err(
            pos,
            ErrorKind::Unsupported,
            "negative exponents are not supported in the call language",
        ));
    }
    if base.is_zero() || base.is_one() || base == BigInt::from(-1) {
        let odd = exp.bit(0);
        let v = if base.is_zero() {
            BigInt::from(u8::from(exp.is_zero()))
        } else if base.is_one() || !odd {
            BigInt::one()
        } else {
            -BigInt::one()
        };
        return int_val(pos, v);
    }
    // |base| >= 2: the result has at least `exp` bits.
    let too_big = || {
        err(
            pos,
            ErrorKind::LimitError,
            format!("int result has more than {MAX_INT_DIGITS} digits (CPython cannot convert it to text)"),
        )
    };
    let e = exp.to_u32().filter(|&e| e <= 16_000).ok_or_else(too_big)?;
    if (base.bits() - 1).saturating_mul(u64::from(e)) > 16_000 {
        return Err(too_big());
    }
    int_val(pos, num_traits::pow(base, e as usize))
}

fn builtin_float(pos: usize, args: Vec<Val>) -> Result<Val, ReadError> {
    if args.len() > 1 {
        return Err(type_error(
            pos,
            format!("float expected at most 1 argument, got {}", args.len()),
        ));
    }
    let Some(arg) = args.into_iter().next() else {
        return Ok(Val::scalar(PyValue::Float(0.0)));
    };
    let f = match &arg.v {
        PyValue::Str(s) => parse_float_text(s).ok_or_else(|| {
            err(
                pos,
                ErrorKind::ValueError,
                format!("could not convert string to float: {}", quote(s)),
            )
        })?,
        v => match as_num(v) {
            Some(n) => to_float(pos, &n)?,
            None => {
                return Err(type_error(
                    pos,
                    format!(
                        "float() argument must be a string or a real number, not '{}'",
                        tn(v)
                    ),
                ))
            }
        },
    };
    Ok(Val::scalar(PyValue::Float(f)))
}

/// Python's `float(str)`: surrounding whitespace, a sign, `inf`/`infinity`/
/// `nan` in any case, or a decimal literal with `_` only between digits.
fn parse_float_text(s: &PyStr) -> Option<f64> {
    let text = s.to_rust_string()?;
    let t = text.trim_matches(|c: char| c.is_whitespace());
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    let lower = body.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity" | "nan") {
        return t.parse().ok();
    }
    // Validate the grammar: digitpart = digit ('_'? digit)*.
    let b: Vec<char> = body.chars().collect();
    let mut i = 0;
    let digitpart = |i: &mut usize| -> Option<bool> {
        let start = *i;
        while *i < b.len() {
            let digit = b[*i].is_ascii_digit();
            let joiner =
                b[*i] == '_' && *i > start && b.get(*i + 1).is_some_and(|c| c.is_ascii_digit());
            if !(digit || joiner) {
                break;
            }
            *i += 1;
        }
        if b.get(*i) == Some(&'_') {
            return None;
        }
        Some(*i > start)
    };
    let int_digits = digitpart(&mut i)?;
    let mut frac_digits = false;
    if b.get(i) == Some(&'.') {
        i += 1;
        frac_digits = digitpart(&mut i)?;
    }
    if !int_digits && !frac_digits {
        return None;
    }
    if matches!(b.get(i), Some('e' | 'E')) {
        i += 1;
        if matches!(b.get(i), Some('+' | '-')) {
            i += 1;
        }
        if !digitpart(&mut i)? {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    t.replace('_', "").parse().ok()
}

fn builtin_chr(pos: usize, args: Vec<Val>) -> Result<Val, ReadError> {
    if args.len() != 1 {
        return Err(type_error(
            pos,
            format!("chr() takes exactly one argument ({} given)", args.len()),
        ));
    }
    let v = &args[0].v;
    let Some(n) = as_index(v) else {
        return Err(type_error(
            pos,
            format!("'{}' object cannot be interpreted as an integer", tn(v)),
        ));
    };
    match n.to_u32().filter(|&c| c <= 0x10FFFF) {
        Some(c) => Ok(Val::scalar(PyValue::Str(PyStr::from_code_points(vec![c])))),
        None => Err(err(
            pos,
            ErrorKind::ValueError,
            "chr() arg not in range(0x110000)",
        )),
    }
}

/// A short quoted form of a string for messages.
fn quote(s: &PyStr) -> String {
    let text: String = s.to_string_lossy().chars().take(60).collect();
    format!("'{}'", text.escape_debug())
}
