//! A static scan of `main.py` for constructs that reach into the harness
//! sharing its process: frames, the garbage collector, ctypes, the result
//! channel's file descriptors, `sys.modules` and `__main__`, `os._exit`,
//! signals, tracing hooks, `builtins`, dynamic imports and code.
//!
//! It works on tokens, like Python's `tokenize`: comments and string
//! literals are skipped (the expressions inside f-strings are not),
//! identifiers are NFKC-normalized as Python does (`ｓｙｓ` is `sys`), and
//! `import x as y` / `from x import a as b` are followed, so `y.attr` reads
//! as `x.attr`. It never runs the code, so it sees what is written, not
//! what is computed: `getattr(sys, "_get" + "frame")` shows only as
//! nothing, `__import__(...)` and `exec(...)` show as themselves.

use super::{Finding, Source};
use crate::value::reader::is_string_prefix;
use std::collections::HashMap;
use unicode_normalization::UnicodeNormalization;

/// The kinds of static finding, as reports name them.
pub const KINDS: &[&str] = &[
    "frames",
    "introspection",
    "native-code",
    "file-descriptors",
    "harness-modules",
    "exit",
    "signals",
    "tracing",
    "builtins",
    "dynamic-code",
    "processes",
    "module-patching",
    "source-encoding",
];

/// Modules whose import alone is a finding.
const MODULES: &[(&str, &str)] = &[
    ("inspect", "introspection"),
    ("gc", "introspection"),
    ("ctypes", "native-code"),
    ("_ctypes", "native-code"),
    ("cffi", "native-code"),
    ("signal", "signals"),
    ("_signal", "signals"),
    ("builtins", "builtins"),
    ("__main__", "harness-modules"),
    ("importlib", "dynamic-code"),
    ("subprocess", "processes"),
    ("multiprocessing", "processes"),
    ("pty", "processes"),
    ("_posixsubprocess", "processes"),
];

/// Dotted names (after following imports) that are findings wherever they
/// appear in a chain: `sys.modules`, `x.sys.modules`. A trailing `*`
/// matches any name with that start (`os.exec*`).
const QUALIFIED: &[(&str, &str)] = &[
    ("sys._getframe", "frames"),
    ("sys._current_frames", "frames"),
    ("sys._current_exceptions", "frames"),
    ("sys.modules", "harness-modules"),
    ("inspect.currentframe", "frames"),
    ("inspect.stack", "frames"),
    ("inspect.getouterframes", "frames"),
    ("inspect.trace", "frames"),
    ("gc.get_objects", "introspection"),
    ("gc.get_referrers", "introspection"),
    ("gc.get_referents", "introspection"),
    ("sys.settrace", "tracing"),
    ("sys.setprofile", "tracing"),
    ("sys.monitoring", "tracing"),
    ("threading.settrace", "tracing"),
    ("threading.setprofile", "tracing"),
    ("threading.settrace_all_threads", "tracing"),
    ("threading.setprofile_all_threads", "tracing"),
    ("os.write", "file-descriptors"),
    ("os.writev", "file-descriptors"),
    ("os.pwrite", "file-descriptors"),
    ("os.pwritev", "file-descriptors"),
    ("os.read", "file-descriptors"),
    ("os.readv", "file-descriptors"),
    ("os.pread", "file-descriptors"),
    ("os.fdopen", "file-descriptors"),
    ("os.dup", "file-descriptors"),
    ("os.dup2", "file-descriptors"),
    ("os.close", "file-descriptors"),
    ("os.closerange", "file-descriptors"),
    ("os.sendfile", "file-descriptors"),
    ("os.ftruncate", "file-descriptors"),
    ("os.lseek", "file-descriptors"),
    ("io.FileIO", "file-descriptors"),
    ("os._exit", "exit"),
    ("os.kill", "signals"),
    ("os.killpg", "signals"),
    ("os.pidfd_open", "signals"),
    ("os.fork", "processes"),
    ("os.forkpty", "processes"),
    ("os.setsid", "processes"),
    ("os.setpgrp", "processes"),
    ("os.system", "processes"),
    ("os.popen", "processes"),
    ("os.exec*", "processes"),
    ("os.spawn*", "processes"),
    ("os.posix_spawn*", "processes"),
];

/// Attributes that are findings whatever they are read from
/// (`e.__traceback__.tb_frame`, `f().f_back`).
const ATTRIBUTES: &[(&str, &str)] = &[
    ("_getframe", "frames"),
    ("_current_frames", "frames"),
    ("f_back", "frames"),
    ("f_globals", "frames"),
    ("f_locals", "frames"),
    ("f_builtins", "frames"),
    ("tb_frame", "frames"),
    ("gi_frame", "frames"),
    ("cr_frame", "frames"),
    ("ag_frame", "frames"),
    ("settrace", "tracing"),
    ("setprofile", "tracing"),
    ("__subclasses__", "introspection"),
    ("__globals__", "introspection"),
];

/// Names that are findings on their own (not after a `.`).
const NAMES: &[(&str, &str)] = &[
    ("__import__", "dynamic-code"),
    ("__builtins__", "builtins"),
    ("__main__", "harness-modules"),
];

/// Builtins that are findings when called (not defined, not an attribute).
const CALLS: &[(&str, &str)] = &[
    ("exec", "dynamic-code"),
    ("eval", "dynamic-code"),
    ("compile", "dynamic-code"),
];

/// Calls whose first argument, when it is an integer literal, is a file
/// descriptor: `open(3, "w")` writes to the harness's result channel.
const FD_OPENERS: &[&str] = &["open", "io.open", "io.FileIO", "os.fdopen"];

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Name(String),
    Op(char),
    /// An integer literal's value (`None` when it does not fit).
    Int(Option<u64>),
    /// Any other literal (a string, a float).
    Literal,
    /// The end of a logical line (or a `;`).
    End,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    line: u32,
}

/// Every finding of `source` (the text of `main.py`), in line order, each
/// construct once per line.
pub fn scan(source: &str) -> Vec<Finding> {
    let tokens = Lexer::new(source).tokens();
    let mut scan = Scan {
        tokens: &tokens,
        aliases: HashMap::new(),
        found: Vec::new(),
    };
    scan.run();
    let mut found = scan.found;
    found.sort_by(|a, b| (a.line, &a.what).cmp(&(b.line, &b.what)));
    found.dedup_by(|a, b| a.line == b.line && a.what == b.what);
    // `.settrace` says nothing more where `threading.settrace` is on the line.
    let covered = |f: &Finding| {
        f.what.starts_with('.')
            && found
                .iter()
                .any(|g| g.line == f.line && g.what != f.what && g.what.ends_with(&f.what))
    };
    let keep: Vec<bool> = found.iter().map(|f| !covered(f)).collect();
    found
        .into_iter()
        .zip(keep)
        .filter_map(|(f, keep)| keep.then_some(f))
        .collect()
}

struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: u32,
    depth: usize,
    out: Vec<Token>,
}

impl<'a> Lexer<'a> {
    fn new(source: &'a str) -> Self {
        Lexer {
            chars: source.chars().peekable(),
            line: 1,
            depth: 0,
            out: Vec::new(),
        }
    }

    fn tokens(mut self) -> Vec<Token> {
        self.code(None);
        self.out
    }

    fn push(&mut self, tok: Tok, line: u32) {
        self.out.push(Token { tok, line });
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        // "\r\n" is one line break, as are "\n" and "\r".
        if c == '\n' || (c == '\r' && self.chars.peek() != Some(&'\n')) {
            self.line += 1;
        }
        Some(c)
    }

    /// Code until the end, or (inside an f-string's replacement field)
    /// until the `}` that closes it at bracket depth `depth`.
    fn code(&mut self, field: Option<usize>) {
        while let Some(&c) = self.chars.peek() {
            let line = self.line;
            match c {
                '#' => {
                    while self.chars.peek().is_some_and(|&c| c != '\n' && c != '\r') {
                        self.bump();
                    }
                }
                '\\' => {
                    // A line continuation (or a stray backslash).
                    self.bump();
                    if self.chars.peek() == Some(&'\r') {
                        self.bump();
                    }
                    if self.chars.peek() == Some(&'\n') {
                        self.bump();
                    }
                }
                '\n' | '\r' => {
                    self.bump();
                    if self.depth == 0 && field.is_none() {
                        self.push(Tok::End, line);
                    }
                }
                '\'' | '"' => self.string(""),
                c if c.is_ascii_digit() => self.number(),
                '.' => {
                    self.bump();
                    if self.chars.peek().is_some_and(char::is_ascii_digit) {
                        self.number();
                        continue;
                    }
                    self.push(Tok::Op('.'), line);
                }
                c if c == '_' || c.is_alphabetic() => {
                    let mut name = String::new();
                    while let Some(&c) = self.chars.peek() {
                        if c == '_' || c.is_alphanumeric() {
                            name.push(c);
                            self.bump();
                        } else {
                            break;
                        }
                    }
                    let quote = self.chars.peek().is_some_and(|&q| q == '\'' || q == '"');
                    if quote && is_string_prefix(&name) {
                        self.string(&name);
                    } else {
                        let name = if name.is_ascii() {
                            name
                        } else {
                            name.nfkc().collect()
                        };
                        self.push(Tok::Name(name), line);
                    }
                }
                c if c.is_whitespace() => {
                    self.bump();
                }
                c => {
                    self.bump();
                    match c {
                        '(' | '[' | '{' => self.depth += 1,
                        ')' | ']' | '}' => {
                            if c == '}' && field == Some(self.depth) {
                                return;
                            }
                            self.depth = self.depth.saturating_sub(1);
                        }
                        ';' if self.depth == 0 => {
                            self.push(Tok::End, line);
                            continue;
                        }
                        _ => {}
                    }
                    self.push(Tok::Op(c), line);
                }
            }
        }
    }

    fn number(&mut self) {
        let line = self.line;
        let mut text = String::new();
        while let Some(&c) = self.chars.peek() {
            let exponent_sign =
                (c == '+' || c == '-') && text.ends_with(['e', 'E']) && !text.starts_with("0x");
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' || exponent_sign {
                text.push(c);
                self.bump();
            } else {
                break;
            }
        }
        let digits = text.replace('_', "").to_ascii_lowercase();
        let int = |s: &str, radix| u64::from_str_radix(s, radix).ok();
        let tok = if let Some(hex) = digits.strip_prefix("0x") {
            Tok::Int(int(hex, 16))
        } else if let Some(oct) = digits.strip_prefix("0o") {
            Tok::Int(int(oct, 8))
        } else if let Some(bin) = digits.strip_prefix("0b") {
            Tok::Int(int(bin, 2))
        } else if digits.chars().all(|c| c.is_ascii_digit()) {
            Tok::Int(int(&digits, 10))
        } else {
            Tok::Literal
        };
        self.push(tok, line);
    }

    /// A string literal (the next character is its quote); in an f-string,
    /// the replacement fields are code.
    fn string(&mut self, prefix: &str) {
        let line = self.line;
        let fstring = prefix.contains(['f', 'F']);
        let Some(quote) = self.bump() else { return };
        let triple = {
            let mut ahead = self.chars.clone();
            ahead.next() == Some(quote) && ahead.next() == Some(quote)
        };
        if triple {
            self.bump();
            self.bump();
        } else if self.chars.peek() == Some(&quote) {
            // An empty string.
            self.bump();
            self.push(Tok::Literal, line);
            return;
        }
        let mut run = 0;
        while let Some(c) = self.bump() {
            match c {
                '\\' => {
                    self.bump();
                }
                '\n' | '\r' if !triple => break,
                c if c == quote => {
                    run += 1;
                    if !triple || run == 3 {
                        break;
                    }
                    continue;
                }
                '{' if fstring => {
                    if self.chars.peek() == Some(&'{') {
                        self.bump();
                    } else {
                        let depth = self.depth;
                        self.code(Some(depth));
                        self.depth = depth;
                    }
                }
                _ => {}
            }
            run = 0;
        }
        self.push(Tok::Literal, line);
    }
}

struct Scan<'a> {
    tokens: &'a [Token],
    /// Local name → what it was imported as (`s` → `sys`, `w` → `os.write`).
    aliases: HashMap<String, String>,
    found: Vec<Finding>,
}

impl Scan<'_> {
    fn name(&self, i: usize) -> Option<&str> {
        match self.tokens.get(i).map(|t| &t.tok) {
            Some(Tok::Name(n)) => Some(n),
            _ => None,
        }
    }

    fn op(&self, i: usize, c: char) -> bool {
        self.tokens.get(i).is_some_and(|t| t.tok == Tok::Op(c))
    }

    fn line(&self, i: usize) -> u32 {
        self.tokens.get(i).map_or(0, |t| t.line)
    }

    fn find(&mut self, kind: &str, line: u32, what: String) {
        self.found.push(Finding {
            source: Source::Static,
            kind: kind.to_string(),
            line: Some(line),
            what,
        });
    }

    /// Whether token `i` starts a statement.
    fn statement_start(&self, i: usize) -> bool {
        i == 0 || matches!(self.tokens[i - 1].tok, Tok::End | Tok::Op(':'))
    }

    fn run(&mut self) {
        let mut i = 0;
        while i < self.tokens.len() {
            let after_dot = i > 0 && self.op(i - 1, '.');
            match self.name(i) {
                Some("import") if self.statement_start(i) => i = self.import(i + 1),
                Some("from") if self.statement_start(i) => i = self.import_from(i + 1),
                Some(_) if !after_dot => i = self.chain(i),
                Some(attr) => {
                    if let Some((_, kind)) = ATTRIBUTES.iter().find(|(a, _)| *a == attr) {
                        let what = format!(".{attr}");
                        self.find(kind, self.line(i), what);
                    }
                    i += 1;
                }
                None => i += 1,
            }
        }
    }

    /// A dotted name at `i` (`a`, `a.b.c`): its parts and their token indices.
    fn dotted(&self, mut i: usize) -> (Vec<(String, usize)>, usize) {
        let mut parts = Vec::new();
        while let Some(n) = self.name(i) {
            parts.push((n.to_string(), i));
            if self.op(i + 1, '.') && self.name(i + 2).is_some() {
                i += 2;
            } else {
                i += 1;
                break;
            }
        }
        (parts, i)
    }

    /// `import a.b as c, d` (from after `import`).
    fn import(&mut self, mut i: usize) -> usize {
        loop {
            let (parts, next) = self.dotted(i);
            if parts.is_empty() {
                return next.max(i + 1);
            }
            let line = self.line(i);
            let module: Vec<&str> = parts.iter().map(|(p, _)| p.as_str()).collect();
            let module = module.join(".");
            self.module_imported(&module, line, format!("import {module}"));
            i = next;
            if self.name(i) == Some("as") {
                if let Some(alias) = self.name(i + 1) {
                    self.aliases.insert(alias.to_string(), module.clone());
                }
                i += 2;
            } else {
                // `import a.b` binds `a`.
                let top = parts[0].0.clone();
                self.aliases.insert(top.clone(), top);
            }
            if self.op(i, ',') {
                i += 1;
            } else {
                return i;
            }
        }
    }

    /// `from a.b import c as d, (e)` (from after `from`); anything else
    /// (`raise x from y`) is read as code.
    fn import_from(&mut self, i: usize) -> usize {
        let mut j = i;
        while self.op(j, '.') {
            j += 1; // relative imports
        }
        let (parts, mut j) = self.dotted(j);
        if self.name(j) != Some("import") {
            return i;
        }
        let module: Vec<&str> = parts.iter().map(|(p, _)| p.as_str()).collect();
        let module = module.join(".");
        let line = self.line(i);
        j += 1;
        let paren = self.op(j, '(');
        if paren {
            j += 1;
        }
        loop {
            if self.op(j, '*') {
                self.module_imported(&module, line, format!("from {module} import *"));
                j += 1;
            } else if let Some(name) = self.name(j).map(str::to_string) {
                let full = format!("{module}.{name}");
                let line = self.line(j);
                // `gc.get_objects` says more than `from gc import get_objects`.
                let before = self.found.len();
                self.qualified(&[(full.clone(), j)], line);
                if self.found.len() == before {
                    self.module_imported(&module, line, format!("from {module} import {name}"));
                }
                j += 1;
                let local = if self.name(j) == Some("as") {
                    j += 2;
                    self.name(j - 1).map(str::to_string)
                } else {
                    Some(name)
                };
                if let Some(local) = local {
                    self.aliases.insert(local, full);
                }
            } else {
                return j.max(i + 1);
            }
            if self.op(j, ',') {
                j += 1;
            } else {
                break;
            }
        }
        if paren && self.op(j, ')') {
            j += 1;
        }
        j
    }

    /// A finding when `module` (or the package it is in) is one of [`MODULES`].
    fn module_imported(&mut self, module: &str, line: u32, what: String) {
        let top = module.split('.').next().unwrap_or(module);
        if let Some((_, kind)) = MODULES.iter().find(|(m, _)| *m == top) {
            self.find(kind, line, what);
        }
    }

    /// A name and the attributes read from it, at `i` (not after a `.`).
    fn chain(&mut self, i: usize) -> usize {
        let (parts, next) = self.dotted(i);
        let Some((head, _)) = parts.first().cloned() else {
            return i + 1;
        };
        let line = self.line(i);
        let defined = i > 0 && matches!(self.name(i - 1), Some("def" | "class"));
        if !defined {
            if let Some((_, kind)) = NAMES.iter().find(|(n, _)| *n == head) {
                self.find(kind, line, head.clone());
            }
            let called = self.op(next, '(');
            if called && parts.len() == 1 && !self.aliases.contains_key(&head) {
                if let Some((_, kind)) = CALLS.iter().find(|(n, _)| *n == head) {
                    self.find(kind, line, format!("{head}()"));
                }
            }
        }
        // The head as imported (`s` → `sys`), then each attribute.
        let mut resolved: Vec<(String, usize)> = Vec::new();
        match self.aliases.get(&head) {
            Some(full) => {
                resolved.extend(full.split('.').map(|p| (p.to_string(), parts[0].1)));
            }
            None => resolved.push(parts[0].clone()),
        }
        resolved.extend(parts[1..].iter().cloned());
        for (attr, at) in &parts[1..] {
            if let Some((_, kind)) = ATTRIBUTES.iter().find(|(a, _)| a == attr) {
                let what = format!(".{attr}");
                self.find(kind, self.line(*at), what);
            }
        }
        self.qualified(&resolved, line);
        // `json.dumps = ...`: an imported module's attribute replaced.
        let assigned = self.op(next, '=') && !self.op(next + 1, '=');
        if assigned && parts.len() > 1 && self.aliases.contains_key(&head) {
            let names: Vec<&str> = resolved.iter().map(|(p, _)| p.as_str()).collect();
            self.find("module-patching", line, format!("{} = …", names.join(".")));
        }
        if self.op(next, '(') {
            self.fd_call(&resolved, next + 1, line);
        }
        next
    }

    /// Findings of [`QUALIFIED`] in a resolved chain, from any of its parts.
    fn qualified(&mut self, chain: &[(String, usize)], line: u32) {
        /// [`QUALIFIED`]'s patterns split into their parts, once: this runs
        /// for every name chain of a source.
        static PATTERNS: std::sync::LazyLock<Vec<(Vec<&str>, &str)>> =
            std::sync::LazyLock::new(|| {
                QUALIFIED
                    .iter()
                    .map(|(pattern, kind)| (pattern.split('.').collect(), *kind))
                    .collect()
            });
        let names: Vec<&str> = chain.iter().flat_map(|(p, _)| p.split('.')).collect();
        for start in 0..names.len() {
            for (want, kind) in PATTERNS.iter() {
                let Some(got) = names.get(start..start + want.len()) else {
                    continue;
                };
                let matched = want
                    .iter()
                    .zip(got)
                    .all(|(w, g)| match w.strip_suffix('*') {
                        Some(prefix) => g.starts_with(prefix),
                        None => w == g,
                    });
                if matched {
                    self.find(kind, line, got.join("."));
                }
            }
        }
    }

    /// `open(3, ...)`, `os.fdopen(1)`: a call of [`FD_OPENERS`] on an
    /// integer literal (`args` is the token after the `(`).
    fn fd_call(&mut self, chain: &[(String, usize)], args: usize, line: u32) {
        let names: Vec<&str> = chain.iter().flat_map(|(p, _)| p.split('.')).collect();
        let called = names.join(".");
        if !FD_OPENERS.contains(&called.as_str()) {
            return;
        }
        if let Some(Tok::Int(fd)) = self.tokens.get(args).map(|t| &t.tok) {
            let fd = fd.map_or("?".to_string(), |n| n.to_string());
            self.find("file-descriptors", line, format!("{called}({fd}, …)"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(source: &str) -> Vec<(u32, String, String)> {
        scan(source)
            .into_iter()
            .map(|f| (f.line.unwrap(), f.kind, f.what))
            .collect()
    }

    fn whats(source: &str) -> Vec<String> {
        scan(source).into_iter().map(|f| f.what).collect()
    }

    #[test]
    fn strings_and_comments_are_not_code() {
        let source = r#"
# import ctypes; sys._getframe(); os.write(3, b"x")
s = "import inspect; gc.get_objects()"
t = '''
sys.modules['__main__'] = None
os._exit(0)
'''
u = r"\" import gc \""
v = b'__import__("os")'
w = f"{x!r:>10} sys._getframe {{gc}}"
if __name__ == "__main__":
    print("signal.SIGKILL", 'exec(', "eval")
"#;
        assert_eq!(found(source), vec![]);
    }

    #[test]
    fn constructs_are_found_with_their_lines() {
        let source = "import sys, inspect as ins\n\
                      import ctypes.util\n\
                      from os import write as w, _exit\n\
                      from gc import (get_objects,\n    get_referrers)\n\
                      def f():\n    frame = sys._getframe(1).f_back\n    w(3, b'x')\n\
                      \x20   sys.modules['__main__'].INIT = None\n\
                      x = f\"{__import__('os')}\"\n\
                      open(3, 'w').write('forged')\n\
                      os.dup2(5, 1); threading.settrace(None)\n";
        assert_eq!(
            found(source),
            vec![
                (1, "introspection".into(), "import inspect".into()),
                (2, "native-code".into(), "import ctypes.util".into()),
                (3, "exit".into(), "os._exit".into()),
                (3, "file-descriptors".into(), "os.write".into()),
                (4, "introspection".into(), "gc.get_objects".into()),
                (5, "introspection".into(), "gc.get_referrers".into()),
                (7, "frames".into(), ".f_back".into()),
                (7, "frames".into(), "sys._getframe".into()),
                (8, "file-descriptors".into(), "os.write".into()),
                (9, "harness-modules".into(), "sys.modules".into()),
                (10, "dynamic-code".into(), "__import__".into()),
                (11, "file-descriptors".into(), "open(3, …)".into()),
                (12, "file-descriptors".into(), "os.dup2".into()),
                (12, "tracing".into(), "threading.settrace".into()),
            ]
        );
    }

    #[test]
    fn aliases_and_lookalike_letters_are_followed() {
        assert_eq!(whats("import sys as s\ns._getframe()"), ["sys._getframe"]);
        // Fullwidth letters are the same identifier to Python (NFKC).
        assert_eq!(
            whats("import ｓｙｓ\nｓｙｓ.ｍｏｄｕｌｅｓ.clear()"),
            ["sys.modules"]
        );
        assert_eq!(whats("import os\nos.sys.modules.pop('x')"), ["sys.modules"]);
        assert_eq!(whats("e.__traceback__.tb_frame"), [".tb_frame"]);
        assert_eq!(whats("os.execv('/bin/sh', [])"), ["os.execv"]);
    }

    #[test]
    fn ordinary_code_has_no_findings() {
        let source = r#"
import json, re, math
from typing import Any
def eval_call(call: dict) -> Any:
    pattern = re.compile(r"\d+")
    data = json.loads(call["arguments"])
    result = obj.eval(data)
    raise ValueError("bad") from None
def compile(x):
    return x
class Tool:
    def write(self, fd):
        self.close()
with open("x.txt") as fh:
    pass
"#;
        assert_eq!(found(source), vec![]);
    }

    #[test]
    fn replacing_an_imported_modules_attribute_is_patching() {
        let source = "import json, builtins as b\nfrom os import path\n\
                      json.dumps = lambda *a: '{}'\nb.print = None\npath.sep = '/'\n\
                      if json.dumps == x: pass\nlocal = {}\nlocal.x = 1\n";
        assert_eq!(
            found(source),
            vec![
                (1, "builtins".into(), "import builtins".into()),
                (3, "module-patching".into(), "json.dumps = …".into()),
                (4, "module-patching".into(), "builtins.print = …".into()),
                (5, "module-patching".into(), "os.path.sep = …".into()),
            ]
        );
    }

    #[test]
    fn exec_and_eval_calls_are_dynamic_code() {
        assert_eq!(
            found("exec('import ' + 'ctypes')\nx = eval(s)"),
            vec![
                (1, "dynamic-code".into(), "exec()".into()),
                (2, "dynamic-code".into(), "eval()".into())
            ]
        );
    }

    #[test]
    fn lines_count_every_kind_of_break_and_continuation() {
        let source = "x = '''a\r\nb\rc'''\r\nimport gc\nimport \\\n  signal\n";
        assert_eq!(
            found(source),
            vec![
                (4, "introspection".into(), "import gc".into()),
                (6, "signals".into(), "import signal".into()),
            ]
        );
    }
}
