//! JSONTestSuite through `parse_contract_json`: every file of
//! `../shared/jsontestsuite/test_parsing/`, decoded to a Python `str` the way
//! `python_outcomes.tsv` says CPython decoded it, must give CPython's outcome
//! (`dict` → returns a dict, `ValueError` → raises).

use autograder::reference::{self, CallError};
use autograder::value::{Exception, Outcome, PyStr, PyValue};
use std::path::PathBuf;

/// `bytes.decode('utf-8', errors)` for the three ways the TSV names.
fn decode(bytes: &[u8], how: &str) -> Result<Vec<u32>, String> {
    let (surrogatepass, surrogateescape) = match how {
        "utf-8" => (false, false),
        "utf-8+surrogatepass" => (true, false),
        "utf-8+surrogateescape" => (false, true),
        other => return Err(format!("unknown decoding {other:?}")),
    };
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while !rest.is_empty() {
        let (valid, error_len) = match std::str::from_utf8(rest) {
            Ok(s) => (s, None),
            Err(e) => (
                // The prefix up to valid_up_to is valid UTF-8 by definition.
                std::str::from_utf8(&rest[..e.valid_up_to()]).unwrap_or_default(),
                Some(e.error_len().unwrap_or(rest.len() - e.valid_up_to())),
            ),
        };
        out.extend(valid.chars().map(|c| c as u32));
        rest = &rest[valid.len()..];
        let Some(bad) = error_len else { break };
        match rest {
            // An encoded surrogate: ED A0..BF 80..BF is U+D800..U+DFFF.
            [0xED, b1 @ 0xA0..=0xBF, b2 @ 0x80..=0xBF, ..] if surrogatepass => {
                out.push(0xD000 | ((u32::from(*b1) & 0x3F) << 6) | (u32::from(*b2) & 0x3F));
                rest = &rest[3..];
            }
            // Each undecodable byte 0xXY becomes U+DCXY.
            _ if surrogateescape => {
                out.extend(rest[..bad].iter().map(|&b| 0xDC00 | u32::from(b)));
                rest = &rest[bad..];
            }
            _ => {
                return Err(format!(
                    "invalid UTF-8 at byte {}",
                    bytes.len() - rest.len()
                ))
            }
        }
    }
    Ok(out)
}

#[test]
fn decoding_matches_python_error_handlers() {
    assert_eq!(decode(b"a\xc3\xa9", "utf-8").unwrap(), vec![0x61, 0xE9]);
    assert!(decode(b"\xff", "utf-8").is_err());
    assert_eq!(
        decode(b"\"\xed\xa0\x80\"", "utf-8+surrogatepass").unwrap(),
        vec![0x22, 0xD800, 0x22]
    );
    // Python: b'\xe2\x82A\xff'.decode('utf-8', 'surrogateescape') == '\udce2\udc82A\udcff'
    assert_eq!(
        decode(b"\xe2\x82A\xff", "utf-8+surrogateescape").unwrap(),
        vec![0xDCE2, 0xDC82, 0x41, 0xDCFF]
    );
}

#[test]
fn jsontestsuite_matches_cpython() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/jsontestsuite");
    let dir = root.join("test_parsing");
    if !dir.is_dir() {
        say!("skipped: {} is absent", dir.display());
        return;
    }
    let tsv = std::fs::read_to_string(root.join("python_outcomes.tsv"))
        .expect("python_outcomes.tsv is readable");
    let mut rows = 0;
    let mut by_outcome = std::collections::BTreeMap::<&str, usize>::new();
    let mut failures = Vec::new();
    for (n, line) in tsv.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let [file, how, expected] = fields[..] else {
            panic!("python_outcomes.tsv line {}: expected 3 fields", n + 1);
        };
        rows += 1;
        let bytes = std::fs::read(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let text = decode(&bytes, how).unwrap_or_else(|e| panic!("{file}: {e}"));
        let arg = PyValue::Str(PyStr::from_code_points(text));
        let got: Result<Outcome, CallError> = reference::call("parse_contract_json", &[arg], &[]);
        let agrees = match (expected, &got) {
            ("dict", Ok(Outcome::Returns(PyValue::Dict(_)))) => true,
            ("ValueError", Ok(Outcome::Raises(Exception::ValueError))) => true,
            ("dict" | "ValueError", _) => false,
            (other, _) => panic!("python_outcomes.tsv line {}: outcome {other:?}", n + 1),
        };
        *by_outcome.entry(expected).or_default() += 1;
        if !agrees {
            failures.push(format!("{file} ({how}): CPython {expected}, core {got:?}"));
        }
    }
    let files = std::fs::read_dir(&dir)
        .expect("test_parsing is readable")
        .filter(|e| e.as_ref().is_ok_and(|e| e.path().is_file()))
        .count();
    say!("JSONTestSuite: {rows} files, CPython outcomes {by_outcome:?}");
    assert_eq!(
        files, rows,
        "test_parsing holds {files} files, the TSV {rows}"
    );
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
