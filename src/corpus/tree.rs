//! A TOML document as a tree with the byte span of every key and value, read
//! with serde and `toml::Spanned`, so the loader can check each field itself,
//! collect every problem, and name the line of each.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;
use std::ops::Range;
use toml::Spanned;

/// A value and where it is written.
#[derive(Clone, Debug)]
pub struct Node {
    pub span: Range<usize>,
    pub value: Value,
}

/// A key and where it is written.
#[derive(Clone, Debug)]
pub struct Key {
    pub span: Range<usize>,
    pub name: String,
}

/// A TOML value whose parts keep their spans (so errors name the line).
#[derive(Clone, Debug)]
pub enum Value {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    Array(Vec<Node>),
    /// Entries in document order.
    Table(Vec<(Key, Node)>),
}

impl Value {
    /// The TOML type name, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Str(_) => "a string",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Bool(_) => "a boolean",
            Value::Array(_) => "an array",
            Value::Table(_) => "a table",
        }
    }
}

/// A TOML syntax error (or a value the tree cannot hold), with its span.
#[derive(Clone, Debug)]
pub struct SyntaxError {
    pub message: String,
    pub span: Option<Range<usize>>,
}

/// Parses a whole document.
pub fn parse(text: &str) -> Result<Vec<(Key, Node)>, SyntaxError> {
    let root: Node = toml::from_str(text).map_err(|e: toml::de::Error| SyntaxError {
        message: if e.message().contains(DATETIME_KEY) {
            // A datetime's inner key has no span; never valid in a case file.
            "dates and times are not allowed here".to_string()
        } else {
            e.message().trim().to_string()
        },
        span: e.span(),
    })?;
    match root.value {
        Value::Table(entries) => Ok(entries),
        _ => Ok(Vec::new()),
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = Spanned::<Value>::deserialize(d)?;
        Ok(Node {
            span: s.span(),
            value: s.into_inner(),
        })
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = Spanned::<String>::deserialize(d)?;
        Ok(Key {
            span: s.span(),
            name: s.into_inner(),
        })
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

/// The key toml uses to pass a datetime through serde.
const DATETIME_KEY: &str = "$__toml_private_datetime";

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a TOML value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        i64::try_from(v)
            .map(Value::Int)
            .map_err(|_| E::custom("integer out of range"))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(n) = seq.next_element::<Node>()? {
            items.push(n);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(k) = map.next_key::<Key>()? {
            let v = map.next_value::<Node>()?;
            entries.push((k, v));
        }
        Ok(Value::Table(entries))
    }
}

/// Where each line of a text starts, so the line of any byte offset is a
/// binary search (a file names the line of each of its cases and problems).
#[derive(Clone, Debug)]
pub struct Lines {
    /// Byte offset of each line's start: 0, then one past each `\n`.
    starts: Vec<usize>,
}

impl Lines {
    pub fn new(text: &str) -> Lines {
        let newlines = text.bytes().enumerate().filter(|&(_, b)| b == b'\n');
        Lines {
            starts: std::iter::once(0)
                .chain(newlines.map(|(i, _)| i + 1))
                .collect(),
        }
    }

    /// 1-based line of a byte offset: one more than the `\n`s before it (an
    /// offset past the end counts them all).
    pub fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&start| start <= offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_of_keys_values_and_case_tables() {
        let text = "checkpoint = \"x\"\n[let]\na = \"1\"\n\n[[case]]\nid = \"one\"\ntags = [\"valid\"]\n\n# note\n[[case]]\nid = \"two\"\n";
        let doc = parse(text).unwrap();
        let line_of = |at| Lines::new(text).line_of(at);
        let names: Vec<_> = doc.iter().map(|(k, _)| k.name.as_str()).collect();
        assert_eq!(names, ["checkpoint", "let", "case"]);
        assert_eq!(line_of(doc[0].0.span.start), 1);
        let Value::Array(cases) = &doc[2].1.value else {
            panic!()
        };
        assert_eq!(cases.len(), 2);
        let Value::Table(first) = &cases[0].value else {
            panic!()
        };
        assert_eq!(line_of(first[0].0.span.start), 6);
        assert_eq!(line_of(first[1].1.span.start), 7);
        let Value::Table(second) = &cases[1].value else {
            panic!()
        };
        assert_eq!(second.len(), 1);
        // The span of a [[case]] table, for cutting cases out of the text.
        eprintln!("case spans: {:?} {:?}", cases[0].span, cases[1].span);
        eprintln!("{:?}", &text[cases[0].span.clone()]);
        eprintln!("{:?}", &text[cases[1].span.clone()]);
    }

    #[test]
    fn syntax_errors_have_spans() {
        let e = parse("a = 1\nb = = 2\n").unwrap_err();
        let line_of = |text, at| Lines::new(text).line_of(at);
        assert_eq!(line_of("a = 1\nb = = 2\n", e.span.unwrap().start), 2);
        let e = parse("a = 1\na = 2\n").unwrap_err();
        assert!(e.span.is_some());
        let text = "a = 1\n\nwhen = 1979-05-27\n";
        let e = parse(text).unwrap_err();
        assert_eq!(e.message, "dates and times are not allowed here");
        assert_eq!(line_of(text, e.span.unwrap().start), 3);
    }

    #[test]
    fn line_index_agrees_with_counting_newlines() {
        // The 1-based line of an offset, counted from the start of the text.
        let counted = |text: &str, offset: usize| {
            let end = offset.min(text.len());
            text.as_bytes()[..end]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1
        };
        let texts = [
            "",
            "\n",
            "\n\n\n",
            "a",
            "a = 1",
            "a = 1\nb = 2",
            "a = 1\nb = 2\n",
            "a = 1\r\nb = 2\r\n\r\nc = 3",
            "\r\r\n\r",
            "é = \"ü\"\n\n# ✓\r\nx",
        ];
        for text in texts {
            let lines = Lines::new(text);
            for offset in 0..text.len() + 3 {
                assert_eq!(
                    lines.line_of(offset),
                    counted(text, offset),
                    "{text:?} at {offset}"
                );
            }
            assert_eq!(lines.line_of(usize::MAX), counted(text, usize::MAX));
        }
    }
}
