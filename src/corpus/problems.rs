//! Problems found while loading a corpus, each naming its file and line.

use super::tree::Lines;
use std::fmt;
use std::path::{Path, PathBuf};

/// One thing wrong with the corpus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub file: PathBuf,
    /// 1-based line in `file`, when known.
    pub line: Option<usize>,
    /// The case id (`<checkpoint>/<case>`), when the problem is in a case.
    pub case: Option<String>,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(case) = &self.case {
            write!(f, ": case {case}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Why a corpus could not be loaded: every problem found, not just the first.
#[derive(Clone, Debug, thiserror::Error)]
pub struct CorpusError {
    pub problems: Vec<Problem>,
}

impl fmt::Display for CorpusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.problems.len();
        write!(
            f,
            "the corpus has {n} problem{}:",
            if n == 1 { "" } else { "s" }
        )?;
        for p in &self.problems {
            write!(f, "\n  {p}")?;
        }
        Ok(())
    }
}

/// Collects problems for one file.
pub(crate) struct Sink<'a> {
    pub file: PathBuf,
    text: &'a str,
    lines: Lines,
    pub out: &'a mut Vec<Problem>,
}

impl<'a> Sink<'a> {
    pub fn new(file: PathBuf, text: &'a str, out: &'a mut Vec<Problem>) -> Sink<'a> {
        Sink {
            file,
            text,
            lines: Lines::new(text),
            out,
        }
    }

    /// The 1-based line of a byte offset of the file.
    pub fn line(&self, offset: usize) -> usize {
        self.lines.line_of(offset)
    }

    /// A problem at a byte offset of the file.
    pub fn at(&mut self, offset: usize, case: Option<&str>, message: impl Into<String>) {
        self.out.push(Problem {
            file: self.file.clone(),
            line: Some(self.line(offset)),
            case: case.map(str::to_string),
            message: message.into(),
        });
    }

    /// The file's TOML tree, or `None` with its syntax error recorded.
    pub fn parse(&mut self) -> Option<Vec<(super::tree::Key, super::tree::Node)>> {
        match super::tree::parse(self.text) {
            Ok(doc) => Some(doc),
            Err(e) => {
                let at = e.span.map_or(0, |s| s.start);
                self.at(at, None, format!("TOML syntax: {}", e.message));
                None
            }
        }
    }
}

/// A problem with a whole file (or folder).
pub(crate) fn whole(path: &Path, message: impl Into<String>) -> Problem {
    Problem {
        file: path.to_path_buf(),
        line: None,
        case: None,
        message: message.into(),
    }
}
