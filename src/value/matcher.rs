//! Matchers: the parts of an expected value that the contract leaves to the
//! student — the wording of an error message, a generated id, a timing.
//!
//! A matcher sits anywhere inside an expected value (`PyValue::Match`) and
//! accepts a whole class of returned values; everything around it is still
//! compared strictly. Case files write matchers as calls in `expect`
//! (`any_str(min_len=1)`), reports show them readably (`<any non-empty str>`),
//! tagged JSON carries them as `{"$match": {"call": ..., "text": ...}}`.
//!
//! Two comparisons exist and must not be confused: grading asks whether a
//! matcher *accepts* a returned value ([`Matcher::accepts`], through
//! `grade::verdict::value_matches`); pins and the tests of the core ask
//! whether two expected values are the *same* (`strict_eq`: a matcher equals
//! only an identical matcher, never a concrete value).

use super::repr::float_repr;
use super::PyValue;
use num_bigint::BigInt;

/// The names case files call matchers by, in the order docs list them.
pub const NAMES: &[&str] = &["any", "any_str", "any_int", "any_float"];

/// A class of acceptable values.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Matcher {
    /// `any()`: any value at all.
    Any,
    /// `any_str(min_len=0, max_len=None)`: a str whose length (in code
    /// points) is in the bounds.
    Str {
        min_len: usize,
        max_len: Option<usize>,
    },
    /// `any_int(min=None, max=None)`: an exact int (never a bool) in the bounds.
    Int {
        min: Option<BigInt>,
        max: Option<BigInt>,
    },
    /// `any_float(min=None, max=None)`: a float in the bounds (bounds are
    /// finite or infinite, never nan; with a bound, nan is refused).
    Float { min: Option<f64>, max: Option<f64> },
}

impl Matcher {
    /// `any_str(min_len=1)`: the wording of an error message.
    pub fn non_empty_str() -> Matcher {
        Matcher::Str {
            min_len: 1,
            max_len: None,
        }
    }

    /// Whether a returned value belongs to the class.
    pub fn accepts(&self, v: &PyValue) -> bool {
        match (self, v) {
            (Matcher::Any, PyValue::Match(_)) => false,
            (Matcher::Any, _) => true,
            (Matcher::Str { min_len, max_len }, PyValue::Str(s)) => {
                s.len() >= *min_len && max_len.map_or(true, |m| s.len() <= m)
            }
            (Matcher::Int { min, max }, PyValue::Int(i)) => {
                min.as_ref().map_or(true, |m| i >= m) && max.as_ref().map_or(true, |m| i <= m)
            }
            (Matcher::Float { min, max }, PyValue::Float(f)) => {
                min.map_or(true, |m| *f >= m) && max.map_or(true, |m| *f <= m)
            }
            _ => false,
        }
    }

    /// The function a case file calls: `any_str`, ...
    pub fn name(&self) -> &'static str {
        match self {
            Matcher::Any => "any",
            Matcher::Str { .. } => "any_str",
            Matcher::Int { .. } => "any_int",
            Matcher::Float { .. } => "any_float",
        }
    }

    /// The matcher as a case file writes it: `any_str(min_len=1)`. Reads
    /// back (with [`Matcher::from_call`]) as the same matcher.
    pub fn call(&self) -> String {
        let mut kwargs: Vec<String> = Vec::new();
        match self {
            Matcher::Any => {}
            Matcher::Str { min_len, max_len } => {
                if *min_len > 0 {
                    kwargs.push(format!("min_len={min_len}"));
                }
                if let Some(m) = max_len {
                    kwargs.push(format!("max_len={m}"));
                }
            }
            Matcher::Int { min, max } => {
                kwargs.extend(min.as_ref().map(|m| format!("min={m}")));
                kwargs.extend(max.as_ref().map(|m| format!("max={m}")));
            }
            Matcher::Float { min, max } => {
                let f = |x: f64| {
                    if x.is_infinite() {
                        format!("float('{}')", float_repr(x))
                    } else {
                        float_repr(x)
                    }
                };
                kwargs.extend(min.map(|m| format!("min={}", f(m))));
                kwargs.extend(max.map(|m| format!("max={}", f(m))));
            }
        }
        format!("{}({})", self.name(), kwargs.join(", "))
    }

    /// The matcher for people, as reports and diffs show it:
    /// `<any non-empty str>`, `<any int >= 0>`, `<any value>`.
    pub fn text(&self) -> String {
        match self {
            Matcher::Any => "<any value>".into(),
            Matcher::Str { min_len, max_len } => match (min_len, max_len) {
                (0, None) => "<any str>".into(),
                (1, None) => "<any non-empty str>".into(),
                (n, None) => format!("<any str of at least {n} characters>"),
                (0, Some(m)) => format!("<any str of at most {m} characters>"),
                (n, Some(m)) if n == m => format!("<any str of {n} characters>"),
                (n, Some(m)) => format!("<any str of {n} to {m} characters>"),
            },
            Matcher::Int { min, max } => bounded("int", min.as_ref(), max.as_ref()),
            Matcher::Float { min, max } => bounded(
                "float",
                min.map(float_repr).as_ref(),
                max.map(float_repr).as_ref(),
            ),
        }
    }

    /// Builds a matcher from a call in the case language: `name` is one of
    /// [`NAMES`], arguments by keyword only. `Err` is a Python-style message.
    pub fn from_call(
        name: &str,
        positional: usize,
        kwargs: &[(String, PyValue)],
    ) -> Result<Matcher, String> {
        if positional > 0 {
            return Err(format!(
                "{name}() takes keyword arguments only, e.g. any_str(min_len=1)"
            ));
        }
        let allowed: &[&str] = match name {
            "any" => &[],
            "any_str" => &["min_len", "max_len"],
            "any_int" | "any_float" => &["min", "max"],
            _ => return Err(format!("{name} is not a matcher")),
        };
        for (i, (k, _)) in kwargs.iter().enumerate() {
            if !allowed.contains(&k.as_str()) {
                return Err(format!("{name}() got an unexpected keyword argument '{k}'"));
            }
            if kwargs[..i].iter().any(|(e, _)| e == k) {
                return Err(format!("keyword argument repeated: {k}"));
            }
        }
        let get = |k: &str| kwargs.iter().find(|(n, _)| n == k).map(|(_, v)| v);
        let int_arg = |k: &str| -> Result<Option<BigInt>, String> {
            match get(k) {
                None => Ok(None),
                Some(PyValue::Int(i)) => Ok(Some(i.clone())),
                Some(v) => Err(format!(
                    "{name}(): {k} must be an int, not {}",
                    v.type_name()
                )),
            }
        };
        let m = match name {
            "any" => Matcher::Any,
            "any_str" => {
                let len = |k: &str| -> Result<Option<usize>, String> {
                    int_arg(k)?
                        .map(|i| {
                            usize::try_from(&i)
                                .map_err(|_| format!("{name}(): {k} must be a length (>= 0)"))
                        })
                        .transpose()
                };
                Matcher::Str {
                    min_len: len("min_len")?.unwrap_or(0),
                    max_len: len("max_len")?,
                }
            }
            "any_int" => Matcher::Int {
                min: int_arg("min")?,
                max: int_arg("max")?,
            },
            _ => {
                let float_arg = |k: &str| -> Result<Option<f64>, String> {
                    match get(k) {
                        None => Ok(None),
                        Some(PyValue::Float(f)) if !f.is_nan() => Ok(Some(*f)),
                        Some(v) => Err(format!(
                            "{name}(): {k} must be a float (not nan), not {}",
                            v.type_name()
                        )),
                    }
                };
                Matcher::Float {
                    min: float_arg("min")?,
                    max: float_arg("max")?,
                }
            }
        };
        let empty = match &m {
            Matcher::Str {
                min_len,
                max_len: Some(max),
            } => min_len > max,
            Matcher::Int {
                min: Some(a),
                max: Some(b),
            } => a > b,
            Matcher::Float {
                min: Some(a),
                max: Some(b),
            } => a > b,
            _ => false,
        };
        if empty {
            return Err(format!("{name}(): min is above max, nothing would match"));
        }
        Ok(m)
    }
}

fn bounded(
    kind: &str,
    min: Option<&impl std::fmt::Display>,
    max: Option<&impl std::fmt::Display>,
) -> String {
    match (min, max) {
        (None, None) => format!("<any {kind}>"),
        (Some(a), None) => format!("<any {kind} >= {a}>"),
        (None, Some(b)) => format!("<any {kind} <= {b}>"),
        (Some(a), Some(b)) => format!("<any {kind} from {a} to {b}>"),
    }
}

/// The expected value as a diff against `got` shows it: every matcher that
/// accepts the value at its place in `got` is replaced by that value, so the
/// diff marks only what is really wrong; a matcher that does not accept its
/// place (or has none) stays, shown as its text.
pub fn resolve(expected: &PyValue, got: &PyValue) -> PyValue {
    match (expected, got) {
        (PyValue::Match(m), g) if m.accepts(g) => g.clone(),
        (PyValue::List(e), PyValue::List(g)) => PyValue::List(resolve_items(e, g)),
        (PyValue::Tuple(e), PyValue::Tuple(g)) => PyValue::Tuple(resolve_items(e, g)),
        (PyValue::Dict(e), PyValue::Dict(g)) => PyValue::Dict(
            e.iter()
                .map(|(k, x)| {
                    let x = match g.iter().find(|(k2, _)| super::strict_eq(k, k2)) {
                        Some((_, y)) => resolve(x, y),
                        None => x.clone(),
                    };
                    (k.clone(), x)
                })
                .collect(),
        ),
        _ => expected.clone(),
    }
}

fn resolve_items(expected: &[PyValue], got: &[PyValue]) -> Vec<PyValue> {
    expected
        .iter()
        .enumerate()
        .map(|(i, x)| match got.get(i) {
            Some(y) => resolve(x, y),
            None => x.clone(),
        })
        .collect()
}

/// Whether a value holds a matcher anywhere.
pub fn contains_matcher(v: &PyValue) -> bool {
    match v {
        PyValue::Match(_) => true,
        PyValue::List(items) | PyValue::Tuple(items) => items.iter().any(contains_matcher),
        PyValue::Dict(d) => d
            .iter()
            .any(|(k, x)| contains_matcher(k) || contains_matcher(x)),
        _ => false,
    }
}

/// Every matcher inside an expected value, with its place written as Python
/// subscripts from the value's root (`[0]['content']`), in repr order.
pub fn matchers_in(v: &PyValue) -> Vec<(String, &Matcher)> {
    fn walk<'a>(v: &'a PyValue, path: &mut String, out: &mut Vec<(String, &'a Matcher)>) {
        match v {
            PyValue::Match(m) => out.push((path.clone(), m)),
            PyValue::List(items) | PyValue::Tuple(items) => {
                for (i, x) in items.iter().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    walk(x, path, out);
                    path.truncate(len);
                }
            }
            PyValue::Dict(d) => {
                for (k, x) in d.iter() {
                    let len = path.len();
                    path.push_str(&format!("[{}]", super::repr::repr(k)));
                    walk(x, path, out);
                    path.truncate(len);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut String::new(), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::PyStr;

    fn call(name: &str, kwargs: &[(&str, PyValue)]) -> Result<Matcher, String> {
        let kwargs: Vec<(String, PyValue)> = kwargs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        Matcher::from_call(name, 0, &kwargs)
    }

    #[test]
    fn strings_by_length_in_code_points() {
        let m = Matcher::non_empty_str();
        assert!(m.accepts(&PyValue::str(" ")));
        assert!(m.accepts(&PyValue::Str(PyStr::from_code_points(vec![0xD800]))));
        assert!(!m.accepts(&PyValue::str("")));
        assert!(!m.accepts(&PyValue::int(1)));
        assert!(!m.accepts(&PyValue::List(vec![PyValue::str("x")])));
        let short = call("any_str", &[("max_len", PyValue::int(2))]).unwrap();
        assert!(short.accepts(&PyValue::str("")));
        assert!(short.accepts(&PyValue::str("é😀")));
        assert!(!short.accepts(&PyValue::str("abc")));
    }

    #[test]
    fn ints_are_exact_and_floats_are_floats() {
        let m = call("any_int", &[("min", PyValue::int(0))]).unwrap();
        assert!(m.accepts(&PyValue::int(0)));
        assert!(!m.accepts(&PyValue::int(-1)));
        assert!(!m.accepts(&PyValue::Bool(true)));
        assert!(!m.accepts(&PyValue::Float(1.0)));
        let f = call("any_float", &[("min", PyValue::Float(0.0))]).unwrap();
        assert!(f.accepts(&PyValue::Float(0.5)));
        assert!(f.accepts(&PyValue::Float(-0.0)));
        assert!(!f.accepts(&PyValue::Float(f64::NAN)));
        assert!(!f.accepts(&PyValue::int(1)));
        let any_float = call("any_float", &[]).unwrap();
        assert!(any_float.accepts(&PyValue::Float(f64::NAN)));
        assert!(Matcher::Any.accepts(&PyValue::None));
        assert!(!Matcher::Any.accepts(&PyValue::Match(Matcher::Any)));
    }

    #[test]
    fn calls_read_back_and_texts_read_well() {
        let cases: Vec<(Matcher, &str, &str)> = vec![
            (Matcher::Any, "any()", "<any value>"),
            (
                Matcher::non_empty_str(),
                "any_str(min_len=1)",
                "<any non-empty str>",
            ),
            (call("any_str", &[]).unwrap(), "any_str()", "<any str>"),
            (
                call(
                    "any_str",
                    &[("min_len", PyValue::int(2)), ("max_len", PyValue::int(9))],
                )
                .unwrap(),
                "any_str(min_len=2, max_len=9)",
                "<any str of 2 to 9 characters>",
            ),
            (
                call("any_int", &[("min", PyValue::int(0))]).unwrap(),
                "any_int(min=0)",
                "<any int >= 0>",
            ),
            (
                call(
                    "any_float",
                    &[
                        ("min", PyValue::Float(0.0)),
                        ("max", PyValue::Float(f64::INFINITY)),
                    ],
                )
                .unwrap(),
                "any_float(min=0.0, max=float('inf'))",
                "<any float from 0.0 to inf>",
            ),
        ];
        for (m, call_text, text) in cases {
            assert_eq!(m.call(), call_text);
            assert_eq!(m.text(), text);
        }
    }

    #[test]
    fn bad_matcher_calls_are_refused() {
        assert!(Matcher::from_call("any_str", 1, &[]).is_err());
        assert!(call("any_str", &[("min", PyValue::int(1))]).is_err());
        assert!(call("any_str", &[("min_len", PyValue::int(-1))]).is_err());
        assert!(call("any_str", &[("min_len", PyValue::Bool(true))]).is_err());
        assert!(call(
            "any_int",
            &[("min", PyValue::int(2)), ("max", PyValue::int(1))]
        )
        .is_err());
        assert!(call("any_float", &[("min", PyValue::int(0))]).is_err());
        assert!(call("any_float", &[("max", PyValue::Float(f64::NAN))]).is_err());
        assert!(call("any", &[("x", PyValue::None)]).is_err());
        assert!(call("all", &[]).is_err());
    }

    #[test]
    fn resolving_shows_accepted_places_as_got() {
        let result = |content: PyValue, status: &str| {
            PyValue::List(vec![PyValue::dict_of(vec![
                ("content", content),
                ("status", PyValue::str(status)),
            ])])
        };
        let want = result(PyValue::Match(Matcher::non_empty_str()), "error");
        let got = result(PyValue::str("boom"), "success");
        let shown = resolve(&want, &got);
        assert!(crate::value::strict_eq(
            &shown,
            &result(PyValue::str("boom"), "error")
        ));
        // Not accepted: the matcher stays.
        let empty = result(PyValue::str(""), "error");
        assert!(crate::value::strict_eq(&resolve(&want, &empty), &want));
        assert!(crate::value::strict_eq(
            &resolve(&want, &PyValue::None),
            &want
        ));
    }

    #[test]
    fn matchers_are_found_with_their_place() {
        let v = PyValue::List(vec![PyValue::dict_of(vec![
            ("type", PyValue::str("tool_result")),
            ("content", PyValue::Match(Matcher::non_empty_str())),
        ])]);
        let found = matchers_in(&v);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, "[0]['content']");
        assert!(contains_matcher(&v));
        assert!(!contains_matcher(&PyValue::List(vec![PyValue::None])));
    }
}
