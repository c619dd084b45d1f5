//! Typed access to the fields of a TOML table, reporting unknown keys,
//! missing keys and wrong types as problems with their line.

use super::problems::Sink;
use super::tree::{Key, Node, Value};

/// The known fields of one table.
pub(crate) struct Fields<'t> {
    entries: Vec<(&'t Key, &'t Node)>,
    /// Where the table starts, for "missing key" problems.
    at: usize,
}

impl<'t> Fields<'t> {
    /// Splits `entries` into known fields; every other key is a problem.
    pub fn new(
        entries: &'t [(Key, Node)],
        at: usize,
        allowed: &[&str],
        what: &str,
        case: Option<&str>,
        sink: &mut Sink,
    ) -> Fields<'t> {
        let mut known = Vec::new();
        for (k, v) in entries {
            if allowed.contains(&k.name.as_str()) {
                known.push((k, v));
            } else {
                sink.at(
                    k.span.start,
                    case,
                    format!(
                        "unknown key {:?} in {what} (allowed: {})",
                        k.name,
                        allowed.join(", ")
                    ),
                );
            }
        }
        Fields { entries: known, at }
    }

    /// The node of key `name`, if the table has it.
    pub fn get(&self, name: &str) -> Option<&'t Node> {
        self.entries
            .iter()
            .find(|(k, _)| k.name == name)
            .map(|(_, v)| *v)
    }

    /// A string field; a problem when it is present with another type.
    pub fn opt_str(
        &self,
        name: &str,
        case: Option<&str>,
        sink: &mut Sink,
    ) -> Option<(&'t str, &'t Node)> {
        let node = self.get(name)?;
        match &node.value {
            Value::Str(s) => Some((s.as_str(), node)),
            other => {
                sink.at(
                    node.span.start,
                    case,
                    format!("{name} must be a string, not {}", other.kind()),
                );
                None
            }
        }
    }

    /// A required string field.
    pub fn req_str(
        &self,
        name: &str,
        case: Option<&str>,
        sink: &mut Sink,
    ) -> Option<(&'t str, &'t Node)> {
        if self.get(name).is_none() {
            sink.at(self.at, case, format!("missing key {name:?}"));
            return None;
        }
        self.opt_str(name, case, sink)
    }

    /// An array of tables (`[[name]]`), or nothing.
    pub fn tables(&self, name: &str, case: Option<&str>, sink: &mut Sink) -> Vec<&'t Node> {
        let Some(node) = self.get(name) else {
            return Vec::new();
        };
        match &node.value {
            Value::Array(items) => items
                .iter()
                .filter(|n| {
                    let ok = matches!(n.value, Value::Table(_));
                    if !ok {
                        sink.at(
                            n.span.start,
                            case,
                            format!("each {name} must be a table ([[{name}]])"),
                        );
                    }
                    ok
                })
                .collect(),
            other => {
                sink.at(
                    node.span.start,
                    case,
                    format!(
                        "{name} must be an array of tables ([[{name}]]), not {}",
                        other.kind()
                    ),
                );
                Vec::new()
            }
        }
    }
}

/// The entries of a table node (empty for anything else).
pub(crate) fn entries(node: &Node) -> &[(Key, Node)] {
    match &node.value {
        Value::Table(e) => e,
        _ => &[],
    }
}
