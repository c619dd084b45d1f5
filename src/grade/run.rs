//! The graded result of a whole run, and how it is computed.

use super::{feedback, verdict::judge_case};
use crate::corpus::{Corpus, Visibility};
use crate::recording::case_store::Outcomes;
use crate::recording::format::{CaseOutcome, Recording};
use crate::reference::{self, CallError};
use crate::value::Outcome;
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::HashMap;

/// Errors that stop grading as a whole (a bad corpus, not a bad submission).
#[derive(Debug, thiserror::Error)]
pub enum GradeError {
    /// (`error` is not a `source`: the message already includes it.)
    #[error("case {case} ({file}:{line}): the reference core cannot make this call: {error}")]
    Reference {
        case: String,
        file: String,
        line: usize,
        error: CallError,
    },
}

/// Who reads the reports: students never see the input of a hidden case.
/// Its names (`instructor`, `student`) are `--audience`'s and the JSON's.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Default,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
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

/// Everything one grading run found, in a fixed order: submissions by id,
/// checkpoints in course order, cases in corpus order.
#[derive(Clone, Debug, PartialEq)]
pub struct GradeRun {
    pub corpus: CorpusInfo,
    /// The audience the failures are shown for (see [`GradeRun::for_audience`]).
    pub audience: Audience,
    pub submissions: Vec<SubmissionGrade>,
    /// `Some` when the run holds only some shards of a whole run (`grade
    /// --shard K/N`, or `merge --allow-partial`): every report says so.
    pub shards: Option<Shards>,
    /// Where the case grades are: in `submissions` (the default), or, for a
    /// large run, spooled to disk with `submissions` holding summaries (no
    /// `cases`). Reports read case grades through [`GradeRun::full`].
    pub details: super::details::Details,
}

/// Which `--shard K/N` slices of a whole run a run holds.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shards {
    /// The K of every slice held, ascending.
    pub held: Vec<usize>,
    /// N: how many slices the whole run was cut into.
    pub of: usize,
    /// How many submissions the whole run has (all N slices together).
    pub submissions: usize,
}

impl Shards {
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
    /// cases by their ids (else neutrally, see [`hidden_case_name`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub show_hidden_ids: bool,
    /// The assignments the run grades (`--assignment`), in course order;
    /// empty for the whole course unselected. `fingerprint` then names the
    /// selection.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assignments: Vec<crate::corpus::Assignment>,
}

/// One checkpoint of the course, with its case count and total weight.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CheckpointInfo {
    pub id: String,
    pub lesson: String,
    pub title: String,
    pub points: f64,
    pub cases: usize,
    pub weight: u64,
    /// Its cases in corpus order (what a graded submission's cases are
    /// made of), so a report read back from JSON can rebuild passed cases.
    /// Added within `autograder-report/1`: reports without it cannot be read back.
    pub case_list: Vec<CaseInfo>,
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
    /// Drops what `audience` may not see: for students, integrity findings,
    /// where cases are written, and a failed hidden case's call, values and
    /// detailed reason (it keeps its tags and a value-free reason), and
    /// unless `show_hidden_ids`, a hidden case's id (an id such as
    /// `objects-depth-9` tells the input: see [`hidden_case_name`]).
    pub fn show_to(&mut self, audience: Audience, show_hidden_ids: bool) {
        if audience != Audience::Student {
            return;
        }
        self.integrity.clear();
        if !show_hidden_ids {
            for cp in &mut self.checkpoints {
                let names = hidden_names(cp.cases.iter().map(|c| c.visibility));
                for (case, name) in cp.cases.iter_mut().zip(names) {
                    if let Some(name) = name {
                        case.id = format!("{}/{name}", cp.id);
                        case.case = name;
                    }
                }
            }
        }
        for case in self.checkpoints.iter_mut().flat_map(|c| c.cases.iter_mut()) {
            let hidden = case.visibility == Visibility::Hidden;
            let Some(f) = case.failure.as_mut() else {
                continue;
            };
            f.source = None;
            if hidden {
                f.reason = hidden_reason(&f.brief);
                f.call = None;
                f.bindings = Vec::new();
                f.expected = None;
                f.got = None;
                f.diff = None;
                f.matchers.clear();
            }
        }
    }

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
    /// Passed weight / total weight, in 0..=1 (1 for a checkpoint without cases).
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

/// The reference outcome of every case, in corpus order, computed in parallel
/// (on the current rayon pool) once per corpus.
pub fn expected_outcomes(corpus: &Corpus) -> Result<Vec<Outcome>, GradeError> {
    corpus
        .cases
        .par_iter()
        .map(|case| {
            reference::call(&case.checkpoint, &case.args, &case.kwargs).map_err(|error| {
                GradeError::Reference {
                    case: case.id.clone(),
                    file: case.file.display().to_string(),
                    line: case.line,
                    error,
                }
            })
        })
        .collect()
}

/// Grades every submission: `recordings` holds each submission's id and its
/// recording, or why it could not be had (graded as status `error`).
/// `expected` is [`expected_outcomes`] of `corpus`. Runs in parallel on the
/// current rayon pool; the result is sorted by submission id, with its case
/// grades in memory (see [`Grader`] for a run of any size).
pub fn grade_recordings(
    corpus: &Corpus,
    expected: &[Outcome],
    recordings: Vec<(String, Result<Recording, String>)>,
) -> GradeRun {
    let grader = Grader::new(corpus, expected);
    let details = super::Details::default();
    let submissions: Vec<SubmissionGrade> = recordings
        .into_par_iter()
        .map(|(id, rec)| match rec {
            Ok(rec) => grader.grade(id, &Outcomes::of_recording(corpus, rec), &details),
            Err(why) => grader.error(id, why),
        })
        .collect();
    grader.run(submissions, details)
}

/// Case grades that are not a plain pass, per checkpoint (course order):
/// `(index in its case list, seconds, failure)`.
pub(crate) type Kept = Vec<Vec<(u32, f64, Option<Failure>)>>;

/// What an outcome text judged got: a timeout's seconds, the failure when
/// it failed.
type Judged = (f64, Option<Failure>);

/// How many different outcomes of one case [`Grader`] remembers, and how
/// many bytes in all (memory stays bounded whatever submissions return).
const MEMO_PER_CASE: usize = 256;
const MEMO_BYTES: usize = 64 << 20;

/// Grades submissions one at a time against one corpus: what every
/// submission needs (the course as reports describe it, the reference
/// outcomes, where each case goes) is made once, and the outcomes already
/// judged are remembered per case, so that the thousandth submission
/// returning the same value as the first is graded by comparing text.
pub struct Grader<'a> {
    corpus: &'a Corpus,
    expected: &'a [Outcome],
    info: CorpusInfo,
    /// Per corpus case: (checkpoint index, index in its case list).
    place: Vec<Option<(usize, u32)>>,
    /// Per corpus case: outcome texts judged, with what they got (a
    /// timeout's seconds, the failure).
    memo: Vec<std::sync::RwLock<HashMap<Box<str>, Judged>>>,
    /// Per corpus case, the first text judged (most often the one most
    /// submissions return), compared before any hashing.
    first: Vec<std::sync::OnceLock<(Box<str>, Judged)>>,
    /// Bytes the memo holds (roughly: texts and failures' text).
    memo_bytes: std::sync::atomic::AtomicUsize,
}

impl<'a> Grader<'a> {
    /// `expected` is [`expected_outcomes`] of `corpus`.
    pub fn new(corpus: &'a Corpus, expected: &'a [Outcome]) -> Grader<'a> {
        let info = corpus_info(corpus);
        let index: HashMap<&str, usize> = info
            .checkpoints
            .iter()
            .enumerate()
            .map(|(i, cp)| (cp.id.as_str(), i))
            .collect();
        let mut next = vec![0u32; info.checkpoints.len()];
        let place = corpus
            .cases
            .iter()
            .map(|case| {
                let &cp = index.get(case.checkpoint.as_str())?;
                next[cp] += 1;
                Some((cp, next[cp] - 1))
            })
            .collect();
        Grader {
            corpus,
            expected,
            place,
            memo: corpus.cases.iter().map(|_| Default::default()).collect(),
            memo_bytes: Default::default(),
            first: corpus.cases.iter().map(|_| Default::default()).collect(),
            info,
        }
    }

    /// The course as reports describe it.
    pub fn info(&self) -> &CorpusInfo {
        &self.info
    }

    /// The run made of `submissions` (sorted here by id), whose case grades
    /// `details` kept.
    pub fn run(&self, mut submissions: Vec<SubmissionGrade>, details: super::Details) -> GradeRun {
        submissions.sort_by(|a, b| a.id.cmp(&b.id));
        GradeRun {
            corpus: self.info.clone(),
            audience: Audience::Instructor,
            submissions,
            shards: None,
            details,
        }
    }

    /// A submission that could not be graded (`why`).
    pub fn error(&self, id: String, why: String) -> SubmissionGrade {
        error_grade(&self.info, id, crate::report::text::escaped(&why))
    }

    /// Grades one submission's outcomes; `details` keeps its case grades
    /// (the returned grade is a summary when it spools them).
    pub fn grade(
        &self,
        id: String,
        outcomes: &Outcomes,
        details: &super::Details,
    ) -> SubmissionGrade {
        let mut kept: Kept = self.info.checkpoints.iter().map(|_| Vec::new()).collect();
        for (i, place) in self.place.iter().enumerate() {
            let Some((cp, k)) = *place else { continue };
            let (seconds, failure) = self.case(i, outcomes.get(i));
            if seconds != 0.0 || failure.is_some() {
                kept[cp].push((k, seconds, failure));
            }
        }
        let checkpoints: Vec<CheckpointGrade> = self
            .info
            .checkpoints
            .iter()
            .zip(&kept)
            .map(|(cp, kept)| score_checkpoint(cp, kept))
            .collect();
        let summary = SubmissionGrade {
            id,
            status: Status::Graded,
            error: None,
            points: checkpoints.iter().map(|c| c.points).sum(),
            max_points: max_points(&self.info),
            checkpoints,
            recording: Some(RecordingInfo {
                // A shipped recording's words are the student's.
                harness: shown(&outcomes.harness),
                isolation: shown(&outcomes.isolation),
                python: outcomes.python.as_deref().map(shown),
                sandbox: outcomes.sandbox.as_deref().map(shown),
                source_sha256: outcomes.source_sha256.clone(),
                stale: outcomes.stale,
            }),
            integrity: outcomes.integrity.clone(),
        };
        details.keep_parts(&self.info, summary, kept)
    }

    /// Case `i` given its outcome text: (seconds, failure when it failed).
    fn case(&self, i: usize, text: Option<&str>) -> (f64, Option<Failure>) {
        let Some(text) = text else {
            return self.judge(i, None);
        };
        if let Some((t, (seconds, failure))) = self.first[i].get() {
            if &**t == text {
                return (*seconds, failure.clone());
            }
        }
        if let Ok(memo) = self.memo[i].read() {
            if let Some((seconds, failure)) = memo.get(text) {
                return (*seconds, failure.clone());
            }
        }
        let judged = self.judge(i, Some(text));
        let size = text.len() + judged.1.as_ref().map_or(0, failure_bytes);
        use std::sync::atomic::Ordering::Relaxed;
        if self.memo_bytes.fetch_add(size, Relaxed) + size > MEMO_BYTES {
            self.memo_bytes.fetch_sub(size, Relaxed);
            return judged;
        }
        if self.first[i].set((text.into(), judged.clone())).is_ok() {
            return judged;
        }
        if let Ok(mut memo) = self.memo[i].write() {
            if memo.len() < MEMO_PER_CASE && !memo.contains_key(text) {
                memo.insert(text.into(), judged.clone());
                return judged;
            }
        }
        self.memo_bytes.fetch_sub(size, Relaxed);
        judged
    }

    fn judge(&self, i: usize, text: Option<&str>) -> (f64, Option<Failure>) {
        let (case, want) = (&self.corpus.cases[i], &self.expected[i]);
        let recorded = text.map(CaseOutcome::parse);
        let verdict = match &recorded {
            None => judge_case(&case.checkpoint, want, None),
            Some(Ok(outcome)) => judge_case(&case.checkpoint, want, Some(outcome)),
            Some(Err(why)) => super::Verdict::fail(
                format!("the recorded outcome is unreadable: {why}"),
                "unreadable outcome",
            ),
        };
        let seconds = match recorded {
            Some(Ok(CaseOutcome::Timeout { seconds, .. })) if seconds.is_finite() => {
                seconds.max(0.0)
            }
            _ => 0.0,
        };
        let failure = (!verdict.passed).then(|| feedback::failure(case, want, &verdict));
        (seconds, failure)
    }
}

/// About how many bytes a failure holds.
fn failure_bytes(f: &Failure) -> usize {
    let texts = [&f.call, &f.source, &f.expected, &f.got, &f.diff];
    f.reason.len()
        + f.brief.len()
        + texts
            .iter()
            .map(|t| t.as_ref().map_or(0, String::len))
            .sum::<usize>()
        + f.bindings.iter().map(String::len).sum::<usize>()
        + 256
}

fn corpus_info(corpus: &Corpus) -> CorpusInfo {
    let checkpoints = corpus
        .lessons
        .iter()
        .flat_map(|l| &l.checkpoints)
        .map(|cp| {
            let cases = corpus.cases.iter().filter(|c| c.checkpoint == cp.id);
            CheckpointInfo {
                id: cp.id.clone(),
                lesson: cp.lesson.clone(),
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
    }
}

fn max_points(info: &CorpusInfo) -> f64 {
    info.checkpoints.iter().map(|c| c.points).sum()
}

/// An error row's message is cut to this many characters (it may quote a
/// recording's contents), in the middle: its first fifth and the rest from
/// its end, where it says what is wrong (after a path, which may be
/// thousands of characters long).
pub const ERROR_CHARS: usize = 1000;

fn error_grade(info: &CorpusInfo, id: String, why: String) -> SubmissionGrade {
    SubmissionGrade {
        id,
        status: Status::Error,
        error: Some(crate::report::text::cut_middle(
            &why,
            ERROR_CHARS / 5,
            ERROR_CHARS - ERROR_CHARS / 5,
        )),
        points: 0.0,
        max_points: max_points(info),
        checkpoints: info
            .checkpoints
            .iter()
            .map(|cp| CheckpointGrade {
                id: intern(&cp.id),
                lesson: intern(&cp.lesson),
                score: 0.0,
                points: 0.0,
                max_points: cp.points,
                passed: false,
                cases_passed: 0,
                cases_total: cp.cases,
                weight_passed: 0,
                weight_total: cp.weight,
                cases: Vec::new(),
            })
            .collect(),
        recording: None,
        integrity: Vec::new(),
    }
}

/// One shared copy of each checkpoint id and lesson name: a run keeps
/// every submission's summary, so its names are not copied into each.
/// [`intern`] of `text` as reports may show it ([`crate::report::text::escaped`]).
fn shown(text: &str) -> std::sync::Arc<str> {
    intern(&crate::report::text::escaped(text))
}

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

/// A checkpoint's score from its case grades that are not a plain pass:
/// passed weight over total weight, points scaled by it. Its `cases` are
/// left empty (see [`super::Details::keep_parts`]).
fn score_checkpoint(cp: &CheckpointInfo, kept: &[(u32, f64, Option<Failure>)]) -> CheckpointGrade {
    let weight_total: u64 = cp.case_list.iter().map(|c| u64::from(c.weight)).sum();
    let failed_weight: u64 = kept
        .iter()
        .filter(|(_, _, f)| f.is_some())
        .filter_map(|(k, _, _)| cp.case_list.get(*k as usize))
        .map(|c| u64::from(c.weight))
        .sum();
    let cases_failed = kept.iter().filter(|(_, _, f)| f.is_some()).count();
    let weight_passed = weight_total - failed_weight;
    let score = if weight_total == 0 {
        1.0
    } else {
        weight_passed as f64 / weight_total as f64
    };
    CheckpointGrade {
        id: intern(&cp.id),
        lesson: intern(&cp.lesson),
        score,
        points: cp.points * score,
        max_points: cp.points,
        passed: cases_failed == 0,
        cases_passed: cp.case_list.len() - cases_failed,
        cases_total: cp.case_list.len(),
        weight_passed,
        weight_total,
        cases: Vec::new(),
    }
}

/// What a student's view calls the `k`-th (from 1) of a checkpoint's `n`
/// hidden cases: `hidden case 7 of 61`. Its tags are still shown.
pub fn hidden_case_name(k: usize, n: usize) -> String {
    format!("hidden case {k} of {n}")
}

/// For each case of a checkpoint (by visibility, in corpus order), its
/// [`hidden_case_name`] when hidden: the same names whatever the case
/// grades are made from (a summary, a spool, a JSON report read back).
fn hidden_names(visibility: impl Iterator<Item = Visibility> + Clone) -> Vec<Option<String>> {
    let n = visibility
        .clone()
        .filter(|&v| v == Visibility::Hidden)
        .count();
    let mut k = 0;
    visibility
        .map(|v| {
            (v == Visibility::Hidden).then(|| {
                k += 1;
                hidden_case_name(k, n)
            })
        })
        .collect()
}

/// What a student reads of a failed hidden case: its value-free reason.
pub fn hidden_reason(brief: &str) -> String {
    format!("a hidden case failed: {brief}")
}

impl GradeRun {
    /// The run as `audience` may see it: for students, a failed hidden case
    /// keeps only its id, tags and a value-free reason ("a hidden case
    /// failed: ..."); its call, expected, got and diff are dropped. Students
    /// never see where a case is written (`source`).
    pub fn for_audience(&self, audience: Audience) -> GradeRun {
        self.view(audience).into_owned()
    }

    /// [`GradeRun::for_audience`] without a copy when the run already is for
    /// `audience` (an instructor run shown to instructors, the usual case:
    /// a thousand submissions' grades are not duplicated to write reports).
    pub fn view(&self, audience: Audience) -> Cow<'_, GradeRun> {
        if audience == self.audience {
            return Cow::Borrowed(self);
        }
        Cow::Owned(self.clone().into_audience(audience))
    }

    /// The run for `audience`, made in place (no copy of the submissions:
    /// what a large run's `grade --audience student` does).
    pub fn into_audience(mut self, audience: Audience) -> GradeRun {
        if audience != self.audience {
            self.audience = audience;
            let shown = self.corpus.show_hidden_ids;
            if audience == Audience::Student && !shown {
                for cp in &mut self.corpus.checkpoints {
                    let names = hidden_names(cp.case_list.iter().map(|c| c.visibility));
                    for (case, name) in cp.case_list.iter_mut().zip(names) {
                        if let Some(name) = name {
                            case.case = name;
                        }
                    }
                }
            }
            for s in &mut self.submissions {
                s.show_to(audience, shown);
            }
        }
        self
    }

    /// Every submission with its case grades, in order, as the run's
    /// audience may see them. What needs case grades loops over this (a
    /// spooled run reads them back one submission at a time); what needs
    /// only scores reads `submissions`.
    pub fn full(&self) -> impl Iterator<Item = Cow<'_, SubmissionGrade>> + '_ {
        self.submissions.iter().map(|s| self.full_one(s))
    }

    /// This run with its case grades spooled to disk (what a large run
    /// does as it grades; tests check every report reads the same from both).
    pub fn spooled(mut self) -> std::io::Result<GradeRun> {
        let details = super::details::Details::spooled()?;
        self.submissions = std::mem::take(&mut self.submissions)
            .into_iter()
            .map(|s| details.keep(s))
            .collect();
        self.details = details;
        Ok(self)
    }

    /// One of `submissions` with its case grades (see [`GradeRun::full`]).
    pub fn full_one<'a>(&'a self, s: &'a SubmissionGrade) -> Cow<'a, SubmissionGrade> {
        match &self.details.0 {
            None => Cow::Borrowed(s),
            Some(spool) => Cow::Owned(spool.fill(&self.corpus, s, self.audience)),
        }
    }

    /// Submissions below `percent` of their maximum, or in error.
    pub fn below(&self, percent: f64) -> Vec<&SubmissionGrade> {
        self.submissions
            .iter()
            .filter(|s| s.status == Status::Error || s.percent() < percent)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_serde_and_cli_names() {
        use clap::ValueEnum;
        for a in [Audience::Instructor, Audience::Student] {
            assert_eq!(serde_json::to_value(a).unwrap(), a.name());
            assert_eq!(a.to_possible_value().unwrap().get_name(), a.name());
        }
        for s in [Status::Graded, Status::Error] {
            assert_eq!(serde_json::to_value(s).unwrap(), s.name());
        }
        for v in [Visibility::Visible, Visibility::Hidden] {
            assert_eq!(serde_json::to_value(v).unwrap(), v.name());
        }
    }
}
