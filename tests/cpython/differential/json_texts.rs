//! Hostile JSON-ish texts for `parse_contract_json`: valid objects and their
//! mutations, built as code points so lone surrogates can appear anywhere.

use rand::seq::SliceRandom;
use rand::Rng;

/// A text under construction, as Python code points.
pub type Text = Vec<u32>;

pub fn push(out: &mut Text, s: &str) {
    out.extend(s.chars().map(|c| c as u32));
}

/// Whitespace between tokens: mostly JSON's four, sometimes lookalikes that
/// CPython refuses (U+00A0, \x0b, \x0c, U+2028, U+3000, BOM).
fn ws<R: Rng>(rng: &mut R, out: &mut Text) {
    match rng.gen_range(0..100) {
        0..=59 => {}
        60..=74 => push(out, " "),
        75..=84 => push(out, "\n  "),
        85..=89 => push(out, "\t"),
        90..=95 => push(out, "\r\n"),
        _ => out.push(
            *[0xA0, 0x0B, 0x0C, 0x2028, 0x3000, 0xFEFF, 0x85]
                .choose(rng)
                .unwrap(),
        ),
    }
}

fn hex4<R: Rng>(rng: &mut R, unit: u32) -> String {
    let s = format!("\\u{unit:04x}");
    if rng.gen_bool(0.3) {
        s.to_uppercase().replace("\\U", "\\u")
    } else {
        s
    }
}

/// One piece of a string body (between the quotes).
fn string_piece<R: Rng>(rng: &mut R, out: &mut Text) {
    match rng.gen_range(0..100) {
        0..=29 => {
            let words = [
                "a",
                "id",
                "factuur",
                "x y",
                "r1",
                "Mijn factuur mist.",
                "0",
                "{}[]:,",
            ];
            push(out, words.choose(rng).unwrap());
        }
        30..=39 => push(
            out,
            ["é", "😀", "中文", "\u{7f}", "ß\u{301}", "\u{fffd}"]
                .choose(rng)
                .unwrap(),
        ),
        40..=51 => push(
            out,
            ["\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"]
                .choose(rng)
                .unwrap(),
        ),
        52..=59 => {
            let unit = *[
                0x61, 0xE9, 0x0, 0x1F, 0x7F, 0xFEFF, 0x2028, 0xFFFF, 0x22, 0x5C,
            ]
            .choose(rng)
            .unwrap();
            let unit = if rng.gen_bool(0.5) {
                unit
            } else {
                rng.gen_range(0..0xD800)
            };
            let e = hex4(rng, unit);
            push(out, &e);
        }
        60..=67 => {
            // A valid escaped pair.
            let hi = rng.gen_range(0xD800..=0xDBFF);
            let lo = rng.gen_range(0xDC00..=0xDFFF);
            let (a, b) = (hex4(rng, hi), hex4(rng, lo));
            push(out, &(a + &b));
        }
        68..=71 => {
            let hi = rng.gen_range(0xD800..=0xDBFF);
            let e = hex4(rng, hi);
            push(out, &e); // lone high, followed by whatever comes next
        }
        72..=74 => {
            let lo = rng.gen_range(0xDC00..=0xDFFF);
            let e = hex4(rng, lo);
            push(out, &e);
        }
        75..=76 => push(out, "\\ude00\\ud83d"), // reversed pair
        77..=78 => push(
            out,
            [
                "\\ud800\\u0041",
                "\\ud800\\ud800\\udc00",
                "\\ud800\\n",
                "\\ud83d\\uDE00",
            ]
            .choose(rng)
            .unwrap(),
        ),
        79..=81 => out.push(rng.gen_range(0..0x20)), // raw control character
        82..=85 => push(
            out,
            [
                "\\x41",
                "\\'",
                "\\U0001F600",
                "\\a",
                "\\u12",
                "\\u12G4",
                "\\ud800\\uzzzz",
                "\\0",
                "\\ ",
                "\\e",
            ]
            .choose(rng)
            .unwrap(),
        ),
        86..=87 => out.push(*[0xD800, 0xDBFF, 0xDC00, 0xDFFF].choose(rng).unwrap()), // raw lone surrogate
        _ => push(out, &"x".repeat(rng.gen_range(0..40))),
    }
}

fn string<R: Rng>(rng: &mut R, out: &mut Text) {
    push(out, "\"");
    for _ in 0..rng.gen_range(0..5) {
        string_piece(rng, out);
    }
    push(out, "\"");
}

/// An object key: often from a small pool, spelt with random escapes, so
/// duplicates (also escaped-equal ones) are common.
fn key<R: Rng>(rng: &mut R, out: &mut Text) {
    if rng.gen_bool(0.15) {
        return string(rng, out);
    }
    let name = if rng.gen_bool(0.6) {
        ["a", "b", "id", "é", "a/b", "😀"]
            .choose(rng)
            .unwrap()
            .to_string()
    } else {
        format!("k{}", rng.gen_range(0..1000))
    };
    push(out, "\"");
    for c in name.chars() {
        match rng.gen_range(0..10) {
            0 if c == '/' => push(out, "\\/"),
            0 | 1 if (c as u32) < 0x10000 => {
                let e = hex4(rng, c as u32);
                push(out, &e);
            }
            0 | 1 => {
                let v = c as u32 - 0x10000;
                let (a, b) = (
                    hex4(rng, 0xD800 + (v >> 10)),
                    hex4(rng, 0xDC00 + (v & 0x3FF)),
                );
                push(out, &(a + &b));
            }
            _ => out.push(c as u32),
        }
    }
    push(out, "\"");
}

const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "0.0",
    "-0.0",
    "1",
    "-1",
    "42",
    "1.5",
    "0.1",
    "1e5",
    "1E5",
    "1e+5",
    "1e-5",
    "1.0e+0",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "9007199254740993",
    "9007199254740993.0",
    "1e308",
    "1.7976931348623157e308",
    "1.7976931348623158e308",
    "1.7976931348623159e308",
    "1.8e308",
    "1e309",
    "2e308",
    "-1e309",
    "1e999",
    "-1e999",
    "1E400",
    "1e-999",
    "1e-400",
    "4.9e-324",
    "5e-324",
    "2.4703282292062327e-324",
    "2.4703282292062328e-324",
    "1e-324",
    "2.2250738585072014e-308",
    "2.2250738585072011e-308",
    "123456789012345678901234567890e-10",
    "0.30000000000000004",
    "100e-2",
    "-0e0",
    "0e-7",
];

const BAD_NUMBERS: &[&str] = &[
    "01", "-01", "1.", "-", ".5", "+1", "1e", "1e+", "0x10", "1_000", "1.5.2", "--1", "1e5.5",
    "00", "1.e5", "- 1", "0.", "1ee5",
];

const CONSTANTS: &[&str] = &[
    "NaN",
    "Infinity",
    "-Infinity",
    "nan",
    "inf",
    "-inf",
    "infinity",
    "-NaN",
    "+Infinity",
    "NAN",
    "INFINITY",
    "Nan",
    "True",
    "None",
    "nul",
    "tru",
    "fals",
    "undefined",
];

fn number<R: Rng>(rng: &mut R, out: &mut Text) {
    let s = match rng.gen_range(0..100) {
        0..=34 => rng.gen_range(-1000i64..1000).to_string(),
        35..=59 => NUMBERS.choose(rng).unwrap().to_string(),
        60..=69 => {
            let digits: String = (0..rng.gen_range(19..400))
                .map(|i| {
                    let d = if i == 0 {
                        rng.gen_range(1..10)
                    } else {
                        rng.gen_range(0..10)
                    };
                    char::from(b'0' + d)
                })
                .collect();
            if rng.gen_bool(0.5) {
                format!("-{digits}")
            } else {
                digits
            }
        }
        70..=89 => {
            let mant = format!(
                "{}.{}",
                rng.gen_range(0..100_000),
                rng.gen_range(0..1_000_000_000u64)
            );
            let e = rng.gen_range(-420..420);
            let sign = if rng.gen_bool(0.3) { "-" } else { "" };
            let marker = if rng.gen_bool(0.5) { "e" } else { "E" };
            let plus = if e >= 0 && rng.gen_bool(0.5) { "+" } else { "" };
            format!("{sign}{mant}{marker}{plus}{e}")
        }
        90..=92 => {
            // Long mantissas, where only correct rounding gets the last bit right.
            let digits: String = (0..rng.gen_range(17..800))
                .map(|_| char::from(b'0' + rng.gen_range(0..10)))
                .collect();
            let e = rng.gen_range(-700..400);
            format!("{}.{digits}e{e}", rng.gen_range(0..10))
        }
        93..=95 => BAD_NUMBERS.choose(rng).unwrap().to_string(),
        _ => CONSTANTS.choose(rng).unwrap().to_string(),
    };
    push(out, &s);
}

fn scalar<R: Rng>(rng: &mut R, out: &mut Text) {
    match rng.gen_range(0..10) {
        0..=3 => string(rng, out),
        4..=7 => number(rng, out),
        _ => push(out, ["true", "false", "null"].choose(rng).unwrap()),
    }
}

/// A value whose containers may reach `max_depth` (depth = containers open).
fn value<R: Rng>(rng: &mut R, out: &mut Text, depth: usize, max_depth: usize) {
    if depth < max_depth && rng.gen_bool(if depth < 2 { 0.6 } else { 0.35 }) {
        if rng.gen_bool(0.5) {
            object(rng, out, depth + 1, max_depth);
        } else {
            array(rng, out, depth + 1, max_depth);
        }
    } else {
        scalar(rng, out);
    }
}

fn object<R: Rng>(rng: &mut R, out: &mut Text, depth: usize, max_depth: usize) {
    push(out, "{");
    ws(rng, out);
    let n = rng.gen_range(0..5);
    for i in 0..n {
        if i > 0 {
            push(out, ",");
            ws(rng, out);
        }
        key(rng, out);
        ws(rng, out);
        push(out, ":");
        ws(rng, out);
        value(rng, out, depth, max_depth);
        ws(rng, out);
    }
    if n > 0 && rng.gen_bool(0.02) {
        push(out, ","); // trailing comma
    }
    push(out, "}");
}

fn array<R: Rng>(rng: &mut R, out: &mut Text, depth: usize, max_depth: usize) {
    push(out, "[");
    ws(rng, out);
    let n = rng.gen_range(0..4);
    for i in 0..n {
        if i > 0 {
            push(out, ",");
            ws(rng, out);
        }
        value(rng, out, depth, max_depth);
        ws(rng, out);
    }
    if n > 0 && rng.gen_bool(0.02) {
        push(out, ",");
    }
    push(out, "]");
}

/// Nesting of exactly `n` containers around a scalar, objects and arrays mixed.
fn nested<R: Rng>(rng: &mut R, n: usize) -> Text {
    let mut out = Text::new();
    let mut closers = Vec::new();
    for i in 0..n {
        if i == 0 || rng.gen_bool(0.5) {
            push(&mut out, "{\"a\":");
            closers.push('}');
        } else {
            push(&mut out, "[");
            closers.push(']');
        }
    }
    scalar(rng, &mut out);
    while let Some(c) = closers.pop() {
        out.push(c as u32);
    }
    out
}

/// `{"a":"<pad>"}` whose length lands around 4096 code points or bytes.
fn near_limit<R: Rng>(rng: &mut R) -> Text {
    let (pad, width) = *[("a", 1), ("é", 2), ("中", 3), ("😀", 4), ("\\u00e9", 1)]
        .choose(rng)
        .unwrap();
    let target = rng.gen_range(4090..4101usize);
    let units = pad.chars().count();
    // Count bytes for raw multi-byte pads, code points otherwise.
    let per = if units > 1 { units } else { width };
    let n = (target - 8) / per;
    let mut out = Text::new();
    push(&mut out, "{\"a\":\"");
    push(&mut out, &pad.repeat(n));
    push(&mut out, &"b".repeat((target - 8) % per));
    push(&mut out, "\"}");
    out
}

/// Random edits of a text.
fn mutate<R: Rng>(rng: &mut R, t: &mut Text) {
    let specials: &[u32] = &[
        '{' as u32,
        '}' as u32,
        '[' as u32,
        ']' as u32,
        '"' as u32,
        ':' as u32,
        ',' as u32,
        '\\' as u32,
        0x00,
        0x1F,
        0x7F,
        0xA0,
        0xD800,
        0xDC00,
        'e' as u32,
        '-' as u32,
        '.' as u32,
        '0' as u32,
        ' ' as u32,
    ];
    match rng.gen_range(0..12) {
        0 => t.insert(0, 0xFEFF),
        1 => {
            let mut wrapped = Text::new();
            push(
                &mut wrapped,
                ["```json\n", "```\n", "Here is the JSON: ", "json "]
                    .choose(rng)
                    .unwrap(),
            );
            wrapped.extend_from_slice(t);
            push(
                &mut wrapped,
                ["\n```", "```", " Hope this helps!", ""]
                    .choose(rng)
                    .unwrap(),
            );
            *t = wrapped;
        }
        2 => push(
            t,
            [
                "\n", " ", "x", "{}", ",", "}", "\u{0}", "\t\r\n ", "]", "null", "\u{a0}",
            ]
            .choose(rng)
            .unwrap(),
        ),
        3 => {
            let mut lead = Text::new();
            ws(rng, &mut lead);
            lead.extend_from_slice(t);
            *t = lead;
        }
        4 if !t.is_empty() => {
            let i = rng.gen_range(0..t.len());
            t.remove(i);
        }
        5 => {
            let i = rng.gen_range(0..=t.len());
            t.insert(i, *specials.choose(rng).unwrap());
        }
        6 if !t.is_empty() => {
            let i = rng.gen_range(0..t.len());
            t.truncate(i);
        }
        7 if !t.is_empty() => {
            let i = rng.gen_range(0..t.len());
            let j = rng.gen_range(i..=t.len().min(i + 20));
            let piece: Vec<u32> = t[i..j].to_vec();
            let k = rng.gen_range(0..=t.len());
            t.splice(k..k, piece);
        }
        8 if !t.is_empty() => {
            let i = rng.gen_range(0..t.len());
            t[i] = *specials.choose(rng).unwrap();
        }
        _ => {}
    }
}

/// One hostile text.
pub fn text<R: Rng>(rng: &mut R) -> Text {
    let mut t = match rng.gen_range(0..100) {
        0..=59 => {
            let mut t = Text::new();
            let max_depth = if rng.gen_bool(0.8) {
                rng.gen_range(1..7)
            } else {
                rng.gen_range(7..11)
            };
            object(rng, &mut t, 1, max_depth);
            t
        }
        60..=67 => {
            let mut t = Text::new();
            value(rng, &mut t, 0, 4);
            t
        }
        68..=79 => {
            let n = rng.gen_range(6..12);
            nested(rng, n)
        }
        80..=82 => {
            let n = rng.gen_range(100..6000);
            let unit = *["[", "{\"a\":", "[{\"a\":"].choose(rng).unwrap();
            let mut t = Text::new();
            push(&mut t, &unit.repeat(n / unit.len()));
            if rng.gen_bool(0.5) {
                push(&mut t, "1");
            }
            t
        }
        83..=91 => near_limit(rng),
        _ => {
            let mut t = Text::new();
            object(rng, &mut t, 1, 3);
            t
        }
    };
    if rng.gen_bool(0.35) {
        for _ in 0..rng.gen_range(1..3) {
            mutate(rng, &mut t);
        }
    }
    t
}
