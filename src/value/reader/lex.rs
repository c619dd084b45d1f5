//! The tokenizer: Python's lexical rules for the literals, names and
//! operators the call language uses (and clear errors for the rest).

use super::{ErrorKind, ReadError};
use crate::value::int_digits::MAX_INT_DIGITS;
use crate::value::PyStr;
use num_bigint::BigInt;
use num_traits::Num;

/// One token with the char offset where it starts.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Token {
    pub pos: usize,
    pub kind: Tok,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Name(String),
    Int(BigInt),
    Float(f64),
    Str(PyStr),
    /// An operator or delimiter, e.g. `(`, `**`, `//`.
    Op(&'static str),
    /// A line break outside brackets (only allowed at the end).
    Newline,
    End,
}

/// Operators and delimiters, longest first so `**` wins over `*`.
const OPS: &[&str] = &[
    "**=", "//=", ">>=", "<<=", "...", "**", "//", "==", "!=", "<=", ">=", "->", ":=", "+=", "-=",
    "*=", "/=", "%=", "&=", "|=", "^=", "@=", "<<", ">>", "(", ")", "[", "]", "{", "}", ",", ":",
    "=", "+", "-", "*", "/", "%", "@", ".", "~", "<", ">", "&", "|", "^", ";",
];

/// For each ASCII char, the operators starting with it: bit `k` stands for
/// `OPS[k]`. Every operator is ASCII (so it is compared byte for char).
const OPS_BY_FIRST: [u64; 128] = {
    assert!(OPS.len() <= 64);
    let mut table = [0u64; 128];
    let mut k = 0;
    while k < OPS.len() {
        assert!(OPS[k].is_ascii());
        table[OPS[k].as_bytes()[0] as usize] |= 1 << k;
        k += 1;
    }
    table
};

/// Python's limit on open brackets (the tokenizer's MAXLEVEL).
const MAX_BRACKETS: usize = 200;

/// Splits `src` (already newline-normalised, as chars) into tokens.
pub(super) fn tokenize(src: &[char]) -> Result<Vec<Token>, ReadError> {
    let mut lx = Lexer {
        s: src,
        i: 0,
        brackets: Vec::new(),
        out: Vec::new(),
    };
    lx.run()?;
    Ok(lx.out)
}

struct Lexer<'a> {
    s: &'a [char],
    i: usize,
    /// Open brackets (char and position), for implicit line joining.
    brackets: Vec<(char, usize)>,
    out: Vec<Token>,
}

fn syntax(pos: usize, msg: impl Into<String>) -> ReadError {
    ReadError::at(pos, ErrorKind::SyntaxError, msg)
}

fn is_id_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_id_continue(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

impl Lexer<'_> {
    fn peek(&self, k: usize) -> Option<char> {
        self.s.get(self.i + k).copied()
    }

    fn push(&mut self, pos: usize, kind: Tok) {
        self.out.push(Token { pos, kind });
    }

    fn run(&mut self) -> Result<(), ReadError> {
        while let Some(c) = self.peek(0) {
            let pos = self.i;
            match c {
                ' ' | '\t' | '\x0c' => self.i += 1,
                '#' => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                '\n' => {
                    self.i += 1;
                    if self.brackets.is_empty()
                        && !matches!(
                            self.out.last(),
                            None | Some(Token {
                                kind: Tok::Newline,
                                ..
                            })
                        )
                    {
                        self.push(pos, Tok::Newline);
                    }
                }
                '\\' => {
                    if self.peek(1) == Some('\n') {
                        self.i += 2;
                    } else {
                        return Err(syntax(
                            pos,
                            "unexpected character after line continuation character",
                        ));
                    }
                }
                '\'' | '"' => self.string(pos, "")?,
                c if c.is_ascii_digit() => self.number(pos)?,
                '.' if self.peek(1).is_some_and(|d| d.is_ascii_digit()) => self.number(pos)?,
                c if is_id_start(c) => {
                    let start = self.i;
                    while self.peek(0).is_some_and(is_id_continue) {
                        self.i += 1;
                    }
                    let name: String = self.s[start..self.i].iter().collect();
                    if matches!(self.peek(0), Some('\'' | '"')) && is_string_prefix(&name) {
                        self.string(pos, &name)?;
                    } else {
                        self.push(pos, Tok::Name(name));
                    }
                }
                c if !c.is_ascii() && c.is_alphabetic() => {
                    return Err(syntax(
                        pos,
                        format!(
                            "non-ASCII name character {c:?}: names are ASCII in the call language"
                        ),
                    ));
                }
                _ => self.op(pos, c)?,
            }
        }
        if let Some(&(c, p)) = self.brackets.last() {
            return Err(syntax(p, format!("'{c}' was never closed")));
        }
        let end = self.i;
        self.push(end, Tok::End);
        Ok(())
    }

    fn op(&mut self, pos: usize, c: char) -> Result<(), ReadError> {
        // The first of the operators starting with `c` that `rest` starts with.
        let rest = &self.s[self.i..];
        let mut candidates = if c.is_ascii() {
            OPS_BY_FIRST[c as usize]
        } else {
            0
        };
        let op = std::iter::from_fn(|| {
            let k = candidates.trailing_zeros() as usize;
            candidates &= candidates.wrapping_sub(1);
            OPS.get(k)
        })
        .find(|op| {
            op.len() <= rest.len() && op.bytes().zip(rest).all(|(o, &c)| c == char::from(o))
        });
        let Some(&op) = op else {
            return Err(syntax(
                pos,
                format!("invalid character '{c}' (U+{:04X})", c as u32),
            ));
        };
        match op {
            "(" | "[" | "{" => {
                if self.brackets.len() >= MAX_BRACKETS {
                    return Err(syntax(pos, "too many nested parentheses"));
                }
                self.brackets.push((c, pos));
            }
            ")" | "]" | "}" => {
                let want = match op {
                    ")" => '(',
                    "]" => '[',
                    _ => '{',
                };
                match self.brackets.pop() {
                    None => return Err(syntax(pos, format!("unmatched '{op}'"))),
                    Some((open, _)) if open != want => {
                        return Err(syntax(
                            pos,
                            format!("closing parenthesis '{op}' does not match opening parenthesis '{open}'"),
                        ))
                    }
                    Some(_) => {}
                }
            }
            _ => {}
        }
        self.i += op.len();
        self.push(pos, Tok::Op(op));
        Ok(())
    }

    /// Reads `digit (_? digit)*` in the given radix; returns the digits without
    /// underscores. Stops before anything that is not `_digit`.
    fn digits(&mut self, radix: u32, invalid: &str) -> Result<String, ReadError> {
        let mut out = String::new();
        loop {
            match self.peek(0) {
                Some(c) if c.is_digit(radix) => {
                    out.push(c);
                    self.i += 1;
                }
                Some('_') if !out.is_empty() || radix != 10 => {
                    if self.peek(1).is_some_and(|d| d.is_digit(radix)) {
                        self.i += 1;
                    } else {
                        return Err(syntax(self.i, invalid.to_string()));
                    }
                }
                _ => return Ok(out),
            }
        }
    }

    fn number(&mut self, pos: usize) -> Result<(), ReadError> {
        const INVALID: &str = "invalid decimal literal";
        if self.peek(0) == Some('0') {
            let radix = match self.peek(1) {
                Some('x' | 'X') => Some((16, "hexadecimal")),
                Some('o' | 'O') => Some((8, "octal")),
                Some('b' | 'B') => Some((2, "binary")),
                _ => None,
            };
            if let Some((radix, what)) = radix {
                self.i += 2;
                let invalid = format!("invalid {what} literal");
                let ds = self.digits(radix, &invalid)?;
                if ds.is_empty() || self.peek(0).is_some_and(|c| c.is_ascii_alphanumeric()) {
                    return Err(syntax(pos, invalid));
                }
                let v =
                    BigInt::from_str_radix(&ds, radix).map_err(|_| syntax(pos, invalid.clone()))?;
                super::check_int(&v).map_err(|m| ReadError::at(pos, ErrorKind::LimitError, m))?;
                self.push(pos, Tok::Int(v));
                return Ok(());
            }
        }
        let int_part = self.digits(10, INVALID)?;
        let mut text = int_part.clone();
        let mut is_float = false;
        if self.peek(0) == Some('.') {
            is_float = true;
            self.i += 1;
            text.push('.');
            if self.peek(0) == Some('_') {
                return Err(syntax(self.i, INVALID));
            }
            text.push_str(&self.digits(10, INVALID)?);
        }
        if matches!(self.peek(0), Some('e' | 'E')) {
            let save = self.i;
            self.i += 1;
            let mut exp = String::from("e");
            if let Some(sign @ ('+' | '-')) = self.peek(0) {
                exp.push(sign);
                self.i += 1;
            }
            let ds = self.digits(10, INVALID)?;
            if ds.is_empty() {
                return Err(syntax(save, INVALID));
            }
            exp.push_str(&ds);
            text.push_str(&exp);
            is_float = true;
        }
        if matches!(self.peek(0), Some('j' | 'J')) {
            return Err(ReadError::at(
                pos,
                ErrorKind::Unsupported,
                "complex numbers are not supported",
            ));
        }
        if self
            .peek(0)
            .is_some_and(|c| is_id_continue(c) || (!c.is_ascii() && c.is_alphanumeric()))
        {
            return Err(syntax(self.i, INVALID));
        }
        if is_float {
            let f: f64 = text.parse().map_err(|_| syntax(pos, INVALID))?;
            self.push(pos, Tok::Float(f));
            return Ok(());
        }
        if int_part.len() > 1 && int_part.starts_with('0') {
            if int_part.chars().any(|c| c != '0') {
                return Err(syntax(
                    pos,
                    "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers",
                ));
            }
            self.push(pos, Tok::Int(BigInt::from(0)));
            return Ok(());
        }
        if int_part.len() > MAX_INT_DIGITS {
            return Err(ReadError::at(
                pos,
                ErrorKind::LimitError,
                format!(
                    "Exceeds the limit ({MAX_INT_DIGITS} digits) for integer string conversion: value has {} digits",
                    int_part.len()
                ),
            ));
        }
        let v: BigInt = int_part.parse().map_err(|_| syntax(pos, INVALID))?;
        self.push(pos, Tok::Int(v));
        Ok(())
    }

    /// Reads a string literal whose prefix (already consumed) is `prefix`.
    fn string(&mut self, pos: usize, prefix: &str) -> Result<(), ReadError> {
        let lower = prefix.to_ascii_lowercase();
        if lower.contains('b') {
            return Err(ReadError::at(
                pos,
                ErrorKind::Unsupported,
                "bytes literals are not supported",
            ));
        }
        if lower.contains('f') {
            return Err(ReadError::at(
                pos,
                ErrorKind::Unsupported,
                "f-strings are not supported",
            ));
        }
        if lower.contains('t') {
            return Err(ReadError::at(
                pos,
                ErrorKind::Unsupported,
                "t-strings are not supported",
            ));
        }
        let raw = lower.contains('r');
        let q = self.peek(0).unwrap_or('\'');
        let triple = self.peek(1) == Some(q) && self.peek(2) == Some(q);
        self.i += if triple { 3 } else { 1 };
        // Only computed on error: counting lines per literal would be quadratic.
        let start_line = |s: &[char]| s[..pos].iter().filter(|&&c| c == '\n').count() + 1;
        let mut cps: Vec<u32> = Vec::new();
        // Is `c` taken as it is, whatever follows?
        let plain = |c: char| c != q && c != '\\' && (triple || c != '\n');
        loop {
            // A run of plain chars at once (as if pushed one by one, so never
            // more than one past the cap).
            let room = (super::MAX_ELEMENTS + 1).saturating_sub(cps.len());
            let run = self.s[self.i..]
                .iter()
                .take(room)
                .take_while(|&&c| plain(c))
                .count();
            if run > 0 {
                cps.extend(self.s[self.i..self.i + run].iter().map(|&c| c as u32));
                self.i += run;
                if cps.len() > super::MAX_ELEMENTS {
                    return Err(ReadError::at(
                        pos,
                        ErrorKind::LimitError,
                        super::too_large(),
                    ));
                }
                continue;
            }
            let Some(c) = self.peek(0) else {
                return Err(syntax(
                    pos,
                    if triple {
                        format!(
                            "unterminated triple-quoted string literal (detected at line {})",
                            self.line()
                        )
                    } else {
                        format!(
                            "unterminated string literal (detected at line {})",
                            start_line(self.s)
                        )
                    },
                ));
            };
            if c == q && (!triple || (self.peek(1) == Some(q) && self.peek(2) == Some(q))) {
                self.i += if triple { 3 } else { 1 };
                break;
            }
            if c == '\n' && !triple {
                return Err(syntax(
                    pos,
                    format!(
                        "unterminated string literal (detected at line {})",
                        start_line(self.s)
                    ),
                ));
            }
            if c == '\\' {
                if raw {
                    // A backslash keeps the next char from ending the string,
                    // and both stay in the value.
                    cps.push('\\' as u32);
                    self.i += 1;
                    if let Some(n) = self.peek(0) {
                        cps.push(n as u32);
                        self.i += 1;
                    }
                    continue;
                }
                self.escape(&mut cps)?;
                continue;
            }
            cps.push(c as u32);
            self.i += 1;
            if cps.len() > super::MAX_ELEMENTS {
                return Err(ReadError::at(
                    pos,
                    ErrorKind::LimitError,
                    super::too_large(),
                ));
            }
        }
        self.push(pos, Tok::Str(PyStr::from_code_points(cps)));
        Ok(())
    }

    fn line(&self) -> usize {
        self.s[..self.i.min(self.s.len())]
            .iter()
            .filter(|&&c| c == '\n')
            .count()
            + 1
    }

    /// Decodes one escape sequence starting at the backslash.
    fn escape(&mut self, cps: &mut Vec<u32>) -> Result<(), ReadError> {
        let at = self.i;
        self.i += 1;
        let Some(c) = self.peek(0) else {
            return Ok(()); // the caller reports the unterminated string
        };
        self.i += 1;
        let simple = match c {
            '\n' => return Ok(()),
            '\\' => Some('\\'),
            '\'' => Some('\''),
            '"' => Some('"'),
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'f' => Some('\x0c'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\x0b'),
            _ => None,
        };
        if let Some(s) = simple {
            cps.push(s as u32);
            return Ok(());
        }
        match c {
            '0'..='7' => {
                let mut v = c.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match self.peek(0).and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            self.i += 1;
                        }
                        None => break,
                    }
                }
                cps.push(v);
            }
            'x' | 'u' | 'U' => {
                let n = match c {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let mut v: u32 = 0;
                for k in 0..n {
                    match self.peek(0).and_then(|d| d.to_digit(16)) {
                        Some(d) => {
                            v = v.wrapping_mul(16).wrapping_add(d);
                            self.i += 1;
                        }
                        None => {
                            let _ = k;
                            let what = match c {
                                'x' => "\\xXX",
                                'u' => "\\uXXXX",
                                _ => "\\UXXXXXXXX",
                            };
                            return Err(syntax(
                                at,
                                format!("(unicode error) truncated {what} escape"),
                            ));
                        }
                    }
                }
                if v > 0x10FFFF {
                    return Err(syntax(at, "(unicode error) illegal Unicode character"));
                }
                cps.push(v);
            }
            'N' => {
                return Err(ReadError::at(
                    at,
                    ErrorKind::Unsupported,
                    "\\N{...} escapes are not supported; write \\uXXXX",
                ))
            }
            other => {
                // Python keeps unknown escapes as written (with a warning).
                cps.push('\\' as u32);
                cps.push(other as u32);
            }
        }
        Ok(())
    }
}

/// Whether `name` (letters before a quote) is a prefix CPython 3.14 reads
/// as part of a string literal: r, u, b, f, t and their pairs (rb, fr, tr
/// in either order), in any letter case.
pub fn is_string_prefix(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().as_str(),
        "r" | "u" | "b" | "f" | "t" | "br" | "rb" | "fr" | "rf" | "tr" | "rt"
    )
}
