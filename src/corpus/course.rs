//! `course.toml`: the lessons and their checkpoints, in course order.

use super::fields::{entries, Fields};
use super::problems::Sink;
use super::scoring::{Criterion, Scoring};
use super::tree::Value;
use super::{Checkpoint, Lesson};
use crate::reference;

/// What `course.toml` says beyond its lessons.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    /// The course's `title`.
    pub title: String,
    /// `show_hidden_ids = true`: students' views name a hidden case by its
    /// id (`objects-depth-9`) instead of `hidden case 7 of 61`. Off by
    /// default: an id can tell the input.
    pub show_hidden_ids: bool,
    /// The `[[assignment]]` tables, in file order; without any, each lesson
    /// is an assignment of its own (see [`super::Corpus::assignments`]).
    pub assignments: Vec<super::Assignment>,
    /// The top-level `scoring`: the course's policy (default `checkpoints`).
    pub scoring: Scoring,
}

/// The id that always means the whole course.
pub const ALL: &str = "all";

/// Reads the course file; problems go to `sink`. Returns what could be read.
pub(crate) fn read(sink: &mut Sink) -> (Vec<Lesson>, Settings) {
    let mut settings = Settings::default();
    let Some(doc) = sink.parse() else {
        return (Vec::new(), settings);
    };
    let top = Fields::new(
        &doc,
        0,
        &[
            "title",
            "lesson",
            "show_hidden_ids",
            "assignment",
            "scoring",
        ],
        "course.toml",
        None,
        sink,
    );
    settings.title = top
        .req_str("title", None, sink)
        .map(|(s, _)| s.to_string())
        .unwrap_or_default();
    if let Some(n) = top.get("show_hidden_ids") {
        match n.value {
            Value::Bool(b) => settings.show_hidden_ids = b,
            _ => sink.at(n.span.start, None, "show_hidden_ids must be true or false"),
        }
    }
    if let Some(policy) = scoring(&top, sink) {
        settings.scoring = policy;
    }
    let lesson_nodes = top.tables("lesson", None, sink);
    if lesson_nodes.is_empty() && top.get("lesson").is_none() {
        sink.at(0, None, "no [[lesson]] tables");
    }
    let mut lessons: Vec<Lesson> = Vec::new();
    for node in lesson_nodes {
        let f = Fields::new(
            entries(node),
            node.span.start,
            &["id", "title", "checkpoint"],
            "[[lesson]]",
            None,
            sink,
        );
        let id = f.req_str("id", None, sink);
        let title = f.req_str("title", None, sink);
        let mut checkpoints = Vec::new();
        let lesson_id = id.map(|(s, _)| s.to_string()).unwrap_or_default();
        if let Some((s, n)) = id {
            if !is_slug(s) {
                sink.at(
                    n.span.start,
                    None,
                    format!("lesson id {s:?} must match [a-z0-9-]+"),
                );
            } else if lessons.iter().any(|l| l.id == s) {
                sink.at(
                    n.span.start,
                    None,
                    format!("lesson {s:?} is declared twice"),
                );
            }
        }
        for cp in f.tables("checkpoint", None, sink) {
            let cf = Fields::new(
                entries(cp),
                cp.span.start,
                &["function", "title", "points", "criterion"],
                "[[lesson.checkpoint]]",
                None,
                sink,
            );
            let function = cf.req_str("function", None, sink);
            let cp_title = cf.req_str("title", None, sink);
            let points = points(&cf, sink).unwrap_or(1.0);
            let criteria = criteria(&cf, cp.span.start, points, sink);
            let Some((fname, fnode)) = function else {
                continue;
            };
            if reference::checkpoint(fname).is_none() {
                sink.at(
                    fnode.span.start,
                    None,
                    format!(
                        "the reference core has no function {fname:?} (it has: {})",
                        reference::names().join(", ")
                    ),
                );
                continue;
            }
            let dup = lessons
                .iter()
                .flat_map(|l| &l.checkpoints)
                .chain(checkpoints.iter())
                .any(|c: &Checkpoint| c.id == fname);
            if dup {
                sink.at(
                    fnode.span.start,
                    None,
                    format!("checkpoint {fname:?} is declared twice"),
                );
                continue;
            }
            checkpoints.push(Checkpoint {
                id: fname.to_string(),
                lesson: lesson_id.clone(),
                title: cp_title.map(|(s, _)| s.to_string()).unwrap_or_default(),
                points,
                criteria,
            });
        }
        lessons.push(Lesson {
            id: lesson_id,
            title: title.map(|(s, _)| s.to_string()).unwrap_or_default(),
            checkpoints,
        });
    }
    let assignment_nodes = top.tables("assignment", None, sink);
    settings.assignments = assignments(&assignment_nodes, &lessons, sink);
    (lessons, settings)
}

/// The `[[assignment]]` tables: `id`, `title`, the `lessons` or the
/// `checkpoints` it grades (one of them, not empty, each known to the
/// course and named once), and its `points` (default: the sum of its
/// checkpoints').
fn assignments(
    nodes: &[&super::tree::Node],
    lessons: &[Lesson],
    sink: &mut Sink,
) -> Vec<super::Assignment> {
    let mut out: Vec<super::Assignment> = Vec::new();
    for node in nodes {
        let f = Fields::new(
            entries(node),
            node.span.start,
            &["id", "title", "lessons", "checkpoints", "points", "scoring"],
            "[[assignment]]",
            None,
            sink,
        );
        let id = f.req_str("id", None, sink);
        let title = f.req_str("title", None, sink);
        if let Some((s, n)) = id {
            if !is_slug(s) {
                sink.at(
                    n.span.start,
                    None,
                    format!("assignment id {s:?} must match [a-z0-9-]+"),
                );
            } else if s == ALL {
                sink.at(
                    n.span.start,
                    None,
                    format!("assignment id {ALL:?} is taken: it always means the whole course"),
                );
            } else if out.iter().any(|a| a.id == s) {
                sink.at(
                    n.span.start,
                    None,
                    format!("assignment {s:?} is declared twice"),
                );
            }
        }
        let names = |key: &str, sink: &mut Sink| -> Option<Vec<(String, usize)>> {
            let node = f.get(key)?;
            let Value::Array(items) = &node.value else {
                sink.at(
                    node.span.start,
                    None,
                    format!("{key} must be a list of strings"),
                );
                return Some(Vec::new());
            };
            let mut names = Vec::new();
            for item in items {
                match &item.value {
                    Value::Str(s) => names.push((s.clone(), item.span.start)),
                    _ => sink.at(
                        item.span.start,
                        None,
                        format!("{key} must be a list of strings"),
                    ),
                }
            }
            if names.is_empty() {
                sink.at(
                    node.span.start,
                    None,
                    format!("an assignment grades something: {key} is empty"),
                );
            }
            Some(names)
        };
        let mut checkpoints: Vec<String> = Vec::new();
        let mut add = |cp: &str, at: usize, sink: &mut Sink| {
            if checkpoints.iter().any(|c| c == cp) {
                sink.at(
                    at,
                    None,
                    format!("checkpoint {cp:?} is in this assignment twice"),
                );
            } else {
                checkpoints.push(cp.to_string());
            }
        };
        match (names("lessons", sink), names("checkpoints", sink)) {
            (Some(_), Some(_)) => sink.at(
                node.span.start,
                None,
                "an assignment names its lessons or its checkpoints, not both",
            ),
            (None, None) => sink.at(
                node.span.start,
                None,
                "an assignment grades something: give its lessons = [...] or checkpoints = [...]",
            ),
            (Some(ls), None) => {
                for (l, at) in ls {
                    match lessons.iter().find(|x| x.id == l) {
                        Some(lesson) => {
                            for cp in &lesson.checkpoints {
                                add(&cp.id, at, sink);
                            }
                        }
                        None => sink.at(
                            at,
                            None,
                            format!(
                                "unknown lesson {l:?} (the course has: {})",
                                lessons
                                    .iter()
                                    .map(|x| x.id.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        ),
                    }
                }
            }
            (None, Some(cs)) => {
                for (c, at) in cs {
                    if lessons
                        .iter()
                        .flat_map(|l| &l.checkpoints)
                        .any(|x| x.id == c)
                    {
                        add(&c, at, sink);
                    } else {
                        sink.at(at, None, format!("checkpoint {c:?} is not in the course"));
                    }
                }
            }
        }
        let points = points(&f, sink);
        let scoring = scoring(&f, sink);
        // Course order, whatever order the table lists them in.
        let order: Vec<&str> = lessons
            .iter()
            .flat_map(|l| &l.checkpoints)
            .map(|c| c.id.as_str())
            .collect();
        checkpoints.sort_by_key(|c| order.iter().position(|o| o == c));
        if let (Some((id, _)), Some((title, _))) = (id, title) {
            out.push(super::Assignment {
                id: id.to_string(),
                title: title.to_string(),
                checkpoints,
                points,
                scoring,
            });
        }
    }
    out
}

/// A table's `points`: a non-negative number, when given.
fn points(f: &Fields, sink: &mut Sink) -> Option<f64> {
    let n = f.get("points")?;
    match n.value {
        Value::Float(p) if p.is_finite() && p >= 0.0 => Some(p),
        Value::Int(p) if p >= 0 => Some(p as f64),
        _ => {
            sink.at(n.span.start, None, "points must be a non-negative number");
            None
        }
    }
}

/// A table's `scoring`: one of the policies, when given.
fn scoring(f: &Fields, sink: &mut Sink) -> Option<Scoring> {
    let n = f.get("scoring")?;
    let parsed = match &n.value {
        Value::Str(s) => s.parse::<Scoring>().map_err(|e| e.to_string()),
        other => Err(format!("scoring must be a string, not {}", other.kind())),
    };
    parsed.map_err(|why| sink.at(n.span.start, None, why)).ok()
}

/// A checkpoint's `[[lesson.checkpoint.criterion]]` tables: a `title`,
/// the `tags` and/or `cases` it covers, and its `points`, which add up to
/// the checkpoint's. Whether the tags and cases exist is checked once the
/// cases are read ([`super::scoring::check_criteria`]).
fn criteria(cf: &Fields, at: usize, total: f64, sink: &mut Sink) -> Vec<Criterion> {
    let mut out: Vec<Criterion> = Vec::new();
    let nodes = cf.tables("criterion", None, sink);
    for node in &nodes {
        let f = Fields::new(
            entries(node),
            node.span.start,
            &["title", "tags", "cases", "points"],
            "[[lesson.checkpoint.criterion]]",
            None,
            sink,
        );
        let title = f.req_str("title", None, sink);
        if let Some((t, n)) = title {
            if out.iter().any(|c| c.title == t) {
                sink.at(
                    n.span.start,
                    None,
                    format!("criterion {t:?} is declared twice"),
                );
            }
        }
        let list = |key: &str, sink: &mut Sink| -> Vec<String> {
            let Some(n) = f.get(key) else {
                return Vec::new();
            };
            let items = match &n.value {
                Value::Array(items) => items
                    .iter()
                    .filter_map(|i| match &i.value {
                        Value::Str(s) => Some(s.clone()),
                        _ => None,
                    })
                    .collect::<Vec<_>>(),
                _ => Vec::new(),
            };
            let strings = matches!(&n.value, Value::Array(i) if i.len() == items.len());
            if !strings || items.is_empty() {
                sink.at(
                    n.span.start,
                    None,
                    format!("{key} must be a non-empty list of strings"),
                );
            }
            items
        };
        let tags = list("tags", sink);
        let cases = list("cases", sink);
        if f.get("tags").is_none() && f.get("cases").is_none() {
            sink.at(
                node.span.start,
                None,
                "a criterion covers something: give its tags = [...] and/or cases = [...]",
            );
        }
        if f.get("points").is_none() {
            sink.at(node.span.start, None, "missing key \"points\"");
        }
        out.push(Criterion {
            title: title.map(|(s, _)| s.to_string()).unwrap_or_default(),
            tags,
            cases,
            points: points(&f, sink).unwrap_or(0.0),
            line: sink.line(node.span.start),
        });
    }
    let sum: f64 = out.iter().map(|c| c.points).sum();
    if !out.is_empty() && (sum - total).abs() > 1e-9 * total.max(1.0) {
        sink.at(
            at,
            None,
            format!("the criteria's points add up to {sum}, the checkpoint's points are {total}"),
        );
    }
    out
}

/// `[a-z0-9-]+`: lesson and case ids.
pub(crate) fn is_slug(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}
