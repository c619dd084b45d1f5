//! The JSON report, `autograder-report/1` (see `docs/report-format.md`), as
//! types, the one shape both ways: `json.rs` writes a [`Report`] (its
//! submissions made as they are written), `read.rs` reads one back (for
//! `merge`), and the tests check reports through them. A field added
//! within the schema carries `#[serde(default)]` so older reports still read.

use crate::corpus::Visibility;
use crate::grade::{
    Audience, CorpusInfo, Counterexample, HeldShards, MatcherInfo, RecordingInfo, Status,
};
use serde::{Deserialize, Serialize};

/// The `schema` field of every JSON report.
pub const SCHEMA: &str = "autograder-report/1";

/// A whole report. `S` is how its submissions are held: a `Vec` read back
/// or built in memory, or a sequence made as it is written (`json.rs`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report<S = Vec<Submission>> {
    /// Always [`SCHEMA`].
    pub schema: String,
    pub audience: Audience,
    pub corpus: CorpusInfo,
    /// Where the recordings were made; `null` when no submission has one.
    /// Computed from the recordings, so a reader may ignore it.
    #[serde(default)]
    pub environment: Option<ProvenanceJson>,
    /// Sorted by id.
    pub submissions: S,
    /// Only in a partial run's report (a shard, a partial merge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<HeldShards>,
}

impl<S> Report<S> {
    /// The same report with its submissions held as `f` makes them.
    pub fn map_submissions<T>(self, f: impl FnOnce(S) -> T) -> Report<T> {
        Report {
            schema: self.schema,
            audience: self.audience,
            corpus: self.corpus,
            environment: self.environment,
            submissions: f(self.submissions),
            shards: self.shards,
        }
    }
}

/// The sandbox tiers and interpreters of a run (see [`super::Provenance`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProvenanceJson {
    /// `[tier, submissions]` pairs.
    pub isolation: Vec<(String, usize)>,
    /// `[version, submissions]` pairs.
    pub python: Vec<(String, usize)>,
    pub sandbox: Option<String>,
    /// The line every report shows.
    pub summary: String,
}

/// One submission's grade.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Submission {
    pub id: String,
    pub status: Status,
    /// `null` unless `status` is `error`.
    pub error: Option<String>,
    pub points: f64,
    pub max_points: f64,
    pub percent: f64,
    /// `null` for an error.
    pub recording: Option<RecordingInfo>,
    /// Integrity findings, in instructors' reports only (absent from a
    /// student's; added within the schema).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub integrity: Option<Vec<crate::integrity::Finding>>,
    /// In course order.
    pub checkpoints: Vec<Checkpoint>,
}

/// One checkpoint's grade in one submission.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub id: String,
    pub lesson: String,
    pub score: f64,
    pub points: f64,
    pub max_points: f64,
    pub passed: bool,
    pub cases_passed: usize,
    pub cases_total: usize,
    pub weight_passed: u64,
    pub weight_total: u64,
    /// The failed cases only, in corpus order.
    pub failures: Vec<Failure>,
    /// Under the `criteria` policy, each criterion's result, in the order
    /// of the corpus's `criteria` (added within the schema).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub criteria: Vec<Criterion>,
}

/// One criterion's result in one checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Criterion {
    pub title: String,
    pub points: f64,
    pub max_points: f64,
    pub passed: bool,
    pub cases_passed: usize,
    pub cases_total: usize,
    /// Its failed cases (as `failures` names them): visible ones first.
    pub failed: Vec<String>,
}

/// One failed case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    pub case: String,
    pub tags: Vec<String>,
    pub visibility: Visibility,
    pub weight: u32,
    /// The limit for a timeout, else 0.
    pub seconds: f64,
    pub reason: String,
    /// The reason without values or messages.
    pub brief: String,
    pub call: Option<String>,
    /// The `[let]` bindings `call` names (added within the schema).
    #[serde(default, rename = "where")]
    pub bindings: Vec<String>,
    /// `<lesson>/<file>.toml:<line>` (added within the schema).
    #[serde(default)]
    pub source: Option<String>,
    pub expected: Option<String>,
    pub got: Option<String>,
    pub diff: Option<String>,
    /// The matchers inside the expected value (`<any non-empty str>`); only
    /// when it has some.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matchers: Vec<MatcherInfo>,
    /// A failed hidden case in a student's view: a fresh visible call
    /// failing the same way (`{call, expected, got}`), or `null` when none
    /// was found (`counterexample_note` says why); absent when no search
    /// was made (added within the schema).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "null_is_some"
    )]
    pub counterexample: Option<Option<Counterexample>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counterexample_note: Option<String>,
}

/// A field that may be absent (`None`), `null` (`Some(None)`) or a value.
fn null_is_some<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// A failure entry's `counterexample` and `counterexample_note` as the
/// grade's search result (`None` when neither is there).
pub fn counterexample_search(
    found: Option<Option<Counterexample>>,
    note: Option<String>,
) -> Option<crate::grade::CounterexampleSearch> {
    match (found, note) {
        (None, None) => None,
        (found, note) => Some(crate::grade::CounterexampleSearch {
            found: found.flatten(),
            note,
        }),
    }
}
