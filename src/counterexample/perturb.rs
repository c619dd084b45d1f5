//! One-change variants of a value: the raw material of candidate calls.
//! Each variant changes one place of the value (a leaf or a container) in
//! one way a hostile input would: another type, an edge value, a lookalike
//! character, a dropped or doubled item. [`variants`] grows a value's
//! neighbours, [`shrinks`] its smaller ones; both are deterministic (the
//! same value, the same variants in the same order).

use crate::value::{PyStr, PyValue};
use num_bigint::BigInt;

/// The most variants one value yields (a seed is a small hand-written case).
pub const MAX_VARIANTS: usize = 4000;

/// What kind of change a variant makes: a hidden case's tags say which
/// kinds are most likely to show its mistake ([`Change::for_tags`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Another type (an int as a str or float, a list as a tuple, None).
    Type,
    /// A bool for an int, an int for a bool.
    Bool,
    /// A number at an edge: ±1, 0, negated, huge.
    Edge,
    /// A str emptied, longer, shorter, recased, with whitespace.
    Text,
    /// A character that only looks ASCII, or is not: a lookalike, an
    /// accented letter, a lone surrogate, a newline.
    Unicode,
    /// The same items in another order.
    Order,
    /// Items or keys doubled, dropped, added, renamed, emptied.
    Count,
}

impl Change {
    /// The kinds of change a hidden case tagged `tags` (the hostile-input
    /// vocabulary of `checkpoints.md`) is most likely failed by.
    pub fn for_tags(tags: &[String]) -> Vec<Change> {
        use Change::*;
        let mut out = Vec::new();
        for tag in tags {
            let kinds: &[Change] = match tag.as_str() {
                "boolean-ints" => &[Bool],
                "wrong-types" => &[Type, Bool],
                "bad-ids" | "surrogates" | "unicode-offsets" | "path-traversal" => &[Unicode, Text],
                "missing-or-extra-fields" | "duplicate-keys" | "aliasing-and-mutation" => &[Count],
                "shuffled-results" | "unpaired-results" => &[Order, Count],
                "size-limits" => &[Text, Count, Edge],
                "out-of-range" | "loop-bounds" | "retry-policy" | "nan-infinity" => &[Edge],
                "evidence-mismatch" | "trailing-garbage" | "unknown-tool" => &[Text],
                _ => &[],
            };
            for k in kinds {
                if !out.contains(k) {
                    out.push(*k);
                }
            }
        }
        out
    }
}

/// Replacements of a value at one place, by the place's kind, each with
/// the kind of change it makes.
fn local(v: &PyValue) -> Vec<(Change, PyValue)> {
    use Change::*;
    let s = PyValue::str;
    match v {
        PyValue::None => vec![
            (Type, s("")),
            (Type, PyValue::int(0)),
            (Type, PyValue::Bool(false)),
        ],
        PyValue::Bool(b) => vec![
            (Bool, PyValue::int(i64::from(*b))),
            (Edge, PyValue::Bool(!b)),
            (Type, s(if *b { "True" } else { "False" })),
        ],
        PyValue::Int(i) => {
            let mut out = vec![
                (Bool, PyValue::Bool(*i != BigInt::from(0))),
                (Edge, PyValue::Int(i + 1)),
                (Edge, PyValue::Int(i - 1)),
                (Type, PyValue::Float(i.to_string().parse().unwrap_or(0.0))),
                (Type, s(&i.to_string())),
                (Edge, PyValue::int(0)),
                (Edge, PyValue::Int(-i)),
                (Edge, PyValue::Int(BigInt::from(10).pow(12) + 1)),
                (Type, PyValue::None),
                (Edge, PyValue::Int(i * BigInt::from(10).pow(20))),
            ];
            if *i == BigInt::from(0) {
                out.push((Edge, PyValue::int(1)));
            }
            out
        }
        PyValue::Float(x) if x.is_finite() => vec![
            (Type, PyValue::Int(BigInt::from(*x as i64))),
            (Edge, PyValue::Float(x + 0.5)),
            (Edge, PyValue::Float(-x)),
            (Type, s(&crate::value::repr::float_repr(*x))),
            (Type, PyValue::None),
        ],
        PyValue::Float(_) => vec![(Edge, PyValue::Float(0.0)), (Type, PyValue::None)],
        PyValue::Str(text) => strings(text)
            .into_iter()
            .map(|(k, t)| (k, PyValue::Str(t)))
            .collect(),
        PyValue::List(xs) | PyValue::Tuple(xs) => {
            let make = |items: Vec<PyValue>| match v {
                PyValue::Tuple(_) => PyValue::Tuple(items),
                _ => PyValue::List(items),
            };
            let mut out = Vec::new();
            if xs.len() >= 2 {
                out.push((Order, make(xs.iter().rev().cloned().collect())));
            }
            for i in 0..xs.len() {
                let mut doubled = xs.clone();
                doubled.insert(i + 1, xs[i].clone());
                out.push((Count, make(doubled)));
                let mut dropped = xs.clone();
                dropped.remove(i);
                out.push((Count, make(dropped)));
            }
            if !xs.is_empty() {
                out.push((Count, make(Vec::new())));
            }
            out.push((
                Count,
                make(xs.iter().cloned().chain([PyValue::None]).collect()),
            ));
            let other = match v {
                PyValue::Tuple(_) => PyValue::List(xs.clone()),
                _ => PyValue::Tuple(xs.clone()),
            };
            out.push((Type, other));
            out.push((Type, PyValue::None));
            out
        }
        PyValue::Dict(d) => {
            let entries: Vec<(PyValue, PyValue)> =
                d.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            let dict = |e: Vec<(PyValue, PyValue)>| PyValue::Dict(e.into_iter().collect());
            let mut out = Vec::new();
            for i in 0..entries.len() {
                let mut dropped = entries.clone();
                dropped.remove(i);
                out.push((Count, dict(dropped)));
                let mut none = entries.clone();
                none[i].1 = PyValue::None;
                out.push((Type, dict(none)));
                if let PyValue::Str(k) = &entries[i].0 {
                    let mut renamed = entries.clone();
                    renamed[i].0 = PyValue::Str(k.concat(&PyStr::from("_")));
                    out.push((Count, dict(renamed)));
                }
            }
            if entries.len() >= 2 {
                out.push((Order, dict(entries.iter().rev().cloned().collect())));
            }
            let mut extra = entries.clone();
            extra.push((s("extra"), PyValue::int(1)));
            out.push((Count, dict(extra)));
            out.push((Type, PyValue::List(Vec::new())));
            out.push((Type, PyValue::None));
            out
        }
        PyValue::Opaque { .. } | PyValue::Match(_) => Vec::new(),
    }
}

/// A string's variants: empty, one character more or fewer, another case,
/// lookalike characters (the Kelvin sign for `K`/`k`, a fullwidth digit,
/// a dotless i), surrounding whitespace, a lone surrogate, not a str.
fn strings(text: &PyStr) -> Vec<(Change, PyStr)> {
    use Change::*;
    let cps = text.code_points();
    let with = |f: &dyn Fn(&mut Vec<u32>)| {
        let mut v = cps.to_vec();
        f(&mut v);
        PyStr::from_code_points(v)
    };
    let mut out = vec![(Text, PyStr::new())];
    if let Some(&last) = cps.last() {
        out.push((Text, with(&|v| v.push(last))));
        out.push((
            Text,
            with(&|v| {
                v.pop();
            }),
        ));
    } else {
        out.push((Text, PyStr::from("x")));
    }
    out.push((Text, text.concat(&PyStr::from(" "))));
    out.push((Text, PyStr::from(" ").concat(text)));
    let swap = |c: u32| match char::from_u32(c) {
        Some(ch) if ch.is_ascii_lowercase() => ch.to_ascii_uppercase() as u32,
        Some(ch) if ch.is_ascii_uppercase() => ch.to_ascii_lowercase() as u32,
        _ => c,
    };
    if let Some(i) = cps.iter().position(|&c| swap(c) != c) {
        out.push((Text, with(&|v| v[i] = swap(v[i]))));
        out.push((Text, with(&|v| v.iter_mut().for_each(|c| *c = swap(*c)))));
    }
    // Lookalikes: what a check of "ASCII letters and digits" must refuse.
    let lookalike = |c: u32| match char::from_u32(c) {
        Some('K' | 'k') => Some(0x212A),
        Some(d @ '0'..='9') => Some(0xFF10 + (d as u32 - '0' as u32)),
        Some('i') => Some(0x0131),
        Some('e') => Some(0x0435),
        Some('a') => Some(0x0430),
        _ => None,
    };
    if let Some((i, c)) = cps
        .iter()
        .enumerate()
        .find_map(|(i, &c)| lookalike(c).map(|l| (i, l)))
    {
        out.push((Unicode, with(&|v| v[i] = c)));
    }
    out.push((Unicode, text.concat(&PyStr::from("é"))));
    if !cps.is_empty() {
        // As many characters, more UTF-8 bytes.
        out.push((Unicode, with(&|v| *v.last_mut().unwrap() = 'é' as u32)));
    }
    out.push((Unicode, text.concat(&PyStr::from("\n"))));
    out.push((Unicode, text.concat(&PyStr::from_code_points(vec![0xD800]))));
    if cps.len() >= 4 {
        out.push((Text, text.slice(0, cps.len() / 2)));
    }
    out
}

/// Every value that differs from `v` at exactly one place, in an order that
/// spreads over places first: every place's first variant, then every
/// place's second, and so on (so a budget cut short still touches the
/// whole value); the changes of the kinds in `prefer` before all others.
/// At most [`MAX_VARIANTS`].
pub fn variants(v: &PyValue, prefer: &[Change]) -> Vec<PyValue> {
    Variants::of(v, prefer).collect()
}

/// A place of a value (child indices from the root; a dict's by entry) and
/// its replacements.
type Place = (Vec<usize>, Vec<(Change, PyValue)>);

/// [`variants`] made one at a time: the replacements at each place are
/// made up front (each as large as its place), the whole value only for
/// each variant taken, so a budget that takes a few of a large value's
/// variants pays for those few.
pub struct Variants {
    root: PyValue,
    places: Vec<Place>,
    /// (place, replacement) in the order they are given.
    order: std::vec::IntoIter<(usize, usize)>,
}

impl Variants {
    pub fn of(v: &PyValue, prefer: &[Change]) -> Variants {
        let mut places = Vec::new();
        let mut path = Vec::new();
        collect(v, &mut path, &mut places);
        // (not preferred, rank among its tier at its place, place, index)
        let mut order: Vec<(bool, usize, usize, usize)> = Vec::new();
        for (p, (_, rs)) in places.iter().enumerate() {
            let (mut first, mut rest) = (0, 0);
            for (r, (kind, _)) in rs.iter().enumerate() {
                let preferred = prefer.contains(kind);
                let rank = if preferred { &mut first } else { &mut rest };
                order.push((!preferred, *rank, p, r));
                *rank += 1;
            }
        }
        order.sort_by_key(|&(later, rank, place, _)| (later, rank, place));
        order.truncate(MAX_VARIANTS);
        Variants {
            root: v.clone(),
            places,
            order: order
                .into_iter()
                .map(|(_, _, p, r)| (p, r))
                .collect::<Vec<_>>()
                .into_iter(),
        }
    }
}

impl Iterator for Variants {
    type Item = PyValue;

    fn next(&mut self) -> Option<PyValue> {
        let (p, r) = self.order.next()?;
        let (path, replacements) = &self.places[p];
        Some(replaced(&self.root, path, &replacements[r].1))
    }
}

/// Adds the places of `v` (at `path`) and below, in pre-order.
fn collect(v: &PyValue, path: &mut Vec<usize>, out: &mut Vec<Place>) {
    out.push((path.clone(), local(v)));
    let children: Vec<&PyValue> = match v {
        PyValue::List(xs) | PyValue::Tuple(xs) => xs.iter().collect(),
        PyValue::Dict(d) => d.iter().map(|(_, x)| x).collect(),
        _ => Vec::new(),
    };
    for (i, x) in children.into_iter().enumerate() {
        path.push(i);
        collect(x, path, out);
        path.pop();
    }
}

/// `v` with the place at `path` replaced by `by`.
fn replaced(v: &PyValue, path: &[usize], by: &PyValue) -> PyValue {
    let Some((&i, rest)) = path.split_first() else {
        return by.clone();
    };
    match v {
        PyValue::List(xs) | PyValue::Tuple(xs) => {
            let mut items = xs.clone();
            if let Some(x) = items.get_mut(i) {
                *x = replaced(x, rest, by);
            }
            match v {
                PyValue::Tuple(_) => PyValue::Tuple(items),
                _ => PyValue::List(items),
            }
        }
        PyValue::Dict(d) => PyValue::Dict(
            d.iter()
                .enumerate()
                .map(|(k, (key, x))| {
                    let x = if k == i {
                        replaced(x, rest, by)
                    } else {
                        x.clone()
                    };
                    (key.clone(), x)
                })
                .collect(),
        ),
        _ => v.clone(),
    }
}

/// Values smaller than `v` (as repr) by one cut at one place: an item or
/// key dropped, a list or string halved, a string emptied or one character
/// shorter, an int brought to 0 or halved; smallest first.
pub fn shrinks(v: &PyValue) -> Vec<PyValue> {
    let mut out = Vec::new();
    shrink_into(v, &mut out);
    let size = |v: &PyValue| crate::value::repr::repr(v).chars().count();
    let whole = size(v);
    let mut sized: Vec<(usize, usize, PyValue)> = out
        .into_iter()
        .enumerate()
        .map(|(i, v)| (size(&v), i, v))
        .filter(|(size, ..)| *size < whole)
        .collect();
    sized.sort_by_key(|(size, i, _)| (*size, *i));
    sized.into_iter().map(|(_, _, v)| v).collect()
}

fn shrink_into(v: &PyValue, out: &mut Vec<PyValue>) {
    match v {
        PyValue::Str(text) if !text.is_empty() => {
            let n = text.len();
            out.push(PyValue::Str(PyStr::new()));
            out.push(PyValue::Str(text.slice(0, n / 2)));
            out.push(PyValue::Str(text.slice(n / 2, n)));
            out.push(PyValue::Str(text.slice(0, n - 1)));
            out.push(PyValue::Str(text.slice(1, n)));
        }
        PyValue::Int(i) if *i != BigInt::from(0) => {
            out.push(PyValue::int(0));
            out.push(PyValue::int(1));
            out.push(PyValue::Int(i / 2));
        }
        PyValue::List(xs) | PyValue::Tuple(xs) => {
            let make = |items: Vec<PyValue>| match v {
                PyValue::Tuple(_) => PyValue::Tuple(items),
                _ => PyValue::List(items),
            };
            if xs.len() >= 2 {
                out.push(make(xs[..xs.len() / 2].to_vec()));
                out.push(make(xs[xs.len() / 2..].to_vec()));
            }
            for i in 0..xs.len() {
                let mut dropped = xs.clone();
                dropped.remove(i);
                out.push(make(dropped));
            }
            for (i, x) in xs.iter().enumerate() {
                let mut inner = Vec::new();
                shrink_into(x, &mut inner);
                for s in inner {
                    let mut items = xs.clone();
                    items[i] = s;
                    out.push(make(items));
                }
            }
        }
        PyValue::Dict(d) => {
            let entries: Vec<(PyValue, PyValue)> =
                d.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            for i in 0..entries.len() {
                let mut dropped = entries.clone();
                dropped.remove(i);
                out.push(PyValue::Dict(dropped.into_iter().collect()));
            }
            for (i, (_, x)) in entries.iter().enumerate() {
                let mut inner = Vec::new();
                shrink_into(x, &mut inner);
                for s in inner {
                    let mut e = entries.clone();
                    e[i].1 = s;
                    out.push(PyValue::Dict(e.into_iter().collect()));
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::repr::repr;

    fn read(text: &str) -> PyValue {
        crate::value::reader::eval_expr(text, &Default::default()).unwrap()
    }

    #[test]
    fn variants_change_one_place_and_spread_over_places_first() {
        let v = read("{'id': 'c1', 'args': {'x': 6, 'y': True}}");
        let all = variants(&v, &[]);
        let reprs: Vec<String> = all.iter().map(repr).collect();
        // (Reordered keys are another call, though an equal dict.)
        assert!(!reprs.contains(&repr(&v)), "a variant is its seed");
        for want in [
            "{'id': 'c1', 'args': {'x': 6, 'y': 1}}",
            "{'id': 'c1', 'args': {'x': True, 'y': True}}",
            "{'id': 'C1', 'args': {'x': 6, 'y': True}}",
            "{'id': 'c１', 'args': {'x': 6, 'y': True}}",
            "{'args': {'x': 6, 'y': True}}",
        ] {
            assert!(reprs.iter().any(|r| r == want), "no {want} in {reprs:?}");
        }
        // Every place's first variant comes before any place's second.
        let firsts = reprs
            .iter()
            .position(|r| r == "{'id': 'c1', 'args': {'x': True, 'y': True}}");
        let second_at_root = reprs
            .iter()
            .position(|r| r == "{'id': None, 'args': {'x': 6, 'y': True}}");
        assert!(firsts.unwrap() < second_at_root.unwrap());
        assert_eq!(
            reprs,
            variants(&v, &[]).iter().map(repr).collect::<Vec<_>>()
        );
        // A hidden case's tags put their kinds of change first.
        let bools = variants(&v, &Change::for_tags(&["boolean-ints".to_string()]));
        assert_eq!(
            repr(&bools[0]),
            "{'id': 'c1', 'args': {'x': True, 'y': True}}"
        );
        assert_eq!(repr(&bools[1]), "{'id': 'c1', 'args': {'x': 6, 'y': 1}}");
        assert_eq!(bools.len(), all.len());
    }

    #[test]
    fn shrinks_are_smaller_and_smallest_first() {
        let v = read("[{'call_id': 'c1', 'result': {'value': 42}}, 'abcdef']");
        let size = |v: &PyValue| repr(v).chars().count();
        let all = shrinks(&v);
        assert!(!all.is_empty());
        assert!(all.iter().all(|s| size(s) < size(&v)));
        assert!(all.windows(2).all(|w| size(&w[0]) <= size(&w[1])));
    }
}
