//! Gradescope's `results.json` checked against its published specification,
//! <https://gradescope-autograders.readthedocs.io/en/latest/specs/> ("Output
//! format", "Controlling Test Case Visibility", "Test case status", "Output
//! String Formatting"; the page's source is `docs/specs.md` of
//! github.com/gradescope/autograder_samples), and against what this project
//! promises of the file (issue 43): every `output` names its
//! `output_format`, student text in it is escaped for that format, and the
//! tests add up to the total students are shown.
//!
//! [`check`] returns every rule a file breaks, so a test can also show that
//! a broken file is caught; [`checked`] panics with them.

use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::fmt;

/// The specification's address, for failure messages.
pub const SPEC: &str = "https://gradescope-autograders.readthedocs.io/en/latest/specs/";

/// The visibility values of tests, of the submission and of stdout.
const VISIBILITY: [&str; 4] = ["hidden", "after_due_date", "after_published", "visible"];

/// The values of `output_format`, `test_output_format`, `test_name_format`
/// and `name_format`.
const FORMATS: [&str; 5] = ["text", "html", "simple_format", "md", "ansi"];

/// The top-level fields the specification names.
const TOP_FIELDS: [&str; 11] = [
    "score",
    "execution_time",
    "output",
    "output_format",
    "test_output_format",
    "test_name_format",
    "visibility",
    "stdout_visibility",
    "extra_data",
    "tests",
    "leaderboard",
];

/// The one top-level field `autograder` adds to the specification's: the
/// assignment's total, for whoever reads the file besides Gradescope (which
/// takes the total from the assignment's settings and ignores it). It must
/// still agree with the tests.
const TOP_EXTENSION: &str = "max_score";

/// The fields of one test.
const TEST_FIELDS: [&str; 11] = [
    "score",
    "max_score",
    "status",
    "name",
    "name_format",
    "number",
    "output",
    "output_format",
    "tags",
    "visibility",
    "extra_data",
];

/// Points that differ by less than this are equal: per-case shares of a
/// checkpoint's points add up with rounding (1485 shares of 12 points come
/// to 11.999999999999856).
const POINTS_EPSILON: f64 = 1e-6;

/// `raw` checked against every rule; the document, or each rule it breaks.
pub fn check(raw: &[u8]) -> Result<Value, Vec<String>> {
    let text = std::str::from_utf8(raw).map_err(|e| vec![format!("not UTF-8: {e}")])?;
    // Strict JSON: serde_json refuses NaN, Infinity, comments, trailing
    // commas, raw controls in strings and numbers out of f64's range; a key
    // given twice is refused here (readers disagree on which one wins).
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    UniqueKeys
        .deserialize(&mut de)
        .and_then(|()| de.end())
        .map_err(|e| vec![format!("not strict JSON: {e}")])?;
    let doc: Value = serde_json::from_str(text).map_err(|e| vec![format!("not JSON: {e}")])?;
    let mut problems = Problems::default();
    match doc.as_object() {
        Some(top) => check_top(top, &mut problems),
        None => problems.say("the document is not an object"),
    }
    if problems.0.is_empty() {
        Ok(doc)
    } else {
        Err(problems.0)
    }
}

/// [`check`], panicking with every broken rule and the file.
pub fn checked(raw: &[u8], what: &str) -> Value {
    check(raw).unwrap_or_else(|problems| {
        panic!(
            "{what}: results.json breaks {SPEC} or this project's rules:\n  {}\n{}",
            problems.join("\n  "),
            String::from_utf8_lossy(raw)
        )
    })
}

/// The tests students never see (`"visibility": "hidden"`): with any,
/// Gradescope shows them no total ("If test cases are hidden, students
/// will not be able to see their total score.").
pub fn hidden_tests(doc: &Value) -> Vec<&Value> {
    tests(doc)
        .iter()
        .filter(|t| t["visibility"] == "hidden")
        .collect()
}

/// The document's tests (none when it has no `tests`).
pub fn tests(doc: &Value) -> &[Value] {
    doc["tests"].as_array().map_or(&[], Vec::as_slice)
}

/// Every `output` of the document, the top level's first, each with its
/// format.
pub fn outputs(doc: &Value) -> Vec<(&str, &str)> {
    std::iter::once(doc)
        .chain(tests(doc))
        .filter_map(|o| Some((o["output"].as_str()?, o["output_format"].as_str()?)))
        .collect()
}

#[derive(Default)]
struct Problems(Vec<String>);

impl Problems {
    fn say(&mut self, problem: impl Into<String>) {
        self.0.push(problem.into());
    }
}

fn check_top(top: &Map<String, Value>, p: &mut Problems) {
    for key in top.keys() {
        if !TOP_FIELDS.contains(&key.as_str()) && key != TOP_EXTENSION {
            p.say(format!("unknown top-level field {key:?}"));
        }
    }
    let tests = match top.get("tests") {
        None => &[][..],
        Some(Value::Array(tests)) => tests.as_slice(),
        Some(other) => {
            p.say(format!("tests is not a list: {other}"));
            &[][..]
        }
    };
    // "score": "optional, but required if not on each test case below";
    // "tests": "Optional, but required if no top-level score".
    let score = points(top, "score", "the top level", p);
    if score.is_none() && (tests.is_empty() || tests.iter().any(|t| t.get("score").is_none())) {
        p.say("no top-level score, and not every test has one");
    }
    let max = points(top, TOP_EXTENSION, "the top level", p);
    if let (Some(score), Some(max)) = (score, max) {
        if score > max + POINTS_EPSILON {
            p.say(format!(
                "the top-level score {score} is above max_score {max}"
            ));
        }
    }
    if let Some(t) = top.get("execution_time") {
        if !t.as_f64().is_some_and(|t| t >= 0.0) {
            p.say(format!("execution_time is not a number of seconds: {t}"));
        }
    }
    for key in ["visibility", "stdout_visibility"] {
        one_of(top, key, &VISIBILITY, "the top level", p);
    }
    for key in ["test_output_format", "test_name_format"] {
        one_of(top, key, &FORMATS, "the top level", p);
    }
    object(top, "extra_data", "the top level", p);
    output(top, "the top level", p);
    for (i, t) in tests.iter().enumerate() {
        match t.as_object() {
            Some(t) => check_test(t, &format!("test {}", i + 1), p),
            None => p.say(format!("test {} is not an object", i + 1)),
        }
    }
    if let Some(board) = top.get("leaderboard") {
        check_leaderboard(board, p);
    }
    check_totals(score, max, tests, p);
}

fn check_test(t: &Map<String, Value>, what: &str, p: &mut Problems) {
    let what = match t.get("name").and_then(Value::as_str) {
        Some(name) => format!("{what} ({name:?})"),
        None => what.to_string(),
    };
    for key in t.keys() {
        if !TEST_FIELDS.contains(&key.as_str()) {
            p.say(format!("{what}: unknown field {key:?}"));
        }
    }
    let score = points(t, "score", &what, p);
    let max = points(t, "max_score", &what, p);
    if let (Some(score), Some(max)) = (score, max) {
        if score > max + POINTS_EPSILON {
            p.say(format!("{what}: score {score} is above max_score {max}"));
        }
    }
    one_of(t, "status", &["passed", "failed"], &what, p);
    // "By default, test cases where the student was awarded the max_score
    // points are marked as passing": a status that says otherwise shows a
    // full score as failed, or a partial one as passed, unless its output
    // says why (a passed case whose points the scoring policy holds back).
    if let (Some(status), Some(score), Some(max)) =
        (t.get("status").and_then(Value::as_str), score, max)
    {
        let full = score >= max - POINTS_EPSILON;
        let withheld = status == "passed"
            && t.get("output")
                .and_then(Value::as_str)
                .is_some_and(|o| o.starts_with(autograder::report::gradescope::PASSED_WITHHELD));
        if (status == "passed") != full && !withheld {
            p.say(format!(
                "{what}: status {status} with {score} of {max} points"
            ));
        }
    }
    for key in ["name", "number"] {
        if t.get(key).is_some_and(|v| !v.is_string()) {
            p.say(format!("{what}: {key} is not a string"));
        }
    }
    one_of(t, "name_format", &FORMATS, &what, p);
    if let Some(name) = t.get("name").and_then(Value::as_str) {
        let format = t
            .get("name_format")
            .and_then(Value::as_str)
            .unwrap_or("text");
        shown_as(format, name, &format!("{what}: name"), p);
    }
    match t.get("tags") {
        None => {}
        Some(Value::Array(tags)) if tags.iter().all(Value::is_string) => {}
        Some(other) => p.say(format!("{what}: tags are not a list of strings: {other}")),
    }
    one_of(t, "visibility", &VISIBILITY, &what, p);
    object(t, "extra_data", &what, p);
    output(t, &what, p);
}

/// An `output` names its `output_format` (this project's rule: left out,
/// the top level's is read as `simple_format`, HTML) and shows student text
/// escaped for it.
fn output(o: &Map<String, Value>, what: &str, p: &mut Problems) {
    one_of(o, "output_format", &FORMATS, what, p);
    let Some(out) = o.get("output") else {
        return;
    };
    let Some(text) = out.as_str() else {
        p.say(format!("{what}: output is not a string: {out}"));
        return;
    };
    match o.get("output_format").and_then(Value::as_str) {
        Some(format) => shown_as(format, text, &format!("{what}: output"), p),
        None => p.say(format!("{what}: an output without its output_format")),
    }
}

/// What `text` may hold shown as `format`. `text` is shown as written ("No
/// HTML, Markdown, or ANSI will be rendered"), so markup needs no escape
/// there, but controls would reach the page: every character that
/// `autograder::text::hidden` keeps from a terminal must have been escaped
/// (`\x1b`), line feeds aside (carriage returns too: the specification asks
/// for Unix line endings). The formats that render markup have no rule
/// here because `autograder` writes none: a file in one fails until its
/// escaping is checked.
fn shown_as(format: &str, text: &str, what: &str, p: &mut Problems) {
    if format != "text" {
        p.say(format!(
            "{what}: format {format}: no escaping rule is checked for it (autograder writes text)"
        ));
        return;
    }
    if let Some((at, c)) = text
        .char_indices()
        .find(|&(_, c)| c != '\n' && autograder::text::hidden(c))
    {
        let start = text[..at]
            .char_indices()
            .rev()
            .nth(30)
            .map_or(0, |(i, _)| i);
        p.say(format!(
            "{what}: an unescaped {c:?} after {:?}",
            &text[start..at]
        ));
    }
}

/// What students see add up: the top-level score "Overrides total of tests
/// if specified", so tests that add up to something else show two totals.
fn check_totals(score: Option<f64>, max: Option<f64>, tests: &[Value], p: &mut Problems) {
    if tests.is_empty() {
        return;
    }
    for (total, field) in [(score, "score"), (max, "max_score")] {
        let Some(total) = total else { continue };
        let sum: f64 = tests.iter().filter_map(|t| t[field].as_f64()).sum();
        if (sum - total).abs() > POINTS_EPSILON {
            p.say(format!(
                "the tests' {field}s add up to {sum}, the top level says {total}"
            ));
        }
    }
}

fn check_leaderboard(board: &Value, p: &mut Problems) {
    let Some(rows) = board.as_array() else {
        p.say(format!("leaderboard is not a list: {board}"));
        return;
    };
    for row in rows {
        let ok = row["name"].is_string()
            && (row["value"].is_number() || row["value"].is_string())
            && (row.get("order").is_none()
                || ["asc", "desc"].contains(&row["order"].as_str().unwrap_or("")));
        if !ok {
            p.say(format!(
                "a leaderboard row is not name, value, order: {row}"
            ));
        }
    }
}

/// A number of points (`score`, `max_score`) when present: finite and not
/// negative.
fn points(o: &Map<String, Value>, key: &str, what: &str, p: &mut Problems) -> Option<f64> {
    let v = o.get(key)?;
    match v.as_f64() {
        Some(x) if x.is_finite() && x >= 0.0 => Some(x),
        _ => {
            p.say(format!("{what}: {key} is not a number of points: {v}"));
            None
        }
    }
}

fn one_of(o: &Map<String, Value>, key: &str, allowed: &[&str], what: &str, p: &mut Problems) {
    if let Some(v) = o.get(key) {
        if !v.as_str().is_some_and(|s| allowed.contains(&s)) {
            p.say(format!("{what}: {key} {v} is not one of {allowed:?}"));
        }
    }
}

fn object(o: &Map<String, Value>, key: &str, what: &str, p: &mut Problems) {
    if o.get(key).is_some_and(|v| !v.is_object()) {
        p.say(format!("{what}: {key} is not an object"));
    }
}

/// Reads a JSON document refusing any object that names a key twice.
struct UniqueKeys;

impl<'de> DeserializeSeed<'de> for UniqueKeys {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for UniqueKeys {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
        while items.next_element_seed(UniqueKeys)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(A::Error::custom(format!("the key {key:?} twice")));
            }
            map.next_value_seed(UniqueKeys)?;
        }
        Ok(())
    }
}
