//! Student text never drives a terminal or reorders what a report shows:
//! escape sequences and bidi overrides (U+202A–U+202E, U+2066–U+2069), in a
//! submission id or an exception message, reach no report literally.

use crate::util::grading as support;

use autograder::grade;
use autograder::recording::format::CaseOutcome;
use autograder::report;

const BIDI: [char; 9] = [
    '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}', '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}',
    '\u{2069}',
];

#[test]
fn no_report_carries_escapes_or_bidi_overrides() {
    let corpus = support::corpus();
    let expected = support::expected(&corpus);
    let id = "evil\u{202e}gpj.py\u{2066}x\u{2069}\x1b[2J";
    let mut rec = support::perfect_recording(&corpus, id);
    let case = corpus.cases[0].id.clone();
    rec.outcomes.insert(
        case,
        CaseOutcome::Raised {
            class: "TypeError".into(),
            mro: vec![
                "TypeError".into(),
                "Exception".into(),
                "BaseException".into(),
                "object".into(),
            ],
            message: "ok\u{202e}txt\u{2067}\x1b]0;title\x07".into(),
        },
    );
    let run = grade::grade_recordings(&corpus, &expected, vec![(id.to_string(), Ok(rec))]);
    let reports = [
        ("terminal", report::terminal::render(&run, false, true)),
        ("markdown", report::markdown::render(&run)),
        ("html", report::html::render(&run)),
        ("junit", report::junit::render(&run).unwrap()),
    ];
    for (name, text) in &reports {
        for c in BIDI.iter().chain(&['\x1b', '\x07']) {
            assert!(
                !text.contains(*c),
                "{name} shows U+{:04X} literally:\n{text}",
                *c as u32
            );
        }
    }
    // The terminal shows them as escapes, so the reader sees they are there.
    assert!(
        reports[0].1.contains("evil\\u202egpj.py"),
        "{}",
        reports[0].1
    );
    assert!(
        reports[0].1.contains("ok\\u202etxt\\u2067"),
        "{}",
        reports[0].1
    );
}
