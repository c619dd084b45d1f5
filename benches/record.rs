//! `cargo bench --bench record [-- N]`: submissions per second, under every
//! sandbox tier that works here (bwrap, landlock, rlimits) side by side, for
//! (a) the pre-forked recorder, (b) one fresh python3 per submission running
//! the same harness in the same tier, (c) grading the recordings (a) wrote.
//!
//! Generates N submissions (default 1000; `AUTOGRADER_BENCH_N` or the first
//! argument): copies of `submissions/model-solution` with harmless variations
//! (a comment, a renamed helper constant), every tenth one replaced by one of
//! the buggy example submissions. Records them against the bundled `cases/`.
//! (b) runs on all N too unless `AUTOGRADER_BENCH_FRESH` sets a smaller
//! sample (it is the slow path); rates are per submission either way.
//! Each is measured twice: on the full corpus, and on one case per checkpoint
//! (where interpreter start-up, not per-case work, dominates).
//!
//! `cargo bench --bench record -- latency`: one submission end to end
//! instead, as a student's CI job or Gradescope runs it: the release
//! `autograder grade --main-py-only` of the model solution, every case,
//! from an empty work dir, against one fresh `python3 -B
//! scripts/bench/run_calls.py` running the same calls on the same main.py;
//! 7 alternating pairs per tier (bwrap, landlock; `AUTOGRADER_BENCH_PAIRS`
//! sets another number), medians and their ratio, the median of each
//! pair's own ratio, and under landlock the CPU time each used (user and
//! system, of every process of the run as it was reaped).

use autograder::runner::{IsolationChoice, Python, RecordOptions, Request, Tuning};
use autograder::submission::discover;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if std::env::args().skip(1).any(|a| a == "latency") {
        return latency(root);
    }
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
    subs: &[autograder::submission::Submission],
    dir: &Path,
    n: usize,
) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let python = Python::find(None).expect("a CPython 3.8+ to record with");
    println!(
        "== {name}: {} submissions, {} cases each, {} workers, {}",
        subs.len(),
        corpus.cases.len(),
        cores,
        python.label()
    );
    let opts = |work: &str| RecordOptions {
        jobs: 0,
        case_timeout: Duration::from_secs(2),
        work_dir: dir.join(work),
        use_cache: false,
        show_progress: false,
    };
    // (b) is the slow path: a sample of AUTOGRADER_BENCH_FRESH submissions
    // (default all); rates are per submission either way.
    let sample: usize = std::env::var("AUTOGRADER_BENCH_FRESH")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(n)
        .min(subs.len());
    let mut rows = Vec::new();
    let mut graded_from = None;
    for tier in [
        IsolationChoice::Bwrap,
        IsolationChoice::Landlock,
        IsolationChoice::Rlimits,
    ] {
        if let Err(e) = tier.resolve(&python) {
            println!("{tier:?}: not measured: {e}");
            continue;
        }
        let tuning = |prefork| Tuning {
            isolation: Ok(tier),
            prefork,
            ..Tuning::default()
        };
        // (a) pre-forked
        let work = format!("a-{tier:?}");
        let t = Instant::now();
        let (opts_a, tuning_a) = (opts(&work), tuning(true));
        let a = Request::new(corpus, subs, &opts_a)
            .tuning(&tuning_a)
            .recordings()
            .expect("records");
        let a_rate = rate(subs.len(), t.elapsed());
        let a_failed = a.iter().filter(|r| r.result.is_err()).count();
        // (b) a fresh interpreter (and sandbox) per submission
        let t = Instant::now();
        let (opts_b, tuning_b) = (opts(&format!("b-{tier:?}")), tuning(false));
        let b = Request::new(corpus, &subs[..sample], &opts_b)
            .tuning(&tuning_b)
            .recordings()
            .expect("records");
        let b_rate = rate(sample, t.elapsed());
        let b_failed = b.iter().filter(|r| r.result.is_err()).count();
        println!(
            "{tier:?}: (a) pre-forked {a_rate:.1}/s ({a_failed} not recorded), (b) fresh python3 {b_rate:.1}/s (on {sample}; {b_failed} not recorded)"
        );
        rows.push((tier, a_rate, b_rate));
        graded_from.get_or_insert((work, a));
    }
    println!("| tier | (a) pre-forked | (b) fresh python3 | (a)/(b) | vs bwrap (a) |");
    println!("|---|---:|---:|---:|---:|");
    let bwrap = rows.first().map(|r| r.1);
    for (tier, a_rate, b_rate) in &rows {
        let vs = bwrap.map_or("-".to_string(), |b| format!("{:.2}x", a_rate / b));
        println!(
            "| {tier:?} | {a_rate:.1}/s | {b_rate:.1}/s | {:.1}x | {vs} |",
            a_rate / b_rate
        );
    }

    // (c) grading existing recordings: read from disk, compared with the core
    let Some((work, a)) = graded_from else { return };
    let t = Instant::now();
    let expected = autograder::grade::expected_outcomes(corpus).expect("reference core");
    let work_a = dir.join(work);
    let recordings = a
        .iter()
        .map(|r| {
            let path = autograder::recording::recording_path(&work_a, &r.id);
            let rec = autograder::recording::read_recording(&path)
                .map_err(|e| autograder::errors::chain(&e));
            (r.id.clone(), rec)
        })
        .collect();
    let run = autograder::grade::grade_recordings(corpus, &expected, recordings);
    let c_rate = rate(run.submissions.len(), t.elapsed());
    println!("(c) grading the recordings: {c_rate:.1} submissions/s");
}

fn rate(count: usize, took: Duration) -> f64 {
    count as f64 / took.as_secs_f64().max(1e-9)
}

/// Pairs per tier in the latency bench, as the measure has it
/// (`AUTOGRADER_BENCH_PAIRS` sets another number: more rounds hold up
/// better against this machine's drift).
const PAIRS: usize = 7;

/// `-- latency`: one submission graded end to end against one fresh python3
/// running the same calls (see the top of this file).
fn latency(root: &Path) {
    use std::process::{Command, Stdio};
    let pairs: usize = std::env::var("AUTOGRADER_BENCH_PAIRS")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(PAIRS);
    let bin = env!("CARGO_BIN_EXE_autograder");
    let python = Python::find(None).expect("a CPython 3.8+ to record with");
    let dir = tempfile::tempdir().expect("temp dir");
    let sub = dir.path().join("sub");
    std::fs::create_dir_all(&sub).expect("mkdir");
    std::fs::copy(
        root.join("submissions/model-solution/main.py"),
        sub.join("main.py"),
    )
    .expect("the model solution");
    // The calls, as the scale bench's fresh-python3 baseline runs them.
    let list = dir.path().join("cases.jsonl");
    let cases = root.join("cases");
    let listed = Command::new(bin)
        .args(["cases", "list", "--json", "--cases"])
        .arg(&cases)
        .output()
        .expect("autograder cases list");
    assert!(listed.status.success(), "cases list failed");
    std::fs::write(&list, &listed.stdout).expect("write the case list");
    let cases_count = listed
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .count();
    let prepared = Command::new(&python.executable)
        .arg(root.join("scripts/bench/prepare_cases.py"))
        .arg(&cases)
        .arg(&list)
        .arg(dir.path())
        .stdout(Stdio::null())
        .status()
        .expect("prepare_cases.py");
    assert!(
        prepared.success(),
        "prepare_cases.py failed (it needs Python 3.11+)"
    );
    let calls = dir.path().join("calls.marshal");
    let run_calls = root.join("scripts/bench/run_calls.py");
    let timed = |cmd: &mut Command, what: &str| -> Run {
        use std::io::Read;
        let t = Instant::now();
        // Reaped by `reap` (wait4), which also gives its CPU time.
        #[allow(clippy::zombie_processes)]
        let mut child = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect(what);
        let mut stderr = Vec::new();
        let _ = child.stderr.take().map(|mut e| e.read_to_end(&mut stderr));
        let (status, cpu) = reap(child.id());
        let took = t.elapsed().as_secs_f64();
        assert!(
            status == 0,
            "{what} failed: {}",
            String::from_utf8_lossy(&stderr)
        );
        Run { wall: took, cpu }
    };
    let fresh = || {
        timed(
            Command::new(&python.executable)
                .arg("-B")
                .arg(&run_calls)
                .arg(&calls)
                .arg(sub.join("main.py")),
            "python3 run_calls.py",
        )
    };
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "== one submission end to end: the model solution, {cases_count} cases, {}, \
         {pairs} alternating pairs per tier (load average {})",
        python.label(),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!(
        "| tier | `grade` (median) | fresh python3 (median) | ratio | ratio round by round (median) | CPU time used: `grade` / python3 (medians) | CPU time the host took |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for tier in [IsolationChoice::Bwrap, IsolationChoice::Landlock] {
        if let Err(e) = tier.resolve(&python) {
            println!("| {} | not measured: {e} | | | | | |", tier.name());
            continue;
        }
        let grade = || {
            let work = tempfile::tempdir().expect("work dir");
            timed(
                Command::new(bin)
                    .arg("grade")
                    .arg(&sub)
                    .arg("--cases")
                    .arg(&cases)
                    .args(["--main-py-only", "-q", "--isolation", tier.name()])
                    .arg("--work-dir")
                    .arg(work.path()),
                "autograder grade",
            )
        };
        // Warm the page cache for both.
        grade();
        fresh();
        let stolen = Steal::now();
        let (mut graded, mut pythons) = (Vec::new(), Vec::new());
        let (mut graded_cpu, mut pythons_cpu) = (Vec::new(), Vec::new());
        for i in 0..pairs {
            let (g, p) = if i % 2 == 0 {
                let g = grade();
                (g, fresh())
            } else {
                let p = fresh();
                (grade(), p)
            };
            graded.push(g.wall);
            graded_cpu.push(g.cpu);
            pythons.push(p.wall);
            pythons_cpu.push(p.cpu);
        }
        // Each pair's own ratio: the machine's drift between pairs cancels.
        let mut rounds: Vec<f64> = graded.iter().zip(&pythons).map(|(g, p)| g / p).collect();
        let by_round = median(&mut rounds);
        let (g, p) = (median(&mut graded), median(&mut pythons));
        // Under bwrap the sandbox's processes are not reaped into the
        // grader's usage: only the landlock tier's CPU time is whole.
        let cpu = match tier {
            IsolationChoice::Landlock => format!(
                "{:.0} ms / {:.0} ms",
                median(&mut graded_cpu) * 1e3,
                median(&mut pythons_cpu) * 1e3
            ),
            _ => "not counted".to_string(),
        };
        println!(
            "| {} | {:.0} ms | {:.0} ms | {:.1}× | {by_round:.2}× | {cpu} | {} |",
            tier.name(),
            g * 1e3,
            p * 1e3,
            g / p,
            stolen.since()
        );
        let ms = |v: &[f64]| {
            v.iter()
                .map(|x| format!("{:.0}", x * 1e3))
                .collect::<Vec<_>>()
                .join(" ")
        };
        eprintln!(
            "[latency] {}: grade {} ms; python3 {} ms",
            tier.name(),
            ms(&graded),
            ms(&pythons)
        );
    }
}

/// One timed run: its wall time and the CPU time (user and system) of
/// every process of it that was reaped, seconds.
struct Run {
    wall: f64,
    cpu: f64,
}

/// Waits for the child `pid`: its exit code (-1 when a signal ended it)
/// and the CPU time it and its reaped descendants used, seconds.
fn reap(pid: u32) -> (i32, f64) {
    let mut status = 0;
    // SAFETY: rusage is plain data, filled by wait4.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, writing into the two locals.
    let got = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(
        got,
        pid as libc::pid_t,
        "wait4: {}",
        std::io::Error::last_os_error()
    );
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    (code, seconds(usage.ru_utime) + seconds(usage.ru_stime))
}

/// The machine's CPU time counters (/proc/stat): on a virtual machine the
/// host may take ("steal") much of it, which slows a run on both cores (the
/// grader) more than one on one core (python3).
struct Steal(Option<(u64, u64)>);

impl Steal {
    fn now() -> Steal {
        let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
        let counters: Vec<u64> = stat
            .lines()
            .next()
            .unwrap_or_default()
            .split_whitespace()
            .skip(1)
            .filter_map(|x| x.parse().ok())
            .collect();
        Steal((counters.len() > 7).then(|| (counters[7], counters.iter().take(8).sum())))
    }

    /// The share of the CPU time since `self` that the host took.
    fn since(&self) -> String {
        match (self.0, Steal::now().0) {
            (Some((s0, t0)), Some((s1, t1))) if t1 > t0 => {
                format!("{:.0}%", 100.0 * (s1 - s0) as f64 / (t1 - t0) as f64)
            }
            _ => "not known".to_string(),
        }
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
