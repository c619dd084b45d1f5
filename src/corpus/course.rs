//! `course.toml`: the lessons and their checkpoints, in course order.

use super::fields::{entries, Fields};
use super::problems::Sink;
use super::tree::Value;
use super::{Checkpoint, Lesson};
use crate::reference;

/// What `course.toml` says beyond its lessons.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    /// `show_hidden_ids = true`: students' views name a hidden case by its
    /// id (`objects-depth-9`) instead of `hidden case 7 of 61`. Off by
    /// default: an id can tell the input.
    pub show_hidden_ids: bool,
}

/// Reads the course file; problems go to `sink`. Returns what could be read.
pub(crate) fn read(sink: &mut Sink) -> (Vec<Lesson>, Settings) {
    let mut settings = Settings::default();
    let Some(doc) = sink.parse() else {
        return (Vec::new(), settings);
    };
    let top = Fields::new(
        &doc,
        0,
        &["title", "lesson", "show_hidden_ids"],
        "course.toml",
        None,
        sink,
    );
    top.req_str("title", None, sink);
    if let Some(n) = top.get("show_hidden_ids") {
        match n.value {
            Value::Bool(b) => settings.show_hidden_ids = b,
            _ => sink.at(n.span.start, None, "show_hidden_ids must be true or false"),
        }
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
                &["function", "title", "points"],
                "[[lesson.checkpoint]]",
                None,
                sink,
            );
            let function = cf.req_str("function", None, sink);
            let cp_title = cf.req_str("title", None, sink);
            let points = match cf.get("points") {
                None => 1.0,
                Some(n) => match n.value {
                    Value::Float(p) if p.is_finite() && p >= 0.0 => p,
                    Value::Int(p) if p >= 0 => p as f64,
                    _ => {
                        sink.at(n.span.start, None, "points must be a non-negative number");
                        1.0
                    }
                },
            };
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
            });
        }
        lessons.push(Lesson {
            id: lesson_id,
            title: title.map(|(s, _)| s.to_string()).unwrap_or_default(),
            checkpoints,
        });
    }
    (lessons, settings)
}

/// `[a-z0-9-]+`: lesson and case ids.
pub(crate) fn is_slug(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}
