use super::*;
use crate::value::{strict_eq, PyDict, PyStr};
use num_bigint::BigInt;

fn ev(text: &str) -> PyValue {
    match eval_expr(text, &Lets::new()) {
        Ok(v) => v,
        Err(e) => panic!("{text:?} failed: {e}"),
    }
}

fn fails(text: &str) -> ReadError {
    match eval_expr(text, &Lets::new()) {
        Ok(v) => panic!("{text:?} should fail, gave {v:?}"),
        Err(e) => e,
    }
}

fn same(text: &str, want: PyValue) {
    let got = ev(text);
    assert!(
        strict_eq(&got, &want),
        "{text:?}: got {got:?}, want {want:?}"
    );
}

fn s(t: &str) -> PyValue {
    PyValue::str(t)
}

fn i(n: i64) -> PyValue {
    PyValue::int(n)
}

fn cps(c: &[u32]) -> PyValue {
    PyValue::Str(PyStr::from_code_points(c.to_vec()))
}

#[test]
fn constants_and_numbers() {
    same("None", PyValue::None);
    same("True", PyValue::Bool(true));
    same("False", PyValue::Bool(false));
    same("0", i(0));
    same("00", i(0));
    same("1_000_000", i(1_000_000));
    same("0x1F", i(31));
    same("0x_f", i(15));
    same("0o17", i(15));
    same("0b101", i(5));
    same("1.5", PyValue::Float(1.5));
    same("1.", PyValue::Float(1.0));
    same(".5", PyValue::Float(0.5));
    same("1e9", PyValue::Float(1e9));
    same("1E-3", PyValue::Float(0.001));
    same("01e1", PyValue::Float(10.0));
    same("1_0.2_5", PyValue::Float(10.25));
    same("1e1_0", PyValue::Float(1e10));
    same("1e999", PyValue::Float(f64::INFINITY));
    same("-1e999", PyValue::Float(f64::NEG_INFINITY));
    same("1e-999", PyValue::Float(0.0));
    let big = "123456789012345678901234567890";
    same(big, PyValue::Int(big.parse::<BigInt>().unwrap()));
    same(
        &format!("-{big}"),
        PyValue::Int(-big.parse::<BigInt>().unwrap()),
    );
    // -0 is the int 0, -0.0 keeps its sign.
    same("-0", i(0));
    match ev("-0.0") {
        PyValue::Float(f) => assert!(f == 0.0 && f.is_sign_negative()),
        v => panic!("{v:?}"),
    }
}

#[test]
fn bad_numbers() {
    for t in [
        "01", "1_", "1__0", "1._5", "1_.5", "1e", "1e+", "0x", "0xg", "0xf_", "1a",
    ] {
        assert_eq!(fails(t).kind, ErrorKind::SyntaxError, "{t}");
    }
    assert_eq!(fails("1.5j").kind, ErrorKind::Unsupported);
    // CPython refuses decimal literals over 4300 digits; 4300 is fine.
    let ok = format!("1{}", "0".repeat(4299));
    assert!(matches!(ev(&ok), PyValue::Int(_)));
    let e = fails(&format!("1{}", "0".repeat(4300)));
    assert!(e.message.contains("4301 digits"), "{e}");
}

#[test]
fn strings_and_escapes() {
    same("'abc'", s("abc"));
    same("\"abc\"", s("abc"));
    same("'''a\nb'''", s("a\nb"));
    same("\"\"\"a'\"b\"\"\"", s("a'\"b"));
    same(
        r#"'\\ \' \" \n \r \t \b \f \v \a \0'"#,
        s("\\ ' \" \n \r \t \x08 \x0c \x0b \x07 \0"),
    );
    same(r"'\101\7\777'", cps(&[0o101, 7, 0o777]));
    same(r"'\x41\u00e9\U0001F600'", s("Aé😀"));
    same(r"'\ud800'", cps(&[0xD800]));
    same(r"'\udc00\ud800'", cps(&[0xDC00, 0xD800]));
    // A \uD83D\uDE00 pair stays two code points in a Python str literal.
    same(r"'\ud83d\ude00'", cps(&[0xD83D, 0xDE00]));
    same(r"'\d\8'", s("\\d\\8"));
    same("'a\\\nb'", s("ab"));
    same(r"r'\n\''", s("\\n\\'"));
    same(r"R'\x'", s("\\x"));
    same("u'x' U'y'", s("xy"));
    same("'a' \"b\" r'\\c'", s("ab\\c"));
    same("('a'\n 'b')", s("ab"));
    same("'é😀'", s("é😀"));
    same("'''a\r\nb'''", s("a\nb"));
}

#[test]
fn bad_strings() {
    for t in [
        "'abc",
        "'a\nb'",
        "'''abc",
        r"'\x4'",
        r"'\u12'",
        r"'\U00110000'",
        r"r'\'",
        "ur'x'",
    ] {
        assert_eq!(fails(t).kind, ErrorKind::SyntaxError, "{t}");
    }
    assert_eq!(fails("b'x'").kind, ErrorKind::Unsupported);
    assert_eq!(fails("f'x'").kind, ErrorKind::Unsupported);
    for t in ["t'x'", "T'x'", "tr'x'", "Rt'x'"] {
        assert_eq!(fails(t).kind, ErrorKind::Unsupported, "{t}");
    }
    assert_eq!(fails(r"'\N{BULLET}'").kind, ErrorKind::Unsupported);
}

#[test]
fn containers() {
    same("[]", PyValue::List(vec![]));
    same("[1, 2,]", PyValue::List(vec![i(1), i(2)]));
    same("()", PyValue::Tuple(vec![]));
    same("(1,)", PyValue::Tuple(vec![i(1)]));
    same("(1)", i(1));
    same("1, 2", PyValue::Tuple(vec![i(1), i(2)]));
    same("{}", PyValue::Dict(PyDict::new()));
    same(
        "{'a': [1, (2, None)], 'b': {}}",
        PyValue::dict_of(vec![
            (
                "a",
                PyValue::List(vec![i(1), PyValue::Tuple(vec![i(2), PyValue::None])]),
            ),
            ("b", PyValue::Dict(PyDict::new())),
        ]),
    );
    same("[\n 1, # one\n 2\n]", PyValue::List(vec![i(1), i(2)]));
}

#[test]
fn dict_key_semantics() {
    // 1, True and 1.0 are one key: the first key object stays, the last value wins.
    let v = ev("{1: 'a', True: 'b', 1.0: 'c'}");
    let d = v.as_dict().unwrap();
    assert_eq!(d.len(), 1);
    let (k, val) = d.iter().next().unwrap();
    assert!(strict_eq(k, &i(1)) && strict_eq(val, &s("c")));
    // Escape-equal text keys are the same key.
    assert_eq!(ev(r"{'a': 1, '\x61': 2}").as_dict().unwrap().len(), 1);
    // nan is never equal to itself: two keys.
    assert_eq!(
        ev("{float('nan'): 1, float('nan'): 2}")
            .as_dict()
            .unwrap()
            .len(),
        2
    );
    // Tuples and None are hashable.
    assert_eq!(ev("{(1, 'a'): 1, None: 2}").as_dict().unwrap().len(), 2);
    for t in ["{[]: 1}", "{(1, []): 1}", "{{}: 1}"] {
        let e = fails(t);
        assert_eq!(e.kind, ErrorKind::TypeError, "{t}");
        assert!(e.message.starts_with("unhashable type"), "{e}");
    }
    assert_eq!(fails("{1, 2}").kind, ErrorKind::Unsupported);
}

#[test]
fn arithmetic_and_precedence() {
    same("1 + 2 * 3", i(7));
    same("(1 + 2) * 3", i(9));
    same("-2 * 3", i(-6));
    same("2 * -3", i(-6));
    same("--1", i(1));
    same("-2 ** 2", i(-4));
    same("2 ** 3 ** 2", i(512));
    same("10 ** 12 + 1", i(1_000_000_000_001));
    same("1 - 2 - 3", i(-4));
    same("True + 1", i(2));
    same("True + True", i(2));
    same("-True", i(-1));
    same("+False", i(0));
    same("True * 2.5", PyValue::Float(2.5));
    same("1 + 0.5", PyValue::Float(1.5));
    same("0.1 + 0.2", PyValue::Float(0.1 + 0.2));
    same("2 ** 64", PyValue::Int(BigInt::from(1u128 << 64)));
    // int -> float conversion rounds half to even, exactly as CPython.
    same("2 ** 53 + 1 + 0.0", PyValue::Float(9007199254740992.0));
    same("2 ** 53 + 3 + 0.0", PyValue::Float(9007199254740996.0));
    same("-1e999 * 0", PyValue::Float(f64::NAN));
    assert_eq!(fails("2 ** 1024 + 0.0").kind, ErrorKind::OverflowError);
    same("2 ** 1023 * 1.0", PyValue::Float(2f64.powi(1023)));
}

#[test]
fn sequence_operations() {
    same("'ab' * 3", s("ababab"));
    same("3 * 'ab'", s("ababab"));
    same("'x' * -1", s(""));
    same("'x' * 0", s(""));
    same("'x' * True", s("x"));
    same("True * 'a'", s("a"));
    same("[0] * 3", PyValue::List(vec![i(0), i(0), i(0)]));
    same("(1,) * 2", PyValue::Tuple(vec![i(1), i(1)]));
    same("[1] + [2]", PyValue::List(vec![i(1), i(2)]));
    same("(1,) + (2,)", PyValue::Tuple(vec![i(1), i(2)]));
    same("'[' * 3 + ']' * 3", s("[[[]]]"));
    same("'a' + 'b' * 2", s("abb"));
    for (t, msg) in [
        ("'a' + 1", "can only concatenate str (not \"int\") to str"),
        (
            "1 + 'a'",
            "unsupported operand type(s) for +: 'int' and 'str'",
        ),
        (
            "[1] + (1,)",
            "can only concatenate list (not \"tuple\") to list",
        ),
        (
            "'a' * 1.5",
            "can't multiply sequence by non-int of type 'float'",
        ),
        (
            "[1] * [1]",
            "can't multiply sequence by non-int of type 'list'",
        ),
        (
            "{} * 2",
            "unsupported operand type(s) for *: 'dict' and 'int'",
        ),
        ("-'a'", "bad operand type for unary -: 'str'"),
        (
            "None - 1",
            "unsupported operand type(s) for -: 'NoneType' and 'int'",
        ),
    ] {
        let e = fails(t);
        assert_eq!(e.kind, ErrorKind::TypeError, "{t}");
        assert_eq!(e.message, msg, "{t}");
    }
    assert_eq!(fails("'a' * 10 ** 19").kind, ErrorKind::OverflowError);
}

#[test]
fn builtins() {
    assert!(matches!(ev("float('nan')"), PyValue::Float(f) if f.is_nan()));
    same("float('inf')", PyValue::Float(f64::INFINITY));
    same("float('-inf')", PyValue::Float(f64::NEG_INFINITY));
    same("float('-Infinity')", PyValue::Float(f64::NEG_INFINITY));
    same("float(' 1_0.5 ')", PyValue::Float(10.5));
    same("float('1e500')", PyValue::Float(f64::INFINITY));
    same("float('.5')", PyValue::Float(0.5));
    same("float(3)", PyValue::Float(3.0));
    same("float(True)", PyValue::Float(1.0));
    same("float()", PyValue::Float(0.0));
    same("chr(65)", s("A"));
    same("chr(0xD800)", cps(&[0xD800]));
    same("chr(True)", cps(&[1]));
    for t in [
        "float('1__0')",
        "float('_1')",
        "float('.')",
        "float('e5')",
        "float('0x10')",
        "float('')",
    ] {
        assert_eq!(fails(t).kind, ErrorKind::ValueError, "{t}");
    }
    assert_eq!(fails("chr(-1)").kind, ErrorKind::ValueError);
    assert_eq!(fails("chr(0x110000)").kind, ErrorKind::ValueError);
    assert_eq!(fails("chr(1.0)").kind, ErrorKind::TypeError);
    assert_eq!(fails("float([])").kind, ErrorKind::TypeError);
    assert_eq!(fails("float(1, 2)").kind, ErrorKind::TypeError);
    assert_eq!(fails("float(x=1)").kind, ErrorKind::TypeError);
    assert_eq!(fails("float(10 ** 400)").kind, ErrorKind::OverflowError);
    assert_eq!(fails("len('a')").kind, ErrorKind::NameError);
}

#[test]
fn errors_carry_columns() {
    let e = fails("[1, 2, foo]");
    assert_eq!((e.kind, e.line, e.column), (ErrorKind::NameError, 1, 8));
    assert_eq!(
        e.to_string(),
        "column 8: NameError: name 'foo' is not defined"
    );
    let e = fails("[1,\n  'a' + 1]");
    assert_eq!((e.line, e.column), (2, 7));
    assert!(
        e.to_string().starts_with("line 2, column 7: TypeError"),
        "{e}"
    );
    let e = fails("{'a': 1 / 2}");
    assert_eq!((e.kind, e.column), (ErrorKind::Unsupported, 9));
    let e = fails("[1, 2");
    assert_eq!((e.kind, e.column), (ErrorKind::SyntaxError, 1));
    let e = fails("(1, 2]");
    assert_eq!(e.column, 6);
    let e = fails("1 +\n 2");
    assert_eq!(e.kind, ErrorKind::SyntaxError);
    let e = fails("x.y");
    assert_eq!(e.column, 2);
    let e = fails("  'é' + $");
    assert_eq!((e.kind, e.column), (ErrorKind::SyntaxError, 9));
}

#[test]
fn size_and_depth_caps() {
    let e = fails("'x' * 10_000_001");
    assert_eq!(e.kind, ErrorKind::LimitError);
    let e = fails("'x' * 5_000_000 + 'y' * 5_000_001");
    assert_eq!(e.kind, ErrorKind::LimitError);
    let e = fails("[[0] * 1000] * 100_000");
    assert_eq!(e.kind, ErrorKind::LimitError);
    assert_eq!(ev("'x' * 1_000_000").as_str().unwrap().len(), 1_000_000);
    // A literal is capped as it is read, to the char.
    let at_cap = format!("'{}'", "x".repeat(MAX_ELEMENTS));
    assert_eq!(ev(&at_cap).as_str().unwrap().len(), MAX_ELEMENTS);
    let over = format!("\"\"\"{}\\n\"\"\"", "x".repeat(MAX_ELEMENTS + 1));
    assert_eq!(fails(&over).kind, ErrorKind::LimitError);
    assert_eq!(fails("10 ** 5000").kind, ErrorKind::LimitError);
    assert_eq!(
        fails("(10 ** 4000) * (10 ** 4000)").kind,
        ErrorKind::LimitError
    );
    same("1 ** (10 ** 100)", i(1));
    same("(-1) ** (10 ** 100 + 1)", i(-1));
    // Bracket nesting: CPython's 200 limit, never a stack overflow.
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert_eq!(fails(&deep).kind, ErrorKind::SyntaxError);
    let deep = format!("{}1", "-".repeat(100_000));
    assert_eq!(fails(&deep).kind, ErrorKind::SyntaxError);
    let deep = format!("2{}", " ** 2".repeat(100_000));
    assert!(eval_expr(&deep, &Lets::new()).is_err());
    // Value depth stays within what the harness encodes.
    let ok = format!("{}{}", "[".repeat(100), "]".repeat(100));
    assert!(matches!(ev(&ok), PyValue::List(_)));
    let e = fails(&format!("{}{}", "[".repeat(101), "]".repeat(101)));
    assert_eq!(e.kind, ErrorKind::LimitError);
}

#[test]
fn lets_and_calls() {
    let mut lets = Lets::new();
    lets.define(
        "ok",
        "{'id': 'c1', 'name': 'multiply', 'arguments': {'x': 6, 'y': 7}}",
    )
    .unwrap();
    lets.define("two", "[ok, ok]").unwrap();
    assert_eq!(lets.value("two").unwrap().as_list().unwrap().len(), 2);
    assert!(matches!(lets.define("float", "1"), Err(LetError::Name(_))));
    assert!(matches!(lets.define("if", "1"), Err(LetError::Name(_))));
    assert!(matches!(lets.define("ok", "1"), Err(LetError::Name(_))));
    assert!(matches!(
        lets.define("bad", "nope"),
        Err(LetError::Value(_))
    ));

    let c = parse_call("accept_ticket('{}', 'r1', 'src', 1, limit=3)", &lets).unwrap();
    assert_eq!(c.function, "accept_ticket");
    assert_eq!(c.args.len(), 4);
    assert_eq!(c.kwargs.len(), 1);
    assert_eq!(c.kwargs[0].0, "limit");
    assert!(strict_eq(&c.kwargs[0].1, &i(3)));

    let c = parse_call("order_tool_results(two, [],)", &lets).unwrap();
    assert!(strict_eq(&c.args[1], &PyValue::List(vec![])));
    let c = parse_call("f()", &lets).unwrap();
    assert!(c.args.is_empty() && c.kwargs.is_empty());

    let e = parse_call("f(limit=1, 2)", &lets).unwrap_err();
    assert_eq!((e.kind, e.column), (ErrorKind::SyntaxError, 12));
    let e = parse_call("f(a=1, a=2)", &lets).unwrap_err();
    assert!(e.message.contains("keyword argument repeated"), "{e}");
    let e = parse_call("f(1) + 1", &lets).unwrap_err();
    assert_eq!(e.kind, ErrorKind::SyntaxError);
    let e = parse_call("[f(1)]", &lets).unwrap_err();
    assert_eq!(e.column, 1);
    let e = parse_call("f(ok, nope)", &lets).unwrap_err();
    assert_eq!((e.kind, e.column), (ErrorKind::NameError, 7));
    let e = parse_call("f(*two)", &lets).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unsupported);
    let e = parse_call("f(ok(1))", &lets).unwrap_err();
    assert_eq!(e.kind, ErrorKind::TypeError);
}

#[test]
fn calls_know_the_lets_they_use_and_those_behind_them() {
    let mut lets = Lets::new();
    lets.define("unused", "1").unwrap();
    lets.define("c1", "{'id': 'c1'}").unwrap();
    lets.define("pair", "[c1, c1]").unwrap();
    lets.define("limit", "3").unwrap();
    let c = parse_call("f(pair, [float('nan')], limit=2)", &lets).unwrap();
    let names: Vec<(&str, &str)> = c
        .lets
        .iter()
        .map(|(n, s)| (n.as_str(), s.as_str()))
        .collect();
    // A keyword's name is not a use of the let of that name.
    assert_eq!(names, [("c1", "{'id': 'c1'}"), ("pair", "[c1, c1]")]);
    assert!(parse_call("f(1)", &lets).unwrap().lets.is_empty());
}
