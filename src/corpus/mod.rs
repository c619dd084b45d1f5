//! The case corpus: `cases/course.toml` plus one TOML file per checkpoint.

mod cached;
mod course;
pub use course::Settings as CourseSettings;
pub mod export;
mod fields;
mod file;
pub mod overlap;
mod problems;
pub mod scoring;
pub mod tree;

use crate::value::{Outcome, PyValue};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

pub use problems::{CorpusError, Problem};
pub use scoring::{Criterion, Scoring};

/// The case-file format this binary reads: `course.toml` and the case
/// files, as docs/case-format.md describes them (a change that old case
/// files cannot be read under gets a new number).
pub const CASE_FORMAT: &str = "autograder-cases/1";

/// The largest file the loader reads (a case file is text written by hand).
const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Asks the reference core whether a call can be made at all; `Err` is why
/// not (wrong arity, unknown keyword...).
pub type CallCheck<'a> =
    &'a dyn Fn(&str, &[PyValue], &[(String, PyValue)]) -> Result<(), crate::reference::CallError>;

/// Whether students see a case's input when it fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    Visible,
    Hidden,
}

impl Visibility {
    /// The name case files and reports use (its serde name).
    pub fn name(self) -> &'static str {
        match self {
            Visibility::Visible => "visible",
            Visibility::Hidden => "hidden",
        }
    }
}

/// One graded call.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
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
    /// The `[let]` bindings the call uses, as written (`(name, source)`), in
    /// definition order, with those they use in turn: run in order before
    /// `call`, they reproduce its arguments.
    pub lets: Vec<(String, String)>,
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

/// The process a case runs in: its checkpoint's cases of its visibility run
/// in one process of their own, in corpus order, whatever else a run
/// selects (a call's outcome may depend on the calls before it in its
/// process; hidden cases run after every visible one, so no visible result
/// can carry a hidden input).
pub fn process_group(case: &Case) -> (&str, Visibility) {
    (&case.checkpoint, case.visibility)
}

impl Case {
    /// Where the case is written, relative to the corpus folder:
    /// `<lesson>/<file>.toml:<line>` (the same on every machine).
    pub fn location(&self) -> String {
        let file = self.file.file_name().map_or_else(
            || self.file.display().to_string(),
            |f| f.to_string_lossy().into_owned(),
        );
        format!("{}/{file}:{}", self.lesson, self.line)
    }
}

/// A checkpoint as `course.toml` declares it.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    /// The function name, e.g. `parse_contract_json`.
    pub id: String,
    pub lesson: String,
    pub title: String,
    pub points: f64,
    /// Its rubric (`[[lesson.checkpoint.criterion]]`); empty: its cases'
    /// tags are its criteria.
    pub criteria: Vec<Criterion>,
}

/// A lesson and its checkpoints, in course order.
#[derive(Clone, Debug)]
pub struct Lesson {
    pub id: String,
    pub title: String,
    pub checkpoints: Vec<Checkpoint>,
}

/// A part of the course graded on its own (a Gradescope assignment, a
/// student's CI job): `[[assignment]]` in `course.toml`, or by default one
/// per lesson.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Assignment {
    pub id: String,
    pub title: String,
    /// Its checkpoints, in course order.
    pub checkpoints: Vec<String>,
    /// Its points when `course.toml` gives them; else the sum of its
    /// checkpoints' (see [`Corpus::select`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<f64>,
    /// Its `scoring`, which applies when it is graded alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scoring: Option<Scoring>,
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
    /// What `course.toml` says beyond its lessons.
    pub settings: CourseSettings,
    /// The assignments this corpus was cut to (see [`Corpus::select`]);
    /// `None` for the whole course, unselected.
    pub selection: Option<Selection>,
    /// The policy its checkpoints are scored under: the course's, or that
    /// of the one assignment selected when it names one (`--scoring`
    /// overrides it).
    pub scoring: Scoring,
}

/// What [`Corpus::select`] chose.
#[derive(Clone, Debug)]
pub struct Selection {
    /// The selected assignments, in the order the course lists them.
    pub assignments: Vec<Assignment>,
    /// Names the selection and the corpus it cuts (the reports' corpus
    /// fingerprint: `merge` refuses shards of another assignment).
    pub fingerprint: String,
    /// The course's cases outside the selection: the store keeps what
    /// they recorded (grading lesson 03 after lesson 02 re-records none
    /// of lesson 02's).
    pub others: Vec<Case>,
}

/// Why [`Corpus::select`] cannot cut the corpus.
#[derive(Debug, thiserror::Error)]
pub enum SelectError {
    #[error("no assignment {id:?} in the course (it has: {known})")]
    Unknown { id: String, known: String },
    #[error("no lesson {id:?} in the course (it has: {known})")]
    UnknownLesson { id: String, known: String },
}

impl Corpus {
    /// Checkpoints in course order.
    pub fn checkpoints(&self) -> impl Iterator<Item = &Checkpoint> {
        self.lessons.iter().flat_map(|l| &l.checkpoints)
    }

    /// The assignments a run can select (`--assignment ID`): those of
    /// `course.toml`, else one per lesson (its id and title); `all` is
    /// always the whole course besides.
    pub fn assignments(&self) -> Vec<Assignment> {
        if !self.settings.assignments.is_empty() {
            return self.settings.assignments.clone();
        }
        self.lessons
            .iter()
            .map(|l| Assignment {
                id: l.id.clone(),
                title: l.title.clone(),
                checkpoints: l.checkpoints.iter().map(|c| c.id.clone()).collect(),
                points: None,
                scoring: None,
            })
            .collect()
    }

    /// This corpus cut to the assignments `ids` and the lessons `lessons`
    /// (each lesson as an assignment of its own): their checkpoints (in
    /// course order) and cases only. `all` is every assignment. With one
    /// assignment that gives its `points`, its checkpoints' points are
    /// scaled to add up to them. Nothing asked for: the corpus as it is.
    pub fn select(mut self, ids: &[String], lessons: &[String]) -> Result<Corpus, SelectError> {
        if ids.is_empty() && lessons.is_empty() {
            return Ok(self);
        }
        let known = self.assignments();
        let names = |list: Vec<&str>| {
            let mut list = list;
            list.push(course::ALL);
            list.join(", ")
        };
        let mut chosen: Vec<Assignment> = Vec::new();
        for id in ids {
            let found: Vec<Assignment> = if id == course::ALL {
                known.clone()
            } else {
                let one = known.iter().find(|a| &a.id == id).cloned();
                vec![one.ok_or_else(|| SelectError::Unknown {
                    id: id.clone(),
                    known: names(known.iter().map(|a| a.id.as_str()).collect()),
                })?]
            };
            chosen.extend(found);
        }
        for id in lessons {
            let lesson = self.lessons.iter().find(|l| &l.id == id).ok_or_else(|| {
                SelectError::UnknownLesson {
                    id: id.clone(),
                    known: self
                        .lessons
                        .iter()
                        .map(|l| l.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                }
            })?;
            chosen.push(Assignment {
                id: lesson.id.clone(),
                title: lesson.title.clone(),
                checkpoints: lesson.checkpoints.iter().map(|c| c.id.clone()).collect(),
                points: None,
                scoring: None,
            });
        }
        // Each once, in course order (declared order; lessons by position).
        let rank = |a: &Assignment| known.iter().position(|k| k == a).unwrap_or(known.len());
        chosen.sort_by_key(rank);
        chosen.dedup();
        let wanted: Vec<&str> = chosen
            .iter()
            .flat_map(|a| &a.checkpoints)
            .map(String::as_str)
            .collect();
        // One assignment with its own points: its checkpoints scaled to them.
        let scale = match chosen.as_slice() {
            [one] => one.points.and_then(|p| {
                let sum: f64 = self
                    .checkpoints()
                    .filter(|c| one.checkpoints.contains(&c.id))
                    .map(|c| c.points)
                    .sum();
                (sum > 0.0).then(|| p / sum)
            }),
            _ => None,
        };
        for lesson in &mut self.lessons {
            lesson
                .checkpoints
                .retain(|c| wanted.contains(&c.id.as_str()));
            if let Some(scale) = scale {
                for c in &mut lesson.checkpoints {
                    c.points *= scale;
                    for cr in &mut c.criteria {
                        cr.points *= scale;
                    }
                }
            }
        }
        self.lessons.retain(|l| !l.checkpoints.is_empty());
        if let [Assignment {
            scoring: Some(policy),
            ..
        }] = chosen.as_slice()
        {
            self.scoring = *policy;
        }
        let (cases, others): (Vec<Case>, Vec<Case>) = std::mem::take(&mut self.cases)
            .into_iter()
            .partition(|c| wanted.contains(&c.checkpoint.as_str()));
        self.cases = cases;
        let mut h = Sha256::new();
        h.update(self.fingerprint.as_bytes());
        for a in &chosen {
            h.update(format!(
                "\0{}\0{}\0{:?}",
                a.id,
                a.checkpoints.join(","),
                a.points
            ));
        }
        self.selection = Some(Selection {
            assignments: chosen,
            fingerprint: hex::encode(h.finalize()),
            others,
        });
        Ok(self)
    }
}

/// The applicable tags (the registry's [`crate::reference::Checkpoint::tags`])
/// that no case of their checkpoint carries, as `(checkpoint, tag)` in course
/// order. Checkpoints without any case are left out (reported on their own).
pub fn tag_gaps(corpus: &Corpus) -> Vec<(String, &'static str)> {
    let mut gaps = Vec::new();
    for cp in corpus.checkpoints() {
        let cases: Vec<&Case> = corpus
            .cases
            .iter()
            .filter(|c| c.checkpoint == cp.id)
            .collect();
        let Some(declared) = crate::reference::checkpoint(&cp.id) else {
            continue;
        };
        if cases.is_empty() {
            continue;
        }
        for tag in declared.tags {
            if !cases.iter().any(|c| c.tags.iter().any(|t| t == tag)) {
                gaps.push((cp.id.clone(), *tag));
            }
        }
    }
    gaps
}

/// Loads `dir/course.toml` and every `dir/<lesson>/*.toml`, checking
/// everything, including that the reference core accepts every call's
/// arguments. Reports every problem found, each with its file and line.
pub fn load(dir: &Path) -> Result<Corpus, CorpusError> {
    load_cached(dir, None)
}

/// [`load`], its cases taken from the user's cache folder `cache` when an
/// earlier run of this binary parsed the same files (see [`cached`]), and
/// kept there when parsed here.
pub fn load_cached(dir: &Path, cache: Option<&Path>) -> Result<Corpus, CorpusError> {
    // Only bound, not run: the outcomes are computed once, by the grader.
    let check = |f: &str, args: &[PyValue], kwargs: &[(String, PyValue)]| {
        crate::reference::check_call(f, args, kwargs)
    };
    load_from(dir, &check, cache)
}

/// [`load`] with another arity check (for tests and tools that run without
/// the reference core).
pub fn load_with(dir: &Path, check: CallCheck) -> Result<Corpus, CorpusError> {
    load_from(dir, check, None)
}

fn load_from(dir: &Path, check: CallCheck, cache: Option<&Path>) -> Result<Corpus, CorpusError> {
    let mut problems = Vec::new();
    let fail = |problems: Vec<Problem>| Err(CorpusError { problems });
    if !dir.exists() {
        problems.push(problems::whole(
            dir,
            "no such folder (the corpus is the folder holding course.toml; pass --cases DIR)",
        ));
        return fail(problems);
    }
    if !dir.is_dir() {
        problems.push(problems::whole(dir, "not a folder"));
        return fail(problems);
    }
    let course_path = dir.join("course.toml");
    let Some(course_text) = read_text(&course_path, &mut problems) else {
        return fail(problems);
    };
    let (lessons, settings) = course::read(&mut problems::Sink::new(
        course_path.clone(),
        &course_text,
        &mut problems,
    ));

    let mut files: Vec<(String, PathBuf)> = Vec::new(); // (relative path, path)
    let walker = walkdir::WalkDir::new(dir)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                let path = e
                    .path()
                    .map_or_else(|| dir.to_path_buf(), Path::to_path_buf);
                problems.push(problems::whole(&path, format!("cannot read: {e}")));
                continue;
            }
        };
        if entry.depth() == 0 {
            continue;
        }
        let path = entry.path();
        let ft = entry.file_type();
        let rel = relative(dir, path);
        if ft.is_symlink() {
            problems.push(problems::whole(
                path,
                "symbolic links are not followed in a corpus",
            ));
            continue;
        }
        let is_toml = path.extension().is_some_and(|e| e == "toml");
        match (entry.depth(), ft.is_dir()) {
            (1, true) if !lessons.iter().any(|l| l.id == rel) => {
                problems.push(problems::whole(
                    path,
                    format!("folder {rel:?} is not a lesson of course.toml"),
                ));
            }
            (1, false) if is_toml && rel != "course.toml" => problems.push(problems::whole(
                path,
                "case files belong in a lesson folder (<lesson>/<checkpoint>.toml)",
            )),
            (2, false) if is_toml => files.push((rel, path.to_path_buf())),
            (d, _) if d > 2 && is_toml => problems.push(problems::whole(
                path,
                "case files belong directly in a lesson folder (<lesson>/<checkpoint>.toml)",
            )),
            _ => {}
        }
    }

    let mut hasher = Sha256::new();
    hash_file(&mut hasher, "course.toml", &course_text);
    let mut texts: Vec<(&str, &PathBuf, String)> = Vec::new(); // (lesson, path, text)
    for (rel, path) in &files {
        let Some(text) = read_text(path, &mut problems) else {
            continue;
        };
        hash_file(&mut hasher, rel, &text);
        let folder = rel.split('/').next().unwrap_or_default();
        if !lessons.iter().any(|l| l.id == folder) {
            continue; // already reported for the folder
        }
        texts.push((folder, path, text));
    }
    let fingerprint = hex::encode(hasher.finalize());
    let corpus = |cases| Corpus {
        root: dir.to_path_buf(),
        lessons: lessons.clone(),
        cases,
        fingerprint: fingerprint.clone(),
        settings: settings.clone(),
        selection: None,
        scoring: settings.scoring,
    };
    // The same files, folder and binary: the cases an earlier run parsed
    // and checked.
    if let (Some(cache), true) = (cache, problems.is_empty()) {
        let start = crate::timings::now();
        if let Some(cases) = cached::load(cache, dir, &fingerprint) {
            let name = "cases parsed by an earlier run (the user's cache)";
            crate::timings::record(name, start, crate::timings::now());
            return checked(corpus(cases));
        }
    }
    let mut cases: Vec<Case> = Vec::new();
    for (folder, path, text) in &texts {
        let mut sink = problems::Sink::new((*path).clone(), text, &mut problems);
        cases.extend(file::read(&mut sink, folder, &lessons, check));
    }

    // Case ids are unique within a checkpoint (across files).
    let mut seen: std::collections::HashMap<&str, &Case> = std::collections::HashMap::new();
    for case in &cases {
        if let Some(first) = seen.insert(&case.id, case) {
            problems.push(Problem {
                file: case.file.clone(),
                line: Some(case.line),
                case: Some(case.id.clone()),
                message: format!(
                    "duplicate case id (first defined at {}:{})",
                    first.file.display(),
                    first.line
                ),
            });
        }
    }
    if !problems.is_empty() {
        return fail(problems);
    }

    // Course order: by checkpoint as course.toml lists them, then file, then position.
    let order: Vec<&str> = lessons
        .iter()
        .flat_map(|l| &l.checkpoints)
        .map(|c| c.id.as_str())
        .collect();
    cases.sort_by_key(|c| order.iter().position(|&o| o == c.checkpoint));
    let corpus = checked(corpus(cases))?;
    if let Some(cache) = cache {
        cached::store(cache, dir, &fingerprint, &corpus.cases);
    }
    Ok(corpus)
}

/// `corpus`, unless its rubric names what its cases do not have.
fn checked(corpus: Corpus) -> Result<Corpus, CorpusError> {
    let problems = scoring::check_criteria(&corpus);
    if problems.is_empty() {
        Ok(corpus)
    } else {
        Err(CorpusError { problems })
    }
}

/// `path` relative to `dir`, with `/` separators.
fn relative(dir: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(dir).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Frames each file so no two corpora hash alike: path, length, contents.
fn hash_file(h: &mut Sha256, rel: &str, text: &str) {
    h.update(rel.as_bytes());
    h.update([0]);
    h.update((text.len() as u64).to_le_bytes());
    h.update(text.as_bytes());
}

fn read_text(path: &Path, problems: &mut Vec<Problem>) -> Option<String> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => {
            problems.push(problems::whole(path, format!("cannot read: {e}")));
            return None;
        }
    };
    if meta.len() > MAX_FILE_BYTES {
        problems.push(problems::whole(
            path,
            format!("file larger than {MAX_FILE_BYTES} bytes"),
        ));
        return None;
    }
    match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(s) => Some(s),
            Err(e) => {
                let line = 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count();
                problems.push(Problem {
                    file: path.to_path_buf(),
                    line: Some(line),
                    case: None,
                    message: "not valid UTF-8".into(),
                });
                None
            }
        },
        Err(e) => {
            problems.push(problems::whole(path, format!("cannot read: {e}")));
            None
        }
    }
}
