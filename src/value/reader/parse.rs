//! The parser: recursive descent over tokens with Python's precedence
//! (`**` > unary `-`/`+` > `*` > binary `+`/`-`), building a small AST.

use super::lex::{Tok, Token};
use super::{ErrorKind, ReadError};
use crate::value::{PyStr, PyValue};

/// Python's limit on nesting in one expression; also bounds the recursion of
/// the parser and the evaluator.
const MAX_NESTING: usize = 200;

#[derive(Debug)]
pub(super) struct Node {
    /// Char offset of the construct (the operator for binary operations).
    pub pos: usize,
    pub expr: Expr,
}

#[derive(Debug)]
pub(super) enum Expr {
    Const(PyValue),
    Name(String),
    List(Vec<Node>),
    Tuple(Vec<Node>),
    Dict(Vec<(Node, Node)>),
    Unary(char, Box<Node>),
    /// `+`, `-`, `*` or `**`.
    Binary(&'static str, Box<Node>, Box<Node>),
    Call {
        name: String,
        args: Vec<Node>,
        kwargs: Vec<(String, usize, Node)>,
    },
}

impl Node {
    /// Appends the names (`[let]` references) this expression uses.
    pub fn names(&self, out: &mut Vec<String>) {
        match &self.expr {
            Expr::Const(_) => {}
            Expr::Name(n) => out.push(n.clone()),
            Expr::List(items) | Expr::Tuple(items) => items.iter().for_each(|i| i.names(out)),
            Expr::Dict(pairs) => pairs.iter().for_each(|(k, v)| {
                k.names(out);
                v.names(out);
            }),
            Expr::Unary(_, x) => x.names(out),
            Expr::Binary(_, a, b) => {
                a.names(out);
                b.names(out);
            }
            Expr::Call { args, kwargs, .. } => {
                args.iter().for_each(|a| a.names(out));
                kwargs.iter().for_each(|(_, _, a)| a.names(out));
            }
        }
    }
}

pub(super) struct Parser {
    toks: Vec<Token>,
    i: usize,
    depth: usize,
}

fn syntax(pos: usize, msg: impl Into<String>) -> ReadError {
    ReadError::at(pos, ErrorKind::SyntaxError, msg)
}

impl Parser {
    pub fn new(toks: Vec<Token>) -> Parser {
        Parser {
            toks,
            i: 0,
            depth: 0,
        }
    }

    fn peek(&self) -> &Token {
        // `tokenize` always ends with `End`, and `next` never passes it.
        &self.toks[self.i.min(self.toks.len() - 1)]
    }

    /// Moves past the current token and returns it (taken out of `toks`: no
    /// token is looked at again once passed). Never passes `End`.
    fn next(&mut self) -> Token {
        let last = self.toks.len() - 1;
        if self.i < last {
            let passed = Token {
                pos: self.toks[self.i].pos,
                kind: Tok::End,
            };
            let t = std::mem::replace(&mut self.toks[self.i], passed);
            self.i += 1;
            t
        } else {
            self.toks[last].clone()
        }
    }

    fn is_op(&self, op: &str) -> bool {
        matches!(&self.peek().kind, Tok::Op(o) if *o == op)
    }

    fn eat_op(&mut self, op: &str) -> bool {
        if self.is_op(op) {
            self.next();
            true
        } else {
            false
        }
    }

    fn expect_op(&mut self, op: &str) -> Result<(), ReadError> {
        if self.eat_op(op) {
            Ok(())
        } else {
            Err(self.unexpected(&format!("'{op}'")))
        }
    }

    fn unexpected(&self, wanted: &str) -> ReadError {
        unexpected(self.peek(), wanted)
    }

    /// After the whole input: only line breaks may remain.
    pub fn finish(&mut self) -> Result<(), ReadError> {
        while matches!(self.peek().kind, Tok::Newline) {
            self.next();
        }
        if matches!(self.peek().kind, Tok::End) {
            Ok(())
        } else {
            Err(self.unexpected("the end of the expression"))
        }
    }

    fn enter(&mut self, pos: usize) -> Result<(), ReadError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(syntax(pos, "expression nested too deeply"));
        }
        Ok(())
    }

    /// `expr (',' expr)* [',']`: a bare comma makes a tuple, as in `eval`.
    pub fn expr_list(&mut self) -> Result<Node, ReadError> {
        let first = self.expr()?;
        if !self.is_op(",") {
            return Ok(first);
        }
        let pos = first.pos;
        let mut items = vec![first];
        while self.eat_op(",") {
            if self.at_expr_end() {
                break;
            }
            items.push(self.expr()?);
        }
        Ok(Node {
            pos,
            expr: Expr::Tuple(items),
        })
    }

    fn at_expr_end(&self) -> bool {
        matches!(self.peek().kind, Tok::End | Tok::Newline)
            || self.is_op(")")
            || self.is_op("]")
            || self.is_op("}")
    }

    /// `sum := term (('+' | '-') term)*`
    pub fn expr(&mut self) -> Result<Node, ReadError> {
        let mut left = self.term()?;
        loop {
            let op = if self.is_op("+") {
                "+"
            } else if self.is_op("-") {
                "-"
            } else {
                return Ok(left);
            };
            let pos = self.next().pos;
            let right = self.term()?;
            left = Node {
                pos,
                expr: Expr::Binary(op, Box::new(left), Box::new(right)),
            };
        }
    }

    /// `term := factor ('*' factor)*`
    fn term(&mut self) -> Result<Node, ReadError> {
        let mut left = self.factor()?;
        loop {
            if self.is_op("*") {
                let pos = self.next().pos;
                let right = self.factor()?;
                left = Node {
                    pos,
                    expr: Expr::Binary("*", Box::new(left), Box::new(right)),
                };
            } else if ["/", "//", "%", "@"].iter().any(|op| self.is_op(op)) {
                return Err(self.unexpected("an operator"));
            } else {
                return Ok(left);
            }
        }
    }

    /// `factor := ('-' | '+') factor | power`
    fn factor(&mut self) -> Result<Node, ReadError> {
        let t = self.peek();
        let (pos, sign) = match t.kind {
            Tok::Op("-") => (t.pos, '-'),
            Tok::Op("+") => (t.pos, '+'),
            Tok::Op("~") => return Err(self.unexpected("an expression")),
            _ => return self.power(),
        };
        self.next();
        self.enter(pos)?;
        let operand = self.factor()?;
        self.depth -= 1;
        Ok(Node {
            pos,
            expr: Expr::Unary(sign, Box::new(operand)),
        })
    }

    /// `power := primary ['**' factor]` (right-associative, and tighter than
    /// a unary minus on its left: `-2**2 == -4`).
    fn power(&mut self) -> Result<Node, ReadError> {
        let base = self.primary()?;
        if !self.is_op("**") {
            return Ok(base);
        }
        let pos = self.next().pos;
        self.enter(pos)?;
        let exp = self.factor()?;
        self.depth -= 1;
        Ok(Node {
            pos,
            expr: Expr::Binary("**", Box::new(base), Box::new(exp)),
        })
    }

    /// An atom, optionally called: `NAME(args)`.
    fn primary(&mut self) -> Result<Node, ReadError> {
        let atom = self.atom()?;
        if self.is_op("(") {
            let Expr::Name(name) = atom.expr else {
                return Err(ReadError::at(
                    self.peek().pos,
                    ErrorKind::Unsupported,
                    "only names can be called",
                ));
            };
            let open = self.next().pos;
            self.enter(open)?;
            let (args, kwargs) = self.arguments()?;
            self.depth -= 1;
            return self.trailers(Node {
                pos: atom.pos,
                expr: Expr::Call { name, args, kwargs },
            });
        }
        self.trailers(atom)
    }

    fn trailers(&mut self, node: Node) -> Result<Node, ReadError> {
        if self.is_op("(") || self.is_op("[") || self.is_op(".") {
            let t = self.peek();
            let what = match &t.kind {
                Tok::Op("[") => "indexing and slicing are",
                Tok::Op(".") => "attributes and methods are",
                _ => "calling the result of a call is",
            };
            return Err(ReadError::at(
                t.pos,
                ErrorKind::Unsupported,
                format!("{what} not supported in the call language"),
            ));
        }
        Ok(node)
    }

    /// The inside of `( ... )` after a name, up to and including `)`.
    #[allow(clippy::type_complexity)]
    fn arguments(&mut self) -> Result<(Vec<Node>, Vec<(String, usize, Node)>), ReadError> {
        let mut args = Vec::new();
        let mut kwargs: Vec<(String, usize, Node)> = Vec::new();
        loop {
            if self.eat_op(")") {
                return Ok((args, kwargs));
            }
            let pos = self.peek().pos;
            if self.is_op("*") || self.is_op("**") {
                return Err(ReadError::at(
                    pos,
                    ErrorKind::Unsupported,
                    "argument unpacking (*args, **kwargs) is not supported",
                ));
            }
            let is_kw = matches!(self.peek().kind, Tok::Name(_))
                && matches!(
                    self.toks.get(self.i + 1),
                    Some(Token {
                        kind: Tok::Op("="),
                        ..
                    })
                );
            if is_kw {
                let Tok::Name(name) = self.next().kind else {
                    unreachable!("checked above")
                };
                self.next();
                if kwargs.iter().any(|(k, _, _)| *k == name) {
                    return Err(syntax(pos, format!("keyword argument repeated: {name}")));
                }
                let value = self.expr()?;
                kwargs.push((name, pos, value));
            } else {
                let value = self.expr()?;
                if !kwargs.is_empty() {
                    return Err(syntax(
                        value.pos,
                        "positional argument follows keyword argument",
                    ));
                }
                args.push(value);
            }
            if !self.eat_op(",") && !self.is_op(")") {
                return Err(self.unexpected("',' or ')'"));
            }
        }
    }

    fn atom(&mut self) -> Result<Node, ReadError> {
        let t = self.next();
        let pos = t.pos;
        let expr = match t.kind {
            Tok::Int(i) => Expr::Const(PyValue::Int(i)),
            Tok::Float(f) => Expr::Const(PyValue::Float(f)),
            Tok::Str(s) => {
                // Adjacent literals concatenate: 'a' "b" == 'ab'.
                let mut cps = s.into_code_points();
                while let Tok::Str(more) = &self.peek().kind {
                    cps.extend_from_slice(more.code_points());
                    if cps.len() > super::MAX_ELEMENTS {
                        return Err(ReadError::at(
                            pos,
                            ErrorKind::LimitError,
                            super::too_large(),
                        ));
                    }
                    self.next();
                }
                Expr::Const(PyValue::Str(PyStr::from_code_points(cps)))
            }
            Tok::Name(n) => match n.as_str() {
                "None" => Expr::Const(PyValue::None),
                "True" => Expr::Const(PyValue::Bool(true)),
                "False" => Expr::Const(PyValue::Bool(false)),
                _ if is_keyword(&n) => {
                    return Err(ReadError::at(
                        pos,
                        ErrorKind::Unsupported,
                        format!("the keyword '{n}' is not supported in the call language"),
                    ))
                }
                _ => Expr::Name(n),
            },
            Tok::Op("(") => {
                self.enter(pos)?;
                let e = if self.eat_op(")") {
                    Expr::Tuple(Vec::new())
                } else {
                    let first = self.expr()?;
                    if self.eat_op(")") {
                        self.depth -= 1;
                        // A parenthesised expression keeps its own position.
                        return Ok(first);
                    }
                    let mut items = vec![first];
                    while self.eat_op(",") {
                        if self.is_op(")") {
                            break;
                        }
                        items.push(self.expr()?);
                    }
                    self.expect_op(")")?;
                    Expr::Tuple(items)
                };
                self.depth -= 1;
                e
            }
            Tok::Op("[") => {
                self.enter(pos)?;
                let mut items = Vec::new();
                while !self.eat_op("]") {
                    items.push(self.expr()?);
                    if !self.eat_op(",") && !self.is_op("]") {
                        return Err(self.unexpected("',' or ']'"));
                    }
                }
                self.depth -= 1;
                Expr::List(items)
            }
            Tok::Op("{") => {
                self.enter(pos)?;
                let mut items = Vec::new();
                while !self.eat_op("}") {
                    if self.is_op("**") {
                        return Err(ReadError::at(
                            self.peek().pos,
                            ErrorKind::Unsupported,
                            "dict unpacking (**d) is not supported",
                        ));
                    }
                    let k = self.expr()?;
                    if self.is_op(",") || self.is_op("}") {
                        return Err(ReadError::at(
                            k.pos,
                            ErrorKind::Unsupported,
                            "set displays are not supported (a dict needs 'key: value')",
                        ));
                    }
                    self.expect_op(":")?;
                    let v = self.expr()?;
                    items.push((k, v));
                    if !self.eat_op(",") && !self.is_op("}") {
                        return Err(self.unexpected("',' or '}'"));
                    }
                }
                self.depth -= 1;
                Expr::Dict(items)
            }
            kind => return Err(unexpected(&Token { pos, kind }, "an expression")),
        };
        Ok(Node { pos, expr })
    }
}

fn unexpected(t: &Token, wanted: &str) -> ReadError {
    match &t.kind {
        Tok::Op(op) if is_unsupported_op(op) => ReadError::at(
            t.pos,
            ErrorKind::Unsupported,
            format!("operator '{op}' is not supported in the call language"),
        ),
        other => syntax(
            t.pos,
            format!(
                "invalid syntax: expected {wanted}, found {}",
                describe(other)
            ),
        ),
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Name(n) => format!("name '{n}'"),
        Tok::Int(_) | Tok::Float(_) => "a number".into(),
        Tok::Str(_) => "a string".into(),
        Tok::Op(o) => format!("'{o}'"),
        Tok::Newline => "a line break".into(),
        Tok::End => "the end of the text".into(),
    }
}

fn is_unsupported_op(op: &str) -> bool {
    !matches!(
        op,
        "(" | ")" | "[" | "]" | "{" | "}" | "," | ":" | "=" | "+" | "-" | "*" | "**"
    )
}

/// Python's keywords (other than None/True/False), which cannot be names.
pub(super) fn is_keyword(n: &str) -> bool {
    matches!(
        n,
        "and"
            | "as"
            | "assert"
            | "async"
            | "await"
            | "break"
            | "class"
            | "continue"
            | "def"
            | "del"
            | "elif"
            | "else"
            | "except"
            | "finally"
            | "for"
            | "from"
            | "global"
            | "if"
            | "import"
            | "in"
            | "is"
            | "lambda"
            | "nonlocal"
            | "not"
            | "or"
            | "pass"
            | "raise"
            | "return"
            | "try"
            | "while"
            | "with"
            | "yield"
            | "None"
            | "True"
            | "False"
    )
}
