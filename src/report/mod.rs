//! Reports, one file per output format, all rendered from one [`GradeRun`].
//!
//! Every renderer is a pure function of the run: no clocks, no thread
//! schedule, so the same inputs give byte-identical reports whatever `--jobs`
//! is. Every renderer writes into a [`Write`] and reads case grades one
//! submission at a time ([`GradeRun::full`]), so a report of any size is
//! never held in memory; `render(...) -> String` is the same into a `Vec`.
//! Files are written atomically (temp file in the same folder + rename).

pub mod csv;
pub mod format;
pub mod gradescope;
pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod merge;
pub mod read;
pub mod schema;
pub mod terminal;

use crate::corpus::Visibility;
use crate::grade::{
    Audience, CaseGrade, CheckpointGrade, CriterionGrade, CriterionInfo, Failure, GradeRun,
    SubmissionGrade,
};
use std::io::Write;
use std::path::Path;

/// How many failures per checkpoint the terminal and Markdown summaries show.
pub const FIRST_FAILURES: usize = 3;

/// Where a run's recordings were made: the sandbox tiers and interpreters,
/// each with how many submissions used it (more than one when cached or
/// shipped recordings mix), for every report to show.
#[derive(Clone, Debug, PartialEq)]
pub struct Provenance {
    /// `(tier, submissions)`, by tier name.
    pub isolation: Vec<(String, usize)>,
    /// `(version, submissions)`, by version; recordings without one are left out.
    pub python: Vec<(String, usize)>,
    /// What the sandbox's self-test found held, when every recording says the same.
    pub sandbox: Option<String>,
}

impl Provenance {
    /// `None` when no submission has a recording.
    pub fn of(run: &GradeRun) -> Option<Provenance> {
        use std::collections::BTreeMap;
        let mut isolation: BTreeMap<&str, usize> = BTreeMap::new();
        let mut python: BTreeMap<&str, usize> = BTreeMap::new();
        let mut sandbox: BTreeMap<Option<&str>, usize> = BTreeMap::new();
        for r in run.submissions.iter().filter_map(|s| s.recording.as_ref()) {
            *isolation.entry(&r.isolation).or_default() += 1;
            *sandbox.entry(r.sandbox.as_deref()).or_default() += 1;
            if let Some(v) = &r.python {
                *python.entry(v).or_default() += 1;
            }
        }
        if isolation.is_empty() {
            return None;
        }
        let owned =
            |m: BTreeMap<&str, usize>| m.into_iter().map(|(k, n)| (k.to_string(), n)).collect();
        let sandbox = match sandbox.keys().collect::<Vec<_>>().as_slice() {
            [Some(one)] => Some(one.to_string()),
            _ => None,
        };
        Some(Provenance {
            isolation: owned(isolation),
            python: owned(python),
            sandbox,
        })
    }

    /// Whether the run mixes sandbox tiers.
    pub fn mixed(&self) -> bool {
        self.isolation.len() > 1
    }

    /// One line for every report, e.g. `sandbox: landlock: ABI 7 (files, tcp,
    /// ...) · CPython 3.10.13`, or `sandbox: MIXED — bwrap (20 submissions),
    /// rlimits (3) · ...` when cached recordings mix tiers.
    pub fn line(&self) -> String {
        let counted = |items: &[(String, usize)]| {
            items
                .iter()
                .map(|(k, n)| format!("{k} ({n} submission{})", if *n == 1 { "" } else { "s" }))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let tier = match (self.isolation.as_slice(), &self.sandbox) {
            (_, Some(detail)) if !self.mixed() => detail.clone(),
            ([(one, _)], None) => one.clone(),
            (many, _) => format!("MIXED tiers: {}", counted(many)),
        };
        let python = match self.python.as_slice() {
            [] => String::new(),
            [(one, _)] => format!(" · CPython {one}"),
            many => format!(" · CPython {}", counted(many)),
        };
        format!("sandbox: {tier}{python}")
    }

    /// One short line for students: which Python graded them, and in which
    /// sandbox tier (what the tier holds is the instructor's to read), e.g.
    /// `graded by CPython 3.11.2 in the bwrap sandbox`.
    pub fn student_line(&self) -> String {
        let python = match self.python.as_slice() {
            [] => "graded by Python".to_string(),
            [(one, _)] => format!("graded by CPython {one}"),
            many => format!(
                "graded by CPython {}",
                many.iter()
                    .map(|(v, _)| v.as_str())
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
        };
        match self.isolation.as_slice() {
            [(one, _)] => format!("{python} in the {one} sandbox"),
            many => format!(
                "{python} in the {} sandboxes",
                many.iter()
                    .map(|(t, _)| t.as_str())
                    .collect::<Vec<_>>()
                    .join(" and ")
            ),
        }
    }

    /// The line `audience` reads: [`Provenance::line`] for instructors,
    /// [`Provenance::student_line`] for students.
    pub fn line_for(&self, audience: crate::grade::Audience) -> String {
        match audience {
            crate::grade::Audience::Instructor => self.line(),
            crate::grade::Audience::Student => self.student_line(),
        }
    }
}

/// What a renderer writes into a `Vec`, as text: the `render(...) -> String`
/// conveniences are built on the writers (an I/O error cannot happen).
pub fn to_string(write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> String {
    let mut bytes = Vec::new();
    let _ = write(&mut bytes);
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Whether a submission's failure section says anything (it was not
/// graded, or a case failed), from its summary alone: what needs no case
/// grades is not read back from the spool.
pub fn has_failures(s: &SubmissionGrade) -> bool {
    s.status != crate::grade::Status::Graded
        || s.checkpoints.iter().any(|c| c.cases_passed < c.cases_total)
}

/// Writes `contents` to `path` atomically: readers see the old file or the
/// new one, never half of it.
pub fn write_atomic(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let mut tmp = temp_beside(path)?;
    tmp.write_all(contents)?;
    persist(tmp, path)
}

/// A temporary file in `path`'s folder, to write a report into and then
/// [`persist`] as `path` (a rename, so atomic): a report is rendered
/// straight into it, never held in memory.
pub fn temp_beside(path: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    // A report is an ordinary file (0666 less the umask, as `>` would
    // make it), not a private 0600 temp file: CI uploads and web servers
    // must be able to read it.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

/// Makes a [`temp_beside`] file `path`, once it is on disk
/// ([`crate::atomic::replace`]).
pub fn persist(tmp: tempfile::NamedTempFile, path: &Path) -> std::io::Result<()> {
    tmp.as_file().sync_all()?;
    crate::atomic::replace(tmp, path)
}

/// A number of points for people: at most two decimals, no trailing zeros
/// (`1`, `0.5`, `0.33`). For a score, use [`fmt_score`], which never shows a
/// shortfall as the maximum.
pub fn fmt_points(x: f64) -> String {
    trim_decimals(format!("{x:.2}"))
}

/// Points out of `max` for people: [`fmt_points`], with as many more decimals
/// as it takes to keep a score strictly between 0 and `max` from printing as
/// either bound (`5.996` of 6, never `6`; `0.004`, never `0`).
pub fn fmt_score(x: f64, max: f64) -> String {
    fmt_within(x, max, 2)
}

/// A percentage for people: whole, unless rounding would show a score below
/// 100 % as 100 % (or above 0 % as 0 %): then as many decimals as it takes
/// (`99.6%`, `99.96%`). Never rounds up to the maximum.
pub fn fmt_percent(x: f64) -> String {
    format!("{}%", fmt_within(x, 100.0, 0))
}

/// A number exactly as its `f64` (the shortest text that reads back as the
/// same number, no exponent): for files whose readers add numbers up, so
/// the gradebook's cells sum to the JSON's total.
pub fn fmt_exact(x: f64) -> String {
    if x == 0.0 {
        // Never `-0`.
        return "0".to_string();
    }
    format!("{x}")
}

/// `x` rounded to `decimals`, or to more when the rounded text would reach
/// 0 or `max` that `x` itself does not reach.
fn fmt_within(x: f64, max: f64, decimals: usize) -> String {
    for d in decimals..=17 {
        let text = trim_decimals(format!("{x:.d$}"));
        let shown: f64 = text.parse().unwrap_or(x);
        let hides = (x < max && shown >= max) || (x > 0.0 && shown <= 0.0);
        if !hides {
            return text;
        }
    }
    fmt_exact(x)
}

/// `1.50` → `1.5`, `2.00` → `2`, `-0.00` → `0`.
fn trim_decimals(text: String) -> String {
    let s = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text.as_str()
    };
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// `points/max (percent)`, or `error` for a submission that was not graded.
pub fn total_cell(s: &SubmissionGrade) -> String {
    match s.error {
        Some(_) => "error".to_string(),
        None => format!(
            "{}/{} ({})",
            fmt_score(s.points, s.max_points),
            fmt_points(s.max_points),
            fmt_percent(s.percent())
        ),
    }
}

/// The failure's details as indented text lines (call, expected, got, diff),
/// as far as the audience may see them.
pub fn failure_details(f: &Failure) -> Vec<String> {
    let mut lines = failure_fields(f);
    if let Some(d) = &f.diff {
        lines.extend(d.lines().map(str::to_string));
    }
    lines
}

/// The call, expected and got lines of [`failure_details`], without the diff
/// (for reports that lay the diff out themselves).
pub fn failure_fields(f: &Failure) -> Vec<String> {
    let mut lines = Vec::new();
    // Under a value holding characters that pass for ASCII ones, their names.
    let shown = |lines: &mut Vec<String>, label: &str, value: &str| {
        lines.push(format!("{label:<10}{value}"));
        let named = crate::text::lookalikes(value);
        if !named.is_empty() {
            lines.push(format!("{:<10}holds {}", "", named.join(", ")));
        }
    };
    if let Some(call) = &f.call {
        shown(&mut lines, "call:", call);
    }
    for (i, binding) in f.bindings.iter().enumerate() {
        shown(&mut lines, if i == 0 { "where:" } else { "" }, binding);
    }
    if let Some(source) = &f.source {
        lines.push(format!("case at:  {source}"));
    }
    if let Some(e) = &f.expected {
        shown(&mut lines, "expected:", e);
    }
    if let Some(g) = &f.got {
        shown(&mut lines, "got:", g);
    }
    lines.extend(counterexample_line(f));
    lines
}

/// A hidden failure's counterexample as a student reads it: `the same
/// mistake on a call you can try: f(...): expected X, got Y`, or why there
/// is none; `None` when no search was made.
pub fn counterexample_line(f: &Failure) -> Option<String> {
    let search = f.counterexample.as_ref()?;
    Some(match (&search.found, &search.note) {
        (Some(c), _) => {
            let got = c
                .got
                .as_ref()
                .map_or_else(String::new, |g| format!(", got {g}"));
            format!(
                "the same mistake on a call you can try: {}: expected {}{got}",
                c.call, c.expected
            )
        }
        (None, Some(note)) => format!("no call you can try shows the same mistake: {note}"),
        (None, None) => "no call you can try shows the same mistake".to_string(),
    })
}

/// How many findings a one-line integrity summary names.
pub const INTEGRITY_SHOWN: usize = 5;

/// A submission's integrity findings in one line, for instructors:
/// `3 findings: main.py:1 import ctypes; main.py:4 sys._getframe; …`;
/// `None` when there are none, or when the run is for students (they never
/// see them).
pub fn integrity_line(run: &GradeRun, s: &SubmissionGrade) -> Option<String> {
    if run.audience != crate::grade::Audience::Instructor || s.integrity.is_empty() {
        return None;
    }
    let n = s.integrity.len();
    let mut shown: Vec<String> = s
        .integrity
        .iter()
        .take(INTEGRITY_SHOWN)
        .map(|f| f.label())
        .collect();
    if n > INTEGRITY_SHOWN {
        shown.push(format!("… {} more", n - INTEGRITY_SHOWN));
    }
    let plural = if n == 1 { "" } else { "s" };
    Some(format!("{n} finding{plural}: {}", shown.join("; ")))
}

/// `id [tag, tag]` for a case, with `(hidden)` when it is.
pub fn case_label(c: &CaseGrade) -> String {
    // A neutral name (`hidden case 7 of 61`, see `grade::hidden_case_name`)
    // says so already; case ids never hold a space.
    let hidden = if c.visibility == crate::corpus::Visibility::Hidden && !c.case.contains(' ') {
        " (hidden)"
    } else {
        ""
    };
    format!("{}{hidden} [{}]", c.case, c.tags.join(", "))
}

/// The one reason every case of a graded submission failed with (an import
/// error, a missing file...), so summaries can say it once; not when it is
/// that no function is defined (each checkpoint says that itself). In a student's
/// view hidden cases say only `a hidden case failed: <brief>`: when every
/// case has the same brief and the visible ones the same reason, that
/// reason is still the one (the brief, when every case is hidden).
pub fn common_reason(s: &SubmissionGrade) -> Option<&str> {
    let failures: Vec<&Failure> = s
        .checkpoints
        .iter()
        .flat_map(|c| &c.cases)
        .map(|c| c.failure.as_ref())
        .collect::<Option<_>>()?;
    let first = failures.first()?;
    // A main.py that defines none of the functions: each checkpoint says
    // so in its own line (see [`FailedCheckpoint::not_defined`]).
    if failures.iter().all(|f| f.brief == NOT_DEFINED) {
        return None;
    }
    if failures.iter().all(|f| f.reason == first.reason) {
        return Some(&first.reason);
    }
    if !failures.iter().all(|f| f.brief == first.brief) {
        return None;
    }
    let hidden = crate::grade::hidden_reason(&first.brief);
    let mut shown = failures
        .iter()
        .map(|f| f.reason.as_str())
        .filter(|r| *r != hidden);
    match shown.next() {
        None => Some(first.brief.as_str()),
        Some(one) => shown.all(|r| r == one).then_some(one),
    }
}

/// What the failure section of every human-readable report (terminal,
/// Markdown, HTML, Gradescope) says about one submission, decided in one
/// place so they never disagree.
pub enum FailureSection<'a> {
    /// The submission was not graded: why.
    NotGraded(&'a str),
    /// Every case failed for the same reason (see [`common_reason`]): said
    /// once, at the top, and no call is listed.
    AllFailed(&'a str),
    /// Each checkpoint with a failed case, in course order (empty: all passed).
    Checkpoints(Vec<FailedCheckpoint<'a>>),
}

/// What reports say once when every case of `s` failed for `reason`: for
/// an import error, that none of its cases could run, under which Python
/// (which may be why: `match` before 3.10); else that every case failed.
pub fn all_failed_text(s: &SubmissionGrade, reason: &str) -> String {
    let Some(why) = reason
        .strip_prefix(crate::grade::verdict::IMPORT_FAILED)
        .and_then(|r| r.strip_prefix(": "))
    else {
        return format!("every case failed: {reason}");
    };
    let python = s
        .recording
        .as_ref()
        .and_then(|r| r.python.as_deref())
        .map_or(String::new(), |v| format!(" under CPython {v}"));
    format!(
        "{}{python}, so none of its cases could run: {why}",
        crate::grade::verdict::IMPORT_FAILED
    )
}

/// Whether `reason`, every case's, says `main.py` did not import: then the
/// reports list no checkpoint one by one.
pub fn import_failed(reason: &str) -> bool {
    reason.starts_with(crate::grade::verdict::IMPORT_FAILED)
}

/// The brief of a case whose function `main.py` does not define (see
/// `grade::verdict`, `CaseOutcome::Missing`).
pub const NOT_DEFINED: &str = "function not defined";

/// A checkpoint's failed cases, in the order a report shows them: corpus
/// order for instructors; for students the visible ones first (in corpus
/// order), then the hidden ones, so a hidden failure never takes the place
/// of a visible one among the first [`FIRST_FAILURES`].
pub struct FailedCheckpoint<'a> {
    pub checkpoint: &'a CheckpointGrade,
    pub failed: Vec<(&'a CaseGrade, &'a Failure)>,
    /// `main.py` does not define the function: every case failed with
    /// [`NOT_DEFINED`]. Reports say so in one line ([`FailedCheckpoint::not_defined_line`])
    /// and list no call.
    pub not_defined: bool,
}

impl FailedCheckpoint<'_> {
    /// `3 of 116 cases failed`; for students, when hidden cases failed, how
    /// many of its hidden ones too (`3 of 116 cases failed, 1 of its 36
    /// hidden cases`), so that `hidden case 14 of 36` below counts the same
    /// way.
    pub fn count_text(&self, audience: Audience) -> String {
        let cp = self.checkpoint;
        let hidden = |case: &CaseGrade| case.visibility == Visibility::Hidden;
        let failed_hidden = self.failed.iter().filter(|(c, _)| hidden(c)).count();
        let total_hidden = cp.cases.iter().filter(|c| hidden(c)).count();
        let mut text = format!("{} of {} cases failed", self.failed.len(), cp.cases_total);
        if audience == Audience::Student && failed_hidden > 0 {
            text.push_str(&format!(
                ", {failed_hidden} of its {total_hidden} hidden case{} (hidden cases show no input)",
                if total_hidden == 1 { "" } else { "s" }
            ));
        }
        text
    }

    /// `run_tool: not defined in main.py — 94 cases not run`, for a
    /// checkpoint whose function is not defined.
    pub fn not_defined_line(&self) -> Option<String> {
        self.not_defined.then(|| {
            let n = self.checkpoint.cases_total;
            format!(
                "{}: not defined in main.py — {n} case{} not run",
                self.checkpoint.id,
                if n == 1 { "" } else { "s" }
            )
        })
    }
}

/// The [`FailureSection`] of a submission, as `audience` reads it (which
/// failures come first: see [`FailedCheckpoint`]).
pub fn failure_section(s: &SubmissionGrade, audience: Audience) -> FailureSection<'_> {
    if let Some(e) = &s.error {
        return FailureSection::NotGraded(e);
    }
    if let Some(reason) = common_reason(s) {
        return FailureSection::AllFailed(reason);
    }
    FailureSection::Checkpoints(
        s.checkpoints
            .iter()
            .map(|checkpoint| {
                let mut failed: Vec<_> = checkpoint.failures().collect();
                if audience == Audience::Student {
                    // Stable: corpus order within visible and within hidden.
                    failed.sort_by_key(|(case, _)| case.visibility == Visibility::Hidden);
                }
                let not_defined = !failed.is_empty()
                    && failed.len() == checkpoint.cases_total
                    && failed.iter().all(|(_, f)| f.brief == NOT_DEFINED);
                FailedCheckpoint {
                    checkpoint,
                    failed,
                    not_defined,
                }
            })
            .filter(|c| !c.failed.is_empty())
            .collect(),
    )
}

/// One lesson of a student's checkpoint list ([`student_checkpoints`]).
pub struct LessonCheckpoints<'a> {
    /// The lesson's id (`json-contract`).
    pub lesson: &'a str,
    /// Its title (`Lesson 02 — JSON contract`; empty from older reports).
    pub title: &'a str,
    pub checkpoints: Vec<CheckpointLine<'a>>,
}

impl LessonCheckpoints<'_> {
    /// `Lesson 02 — JSON contract — your checkpoints 2 / 3` (the lesson's id
    /// where its title is not known); when the lesson's points
    /// are not those of its passed checkpoints (partial credit), also its
    /// points and the policy that gave them.
    pub fn heading(&self, scoring: crate::corpus::Scoring) -> String {
        let mut text = format!(
            "{} — your checkpoints {} / {}",
            if self.title.is_empty() {
                self.lesson
            } else {
                self.title
            },
            self.checkpoints.iter().filter(|c| c.passed).count(),
            self.checkpoints.len()
        );
        let points: f64 = self.checkpoints.iter().map(|c| c.points).sum();
        let max: f64 = self.checkpoints.iter().map(|c| c.max_points).sum();
        let whole: f64 = self
            .checkpoints
            .iter()
            .filter(|c| c.passed)
            .map(|c| c.max_points)
            .sum();
        if (points - whole).abs() > 1e-9 {
            text.push_str(&format!(
                " — points {} / {} (scoring: {}, partial credit)",
                fmt_score(points, max),
                fmt_points(max),
                scoring.name()
            ));
        }
        text
    }
}

/// One checkpoint of a student's checkpoint list.
pub struct CheckpointLine<'a> {
    pub id: &'a str,
    /// Its title in `course.toml` (empty when the run does not know it).
    pub title: &'a str,
    pub passed: bool,
    pub cases_passed: usize,
    pub cases_total: usize,
    pub points: f64,
    pub max_points: f64,
}

impl CheckpointLine<'_> {
    /// `✓` or `✗`.
    pub fn mark(&self) -> &'static str {
        if self.passed {
            "✓"
        } else {
            "✗"
        }
    }

    /// `parse_contract_json — Parse exactly one bounded JSON object`, with
    /// ` (118/130)` (cases passed of its cases) when it is not passed.
    pub fn text(&self) -> String {
        let mut text = self.id.to_string();
        if !self.title.is_empty() {
            text.push_str(" — ");
            text.push_str(self.title);
        }
        if !self.passed {
            text.push_str(&format!(" ({}/{})", self.cases_passed, self.cases_total));
        }
        text
    }
}

/// What a student's view shows before the first failures: the course's
/// checkpoints by lesson (course order) with their titles, passed or not.
/// `None` unless the run is for students and the submission was graded.
pub fn student_checkpoints<'a>(
    run: &'a GradeRun,
    s: &'a SubmissionGrade,
) -> Option<Vec<LessonCheckpoints<'a>>> {
    if run.audience != Audience::Student || s.status != crate::grade::Status::Graded {
        return None;
    }
    let mut lessons: Vec<LessonCheckpoints<'a>> = Vec::new();
    for cp in &s.checkpoints {
        let info = run.corpus.checkpoints.iter().find(|c| *c.id == *cp.id);
        let title = info.map_or("", |c| c.title.as_str());
        let line = CheckpointLine {
            id: &cp.id,
            title,
            passed: cp.passed,
            cases_passed: cp.cases_passed,
            cases_total: cp.cases_total,
            points: cp.points,
            max_points: cp.max_points,
        };
        match lessons.last_mut() {
            Some(l) if *l.lesson == *cp.lesson => l.checkpoints.push(line),
            _ => lessons.push(LessonCheckpoints {
                lesson: &cp.lesson,
                title: info.map_or("", |c| c.lesson_title.as_str()),
                checkpoints: vec![line],
            }),
        }
    }
    Some(lessons)
}

/// One criterion of a checkpoint in one submission, as every report shows
/// it (under the `criteria` policy).
pub struct CriterionLine<'a> {
    pub info: &'a CriterionInfo,
    pub grade: &'a CriterionGrade,
    /// Its failed cases: the visible ones first, then the hidden ones (each
    /// in corpus order), named as the run's audience may see them.
    pub failed: Vec<&'a CaseGrade>,
}

impl CriterionLine<'_> {
    /// `shuffled-results 0/0.2 (12/14 cases)`, `bad-ids 0.2/0.2`.
    pub fn text(&self) -> String {
        let mut text = format!(
            "{} {}/{}",
            self.info.title,
            fmt_points(self.grade.points),
            fmt_points(self.info.points)
        );
        if !self.grade.passed {
            text.push_str(&format!(
                " ({}/{} cases)",
                self.grade.cases_passed,
                self.info.cases.len()
            ));
        }
        text
    }

    /// The failed cases' names, comma-separated (the first `at_most`, then
    /// how many more).
    pub fn failed_names(&self, at_most: usize) -> String {
        let mut names: Vec<&str> = self
            .failed
            .iter()
            .take(at_most)
            .map(|c| c.case.as_str())
            .collect();
        let more = format!("… {} more", self.failed.len().saturating_sub(at_most));
        if self.failed.len() > at_most {
            names.push(&more);
        }
        names.join(", ")
    }
}

/// A checkpoint's criteria in one submission (`info` is its
/// [`crate::grade::CheckpointInfo`]); empty unless the run is scored by
/// criteria. Failed cases are listed when `cp` holds its case grades.
pub fn criteria<'a>(
    info: &'a crate::grade::CheckpointInfo,
    cp: &'a CheckpointGrade,
) -> Vec<CriterionLine<'a>> {
    info.criteria
        .iter()
        .zip(&cp.criteria)
        .map(|(info, grade)| {
            let mut failed: Vec<&CaseGrade> = info
                .cases
                .iter()
                .filter_map(|&k| cp.cases.get(k as usize))
                .filter(|c| !c.passed)
                .collect();
            failed.sort_by_key(|c| c.visibility == Visibility::Hidden);
            CriterionLine {
                info,
                grade,
                failed,
            }
        })
        .collect()
}

/// `scoring: checkpoints — a checkpoint's points need every one of its
/// cases`: the line every human-readable report shows.
pub fn scoring_line(run: &GradeRun) -> String {
    let scoring = run.corpus.scoring;
    format!("scoring: {} — {}", scoring.name(), scoring.rule())
}

/// The checkpoint ids of the run, in course order.
pub fn checkpoint_ids(run: &GradeRun) -> Vec<&str> {
    run.corpus
        .checkpoints
        .iter()
        .map(|c| c.id.as_str())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_short() {
        assert_eq!(fmt_points(1.0), "1");
        assert_eq!(fmt_points(0.5), "0.5");
        assert_eq!(fmt_points(2.0 / 3.0), "0.67");
        assert_eq!(fmt_points(0.0), "0");
        assert_eq!(fmt_percent(99.99), "99.99%");
        assert_eq!(fmt_percent(12.5), "12%");
        assert_eq!(fmt_percent(100.0), "100%");
        assert_eq!(fmt_percent(0.0), "0%");
        assert_eq!(fmt_percent(0.3), "0.3%");
    }

    #[test]
    fn a_score_below_the_maximum_never_prints_as_it() {
        let score = 6.0 - 1.0 / 246.0;
        assert_eq!(fmt_score(score, 6.0), "5.996");
        assert_eq!(fmt_percent(100.0 * score / 6.0), "99.9%");
        assert_eq!(fmt_score(6.0, 6.0), "6");
        assert_eq!(fmt_score(2.0 / 3.0, 1.0), "0.67");
        assert_eq!(fmt_score(0.001, 6.0), "0.001");
        assert_eq!(fmt_score(6.0 - 1e-12, 6.0), "5.999999999999");
        for x in [5.0, 5.999, 6.0 - f64::EPSILON * 4.0, 0.5] {
            let shown: f64 = fmt_score(x, 6.0).parse().unwrap();
            assert!(shown < 6.0, "{x}");
        }
    }

    #[test]
    fn exact_numbers_read_back() {
        for x in [
            0.0,
            -0.0,
            1.0,
            0.1 + 0.2,
            5.995934959349594,
            1e-7,
            123456.75,
        ] {
            let text = fmt_exact(x);
            assert!(!text.contains('e') && text != "-0", "{text}");
            assert_eq!(text.parse::<f64>().unwrap(), x + 0.0);
        }
        assert_eq!(fmt_exact(4.0), "4");
    }

    #[test]
    fn atomic_write_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn reports_are_readable_like_ordinary_files() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.html");
        write_atomic(&p, b"x").unwrap();
        // What the umask lets an ordinary new file have.
        let ordinary = dir.path().join("ordinary");
        std::fs::write(&ordinary, b"x").unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&p), mode(&ordinary));
    }
}
