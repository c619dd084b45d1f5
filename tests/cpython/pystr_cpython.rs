//! Differential test: `PyStr::lower`, `PyStr::strip` and `repr::round_float`
//! against CPython's `str.lower()`, `str.strip()` and `round(x, 1)`.
//!
//! Every code point goes through `lower()` and `strip()` (in chunks), then
//! thousands of seeded random strings built to hit the final-sigma rule
//! (U+03A3 next to cased, case-ignorable and other characters), whitespace at
//! both ends (U+001C..U+001F, U+0085, U+3000...), lone surrogates and the
//! two-code-point mappings; then random doubles (every bit pattern class,
//! ties such as 0.25 and 2.675) through `round(x, 1)` and `round(x, 2)`. One
//! `python3` process answers all of them; every answer must equal ours. Set
//! `PYSTR_CPYTHON_SEED` to try another seed.

use autograder::value::repr::round_float;
use autograder::value::PyStr;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

const RANDOM_STRINGS: usize = 20_000;
const RANDOM_FLOATS: usize = 20_000;
const SWEEP_CHUNK: u32 = 512;

const PY: &str = r#"
import json, struct, sys
out = sys.stdout
for line in sys.stdin:
    job = json.loads(line)
    if "s" in job:
        s = "".join(map(chr, job["s"]))
        out.write(json.dumps([[ord(c) for c in s.lower()], [ord(c) for c in s.strip()]]) + "\n")
    else:
        x = struct.unpack("<d", bytes.fromhex(job["f"]))[0]
        r = [struct.pack("<d", round(x, n)).hex() for n in (1, 2)]
        out.write(json.dumps(r) + "\n")
out.flush()
"#;

/// Characters that matter to lower() and strip(): sigma and its neighbours
/// (cased, case-ignorable: apostrophe, period, combining marks, modifier
/// letters, soft hyphen), two-code-point mappings, whitespace, surrogates.
const INTERESTING: &[u32] = &[
    0x3A3, 0x3A3, 0x3A3, 0x3C3, 0x3C2, 0x41, 0x61, 0x20, 0x27, 0x2E, 0x3A, 0xAD, 0x300, 0x345,
    0x2B0, 0x2019, 0x130, 0x131, 0x49, 0x1E9E, 0xDF, 0x1F88, 0x10400, 0x1C, 0x1D, 0x1E, 0x1F, 0x85,
    0xA0, 0x2003, 0x3000, 0x200B, 0xFEFF, 0x9, 0xA, 0xD800, 0xDC00, 0x391, 0x2160, 0x24B6, 0x1D400,
    0x5D0, 0x30, 0x2D, 0x5F, 0xC5, 0x212A, 0x2126, 0x1E900,
];

fn random_string(rng: &mut ChaCha8Rng) -> Vec<u32> {
    let len = rng.gen_range(0..12);
    (0..len)
        .map(|_| match rng.gen_range(0..10) {
            0..=6 => *INTERESTING.choose(rng).unwrap(),
            7 => rng.gen_range(0x20..0x250),
            8 => rng.gen_range(0x370..0x3000),
            _ => rng.gen_range(0..0x110000),
        })
        .collect()
}

fn random_float(rng: &mut ChaCha8Rng) -> f64 {
    match rng.gen_range(0..6) {
        0 => f64::from_bits(rng.gen()),
        // Decimals with few digits: the ties and near-ties.
        1 => rng.gen_range(-100_000i64..100_000) as f64 / 1000.0,
        2 => rng.gen_range(-10_000i64..10_000) as f64 / 8.0,
        3 => rng.gen_range(-1000i64..1000) as f64 * 9.0 / 5.0 + 32.0,
        4 => rng.gen_range(-1e6..1e6),
        _ => rng.gen_range(-1.0..1.0) * 10f64.powi(rng.gen_range(-30..30)),
    }
}

#[test]
fn lower_strip_and_round_agree_with_cpython() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Cpython) {
        return;
    }
    let seed: u64 = std::env::var("PYSTR_CPYTHON_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_260_505);
    say!("pystr_cpython seed: {seed}");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut strings: Vec<Vec<u32>> = (0..0x110000u32 / SWEEP_CHUNK)
        .map(|k| (k * SWEEP_CHUNK..(k + 1) * SWEEP_CHUNK).collect())
        .collect();
    let sweeps = strings.len();
    strings.extend((0..RANDOM_STRINGS).map(|_| random_string(&mut rng)));
    let mut floats: Vec<f64> = (0..RANDOM_FLOATS).map(|_| random_float(&mut rng)).collect();
    floats.extend([
        0.25,
        0.35,
        2.675,
        -0.04,
        -0.05,
        64.4,
        77.0,
        f64::MAX,
        5e-324,
        -0.0,
    ]);
    floats.extend([f64::NAN, f64::INFINITY, f64::NEG_INFINITY]);

    let mut child = Command::new("python3")
        .arg("-c")
        .arg(PY)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 must be on PATH");
    let mut stdin = child.stdin.take().unwrap();
    let jobs: Vec<String> = strings
        .iter()
        .map(|s| serde_json::json!({ "s": s }).to_string())
        .chain(floats.iter().map(|f| {
            let hex: String = f.to_le_bytes().iter().map(|b| format!("{b:02x}")).collect();
            serde_json::json!({ "f": hex }).to_string()
        }))
        .collect();
    let writer = std::thread::spawn(move || {
        for job in jobs {
            writeln!(stdin, "{job}").expect("write to python3");
        }
    });
    let answers: Vec<serde_json::Value> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| serde_json::from_str(&l.expect("read")).expect("JSON"))
        .collect();
    writer.join().unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(answers.len(), strings.len() + floats.len());

    let cps = |v: &serde_json::Value| -> Vec<u32> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap() as u32)
            .collect()
    };
    let mut failures = Vec::new();
    for (s, answer) in strings.iter().zip(&answers) {
        let py = PyStr::from_code_points(s.clone());
        let (lower, strip) = (cps(&answer[0]), cps(&answer[1]));
        if py.lower().code_points() != lower.as_slice() {
            failures.push(format!(
                "lower({s:x?}): ours {:x?}, CPython {lower:x?}",
                py.lower()
            ));
        }
        if py.strip().code_points() != strip.as_slice() {
            failures.push(format!(
                "strip({s:x?}): ours {:x?}, CPython {strip:x?}",
                py.strip()
            ));
        }
    }
    for (x, answer) in floats.iter().zip(&answers[strings.len()..]) {
        for (n, hex) in [1usize, 2].iter().zip(answer.as_array().unwrap()) {
            let bytes: Vec<u8> = (0..8)
                .map(|i| u8::from_str_radix(&hex.as_str().unwrap()[2 * i..2 * i + 2], 16).unwrap())
                .collect();
            let want = f64::from_le_bytes(bytes.try_into().unwrap());
            let ours = round_float(*x, *n);
            if ours.to_bits() != want.to_bits() && !(ours.is_nan() && want.is_nan()) {
                failures.push(format!(
                    "round({x:e}, {n}): ours {ours:e}, CPython {want:e}"
                ));
            }
        }
    }
    say!(
        "lower/strip: {} strings ({sweeps} sweeping every code point, {} random), round: {} floats × 2 — {} disagreements",
        strings.len(),
        RANDOM_STRINGS,
        floats.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{}",
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
