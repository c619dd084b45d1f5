//! A large synthetic run on the real corpus (`cases/`, ~1,400 cases over
//! twelve checkpoints), spooled as `grade` spools it: a few realistic
//! submissions graded once, then cloned under new ids, one at a time into
//! the spool (the run never holds more than one submission's case grades).
//! Per hundred submissions: one in error, one whose main.py did not import
//! (every case fails), two failing hundreds of cases (four checkpoints
//! wrong, values and diffs), twenty failing a few cases of one checkpoint,
//! ten failing a few of two, the rest passing everything.
#![allow(dead_code)]

use super::grading as support;
use autograder::grade::{self, CaseGradeStorage, GradeRun, SubmissionGrade};
use autograder::recording::format::{CaseOutcome, Recording};
use std::path::Path;

/// The course's corpus.
pub fn course() -> autograder::corpus::Corpus {
    autograder::corpus::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("cases"))
        .expect("the course corpus loads")
}

fn wrong(i: usize) -> CaseOutcome {
    CaseOutcome::Returned {
        value:
            serde_json::json!({"ok": false, "error": format!("wrong answer number {i} <b>&</b>")})
                .into(),
        shares_with_args: false,
        args_changed: false,
        shares_with_state: false,
        shared: None,
        changed: None,
    }
}

/// The realistic submissions every large run is made of, graded.
fn templates(corpus: &autograder::corpus::Corpus) -> Vec<SubmissionGrade> {
    let expected = support::expected(corpus);
    let perfect = support::perfect_recording(corpus, "t");
    let checkpoints: Vec<String> = corpus
        .lessons
        .iter()
        .flat_map(|l| &l.checkpoints)
        .map(|c| c.id.clone())
        .collect();
    // `perfect` with the first `n` cases of each named checkpoint answered wrong.
    let failing = |id: &str, cps: &[usize], n: usize| -> (String, Result<Recording, String>) {
        let mut rec = perfect.clone();
        for &ci in cps {
            let cases = corpus
                .cases
                .iter()
                .filter(|c| c.checkpoint == checkpoints[ci]);
            for (k, case) in cases.take(n).enumerate() {
                rec.outcomes.insert(case.id.clone(), wrong(k));
            }
        }
        (id.to_string(), Ok(rec))
    };
    let mut import = perfect.clone();
    for o in import.outcomes.values_mut() {
        *o = CaseOutcome::ImportError {
            exc_type: "SyntaxError".into(),
            message: "invalid syntax".into(),
            line: Some(12),
            source_line: None,
        };
    }
    let recs = vec![
        ("a-perfect".to_string(), Ok(perfect.clone())),
        failing("b-few", &[4], 5),
        failing("c-few-two", &[1, 7], 3),
        failing("d-hundreds", &[0, 3, 5, 9], 10_000),
        ("e-import".to_string(), Ok(import)),
        (
            "f-error".to_string(),
            Err("recording.json: not a recording: expected value at line 1 column 1".into()),
        ),
    ];
    grade::grade_recordings(corpus, &expected, recs).submissions
}

/// A spooled run of `n` submissions (`student-00000`, ...).
pub fn run(n: usize) -> GradeRun {
    let corpus = course();
    let templates = templates(&corpus);
    let info = grade::grade_recordings(&corpus, &support::expected(&corpus), Vec::new()).corpus;
    let details = CaseGradeStorage::spooled().unwrap();
    let submissions = (0..n)
        .map(|i| {
            let t = match i % 100 {
                99 => 5,
                98 => 4,
                13 | 63 => 3,
                k if k % 10 == 1 => 2,
                k if k % 5 == 2 || k % 5 == 3 => 1,
                _ => 0,
            };
            let mut s = templates[t].clone();
            s.id = format!("student-{i:05}");
            details.keep(s)
        })
        .collect();
    GradeRun {
        corpus: info,
        audience: grade::Audience::Instructor,
        submissions,
        shards: None,
        details,
    }
}
