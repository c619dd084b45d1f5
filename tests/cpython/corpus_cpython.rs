//! The call reader agrees with CPython on every case of the shipped corpus and
//! of the fixture corpora: one python3 process reads the same TOML files with
//! `tomllib`, evaluates every `[let]`, call and `expect` with Python's own
//! `eval` (our corpus text, never student code), and sends the values back in
//! tagged JSON (`src/runner/harness/tagged.py`) with their `repr`. The Rust
//! values must be strictly equal, and their Rust `repr` identical to CPython's.

use autograder::corpus::{self, Corpus};
use autograder::value::repr::repr;
use autograder::value::{strict_eq, tagged, Outcome, PyValue};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const SCRIPT: &str = r#"
import json, sys, tomllib, warnings
warnings.simplefilter("ignore")  # '\d' and friends warn, as they should
sys.path.insert(0, sys.argv[1])
import tagged
sys.set_int_max_str_digits(0)

def capture(*args, **kwargs):
    return list(args), list(kwargs.items())

def _num(x):
    return "float('%r')" % x if isinstance(x, float) and x in (float("inf"), float("-inf")) else repr(x)

class Matcher:
    """The case language's matchers, as src/value/matcher.rs spells them."""
    def __init__(self, name, kwargs):
        order = ["min_len", "max_len", "min", "max"]
        self.name, self.kwargs = name, sorted(kwargs.items(), key=lambda kv: order.index(kv[0]))
    def call(self):
        kw = [(k, v) for k, v in self.kwargs if not (k == "min_len" and v == 0)]
        return "%s(%s)" % (self.name, ", ".join("%s=%s" % (k, _num(v)) for k, v in kw))
    def __repr__(self):
        kw = dict(self.kwargs)
        if self.name == "any":
            return "<any value>"
        if self.name == "any_str":
            n, m = kw.get("min_len", 0), kw.get("max_len")
            if m is None:
                return {0: "<any str>", 1: "<any non-empty str>"}.get(n, "<any str of at least %d characters>" % n)
            if n == 0:
                return "<any str of at most %d characters>" % m
            return "<any str of %d characters>" % n if n == m else "<any str of %d to %d characters>" % (n, m)
        kind = self.name[4:]
        lo, hi = kw.get("min"), kw.get("max")
        if lo is None and hi is None:
            return "<any %s>" % kind
        if hi is None:
            return "<any %s >= %r>" % (kind, lo)
        if lo is None:
            return "<any %s <= %r>" % (kind, hi)
        return "<any %s from %r to %r>" % (kind, lo, hi)

def _matcher(name):
    return lambda **kw: Matcher(name, kw)

MATCHERS = {n: _matcher(n) for n in ("any", "any_str", "any_int", "any_float")}

def encode_expected(v):
    """tagged.encode, with {"$match": {"call": ...}} for matchers."""
    def has(v):
        if isinstance(v, Matcher):
            return True
        if type(v) in (list, tuple):
            return any(has(x) for x in v)
        if type(v) is dict:
            return any(has(x) for x in v.values())
        return False
    if isinstance(v, Matcher):
        return {"$match": {"call": v.call()}}
    if not has(v):
        return tagged.encode(v)
    if type(v) is list:
        return [encode_expected(x) for x in v]
    if type(v) is tuple:
        return {"$tuple": [encode_expected(x) for x in v]}
    if all(type(k) is str and not k.startswith("$") for k in v):
        return {k: encode_expected(x) for k, x in v.items()}
    return {"$dict": [[tagged.encode(k), encode_expected(x)] for k, x in v.items()]}

out = sys.stdout
for path in sys.stdin.read().split("\n"):
    if not path:
        continue
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    cp = doc["checkpoint"]
    builtins = {"float": float, "chr": chr}
    env = {}
    for name, text in doc.get("let", {}).items():
        env[name] = eval(text, {"__builtins__": dict(builtins, **MATCHERS)}, dict(env))
    for case in doc.get("case", []):
        scope = dict(env)
        scope[cp] = capture
        args, kwargs = eval(case["call"], {"__builtins__": builtins}, scope)
        rec = {
            "id": cp + "/" + case["id"],
            "args": [tagged.encode(a) for a in args],
            "kwargs": [[k, tagged.encode(v)] for k, v in kwargs],
            "reprs": [repr(a) for a in args] + [repr(v) for _, v in kwargs],
        }
        expect = case.get("expect")
        if expect is not None and expect.strip() != "ValueError":
            v = eval(expect, {"__builtins__": dict(builtins, **MATCHERS)}, dict(env))
            rec["expect"] = encode_expected(v)
            rec["expect_repr"] = repr(v)
        out.write(json.dumps(rec) + "\n")
"#;

struct Totals {
    cases: usize,
    values: usize,
    pins: usize,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the script over the corpus's case files; returns one record per case id.
fn cpython_values(corpus: &Corpus) -> Option<HashMap<String, serde_json::Value>> {
    let mut files: Vec<&Path> = corpus.cases.iter().map(|c| c.file.as_path()).collect();
    files.sort();
    files.dedup();
    let harness = root().join("src/runner/harness");
    let child = Command::new("python3")
        .arg("-c")
        .arg(SCRIPT)
        .arg(&harness)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            say!("skipping: cannot run python3: {e}");
            return None;
        }
    };
    let list: String = files.iter().map(|f| format!("{}\n", f.display())).collect();
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(list.as_bytes())
        .expect("writing the file list");
    let out = child.wait_with_output().expect("python3 ran");
    assert!(
        out.status.success(),
        "the CPython side failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("JSON is UTF-8");
    Some(
        text.lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
                (v["id"].as_str().expect("an id").to_string(), v)
            })
            .collect(),
    )
}

fn decode(j: &serde_json::Value, what: &str) -> PyValue {
    tagged::decode(j).unwrap_or_else(|e| panic!("{what}: CPython's value does not decode: {e}"))
}

/// An expected value from CPython, matchers allowed.
fn decode_expected(j: &serde_json::Value, what: &str) -> PyValue {
    tagged::decode_expected(j)
        .unwrap_or_else(|e| panic!("{what}: CPython's expected value does not decode: {e}"))
}

fn compare(corpus: &Corpus, totals: &mut Totals) -> bool {
    let Some(py) = cpython_values(corpus) else {
        return false;
    };
    let mut failures = Vec::new();
    for case in &corpus.cases {
        let Some(rec) = py.get(&case.id) else {
            failures.push(format!("{}: CPython did not see this case", case.id));
            continue;
        };
        totals.cases += 1;
        let py_args: Vec<PyValue> = rec["args"]
            .as_array()
            .expect("args")
            .iter()
            .map(|j| decode(j, &case.id))
            .collect();
        let py_kwargs: Vec<(String, PyValue)> = rec["kwargs"]
            .as_array()
            .expect("kwargs")
            .iter()
            .map(|kv| {
                (
                    kv[0].as_str().expect("a keyword").to_string(),
                    decode(&kv[1], &case.id),
                )
            })
            .collect();
        let reprs: Vec<&str> = rec["reprs"]
            .as_array()
            .expect("reprs")
            .iter()
            .map(|r| r.as_str().expect("a repr"))
            .collect();
        if py_args.len() != case.args.len() || py_kwargs.len() != case.kwargs.len() {
            failures.push(format!("{}: argument counts differ", case.id));
            continue;
        }
        let ours = case.args.iter().chain(case.kwargs.iter().map(|(_, v)| v));
        let theirs = py_args.iter().chain(py_kwargs.iter().map(|(_, v)| v));
        for (k, ((a, b), r)) in ours.zip(theirs).zip(&reprs).enumerate() {
            totals.values += 1;
            if !strict_eq(a, b) {
                failures.push(format!(
                    "{} ({}:{}): argument {k} differs: CPython {r}, reader {}",
                    case.id,
                    case.file.display(),
                    case.line,
                    repr(a)
                ));
            } else if repr(a) != *r {
                failures.push(format!(
                    "{}: argument {k}: repr differs: CPython {r}, Rust {}",
                    case.id,
                    repr(a)
                ));
            }
        }
        for (i, ((k, _), (pk, _))) in case.kwargs.iter().zip(&py_kwargs).enumerate() {
            if k != pk {
                failures.push(format!(
                    "{}: keyword {i} is {k} here, {pk} in CPython",
                    case.id
                ));
            }
        }
        if let Some(Outcome::Returns(v)) = &case.expect {
            totals.pins += 1;
            let want = decode_expected(&rec["expect"], &case.id);
            let want_repr = rec["expect_repr"].as_str().expect("expect_repr");
            if !strict_eq(v, &want) || repr(v) != want_repr {
                failures.push(format!(
                    "{}: expect differs: CPython {want_repr}, reader {}",
                    case.id,
                    repr(v)
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} disagreement(s) with CPython:\n{}",
        failures.len(),
        failures.join("\n")
    );
    true
}

#[test]
fn reader_agrees_with_cpython_on_every_corpus_value() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Cpython) {
        return;
    }
    let mut totals = Totals {
        cases: 0,
        values: 0,
        pins: 0,
    };
    let dirs = [
        root().join("cases"),
        root().join("tests/fixtures/corpus-good"),
        root().join("tests/fixtures/corpus-literals"),
    ];
    for dir in &dirs {
        let corpus = match corpus::load(dir) {
            Ok(c) => c,
            Err(e) => panic!("{} does not load: {e}", dir.display()),
        };
        if corpus.cases.is_empty() {
            say!("skipping {}: no cases yet", dir.display());
            continue;
        }
        if !compare(&corpus, &mut totals) {
            return;
        }
        say!(
            "{}: {} cases agree with CPython",
            dir.display(),
            corpus.cases.len()
        );
    }
    say!(
        "reader vs CPython: {} cases, {} argument values and {} pinned values strictly equal, repr identical",
        totals.cases, totals.values, totals.pins
    );
    assert!(
        totals.cases > 100,
        "too few cases compared: {}",
        totals.cases
    );
}
