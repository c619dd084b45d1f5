//! Differential test: `repr` against CPython's own `repr`, and the
//! marshal bytes the harness builds each call's arguments from
//! (`value::marshal`) against CPython's `marshal.dumps(v, 2)`.
//!
//! A seeded generator builds thousands of hostile values (floats around the
//! notation boundaries, subnormals, big ints, strings with surrogates,
//! controls, quotes and wide characters, nested containers, dicts with
//! non-text keys) and many bare floats, plus strings that together hold every code point. Each
//! value crosses to ONE `python3` process as tagged JSON, is rebuilt by
//! `src/runner/harness/tagged.py`, and CPython prints its `repr`; every line
//! must equal ours. CPython also reads our `pretty` form back with
//! `ast.literal_eval` (values without nan/inf) and its repr must match. Set `REPR_CPYTHON_SEED` to try another seed.

use autograder::value::repr::{pretty, repr};
use autograder::value::{marshal, tagged, PyDict, PyStr, PyValue};
use num_bigint::BigInt;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

const RANDOM_VALUES: usize = 4000;
/// Extra bare floats: float digits are the easiest thing to get subtly wrong.
const FLOATS: usize = 20_000;
const SWEEP_CHUNK: u32 = 1024;

const PY: &str = r#"
import ast, importlib.util, json, marshal, sys
sys.set_int_max_str_digits(0)
spec = importlib.util.spec_from_file_location("tagged", sys.argv[1])
tagged = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tagged)
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    case = json.loads(line)
    v = tagged.decode(case["v"])
    back = None if case["p"] is None else repr(ast.literal_eval(case["p"]))
    out.write(json.dumps([repr(v), back, marshal.dumps(v, 2).hex()]).encode() + b"\n")
out.flush()
"#;

struct Gen {
    rng: ChaCha8Rng,
}

impl Gen {
    fn value(&mut self, depth: u32) -> PyValue {
        let container = depth < 4 && self.rng.gen_bool(0.35);
        if !container {
            return self.scalar();
        }
        let len = self.rng.gen_range(0..6);
        match self.rng.gen_range(0..3) {
            0 => PyValue::List((0..len).map(|_| self.value(depth + 1)).collect()),
            1 => PyValue::Tuple((0..len).map(|_| self.value(depth + 1)).collect()),
            _ => {
                let mut d = PyDict::new();
                for _ in 0..len {
                    let k = self.key(depth + 1);
                    let v = self.value(depth + 1);
                    d.insert(k, v);
                }
                PyValue::Dict(d)
            }
        }
    }

    fn scalar(&mut self) -> PyValue {
        match self.rng.gen_range(0..10) {
            0 => PyValue::None,
            1 => PyValue::Bool(self.rng.gen()),
            2 | 3 => PyValue::Int(self.int()),
            4..=6 => PyValue::Float(self.float()),
            _ => PyValue::Str(self.string()),
        }
    }

    /// A hashable value: what Python accepts as a dict key.
    fn key(&mut self, depth: u32) -> PyValue {
        match self.rng.gen_range(0..8) {
            0 => PyValue::None,
            1 => PyValue::Bool(self.rng.gen()),
            2 => PyValue::Int(self.int()),
            3 => PyValue::Float(self.float()),
            4 if depth < 4 => {
                let len = self.rng.gen_range(0..4);
                PyValue::Tuple((0..len).map(|_| self.key(depth + 1)).collect())
            }
            _ => PyValue::Str(self.string()),
        }
    }

    fn int(&mut self) -> BigInt {
        match self.rng.gen_range(0..6) {
            0 => BigInt::from(self.rng.gen_range(-10i64..=10)),
            1 => BigInt::from(
                *[
                    i64::MIN,
                    i64::MAX,
                    i64::MIN + 1,
                    i64::MAX - 1,
                    0,
                    -1,
                    // Where marshal switches from TYPE_INT to TYPE_LONG.
                    i32::MIN.into(),
                    i32::MAX.into(),
                    i64::from(i32::MIN) - 1,
                    i64::from(i32::MAX) + 1,
                ]
                .choose(&mut self.rng)
                .unwrap_or(&0),
            ),
            2 => {
                // Just outside i64 and u64, where tagged JSON switches to $int.
                let edge = BigInt::from(1u8) << *[63u32, 64].choose(&mut self.rng).unwrap_or(&63);
                let v = edge + self.rng.gen_range(-2i64..=2);
                if self.rng.gen() {
                    -v
                } else {
                    v
                }
            }
            3 => BigInt::from(self.rng.gen::<i64>()),
            _ => {
                // A random decimal of up to 400 digits (rarely 5000, above
                // CPython's default 4300-digit str limit).
                let n = if self.rng.gen_bool(0.01) {
                    5000
                } else {
                    self.rng.gen_range(1..400)
                };
                let digits: String = (0..n)
                    .map(|_| char::from(b'0' + self.rng.gen_range(0..10u8)))
                    .collect();
                let v: BigInt = digits.parse().unwrap_or_default();
                if self.rng.gen() {
                    -v
                } else {
                    v
                }
            }
        }
    }

    fn float(&mut self) -> f64 {
        let x = match self.rng.gen_range(0..9) {
            0 => f64::from_bits(self.rng.gen()),
            1 | 2 => {
                // Around the fixed/exponent boundaries and the extremes.
                let base = *[
                    1e-5,
                    1e-4,
                    1e15,
                    1e16,
                    1e17,
                    0.1,
                    1.0,
                    5e-324,
                    2.2250738585072014e-308,
                    f64::MAX,
                    9007199254740992.0,
                ]
                .choose(&mut self.rng)
                .unwrap_or(&1.0);
                let bits = base.to_bits() as i64 + self.rng.gen_range(-3i64..=3);
                f64::from_bits(bits.max(0) as u64)
            }
            3 => format!("1e{}", self.rng.gen_range(-330..310))
                .parse()
                .unwrap_or(0.0),
            4 => format!(
                "{}e{}",
                self.rng.gen_range(1..100_000),
                self.rng.gen_range(-12..20)
            )
            .parse()
            .unwrap_or(0.0),
            5 => f64::from_bits(self.rng.gen_range(1..1u64 << 52)),
            6 => self.rng.gen_range(-(1i64 << 60)..(1i64 << 60)) as f64,
            7 => *[f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 0.0, -0.0]
                .choose(&mut self.rng)
                .unwrap_or(&0.0),
            _ => self.rng.gen_range(-1000.0..1000.0),
        };
        if self.rng.gen_bool(0.3) {
            -x
        } else {
            x
        }
    }

    fn code_point(&mut self) -> u32 {
        let pools: &[(u32, u32)] = &[
            (0x20, 0x7E),
            (0x20, 0x7E),
            (0x00, 0x1F),
            (0x7F, 0xA0),
            (0xA1, 0xFF),
            (0x27, 0x27),
            (0x22, 0x22),
            (0x5C, 0x5C),
            (0xD800, 0xDFFF),
            (0x100, 0xFFFF),
            (0x4E00, 0x9FFF),
            (0x1F300, 0x1FAFF),
            (0x10000, 0x10FFFF),
            (0x2000, 0x206F),
            (0xE000, 0xF8FF),
            (0xFFF0, 0xFFFF),
        ];
        let (lo, hi) = *pools.choose(&mut self.rng).unwrap_or(&(0x20, 0x7E));
        self.rng.gen_range(lo..=hi)
    }

    fn string(&mut self) -> PyStr {
        let len = self.rng.gen_range(0..16);
        PyStr::from_code_points((0..len).map(|_| self.code_point()).collect())
    }
}

/// Every code point from 0 to U+10FFFF, in strings of `SWEEP_CHUNK`.
fn sweep() -> Vec<PyValue> {
    (0..0x110000u32)
        .step_by(SWEEP_CHUNK as usize)
        .map(|start| {
            let end = (start + SWEEP_CHUNK).min(0x110000);
            PyValue::Str(PyStr::from_code_points((start..end).collect()))
        })
        .collect()
}

#[test]
fn repr_and_marshal_match_cpython() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Cpython) {
        return;
    }
    let seed: u64 = std::env::var("REPR_CPYTHON_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5EED_2E9B);
    let mut gen = Gen {
        rng: ChaCha8Rng::seed_from_u64(seed),
    };
    let mut values: Vec<PyValue> = (0..RANDOM_VALUES).map(|_| gen.value(0)).collect();
    values.extend((0..FLOATS).map(|_| PyValue::Float(gen.float())));
    let random_count = values.len();
    values.extend(sweep());

    // `pretty` output must read back (ast.literal_eval) as the same value;
    // Python has no literal for nan and inf, so those values skip that part.
    let pretties: Vec<Option<String>> = values
        .iter()
        .map(|v| all_finite(v).then(|| pretty(v)))
        .collect();
    let mut input = String::new();
    for (v, p) in values.iter().zip(&pretties) {
        let case = serde_json::json!({ "v": tagged::encode(v), "p": p });
        input.push_str(&case.to_string());
        input.push('\n');
    }

    let harness = concat!(env!("CARGO_MANIFEST_DIR"), "/src/runner/harness/tagged.py");
    let mut child = Command::new("python3")
        .args(["-c", PY, harness])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 (3.11) must be on PATH for this test");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let stdout = child.stdout.take().expect("stdout");
    let theirs: Vec<(String, Option<String>, String)> = BufReader::new(stdout)
        .lines()
        .map(|line| serde_json::from_str(&line.expect("read python output")).expect("JSON line"))
        .collect();
    writer
        .join()
        .expect("writer thread")
        .expect("write to python3");
    let status = child.wait().expect("wait for python3");
    assert!(status.success(), "python3 failed: {status}");
    assert_eq!(
        theirs.len(),
        values.len(),
        "python3 printed a wrong number of lines"
    );

    let mut mismatches = 0;
    let mut pretty_checked = 0;
    let mut multi_line = 0;
    for ((v, p), (want, back, marshalled)) in values.iter().zip(&pretties).zip(&theirs) {
        let ours = repr(v);
        let our_marshal = hex::encode(marshal::to_bytes(v).expect("a plain value marshals"));
        let pretty_ok = match (p, back) {
            (Some(p), Some(back)) => {
                pretty_checked += 1;
                multi_line += usize::from(p.contains('\n'));
                back == want
            }
            (None, None) => true,
            _ => false,
        };
        if &ours != want || !pretty_ok || &our_marshal != marshalled {
            mismatches += 1;
            if mismatches <= 20 {
                say!(
                    "MISMATCH for {}\n  cpython: {want}\n  ours:    {ours}\n  pretty:  {p:?}\n  pretty read back by CPython: {back:?}\n  marshal, cpython: {marshalled}\n  marshal, ours:    {our_marshal}",
                    serde_json::to_string(&tagged::encode(v)).unwrap_or_default()
                );
            }
        }
    }
    say!(
        "repr vs CPython (seed {seed}): compared {} values ({random_count} random incl. {FLOATS} bare floats, {} code point sweep strings), {mismatches} mismatches; pretty read back by CPython for {pretty_checked} ({multi_line} multi-line)",
        values.len(),
        values.len() - random_count
    );
    assert_eq!(
        mismatches, 0,
        "repr, pretty or marshal disagrees with CPython"
    );
}

/// Whether every float in `v` is finite (so its repr is a Python literal).
fn all_finite(v: &PyValue) -> bool {
    match v {
        PyValue::Float(f) => f.is_finite(),
        PyValue::List(items) | PyValue::Tuple(items) => items.iter().all(all_finite),
        PyValue::Dict(d) => d.iter().all(|(k, x)| all_finite(k) && all_finite(x)),
        _ => true,
    }
}
