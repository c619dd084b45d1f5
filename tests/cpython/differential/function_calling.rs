//! Hostile inputs for lesson 05: tool names differing by case, type or
//! spelling; `True` (and 1.0, None, huge ints) in every integer slot; enum
//! values of the wrong type or case; non-str and unprintable keys (ints of
//! more than 4300 digits, whose `str()` raises); cities and queries with
//! Unicode case and spaces (`'İstanbul'`, `'TOKYO\u2003'`, U+001C, final
//! sigma); traversal (`..`, absolute paths, backslashes, NUL, fullwidth
//! dots, NFD); scripts that never end, malformed replies the loop reaches
//! and ones it never reaches; `max_iterations` as `True`, `0`, `11`, `5.0`.

use super::structured::{wrong_type, Call};
use autograder::value::{PyDict, PyStr, PyValue};
use num_bigint::BigInt;
use rand::seq::SliceRandom;
use rand::Rng;

/// A str; U+FDD0 (a noncharacter) stands for the lone surrogate U+D800,
/// which Rust text cannot hold.
fn s(text: &str) -> PyValue {
    let cps = text
        .chars()
        .map(|c| if c == '\u{fdd0}' { 0xD800 } else { c as u32 })
        .collect();
    PyValue::Str(PyStr::from_code_points(cps))
}

fn int(i: i64) -> PyValue {
    PyValue::int(i)
}

const TOOLS: &[&str] = &[
    "calculator",
    "get_weather",
    "web_search",
    "read_file",
    "run_code",
];

/// A tool name: mostly one of the five, else off by case, space, spelling,
/// look-alike or type.
fn tool_name<R: Rng>(rng: &mut R) -> PyValue {
    match rng.gen_range(0..20) {
        0 => s([
            "Get_Weather",
            "GET_WEATHER",
            "get_weather ",
            " read_file",
            "read_file\n",
            "web-search",
            "websearch",
            "getWeather",
            "readfile",
            "calculator\u{0}",
            "",
            "run_code\u{200b}",
            "\u{ff52}ead_file",
            "web_searc\u{127}",
            "read_fil\u{e9}",
            "get_weathe\u{1e9e}",
            "Calculator",
            "python",
            "__import__",
        ]
        .choose(rng)
        .unwrap()),
        1 => PyValue::Str(PyStr::from_code_points(vec![0x72, 0x75, 0x6E, 0xD800])),
        _ => s(TOOLS.choose(rng).unwrap()),
    }
}

fn huge(positive: bool) -> PyValue {
    let v = BigInt::from(10).pow(4300);
    PyValue::Int(if positive { v } else { -v })
}

/// An integer slot's value: mostly an int, else True, 1.0, a str, a huge int.
fn integer<R: Rng>(rng: &mut R) -> PyValue {
    match rng.gen_range(0..16) {
        0 => PyValue::Bool(rng.gen()),
        1 => PyValue::Float(*[3.0, -1.0, f64::NAN, f64::INFINITY].choose(rng).unwrap()),
        2 => s("3"),
        3 => wrong_type(rng),
        4 => PyValue::Int(BigInt::from(10).pow(30)),
        5 => PyValue::Int(-BigInt::from(10).pow(4300) + 1),
        _ => int(rng.gen_range(-4..6)),
    }
}

fn city<R: Rng>(rng: &mut R) -> PyValue {
    let pool = [
        "Tokyo",
        "tokyo",
        "TOKYO",
        " TOKYO\u{2003}",
        "TOKYO\u{1c}",
        "\u{1f}london\u{1d}",
        "London\u{85}",
        "\u{3000}Sydney",
        "new york",
        "New York",
        "New  York",
        "newyork",
        "san francisco",
        "San Fran",
        "san",
        "sa",
        "syd",
        "lon",
        "to",
        "",
        " ",
        "\u{1c}",
        "\u{130}stanbul",
        "\u{130}STANBUL",
        "istanbul",
        "Par\u{ed}s",
        "\u{3a3}YDNEY",
        "S\u{3a3}",
        "LONDON\u{200b}",
        "\u{feff}tokyo",
        "tokyo\u{a0}",
        "\u{212a}yoto",
        "SAN FRANCISCO\t\n",
        "T\u{fdd0}kyo",
    ];
    match rng.gen_range(0..20) {
        0 => wrong_type(rng),
        _ => s(pool.choose(rng).unwrap()),
    }
}

fn units<R: Rng>(rng: &mut R) -> PyValue {
    match rng.gen_range(0..14) {
        0 => s([
            "Celsius",
            "FAHRENHEIT",
            "kelvin",
            "celsius ",
            "",
            "fahrenheit\u{0}",
        ]
        .choose(rng)
        .unwrap()),
        1 => wrong_type(rng),
        2 => PyValue::List(vec![s("celsius")]),
        3 => PyValue::Tuple(vec![s("fahrenheit")]),
        4 if rng.gen_bool(0.2) => huge(rng.gen()),
        5 => PyValue::List(vec![huge(true)]),
        _ => s(["celsius", "fahrenheit"].choose(rng).unwrap()),
    }
}

fn query<R: Rng>(rng: &mut R) -> PyValue {
    let pool = [
        "python function calling",
        "Python Function Calling",
        "  PYTHON FUNCTION CALLING\u{2003}",
        "function",
        "calling",
        "python",
        "MCP protocol",
        "mcp protocol",
        "Protocol",
        "mcp",
        "MCP",
        "weather API",
        "weather api",
        "WEATHER",
        "api",
        "what is the weather api today",
        "learn python function calling now",
        "",
        " ",
        "\u{1c}",
        "\u{1f}weather\u{1e}",
        "xyz",
        "\u{130}",
        "p",
        "\u{3a3}",
        "caf\u{e9}",
        "weather\u{fdd0}",
    ];
    match rng.gen_range(0..20) {
        0 => wrong_type(rng),
        _ => s(pool.choose(rng).unwrap()),
    }
}

/// A path: a file, a near miss, or a traversal.
pub fn path<R: Rng>(rng: &mut R) -> PyValue {
    let pool = [
        "data/config.json",
        "data/users.csv",
        "notes/caf\u{e9}.txt",
        "README.md",
        "notes/cafe\u{301}.txt",
        "notes/caf\u{c9}.txt",
        "readme.md",
        "README.MD",
        "README.md ",
        " README.md",
        "README.md\n",
        "./README.md",
        "data//users.csv",
        "data/",
        "data",
        "",
        ".",
        "..",
        "../README.md",
        "data/../README.md",
        "a/../b",
        "data/..",
        "...",
        "a..b",
        "/etc/passwd",
        "/README.md",
        "//README.md",
        "data\\users.csv",
        "..\\..\\windows",
        "README.md\u{0}",
        "\u{0}",
        "README.md\u{0}.png",
        "\u{ff0e}\u{ff0e}/README.md",
        "\u{ff0f}etc\u{ff0f}passwd",
        "\u{2024}\u{2024}/README.md",
        "data/config.json\u{fdd0}",
        "\u{fdd0}",
        "~/README.md",
        "file:///etc/passwd",
        "%2e%2e/README.md",
        "data/config.json/",
        "DATA/config.json",
        "notes/caf\u{e9}.TXT",
    ];
    match rng.gen_range(0..25) {
        0 => wrong_type(rng),
        1 => PyValue::List(vec![s("README.md")]),
        _ => s(pool.choose(rng).unwrap()),
    }
}

/// The property names of each tool, in schema order.
fn properties(tool: &str) -> &'static [&'static str] {
    match tool {
        "calculator" => &["expression", "precision"],
        "get_weather" => &["city", "units"],
        "web_search" => &["query", "max_results"],
        "read_file" => &["path"],
        "run_code" => &["code", "language"],
        _ => &[],
    }
}

fn value_for<R: Rng>(rng: &mut R, prop: &str) -> PyValue {
    match prop {
        "expression" => match rng.gen_range(0..10) {
            0 => wrong_type(rng),
            _ => s(["2 + 2", "", "__import__('os')", "1/0"]
                .choose(rng)
                .unwrap()),
        },
        "code" => match rng.gen_range(0..10) {
            0 => wrong_type(rng),
            _ => s(["print(1)", "", "import os"].choose(rng).unwrap()),
        },
        "language" => match rng.gen_range(0..8) {
            0 => s(["Python", "python3", "PYTHON", "", "javascript"]
                .choose(rng)
                .unwrap()),
            1 => wrong_type(rng),
            2 => PyValue::List(vec![s("python")]),
            _ => s("python"),
        },
        "precision" | "max_results" => integer(rng),
        "city" => city(rng),
        "units" => units(rng),
        "query" => query(rng),
        _ => path(rng),
    }
}

/// An unknown argument's key: a misspelling, a non-str, a huge int.
fn stray_key<R: Rng>(rng: &mut R) -> PyValue {
    match rng.gen_range(0..12) {
        0 => int(1),
        1 => PyValue::Bool(true),
        2 => PyValue::None,
        3 => PyValue::Float(*[1.5, 1e16, f64::NAN, -0.0].choose(rng).unwrap()),
        4 => PyValue::Tuple(vec![s("city"), int(1)]),
        5 if rng.gen_bool(0.3) => huge(rng.gen()),
        6 => PyValue::Str(PyStr::from_code_points(vec![0x63, 0xD800])),
        _ => s([
            "City",
            "cty",
            "units ",
            "Path",
            "file",
            "q",
            "maxResults",
            "",
            "arguments",
            "\u{0}",
        ]
        .choose(rng)
        .unwrap()),
    }
}

/// Arguments for `tool`: its properties (some missing), maybe stray keys,
/// shuffled; or not a dict at all.
fn arguments<R: Rng>(rng: &mut R, tool: &str) -> PyValue {
    match rng.gen_range(0..30) {
        0 => return wrong_type(rng),
        1 => return PyValue::List(vec![]),
        2 => return PyValue::Tuple(vec![PyValue::Tuple(vec![s("path"), s("README.md")])]),
        _ => {}
    }
    let tool = if rng.gen_bool(0.05) {
        *TOOLS.choose(rng).unwrap()
    } else {
        tool
    };
    let mut entries: Vec<(PyValue, PyValue)> = Vec::new();
    for (i, prop) in properties(tool).iter().enumerate() {
        let keep = if i == 0 {
            rng.gen_bool(0.93)
        } else {
            rng.gen_bool(0.5)
        };
        if keep {
            entries.push((s(prop), value_for(rng, prop)));
        }
    }
    if rng.gen_bool(0.12) {
        let n = rng.gen_range(1..=2);
        for _ in 0..n {
            let v = if rng.gen_bool(0.1) {
                huge(true)
            } else {
                wrong_type(rng)
            };
            entries.push((stray_key(rng), v));
        }
    }
    entries.shuffle(rng);
    PyValue::Dict(entries.into_iter().collect::<PyDict>())
}

pub fn validate_tool_arguments<R: Rng>(rng: &mut R) -> Call {
    let name = if rng.gen_bool(0.08) {
        wrong_type(rng)
    } else {
        tool_name(rng)
    };
    let tool = name
        .as_str()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let tool = if TOOLS.contains(&tool.as_str()) {
        tool
    } else {
        TOOLS.choose(rng).unwrap().to_string()
    };
    let args = arguments(rng, &tool);
    let f = "validate_tool_arguments";
    match rng.gen_range(0..12) {
        0 => (
            f,
            vec![],
            vec![("tool_name".into(), name), ("arguments".into(), args)],
        ),
        1 => (f, vec![name], vec![("arguments".into(), args)]),
        _ => (f, vec![name, args], vec![]),
    }
}

pub fn read_file<R: Rng>(rng: &mut R) -> Call {
    let p = path(rng);
    if rng.gen_bool(0.1) {
        return ("read_file", vec![], vec![("path".into(), p)]);
    }
    ("read_file", vec![p], vec![])
}

/// One tool call of a reply: right, or with a disturbed shape.
fn tool_call<R: Rng>(rng: &mut R) -> PyValue {
    let name = tool_name(rng);
    let tool = name
        .as_str()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let tool = if TOOLS.contains(&tool.as_str()) {
        tool
    } else {
        TOOLS.choose(rng).unwrap().to_string()
    };
    let args = arguments(rng, &tool);
    match rng.gen_range(0..60) {
        0 => PyValue::dict_of(vec![("name", wrong_type(rng)), ("arguments", args)]),
        1 => PyValue::dict_of(vec![("name", name)]),
        2 => PyValue::dict_of(vec![
            ("name", name),
            ("arguments", args),
            ("id", s("call_1")),
        ]),
        3 => PyValue::dict_of(vec![("function", name), ("arguments", args)]),
        4 => PyValue::List(vec![name, args]),
        5 => PyValue::dict_of(vec![("arguments", args), ("name", name)]),
        _ => PyValue::dict_of(vec![("name", name), ("arguments", args)]),
    }
}

/// A reply: some tool calls (1..=8, rarely 9), the final empty one, or
/// something that is not a reply at all.
fn reply<R: Rng>(rng: &mut R) -> PyValue {
    match rng.gen_range(0..50) {
        0 => wrong_type(rng),
        1 => PyValue::Tuple(vec![tool_call(rng)]),
        2 => PyValue::List((0..9).map(|_| tool_call(rng)).collect()),
        3 => PyValue::List((0..8).map(|_| tool_call(rng)).collect()),
        4 => s("Here is the answer."),
        _ => {
            let n = rng.gen_range(1..=3);
            PyValue::List((0..n).map(|_| tool_call(rng)).collect())
        }
    }
}

pub fn run_tool_loop<R: Rng>(rng: &mut R) -> Call {
    let n = match rng.gen_range(0..20) {
        0 => 0,
        1 => 20,
        2 => 21,
        _ => rng.gen_range(1..7),
    };
    let mut turns: Vec<PyValue> = (0..n).map(|_| reply(rng)).collect();
    // Mostly a script that ends: an empty reply somewhere.
    if !turns.is_empty() && rng.gen_bool(0.5) {
        let at = rng.gen_range(0..turns.len());
        turns[at] = PyValue::List(vec![]);
    }
    let turns = match rng.gen_range(0..50) {
        0 => PyValue::Tuple(turns),
        1 => wrong_type(rng),
        _ => PyValue::List(turns),
    };
    let limit = match rng.gen_range(0..40) {
        0 => Some(PyValue::Bool(true)),
        1 => Some(int(0)),
        2 => Some(int(11)),
        3 => Some(PyValue::Float(5.0)),
        4 => Some(int(-1)),
        5 => Some(s("5")),
        6 => Some(PyValue::Int(BigInt::from(10).pow(20))),
        7 => Some(int(10)),
        8 => Some(int(1)),
        9 => Some(wrong_type(rng)),
        10..=25 => Some(int(rng.gen_range(1..=10))),
        _ => None,
    };
    let f = "run_tool_loop";
    match (limit, rng.gen_range(0..4)) {
        (None, 0) => (f, vec![], vec![("turns".into(), turns)]),
        (None, _) => (f, vec![turns], vec![]),
        (Some(m), 0) => (f, vec![turns], vec![("max_iterations".into(), m)]),
        (Some(m), 1) => (
            f,
            vec![],
            vec![("max_iterations".into(), m), ("turns".into(), turns)],
        ),
        (Some(m), _) => (f, vec![turns, m], vec![]),
    }
}
