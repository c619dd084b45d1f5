//! What a graded run is made of: the course as reports describe it, and
//! each submission's, checkpoint's and case's grade. Plain data, read by
//! every report and written back by the JSON report.

use crate::corpus::{Case, Checkpoint, Corpus, Scoring, Visibility};

/// Who reads the reports: students never see the input of a hidden case.
/// Its names (`instructor`, `student`) are `--audience`'s and the JSON's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Audience {
    #[default]
    Instructor,
    Student,
}

impl Audience {
    /// The name reports and `--audience` use.
    pub fn name(self) -> &'static str {
        match self {
            Audience::Instructor => "instructor",
            Audience::Student => "student",
        }
    }
}

/// Which `--shard K/N` slices of a whole run a run holds.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HeldShards {
    /// The K of every slice held, ascending.
    pub held: Vec<usize>,
    /// N: how many slices the whole run was cut into.
    pub of: usize,
    /// How many submissions the whole run has (all N slices together).
    pub submissions: usize,
}

impl HeldShards {
    /// How many submissions slice `k` of `of` holds when the whole run has
    /// `total` (slice k holds the submissions whose 0-based index i, in id
    /// order, has `i % of == k - 1`).
    pub fn slice_len(k: usize, of: usize, total: usize) -> usize {
        if k == 0 || of == 0 || k > total {
            0
        } else {
            (total - k) / of + 1
        }
    }

    /// How many submissions the held slices hold together.
    pub fn held_submissions(&self) -> usize {
        self.held
            .iter()
            .map(|&k| Self::slice_len(k, self.of, self.submissions))
            .sum()
    }

    /// The slices not held, ascending.
    pub fn missing(&self) -> Vec<usize> {
        (1..=self.of).filter(|k| !self.held.contains(k)).collect()
    }

    /// `shards 1, 3 of 3` (`shard 2 of 3` for one).
    pub fn note_held(&self) -> String {
        let held: Vec<String> = self.held.iter().map(usize::to_string).collect();
        format!(
            "shard{} {} of {}",
            if self.held.len() == 1 { "" } else { "s" },
            held.join(", "),
            self.of
        )
    }

    /// `partial: shards 1, 3 of 3 (15 of 23 submissions)`: what every
    /// report of a partial run says.
    pub fn note(&self) -> String {
        format!(
            "partial: {} ({} of {} submissions)",
            self.note_held(),
            self.held_submissions(),
            self.submissions
        )
    }
}

/// The corpus as reports describe it (the JSON report's `corpus`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CorpusInfo {
    pub cases: usize,
    pub fingerprint: String,
    pub checkpoints: Vec<CheckpointInfo>,
    /// `course.toml`'s `show_hidden_ids`: a student's view names hidden
    /// cases by their ids (else neutrally: `hidden case 7 of 61`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub show_hidden_ids: bool,
    /// The assignments the run grades (`--assignment`), in course order;
    /// empty for the whole course unselected. `fingerprint` then names the
    /// selection.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assignments: Vec<crate::corpus::Assignment>,
    /// The policy the checkpoints' points were earned under; a report
    /// written before policies existed was scored by its cases.
    #[serde(default = "Scoring::legacy")]
    pub scoring: Scoring,
}

/// One checkpoint of the course, with its case count and total weight.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CheckpointInfo {
    pub id: String,
    pub lesson: String,
    /// Its lesson's title in `course.toml` (`Lesson 03 — Tool proposals`),
    /// as students read the lesson (absent from older reports).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub lesson_title: String,
    pub title: String,
    pub points: f64,
    pub cases: usize,
    pub weight: u64,
    /// Its cases in corpus order (what a graded submission's cases are
    /// made of), so a report read back from JSON can rebuild passed cases.
    /// Added within `autograder-report/1`: reports without it cannot be read back.
    pub case_list: Vec<CaseInfo>,
    /// Its criteria (`course.toml`'s rubric, else one per tag of its cases,
    /// in the order the tags first appear), whatever the policy: what
    /// `criteria` scores, and `merge --scoring criteria` with it.
    #[serde(default)]
    pub criteria: Vec<CriterionInfo>,
}

/// One criterion of a checkpoint.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CriterionInfo {
    /// The rubric's title, or the tag.
    pub title: String,
    /// Its share of the checkpoint's points: the rubric's, else the
    /// checkpoint's points split evenly over its criteria.
    pub points: f64,
    /// The indices of its cases in the checkpoint's `case_list`.
    pub cases: Vec<u32>,
}

/// A case as the corpus defines it, without its call.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CaseInfo {
    /// The case's id within its checkpoint.
    pub case: String,
    pub tags: Vec<String>,
    pub visibility: Visibility,
    pub weight: u32,
}

/// Whether a submission could be graded (`status` in JSON and CSV).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Graded,
    /// Its recording was unusable; `error` says why.
    Error,
}

impl Status {
    /// The name reports use (`status` in JSON and CSV).
    pub fn name(self) -> &'static str {
        match self {
            Status::Graded => "graded",
            Status::Error => "error",
        }
    }
}

/// One submission's grade.
#[derive(Clone, Debug, PartialEq)]
pub struct SubmissionGrade {
    pub id: String,
    pub status: Status,
    pub error: Option<String>,
    pub points: f64,
    pub max_points: f64,
    /// One per course checkpoint, in course order (all zero for an error).
    pub checkpoints: Vec<CheckpointGrade>,
    /// Where the outcomes came from; `None` for an error.
    pub recording: Option<RecordingInfo>,
    /// Integrity findings (the recording's): for instructors only, empty in
    /// a student's view.
    pub integrity: Vec<crate::integrity::Finding>,
}

impl SubmissionGrade {
    /// The total as a percentage of the maximum (100 when the maximum is 0).
    pub fn percent(&self) -> f64 {
        if self.max_points > 0.0 {
            100.0 * self.points / self.max_points
        } else if self.status == Status::Graded {
            100.0
        } else {
            0.0
        }
    }
}

/// Facts about a recording that reports may show.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RecordingInfo {
    pub harness: std::sync::Arc<str>,
    /// The sandbox tier (`bwrap`, `landlock`, `rlimits`, or another runner's word).
    pub isolation: std::sync::Arc<str>,
    /// The interpreter's version, when the recording says it (absent from
    /// older reports).
    #[serde(default)]
    pub python: Option<std::sync::Arc<str>>,
    /// What the sandbox's self-test found held, when the recording says it.
    #[serde(default)]
    pub sandbox: Option<std::sync::Arc<str>>,
    pub source_sha256: Option<String>,
    /// The recording answered another version of the corpus: cases it does
    /// not know are graded "not recorded".
    pub stale: bool,
}

/// One checkpoint's grade in one submission.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointGrade {
    pub id: std::sync::Arc<str>,
    pub lesson: std::sync::Arc<str>,
    /// The share of its points earned under the run's policy, in 0..=1
    /// (1 for a checkpoint without cases; see `score.rs`).
    pub score: f64,
    /// The checkpoint's points scaled by `score`.
    pub points: f64,
    pub max_points: f64,
    /// Every case passed.
    pub passed: bool,
    pub cases_passed: usize,
    pub cases_total: usize,
    pub weight_passed: u64,
    pub weight_total: u64,
    /// Every case, in corpus order.
    pub cases: Vec<CaseGrade>,
    /// Under the `criteria` policy, one per criterion of the checkpoint
    /// ([`CheckpointInfo::criteria`], same order); else empty.
    pub criteria: Vec<CriterionGrade>,
}

/// One criterion's result in one submission.
#[derive(Clone, Debug, PartialEq)]
pub struct CriterionGrade {
    /// Every one of its cases passed.
    pub passed: bool,
    /// Its points when passed, else 0.
    pub points: f64,
    pub cases_passed: usize,
}

impl CheckpointGrade {
    /// The failed cases, in corpus order.
    pub fn failures(&self) -> impl Iterator<Item = (&CaseGrade, &Failure)> {
        self.cases
            .iter()
            .filter_map(|c| c.failure.as_ref().map(|f| (c, f)))
    }
}

/// One case's result.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseGrade {
    /// The case's id within its checkpoint, e.g. `bool-x`.
    pub case: String,
    /// `<checkpoint>/<case>`.
    pub id: String,
    pub tags: Vec<String>,
    pub visibility: Visibility,
    pub weight: u32,
    pub passed: bool,
    /// Seconds the recording says the call took: the limit for a timeout,
    /// else 0 (recordings carry no timings, which keeps reports reproducible).
    pub seconds: f64,
    /// `Some` exactly when the case failed.
    pub failure: Option<Failure>,
}

/// Why a case failed and what to show about it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Failure {
    /// Plain words, e.g. `expected ValueError, got return {...}`.
    pub reason: String,
    /// The reason without values or messages (safe for hidden cases).
    pub brief: String,
    /// The call as Python, cut to ~300 characters; `None` when hidden from the audience.
    pub call: Option<String>,
    /// The `[let]` bindings the call names (`c1 = {...}`), in an order that
    /// runs, when `call` is written with them; else empty (and when hidden).
    pub bindings: Vec<String>,
    /// Where the case is written (`<lesson>/<file>.toml:<line>`); `None`
    /// when hidden from the audience.
    pub source: Option<String>,
    /// `raise ValueError` or the expected value's repr.
    pub expected: Option<String>,
    /// The returned value's repr or `raise Class: message`; `None` when the
    /// call neither returned nor raised, or when hidden from the audience.
    pub got: Option<String>,
    /// Unified diff of pretty reprs, when both are values.
    pub diff: Option<String>,
    /// The matchers inside the expected value, in repr order (empty when it
    /// has none, and when hidden from the audience).
    pub matchers: Vec<MatcherInfo>,
    /// For a failed hidden case in a student's view: what the search for a
    /// visible call failing the same way found (`crate::counterexample`);
    /// `None` when no search was made (visible cases, instructors' runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counterexample: Option<CounterexampleSearch>,
}

/// What the search for a counterexample of a hidden failure found: a call
/// the student can try that fails the same way, or why there is none.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CounterexampleSearch {
    pub found: Option<Counterexample>,
    /// Why none was found (`None` when one was).
    pub note: Option<String>,
}

/// A fresh call, never a hidden input, on which the submission makes the
/// same mistake as on a hidden case; written as the other failure fields are.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Counterexample {
    /// The call as Python, every value spelled out (no `where` bindings).
    pub call: String,
    /// The reference core's outcome: `raise ValueError` or a value's repr.
    pub expected: String,
    /// What the submission did (`None` when it neither returned nor raised).
    pub got: Option<String>,
}

/// A matcher inside an expected value, as reports tag it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MatcherInfo {
    /// Its place, as Python subscripts from the value's root: `[0]['content']`
    /// (empty when the whole value is the matcher).
    pub at: String,
    /// As a case file writes it: `any_str(min_len=1)`.
    pub matcher: String,
    /// As reports show it: `<any non-empty str>`.
    pub text: String,
}

/// Case grades that are not a plain pass, per checkpoint (course order):
/// `(index in its case list, seconds, failure)`.
pub(crate) type Kept = Vec<Vec<(u32, f64, Option<Failure>)>>;

impl CorpusInfo {
    /// The course of `corpus` as reports describe it.
    pub fn of(corpus: &Corpus) -> CorpusInfo {
        let checkpoints = corpus
            .lessons
            .iter()
            .flat_map(|l| l.checkpoints.iter().map(move |cp| (l, cp)))
            .map(|(lesson, cp)| {
                let cases = corpus.cases.iter().filter(|c| c.checkpoint == cp.id);
                let criteria = criteria_of(cp, cases.clone());
                CheckpointInfo {
                    id: cp.id.clone(),
                    lesson: cp.lesson.clone(),
                    lesson_title: lesson.title.clone(),
                    title: cp.title.clone(),
                    points: cp.points,
                    cases: cases.clone().count(),
                    weight: cases.clone().map(|c| u64::from(c.weight)).sum(),
                    case_list: cases
                        .map(|c| CaseInfo {
                            case: c.name.clone(),
                            tags: c.tags.clone(),
                            visibility: c.visibility,
                            weight: c.weight,
                        })
                        .collect(),
                    criteria,
                }
            })
            .collect();
        CorpusInfo {
            cases: corpus.cases.len(),
            fingerprint: corpus
                .selection
                .as_ref()
                .map_or(&corpus.fingerprint, |s| &s.fingerprint)
                .clone(),
            checkpoints,
            show_hidden_ids: corpus.settings.show_hidden_ids,
            assignments: corpus
                .selection
                .as_ref()
                .map(|s| s.assignments.clone())
                .unwrap_or_default(),
            scoring: corpus.scoring,
        }
    }
}

/// A checkpoint's criteria: `course.toml`'s rubric, else one per tag of its
/// `cases` (in the order tags first appear; a case with several tags counts
/// in each), the checkpoint's points split evenly between them.
fn criteria_of<'a>(
    cp: &Checkpoint,
    cases: impl Iterator<Item = &'a Case> + Clone,
) -> Vec<CriterionInfo> {
    let indices = |covers: &dyn Fn(&Case) -> bool| -> Vec<u32> {
        (0u32..)
            .zip(cases.clone())
            .filter(|(_, c)| covers(c))
            .map(|(k, _)| k)
            .collect()
    };
    if !cp.criteria.is_empty() {
        return cp
            .criteria
            .iter()
            .map(|cr| CriterionInfo {
                title: cr.title.clone(),
                points: cr.points,
                cases: indices(&|c| cr.covers(c)),
            })
            .collect();
    }
    by_tags(cp.points, cases.map(|c| c.tags.as_slice()))
}

/// One criterion per tag of a checkpoint's cases (given as their tag lists,
/// in corpus order), in the order tags first appear, `points` split evenly.
fn by_tags<'a>(
    points: f64,
    cases: impl Iterator<Item = &'a [String]> + Clone,
) -> Vec<CriterionInfo> {
    let mut tags: Vec<&str> = Vec::new();
    for tag in cases.clone().flatten() {
        if !tags.contains(&tag.as_str()) {
            tags.push(tag);
        }
    }
    let share = points / tags.len().max(1) as f64;
    tags.iter()
        .map(|&tag| CriterionInfo {
            title: tag.to_string(),
            points: share,
            cases: (0u32..)
                .zip(cases.clone())
                .filter(|(_, t)| t.iter().any(|t| t == tag))
                .map(|(k, _)| k)
                .collect(),
        })
        .collect()
}

impl CheckpointInfo {
    /// Its criteria as a report written before criteria implies them: one
    /// per tag of its `case_list` (what `criteria_of` makes without a rubric).
    pub(crate) fn criteria_by_tags(&self) -> Vec<CriterionInfo> {
        by_tags(
            self.points,
            self.case_list.iter().map(|c| c.tags.as_slice()),
        )
    }
}

/// One shared copy of each checkpoint id and lesson name: a run keeps
/// every submission's summary, so its names are not copied into each.
pub fn intern(name: &str) -> std::sync::Arc<str> {
    use std::collections::HashSet;
    use std::sync::{Arc, Mutex, OnceLock};
    static NAMES: OnceLock<Mutex<HashSet<Arc<str>>>> = OnceLock::new();
    let Ok(mut names) = NAMES.get_or_init(Default::default).lock() else {
        return name.into();
    };
    if let Some(known) = names.get(name) {
        return known.clone();
    }
    let new: Arc<str> = name.into();
    names.insert(new.clone());
    new
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_serde_names() {
        for a in [Audience::Instructor, Audience::Student] {
            assert_eq!(serde_json::to_value(a).unwrap(), a.name());
        }
        for s in [Status::Graded, Status::Error] {
            assert_eq!(serde_json::to_value(s).unwrap(), s.name());
        }
        for v in [Visibility::Visible, Visibility::Hidden] {
            assert_eq!(serde_json::to_value(v).unwrap(), v.name());
        }
    }
}
