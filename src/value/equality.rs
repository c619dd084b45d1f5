//! The two equalities grading needs: Python's `==` on hashable keys (to build
//! dicts the way Python does) and the checkpoints' strict equality.

use super::PyValue;
use num_bigint::BigInt;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

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

/// Feeds `h` a hash of `key` consistent with [`py_key_eq`] (keys it calls
/// equal hash alike: `1`, `1.0` and `True`; `0` and `-0.0`), so dicts can be
/// built by hash lookup instead of comparing each key with all before it.
/// Returns false, having fed nothing useful, for a key equal to nothing, not
/// even itself (nan, a tuple holding one, lists and other unhashables).
pub(crate) fn hash_key<H: Hasher>(key: &PyValue, h: &mut H) -> bool {
    use PyValue::*;
    match key {
        None => 0u8.hash(h),
        Str(s) => {
            1u8.hash(h);
            s.hash(h);
        }
        Tuple(items) => {
            2u8.hash(h);
            items.len().hash(h);
            return items.iter().all(|item| hash_key(item, h));
        }
        Bool(b) => hash_int(&BigInt::from(u8::from(*b)), h),
        Int(i) => hash_int(i, h),
        Float(f) if f.is_nan() => return false,
        Float(f) => match (f.fract() == 0.0).then(|| float_to_bigint(*f)).flatten() {
            Some(i) => hash_int(&i, h),
            Option::None => {
                4u8.hash(h);
                f.to_bits().hash(h);
            }
        },
        List(_) | Dict(_) | Opaque { .. } | Match(_) => return false,
    }
    true
}

fn hash_int<H: Hasher>(i: &BigInt, h: &mut H) {
    3u8.hash(h);
    i.hash(h);
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
/// order significant, nan equal to nan. Opaque values are never equal; a
/// matcher equals only the same matcher (two expected values compared).
pub fn strict_eq(a: &PyValue, b: &PyValue) -> bool {
    compare(a, b, false)
}

/// Whether a returned value `got` is what the expected value asks for:
/// [`strict_eq`] everywhere, except that a matcher inside `expected` accepts
/// any value of its class at its place (`<any non-empty str>`).
pub fn matches(expected: &PyValue, got: &PyValue) -> bool {
    compare(expected, got, true)
}

/// [`strict_eq`] (`matching` false) or [`matches`] (`matching` true).
fn compare(a: &PyValue, b: &PyValue, matching: bool) -> bool {
    use PyValue::*;
    match (a, b) {
        (Match(m), got) if matching => m.accepts(got),
        (Match(x), Match(y)) => x == y,
        (None, None) => true,
        (Bool(x), Bool(y)) => x == y,
        (Int(x), Int(y)) => x == y,
        (Float(x), Float(y)) => x == y || (x.is_nan() && y.is_nan()),
        (Str(x), Str(y)) => x == y,
        (List(x), List(y)) | (Tuple(x), Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| compare(p, q, matching))
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
                            .is_some_and(|w| compare(v, w, matching))
                    });
            }
            x.iter().all(|(k, v)| {
                y.iter()
                    .any(|(k2, v2)| strict_eq(k, k2) && compare(v, v2, matching))
            })
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::PyDict;

    /// Keys Python calls equal across types (`1`, `1.0`, `True`; `0`, `-0.0`,
    /// `False`), big ints and the floats equal to them, nan (equal to
    /// nothing), tuples of all of these, and unhashable-by-value opaques.
    fn keys() -> Vec<PyValue> {
        let big = BigInt::from(2).pow(80);
        let mut keys = vec![
            PyValue::None,
            PyValue::Bool(true),
            PyValue::Bool(false),
            PyValue::int(1),
            PyValue::int(0),
            PyValue::int(-3),
            PyValue::Float(1.0),
            PyValue::Float(0.0),
            PyValue::Float(-0.0),
            PyValue::Float(-3.0),
            PyValue::Float(0.5),
            PyValue::Float(f64::INFINITY),
            PyValue::Float(f64::NAN),
            PyValue::Float(2f64.powi(80)),
            PyValue::Int(big.clone()),
            PyValue::Int(big + 1),
            PyValue::str("1"),
            PyValue::str(""),
            PyValue::Opaque {
                type_name: "object".into(),
                repr: "<object>".into(),
            },
        ];
        let tuples: Vec<PyValue> = keys
            .iter()
            .map(|k| PyValue::Tuple(vec![k.clone(), PyValue::int(1)]))
            .collect();
        keys.extend(tuples);
        keys
    }

    #[test]
    fn equal_keys_hash_alike() {
        use std::collections::hash_map::DefaultHasher;
        let hash = |k: &PyValue| {
            let mut h = DefaultHasher::new();
            hash_key(k, &mut h).then(|| h.finish())
        };
        for a in keys() {
            for b in keys() {
                if py_key_eq(&a, &b) {
                    assert!(hash(&a).is_some(), "{a:?} is equal to something");
                    assert_eq!(hash(&a), hash(&b), "{a:?} == {b:?}");
                }
            }
        }
    }

    #[test]
    fn collecting_a_dict_is_inserting_each_pair() {
        // Every key twice, in two orders, with distinct values: collect (by
        // scan while small, then by hash) must keep the same keys, order and
        // values as insert (by scan), for every length.
        let keys = keys();
        let pairs: Vec<(PyValue, PyValue)> = keys
            .iter()
            .chain(keys.iter().rev())
            .enumerate()
            .map(|(i, k)| (k.clone(), PyValue::int(i as i64)))
            .collect();
        for n in 0..=pairs.len() {
            let mut inserted = PyDict::new();
            for (k, v) in pairs[..n].iter().cloned() {
                inserted.insert(k, v);
            }
            let collected: PyDict = pairs[..n].iter().cloned().collect();
            if n == pairs.len() {
                assert!(inserted.len() < 2 * keys.len(), "some keys were merged");
            }
            let a: Vec<_> = inserted.iter().collect();
            let b: Vec<_> = collected.iter().collect();
            assert_eq!(a.len(), b.len());
            for ((k1, v1), (k2, v2)) in a.into_iter().zip(b) {
                // (Debug, not strict_eq: opaque keys are never strictly equal.)
                assert_eq!(format!("{k1:?}"), format!("{k2:?}"));
                assert!(strict_eq(v1, v2), "{k1:?}: {v1:?} vs {v2:?}");
            }
        }
    }
}
