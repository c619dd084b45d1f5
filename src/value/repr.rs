//! CPython's `repr` of values, and a pretty multi-line form for diffs.
//!
//! Students see expected and actual values as Python would print them, so the
//! text must be exactly CPython 3.11's: same quote choice, same escapes (from
//! the same Unicode database), same float digits.
//!
//! A failure shows a *returned* value through [`show`] and [`pretty_styled`],
//! which stay within the grader's budget (`value::budget`): an int CPython
//! would refuse to print (over 4300 digits) shows as `<int of N bits>`, and
//! a diff's pretty form stops after its first lines.

mod printable;

use super::budget::{self, Showing};
use super::int_digits;
use super::{PyStr, PyValue};
use num_bigint::BigInt;
use num_traits::ToPrimitive;
use std::fmt::Write;

/// How a repr prints ints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntStyle {
    /// Every digit, as CPython with `sys.set_int_max_str_digits(0)`.
    Exact,
    /// In decimal up to [`int_digits::MAX_INT_DIGITS`] digits (what CPython
    /// prints by default), wider ints as `<int of N bits>`.
    Capped,
    /// Ints outside i64 as `<int of N bits>`, the others in decimal.
    Bits,
}

/// `<int of 299991 bits>`, `<negative int of 64 bits>`: an int shown by
/// its width (never converted to decimal).
pub fn int_by_width(i: &BigInt) -> String {
    let sign = if i.sign() == num_bigint::Sign::Minus {
        "negative "
    } else {
        ""
    };
    format!("<{sign}int of {} bits>", i.bits())
}

/// Where a repr is written: a `String` takes all of it; a [`Bounded`]
/// stops at its limit, so that asking whether a repr fits costs no more
/// than the room it is asked to fit in.
trait Sink: Write {
    /// Whether more text would be dropped.
    fn full(&self) -> bool {
        false
    }
    /// How many characters still fit.
    fn room(&self) -> usize {
        usize::MAX
    }
    /// Marks the sink full (what follows cannot fit).
    fn overflow(&mut self) {}
    fn put(&mut self, s: &str) {
        let _ = self.write_str(s);
    }
    fn put_char(&mut self, c: char) {
        let _ = self.write_char(c);
    }
}

impl Sink for String {}

/// At most `max` characters of a repr; `over` once more were written.
struct Bounded {
    text: String,
    chars: usize,
    max: usize,
    over: bool,
}

impl Write for Bounded {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if self.over {
            return Ok(());
        }
        let n = s.chars().take(self.max - self.chars + 1).count();
        if self.chars + n > self.max {
            self.over = true;
        } else {
            self.chars += n;
            self.text.push_str(s);
        }
        Ok(())
    }
}

impl Sink for Bounded {
    fn full(&self) -> bool {
        self.over
    }
    fn room(&self) -> usize {
        if self.over {
            0
        } else {
            self.max - self.chars
        }
    }
    fn overflow(&mut self) {
        self.over = true;
    }
}

/// Exactly what CPython's `repr(v)` prints.
///
/// Ints print all their digits (CPython 3.11 refuses above 4300 digits
/// unless `sys.set_int_max_str_digits(0)`). The grader shows a returned
/// value with [`show`] instead, which never prints those.
pub fn repr(v: &PyValue) -> String {
    repr_styled(v, IntStyle::Exact)
}

/// [`repr`] with ints printed in `style`.
pub fn repr_styled(v: &PyValue, style: IntStyle) -> String {
    let mut out = String::new();
    write_repr(&mut out, v, style);
    out
}

/// [`repr_styled`] when it has at most `max` characters (code points);
/// `None` when longer, found without writing (or converting) more than
/// `max` characters' worth.
pub fn repr_within(v: &PyValue, style: IntStyle, max: usize) -> Option<String> {
    let mut out = Bounded {
        text: String::new(),
        chars: 0,
        max,
        over: false,
    };
    write_repr(&mut out, v, style);
    (!out.over).then_some(out.text)
}

/// A returned value as a failure shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown {
    /// Its repr in `style`.
    pub text: String,
    /// How its ints are printed (a diff prints both sides so).
    pub style: IntStyle,
    /// Why some ints are shown by their width (`None`: the text is
    /// CPython's repr).
    pub abridged: Option<String>,
}

/// How a failure prints `v`: [`budget::showing`] decides, cheaply, whether
/// its ints print in decimal ([`IntStyle::Capped`], and CPython's repr
/// when none is over 4300 digits) or by their width ([`IntStyle::Bits`]).
pub fn show_style(v: &PyValue) -> (IntStyle, Option<String>) {
    match budget::showing(v) {
        Showing::Full => (IntStyle::Capped, None),
        Showing::Abridged { all_big_ints, why } => (
            if all_big_ints {
                IntStyle::Bits
            } else {
                IntStyle::Capped
            },
            Some(why),
        ),
    }
}

/// A returned value as a failure shows it: its repr, with no int
/// converted to decimal past the grader's budget (see [`show_style`]).
pub fn show(v: &PyValue) -> Shown {
    let (style, abridged) = show_style(v);
    Shown {
        text: repr_styled(v, style),
        style,
        abridged,
    }
}

fn write_int<S: Sink>(out: &mut S, i: &BigInt, style: IntStyle) {
    let by_width = match style {
        IntStyle::Exact => false,
        IntStyle::Capped => int_digits::over_int_digits(i),
        IntStyle::Bits => i.to_i64().is_none(),
    };
    if by_width {
        out.put(&int_by_width(i));
        return;
    }
    if out.room() < usize::try_from(budget::decimal_digits_floor(i)).unwrap_or(usize::MAX) {
        // Cannot fit: not worth converting.
        out.overflow();
        return;
    }
    #[cfg(test)]
    tests::CONVERTED.with(|c| c.set(c.get() + budget::decimal_digits_bound(i)));
    let _ = write!(out, "{i}");
}

fn write_repr<S: Sink>(out: &mut S, v: &PyValue, style: IntStyle) {
    if out.full() {
        return;
    }
    match v {
        PyValue::None => out.put("None"),
        PyValue::Bool(true) => out.put("True"),
        PyValue::Bool(false) => out.put("False"),
        PyValue::Int(i) => write_int(out, i, style),
        PyValue::Float(f) => out.put(&float_repr(*f)),
        PyValue::Str(s) => write_str_repr(out, s),
        PyValue::List(items) => write_seq(out, "[", items, "]", style),
        PyValue::Tuple(items) if items.len() == 1 => {
            out.put_char('(');
            write_repr(out, &items[0], style);
            out.put(",)");
        }
        PyValue::Tuple(items) => write_seq(out, "(", items, ")", style),
        PyValue::Dict(d) => {
            out.put_char('{');
            for (n, (k, x)) in d.iter().enumerate() {
                if out.full() {
                    return;
                }
                if n > 0 {
                    out.put(", ");
                }
                write_repr(out, k, style);
                out.put(": ");
                write_repr(out, x, style);
            }
            out.put_char('}');
        }
        PyValue::Opaque { repr, .. } => out.put(repr),
        PyValue::Match(m) => out.put(&m.text()),
    }
}

fn write_seq<S: Sink>(out: &mut S, open: &str, items: &[PyValue], close: &str, style: IntStyle) {
    out.put(open);
    for (n, x) in items.iter().enumerate() {
        if out.full() {
            return;
        }
        if n > 0 {
            out.put(", ");
        }
        write_repr(out, x, style);
    }
    out.put(close);
}

/// Python's `str(v)`: a str is itself, anything else its `repr` (a float
/// `'1e+16'`, a bool `'True'`, None `'None'`, containers with their items'
/// reprs). As in CPython 3.11, printing an int of more than 4300 digits,
/// alone or anywhere inside a container, raises `ValueError` (the `Err`).
pub fn str_of(v: &PyValue) -> Result<PyStr, String> {
    if let PyValue::Str(s) = v {
        return Ok(s.clone());
    }
    if has_unprintable_int(v) {
        return Err("Exceeds the limit (4300 digits) for integer string conversion".into());
    }
    Ok(PyStr::from(repr(v)))
}

/// Whether `v` holds an int too long for `int.__repr__` (more than 4300 digits).
fn has_unprintable_int(v: &PyValue) -> bool {
    match v {
        PyValue::Int(i) => int_digits::over_int_digits(i),
        PyValue::List(items) | PyValue::Tuple(items) => items.iter().any(has_unprintable_int),
        PyValue::Dict(d) => d
            .iter()
            .any(|(k, x)| has_unprintable_int(k) || has_unprintable_int(x)),
        _ => false,
    }
}

/// Python's `round(x, ndigits)` for a float and `ndigits >= 0`: the double
/// nearest to the decimal rounded to `ndigits` places, ties to even on the
/// exact binary value (`round(0.25, 1) == 0.2`, `round(2.675, 2) == 2.67`),
/// as CPython's `double_round` does with `_Py_dg_dtoa` mode 3. nan, inf and
/// the sign of zero come back unchanged (`round(-0.04, 1) == -0.0`).
pub fn round_float(x: f64, ndigits: usize) -> f64 {
    if !x.is_finite() {
        return x;
    }
    // Rust's fixed-precision formatting is exact (correctly rounded, ties
    // to even), and parsing back is correctly rounded.
    format!("{x:.ndigits$}").parse().unwrap_or(x)
}

/// CPython's `float.__repr__`: the shortest digits that round-trip, in fixed
/// notation when the decimal point position is in `-3..=16` (that is,
/// `1e-4 <= |x| < 1e16`), else in exponent form with at least two exponent
/// digits (`1e-05`, `1.5e+16`).
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let (digits, decpt) = shortest_digits(x.abs());
    let mut out = String::new();
    if x.is_sign_negative() {
        out.push('-');
    }
    let n = digits.len() as i32;
    if (-3..=16).contains(&decpt) {
        if decpt <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat('0').take((-decpt) as usize));
            out.push_str(&digits);
        } else if n <= decpt {
            out.push_str(&digits);
            out.extend(std::iter::repeat('0').take((decpt - n) as usize));
            out.push_str(".0");
        } else {
            let (int_part, frac) = digits.split_at(decpt as usize);
            out.push_str(int_part);
            out.push('.');
            out.push_str(frac);
        }
    } else {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let e = decpt - 1;
        let _ = write!(out, "e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    out
}

/// The shortest decimal digits that round-trip to `x` (finite, >= 0), closest
/// to `x` with ties to even as David Gay's `dtoa` mode 0 (which CPython uses)
/// picks them, and the decimal point position: `x = 0.DIGITS * 10^decpt`.
///
/// Ryu makes the same choice; Rust's own `{:e}` does not always (it prints
/// `1000000000000000.3` where CPython prints `1000000000000000.2`).
fn shortest_digits(x: f64) -> (String, i32) {
    let mut buf = ryu::Buffer::new();
    // Ryu prints "123.0", "0.00001" or "1.2345e-7"; normalise all three.
    let text = buf.format_finite(x);
    let (mantissa, exp) = text.split_once('e').unwrap_or((text, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (int_part, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{int_part}{frac}");
    let mut decpt = int_part.len() as i32 + exp;
    let trimmed = all.trim_start_matches('0');
    decpt -= (all.len() - trimmed.len()) as i32;
    let digits = trimmed.trim_end_matches('0');
    if digits.is_empty() {
        ("0".into(), 1)
    } else {
        (digits.into(), decpt)
    }
}

/// CPython's `str.isprintable()` for one code point (Unicode 14.0.0, as in
/// CPython 3.11): false for controls, separators other than the ASCII space,
/// format characters, surrogates, private use and unassigned code points.
pub fn is_printable(cp: u32) -> bool {
    printable::PRINTABLE
        .binary_search_by(|&(first, last)| {
            if last < cp {
                std::cmp::Ordering::Less
            } else if first > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// CPython's `str.__repr__` (`unicode_repr` in `Objects/unicodeobject.c`).
fn write_str_repr<S: Sink>(out: &mut S, s: &PyStr) {
    let cps = s.code_points();
    let has_single = cps.contains(&('\'' as u32));
    let has_double = cps.contains(&('"' as u32));
    let quote = if has_single && !has_double { '"' } else { '\'' };
    out.put_char(quote);
    for &cp in cps {
        if out.full() {
            return;
        }
        match cp {
            0x5C => out.put("\\\\"),
            0x09 => out.put("\\t"),
            0x0A => out.put("\\n"),
            0x0D => out.put("\\r"),
            _ if cp == quote as u32 => {
                out.put_char('\\');
                out.put_char(quote);
            }
            0x00..=0x1F | 0x7F => {
                let _ = write!(out, "\\x{cp:02x}");
            }
            0x20..=0x7E => out.put_char(cp as u8 as char),
            _ => match char::from_u32(cp) {
                Some(c) if is_printable(cp) => out.put_char(c),
                _ if cp <= 0xFF => {
                    let _ = write!(out, "\\x{cp:02x}");
                }
                _ if cp <= 0xFFFF => {
                    let _ = write!(out, "\\u{cp:04x}");
                }
                _ => {
                    let _ = write!(out, "\\U{cp:08x}");
                }
            },
        }
    }
    out.put_char(quote);
}

/// The widest line [`pretty`] tries to keep a container on.
pub const PRETTY_WIDTH: usize = 72;

/// A multi-line, indented repr for diffs, so that a line diff of two values
/// points at the element that differs.
///
/// The rule: a scalar, an empty container, or a container whose one-line
/// [`repr`] fits on its line prints as that one-line repr. "Fits" means the
/// line, from column 0 through the repr and the `,` that follows it inside a
/// parent, is at most [`PRETTY_WIDTH`] characters (code points). A container
/// that does not fit prints its opening bracket, then each element (for a
/// dict, `key: value` with the key as a one-line repr) on its own line,
/// indented 4 spaces deeper than the line the container starts on and
/// followed by `,`, then the closing bracket on its own line at the
/// container's indentation. Elements follow the same rule, so nested
/// containers break only as far as they must. A one-element tuple keeps its
/// comma either way, and the output reads back with `ast.literal_eval` as
/// the same value, like `repr` (unless it holds nan, inf or an Opaque value).
pub fn pretty(v: &PyValue) -> String {
    pretty_styled(v, IntStyle::Exact, usize::MAX)
}

/// [`pretty`] with ints printed in `style`, cut after its first
/// `max_lines` lines: when more would follow, they are left out (never
/// written) for one last line `…`. Each container is tried on one line
/// within the room its line has left ([`repr_within`]), so the work is
/// linear in what is written, however deep the value.
pub fn pretty_styled(v: &PyValue, style: IntStyle, max_lines: usize) -> String {
    let mut p = Pretty {
        out: String::new(),
        style,
        lines_left: max_lines.max(1),
        cut: false,
    };
    p.write(v, 0, 0, 0);
    if p.cut {
        p.out.push('…');
    }
    p.out
}

/// A [`pretty_styled`] being written.
struct Pretty {
    out: String,
    style: IntStyle,
    /// Lines that may still be ended (`\n`).
    lines_left: usize,
    /// A line was due after the last one allowed.
    cut: bool,
}

impl Pretty {
    /// Whether a new line may start (else the text is cut there).
    fn may_start_line(&mut self) -> bool {
        if self.lines_left == 0 {
            self.cut = true;
        }
        !self.cut
    }

    fn end_line(&mut self) {
        self.out.push('\n');
        self.lines_left -= 1;
    }

    /// Writes `v` starting at column `col` of a line indented by `indent`
    /// spaces; `after` characters (a comma) will follow it on its last line.
    fn write(&mut self, v: &PyValue, col: usize, indent: usize, after: usize) {
        let (open, close) = match v {
            PyValue::List(items) if !items.is_empty() => ("[", "]"),
            PyValue::Tuple(items) if !items.is_empty() => ("(", ")"),
            PyValue::Dict(d) if !d.is_empty() => ("{", "}"),
            _ => {
                write_repr(&mut self.out, v, self.style);
                return;
            }
        };
        let room = PRETTY_WIDTH.saturating_sub(col + after);
        if let Some(one_line) = repr_within(v, self.style, room) {
            self.out.push_str(&one_line);
            return;
        }
        let inner = indent + 4;
        self.out.push_str(open);
        self.end_line();
        let element = |p: &mut Pretty, key: Option<&PyValue>, x: &PyValue| {
            if !p.may_start_line() {
                return false;
            }
            p.out.extend(std::iter::repeat(' ').take(inner));
            let mut col = inner;
            if let Some(k) = key {
                let k = repr_styled(k, p.style);
                col += k.chars().count() + 2;
                p.out.push_str(&k);
                p.out.push_str(": ");
            }
            p.write(x, col, inner, 1);
            if p.cut {
                return false;
            }
            p.out.push(',');
            p.end_line();
            true
        };
        match v {
            PyValue::List(items) | PyValue::Tuple(items) => {
                for x in items {
                    if !element(self, None, x) {
                        return;
                    }
                }
            }
            PyValue::Dict(d) => {
                for (k, x) in d.iter() {
                    if !element(self, Some(k), x) {
                        return;
                    }
                }
            }
            _ => {}
        }
        if self.may_start_line() {
            self.out.extend(std::iter::repeat(' ').take(indent));
            self.out.push_str(close);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::PyDict;
    use num_bigint::BigInt;

    thread_local! {
        /// Decimal digits (about) this thread's reprs converted ints to.
        pub(super) static CONVERTED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// What `f` returns, and the decimal digits it converted ints to.
    fn converting<T>(f: impl FnOnce() -> T) -> (T, u64) {
        let before = CONVERTED.with(|c| c.get());
        let out = f();
        (out, CONVERTED.with(|c| c.get()) - before)
    }

    fn big(bits: u32) -> BigInt {
        (BigInt::from(1) << bits) + 12345
    }

    #[test]
    fn a_returned_int_over_cpythons_limit_is_shown_by_width_never_converted() {
        let v = PyValue::List(vec![
            PyValue::Int(big(299_999)),
            PyValue::Int(-big(299_999)),
            PyValue::int(7),
        ]);
        let (shown, digits) = converting(|| show(&v));
        assert_eq!(digits, 1, "only the 7 is converted");
        assert_eq!(
            shown.text,
            "[<int of 300000 bits>, <negative int of 300000 bits>, 7]"
        );
        assert_eq!(shown.style, IntStyle::Capped);
        assert_eq!(
            shown.abridged.as_deref(),
            Some("an int of 300000 bits, more than the 4300 digits Python prints")
        );
        let (pretty, digits) = converting(|| pretty_styled(&v, shown.style, 400));
        assert_eq!(digits, 1);
        assert_eq!(pretty, shown.text, "fits on one line");
        let wide = PyValue::List(vec![PyValue::Int(big(299_999)); 4]);
        assert_eq!(
            pretty_styled(&wide, IntStyle::Capped, 400),
            format!("[\n{}]", "    <int of 300000 bits>,\n".repeat(4))
        );
        // CPython's own repr is unchanged: every digit.
        let one = PyValue::Int(big(20_000));
        assert_eq!(repr(&one), big(20_000).to_string());
        assert_eq!(repr_styled(&one, IntStyle::Capped), "<int of 20001 bits>");
        // Up to 4300 digits a failure shows the digits.
        let fits = PyValue::Int(BigInt::from(1) << 14_284u32);
        assert_eq!(show(&fits).text, repr(&fits));
        assert_eq!(show(&fits).abridged, None);
    }

    #[test]
    fn a_value_over_the_digit_budget_shows_every_big_int_by_width() {
        // 30 ints of 4215 digits: each printable, together over the budget.
        let v = PyValue::List(vec![PyValue::Int(big(14_000)); 30]);
        let (shown, digits) = converting(|| show(&v));
        assert_eq!(digits, 0);
        assert_eq!(shown.style, IntStyle::Bits);
        assert!(shown
            .text
            .starts_with("[<int of 14001 bits>, <int of 14001 bits>"));
        assert!(shown.abridged.unwrap().contains("100000 digits"));
        // Ints in i64 still print.
        assert_eq!(
            repr_styled(&PyValue::int(i64::MIN), IntStyle::Bits),
            i64::MIN.to_string()
        );
        assert_eq!(
            repr_styled(&PyValue::Int(BigInt::from(i64::MAX) + 1), IntStyle::Bits),
            "<int of 64 bits>"
        );
    }

    #[test]
    fn fitting_on_a_line_converts_nothing_that_cannot_fit() {
        // 1000 ints of 4215 digits: no one-line try converts any of them
        // (none fits in 72 columns), so pretty converts each int once.
        let v = PyValue::List(vec![
            PyValue::List(vec![PyValue::Int(big(14_000)); 10]);
            100
        ]);
        let (text, digits) = converting(|| pretty_styled(&v, IntStyle::Exact, usize::MAX));
        assert_eq!(text, pretty(&v));
        assert!(digits <= 1000 * 4216, "{digits}");
        let (_, digits) = converting(|| repr_within(&v, IntStyle::Exact, PRETTY_WIDTH));
        assert_eq!(digits, 0);
        // The first lines only: 20 lines convert at most 20 ints.
        let (_, digits) = converting(|| pretty_styled(&v, IntStyle::Exact, 20));
        assert!(digits <= 20 * 4216, "{digits}");
    }

    #[test]
    fn repr_within_is_repr_when_it_fits() {
        let values = [
            PyValue::List(vec![
                PyValue::str("abc"),
                PyValue::Float(0.1),
                PyValue::None,
            ]),
            PyValue::dict_of(vec![("k", PyValue::Tuple(vec![PyValue::int(-5)]))]),
            PyValue::str(&"é".repeat(10)),
            PyValue::Int(big(100)),
        ];
        for v in &values {
            let full = repr(v);
            let n = full.chars().count();
            assert_eq!(repr_within(v, IntStyle::Exact, n).as_deref(), Some(&*full));
            assert_eq!(
                repr_within(v, IntStyle::Exact, n + 5).as_deref(),
                Some(&*full)
            );
            assert_eq!(repr_within(v, IntStyle::Exact, n - 1), None, "{full}");
        }
        let long = PyValue::str(&"x".repeat(5_000_000));
        assert_eq!(repr_within(&long, IntStyle::Exact, 72), None);
    }

    #[test]
    fn pretty_cut_is_the_first_lines_of_pretty() {
        // Nested lists and dicts of long strings, cut at every line count:
        // the first n lines of the full text, then `…` when more follow.
        let row = |i: usize| {
            PyValue::dict_of(vec![
                ("id", PyValue::int(i as i64)),
                ("text", long_str(30 + i * 7)),
                ("items", PyValue::List(vec![long_str(i * 11); i % 4])),
            ])
        };
        let v = PyValue::List((0..12).map(row).collect());
        let full = pretty(&v);
        let lines: Vec<&str> = full.lines().collect();
        assert!(lines.len() > 50, "{}", lines.len());
        for n in 1..lines.len() + 3 {
            let cut = pretty_styled(&v, IntStyle::Exact, n);
            let want = if n < lines.len() {
                format!("{}\n…", lines[..n].join("\n"))
            } else {
                full.clone()
            };
            assert_eq!(cut, want, "{n} lines");
        }
    }

    fn s(cps: &[u32]) -> PyValue {
        PyValue::Str(PyStr::from_code_points(cps.to_vec()))
    }

    #[test]
    fn scalars() {
        assert_eq!(repr(&PyValue::None), "None");
        assert_eq!(repr(&PyValue::Bool(true)), "True");
        assert_eq!(repr(&PyValue::Bool(false)), "False");
        assert_eq!(repr(&PyValue::int(-42)), "-42");
        let big: BigInt = BigInt::from(10).pow(40) + 1;
        assert_eq!(
            repr(&PyValue::Int(-big)),
            "-10000000000000000000000000000000000000001"
        );
    }

    #[test]
    fn floats() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (-2.5, "-2.5"),
            (0.1, "0.1"),
            (1e16, "1e+16"),
            (9999999999999998.0, "9999999999999998.0"),
            (1e15, "1000000000000000.0"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (1e-4, "0.0001"),
            (1.5e-4, "0.00015"),
            (1e-5, "1e-05"),
            (1.5e-5, "1.5e-05"),
            (1e100, "1e+100"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (2.2250738585072014e-308, "2.2250738585072014e-308"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
            (-f64::NAN, "nan"),
            // A tie between two shortest candidates: Gay's dtoa rounds to even.
            (f64::from_bits(1e15f64.to_bits() + 2), "1000000000000000.2"),
            (123.0, "123.0"),
            (1e22, "1e+22"),
            (0.5, "0.5"),
            (100.25, "100.25"),
        ];
        for &(x, want) in cases {
            assert_eq!(float_repr(x), want, "{x:e}");
            assert_eq!(repr(&PyValue::Float(x)), want);
        }
    }

    #[test]
    fn string_quotes() {
        assert_eq!(repr(&PyValue::str("")), "''");
        assert_eq!(repr(&PyValue::str("abc")), "'abc'");
        assert_eq!(repr(&PyValue::str("it's")), "\"it's\"");
        assert_eq!(repr(&PyValue::str("say \"hi\"")), "'say \"hi\"'");
        assert_eq!(repr(&PyValue::str("'\"")), "'\\'\"'");
        assert_eq!(repr(&PyValue::str("a\\b")), "'a\\\\b'");
    }

    #[test]
    fn string_escapes() {
        assert_eq!(repr(&PyValue::str("\t\n\r")), "'\\t\\n\\r'");
        assert_eq!(repr(&s(&[0, 0x1b, 0x7f])), "'\\x00\\x1b\\x7f'");
        assert_eq!(
            repr(&s(&[0x80, 0x9f, 0xa0, 0xad])),
            "'\\x80\\x9f\\xa0\\xad'"
        );
        assert_eq!(repr(&s(&[0xa1, 0xe9])), "'¡é'");
        assert_eq!(repr(&s(&[0xd800])), "'\\ud800'");
        assert_eq!(repr(&s(&[0xdfff, 0x41])), "'\\udfffA'");
        assert_eq!(
            repr(&s(&[0x2028, 0x200b, 0xfeff])),
            "'\\u2028\\u200b\\ufeff'"
        );
        assert_eq!(repr(&s(&[0x3000])), "'\\u3000'");
        assert_eq!(repr(&s(&[0x4e2d, 0x1f600])), "'中😀'");
        assert_eq!(repr(&s(&[0xe0001, 0x10ffff])), "'\\U000e0001\\U0010ffff'");
        assert_eq!(repr(&s(&[0xf0000])), "'\\U000f0000'");
    }

    #[test]
    fn printable_table_bounds() {
        assert!(is_printable(' ' as u32));
        assert!(is_printable('~' as u32));
        assert!(!is_printable(0x1f));
        assert!(!is_printable(0x7f));
        assert!(!is_printable(0xa0));
        assert!(is_printable(0xa1));
        assert!(!is_printable(0x110000));
        let table = printable::PRINTABLE;
        assert!(table.windows(2).all(|w| w[0].1 + 1 < w[1].0));
        assert!(table.iter().all(|&(a, b)| a <= b && b <= 0x10FFFF));
    }

    #[test]
    fn containers() {
        let one = PyValue::int(1);
        assert_eq!(repr(&PyValue::List(vec![])), "[]");
        assert_eq!(
            repr(&PyValue::List(vec![one.clone(), PyValue::int(2)])),
            "[1, 2]"
        );
        assert_eq!(repr(&PyValue::Tuple(vec![])), "()");
        assert_eq!(repr(&PyValue::Tuple(vec![one.clone()])), "(1,)");
        assert_eq!(
            repr(&PyValue::Tuple(vec![one.clone(), PyValue::None])),
            "(1, None)"
        );
        assert_eq!(repr(&PyValue::Dict(PyDict::new())), "{}");
        let mut d = PyDict::new();
        d.insert(PyValue::str("b"), one.clone());
        d.insert(
            PyValue::Tuple(vec![PyValue::Float(1.5)]),
            PyValue::List(vec![PyValue::dict_of(vec![("a", PyValue::None)])]),
        );
        d.insert(PyValue::None, PyValue::Bool(true));
        assert_eq!(
            repr(&PyValue::Dict(d)),
            "{'b': 1, (1.5,): [{'a': None}], None: True}"
        );
        let opaque = PyValue::Opaque {
            type_name: "set".into(),
            repr: "{1, 2}".into(),
        };
        assert_eq!(repr(&PyValue::List(vec![opaque])), "[{1, 2}]");
    }
    fn long_str(n: usize) -> PyValue {
        PyValue::str(&"x".repeat(n))
    }

    #[test]
    fn pretty_scalars_and_short_containers_are_one_line() {
        let values = [
            PyValue::None,
            PyValue::Float(1e16),
            long_str(200),
            PyValue::List(vec![]),
            PyValue::Tuple(vec![PyValue::int(1)]),
            PyValue::dict_of(vec![("a", PyValue::int(1))]),
        ];
        for v in &values {
            assert_eq!(pretty(v), repr(v));
        }
    }

    #[test]
    fn pretty_width_boundary() {
        // "['xx…x']" is exactly PRETTY_WIDTH wide: stays on one line.
        let fits = PyValue::List(vec![long_str(PRETTY_WIDTH - 4)]);
        assert_eq!(repr(&fits).chars().count(), PRETTY_WIDTH);
        assert_eq!(pretty(&fits), repr(&fits));
        // One more character and it breaks.
        let breaks = PyValue::List(vec![long_str(PRETTY_WIDTH - 3)]);
        assert_eq!(
            pretty(&breaks),
            format!("[\n    {},\n]", repr(&long_str(PRETTY_WIDTH - 3)))
        );
    }

    #[test]
    fn pretty_breaks_only_what_does_not_fit() {
        let v = PyValue::dict_of(vec![
            ("id", PyValue::str("c1")),
            (
                "items",
                PyValue::List(vec![
                    PyValue::Tuple(vec![PyValue::int(1)]),
                    long_str(70),
                    PyValue::dict_of(vec![("k", PyValue::None)]),
                ]),
            ),
            ("t", PyValue::Tuple(vec![long_str(80)])),
        ]);
        let want = format!(
            "{{\n    'id': 'c1',\n    'items': [\n        (1,),\n        '{x70}',\n        {{'k': None}},\n    ],\n    't': (\n        '{x80}',\n    ),\n}}",
            x70 = "x".repeat(70),
            x80 = "x".repeat(80)
        );
        assert_eq!(pretty(&v), want);
    }

    #[test]
    fn pretty_counts_the_key_and_trailing_comma() {
        // At depth 1 after `'k': `, a 62-character list plus its comma ends at
        // column 4 + 5 + 62 + 1 = 72: fits. One more character does not.
        let list_of = |n: usize| PyValue::List(vec![long_str(n)]);
        // A second, long entry forces the dict itself onto several lines.
        let dict_of = |n: usize| PyValue::dict_of(vec![("k", list_of(n)), ("z", long_str(80))]);
        let fits = dict_of(58);
        assert!(pretty(&fits).contains(&format!("'k': {},", repr(&list_of(58)))));
        let breaks = dict_of(59);
        assert!(pretty(&breaks).contains("'k': [\n        'xxx"));
    }
}
