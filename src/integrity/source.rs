//! `main.py`'s bytes as the text CPython runs: its source encoding decided
//! as `tokenize.detect_encoding` decides it (a UTF-8 byte-order mark, a PEP
//! 263 coding cookie on line 1, or on line 2 after a comment or blank line),
//! so the scan reads the same program the interpreter does.
//!
//! UTF-8 (with or without a mark) and Latin-1 are decoded here exactly. Any
//! other declared encoding (`utf-7`, `utf-16`, `cp1252`, ...) is one the
//! scan does not decode: a cookie like that is itself a finding, since it
//! can spell `sys._getframe` as `sys.+AF8-getframe` (UTF-7) and hide every
//! other construct from a scan that reads the file as UTF-8.

/// The text to scan, and the declared encoding the scan could not decode
/// (normalized as CPython normalizes it, cut), with the line declaring it.
pub struct Decoded {
    pub text: String,
    pub undecoded: Option<(String, u32)>,
}

const BOM: &[u8] = b"\xef\xbb\xbf";

/// How many characters of a declared encoding's name a finding quotes.
const NAME_CHARS: usize = 40;

/// Decodes `source` as CPython would (see the module doc).
pub fn decode(source: &[u8]) -> Decoded {
    let body = source.strip_prefix(BOM).unwrap_or(source);
    let cookie = cookie(body);
    let encoding = cookie.as_ref().map(|(name, _)| normal_name(name));
    match encoding.as_deref() {
        None | Some("utf-8") => Decoded {
            text: String::from_utf8_lossy(body).into_owned(),
            undecoded: None,
        },
        Some("iso-8859-1") if !source.starts_with(BOM) => Decoded {
            text: body.iter().map(|&b| char::from(b)).collect(),
            undecoded: None,
        },
        // A mark with another cookie does not import ("encoding problem:
        // utf-8"); any other name is not decoded here.
        Some(other) => Decoded {
            text: String::from_utf8_lossy(body).into_owned(),
            undecoded: Some((
                crate::text::cut(other, NAME_CHARS),
                cookie.map_or(1, |(_, line)| line),
            )),
        },
    }
}

/// The coding cookie of the first two lines, as `detect_encoding` finds
/// it: line 1, else line 2 when line 1 is blank or only a comment.
fn cookie(body: &[u8]) -> Option<(String, u32)> {
    let mut lines = body.split_inclusive(|&b| b == b'\n');
    let first = lines.next()?;
    if let Some(name) = cookie_of(first) {
        return Some((name, 1));
    }
    if !blank_or_comment(first) {
        return None;
    }
    cookie_of(lines.next()?).map(|name| (name, 2))
}

/// `^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)` on one line (ASCII, as
/// `tokenize`'s `cookie_re` matches a line decoded as Latin-1).
fn cookie_of(line: &[u8]) -> Option<String> {
    let start = line
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\x0c'))?;
    if line[start] != b'#' {
        return None;
    }
    let rest = &line[start + 1..];
    // `.*?` is lazy: the first `coding[:=]` wins.
    let at = rest
        .windows(7)
        .position(|w| w.starts_with(b"coding") && matches!(w[6], b':' | b'='))?;
    let after = &rest[at + 7..];
    let after = &after[after
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count()..];
    let name: Vec<u8> = after
        .iter()
        .copied()
        .take_while(|&b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        .collect();
    (!name.is_empty()).then(|| String::from_utf8_lossy(&name).into_owned())
}

/// `^[ \t\f]*(?:[#\r\n]|$)`: what lets line 2 hold the cookie.
fn blank_or_comment(line: &[u8]) -> bool {
    match line.iter().find(|b| !matches!(b, b' ' | b'\t' | b'\x0c')) {
        None => true,
        Some(b) => matches!(b, b'#' | b'\r' | b'\n'),
    }
}

/// `tokenize._get_normal_name`, then the spellings CPython's codec lookup
/// takes as UTF-8 or Latin-1 (case, `_` for `-`, `utf8`, `latin1`...).
fn normal_name(name: &str) -> String {
    let enc: String = name
        .chars()
        .take(12)
        .collect::<String>()
        .to_ascii_lowercase()
        .replace('_', "-");
    if enc == "utf-8" || enc.starts_with("utf-8-") {
        return "utf-8".into();
    }
    if ["latin-1", "iso-8859-1", "iso-latin-1"]
        .iter()
        .any(|n| enc == *n || enc.starts_with(&format!("{n}-")))
    {
        return "iso-8859-1".into();
    }
    // What the codec registry also finds under another spelling.
    let squashed: String = name
        .to_ascii_lowercase()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    match squashed.as_str() {
        // ASCII text reads the same as UTF-8 (and non-ASCII does not import).
        "utf8" | "u8" | "utf" | "cp65001" | "ascii" | "usascii" | "646" => "utf-8".into(),
        "latin1" | "latin" | "l1" | "iso88591" | "8859" | "cp819" | "iso8859" => {
            "iso-8859-1".into()
        }
        _ => name.to_ascii_lowercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn undecoded(source: &str) -> Option<String> {
        decode(source.as_bytes()).undecoded.map(|(n, _)| n)
    }

    #[test]
    fn cookies_are_found_where_cpython_looks() {
        assert_eq!(
            undecoded("# -*- coding: utf-7 -*-\nx = 1\n"),
            Some("utf-7".into())
        );
        assert_eq!(
            undecoded("#!/usr/bin/env python\n# vim: set fileencoding=utf-16 :\n"),
            Some("utf-16".into())
        );
        // Line 2 counts only after a comment or blank line.
        assert_eq!(undecoded("x = 1\n# coding: utf-7\n"), None);
        assert_eq!(undecoded("\n# coding=utf-7\n"), Some("utf-7".into()));
        // Line 3 never does.
        assert_eq!(undecoded("#\n#\n# coding: utf-7\n"), None);
        // Not in a string: the line must start with `#`.
        assert_eq!(undecoded("s = '# coding: utf-7'\n"), None);
        for ok in [
            "# coding: utf-8\n",
            "# -*- coding: UTF_8 -*-\n",
            "# coding: utf8\n",
            "# coding: latin-1\n",
            "# coding: ISO-8859-1\n",
            "# coding: ascii\n",
        ] {
            assert_eq!(undecoded(ok), None, "{ok:?}");
        }
        let (_, line) = decode(b"\n# coding: cp1252\n").undecoded.unwrap();
        assert_eq!(line, 2);
    }

    #[test]
    fn latin_1_and_marks_decode_as_cpython_does() {
        let latin = decode(b"# coding: latin-1\ns = '\xe9'\n");
        assert!(latin.undecoded.is_none());
        assert!(latin.text.contains("s = '\u{e9}'"));
        let marked = decode(b"\xef\xbb\xbfimport gc\n");
        assert_eq!(marked.text, "import gc\n");
        // A mark with a cookie for another encoding is a SyntaxError in
        // CPython: flagged, not decoded.
        assert!(decode(b"\xef\xbb\xbf# coding: latin-1\n")
            .undecoded
            .is_some());
    }
}
