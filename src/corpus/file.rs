//! One case file, `<lesson>/<name>.toml`: its checkpoint, `[let]` names and
//! `[[case]]` tables, checked field by field.

use super::course::is_slug;
use super::fields::{entries, Fields};
use super::problems::Sink;
use super::tree::{Node, Value};
use super::{CallCheck, Case, Lesson, Visibility};
use crate::reference::TAGS;
use crate::value::reader::{self, Lets};
use crate::value::{Exception, Outcome};

/// The longest case id accepted.
const MAX_ID_LEN: usize = 80;
/// The largest weight accepted.
const MAX_WEIGHT: i64 = 1000;

/// Reads one case file found in the folder of `folder_lesson`.
pub(crate) fn read(
    sink: &mut Sink,
    folder_lesson: &str,
    lessons: &[Lesson],
    check: CallCheck,
) -> Vec<Case> {
    let Some(doc) = sink.parse() else {
        return Vec::new();
    };
    let top = Fields::new(
        &doc,
        0,
        &["checkpoint", "let", "case"],
        "a case file",
        None,
        sink,
    );
    let Some((checkpoint, cp_node)) = top.req_str("checkpoint", None, sink) else {
        return Vec::new();
    };
    let Some(cp) = lessons
        .iter()
        .flat_map(|l| &l.checkpoints)
        .find(|c| c.id == checkpoint)
    else {
        let known: Vec<&str> = lessons
            .iter()
            .flat_map(|l| &l.checkpoints)
            .map(|c| c.id.as_str())
            .collect();
        sink.at(
            cp_node.span.start,
            None,
            format!(
                "unknown checkpoint {checkpoint:?} (course.toml declares: {})",
                known.join(", ")
            ),
        );
        return Vec::new();
    };
    if cp.lesson != folder_lesson {
        sink.at(
            cp_node.span.start,
            None,
            format!(
                "checkpoint {checkpoint:?} belongs to lesson {:?}: move this file to {}/",
                cp.lesson, cp.lesson
            ),
        );
        return Vec::new();
    }

    let lets = read_lets(top.get("let"), sink);
    let mut cases = Vec::new();
    for node in top.tables("case", None, sink) {
        if let Some(case) = read_case(node, checkpoint, &cp.lesson, &lets, check, sink) {
            cases.push(case);
        }
    }
    if top.get("case").is_none() {
        sink.at(0, None, "the file has no [[case]] tables");
    }
    cases
}

fn read_lets(node: Option<&Node>, sink: &mut Sink) -> Lets {
    let mut lets = Lets::new();
    let Some(node) = node else {
        return lets;
    };
    let Value::Table(items) = &node.value else {
        sink.at(node.span.start, None, "let must be a table ([let])");
        return lets;
    };
    for (k, v) in items {
        let Value::Str(text) = &v.value else {
            sink.at(
                v.span.start,
                None,
                format!(
                    "let {}: must be a string holding a Python expression, not {}",
                    k.name,
                    v.value.kind()
                ),
            );
            continue;
        };
        if let Err(e) = lets.define(&k.name, text) {
            sink.at(v.span.start, None, format!("let {}: {e}", k.name));
        }
    }
    lets
}

fn read_case(
    node: &Node,
    checkpoint: &str,
    lesson: &str,
    lets: &Lets,
    check: CallCheck,
    sink: &mut Sink,
) -> Option<Case> {
    let at = node.span.start;
    let line = sink.line(at);
    // The case id first, so every other problem can name the case.
    let raw_id = entries(node)
        .iter()
        .find(|(k, _)| k.name == "id")
        .and_then(|(_, n)| match &n.value {
            Value::Str(s) => Some(s.clone()),
            _ => None,
        });
    let case_label = format!("{checkpoint}/{}", raw_id.as_deref().unwrap_or("?"));
    let label = Some(case_label.as_str());
    let f = Fields::new(
        entries(node),
        at,
        &[
            "id",
            "call",
            "tags",
            "expect",
            "visibility",
            "weight",
            "note",
        ],
        "[[case]]",
        label,
        sink,
    );
    let n_before = sink.out.len();

    let name = match f.req_str("id", label, sink) {
        Some((s, n)) if !is_slug(s) || s.len() > MAX_ID_LEN => {
            sink.at(
                n.span.start,
                label,
                format!("case id {s:?} must match [a-z0-9-]+ (at most {MAX_ID_LEN} characters)"),
            );
            None
        }
        Some((s, _)) => Some(s.to_string()),
        None => None,
    };

    let mut call_parts = None;
    if let Some((text, n)) = f.req_str("call", label, sink) {
        match reader::parse_call(text, lets) {
            Err(e) => sink.at(n.span.start, label, format!("call: {e}")),
            Ok(c) if c.function != checkpoint => sink.at(
                n.span.start,
                label,
                format!(
                    "call: this file is for {checkpoint}, but the call is to {}",
                    c.function
                ),
            ),
            Ok(c) => match check(&c.function, &c.args, &c.kwargs) {
                Err(why) => sink.at(n.span.start, label, format!("call: {why}")),
                Ok(()) => call_parts = Some((text.to_string(), c.args, c.kwargs, c.lets)),
            },
        }
    }

    let tags = read_tags(f.get("tags"), at, label, sink);

    let expect = f.opt_str("expect", label, sink).and_then(|(text, n)| {
        if text.trim() == "ValueError" {
            return Some(Outcome::Raises(Exception::ValueError));
        }
        match reader::eval_expr(text, lets) {
            Ok(v) => Some(Outcome::Returns(v)),
            Err(e) => {
                sink.at(
                    n.span.start,
                    label,
                    format!("expect: {e} (write the bare name ValueError, or a Python expression for the returned value)"),
                );
                None
            }
        }
    });

    let visibility = match f.opt_str("visibility", label, sink) {
        None | Some(("visible", _)) => Visibility::Visible,
        Some(("hidden", _)) => Visibility::Hidden,
        Some((other, n)) => {
            sink.at(
                n.span.start,
                label,
                format!("visibility must be \"visible\" or \"hidden\", not {other:?}"),
            );
            Visibility::Visible
        }
    };

    let weight = match f.get("weight") {
        None => 1,
        Some(n) => match n.value {
            Value::Int(w) if (1..=MAX_WEIGHT).contains(&w) => w as u32,
            _ => {
                sink.at(
                    n.span.start,
                    label,
                    format!("weight must be a positive integer (at most {MAX_WEIGHT})"),
                );
                1
            }
        },
    };
    let note = f.opt_str("note", label, sink).map(|(s, _)| s.to_string());

    if sink.out.len() > n_before {
        return None;
    }
    let (name, (call, args, kwargs, lets)) = (name?, call_parts?);
    Some(Case {
        id: format!("{checkpoint}/{name}"),
        name,
        lesson: lesson.to_string(),
        checkpoint: checkpoint.to_string(),
        call,
        args,
        kwargs,
        lets,
        tags: tags?,
        visibility,
        weight,
        expect,
        note,
        file: sink.file.clone(),
        line,
    })
}

fn read_tags(
    node: Option<&Node>,
    at: usize,
    case: Option<&str>,
    sink: &mut Sink,
) -> Option<Vec<String>> {
    let Some(node) = node else {
        sink.at(at, case, "missing key \"tags\"");
        return None;
    };
    let Value::Array(items) = &node.value else {
        sink.at(node.span.start, case, "tags must be an array of strings");
        return None;
    };
    if items.is_empty() {
        sink.at(node.span.start, case, "tags must name at least one tag");
        return None;
    }
    let mut tags: Vec<String> = Vec::new();
    let mut ok = true;
    for item in items {
        match &item.value {
            Value::Str(t) if TAGS.contains(&t.as_str()) => {
                if tags.contains(t) {
                    sink.at(item.span.start, case, format!("tag {t:?} is listed twice"));
                    ok = false;
                }
                tags.push(t.clone());
            }
            Value::Str(t) => {
                sink.at(
                    item.span.start,
                    case,
                    format!("unknown tag {t:?} (the vocabulary: {})", TAGS.join(", ")),
                );
                ok = false;
            }
            other => {
                sink.at(
                    item.span.start,
                    case,
                    format!("each tag must be a string, not {}", other.kind()),
                );
                ok = false;
            }
        }
    }
    ok.then_some(tags)
}
