//! The Python value model: what a student's function receives and returns.
//!
//! Every comparison the grader makes happens on these values, on the Rust side,
//! so that a student object with a cheating `__eq__` never gets a say.

pub mod budget;
mod equality;
pub mod int_digits;
pub mod marshal;
pub mod matcher;
pub mod pystr;
pub mod reader;
pub mod repr;
pub mod tagged;

use num_bigint::BigInt;

pub use equality::{matches, py_key_eq, strict_eq};
pub use matcher::Matcher;
pub use pystr::PyStr;

/// A Python value, as far as grading needs to see it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum PyValue {
    None,
    Bool(bool),
    /// An exact `int` of any size (never a bool).
    Int(BigInt),
    /// An IEEE double, including nan, inf and -0.0.
    Float(f64),
    Str(PyStr),
    List(Vec<PyValue>),
    Tuple(Vec<PyValue>),
    Dict(PyDict),
    /// Anything else a student returned (set, bytes, custom object...):
    /// kept for display, never equal to an expected value.
    Opaque {
        type_name: String,
        repr: String,
    },
    /// Only in expected values: a matcher that accepts a class of values
    /// (see [`matcher`]). Never read from a recording, never sent to a
    /// student's function.
    Match(Matcher),
}

/// A Python `dict`: insertion-ordered entries with keys of any hashable kind.
///
/// Inserting a key that Python would consider equal (`1`, `1.0` and `True`
/// are the same key) replaces the value in place, as Python does.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct PyDict {
    entries: Vec<(PyValue, PyValue)>,
}

impl PyDict {
    pub fn new() -> Self {
        PyDict::default()
    }

    /// Python's `d[key] = value`: keeps the first key object and position,
    /// replaces the value.
    pub fn insert(&mut self, key: PyValue, value: PyValue) {
        if let Some(slot) = self.entries.iter_mut().find(|(k, _)| py_key_eq(k, &key)) {
            slot.1 = value;
        } else {
            self.entries.push((key, value));
        }
    }

    /// Appends an entry without looking for an equal key. Only for callers that
    /// already know keys are distinct (decoders that refuse duplicates).
    pub fn push_unique(&mut self, key: PyValue, value: PyValue) {
        self.entries.push((key, value));
    }

    /// Python's `d.get(key)`.
    pub fn get(&self, key: &PyValue) -> Option<&PyValue> {
        self.entries
            .iter()
            .find(|(k, _)| py_key_eq(k, key))
            .map(|(_, v)| v)
    }

    /// `d.get('name')` for a plain text key.
    pub fn get_str(&self, key: &str) -> Option<&PyValue> {
        self.entries
            .iter()
            .find(|(k, _)| matches!(k, PyValue::Str(s) if s.eq_str(key)))
            .map(|(_, v)| v)
    }

    /// Whether `set(d) == set(keys)` for plain text keys.
    pub fn has_exact_str_keys(&self, keys: &[&str]) -> bool {
        self.entries.len() == keys.len() && keys.iter().all(|k| self.get_str(k).is_some())
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Entries in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&PyValue, &PyValue)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub fn into_entries(self) -> Vec<(PyValue, PyValue)> {
        self.entries
    }
}

/// Python's `dict(pairs)`: as [`PyDict::insert`] one pair after the other,
/// but keys are found by hash, so a huge dict (a student's recorded return
/// value) costs linear time, not quadratic.
/// Up to this many keys, a dict being built compares each new key with
/// those before it; past them, it looks keys up by hash.
const SMALL_DICT: usize = 8;

impl FromIterator<(PyValue, PyValue)> for PyDict {
    fn from_iter<T: IntoIterator<Item = (PyValue, PyValue)>>(iter: T) -> Self {
        use std::hash::BuildHasher;
        let mut iter = iter.into_iter();
        let mut d = PyDict::new();
        while d.entries.len() < SMALL_DICT {
            let Some((k, v)) = iter.next() else {
                return d;
            };
            d.insert(k, v);
        }
        let state = std::collections::hash_map::RandomState::new();
        let hash = |k: &PyValue| {
            let mut h = state.build_hasher();
            // `None`: a key equal to no other key.
            equality::hash_key(k, &mut h).then(|| std::hash::Hasher::finish(&h))
        };
        let mut slots: std::collections::HashMap<u64, Vec<usize>> = Default::default();
        for (i, (k, _)) in d.entries.iter().enumerate() {
            if let Some(h) = hash(k) {
                slots.entry(h).or_default().push(i);
            }
        }
        for (k, v) in iter {
            let Some(h) = hash(&k) else {
                d.entries.push((k, v));
                continue;
            };
            let same_hash = slots.entry(h).or_default();
            match same_hash.iter().find(|&&i| py_key_eq(&d.entries[i].0, &k)) {
                Some(&i) => d.entries[i].1 = v,
                None => {
                    same_hash.push(d.entries.len());
                    d.entries.push((k, v));
                }
            }
        }
        d
    }
}

impl PyValue {
    /// A `str` value from Rust text.
    pub fn str(s: &str) -> PyValue {
        PyValue::Str(PyStr::from(s))
    }

    /// An `int` value.
    pub fn int(i: i64) -> PyValue {
        PyValue::Int(BigInt::from(i))
    }

    /// A dict with text keys, in the given order.
    pub fn dict_of(entries: Vec<(&str, PyValue)>) -> PyValue {
        PyValue::Dict(
            entries
                .into_iter()
                .map(|(k, v)| (PyValue::str(k), v))
                .collect(),
        )
    }

    /// Python's `type(v).__name__`.
    pub fn type_name(&self) -> &str {
        match self {
            PyValue::None => "NoneType",
            PyValue::Bool(_) => "bool",
            PyValue::Int(_) => "int",
            PyValue::Float(_) => "float",
            PyValue::Str(_) => "str",
            PyValue::List(_) => "list",
            PyValue::Tuple(_) => "tuple",
            PyValue::Dict(_) => "dict",
            PyValue::Opaque { type_name, .. } => type_name,
            PyValue::Match(m) => m.name(),
        }
    }

    /// Whether Python could use this value as a dict key.
    pub fn is_hashable(&self) -> bool {
        match self {
            PyValue::List(_) | PyValue::Dict(_) | PyValue::Opaque { .. } | PyValue::Match(_) => {
                false
            }
            PyValue::Tuple(items) => items.iter().all(PyValue::is_hashable),
            _ => true,
        }
    }

    pub fn as_str(&self) -> Option<&PyStr> {
        match self {
            PyValue::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_dict(&self) -> Option<&PyDict> {
        match self {
            PyValue::Dict(d) => Some(d),
            _ => None,
        }
    }

    pub fn as_list(&self) -> Option<&[PyValue]> {
        match self {
            PyValue::List(l) => Some(l),
            _ => None,
        }
    }

    /// The value when `type(v) is int`.
    pub fn as_exact_int(&self) -> Option<&BigInt> {
        match self {
            PyValue::Int(i) => Some(i),
            _ => None,
        }
    }
}

/// An exception the reference core can raise. The checkpoints only ever
/// raise `ValueError`; the enum leaves room for later lessons.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Exception {
    ValueError,
}

impl Exception {
    pub fn name(self) -> &'static str {
        match self {
            Exception::ValueError => "ValueError",
        }
    }
}

/// What a correct solution does on one call: return a value or raise.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum Outcome {
    Returns(PyValue),
    Raises(Exception),
}

impl Outcome {
    /// The outcome as the design's JSON shape:
    /// `{"raises": "ValueError"}` or `{"returns": <tagged JSON>}`.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Outcome::Returns(v) => serde_json::json!({ "returns": tagged::encode(v) }),
            Outcome::Raises(e) => serde_json::json!({ "raises": e.name() }),
        }
    }

    /// Whether two expected outcomes are the same (a pin and the core's
    /// outcome): values strictly equal, a matcher equal only to the same
    /// matcher. Grading a returned value uses [`Outcome::accepts`] instead.
    pub fn strict_eq(&self, other: &Outcome) -> bool {
        match (self, other) {
            (Outcome::Returns(a), Outcome::Returns(b)) => strict_eq(a, b),
            (Outcome::Raises(a), Outcome::Raises(b)) => a == b,
            _ => false,
        }
    }

    /// Whether the outcome of a call (`got`, concrete) is what this expected
    /// outcome asks for: an equal raise, or a value [`matches`] accepts.
    pub fn accepts(&self, got: &Outcome) -> bool {
        match (self, got) {
            (Outcome::Returns(a), Outcome::Returns(b)) => matches(a, b),
            (Outcome::Raises(a), Outcome::Raises(b)) => a == b,
            _ => false,
        }
    }
}
