//! autograder: grades Python submissions for the "Working with LLMs" course
//! against an exact Rust reference core.
//!
//! Data flows one way: [`corpus`] loads cases, [`reference`] computes the
//! expected outcome of each, [`submission`] finds the submissions,
//! [`runner`] runs them in a sandbox and keeps what they did as
//! [`recording`]s, [`grade`] compares, and [`report`] writes the results.
//! `grade`, `report` and `integrity` read recordings, never the runner
//! (see the `architecture` test below).

pub mod atomic;
pub mod cli;
pub mod corpus;
pub mod errors;
pub mod grade;
pub mod integrity;
pub mod recording;
pub mod reference;
pub mod report;
pub mod runner;
pub mod submission;
pub mod timings;
pub mod value;

#[cfg(test)]
mod architecture {
    //! The layering rule, checked on the sources: what reads recordings
    //! (grading, reports, the integrity scan) and what a recording is
    //! (`recording/`, `submission.rs`) never reach into the runner or the
    //! CLI above them.

    use std::collections::BTreeSet;
    use std::path::{Path, PathBuf};

    /// The modules each of these may not use.
    const RULES: &[(&str, &[&str])] = &[
        ("grade", &["runner", "cli"]),
        ("report", &["runner", "cli"]),
        ("integrity", &["runner", "cli"]),
        ("recording", &["runner", "cli"]),
        ("submission", &["runner", "cli"]),
    ];

    /// The top-level modules a Rust source names through `crate::`: in
    /// `use crate::a::...;`, in `use crate::{a::x, b};` brace groups (over
    /// several lines too), and in paths inside code (`crate::a::f()`).
    /// Comments are not code: a doc link is not an import.
    fn crate_modules(source: &str) -> BTreeSet<String> {
        let code: String = source
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let mut found = BTreeSet::new();
        let mut rest = code.as_str();
        while let Some(at) = rest.find("crate::") {
            let before = rest[..at].chars().next_back();
            rest = &rest[at + "crate::".len()..];
            // `xcrate::` or `$crate::` is not this crate's root.
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
                continue;
            }
            if let Some(group) = rest.strip_prefix('{') {
                found.extend(group_heads(group));
            } else {
                found.extend(ident(rest));
            }
        }
        found
    }

    /// The first path segment of each item of a brace group (`a::x, b,
    /// c::{y, z}}...`), up to the group's closing brace.
    fn group_heads(group: &str) -> Vec<String> {
        let (mut depth, mut heads, mut start) = (0usize, Vec::new(), true);
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                ',' if depth == 0 => start = true,
                c if start && !c.is_whitespace() => {
                    heads.extend(ident(&group[i..]));
                    start = false;
                }
                _ => {}
            }
        }
        heads
    }

    fn ident(text: &str) -> Option<String> {
        let name: String = text
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        (!name.is_empty() && name != "self").then_some(name)
    }

    fn sources(path: &Path) -> Vec<PathBuf> {
        let dir = path.with_extension("");
        let mut files: Vec<PathBuf> = walkdir::WalkDir::new(&dir)
            .into_iter()
            .flatten()
            .map(|e| e.into_path())
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .collect();
        let file = dir.with_extension("rs");
        if file.is_file() {
            files.push(file);
        }
        files
    }

    #[test]
    fn the_parser_sees_every_form_of_import() {
        let source = "use crate::a::x;\nuse crate::{b::y, c,\n    d::{e, f}};\n\
                      fn g() { crate::h::i(); }\n// crate::comment\n\
                      macro_rules! m { () => { $crate::k } }\n";
        let found: Vec<String> = crate_modules(source).into_iter().collect();
        assert_eq!(found, ["a", "b", "c", "d", "h"]);
    }

    #[test]
    fn lower_layers_never_import_higher_ones() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut broken = Vec::new();
        for (module, forbidden) in RULES {
            let files = sources(&src.join(module));
            assert!(!files.is_empty(), "no sources for {module}");
            for file in files {
                let text = std::fs::read_to_string(&file).unwrap();
                for used in crate_modules(&text) {
                    if forbidden.contains(&used.as_str()) {
                        broken.push(format!("{} uses crate::{used}", file.display()));
                    }
                }
            }
        }
        assert!(broken.is_empty(), "{}", broken.join("\n"));
    }
}
