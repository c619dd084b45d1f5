//! What a failing case shows: the call, expected and got as Python, and a
//! unified diff of their pretty reprs.

use super::verdict::Verdict;
use super::{Failure, MatcherInfo};
use crate::corpus::Case;
use crate::text::{cut, escaped};
use crate::value::repr::{pretty_styled, repr, show_style};
use crate::value::{strict_eq, Outcome, PyValue};
use similar::TextDiff;

/// How many characters of the call a failure quotes.
pub const CALL_CHARS: usize = 300;
/// How many characters of the expected or got repr a failure quotes.
pub const VALUE_CHARS: usize = 1000;
/// Pretty reprs are diffed on at most this many lines each.
const DIFF_INPUT_LINES: usize = 400;
/// A diff keeps at most this many lines.
const DIFF_LINES: usize = 120;
/// Each diff line is cut to this many characters.
pub const DIFF_LINE_CHARS: usize = 300;
/// A whole diff is cut to this many characters.
pub const DIFF_CHARS: usize = 6000;
/// A reason and its brief are cut to this many characters (the values and
/// messages they quote are cut shorter already).
pub const REASON_CHARS: usize = 600;

/// The expected outcome as one line: `raise ValueError` or the value's repr.
pub fn expected_text(expected: &Outcome) -> String {
    match expected {
        Outcome::Raises(e) => format!("raise {}", e.name()),
        Outcome::Returns(v) => repr(v),
    }
}

/// The failure details of a failed case (`verdict.passed` is false).
pub fn failure(case: &Case, expected: &Outcome, verdict: &Verdict) -> Failure {
    let diff = match (expected, &verdict.got_value) {
        (Outcome::Returns(want), Some(got)) => {
            // Places a matcher accepted show the value got there: the diff
            // marks only what is wrong.
            let shown = crate::value::matcher::resolve(want, got);
            // Both sides print ints as the returned value's failure does
            // (`repr::show`), and only the lines the diff reads are written:
            // the grader's work stays bounded whatever was returned.
            let (style, _) = show_style(got);
            let (a, b) = (
                pretty_styled(&shown, style, DIFF_INPUT_LINES),
                pretty_styled(got, style, DIFF_INPUT_LINES),
            );
            // Equal values (an aliased result, a changed argument) have no diff.
            (a != b).then(|| diff(&a, &b))
        }
        _ => None,
    };
    let call = call_text(case);
    // Every piece of text a report shows of a failure is cut here, so no
    // report of any format grows with what one submission returned, and
    // made showable here (a returned object's class name, an exception's
    // message are the student's bytes): no report of any format, JSON
    // included, carries a control character from a student.
    let line = |text: &str, max: usize| escaped(&cut(text, max));
    Failure {
        reason: line(verdict.reason.as_deref().unwrap_or_default(), REASON_CHARS),
        brief: line(verdict.brief.as_deref().unwrap_or_default(), REASON_CHARS),
        call: Some(escaped(&call.call)),
        bindings: call.bindings.iter().map(|b| escaped(b)).collect(),
        source: Some(case.location()),
        expected: Some(line(&expected_text(expected), VALUE_CHARS)),
        got: verdict.got.as_deref().map(|g| line(g, VALUE_CHARS)),
        diff: diff.map(|d| crate::text::lines_escaped(&d)),
        matchers: match expected {
            Outcome::Returns(want) => crate::value::matcher::matchers_in(want)
                .into_iter()
                .map(|(at, m)| MatcherInfo {
                    at,
                    matcher: m.call(),
                    text: m.text(),
                })
                .collect(),
            Outcome::Raises(_) => Vec::new(),
        },
        counterexample: None,
    }
}

/// A call as a report shows it, so that anyone can run it again.
#[derive(Clone, Debug, PartialEq)]
pub struct CallText {
    /// The call as Python.
    pub call: String,
    /// The `[let]` bindings `call` names (`name = source`), in definition
    /// order; empty when the call spells every value out.
    pub bindings: Vec<String>,
}

/// The call as Python: with every argument's value spelled out when that
/// fits in [`CALL_CHARS`] and reads back as the same values (a case may
/// name `[let]` values the reader never sees; `nan` is a repr, not Python);
/// else the call as the case file writes it (`'x' * 5000` stays
/// short), with the `[let]` bindings it names, each cut to [`VALUE_CHARS`].
/// A written call longer than [`CALL_CHARS`] is cut with a note pointing at
/// the case's file and line.
pub fn call_text(case: &Case) -> CallText {
    let spelled = spelled(&case.checkpoint, &case.args, &case.kwargs);
    if spelled.chars().count() <= CALL_CHARS && rereads(&spelled, &case.args, &case.kwargs) {
        return CallText {
            call: spelled,
            bindings: Vec::new(),
        };
    }
    let written = case.call.trim();
    let call = crate::text::cut_noting(
        written,
        CALL_CHARS,
        &format!("the whole call is at {}", case.location()),
    );
    CallText {
        call,
        bindings: case
            .lets
            .iter()
            .map(|(name, source)| cut(&format!("{name} = {}", source.trim()), VALUE_CHARS))
            .collect(),
    }
}

/// `function(arg, ..., name=value)` with every value spelled out as its repr.
pub fn spelled(function: &str, args: &[PyValue], kwargs: &[(String, PyValue)]) -> String {
    let mut parts: Vec<String> = args.iter().map(repr).collect();
    parts.extend(kwargs.iter().map(|(k, v)| format!("{k}={}", repr(v))));
    format!("{function}({})", parts.join(", "))
}

/// Whether Python (the call reader, which agrees with it) reads `spelled`
/// back as these arguments (a repr such as `nan` is not Python).
pub fn rereads(spelled: &str, args: &[PyValue], kwargs: &[(String, PyValue)]) -> bool {
    let Ok(call) = crate::value::reader::parse_call(spelled, &Default::default()) else {
        return false;
    };
    let same = |a: &[PyValue], b: &[PyValue]| {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| strict_eq(x, y))
    };
    same(&call.args, args)
        && call.kwargs.len() == kwargs.len()
        && call
            .kwargs
            .iter()
            .zip(kwargs)
            .all(|((ka, a), (kb, b))| ka == kb && strict_eq(a, b))
}

/// A unified diff (`--- expected` / `+++ got`) of two multi-line texts,
/// capped so a huge value cannot flood a report: at most [`DIFF_LINES`]
/// lines of at most [`DIFF_LINE_CHARS`], [`DIFF_CHARS`] in all.
pub fn diff(expected: &str, got: &str) -> String {
    let a = first_lines(expected, DIFF_INPUT_LINES);
    let b = first_lines(got, DIFF_INPUT_LINES);
    let text = TextDiff::from_lines(&a, &b)
        .unified_diff()
        .context_radius(3)
        .header("expected", "got")
        .to_string();
    let all: Vec<&str> = text.lines().collect();
    let mut lines: Vec<String> = all
        .iter()
        .take(DIFF_LINES)
        .map(|l| cut(l, DIFF_LINE_CHARS))
        .collect();
    if all.len() > DIFF_LINES {
        lines.push(format!("… ({} more lines)", all.len() - DIFF_LINES));
    }
    let mut out = cut(&lines.join("\n"), DIFF_CHARS);
    out.push('\n');
    out
}

/// The first `n` lines of `text`, each ending with a newline (so the diff
/// never reports "no newline at end of file").
fn first_lines(text: &str, n: usize) -> String {
    let mut out = String::new();
    for line in text.lines().take(n) {
        out.push_str(line);
        out.push('\n');
    }
    if text.lines().nth(n).is_some() {
        out.push_str("…\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(call: &str, args: Vec<crate::value::PyValue>) -> Case {
        Case {
            id: "parse_contract_json/c".into(),
            name: "c".into(),
            lesson: "json-contract".into(),
            checkpoint: "parse_contract_json".into(),
            call: call.into(),
            args,
            kwargs: vec![],
            lets: vec![],
            tags: vec!["valid".into()],
            visibility: crate::corpus::Visibility::Visible,
            weight: 1,
            expect: None,
            note: None,
            file: "x.toml".into(),
            line: 1,
        }
    }

    #[test]
    fn calls_spell_out_let_names_when_short() {
        use crate::value::PyValue;
        let c = case("parse_contract_json(doc)", vec![PyValue::str("{}")]);
        assert_eq!(call_text(&c).call, "parse_contract_json('{}')");
        assert!(call_text(&c).bindings.is_empty());
        let c = case(
            "parse_contract_json('x' * 5000)",
            vec![PyValue::str(&"x".repeat(5000))],
        );
        assert_eq!(call_text(&c).call, "parse_contract_json('x' * 5000)");
    }

    #[test]
    fn long_calls_written_with_lets_show_the_lets() {
        use crate::value::PyValue;
        let mut c = case(
            "parse_contract_json(doc)",
            vec![PyValue::str(&"y".repeat(400))],
        );
        c.lets = vec![
            ("half".into(), "'y' * 200".into()),
            ("doc".into(), "half + half".into()),
        ];
        let t = call_text(&c);
        assert_eq!(t.call, "parse_contract_json(doc)");
        assert_eq!(t.bindings, ["half = 'y' * 200", "doc = half + half"]);
    }

    #[test]
    fn long_written_calls_are_cut_with_where_to_find_them() {
        use crate::value::PyValue;
        let written = format!("parse_contract_json('{}')", "z".repeat(400));
        let c = case(&written, vec![PyValue::str(&"z".repeat(400))]);
        let t = call_text(&c);
        assert!(
            t.call
                .ends_with("… (123 more characters; the whole call is at json-contract/x.toml:1)"),
            "{}",
            t.call
        );
    }

    #[test]
    fn diff_marks_changed_lines() {
        let d = diff("{\n  'a': 1,\n  'b': 2,\n}", "{\n  'a': 1,\n  'b': 3,\n}");
        assert!(d.starts_with("--- expected\n+++ got\n"), "{d}");
        assert!(d.contains("-  'b': 2,\n+  'b': 3,\n"), "{d}");
    }

    #[test]
    fn diff_is_capped() {
        let a: String = (0..1000).map(|i| format!("{i}\n")).collect();
        let b: String = (0..1000).map(|i| format!("x{i}\n")).collect();
        let d = diff(&a, &b);
        assert!(d.lines().count() <= DIFF_LINES + 1, "{}", d.lines().count());
        assert!(d.ends_with("more lines)\n"));
        // Long lines, and many of them, are cut too.
        let a: String = (0..100)
            .map(|i| format!("'{}{i}'\n", "a".repeat(5000)))
            .collect();
        let b: String = (0..100)
            .map(|i| format!("'{}{i}'\n", "b".repeat(5000)))
            .collect();
        let d = diff(&a, &b);
        assert!(d.chars().count() < DIFF_CHARS + 40, "{}", d.chars().count());
        assert!(d.lines().all(|l| l.chars().count() < DIFF_LINE_CHARS + 40));
        assert!(d.contains("… (4704 more characters)"), "{d}");
        assert!(d.trim_end().ends_with("more characters)"), "{d}");
    }
}
