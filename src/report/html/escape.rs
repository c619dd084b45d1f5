//! Text and data made safe for the page: element content and attribute
//! values through [`esc`], the page's data through [`script_json`].

/// Text made safe for HTML element content and quoted attribute values:
/// what [`crate::text`] hides becomes U+FFFD, markup is escaped.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in crate::text::replaced(text).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// JSON for inside `<script type="application/json">`: `<`, `>` and `&`
/// (so no `</script>` or `<!--` can end or change the element) and U+2028,
/// U+2029 are escaped, as JSON allows inside strings (the only place they
/// can occur).
pub fn script_json(value: &impl serde::Serialize) -> String {
    let text = serde_json::to_string(value).unwrap_or_else(|_| "null".to_string());
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}
