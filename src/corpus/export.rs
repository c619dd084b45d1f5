//! `cases export --visible`: a copy of the corpus without its hidden cases,
//! for handing to students. Hidden `[[case]]` tables are cut out of the
//! original text (with the comment lines just above them), so everything
//! else, comments included, stays as written.

use super::tree::{self, Node, Value};
use super::{load_with, CallCheck, Corpus, Visibility};
use anyhow::{bail, Context};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// What an export wrote.
#[derive(Debug)]
pub struct ExportSummary {
    pub files: usize,
    pub visible: usize,
    pub hidden_dropped: usize,
}

/// Writes the visible part of `corpus` to `dest`, which must not exist yet
/// (or be an empty folder) and must lie outside the corpus. The result is
/// loaded again and must hold exactly the visible cases.
pub fn export_visible(
    corpus: &Corpus,
    dest: &Path,
    check: CallCheck,
) -> anyhow::Result<ExportSummary> {
    refuse_inside(&corpus.root, dest)?;
    if dest.exists() {
        let empty = dest.is_dir()
            && std::fs::read_dir(dest)
                .with_context(|| format!("reading {}", dest.display()))?
                .next()
                .is_none();
        if !empty {
            bail!(
                "{} already exists and is not an empty folder",
                dest.display()
            );
        }
    }
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    let course = match &corpus.selection {
        // Cut to assignments: a course file of their lessons and checkpoints only.
        Some(selection) => course_of(corpus, selection),
        None => std::fs::read_to_string(corpus.root.join("course.toml"))
            .with_context(|| format!("reading {}", corpus.root.join("course.toml").display()))?,
    };
    files.push((PathBuf::from("course.toml"), course));

    let mut case_files: Vec<&Path> = corpus.cases.iter().map(|c| c.file.as_path()).collect();
    case_files.sort();
    case_files.dedup();
    let mut hidden_dropped = 0;
    for path in case_files {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let (kept, dropped, remaining) =
            cut_hidden(&text).with_context(|| format!("re-reading {}", path.display()))?;
        hidden_dropped += dropped;
        if remaining == 0 {
            continue; // every case hidden: the file would have no cases
        }
        let rel = path
            .strip_prefix(&corpus.root)
            .unwrap_or(path)
            .to_path_buf();
        files.push((rel, kept));
    }

    for (rel, text) in &files {
        let out = dest.join(rel);
        if let Some(parent) = out.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&out, text).with_context(|| format!("writing {}", out.display()))?;
    }

    // The export must load and hold exactly the visible cases.
    let exported = load_with(dest, check)
        .map_err(|e| anyhow::anyhow!("the exported corpus does not load: {e}"))?;
    let want: Vec<&str> = corpus
        .cases
        .iter()
        .filter(|c| c.visibility == Visibility::Visible)
        .map(|c| c.id.as_str())
        .collect();
    let got: Vec<&str> = exported.cases.iter().map(|c| c.id.as_str()).collect();
    if want != got {
        bail!(
            "the exported corpus holds {} cases where {} visible ones were expected",
            got.len(),
            want.len()
        );
    }
    Ok(ExportSummary {
        files: files.len(),
        visible: got.len(),
        hidden_dropped,
    })
}

/// `course.toml` for a corpus cut to `selection`: the course's title and
/// settings, the lessons and checkpoints left (their points as selected),
/// and the selected assignments.
fn course_of(corpus: &Corpus, selection: &super::Selection) -> String {
    use std::fmt::Write;
    let q = |s: &str| toml_string(s);
    let mut out = String::from(
        "# Written by `autograder cases export` for the assignments below: the\n\
         # course's lessons and checkpoints that they grade.\n",
    );
    let _ = writeln!(out, "title = {}", q(&corpus.settings.title));
    if corpus.settings.show_hidden_ids {
        out.push_str("show_hidden_ids = true\n");
    }
    for lesson in &corpus.lessons {
        let _ = write!(
            out,
            "\n[[lesson]]\nid = {}\ntitle = {}\n",
            q(&lesson.id),
            q(&lesson.title)
        );
        for cp in &lesson.checkpoints {
            let _ = write!(
                out,
                "\n  [[lesson.checkpoint]]\n  function = {}\n  title = {}\n  points = {:?}\n",
                q(&cp.id),
                q(&cp.title),
                cp.points
            );
        }
    }
    for a in &selection.assignments {
        let list: Vec<String> = a.checkpoints.iter().map(|c| q(c)).collect();
        let _ = write!(
            out,
            "\n[[assignment]]\nid = {}\ntitle = {}\ncheckpoints = [{}]\n",
            q(&a.id),
            q(&a.title),
            list.join(", ")
        );
        if selection.assignments.len() > 1 {
            if let Some(p) = a.points {
                let _ = writeln!(out, "points = {p:?}");
            }
        }
    }
    out
}

/// A TOML basic string.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Refuses a destination equal to or inside the corpus folder.
fn refuse_inside(root: &Path, dest: &Path) -> anyhow::Result<()> {
    let root = root
        .canonicalize()
        .with_context(|| format!("resolving {}", root.display()))?;
    // `dest` may not exist yet: resolve its nearest existing ancestor.
    let mut probe = if dest.is_absolute() {
        dest.to_path_buf()
    } else {
        std::env::current_dir()?.join(dest)
    };
    let mut tail: Vec<std::ffi::OsString> = Vec::new();
    let resolved = loop {
        match probe.canonicalize() {
            Ok(p) => break tail.iter().rev().fold(p, |p, c| p.join(c)),
            Err(_) => {
                let Some(name) = probe.file_name().map(|n| n.to_os_string()) else {
                    break probe;
                };
                tail.push(name);
                if !probe.pop() {
                    break probe;
                }
            }
        }
    };
    if resolved.starts_with(&root) {
        bail!(
            "refusing to export into the source corpus ({} is inside {})",
            dest.display(),
            root.display()
        );
    }
    Ok(())
}

/// Cuts the hidden `[[case]]` tables out of a case file's text. Returns the
/// new text, how many cases were cut and how many remain.
pub fn cut_hidden(text: &str) -> anyhow::Result<(String, usize, usize)> {
    let doc = tree::parse(text).map_err(|e| anyhow::anyhow!("TOML syntax: {}", e.message))?;
    let mut all_spans: Vec<Range<usize>> = Vec::new();
    let mut hidden: Vec<Range<usize>> = Vec::new();
    let mut remaining = 0;
    for (key, node) in &doc {
        all_spans.push(key.span.clone());
        if key.name != "case" {
            all_spans.push(node.span.clone());
            collect_spans(node, &mut all_spans);
            continue;
        }
        let Value::Array(cases) = &node.value else {
            continue;
        };
        for case in cases {
            let span = table_extent(case);
            all_spans.push(span.clone());
            if is_hidden(case) {
                hidden.push(span);
            } else {
                remaining += 1;
            }
        }
    }
    let mut cuts: Vec<Range<usize>> = hidden
        .iter()
        .map(|span| {
            // Nothing before `floor` belongs to this case.
            let floor = all_spans
                .iter()
                .filter(|s| s.end <= span.start)
                .map(|s| s.end)
                .max()
                .unwrap_or(0);
            region(text, span, floor)
        })
        .collect();
    cuts.sort_by_key(|r| r.start);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for cut in &cuts {
        if cut.start < at {
            continue;
        }
        out.push_str(&text[at..cut.start]);
        at = cut.end;
    }
    out.push_str(&text[at..]);
    Ok((out, hidden.len(), remaining))
}

/// A table's text from its header to the end of the last key or value in
/// it, at any depth: the parser's span of an array-of-tables element (or of
/// a sub-table) may cover its header alone.
fn table_extent(table: &Node) -> Range<usize> {
    table.span.start..extent_end(table)
}

fn extent_end(node: &Node) -> usize {
    match &node.value {
        Value::Table(entries) => entries
            .iter()
            .map(|(k, v)| k.span.end.max(extent_end(v)))
            .fold(node.span.end, usize::max),
        Value::Array(items) => items.iter().map(extent_end).fold(node.span.end, usize::max),
        _ => node.span.end,
    }
}

fn collect_spans(node: &Node, out: &mut Vec<Range<usize>>) {
    if let Value::Table(entries) = &node.value {
        for (k, v) in entries {
            out.push(k.span.clone());
            out.push(v.span.clone());
        }
    }
}

fn is_hidden(case: &Node) -> bool {
    let Value::Table(entries) = &case.value else {
        return false;
    };
    entries
        .iter()
        .any(|(k, v)| k.name == "visibility" && matches!(&v.value, Value::Str(s) if s == "hidden"))
}

/// The whole lines of a case table, plus the comment lines right above it
/// (not crossing `floor`) and the blank lines after it.
fn region(text: &str, span: &Range<usize>, floor: usize) -> Range<usize> {
    let line_start = |i: usize| text[..i].rfind('\n').map_or(0, |p| p + 1);
    let mut start = line_start(span.start);
    while start > 0 {
        let prev = line_start(start - 1);
        if prev < floor || !text[prev..start].trim_start().starts_with('#') {
            break;
        }
        start = prev;
    }
    let mut end = text[span.end..]
        .find('\n')
        .map_or(text.len(), |p| span.end + p + 1);
    // Blank lines after the case go too, when the case starts after a blank line.
    let preceded_by_blank = start == 0 || text[..start].ends_with("\n\n");
    if preceded_by_blank {
        while let Some(p) = text[end..].find('\n') {
            if text[end..end + p].trim().is_empty() {
                end += p + 1;
            } else {
                break;
            }
        }
    }
    start..end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_hidden_cases_with_their_comments() {
        let text = "checkpoint = \"x\"\n\n[let]\na = \"1\"\n\n# first\n[[case]]\nid = \"one\"\nvisibility = \"hidden\" # hide\n\n# second, visible\n[[case]]\nid = \"two\"\n\n# third\n[[case]]\nid = \"three\"\nvisibility = \"hidden\"\n";
        let (out, dropped, remaining) = cut_hidden(text).unwrap();
        assert_eq!((dropped, remaining), (2, 1));
        assert_eq!(
            out,
            "checkpoint = \"x\"\n\n[let]\na = \"1\"\n\n# second, visible\n[[case]]\nid = \"two\"\n\n"
        );
    }

    #[test]
    fn cuts_a_hidden_case_with_its_sub_tables() {
        let text = "[[case]]\nid = \"one\"\nvisibility = \"hidden\"\n[case.kwargs]\nb = 2\n\n[[case]]\nid = \"two\"\n[case.kwargs]\nc = 3\n";
        let (out, dropped, remaining) = cut_hidden(text).unwrap();
        assert_eq!((dropped, remaining), (1, 1));
        assert_eq!(out, "[[case]]\nid = \"two\"\n[case.kwargs]\nc = 3\n");
    }
}
