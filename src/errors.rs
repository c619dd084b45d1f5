//! Errors as people read them.

/// An error and every cause under it, `: `-joined (what anyhow's `{:#}`
/// prints): typed errors keep their causes as `source`, not in their text.
pub fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        text.push_str(": ");
        text.push_str(&e.to_string());
        cause = e.source();
    }
    text
}
