//! `cargo bench --bench scale [-- N[,N...] | quick]`: the benchmark that tells
//! the story (issue 11, item 4). For each N (default 1,000 and 10,000;
//! `AUTOGRADER_BENCH_N=1000,10000` or the arguments; `quick` is N = 200 with
//! small baseline samples) it generates N synthetic submissions and times the
//! release `autograder` binary, one subprocess per phase:
//!
//! 1. `grade --summary-only -q` into a fresh work dir: every submission recorded (sandboxed, pre-forked) and graded as it goes;
//! 2. `grade --summary-only -q` from the store (load + grade, no report);
//! 3. `grade -q --json F`, `--csv`, `--junit`, `--markdown`, `--html`, each
//!    alone (shown as that run's figures and as the difference from 2);
//! 4. `grade -q` on the recorded submissions against the corpus plus 10 new
//!    cases (a 10-case corpus change), as a share of 1 + 2.
//!
//! Phases 2 and 3 leave the store as they found it: one that took under 10 s
//! runs three times and its median run (by wall time) counts.
//!
//! Each phase: wall time; CPU time (user + system) of every process of its
//! tree, from a cgroup made for it (cgroup v1 `cpuacct`, else v2
//! `cpu.stat`; as root). Not from `wait4`'s rusage alone: under bwrap the
//! harness's processes are reaped inside bwrap's PID namespace, and most of
//! their CPU never reaches the grader's rusage (without a cgroup the bench
//! falls back to it and the table says so). Peak RSS two ways: the largest
//! single process (`wait4`'s `ru_maxrss`: the grader itself, in practice)
//! and the whole tree summed (the cgroup's members, or the descendants in
//! /proc), sampled every 50 ms; the goals use the larger.
//!
//! Baselines, on a sample of the same submissions, per submission, with the
//! same interpreter the grader uses (the one its `sandbox:` line names, i.e.
//! `/usr/bin/python3` resolved, never a version-manager shim):
//! (a) the runnable floor, `scripts/bench/floor.py`: a warm parent forks per
//!     submission, the child imports main.py and runs every call on fresh
//!     copies of its arguments, encoding nothing (sample
//!     `AUTOGRADER_BENCH_FLOOR`, default 200); and the same floor of a
//!     10-case change: only the 10 added cases, main.py run from bytecode
//!     compiled beforehand (as a 10-case change imports it from the store);
//! (b) one fresh interpreter per submission, `python3 -B
//!     scripts/bench/run_calls.py` (`AUTOGRADER_BENCH_FRESH`, default 100);
//! (c) pytest per submission: `python -m pytest -q` over
//!     `scripts/bench/test_cases.py`, one parametrized test per case, in a
//!     venv made under `target/bench-venv` (`AUTOGRADER_BENCH_PYTEST`,
//!     default 20; skipped, with the reason, when pytest cannot be
//!     installed).
//!
//! Side by side (`AUTOGRADER_BENCH_PAIRED`, default 400 submissions): three
//! rounds, each the floor then recording the same submissions with an empty
//! store, so that the ratio the first goal asks for is measured under the
//! same conditions for both (this VM drifts by ±10% over minutes); the
//! median round's ratio counts.
//!
//! Progress goes to stderr; the result (markdown, for the README) to stdout.
//! A failing phase prints its command and stderr and the bench exits 1.
//! `AUTOGRADER_BENCH_KEEP=1` keeps the temporary folder (and says where).

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_autograder");
const REPORTS: [(&str, &str); 5] = [
    ("json", "json"),
    ("csv", "csv"),
    ("junit", "xml"),
    ("markdown", "md"),
    ("html", "html"),
];

type Res<T> = Result<T, String>;

fn main() {
    let code = match run() {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("\n[scale] FAILED: {e}");
            if std::env::var_os("AUTOGRADER_BENCH_KEEP").is_none() {
                eprintln!(
                    "[scale] (AUTOGRADER_BENCH_KEEP=1 keeps the temporary folder to run it again)"
                );
            }
            1
        }
    };
    std::process::exit(code);
}

struct Config {
    ns: Vec<usize>,
    floor: usize,
    fresh: usize,
    pytest: usize,
    /// Submissions of the side-by-side record/floor rounds (0: none).
    paired: usize,
    keep: bool,
}

fn env_usize(name: &str, default: usize) -> Res<usize> {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .map_err(|_| format!("{name}={v}: not a number")),
        Err(_) => Ok(default),
    }
}

fn config() -> Res<Config> {
    // `cargo bench` passes `--bench`; anything starting with '-' is cargo's.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let quick = args.iter().any(|a| a == "quick");
    let spec = args
        .iter()
        .find(|a| a.as_str() != "quick")
        .cloned()
        .or_else(|| std::env::var("AUTOGRADER_BENCH_N").ok())
        .unwrap_or_else(|| if quick { "200" } else { "1000,10000" }.into());
    let ns = spec
        .split(',')
        .map(|s| s.trim().replace('_', "").parse::<usize>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| format!("N must be numbers separated by commas, not {spec:?}"))?;
    if ns.is_empty() || ns.contains(&0) {
        return Err(format!("N must be positive: {spec:?}"));
    }
    let (floor, fresh, pytest, paired) = if quick {
        (50, 20, 5, 50)
    } else {
        (200, 100, 20, 400)
    };
    Ok(Config {
        ns,
        floor: env_usize("AUTOGRADER_BENCH_FLOOR", floor)?,
        fresh: env_usize("AUTOGRADER_BENCH_FRESH", fresh)?,
        pytest: env_usize("AUTOGRADER_BENCH_PYTEST", pytest)?,
        paired: env_usize("AUTOGRADER_BENCH_PAIRED", paired)?,
        keep: std::env::var_os("AUTOGRADER_BENCH_KEEP").is_some_and(|v| v != "0"),
    })
}

macro_rules! progress {
    ($($t:tt)*) => { eprintln!("[scale] {}", format_args!($($t)*)) };
}

// ---------------------------------------------------------------------------
// Measuring one process tree
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Default, Debug)]
struct Usage {
    wall: f64,
    /// CPU seconds (user + system) of every process of the tree: from a
    /// cpuacct cgroup when one can be made, else `cpu_reaped`.
    cpu: f64,
    /// CPU seconds from wait4's rusage: the process and the descendants
    /// reaped inside its tree (under bwrap the harness's are not all).
    cpu_reaped: f64,
    /// ru_maxrss: the largest single process of the tree, KiB.
    max_rss_kb: u64,
    /// The tree's summed RSS, sampled every 50 ms, KiB.
    tree_rss_kb: u64,
}

impl Usage {
    fn add(&mut self, o: &Usage) {
        self.wall += o.wall;
        self.cpu += o.cpu;
        self.cpu_reaped += o.cpu_reaped;
        self.max_rss_kb = self.max_rss_kb.max(o.max_rss_kb);
        self.tree_rss_kb = self.tree_rss_kb.max(o.tree_rss_kb);
    }
    /// The peak memory of the run: the sampled tree sum, or the largest
    /// process when a short peak fell between two samples.
    fn peak_mb(&self) -> f64 {
        self.max_rss_kb.max(self.tree_rss_kb) as f64 / 1024.0
    }
}

struct Ran {
    usage: Usage,
    stdout: String,
    stderr: String,
}

fn shell_words(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        let a = a.to_string_lossy();
        if a.contains(' ') || a.is_empty() {
            let _ = write!(s, " '{a}'");
        } else {
            let _ = write!(s, " {a}");
        }
    }
    if let Some(d) = cmd.get_current_dir() {
        s = format!("(cd {} && {s})", d.display());
    }
    s
}

/// Runs `cmd` to the end (stdout and stderr to files in `logs`), with its
/// rusage from wait4. `ok` decides which exit codes are success.
fn measure(cmd: &mut Command, logs: &Path, label: &str, ok: &[i32]) -> Res<Ran> {
    let out_path = logs.join("stdout");
    let err_path = logs.join("stderr");
    let out = fs::File::create(&out_path).map_err(|e| format!("{}: {e}", out_path.display()))?;
    let err = fs::File::create(&err_path).map_err(|e| format!("{}: {e}", err_path.display()))?;
    cmd.stdin(Stdio::null()).stdout(out).stderr(err);
    let group = CpuGroup::create();
    if let Some(g) = &group {
        let procs = g.procs.clone();
        // SAFETY: the hook only calls open/write/close (async-signal-safe)
        // on memory made before the fork.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(cmd, move || {
                let fd = libc::open(procs.as_ptr(), libc::O_WRONLY);
                if fd < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                let ok = libc::write(fd, b"0".as_ptr().cast(), 1) == 1;
                libc::close(fd);
                if ok {
                    Ok(())
                } else {
                    Err(std::io::Error::last_os_error())
                }
            });
        }
    }
    let start = Instant::now();
    let child = cmd
        .spawn()
        .map_err(|e| format!("{label}: cannot start `{}`: {e}", shell_words(cmd)))?;
    let pid = child.id() as libc::pid_t;
    let done = Arc::new(AtomicBool::new(false));
    let sampler = {
        let done = done.clone();
        let label = label.to_string();
        let members = group.as_ref().map(|g| g.dir.join("cgroup.procs"));
        std::thread::spawn(move || sample_tree(pid, members.as_deref(), &done, &label, start))
    };
    let mut status: libc::c_int = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = loop {
        // SAFETY: pid is our own child, not waited for by anyone else (the
        // Child handle is never waited on); status and ru are valid pointers.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
        if r == -1 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        break r;
    };
    let wall = start.elapsed().as_secs_f64();
    done.store(true, Ordering::Relaxed);
    let tree_rss_kb = sampler.join().unwrap_or(0);
    drop(child);
    if r != pid {
        return Err(format!(
            "{label}: wait4 failed: {}",
            std::io::Error::last_os_error()
        ));
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let cpu_reaped = tv(ru.ru_utime) + tv(ru.ru_stime);
    let cpu = group.and_then(|g| g.finish(label)).unwrap_or(cpu_reaped);
    let usage = Usage {
        wall,
        cpu,
        cpu_reaped,
        max_rss_kb: ru.ru_maxrss.max(0) as u64,
        tree_rss_kb,
    };
    let stdout = fs::read_to_string(&out_path).unwrap_or_default();
    let stderr = fs::read_to_string(&err_path).unwrap_or_default();
    let code = if libc::WIFEXITED(status) {
        Some(libc::WEXITSTATUS(status))
    } else {
        None
    };
    if !code.is_some_and(|c| ok.contains(&c)) {
        let how = match code {
            Some(c) => format!("exit code {c}"),
            None => format!("killed by signal {}", libc::WTERMSIG(status)),
        };
        return Err(format!(
            "{label}: `{}` failed ({how}) after {wall:.1} s\n--- stderr (last 40 lines) ---\n{}\n--- stdout (last 10 lines) ---\n{}",
            shell_words(cmd),
            tail(&stderr, 40),
            tail(&stdout, 10)
        ));
    }
    Ok(Ran {
        usage,
        stdout,
        stderr,
    })
}

/// A cgroup counting the CPU time of every process of one measured tree,
/// whoever reaps them: cgroup v1's cpuacct, else a cgroup v2 (`cpu.stat`).
/// None where neither can be made (not root): wait4's figure is used then.
struct CpuGroup {
    dir: PathBuf,
    procs: std::ffi::CString,
    v2: bool,
}

static CPU_SOURCE: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

impl CpuGroup {
    fn create() -> Option<CpuGroup> {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let name = format!(
            "autograder-bench-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let v2_root = ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"]
            .into_iter()
            .map(Path::new)
            .find(|p| p.join("cgroup.controllers").exists());
        let candidates = [
            (Path::new("/sys/fs/cgroup/cpuacct"), false),
            (Path::new("/sys/fs/cgroup/cpu,cpuacct"), false),
        ]
        .into_iter()
        .filter(|(p, _)| p.join("cpuacct.usage").exists())
        .chain(v2_root.map(|p| (p, true)));
        for (root, v2) in candidates {
            let dir = root.join(&name);
            if fs::create_dir(&dir).is_err() {
                continue;
            }
            let procs = dir.join("cgroup.procs");
            let Ok(procs) = std::ffi::CString::new(procs.as_os_str().as_encoded_bytes().to_vec())
            else {
                let _ = fs::remove_dir(&dir);
                continue;
            };
            let g = CpuGroup { dir, procs, v2 };
            if g.usage().is_some() {
                CPU_SOURCE.get_or_init(|| {
                    if v2 {
                        "a cgroup v2 per phase (cpu.stat): every process of the tree"
                    } else {
                        "a cgroup v1 cpuacct group per phase: every process of the tree"
                    }
                });
                return Some(g);
            }
            let _ = fs::remove_dir(&g.dir);
        }
        CPU_SOURCE.get_or_init(|| {
            "wait4's rusage (no cgroup could be made): only descendants reaped inside the tree"
        });
        None
    }

    fn usage(&self) -> Option<f64> {
        if self.v2 {
            let stat = fs::read_to_string(self.dir.join("cpu.stat")).ok()?;
            let usec: f64 = stat
                .lines()
                .find_map(|l| l.strip_prefix("usage_usec "))?
                .trim()
                .parse()
                .ok()?;
            Some(usec / 1e6)
        } else {
            let ns: f64 = fs::read_to_string(self.dir.join("cpuacct.usage"))
                .ok()?
                .trim()
                .parse()
                .ok()?;
            Some(ns / 1e9)
        }
    }

    /// The CPU seconds used, once every process has left; removes the group.
    fn finish(self, label: &str) -> Option<f64> {
        let procs = self.dir.join("cgroup.procs");
        let alive = || {
            fs::read_to_string(&procs)
                .map(|s| s.lines().count())
                .unwrap_or(0)
        };
        let t = Instant::now();
        while alive() > 0 && t.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let left = alive();
        if left > 0 {
            progress!("  ! {label}: {left} processes still alive 10 s after the phase ended");
        }
        let cpu = self.usage();
        if left == 0 {
            let _ = fs::remove_dir(&self.dir);
        }
        cpu
    }
}

fn tail(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Samples the summed RSS of `root` and its descendants (the members of
/// its cgroup when it has one) every 50 ms until `done`; says every 30 s
/// that a long phase is alive. Returns the peak, KiB.
fn sample_tree(
    root: libc::pid_t,
    members: Option<&Path>,
    done: &AtomicBool,
    label: &str,
    start: Instant,
) -> u64 {
    // SAFETY: sysconf has no preconditions.
    let page_kb = (unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).max(4096) as u64 / 1024;
    let mut peak = 0;
    let mut next_note = Duration::from_secs(30);
    while !done.load(Ordering::Relaxed) {
        let pages = match members {
            Some(m) => group_rss_pages(m),
            None => tree_rss_pages(root),
        };
        peak = peak.max(pages * page_kb);
        let t = start.elapsed();
        if t >= next_note {
            progress!(
                "  … {label}: {:.0} s, tree RSS {:.0} MB",
                t.as_secs_f64(),
                (pages * page_kb) as f64 / 1024.0
            );
            next_note += Duration::from_secs(30);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    peak
}

/// RSS pages of the processes listed in a cgroup's `cgroup.procs`.
fn group_rss_pages(procs: &Path) -> u64 {
    let Ok(list) = fs::read_to_string(procs) else {
        return 0;
    };
    list.lines()
        .filter_map(|pid| fs::read_to_string(format!("/proc/{}/statm", pid.trim())).ok())
        .filter_map(|statm| statm.split_whitespace().nth(1)?.parse::<u64>().ok())
        .sum()
}

/// RSS pages of `root` and every descendant (one pass over /proc; this
/// kernel has no /proc/PID/task/TID/children).
fn tree_rss_pages(root: libc::pid_t) -> u64 {
    let Ok(dir) = fs::read_dir("/proc") else {
        return 0;
    };
    let mut procs = Vec::new(); // (pid, ppid, rss)
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // After the ")" closing the command name: state ppid ... (rss is field 24).
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        let (Some(ppid), Some(rss)) = (
            f.get(1).and_then(|s| s.parse::<i32>().ok()),
            f.get(21).and_then(|s| s.parse::<u64>().ok()),
        ) else {
            continue;
        };
        procs.push((pid, ppid, rss));
    }
    let mut in_tree = vec![root];
    let mut total = 0;
    let mut grew = true;
    let mut counted = std::collections::HashSet::new();
    while grew {
        grew = false;
        for &(pid, ppid, rss) in &procs {
            if !counted.contains(&pid) && (pid == root || in_tree.contains(&ppid)) {
                counted.insert(pid);
                in_tree.push(pid);
                total += rss;
                grew = true;
            }
        }
    }
    total
}

// ---------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------

struct Machine {
    date: String,
    cores: usize,
    cpu: String,
    kernel: String,
    mem_gb: f64,
    load: String,
}

fn machine() -> Machine {
    let read = |p: &str| fs::read_to_string(p).unwrap_or_default();
    let cpuinfo = read("/proc/cpuinfo");
    let cpu = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map_or("unknown CPU".into(), |(_, v)| v.trim().to_string());
    let mem_kb: f64 = read("/proc/meminfo")
        .lines()
        .find(|l| l.starts_with("MemTotal:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    let date = Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    Machine {
        date,
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        cpu,
        kernel: format!("Linux {}", read("/proc/sys/kernel/osrelease").trim()),
        mem_gb: mem_kb / 1024.0 / 1024.0,
        load: read("/proc/loadavg")
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" "),
    }
}

struct Phase {
    name: String,
    usage: Usage,
    /// Submissions this phase handled (for submissions/s).
    subs: usize,
    /// The store's size on disk after the phase, in bytes (when it wrote it).
    store_bytes: Option<u64>,
    /// From `--timings`: the CPU seconds of loading outcomes from the store
    /// and of grading them, inside this phase (they stream together).
    split: Option<(f64, f64)>,
}

/// The CPU seconds `grade --timings` printed for loading from the store and
/// for grading.
fn timings_split(stderr: &str) -> Option<(f64, f64)> {
    let cpu = |label: &str| -> Option<f64> {
        let line = stderr.lines().find(|l| l.trim_start().starts_with(label))?;
        line.trim_start()[label.len()..]
            .split_whitespace()
            .next()?
            .parse()
            .ok()
    };
    Some((cpu("store lookups")?, cpu("grading")?))
}

/// The bytes of the files under `dir`.
fn bytes_under(dir: &Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

struct Baseline {
    name: &'static str,
    what: String,
    sample: usize,
    usage: Usage,
    /// CPU and wall seconds not belonging to any submission (the floor's
    /// warm-up).
    setup_cpu: f64,
    setup_wall: f64,
}

impl Baseline {
    fn cpu_per_sub(&self) -> f64 {
        (self.usage.cpu - self.setup_cpu).max(0.0) / self.sample as f64
    }
    fn wall_per_sub(&self) -> f64 {
        (self.usage.wall - self.setup_wall).max(0.0) / self.sample as f64
    }
}

struct Env {
    root: PathBuf,
    tmp: PathBuf,
    logs: PathBuf,
}

impl Env {
    fn grader(&self) -> Command {
        let mut c = Command::new(BIN);
        c.current_dir(&self.tmp);
        c
    }
    fn run(&self, cmd: &mut Command, label: &str) -> Res<Ran> {
        measure(cmd, &self.logs, label, &[0])
    }
}

fn run() -> Res<()> {
    let cfg = config()?;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let m = machine();
    let tmp_dir = tempfile::Builder::new()
        .prefix("autograder-scale-")
        .tempdir()
        .map_err(|e| format!("temp dir: {e}"))?;
    let env = Env {
        root: root.clone(),
        tmp: tmp_dir.path().to_path_buf(),
        logs: tmp_dir.path().join("logs"),
    };
    fs::create_dir_all(&env.logs).map_err(|e| e.to_string())?;
    progress!(
        "N = {:?}; baselines on {} (floor), {} (fresh python3), {} (pytest) submissions; in {}; grader {BIN}",
        cfg.ns,
        cfg.floor,
        cfg.fresh,
        cfg.pytest,
        env.tmp.display()
    );
    progress!("load average at start: {} ({} cores)", m.load, m.cores);
    let result = bench(&cfg, &env, &m);
    if cfg.keep {
        let kept = tmp_dir.keep();
        progress!("kept {}", kept.display());
    } else {
        progress!("removing {}", env.tmp.display());
        drop(tmp_dir);
    }
    result
}

fn bench(cfg: &Config, env: &Env, m: &Machine) -> Res<()> {
    let cases = env.root.join("cases");
    // The corpus, as the CLI lists it.
    let listing = env.run(
        env.grader()
            .args(["cases", "list", "--json", "--cases"])
            .arg(&cases),
        "cases list",
    )?;
    let list_path = env.tmp.join("cases.jsonl");
    fs::write(&list_path, &listing.stdout).map_err(|e| e.to_string())?;
    let n_cases = listing.stdout.lines().filter(|l| !l.is_empty()).count();
    let n_checkpoints = fs::read_to_string(cases.join("course.toml"))
        .unwrap_or_default()
        .matches("[[lesson.checkpoint]]")
        .count();

    // The submissions: copies of the model solution, every tenth a buggy one.
    let n_max = cfg.ns.iter().copied().max().unwrap_or(0);
    let subs_all = env.tmp.join("subs-all");
    let kinds = generate(&env.root, &subs_all, n_max)?;
    progress!("generated {n_max} submissions ({kinds} buggy kinds, every tenth)");

    // Preflight: the sandbox tier and the interpreter the grader uses.
    let one = env.tmp.join("preflight/subs");
    link_subset(&subs_all, &one, 1)?;
    let pre = env.run(
        env.grader()
            .arg("record")
            .arg(&one)
            .arg("--cases")
            .arg(&cases)
            .arg("--work-dir")
            .arg(env.tmp.join("preflight/work")),
        "preflight record",
    )?;
    let sandbox = pre
        .stderr
        .lines()
        .chain(pre.stdout.lines())
        .find(|l| l.starts_with("sandbox:"))
        .map(|l| l.trim_start_matches("sandbox:").trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    let python = interpreter(&sandbox)?;
    progress!("sandbox: {sandbox}; baselines run {}", python.display());

    // The changed corpus: 10 more cases.
    let changed = env.tmp.join("cases-changed");
    change_corpus(&cases, &changed)?;
    let check = env.run(
        env.grader()
            .args(["cases", "check", "--cases"])
            .arg(&changed),
        "cases check (changed corpus)",
    )?;
    let changed_cases = check
        .stdout
        .lines()
        .find(|l| l.starts_with("ok:"))
        .unwrap_or("")
        .to_string();
    progress!("changed corpus: {changed_cases}");

    // Baselines.
    let baselines = baselines(cfg, env, &python, &subs_all, &cases, &list_path, &changed)?;
    let paired = side_by_side(cfg, env, &python, &subs_all, &cases)?;

    let mut per_n = Vec::new();
    for &n in &cfg.ns {
        per_n.push((n, phases(env, &subs_all, n, &cases, &changed)?));
    }
    let table = render(
        m,
        &sandbox,
        &Workload {
            cases: n_cases,
            checkpoints: n_checkpoints,
            kinds,
        },
        &baselines,
        &paired,
        &per_n,
    );
    println!("{table}");
    Ok(())
}

/// The interpreter named in the grader's `sandbox:` line (`… CPython 3.11.2
/// (/usr/bin/python3.11)`), else what the grader defaults to.
fn interpreter(sandbox: &str) -> Res<PathBuf> {
    if let Some(p) = sandbox
        .rsplit_once('(')
        .and_then(|(_, p)| p.strip_suffix(')'))
        .map(PathBuf::from)
        .filter(|p| p.is_absolute() && p.exists())
    {
        return Ok(p);
    }
    let p = std::env::var_os("AUTOGRADER_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/python3"));
    fs::canonicalize(&p).map_err(|e| format!("the grader's interpreter {}: {e}", p.display()))
}

fn generate(root: &Path, dir: &Path, n: usize) -> Res<usize> {
    let io = |e: std::io::Error| format!("generating submissions: {e}");
    let model = fs::read_to_string(root.join("submissions/model-solution/main.py")).map_err(io)?;
    let mut buggy: Vec<PathBuf> = fs::read_dir(root.join("submissions"))
        .map_err(io)?
        .flatten()
        .filter(|e| e.file_name() != "model-solution")
        .map(|e| e.path().join("main.py"))
        .filter(|p| p.is_file())
        .collect();
    buggy.sort();
    let buggy: Vec<String> = buggy
        .iter()
        .map(fs::read_to_string)
        .collect::<Result<_, _>>()
        .map_err(io)?;
    for i in 0..n {
        let text = if i % 10 == 9 && !buggy.is_empty() {
            format!("# student {i}\n{}", buggy[i / 10 % buggy.len()])
        } else {
            format!("# student {i}\n{model}\n_VARIANT = {i}\n")
        };
        let d = dir.join(format!("s{i:05}"));
        fs::create_dir_all(&d).map_err(io)?;
        fs::write(d.join("main.py"), text).map_err(io)?;
    }
    Ok(buggy.len())
}

/// A folder holding the first `n` submissions of `all`, their main.py hard
/// linked (or copied); returns the main.py paths.
fn link_subset(all: &Path, dir: &Path, n: usize) -> Res<Vec<PathBuf>> {
    let io = |e: std::io::Error| format!("{}: {e}", dir.display());
    let mut paths = Vec::new();
    for i in 0..n {
        let name = format!("s{i:05}");
        let d = dir.join(&name);
        fs::create_dir_all(&d).map_err(io)?;
        let p = d.join("main.py");
        if fs::hard_link(all.join(&name).join("main.py"), &p).is_err() {
            fs::copy(all.join(&name).join("main.py"), &p).map_err(io)?;
        }
        paths.push(p);
    }
    Ok(paths)
}

/// Ten new cases over four checkpoints, appended to a copy of the corpus.
fn change_corpus(cases: &Path, to: &Path) -> Res<()> {
    let io = |e: std::io::Error| format!("the changed corpus: {e}");
    copy_tree(cases, to).map_err(io)?;
    let add = |file: &str, calls: Vec<String>| -> Res<()> {
        let path = to.join(file);
        let mut text = fs::read_to_string(&path).map_err(io)?;
        for (i, call) in calls.iter().enumerate() {
            let _ = write!(
                text,
                "\n[[case]]\nid = \"bench-extra-{i}\"\ncall = '''{call}'''\ntags = [\"valid\"]\n"
            );
        }
        fs::write(&path, text).map_err(io)
    };
    add(
        "json-contract/parse_contract_json.toml",
        (0..3)
            .map(|i| format!("parse_contract_json('{{\"bench_extra\": {}}}')", 9100 + i))
            .collect(),
    )?;
    add(
        "function-calling/read_file.toml",
        (0..3)
            .map(|i| format!("read_file('bench/extra-{i}.txt')"))
            .collect(),
    )?;
    add(
        "tool-proposals/validate_tool_call.toml",
        (0..2)
            .map(|i| format!("validate_tool_call({{'id': 'bench-v{i}', 'name': 'multiply', 'arguments': {{'x': {}, 'y': 7}}}})", 9100 + i))
            .collect(),
    )?;
    add(
        "tool-proposals/execute_tool.toml",
        (0..2)
            .map(|i| format!("execute_tool({{'id': 'bench-e{i}', 'name': 'multiply', 'arguments': {{'x': {}, 'y': 9}}}})", 9200 + i))
            .collect(),
    )?;
    Ok(())
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    fs::create_dir_all(to)?;
    for e in fs::read_dir(from)? {
        let e = e?;
        let t = to.join(e.file_name());
        if e.file_type()?.is_dir() {
            copy_tree(&e.path(), &t)?;
        } else {
            fs::copy(e.path(), &t)?;
        }
    }
    Ok(())
}

fn phases(env: &Env, all: &Path, n: usize, cases: &Path, changed: &Path) -> Res<Vec<Phase>> {
    let dir = env.tmp.join(format!("n{n}"));
    let subs = dir.join("subs");
    link_subset(all, &subs, n)?;
    let work = dir.join("work");
    let mut out = Vec::new();
    // A phase that leaves the store as it found it (grade, the reports) and
    // took under 10 s runs twice more; its median run (by wall time) counts.
    let mut phase =
        |name: &str, extra: &[&str], cmd: &str, corpus: &Path, again: bool| -> Res<()> {
            progress!("N={n}: {name} …");
            let mut runs = Vec::new();
            loop {
                let mut c = env.grader();
                c.arg(cmd)
                    .arg(&subs)
                    .arg("--cases")
                    .arg(corpus)
                    .arg("--work-dir")
                    .arg(&work)
                    .args(extra);
                let ran = env.run(&mut c, &format!("N={n} {name}"))?;
                runs.push((ran.usage, timings_split(&ran.stderr)));
                if !again || runs.len() == 3 || runs[0].0.wall >= 10.0 {
                    break;
                }
            }
            runs.sort_by(|a, b| a.0.wall.total_cmp(&b.0.wall));
            let (u, split) = runs[runs.len() / 2];
            let of = if runs.len() > 1 {
                format!(" (median of {})", runs.len())
            } else {
                String::new()
            };
            progress!(
                "N={n}: {name}: {:.2} s wall, {:.2} s CPU, peak {:.0} MB, {:.0} submissions/s{of}",
                u.wall,
                u.cpu,
                u.peak_mb(),
                n as f64 / u.wall
            );
            out.push(Phase {
                name: name.to_string(),
                usage: u,
                subs: n,
                store_bytes: (!again).then(|| bytes_under(&work.join("store"))),
                split,
            });
            Ok(())
        };
    // Recording is measured as the main job does it: `grade` with an empty
    // store records every submission and grades it as it goes (grading
    // from the store, the next phase, is a small part of it). `autograder
    // record` also writes each JSON recording, the interchange format.
    phase("record", &["--summary-only", "-q"], "grade", cases, false)?;
    phase(
        "grade",
        &["--summary-only", "-q", "--timings"],
        "grade",
        cases,
        true,
    )?;
    for (flag, ext) in REPORTS {
        let file = dir.join(format!("report.{ext}"));
        let file = file.to_string_lossy().into_owned();
        phase(
            &format!("grade + --{flag}"),
            &["-q", &format!("--{flag}"), &file],
            "grade",
            cases,
            true,
        )?;
    }
    phase("10-case change", &["-q"], "grade", changed, false)?;
    // The submissions and recordings of this N are not needed any more.
    let _ = fs::remove_dir_all(&dir);
    Ok(out)
}

fn baselines(
    cfg: &Config,
    env: &Env,
    python: &Path,
    all: &Path,
    cases: &Path,
    list: &Path,
    changed: &Path,
) -> Res<Vec<Baseline>> {
    let scripts = env.root.join("scripts/bench");
    let base = env.tmp.join("baselines");
    fs::create_dir_all(&base).map_err(|e| e.to_string())?;
    env.run(
        Command::new(python)
            .arg(scripts.join("prepare_cases.py"))
            .arg(cases)
            .arg(list)
            .arg(&base),
        "preparing the baselines' cases",
    )?;
    let calls = base.join("calls.marshal");
    let n_max = cfg.floor.max(cfg.fresh).max(cfg.pytest).max(1);
    let paths = link_subset(all, &base.join("subs"), n_max)?;
    let mut out = Vec::new();

    // (a) the runnable floor: one warm parent, a fork per submission.
    if cfg.floor > 0 {
        let list_file = base.join("floor-list");
        let warm_file = base.join("floor-warm");
        let lines = |ps: &[PathBuf]| -> String {
            ps.iter().map(|p| format!("{}\n", p.display())).collect()
        };
        fs::write(&list_file, lines(&paths[..cfg.floor])).map_err(|e| e.to_string())?;
        fs::write(&warm_file, lines(&paths[..1])).map_err(|e| e.to_string())?;
        run_floor(env, python, &calls, &warm_file, &[])?;
        progress!("baseline: the runnable floor on {} …", cfg.floor);
        out.push(Baseline {
            name: "floor",
            what: "runnable floor (warm parent, fork per submission, no sandbox)".into(),
            ..run_floor(env, python, &calls, &list_file, &[])?
        });
        // The same floor for a 10-case corpus change: only the added cases,
        // main.py imported from bytecode compiled beforehand (as the
        // recorder imports it from the store).
        let added = added_calls(env, python, &scripts, changed, &base)?;
        progress!(
            "baseline: the runnable floor of the 10 added cases on {} …",
            cfg.floor
        );
        out.push(Baseline {
            name: "floor-added",
            what: "runnable floor of a 10-case change (only the 10 added cases, main.py from bytecode compiled beforehand)".into(),
            ..run_floor(env, python, &added, &list_file, &["--bytecode"])?
        });
    }

    // (b) a fresh interpreter per submission.
    if cfg.fresh > 0 {
        let one = |p: &Path| -> Res<Usage> {
            Ok(env
                .run(
                    Command::new(python)
                        .arg("-B")
                        .arg(scripts.join("run_calls.py"))
                        .arg(&calls)
                        .arg(p),
                    "fresh python3",
                )?
                .usage)
        };
        one(&paths[0])?;
        progress!(
            "baseline: fresh {} per submission on {} …",
            python.display(),
            cfg.fresh
        );
        let mut total = Usage::default();
        for p in &paths[..cfg.fresh] {
            total.add(&one(p)?);
        }
        out.push(Baseline {
            name: "fresh",
            what: format!("fresh `{} -B` per submission", python.display()),
            sample: cfg.fresh,
            usage: total,
            setup_cpu: 0.0,
            setup_wall: 0.0,
        });
    }

    // (c) pytest per submission, in a venv of that interpreter.
    if cfg.pytest > 0 {
        match pytest_venv(env, python) {
            Err(why) => progress!("baseline: pytest skipped: {why}"),
            Ok(venv_python) => {
                let test = scripts.join("test_cases.py");
                let one = |i: usize, p: &Path| -> Res<Usage> {
                    let d = base.join(format!("pytest/{i:05}"));
                    fs::create_dir_all(&d).map_err(|e| e.to_string())?;
                    fs::copy(p, d.join("main.py")).map_err(|e| e.to_string())?;
                    fs::copy(&test, d.join("test_main.py")).map_err(|e| e.to_string())?;
                    fs::copy(base.join("cases.json"), d.join("cases.json"))
                        .map_err(|e| e.to_string())?;
                    let mut c = Command::new(&venv_python);
                    c.args(["-m", "pytest", "-q"]).current_dir(&d);
                    // 0: all passed, 1: some failed (a buggy submission).
                    Ok(measure(&mut c, &env.logs, "pytest", &[0, 1])?.usage)
                };
                one(usize::MAX, &paths[0])?;
                progress!("baseline: pytest per submission on {} …", cfg.pytest);
                let mut total = Usage::default();
                for (i, p) in paths[..cfg.pytest].iter().enumerate() {
                    total.add(&one(i, p)?);
                }
                let version = Command::new(&venv_python)
                    .args(["-c", "import pytest; print(pytest.__version__)"])
                    .output()
                    .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
                    .unwrap_or_default();
                out.push(Baseline {
                    name: "pytest",
                    what: format!("pytest {version} per submission (`python -m pytest -q`, one parametrized test per case)"),
                    sample: cfg.pytest,
                    usage: total,
                    setup_cpu: 0.0,
                    setup_wall: 0.0,
                });
            }
        }
    }
    for b in &out {
        progress!(
            "baseline {}: {:.1} ms CPU, {:.1} ms wall per submission",
            b.name,
            b.cpu_per_sub() * 1e3,
            b.wall_per_sub() * 1e3
        );
    }
    Ok(out)
}

/// `scripts/bench/floor.py CALLS LIST [extra]`: the runnable floor on the
/// submissions `list` names, with its own set-up (to subtract).
fn run_floor(env: &Env, python: &Path, calls: &Path, list: &Path, extra: &[&str]) -> Res<Baseline> {
    let ran = env.run(
        Command::new(python)
            .arg(env.root.join("scripts/bench/floor.py"))
            .arg(calls)
            .arg(list)
            .args(extra),
        "the runnable floor",
    )?;
    let reported: serde_json::Value = serde_json::from_str(ran.stdout.trim())
        .map_err(|e| format!("floor.py printed {:?}: {e}", ran.stdout))?;
    let killed = reported["killed"].as_u64().unwrap_or(0);
    if killed > 0 {
        progress!("the floor's alarm killed {killed} submission(s)");
    }
    Ok(Baseline {
        name: "floor",
        what: String::new(),
        sample: reported["submissions"].as_u64().unwrap_or(0) as usize,
        usage: ran.usage,
        setup_cpu: reported["setup_cpu"].as_f64().unwrap_or(0.0),
        setup_wall: reported["setup_wall"].as_f64().unwrap_or(0.0),
    })
}

/// One side-by-side round: CPU ms per submission of recording (net of a
/// run of one submission per worker: the grader's start, the corpus, the
/// workers' start) and of the runnable floor, on the same submissions, one
/// right after the other.
#[derive(Clone, Copy)]
struct Round {
    record: f64,
    floor: f64,
}

/// The side-by-side rounds and how many submissions each ran.
struct Paired {
    subs: usize,
    rounds: Vec<Round>,
}

/// Record against the floor side by side: three rounds, each running the
/// floor and then recording the same `cfg.paired` submissions (an empty
/// store each time), so that this VM's drift over minutes (±10%) weighs on
/// both alike; the median round's ratio is the one the goals use.
fn side_by_side(cfg: &Config, env: &Env, python: &Path, all: &Path, cases: &Path) -> Res<Paired> {
    let n = cfg.paired;
    // As many as the grader starts workers (one per core), so that the run
    // subtracted starts as many.
    let few = std::thread::available_parallelism().map_or(1, |c| c.get());
    if n <= few {
        return Ok(Paired {
            subs: 0,
            rounds: Vec::new(),
        });
    }
    let dir = env.tmp.join("paired");
    let paths = link_subset(all, &dir.join("subs"), n)?;
    link_subset(all, &dir.join("few"), few)?;
    let list = dir.join("list");
    let lines: String = paths.iter().map(|p| format!("{}\n", p.display())).collect();
    fs::write(&list, lines).map_err(|e| e.to_string())?;
    let calls = env.tmp.join("baselines/calls.marshal");
    let record = |subs: &str, round: usize| -> Res<f64> {
        let work = dir.join(format!("work-{subs}-{round}"));
        let ran = env.run(
            env.grader()
                .arg("grade")
                .arg(dir.join(subs))
                .arg("--cases")
                .arg(cases)
                .arg("--work-dir")
                .arg(&work)
                .args(["--summary-only", "-q"]),
            "side by side: record",
        )?;
        let _ = fs::remove_dir_all(&work);
        Ok(ran.usage.cpu)
    };
    let mut rounds = Vec::new();
    for round in 0..3 {
        progress!(
            "side by side, round {}: the floor and record on {n} …",
            round + 1
        );
        let floor = run_floor(env, python, &calls, &list, &[])?;
        let all_cpu = record("subs", round)?;
        let few_cpu = record("few", round)?;
        let r = Round {
            record: (all_cpu - few_cpu).max(0.0) / (n - few) as f64 * 1e3,
            floor: floor.cpu_per_sub() * 1e3,
        };
        progress!(
            "side by side, round {}: record {:.1} ms, floor {:.1} ms per submission ({:.2}×)",
            round + 1,
            r.record,
            r.floor,
            r.record / r.floor
        );
        rounds.push(r);
    }
    let _ = fs::remove_dir_all(&dir);
    Ok(Paired { subs: n, rounds })
}

/// The median ratio of record to floor over `rounds`.
fn median_ratio(rounds: &[Round]) -> Option<f64> {
    let mut r: Vec<f64> = rounds.iter().map(|r| r.record / r.floor).collect();
    r.sort_by(f64::total_cmp);
    r.get(r.len() / 2).copied()
}

/// The calls of the changed corpus's 10 added cases (`bench-extra-*`), as
/// `prepare_cases.py` writes them, in `base/added/calls.marshal`.
fn added_calls(
    env: &Env,
    python: &Path,
    scripts: &Path,
    changed: &Path,
    base: &Path,
) -> Res<PathBuf> {
    let listing = env.run(
        env.grader()
            .args(["cases", "list", "--json", "--cases"])
            .arg(changed),
        "cases list (changed corpus)",
    )?;
    let added: String = listing
        .stdout
        .lines()
        .filter(|l| l.contains("/bench-extra-"))
        .map(|l| format!("{l}\n"))
        .collect();
    if added.lines().count() != 10 {
        return Err(format!(
            "the changed corpus lists {} added cases, not 10",
            added.lines().count()
        ));
    }
    let dir = base.join("added");
    fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let list = dir.join("cases.jsonl");
    fs::write(&list, added).map_err(|e| e.to_string())?;
    env.run(
        Command::new(python)
            .arg(scripts.join("prepare_cases.py"))
            .arg(changed)
            .arg(&list)
            .arg(&dir),
        "preparing the added cases",
    )?;
    Ok(dir.join("calls.marshal"))
}

/// `target/bench-venv` made by `python -m venv` with pytest from the package
/// index, reused while it works and was made from the same interpreter.
fn pytest_venv(env: &Env, python: &Path) -> Res<PathBuf> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| env.root.join("target"));
    let venv = target.join("bench-venv");
    let vpy = venv.join("bin/python");
    let stamp = venv.join("made-from");
    let made_from = python.display().to_string();
    let works = || {
        Command::new(&vpy)
            .args(["-c", "import pytest"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if fs::read_to_string(&stamp).ok().as_deref() == Some(made_from.as_str()) && works() {
        return Ok(vpy);
    }
    progress!(
        "making {} (python -m venv, pip install pytest) …",
        venv.display()
    );
    let _ = fs::remove_dir_all(&venv);
    let step = |c: &mut Command, what: &str| -> Res<()> {
        let o = c
            .output()
            .map_err(|e| format!("{what}: cannot start: {e}"))?;
        if o.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{what} failed: {}",
                tail(&String::from_utf8_lossy(&o.stderr), 5)
            ))
        }
    };
    step(
        Command::new(python).args(["-m", "venv"]).arg(&venv),
        &format!("{} -m venv", python.display()),
    )?;
    step(
        Command::new(&vpy).args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "pytest",
        ]),
        "pip install pytest",
    )?;
    if !works() {
        return Err("pytest installed but does not import".into());
    }
    fs::write(&stamp, &made_from).map_err(|e| e.to_string())?;
    Ok(vpy)
}

// ---------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------

fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "yes"
    } else {
        "**no**"
    }
}

/// What the submissions ran: the corpus's size and the buggy kinds.
struct Workload {
    cases: usize,
    checkpoints: usize,
    kinds: usize,
}

fn render(
    m: &Machine,
    sandbox: &str,
    work: &Workload,
    baselines: &[Baseline],
    paired: &Paired,
    per_n: &[(usize, Vec<Phase>)],
) -> String {
    let mut s = String::new();
    let w = &mut s;
    let _ = writeln!(w, "### autograder scale benchmark\n");
    let _ = writeln!(
        w,
        "{} · {} cores, {}, {:.0} GiB, {} · load average at start {} · sandbox: {sandbox} · {} cases over {} checkpoints · every tenth submission one of {} buggy examples, the others the model solution with a distinct comment\n",
        m.date,
        m.cores,
        m.cpu,
        m.mem_gb,
        m.kernel,
        m.load,
        thousands(work.cases),
        work.checkpoints,
        work.kinds
    );
    let _ = writeln!(
        w,
        "CPU time from {}; RSS of the largest single process (wait4's ru_maxrss) and of the whole process tree (the phase's cgroup, or its descendants in /proc; summed, sampled every 50 ms); peak RSS below is the larger of the two.\n",
        CPU_SOURCE.get().copied().unwrap_or("-")
    );
    let _ = writeln!(
        w,
        "| N | phase | wall s | CPU s | CPU ms/submission | largest process RSS MB | tree RSS MB | submissions/s | vs grade (wall / CPU) |"
    );
    let _ = writeln!(w, "|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    for (n, phases) in per_n {
        let grade = phases.iter().find(|p| p.name == "grade").map(|p| p.usage);
        for p in phases {
            let u = &p.usage;
            let vs = match grade {
                Some(g) if p.name.starts_with("grade +") => {
                    format!("{:+.2} s / {:+.2} s", u.wall - g.wall, u.cpu - g.cpu)
                }
                _ => String::new(),
            };
            let _ = writeln!(
                w,
                "| {} | {} | {:.2} | {:.2} | {:.2} | {:.0} | {:.0} | {:.0} | {vs} |",
                thousands(*n),
                p.name,
                u.wall,
                u.cpu,
                u.cpu / p.subs as f64 * 1e3,
                u.max_rss_kb as f64 / 1024.0,
                u.tree_rss_kb as f64 / 1024.0,
                p.subs as f64 / u.wall,
            );
            if let Some((load, grading)) = p.split {
                for (what, cpu) in [
                    ("load (outcomes from the store)", load),
                    ("grading", grading),
                ] {
                    let _ = writeln!(
                        w,
                        "| {} | · of which {what} | | {cpu:.2} | {:.2} | | | | |",
                        thousands(*n),
                        cpu / p.subs as f64 * 1e3,
                    );
                }
            }
        }
    }
    let stores: Vec<String> = per_n
        .iter()
        .flat_map(|(n, ps)| ps.iter().map(move |p| (n, p)))
        .filter_map(|(n, p)| {
            let b = p.store_bytes? as f64;
            Some(format!(
                "{} after {}: {:.0} MB ({:.0} KB/submission)",
                thousands(*n),
                p.name,
                b / 1e6,
                b / 1e3 / p.subs as f64
            ))
        })
        .collect();
    if !stores.is_empty() {
        let _ = writeln!(w, "\nThe store on disk: {}.", stores.join("; "));
    }
    let _ = writeln!(
        w,
        "\nBaselines (per submission, same interpreter, no sandbox):\n"
    );
    let _ = writeln!(
        w,
        "| baseline | sample | wall ms/submission | CPU ms/submission |"
    );
    let _ = writeln!(w, "|---|---:|---:|---:|");
    for b in baselines {
        let _ = writeln!(
            w,
            "| {} | {} | {:.1} | {:.1} |",
            b.what,
            b.sample,
            b.wall_per_sub() * 1e3,
            b.cpu_per_sub() * 1e3
        );
    }
    if !paired.rounds.is_empty() {
        let _ = writeln!(
            w,
            "\nSide by side (the floor, then recording the same {} submissions with an empty store, three times; recording's CPU net of a run of one submission per worker):\n",
            thousands(paired.subs)
        );
        let _ = writeln!(
            w,
            "| round | record CPU ms/submission | floor CPU ms/submission | record / floor |"
        );
        let _ = writeln!(w, "|---:|---:|---:|---:|");
        for (i, r) in paired.rounds.iter().enumerate() {
            let _ = writeln!(
                w,
                "| {} | {:.1} | {:.1} | {:.2}× |",
                i + 1,
                r.record,
                r.floor,
                r.record / r.floor
            );
        }
    }
    let find = |n: usize, name: &str| {
        per_n
            .iter()
            .find(|(k, _)| *k == n)
            .and_then(|(_, ps)| ps.iter().find(|p| p.name == name))
            .map(|p| p.usage)
    };
    let base = |name: &str| baselines.iter().find(|b| b.name == name);
    let _ = writeln!(w, "\nGoals (issue 11):\n");
    let _ = writeln!(w, "| goal | N | measured | met |");
    let _ = writeln!(w, "|---|---:|---:|---|");
    if let Some(r) = median_ratio(&paired.rounds) {
        let _ = writeln!(
            w,
            "| record CPU/submission ≤ 1.5× the runnable floor, side by side (median round) | {} | {r:.2}× | {} |",
            thousands(paired.subs),
            verdict(r <= 1.5)
        );
    }
    for (n, phases) in per_n {
        let n = *n;
        let peak = phases.iter().map(|p| p.usage.peak_mb()).fold(0.0, f64::max);
        let _ = writeln!(
            w,
            "| peak RSS ≤ 300 MB (any phase) | {} | {peak:.0} MB | {} |",
            thousands(n),
            verdict(peak <= 300.0)
        );
        if let Some(g) = find(n, "grade") {
            let rate = n as f64 / g.wall;
            let _ = writeln!(
                w,
                "| grading from the store ≥ 2,000 submissions/s | {} | {rate:.0} /s | {} |",
                thousands(n),
                verdict(rate >= 2000.0)
            );
        }
        let Some(rec) = find(n, "record") else {
            continue;
        };
        let rec_cpu = rec.cpu / n as f64;
        if let Some(f) = base("floor") {
            let r = rec_cpu / f.cpu_per_sub();
            let _ = writeln!(
                w,
                "| record CPU/submission ≤ 1.5× the runnable floor | {} | {r:.2}× ({:.1} vs {:.1} ms) | {} |",
                thousands(n),
                rec_cpu * 1e3,
                f.cpu_per_sub() * 1e3,
                verdict(r <= 1.5)
            );
        }
        for (name, goal, label) in [("fresh", 5.0, "fresh python3"), ("pytest", 40.0, "pytest")] {
            if let Some(b) = base(name) {
                let r = b.cpu_per_sub() / rec_cpu;
                let _ = writeln!(
                    w,
                    "| record ≥ {goal}× less CPU/submission than {label} | {} | {r:.1}× | {} |",
                    thousands(n),
                    verdict(r >= goal)
                );
            } else if name == "pytest" {
                let _ = writeln!(
                    w,
                    "| record ≥ {goal}× less CPU/submission than {label} | {} | not measured (see stderr) | - |",
                    thousands(n)
                );
            }
        }
        if let (Some(g), Some(c)) = (find(n, "grade"), find(n, "10-case change")) {
            let full_wall = rec.wall + g.wall;
            let full_cpu = rec.cpu + g.cpu;
            let (pw, pc) = (c.wall / full_wall * 100.0, c.cpu / full_cpu * 100.0);
            // What the floor itself spends on the 10 added cases, as a share
            // of its full run: the least a 10-case change can cost.
            let floor_share = match (base("floor"), base("floor-added")) {
                (Some(f), Some(a)) => format!(
                    " (the floor's own 10-case run: {:.1}% of its full run, {:.1} ms/submission)",
                    a.cpu_per_sub() / f.cpu_per_sub() * 100.0,
                    a.cpu_per_sub() * 1e3
                ),
                _ => String::new(),
            };
            let _ = writeln!(
                w,
                "| a 10-case corpus change ≤ 5% of record + grade | {} | {pw:.1}% wall, {pc:.1}% CPU, {:.1} ms/submission{floor_share} | {} |",
                thousands(n),
                c.cpu / n as f64 * 1e3,
                verdict(pw <= 5.0 && pc <= 5.0)
            );
        }
    }
    let peaks: Vec<(usize, f64)> = per_n
        .iter()
        .map(|(n, ps)| (*n, ps.iter().map(|p| p.usage.peak_mb()).fold(0.0, f64::max)))
        .collect();
    if let (Some(lo), Some(hi)) = (
        peaks.iter().min_by_key(|p| p.0),
        peaks.iter().max_by_key(|p| p.0),
    ) {
        if lo.0 != hi.0 {
            let r = hi.1 / lo.1;
            let _ = writeln!(
                w,
                "| flat memory: peak RSS at {} within 20% of {} | | {r:.2}× ({:.0} vs {:.0} MB) | {} |",
                thousands(hi.0),
                thousands(lo.0),
                hi.1,
                lo.1,
                verdict((0.8..=1.2).contains(&r))
            );
        }
    }
    s
}
