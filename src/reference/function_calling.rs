//! Lesson 05 — `function-calling`: `validate_tool_arguments`, `read_file`,
//! `run_tool_loop`, exactly as `checkpoints.md` defines them.
//!
//! Five tools with JSON-schema-like parameters; argument errors are a list of
//! exact messages (`str()` of any key or value is part of the contract); the
//! file tool answers its errors as data; the loop runs a scripted model for at
//! most `max_iterations` replies and writes every tool result with
//! `json.dumps`. Python's `str.lower()`, `str.strip()`, `round(x, 1)`,
//! slicing and `str()` are modelled exactly (`PyStr::lower`, `PyStr::strip`,
//! `repr::round_float`, `repr::str_of`).

use super::json;
use super::{Checkpoint, Param, Refusal};
use crate::value::repr::{repr, round_float, str_of};
use crate::value::{PyDict, PyStr, PyValue};
use num_bigint::BigInt;
use num_traits::ToPrimitive;

/// `max_iterations` is an exact int in `1..=MAX_ITERATIONS`.
pub const MAX_ITERATIONS: i64 = 10;
/// `turns` holds at most this many replies.
pub const MAX_TURNS: usize = 20;
/// A reply holds at most this many calls.
pub const MAX_CALLS: usize = 8;

/// The lesson's checkpoints, in course order.
pub const CHECKPOINTS: &[Checkpoint] = &[
    Checkpoint {
        name: "validate_tool_arguments",
        params: &[Param::required("tool_name"), Param::required("arguments")],
        run: |a| validate_tool_arguments(&a[0], &a[1]),
        tags: &[
            "valid",
            "unknown-tool",
            "boolean-ints",
            "wrong-types",
            "missing-or-extra-fields",
            "surrogates",
            "nan-infinity",
            "aliasing-and-mutation",
        ],
    },
    Checkpoint {
        name: "read_file",
        params: &[Param::required("path")],
        run: |a| Ok(read_file(&a[0])),
        tags: &[
            "valid",
            "path-traversal",
            "wrong-types",
            "surrogates",
            "unicode-offsets",
            "aliasing-and-mutation",
        ],
    },
    Checkpoint {
        name: "run_tool_loop",
        params: &[
            Param::required("turns"),
            Param::optional("max_iterations", || PyValue::int(5)),
        ],
        run: |a| run_tool_loop(&a[0], &a[1]),
        tags: &[
            "valid",
            "loop-bounds",
            "unknown-tool",
            "boolean-ints",
            "wrong-types",
            "missing-or-extra-fields",
            "out-of-range",
            "size-limits",
            "path-traversal",
            "surrogates",
            "nan-infinity",
            "aliasing-and-mutation",
        ],
    },
];

/// A property's JSON-schema type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `string`: `isinstance(v, str)`.
    String,
    /// `integer`: an exact int (`type(v) is int`: `True` is not an integer).
    Integer,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::String => "string",
            Kind::Integer => "integer",
        }
    }

    fn accepts(self, v: &PyValue) -> bool {
        match self {
            Kind::String => matches!(v, PyValue::Str(_)),
            Kind::Integer => v.as_exact_int().is_some(),
        }
    }
}

/// One parameter of a tool's schema.
struct Property {
    name: &'static str,
    kind: Kind,
    /// The `enum` list, in order; empty when the property has none.
    choices: &'static [&'static str],
}

/// A tool of the lesson's registry: only its parameter schema matters.
struct Tool {
    name: &'static str,
    properties: &'static [Property],
    required: &'static [&'static str],
}

const fn prop(name: &'static str, kind: Kind) -> Property {
    Property {
        name,
        kind,
        choices: &[],
    }
}

/// The registry, in the lesson's order.
const TOOLS: &[Tool] = &[
    Tool {
        name: "calculator",
        properties: &[
            prop("expression", Kind::String),
            prop("precision", Kind::Integer),
        ],
        required: &["expression"],
    },
    Tool {
        name: "get_weather",
        properties: &[
            prop("city", Kind::String),
            Property {
                name: "units",
                kind: Kind::String,
                choices: &["celsius", "fahrenheit"],
            },
        ],
        required: &["city"],
    },
    Tool {
        name: "web_search",
        properties: &[
            prop("query", Kind::String),
            prop("max_results", Kind::Integer),
        ],
        required: &["query"],
    },
    Tool {
        name: "read_file",
        properties: &[prop("path", Kind::String)],
        required: &["path"],
    },
    Tool {
        name: "run_code",
        properties: &[
            prop("code", Kind::String),
            Property {
                name: "language",
                kind: Kind::String,
                choices: &["python"],
            },
        ],
        required: &["code"],
    },
];

/// The tool named exactly `name` (no case folding, no trimming).
fn tool(name: &PyStr) -> Option<&'static Tool> {
    TOOLS.iter().find(|t| name.eq_str(t.name))
}

/// `WEATHER_DB`, in order: city, temp_c, condition, humidity, wind_kph.
const WEATHER_DB: &[(&str, i64, &str, i64, i64)] = &[
    ("tokyo", 18, "cloudy", 72, 14),
    ("new york", 22, "sunny", 45, 8),
    ("london", 12, "rainy", 88, 22),
    ("san francisco", 16, "foggy", 80, 18),
    ("sydney", 25, "sunny", 55, 10),
];

/// `FILE_SYSTEM`, in order.
const FILE_SYSTEM: &[(&str, &str)] = &[
    (
        "data/config.json",
        r#"{"model": "gpt-4o", "temperature": 0.7, "max_tokens": 4096}"#,
    ),
    (
        "data/users.csv",
        "name,email,role\nAlice,alice@example.com,admin\nBob,bob@example.com,user",
    ),
    (
        "notes/caf\u{e9}.txt",
        "Cr\u{e8}me br\u{fb}l\u{e9}e \u{2014} 2 \u{20ac}\nSee README.md",
    ),
    (
        "README.md",
        "# Demo project\nSample files for the function-calling lesson.\n",
    ),
];

/// A search result: title, url, snippet.
type Hit = (&'static str, &'static str, &'static str);

/// `SEARCH_DB`, in order: each key's results.
const SEARCH_DB: &[(&str, &[Hit])] = &[
    (
        "python function calling",
        &[
            (
                "OpenAI Function Calling Guide",
                "https://platform.openai.com/docs/guides/function-calling",
                "Learn how to connect LLMs to external tools.",
            ),
            (
                "Anthropic Tool Use",
                "https://docs.anthropic.com/en/docs/tool-use",
                "Claude can interact with external tools and APIs.",
            ),
        ],
    ),
    (
        "MCP protocol",
        &[(
            "Model Context Protocol",
            "https://modelcontextprotocol.io",
            "An open standard for connecting AI models to data sources.",
        )],
    ),
    (
        "weather API",
        &[(
            "OpenWeatherMap API",
            "https://openweathermap.org/api",
            "Free weather API with current, forecast, and historical data.",
        )],
    ),
];

/// Rust text and Python strs joined into one `PyStr` (an f-string).
fn text(parts: &[&PyStr]) -> PyStr {
    parts.iter().fold(PyStr::new(), |acc, p| acc.concat(p))
}

fn lit(s: &str) -> PyStr {
    PyStr::from(s)
}

/// The error messages of `arguments` for a known tool (steps 2–4), or the
/// refusal `str()` raises on an int of more than 4300 digits.
fn argument_errors(tool: &Tool, arguments: &PyValue) -> Result<Vec<PyStr>, Refusal> {
    let Some(args) = arguments.as_dict() else {
        return Ok(vec![lit(&format!(
            "Arguments must be an object, got {}",
            arguments.type_name()
        ))]);
    };
    let mut errors: Vec<PyStr> = tool
        .required
        .iter()
        .filter(|name| args.get_str(name).is_none())
        .map(|name| lit(&format!("Missing required argument: {name}")))
        .collect();
    for (key, value) in args.iter() {
        let property = key
            .as_str()
            .and_then(|k| tool.properties.iter().find(|p| k.eq_str(p.name)));
        let Some(property) = property else {
            errors.push(text(&[&lit("Unknown argument: "), &str_of(key)?]));
            continue;
        };
        if !property.kind.accepts(value) {
            errors.push(lit(&format!(
                "Argument '{}': expected {}, got {}",
                property.name,
                property.kind.name(),
                value.type_name()
            )));
        }
        // `value not in enum`: Python's `in` compares with `==`, and only a
        // str equal to a choice equals one (the choices are all strs).
        let in_enum =
            matches!(value, PyValue::Str(s) if property.choices.iter().any(|c| s.eq_str(c)));
        if !property.choices.is_empty() && !in_enum {
            let choices: Vec<PyValue> = property.choices.iter().map(|c| PyValue::str(c)).collect();
            errors.push(text(&[
                &lit(&format!("Argument '{}': '", property.name)),
                &str_of(value)?,
                &lit(&format!("' not in {}", repr(&PyValue::List(choices)))),
            ]));
        }
    }
    Ok(errors)
}

/// `validate_tool_arguments(tool_name, arguments)`: a new list of error
/// messages, `[]` when the arguments are valid; a refusal when `tool_name`
/// is not a str (or `str()` of a key or value raises).
pub fn validate_tool_arguments(
    tool_name: &PyValue,
    arguments: &PyValue,
) -> Result<PyValue, Refusal> {
    let name = tool_name.as_str().ok_or("tool_name must be a str")?;
    let errors = match tool(name) {
        None => vec![text(&[&lit("Unknown tool: "), name])],
        Some(t) => argument_errors(t, arguments)?,
    };
    Ok(PyValue::List(
        errors.into_iter().map(PyValue::Str).collect(),
    ))
}

/// An error answered as data: `{'error': True, 'message': ..., <extra>, 'code': ...}`.
fn error(message: PyStr, extra: Option<(&str, PyValue)>, code: &str) -> PyValue {
    let mut entries = vec![
        ("error", PyValue::Bool(true)),
        ("message", PyValue::Str(message)),
    ];
    entries.extend(extra);
    entries.push(("code", PyValue::str(code)));
    PyValue::dict_of(entries)
}

/// `read_file(path)`: the file as a new dict, or its error as data (never
/// a refusal).
pub fn read_file(path: &PyValue) -> PyValue {
    let Some(p) = path.as_str() else {
        return error(lit("Path must be a string."), None, "INVALID_PATH");
    };
    let cps = p.code_points();
    let traversal = p.contains(&lit(".."))
        || cps.first() == Some(&('/' as u32))
        || cps.contains(&('\\' as u32))
        || cps.contains(&0);
    if traversal {
        return error(lit("Path traversal not allowed."), None, "FORBIDDEN");
    }
    let Some((name, content)) = FILE_SYSTEM.iter().find(|(name, _)| p.eq_str(name)) else {
        let available = FILE_SYSTEM.iter().map(|(n, _)| PyValue::str(n)).collect();
        return error(
            text(&[&lit("File '"), p, &lit("' not found.")]),
            Some(("available_files", PyValue::List(available))),
            "NOT_FOUND",
        );
    };
    PyValue::dict_of(vec![
        ("path", PyValue::str(name)),
        ("content", PyValue::str(content)),
        ("size_bytes", PyValue::int(content.len() as i64)),
        (
            "lines",
            PyValue::int(content.matches('\n').count() as i64 + 1),
        ),
    ])
}

/// Python's `items[:n]` for any int `n` (negative counts from the end,
/// huge values clamp).
fn list_head(items: Vec<PyValue>, n: &BigInt) -> Vec<PyValue> {
    let len = items.len() as i64;
    let end = match n.to_i64() {
        Some(n) if n < 0 => (len + n).max(0),
        Some(n) => n.min(len),
        None if n.sign() == num_bigint::Sign::Minus => 0,
        None => len,
    };
    items.into_iter().take(end as usize).collect()
}

/// The `get_weather` tool on validated arguments.
fn get_weather(args: &PyDict) -> PyValue {
    let city = args
        .get_str("city")
        .and_then(PyValue::as_str)
        .cloned()
        .unwrap_or_default();
    let fahrenheit = args
        .get_str("units")
        .and_then(PyValue::as_str)
        .is_some_and(|u| u.eq_str("fahrenheit"));
    let key = city.lower().strip();
    let Some(&(_, temp_c, condition, humidity, wind)) =
        WEATHER_DB.iter().find(|(c, ..)| key.eq_str(c))
    else {
        let prefix = key.head(3);
        let suggestions = WEATHER_DB
            .iter()
            .filter(|(c, ..)| lit(c).starts_with(&prefix))
            .map(|(c, ..)| PyValue::str(c))
            .collect();
        return error(
            text(&[&lit("City '"), &city, &lit("' not found.")]),
            Some(("suggestions", PyValue::List(suggestions))),
            "CITY_NOT_FOUND",
        );
    };
    let mut entries = Vec::new();
    if !fahrenheit {
        entries.push(("temp_c", PyValue::int(temp_c)));
    }
    entries.push(("condition", PyValue::str(condition)));
    entries.push(("humidity", PyValue::int(humidity)));
    entries.push(("wind_kph", PyValue::int(wind)));
    if fahrenheit {
        // temp_c * 9 / 5 + 32: an exact int product, a true division and a
        // float addition, each correctly rounded as in CPython.
        let f = (temp_c * 9) as f64 / 5.0 + 32.0;
        entries.push(("temp_f", PyValue::Float(round_float(f, 1))));
    }
    entries.push(("city", PyValue::Str(city)));
    PyValue::dict_of(entries)
}

/// The `web_search` tool on validated arguments.
fn web_search(args: &PyDict) -> PyValue {
    let query = args
        .get_str("query")
        .and_then(PyValue::as_str)
        .cloned()
        .unwrap_or_default();
    let max_results = args
        .get_str("max_results")
        .and_then(PyValue::as_exact_int)
        .cloned()
        .unwrap_or_else(|| BigInt::from(3));
    let key = query.lower().strip();
    let hit = SEARCH_DB.iter().find(|(db_key, _)| {
        let db_key = lit(db_key);
        key.contains(&db_key) || db_key.contains(&key)
    });
    let (results, total) = match hit {
        None => (Vec::new(), 0),
        Some((_, rows)) => {
            let all: Vec<PyValue> = rows
                .iter()
                .map(|(title, url, snippet)| {
                    PyValue::dict_of(vec![
                        ("title", PyValue::str(title)),
                        ("url", PyValue::str(url)),
                        ("snippet", PyValue::str(snippet)),
                    ])
                })
                .collect();
            let total = all.len() as i64;
            (list_head(all, &max_results), total)
        }
    };
    PyValue::dict_of(vec![
        ("query", PyValue::Str(query)),
        ("results", PyValue::List(results)),
        ("total", PyValue::int(total)),
    ])
}

/// The result of one tool call in the loop (before `json.dumps`).
fn call_result(name: &PyStr, arguments: &PyValue) -> Result<PyValue, Refusal> {
    let Some(t) = tool(name) else {
        return Ok(error(
            text(&[&lit("Unknown tool: "), name]),
            None,
            "UNKNOWN_TOOL",
        ));
    };
    let errors = argument_errors(t, arguments)?;
    if !errors.is_empty() {
        let errors = errors.into_iter().map(PyValue::Str).collect();
        return Ok(error(
            lit("Invalid arguments."),
            Some(("errors", PyValue::List(errors))),
            "INVALID_ARGUMENTS",
        ));
    }
    let args = arguments
        .as_dict()
        .ok_or("validated arguments are a dict")?;
    Ok(match t.name {
        "calculator" | "run_code" => error(
            lit(&format!("Tool '{}' is disabled here.", t.name)),
            None,
            "DISABLED",
        ),
        "read_file" => read_file(args.get_str("path").unwrap_or(&PyValue::None)),
        "get_weather" => get_weather(args),
        _ => web_search(args),
    })
}

/// One reply of the script, checked: a list of at most 8 dicts with keys
/// exactly `{name, arguments}` and a str name.
fn reply_calls(reply: &PyValue) -> Result<Vec<(&PyStr, &PyValue)>, Refusal> {
    let calls = reply
        .as_list()
        .filter(|l| l.len() <= MAX_CALLS)
        .ok_or("a reply is a list of at most 8 calls")?;
    calls
        .iter()
        .map(|c| {
            let d = c
                .as_dict()
                .filter(|d| d.has_exact_str_keys(&["name", "arguments"]))
                .ok_or("a call has exactly the keys name, arguments")?;
            let name = d
                .get_str("name")
                .and_then(PyValue::as_str)
                .ok_or("a call's name is a str")?;
            Ok((name, d.get_str("arguments").unwrap_or(&PyValue::None)))
        })
        .collect()
}

/// `run_tool_loop(turns, max_iterations=5)`: the messages of a scripted
/// function-calling loop, the replies read and why it stopped.
pub fn run_tool_loop(turns: &PyValue, max_iterations: &PyValue) -> Result<PyValue, Refusal> {
    let limit = max_iterations
        .as_exact_int()
        .and_then(ToPrimitive::to_i64)
        .filter(|n| (1..=MAX_ITERATIONS).contains(n))
        .ok_or("max_iterations is an exact int in 1..=10")?;
    let turns = turns
        .as_list()
        .filter(|t| t.len() <= MAX_TURNS)
        .ok_or("turns is a list of at most 20 replies")?;
    let empty = PyValue::List(Vec::new());
    let mut messages = Vec::new();
    let mut iterations = 0;
    let mut stop = "max-iterations";
    for i in 0..limit as usize {
        let calls = reply_calls(turns.get(i).unwrap_or(&empty))?;
        iterations = i + 1;
        if calls.is_empty() {
            stop = "done";
            break;
        }
        let tool_calls = calls
            .iter()
            .map(|(name, arguments)| {
                PyValue::dict_of(vec![
                    ("name", PyValue::Str((*name).clone())),
                    ("arguments", (*arguments).clone()),
                ])
            })
            .collect();
        messages.push(PyValue::dict_of(vec![
            ("role", PyValue::str("assistant")),
            ("tool_calls", PyValue::List(tool_calls)),
        ]));
        for (name, arguments) in calls {
            let result = call_result(name, arguments)?;
            let content = json::dumps(&result).map_err(|e| e.to_string())?;
            messages.push(PyValue::dict_of(vec![
                ("role", PyValue::str("tool")),
                ("name", PyValue::Str(name.clone())),
                ("content", PyValue::Str(content)),
            ]));
        }
    }
    Ok(PyValue::dict_of(vec![
        ("messages", PyValue::List(messages)),
        ("iterations", PyValue::int(iterations as i64)),
        ("stop", PyValue::str(stop)),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::strict_eq;

    fn s(text: &str) -> PyValue {
        PyValue::str(text)
    }

    fn list(items: Vec<PyValue>) -> PyValue {
        PyValue::List(items)
    }

    fn strs(items: &[&str]) -> PyValue {
        list(items.iter().map(|t| s(t)).collect())
    }

    fn errors(tool: &str, args: PyValue) -> PyValue {
        validate_tool_arguments(&s(tool), &args).unwrap()
    }

    fn call(name: &str, args: PyValue) -> PyValue {
        PyValue::dict_of(vec![("name", s(name)), ("arguments", args)])
    }

    fn contents(result: &PyValue) -> Vec<String> {
        let messages = result.as_dict().unwrap().get_str("messages").unwrap();
        messages
            .as_list()
            .unwrap()
            .iter()
            .filter_map(|m| m.as_dict().unwrap().get_str("content"))
            .map(|c| c.as_str().unwrap().to_string_lossy())
            .collect()
    }

    #[test]
    fn validate_tool_arguments_messages() {
        let d = PyValue::dict_of;
        assert!(strict_eq(
            &errors("get_weather", d(vec![("city", s("Tokyo"))])),
            &list(vec![])
        ));
        assert!(strict_eq(
            &errors("Get_Weather", d(vec![])),
            &strs(&["Unknown tool: Get_Weather"])
        ));
        assert!(validate_tool_arguments(&PyValue::None, &d(vec![])).is_err());
        assert!(strict_eq(
            &errors("calculator", list(vec![])),
            &strs(&["Arguments must be an object, got list"])
        ));
        let got = errors(
            "get_weather",
            d(vec![("units", PyValue::int(1)), ("cty", s("x"))]),
        );
        assert!(strict_eq(
            &got,
            &strs(&[
                "Missing required argument: city",
                "Argument 'units': expected string, got int",
                "Argument 'units': '1' not in ['celsius', 'fahrenheit']",
                "Unknown argument: cty",
            ])
        ));
        let got = errors(
            "web_search",
            d(vec![
                ("query", s("q")),
                ("max_results", PyValue::Bool(true)),
            ]),
        );
        assert!(strict_eq(
            &got,
            &strs(&["Argument 'max_results': expected integer, got bool"])
        ));
        let got = errors(
            "run_code",
            d(vec![("code", s("1")), ("language", s("Python"))]),
        );
        assert!(strict_eq(
            &got,
            &strs(&["Argument 'language': 'Python' not in ['python']"])
        ));
        let keys: PyDict = vec![
            (PyValue::int(1), PyValue::None),
            (PyValue::Tuple(vec![s("a")]), PyValue::None),
            (PyValue::Float(1e16), PyValue::None),
            (s("path"), s("README.md")),
        ]
        .into_iter()
        .collect();
        let got = errors("read_file", PyValue::Dict(keys));
        assert!(strict_eq(
            &got,
            &strs(&[
                "Unknown argument: 1",
                "Unknown argument: ('a',)",
                "Unknown argument: 1e+16",
            ])
        ));
        let huge = PyValue::Int(BigInt::from(10).pow(4300));
        let bad: PyDict = vec![(huge.clone(), PyValue::None)].into_iter().collect();
        assert!(validate_tool_arguments(&s("read_file"), &PyValue::Dict(bad)).is_err());
        // An unknown argument's value is never printed.
        let fine = d(vec![("path", s("a")), ("x", huge.clone())]);
        assert!(validate_tool_arguments(&s("read_file"), &fine).is_ok());
        let units = d(vec![("city", s("x")), ("units", list(vec![huge]))]);
        assert!(validate_tool_arguments(&s("get_weather"), &units).is_err());
    }

    #[test]
    fn read_file_answers_errors_as_data() {
        let r = read_file(&s("notes/caf\u{e9}.txt"));
        let want = PyValue::dict_of(vec![
            ("path", s("notes/caf\u{e9}.txt")),
            (
                "content",
                s("Cr\u{e8}me br\u{fb}l\u{e9}e \u{2014} 2 \u{20ac}\nSee README.md"),
            ),
            ("size_bytes", PyValue::int(39)),
            ("lines", PyValue::int(2)),
        ]);
        assert!(strict_eq(&r, &want));
        let code = |p: PyValue| read_file(&p).as_dict().unwrap().get_str("code").cloned();
        for bad in [
            "../x",
            "a..b",
            "/etc/passwd",
            "data\\users.csv",
            "README.md\0",
            "..",
        ] {
            assert!(strict_eq(&code(s(bad)).unwrap(), &s("FORBIDDEN")), "{bad}");
        }
        for missing in [
            "notes/cafe\u{301}.txt",
            "readme.md",
            "\u{ff0e}\u{ff0e}/x",
            "",
            "./README.md",
        ] {
            assert!(
                strict_eq(&code(s(missing)).unwrap(), &s("NOT_FOUND")),
                "{missing}"
            );
        }
        assert!(strict_eq(&code(PyValue::None).unwrap(), &s("INVALID_PATH")));
        let readme = read_file(&s("README.md"));
        let lines = readme.as_dict().unwrap().get_str("lines").unwrap();
        assert!(strict_eq(lines, &PyValue::int(3)));
    }

    #[test]
    fn the_loop_ends_and_answers_every_call() {
        let d = PyValue::dict_of;
        let turns = list(vec![
            list(vec![
                call("get_weather", d(vec![("city", s("\u{130}stanbul"))])),
                call(
                    "get_weather",
                    d(vec![
                        ("city", s(" TOKYO\u{1c}")),
                        ("units", s("fahrenheit")),
                    ]),
                ),
            ]),
            list(vec![call(
                "web_search",
                d(vec![
                    ("query", s("Protocol")),
                    ("max_results", PyValue::int(-1)),
                ]),
            )]),
        ]);
        let r = run_tool_loop(&turns, &PyValue::int(5)).unwrap();
        let rd = r.as_dict().unwrap();
        assert!(strict_eq(
            rd.get_str("iterations").unwrap(),
            &PyValue::int(3)
        ));
        assert!(strict_eq(rd.get_str("stop").unwrap(), &s("done")));
        assert_eq!(
            contents(&r),
            vec![
                r#"{"error": true, "message": "City '\u0130stanbul' not found.", "suggestions": [], "code": "CITY_NOT_FOUND"}"#,
                r#"{"condition": "cloudy", "humidity": 72, "wind_kph": 14, "temp_f": 64.4, "city": " TOKYO\u001c"}"#,
                r#"{"query": "Protocol", "results": [], "total": 1}"#,
            ]
        );
        let forever = list(vec![
            list(vec![call(
                "calculator",
                d(vec![("expression", s("1"))])
            )]);
            20
        ]);
        let r = run_tool_loop(&forever, &PyValue::int(10)).unwrap();
        let rd = r.as_dict().unwrap();
        assert!(strict_eq(
            rd.get_str("iterations").unwrap(),
            &PyValue::int(10)
        ));
        assert!(strict_eq(rd.get_str("stop").unwrap(), &s("max-iterations")));
        for bad in [
            PyValue::Bool(true),
            PyValue::int(0),
            PyValue::int(11),
            PyValue::Float(5.0),
        ] {
            assert!(run_tool_loop(&forever, &bad).is_err());
        }
        // A malformed reply matters only when the loop reaches it.
        let late = list(vec![list(vec![]), s("garbage")]);
        assert!(run_tool_loop(&late, &PyValue::int(5)).is_ok());
        let early = list(vec![list(vec![call("x", d(vec![]))]), s("garbage")]);
        assert!(run_tool_loop(&early, &PyValue::int(1)).is_ok());
        assert!(run_tool_loop(&early, &PyValue::int(2)).is_err());
        let empty = run_tool_loop(&list(vec![]), &PyValue::int(1)).unwrap();
        assert!(strict_eq(
            &empty,
            &d(vec![
                ("messages", list(vec![])),
                ("iterations", PyValue::int(1)),
                ("stop", s("done"))
            ])
        ));
    }

    #[test]
    fn lower_strip_and_round_are_cpythons() {
        let cps = |t: &str| PyStr::from(t);
        assert_eq!(cps("\u{130}").lower().code_points(), &[0x69, 0x307]);
        assert!(cps("\u{39f}\u{394}\u{39f}\u{3a3}").lower() == cps("\u{3bf}\u{3b4}\u{3bf}\u{3c2}"));
        assert!(cps("\u{3a3}").lower() == cps("\u{3c3}"));
        assert!(cps("\u{1c} a\u{2003}\u{85}").strip() == cps("a"));
        assert!(cps("\u{200b}a").strip() == cps("\u{200b}a"));
        assert_eq!(round_float(0.25, 1), 0.2);
        assert_eq!(round_float(0.35, 1), 0.3);
        assert_eq!(round_float(77.0, 1), 77.0);
        assert!(round_float(-0.04, 1).is_sign_negative());
    }
}
