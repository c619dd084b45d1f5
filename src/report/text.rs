//! What of a piece of student text (ids, reasons, values, messages) a report
//! may show literally, decided in one place; each format escapes its own
//! syntax on top.

/// Text an XML 1.0 document can carry: characters XML forbids (control
/// characters other than tab, newline and carriage return; U+FFFE, U+FFFF)
/// become U+FFFD. The XML writer escapes markup (`<`, `&`, quotes).
pub fn xml(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => c,
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => '\u{fffd}',
            c => c,
        })
        .collect()
}
