//! The two equalities grading needs: Python's `==` on hashable keys (to build
//! dicts the way Python does) and the checkpoints' strict equality.

use super::PyValue;
use num_bigint::BigInt;
use std::collections::HashMap;

/// Python's `a == b` for hashable values, as a dict lookup uses it:
/// `1 == 1.0 == True`, `0 == -0.0 == False`; nan is never equal to itself
/// (so two `float('nan')` objects are two keys).
pub fn py_key_eq(a: &PyValue, b: &PyValue) -> bool {
    use PyValue::*;
    match (a, b) {
        (None, None) => true,
        (Str(x), Str(y)) => x == y,
        (Tuple(x), Tuple(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| py_key_eq(p, q)),
        _ => match (numeric(a), numeric(b)) {
            (Some(x), Some(y)) => x.eq(&y),
            _ => false,
        },
    }
}

enum Num<'a> {
    Int(std::borrow::Cow<'a, BigInt>),
    Float(f64),
}

impl Num<'_> {
    fn eq(&self, other: &Num<'_>) -> bool {
        match (self, other) {
            (Num::Int(a), Num::Int(b)) => a == b,
            (Num::Float(a), Num::Float(b)) => a == b,
            (Num::Int(i), Num::Float(f)) | (Num::Float(f), Num::Int(i)) => int_eq_float(i, *f),
        }
    }
}

fn numeric(v: &PyValue) -> Option<Num<'_>> {
    match v {
        PyValue::Bool(b) => Some(Num::Int(std::borrow::Cow::Owned(BigInt::from(*b as u8)))),
        PyValue::Int(i) => Some(Num::Int(std::borrow::Cow::Borrowed(i))),
        PyValue::Float(f) => Some(Num::Float(*f)),
        _ => None,
    }
}

/// Exact comparison of an int and a float, as Python does it (no rounding).
fn int_eq_float(i: &BigInt, f: f64) -> bool {
    if !f.is_finite() || f.fract() != 0.0 {
        return false;
    }
    // An integral finite double converts to BigInt exactly.
    match float_to_bigint(f) {
        Some(g) => &g == i,
        None => false,
    }
}

fn float_to_bigint(f: f64) -> Option<BigInt> {
    if f.abs() < 9.0e15 {
        return Some(BigInt::from(f as i64));
    }
    // Decompose: f = mantissa * 2^exp exactly.
    let bits = f.to_bits();
    let sign = if bits >> 63 == 1 { -1 } else { 1 };
    let exp = ((bits >> 52) & 0x7FF) as i64;
    let mant = if exp == 0 {
        (bits & 0xF_FFFF_FFFF_FFFF) << 1
    } else {
        (bits & 0xF_FFFF_FFFF_FFFF) | 0x10_0000_0000_0000
    };
    let e = exp - 1075;
    let m = BigInt::from(mant) * sign;
    Some(if e >= 0 {
        m << (e as usize)
    } else {
        m >> ((-e) as usize)
    })
}

/// The checkpoints' strict equality: same types all the way down (`1`, `1.0`
/// and `True` differ; a tuple is not a list), dict key order ignored, list
/// order significant, nan equal to nan. Opaque values are never equal.
pub fn strict_eq(a: &PyValue, b: &PyValue) -> bool {
    use PyValue::*;
    match (a, b) {
        (None, None) => true,
        (Bool(x), Bool(y)) => x == y,
        (Int(x), Int(y)) => x == y,
        (Float(x), Float(y)) => x == y || (x.is_nan() && y.is_nan()),
        (Str(x), Str(y)) => x == y,
        (List(x), List(y)) | (Tuple(x), Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| strict_eq(p, q))
        }
        (Dict(x), Dict(y)) => {
            if x.len() != y.len() {
                return false;
            }
            // Fast path for the common all-text-keys dict: hash the keys.
            if x.iter().all(|(k, _)| matches!(k, Str(_)))
                && y.iter().all(|(k, _)| matches!(k, Str(_)))
            {
                let index: HashMap<&super::PyStr, &PyValue> = y
                    .iter()
                    .filter_map(|(k, v)| k.as_str().map(|s| (s, v)))
                    .collect();
                return index.len() == y.len()
                    && x.iter().all(|(k, v)| {
                        k.as_str()
                            .and_then(|s| index.get(s))
                            .is_some_and(|w| strict_eq(v, w))
                    });
            }
            x.iter().all(|(k, v)| {
                y.iter()
                    .any(|(k2, v2)| strict_eq(k, k2) && strict_eq(v, v2))
            })
        }
        _ => false,
    }
}
