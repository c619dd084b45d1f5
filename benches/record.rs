//! `cargo bench --bench record [-- N]`: submissions per second for
//! (a) the pre-forked recorder, (b) one fresh python3 per submission running
//! the same harness, (c) grading the recordings (a) wrote.
//!
//! Generates N submissions (default 1000; `AUTOGRADER_BENCH_N` or the first
//! argument): copies of `submissions/model-solution` with harmless variations
//! (a comment, a renamed helper constant), every tenth one replaced by one of
//! the buggy example submissions. Records them against the bundled `cases/`.
//! (b) runs on all N too unless `AUTOGRADER_BENCH_FRESH` sets a smaller
//! sample (it is the slow path); rates are per submission either way.
//! Each is measured twice: on the full corpus, and on one case per checkpoint
//! (where interpreter start-up, not per-case work, dominates).

use autograder::record::{discover, record_all_with, RecordOptions, Tuning};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let n: usize = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .or_else(|| std::env::var("AUTOGRADER_BENCH_N").ok())
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let corpus = autograder::corpus::load(&root.join("cases")).expect("cases/ loads");
    let model = std::fs::read_to_string(root.join("submissions/model-solution/main.py"))
        .expect("submissions/model-solution/main.py");
    let buggy: Vec<PathBuf> = std::fs::read_dir(root.join("submissions"))
        .expect("submissions/")
        .flatten()
        .map(|e| e.path().join("main.py"))
        .filter(|p| p.is_file() && !p.starts_with(root.join("submissions/model-solution")))
        .collect();
    let dir = tempfile::tempdir().expect("temp dir");
    let subs_dir = dir.path().join("subs");
    for i in 0..n {
        let text = if i % 10 == 9 && !buggy.is_empty() {
            std::fs::read_to_string(&buggy[i / 10 % buggy.len()]).expect("buggy submission")
        } else {
            format!("# student {i}\n{model}\n_VARIANT = {i}\n")
        };
        let d = subs_dir.join(format!("s{i:05}"));
        std::fs::create_dir_all(&d).expect("mkdir");
        std::fs::write(d.join("main.py"), text).expect("write");
    }
    let subs = discover(&subs_dir).expect("discover");
    // The full corpus, where the per-case Python work dominates, then one
    // case per checkpoint, where interpreter start-up does.
    let mut slice = corpus.clone();
    let mut seen = std::collections::HashSet::new();
    slice.cases.retain(|c| seen.insert(c.checkpoint.clone()));
    slice.fingerprint = format!("{}-slice", corpus.fingerprint);
    for (name, corpus) in [
        ("full corpus", &corpus),
        ("one case per checkpoint", &slice),
    ] {
        measure(name, corpus, &subs, dir.path(), n);
    }
}

fn measure(
    name: &str,
    corpus: &autograder::corpus::Corpus,
    subs: &[autograder::record::Submission],
    dir: &Path,
    n: usize,
) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "== {name}: {} submissions, {} cases each, {} workers, isolation {}",
        subs.len(),
        corpus.cases.len(),
        cores,
        Tuning::default()
            .isolation
            .clone()
            .ok()
            .and_then(|c| c.resolve().ok())
            .map_or("?", |i| i.name())
    );
    let opts = |work: &str| RecordOptions {
        jobs: 0,
        case_timeout: Duration::from_secs(2),
        work_dir: dir.join(work),
        use_cache: false,
        show_progress: false,
    };

    // (a) pre-forked
    let t = Instant::now();
    let a = record_all_with(corpus, subs, &opts("a"), &Tuning::default());
    let a_rate = rate(subs.len(), t.elapsed());
    let failed = a.iter().filter(|r| r.result.is_err()).count();
    println!("(a) pre-forked recorder:      {a_rate:8.1} submissions/s ({failed} not recorded)");

    // (b) a fresh interpreter per submission
    let sample: usize = std::env::var("AUTOGRADER_BENCH_FRESH")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(n)
        .min(subs.len());
    let fresh = Tuning {
        prefork: false,
        ..Tuning::default()
    };
    let t = Instant::now();
    let b = record_all_with(corpus, &subs[..sample], &opts("b"), &fresh);
    let b_rate = rate(sample, t.elapsed());
    let failed = b.iter().filter(|r| r.result.is_err()).count();
    println!(
        "(b) fresh python3 each:       {b_rate:8.1} submissions/s (on {sample}; {failed} not recorded)"
    );
    println!("    (a) / (b) = {:.1}x", a_rate / b_rate);

    // (c) grading existing recordings: read from disk, compared with the core
    let t = Instant::now();
    let expected = autograder::grade::expected_outcomes(corpus).expect("reference core");
    let work_a = dir.join("a");
    let recordings = a
        .iter()
        .map(|r| {
            let path = autograder::record::recording_path(&work_a, &r.id);
            let rec = autograder::record::read_recording(&path).map_err(|e| e.to_string());
            (r.id.clone(), rec)
        })
        .collect();
    let run = autograder::grade::grade_recordings(corpus, &expected, recordings);
    let c_rate = rate(run.submissions.len(), t.elapsed());
    println!("(c) grading the recordings:   {c_rate:8.1} submissions/s");
}

fn rate(count: usize, took: Duration) -> f64 {
    count as f64 / took.as_secs_f64().max(1e-9)
}
