//! The call reader: a small, safe subset of Python expressions, evaluated in
//! Rust (never by `eval`), in which case files write their calls.
//!
//! The language: `None True False`; ints (`1_000`, `0x1F`, `0o17`, `0b101`);
//! floats (`1.5`, `1e999` is inf); strings with the prefixes `r`/`u` (any
//! case), single, double and triple quotes, every Python escape except
//! `\N{...}`, adjacent-literal concatenation; lists, tuples, dicts (any
//! hashable keys, later duplicates replace the value of the first); unary
//! `-`/`+`; binary `+`, `-`, `*` and `**` (ints only, exponent >= 0) with
//! Python's precedence and types (`True + 1 == 2`, `'ab' * 3`, `[0] * 3`);
//! `float(x)`, `chr(n)`; names from `[let]`; keyword arguments in calls.
//!
//! Results are capped: at most [`MAX_ELEMENTS`] code points and items in one
//! value, [`MAX_DEPTH`] levels of nesting, ints of at most
//! [`MAX_INT_DIGITS`] digits; brackets nest at most 200 deep (as in CPython).

mod eval;
mod lex;
mod parse;

use super::int_digits::{over_int_digits, MAX_INT_DIGITS};
use super::PyValue;
use eval::Val;
pub use lex::is_string_prefix;
use num_bigint::BigInt;
use std::collections::HashMap;
use std::fmt;

/// The most code points plus container items a value may hold in total.
pub const MAX_ELEMENTS: usize = 10_000_000;
/// The deepest nesting of lists, tuples and dicts a value may have (the
/// harness's tagged-JSON encoder gives up deeper than this).
pub const MAX_DEPTH: usize = 100;

/// Refuses ints CPython cannot turn into text (more than
/// [`MAX_INT_DIGITS`] decimal digits): no harness could send or print them.
fn check_int(v: &BigInt) -> Result<(), String> {
    if over_int_digits(v) {
        return Err(format!(
            "int result has more than {MAX_INT_DIGITS} digits (CPython cannot convert it to text)"
        ));
    }
    Ok(())
}

fn too_large() -> String {
    format!("value too large (over {MAX_ELEMENTS} characters and items)")
}

/// The class of a reader error; Python names where Python would raise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    SyntaxError,
    NameError,
    TypeError,
    ValueError,
    OverflowError,
    /// Valid Python that the call language does not support.
    Unsupported,
    /// A value over the reader's size caps.
    LimitError,
}

impl ErrorKind {
    fn label(self) -> &'static str {
        match self {
            ErrorKind::SyntaxError => "SyntaxError",
            ErrorKind::NameError => "NameError",
            ErrorKind::TypeError => "TypeError",
            ErrorKind::ValueError => "ValueError",
            ErrorKind::OverflowError => "OverflowError",
            ErrorKind::Unsupported => "not supported",
            ErrorKind::LimitError => "too large",
        }
    }
}

/// Why a text could not be read, and where (1-based line and column, in
/// characters, within the text given to the reader).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    pub kind: ErrorKind,
    pub message: String,
    /// 0-based char offset into the (newline-normalised) text.
    pub offset: usize,
    pub line: usize,
    pub column: usize,
}

impl ReadError {
    fn at(offset: usize, kind: ErrorKind, message: impl Into<String>) -> ReadError {
        ReadError {
            kind,
            message: message.into(),
            offset,
            line: 0,
            column: 0,
        }
    }

    /// Fills in line and column from the offset.
    fn locate(mut self, src: &[char]) -> ReadError {
        let upto = &src[..self.offset.min(src.len())];
        self.line = upto.iter().filter(|&&c| c == '\n').count() + 1;
        let line_start = upto.iter().rposition(|&c| c == '\n').map_or(0, |p| p + 1);
        self.column = upto.len() - line_start + 1;
        self
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 1 {
            write!(f, "line {}, ", self.line)?;
        }
        write!(
            f,
            "column {}: {}: {}",
            self.column,
            self.kind.label(),
            self.message
        )
    }
}

impl std::error::Error for ReadError {}

/// Named values (a case file's `[let]` table), defined in order; each may
/// use the ones defined before it.
#[derive(Clone, Debug, Default)]
pub struct Lets {
    vals: HashMap<String, Val>,
    /// Every name as written, in definition order: (name, source, the
    /// earlier names its source uses).
    written: Vec<(String, String, Vec<String>)>,
}

impl Lets {
    pub fn new() -> Lets {
        Lets::default()
    }

    /// Evaluates `text` with the names defined so far and binds it to `name`.
    /// The name must be a Python identifier that is not a keyword and does
    /// not hide `float`, `chr` or an earlier name.
    pub fn define(&mut self, name: &str, text: &str) -> Result<(), LetError> {
        if let Some(why) = bad_let_name(name) {
            return Err(LetError::Name(why));
        }
        if self.vals.contains_key(name) {
            return Err(LetError::Name(format!("{name:?} is defined twice")));
        }
        let (v, uses) = eval_names(text, self).map_err(LetError::Value)?;
        self.vals.insert(name.to_string(), v);
        self.written
            .push((name.to_string(), text.to_string(), uses));
        Ok(())
    }

    /// The bindings that `names` need, as written (`(name, source)`), in
    /// definition order: the named ones and every name their sources use,
    /// so that running them in order before a call reproduces its values.
    pub fn bindings(&self, names: &[String]) -> Vec<(String, String)> {
        let mut needed: std::collections::HashSet<&str> =
            names.iter().map(String::as_str).collect();
        // Later names use only earlier ones: one pass from the end closes the set.
        for (name, _, uses) in self.written.iter().rev() {
            if needed.contains(name.as_str()) {
                needed.extend(uses.iter().map(String::as_str));
            }
        }
        self.written
            .iter()
            .filter(|(name, _, _)| needed.contains(name.as_str()))
            .map(|(name, source, _)| (name.clone(), source.clone()))
            .collect()
    }

    /// The value of a name, if defined.
    pub fn value(&self, name: &str) -> Option<&PyValue> {
        self.vals.get(name).map(|v| &v.v)
    }

    fn get(&self, name: &str) -> Option<&Val> {
        self.vals.get(name)
    }
}

/// Why a `[let]` entry is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LetError {
    #[error("bad name: {0}")]
    Name(String),
    #[error("{0}")]
    Value(ReadError),
}

fn bad_let_name(name: &str) -> Option<String> {
    let mut chars = name.chars();
    let ok_start = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if !ok_start || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Some(format!(
            "{name:?} is not a name (letters, digits and '_', not starting with a digit)"
        ));
    }
    if parse::is_keyword(name) {
        return Some(format!("{name:?} is a Python keyword"));
    }
    if name == "float" || name == "chr" {
        return Some(format!("{name:?} would hide the builtin {name}()"));
    }
    None
}

/// A parsed and evaluated call: `function(*args, **kwargs)`.
#[derive(Clone, Debug)]
pub struct Call {
    pub function: String,
    pub args: Vec<PyValue>,
    /// Keyword arguments in the order written.
    pub kwargs: Vec<(String, PyValue)>,
    /// The `[let]` bindings the call uses, as written (`(name, source)`), in
    /// definition order, with the ones those use (see [`Lets::bindings`]).
    pub lets: Vec<(String, String)>,
}

/// Python reads `\r\n` and lone `\r` as `\n`.
fn normalise(text: &str) -> Vec<char> {
    let mut out = Vec::with_capacity(text.len());
    let mut it = text.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\r' {
            if it.peek() == Some(&'\n') {
                it.next();
            }
            out.push('\n');
        } else {
            out.push(c);
        }
    }
    out
}

fn eval_val(text: &str, lets: &Lets) -> Result<Val, ReadError> {
    eval_names(text, lets).map(|(v, _)| v)
}

/// [`eval_val`], with the `[let]` names the expression uses.
fn eval_names(text: &str, lets: &Lets) -> Result<(Val, Vec<String>), ReadError> {
    let src = normalise(text);
    let run = || {
        let toks = lex::tokenize(&src)?;
        let mut p = parse::Parser::new(toks);
        let node = p.expr_list()?;
        p.finish()?;
        let mut names = Vec::new();
        node.names(&mut names);
        let v = eval::eval(node, lets)?;
        Ok((v, names))
    };
    run().map_err(|e: ReadError| e.locate(&src))
}

/// Evaluates one expression (as Python's `eval` would, within the call
/// language) with the given `[let]` names.
pub fn eval_expr(text: &str, lets: &Lets) -> Result<PyValue, ReadError> {
    eval_val(text, lets).map(|v| v.v)
}

/// Reads `NAME(arg, ..., kw=value, ...)`, evaluating every argument.
pub fn parse_call(text: &str, lets: &Lets) -> Result<Call, ReadError> {
    let src = normalise(text);
    let run = || {
        let toks = lex::tokenize(&src)?;
        let mut p = parse::Parser::new(toks);
        let node = p.expr()?;
        p.finish()?;
        let parse::Expr::Call { name, args, kwargs } = node.expr else {
            return Err(ReadError::at(
                node.pos,
                ErrorKind::SyntaxError,
                "a call must look like function(arguments)",
            ));
        };
        let mut names = Vec::new();
        args.iter().for_each(|a| a.names(&mut names));
        kwargs.iter().for_each(|(_, _, a)| a.names(&mut names));
        let mut out = Call {
            function: name,
            args: Vec::with_capacity(args.len()),
            kwargs: Vec::with_capacity(kwargs.len()),
            lets: lets.bindings(&names),
        };
        let mut total = 0usize;
        // A matcher is an expected value: a student's function never gets one.
        let no_matcher = |v: &Val, pos: usize| {
            if crate::value::matcher::contains_matcher(&v.v) {
                return Err(ReadError::at(
                    pos,
                    ErrorKind::Unsupported,
                    "a matcher (any(), any_str(), ...) can only appear in expect, not in a call",
                ));
            }
            Ok(())
        };
        for a in args {
            let pos = a.pos;
            let v = eval::eval(a, lets)?;
            no_matcher(&v, pos)?;
            total = total.saturating_add(v.weight);
            if total > MAX_ELEMENTS {
                return Err(ReadError::at(pos, ErrorKind::LimitError, too_large()));
            }
            out.args.push(v.v);
        }
        for (k, _, a) in kwargs {
            let pos = a.pos;
            let v = eval::eval(a, lets)?;
            no_matcher(&v, pos)?;
            total = total.saturating_add(v.weight);
            if total > MAX_ELEMENTS {
                return Err(ReadError::at(pos, ErrorKind::LimitError, too_large()));
            }
            out.kwargs.push((k, v.v));
        }
        Ok(out)
    };
    run().map_err(|e| e.locate(&src))
}

#[cfg(test)]
mod tests;
