//! Cases whose calls give each other away: the same call twice in one
//! checkpoint (an error: the second case tests nothing new and doubles the
//! weight of one input), and a hidden case whose arguments a visible case
//! passes too (a warning: student reports print the visible case's call,
//! which is the hidden input).
//!
//! Arguments are compared as Python source (`repr` of every positional and
//! keyword argument), so `1`, `1.0` and `True` differ, and so do two dicts
//! written in another key order (a student's function may see the order).

use super::{Case, Corpus, Visibility};
use crate::value::repr::repr;
use std::collections::HashMap;

/// Two cases of one checkpoint making the same call.
pub struct Duplicate<'a> {
    /// The later case (in corpus order).
    pub case: &'a Case,
    /// The first case with that call.
    pub first: &'a Case,
}

/// A hidden case whose arguments a visible case (of another checkpoint)
/// passes too.
pub struct Exposed<'a> {
    pub hidden: &'a Case,
    pub visible: &'a Case,
}

/// What [`find`] reports.
pub struct Overlaps<'a> {
    pub duplicates: Vec<Duplicate<'a>>,
    pub exposed: Vec<Exposed<'a>>,
}

/// The arguments of a call as Python source, e.g. `'{}', limit=3`.
pub fn arguments(case: &Case) -> String {
    let mut parts: Vec<String> = case.args.iter().map(repr).collect();
    parts.extend(case.kwargs.iter().map(|(k, v)| format!("{k}={}", repr(v))));
    parts.join(", ")
}

/// Every duplicate call and every exposed hidden input, in corpus order.
pub fn find(corpus: &Corpus) -> Overlaps<'_> {
    let keys: Vec<String> = corpus.cases.iter().map(arguments).collect();
    let mut first_call: HashMap<(&str, &str), &Case> = HashMap::new();
    let mut visible: HashMap<&str, Vec<&Case>> = HashMap::new();
    let mut duplicates = Vec::new();
    for (case, key) in corpus.cases.iter().zip(&keys) {
        match first_call.get(&(case.checkpoint.as_str(), key.as_str())) {
            Some(first) => duplicates.push(Duplicate { case, first }),
            None => {
                first_call.insert((&case.checkpoint, key), case);
            }
        }
        if case.visibility == Visibility::Visible {
            visible.entry(key).or_default().push(case);
        }
    }
    let exposed = corpus
        .cases
        .iter()
        .zip(&keys)
        .filter(|(case, _)| case.visibility == Visibility::Hidden)
        .filter_map(|(hidden, key)| {
            // A visible case of another checkpoint (one in the same
            // checkpoint makes the same call: a duplicate, reported above).
            let shown = visible.get(key.as_str())?;
            let visible = shown.iter().find(|v| v.checkpoint != hidden.checkpoint)?;
            Some(Exposed { hidden, visible })
        })
        .collect();
    Overlaps {
        duplicates,
        exposed,
    }
}
