//! What of a piece of student text (submission ids, reasons, exception
//! messages, values, what another runner wrote in a recording) a report may
//! show literally, decided in one place: [`hidden`]. Each format shows the
//! other characters its own way on top of it: [`escaped`] for one-line text
//! (verdict reasons, the terminal), [`replaced`] where an escape would read
//! as content (HTML, Markdown, XML), and each format then escapes its own
//! syntax (`<`, `*`, quotes...).
//!
//! (The grader's verdicts use it too: a reason quotes student text.) The
//! scripts `package` writes quote paths with [`shell_word`]. Characters
//! shown literally that pass for ASCII ones are named by [`lookalikes`].

/// Whether `c` is never shown literally: C0 and C1 control characters and
/// DEL (they drive terminals: `\x1b[2J`), the line and paragraph separators
/// (they break a line where none is shown), and the bidirectional controls
/// that reorder what is shown around them ("Trojan Source"): ALM U+061C,
/// LRM/RLM U+200E–U+200F, the embeddings and overrides U+202A–U+202E and
/// the isolates U+2066–U+2069.
pub fn hidden(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}'
        | '\u{7f}'..='\u{9f}'
        | '\u{61c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{2028}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}')
}

/// The characters of `text` that are shown as they are but pass for ASCII
/// ones, so that a rejected id looks valid: each once, in order, as
/// `U+212A KELVIN SIGN (not K)`. A character passes for ASCII when NFKC
/// makes it ASCII letters or digits (the Kelvin sign, fullwidth digits, the
/// `ﬁ` ligature), when it is a decimal digit of another script (Arabic-Indic
/// `١`), or when it is a Cyrillic or Greek letter drawn as a Latin one.
pub fn lookalikes(text: &str) -> Vec<String> {
    use unicode_normalization::UnicodeNormalization;
    let mut seen: Vec<char> = Vec::new();
    let mut out = Vec::new();
    for c in text.chars().filter(|c| !c.is_ascii() && !hidden(*c)) {
        if seen.contains(&c) {
            continue;
        }
        let name = unicode_names2::name(c).map(|n| n.to_string());
        let nfkc: String = std::iter::once(c).nfkc().collect();
        let like = if !nfkc.is_empty() && nfkc.chars().all(|n| n.is_ascii_alphanumeric()) {
            Some(nfkc)
        } else if let Some(d) = name.as_deref().and_then(digit_named) {
            Some(d.to_string())
        } else {
            LATIN_LOOKALIKES
                .iter()
                .find(|(l, _)| *l == c)
                .map(|(_, a)| a.to_string())
        };
        if let Some(like) = like {
            seen.push(c);
            let name = name.unwrap_or_else(|| "(no name)".to_string());
            out.push(format!("U+{:04X} {name} (not {like})", c as u32));
        }
    }
    out
}

/// The ASCII digit a `... DIGIT FIVE` character stands for.
fn digit_named(name: &str) -> Option<char> {
    const DIGITS: [&str; 10] = [
        "ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE",
    ];
    let word = name
        .strip_prefix("DIGIT ")
        .or_else(|| name.split(" DIGIT ").nth(1))?;
    let i = DIGITS.iter().position(|d| *d == word)?;
    char::from_digit(i as u32, 10)
}

/// Cyrillic and Greek letters drawn as Latin ones, and the Latin letter.
const LATIN_LOOKALIKES: &[(char, char)] = &[
    ('а', 'a'),
    ('е', 'e'),
    ('о', 'o'),
    ('р', 'p'),
    ('с', 'c'),
    ('у', 'y'),
    ('х', 'x'),
    ('і', 'i'),
    ('ј', 'j'),
    ('ѕ', 's'),
    ('А', 'A'),
    ('В', 'B'),
    ('Е', 'E'),
    ('К', 'K'),
    ('М', 'M'),
    ('Н', 'H'),
    ('О', 'O'),
    ('Р', 'P'),
    ('С', 'C'),
    ('Т', 'T'),
    ('Х', 'X'),
    ('І', 'I'),
    ('Ј', 'J'),
    ('Ѕ', 'S'),
    ('Α', 'A'),
    ('Β', 'B'),
    ('Ε', 'E'),
    ('Ζ', 'Z'),
    ('Η', 'H'),
    ('Ι', 'I'),
    ('Κ', 'K'),
    ('Μ', 'M'),
    ('Ν', 'N'),
    ('Ο', 'O'),
    ('Ρ', 'P'),
    ('Τ', 'T'),
    ('Υ', 'Y'),
    ('Χ', 'X'),
    ('ο', 'o'),
    ('ν', 'v'),
];

/// One line of text with every [`hidden`] character as a visible escape:
/// `\n`, `\t`, `\x1b`, `\u202e`. For verdict reasons and the terminal.
pub fn escaped(text: &str) -> String {
    if !text.chars().any(hidden) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if hidden(c) && (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if hidden(c) => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// [`escaped`] line by line: the line breaks kept, every other [`hidden`]
/// character escaped. For multi-line text a report lays out as lines (a
/// diff, an error message listing problems).
pub fn lines_escaped(text: &str) -> String {
    if !text.chars().any(|c| c != '\n' && hidden(c)) {
        return text.to_string();
    }
    text.split('\n').map(escaped).collect::<Vec<_>>().join("\n")
}

/// A CSV cell a spreadsheet reads as text, never as a formula: [`escaped`],
/// and a `'` before a cell that begins with `=`, `+`, `-`, `@`, a tab or a
/// carriage return (OWASP's rule for CSV injection; LibreOffice's and
/// Excel's default import evaluate such a cell), or with their full-width
/// forms, which some locales' imports fold into them.
pub fn spreadsheet_cell(text: &str) -> String {
    let formula = text.starts_with([
        '=', '+', '-', '@', '\t', '\r', '\u{ff1d}', '\u{ff0b}', '\u{ff0d}', '\u{ff20}',
    ]);
    let shown = escaped(text);
    if formula {
        format!("'{shown}")
    } else {
        shown
    }
}

/// Text with line breaks and tabs kept and every other [`hidden`]
/// character as U+FFFD: for formats that lay out lines themselves and
/// escape their own syntax (HTML, Markdown code blocks).
pub fn replaced(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\n' | '\t' => c,
            c if hidden(c) => '\u{fffd}',
            c => c,
        })
        .collect()
}

/// Text an XML 1.0 document can carry, from [`replaced`] (XML also keeps
/// carriage returns, and forbids U+FFFE and U+FFFF). The XML writer escapes
/// markup (`<`, `&`, quotes).
pub fn xml(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => c,
            '\u{fffe}' | '\u{ffff}' => '\u{fffd}',
            c if hidden(c) => '\u{fffd}',
            c => c,
        })
        .collect()
}

/// Text cut to its first `max` characters, the cut marked with how much
/// was left out: `abc… (1234 more characters)`. Every piece of student
/// text a report shows (values, messages, diffs, class names) is cut with
/// it, so one submission cannot bloat a report.
pub fn cut(text: &str, max: usize) -> String {
    cut_noting(text, max, "")
}

/// [`cut`], with a note after the count when the text is cut:
/// `abc… (1234 more characters; the whole call is at x.toml:3)`.
pub fn cut_noting(text: &str, max: usize, note: &str) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((at, _)) => {
            let more = text[at..].chars().count();
            let s = if more == 1 { "" } else { "s" };
            let note = if note.is_empty() {
                String::new()
            } else {
                format!("; {note}")
            };
            format!("{}… ({more} more character{s}{note})", &text[..at])
        }
    }
}

/// Text cut to its first `head` and last `tail` characters, the middle
/// left out and the cut saying how much: `/srv/subs/ddd… (3612 characters
/// left out) …ddd: cannot be read: File name too long (os error 36)`. For
/// text whose end matters as much as its start: a path, or a message that
/// names a path before saying what is wrong with it.
pub fn cut_middle(text: &str, head: usize, tail: usize) -> String {
    let total = text.chars().count();
    if total <= head + tail {
        return text.to_string();
    }
    let left_out = total - head - tail;
    let start = text
        .char_indices()
        .nth(head)
        .map_or(text.len(), |(at, _)| at);
    let end = text
        .char_indices()
        .nth(head + left_out)
        .map_or(text.len(), |(at, _)| at);
    let s = if left_out == 1 { "" } else { "s" };
    format!(
        "{}… ({left_out} character{s} left out) …{}",
        &text[..start],
        &text[end..]
    )
}

/// A word the POSIX shell reads back as exactly `text`, for paths written
/// into shell scripts: as it is when it holds only characters no shell
/// treats specially, else in single quotes (each `'` as `'\''`), inside
/// which the shell expands nothing.
pub fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_that_pass_for_ascii_are_named_once_each() {
        assert_eq!(
            lookalikes("{'id': 'call_\u{212a}1', 'n': '\u{661}\u{ff12}', 'k': '\u{212a}'}"),
            [
                "U+212A KELVIN SIGN (not K)",
                "U+0661 ARABIC-INDIC DIGIT ONE (not 1)",
                "U+FF12 FULLWIDTH DIGIT TWO (not 2)",
            ]
        );
        assert_eq!(
            lookalikes("\u{430}dd \u{fb01}le"),
            [
                "U+0430 CYRILLIC SMALL LETTER A (not a)",
                "U+FB01 LATIN SMALL LIGATURE FI (not fi)",
            ]
        );
        // Other scripts and accents are themselves: nothing to say.
        assert!(lookalikes("café 漢字 ñ — ✓ 'plain'").is_empty());
    }

    #[test]
    fn spreadsheet_cells_are_never_formulas() {
        for (cell, shown) in [
            (
                "=HYPERLINK(\"http://x\",\"x\")",
                "'=HYPERLINK(\"http://x\",\"x\")",
            ),
            ("=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"),
            ("+1", "'+1"),
            ("-2+3", "'-2+3"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\t=1", "'\\t=1"),
            ("\r=1", "'\\x0d=1"),
            ("\u{ff1d}1+1", "'\u{ff1d}1+1"),
            ("alice", "alice"),
            ("a=b", "a=b"),
            ("bad\x1b]52;c;eA==\x07", "bad\\x1b]52;c;eA==\\x07"),
        ] {
            assert_eq!(spreadsheet_cell(cell), shown, "{cell:?}");
        }
    }

    #[test]
    fn line_breaks_stay_and_other_controls_are_escaped() {
        assert_eq!(lines_escaped("a\n\x1b[2Jb\r\n"), "a\n\\x1b[2Jb\\x0d\n");
        assert_eq!(lines_escaped("plain\ntext"), "plain\ntext");
    }

    #[test]
    fn cuts_say_how_much_was_left_out() {
        assert_eq!(cut("abcdef", 6), "abcdef");
        assert_eq!(cut("abcdef", 4), "abcd… (2 more characters)");
        assert_eq!(cut("abcdé", 4), "abcd… (1 more character)");
    }

    #[test]
    fn middle_cuts_keep_both_ends_and_say_how_much_was_left_out() {
        assert_eq!(cut_middle("abcdef", 3, 3), "abcdef");
        assert_eq!(
            cut_middle("abcdefg", 3, 3),
            "abc… (1 character left out) …efg"
        );
        let long = format!("/{}: File name too long", "d".repeat(5000));
        let short = cut_middle(&long, 200, 200);
        assert!(short.ends_with("d: File name too long"), "{short}");
        assert!(short.contains("… (4621 characters left out) …"), "{short}");
        assert_eq!(cut_middle("ééééé", 1, 1), "é… (3 characters left out) …é");
    }

    #[test]
    fn terminal_escapes_and_bidi_overrides_are_never_literal() {
        let hostile = "a\x1b[2Jb\u{9b}c\u{202e}d\u{2066}e\u{2069}f\u{200f}g\u{2028}h\ni\tj";
        assert_eq!(
            escaped(hostile),
            "a\\x1b[2Jb\\x9bc\\u202ed\\u2066e\\u2069f\\u200fg\\u2028h\\ni\\tj"
        );
        assert_eq!(
            replaced(hostile),
            "a\u{fffd}[2Jb\u{fffd}c\u{fffd}d\u{fffd}e\u{fffd}f\u{fffd}g\u{fffd}h\ni\tj"
        );
        assert_eq!(xml("a\r\u{ffff}\u{202d}"), "a\r\u{fffd}\u{fffd}");
        for c in [
            '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}', '\u{202e}', '\u{2066}', '\u{2067}',
            '\u{2068}', '\u{2069}',
        ] {
            assert!(hidden(c), "{:x}", c as u32);
        }
        // Ordinary text, accents and right-to-left letters stay as they are.
        for ok in ["élève", "שלום", "日本", "a-b_c"] {
            assert_eq!(escaped(ok), ok);
            assert_eq!(replaced(ok), ok);
        }
    }

    #[test]
    fn shell_words_read_back_as_written() {
        assert_eq!(shell_word("/srv/course/cases"), "/srv/course/cases");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("my course"), "'my course'");
        assert_eq!(shell_word("it's $(id) `x`"), "'it'\\''s $(id) `x`'");
        assert_eq!(shell_word("~/a"), "'~/a'");
        assert_eq!(shell_word("a\nb"), "'a\nb'");
    }
}
