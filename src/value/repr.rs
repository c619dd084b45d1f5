//! CPython's `repr` of values, and a pretty multi-line form for diffs.

use super::PyValue;

/// Exactly what CPython's `repr(v)` prints.
pub fn repr(v: &PyValue) -> String {
    let _ = v;
    todo!("repr")
}

/// A multi-line, indented repr for diffs: one element per line once a
/// container does not fit on one line.
pub fn pretty(v: &PyValue) -> String {
    let _ = v;
    todo!("pretty")
}
