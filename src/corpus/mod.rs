//! The case corpus: `cases/course.toml` plus one TOML file per checkpoint.

use crate::value::{Outcome, PyValue};
use std::path::PathBuf;

/// The hostile-input vocabulary of `checkpoints.md`: every case carries one
/// or more of these tags.
pub const TAGS: &[&str] = &[
    "valid",
    "duplicate-keys",
    "nan-infinity",
    "deep-nesting",
    "surrogates",
    "boolean-ints",
    "bad-ids",
    "shuffled-results",
    "size-limits",
    "wrong-types",
    "missing-or-extra-fields",
    "out-of-range",
    "evidence-mismatch",
    "unicode-offsets",
    "retry-policy",
    "trailing-garbage",
    "aliasing-and-mutation",
];

/// Whether students see a case's input when it fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    Visible,
    Hidden,
}

/// One graded call.
#[derive(Clone, Debug)]
pub struct Case {
    /// `<checkpoint>/<case>`, unique in the corpus.
    pub id: String,
    /// The case's own id, unique within its checkpoint.
    pub name: String,
    pub lesson: String,
    /// The function called, e.g. `validate_tool_call`.
    pub checkpoint: String,
    /// The call as written in the case file.
    pub call: String,
    /// Positional arguments, fully evaluated.
    pub args: Vec<PyValue>,
    /// Keyword arguments in call order.
    pub kwargs: Vec<(String, PyValue)>,
    pub tags: Vec<String>,
    pub visibility: Visibility,
    pub weight: u32,
    /// The optional pinned outcome, checked against the core by `cases check`.
    pub expect: Option<Outcome>,
    pub note: Option<String>,
    /// Where the case is written, for error messages.
    pub file: PathBuf,
    pub line: usize,
}

/// A checkpoint as `course.toml` declares it.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    /// The function name, e.g. `parse_contract_json`.
    pub id: String,
    pub lesson: String,
    pub title: String,
    pub points: f64,
}

/// A lesson and its checkpoints, in course order.
#[derive(Clone, Debug)]
pub struct Lesson {
    pub id: String,
    pub title: String,
    pub checkpoints: Vec<Checkpoint>,
}

/// The whole loaded corpus.
#[derive(Clone, Debug)]
pub struct Corpus {
    pub root: PathBuf,
    pub lessons: Vec<Lesson>,
    /// Cases in course order: by checkpoint as the course lists them, then by
    /// position in the file.
    pub cases: Vec<Case>,
    /// sha256 over the case files' contents, so recordings know which corpus
    /// they answered.
    pub fingerprint: String,
}
