//! One worker: a long-lived pre-forked harness process (the "zygote") that
//! records one submission per request, talking JSON lines over its
//! stdin/stdout.

use super::admitted;
use super::caps;
use super::case_store::outcome_text;
use super::cgroup::MemoryCgroup;
use super::format::CaseOutcome;
use super::limits;
use super::sandbox::{self, Isolation, Python, Scratch, UidLease};
use super::RecordError;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The harness's entry, embedded in the binary and run with `-c`.
pub const HARNESS_PY: &str = include_str!("harness/harness.py");
/// The harness's programs, sent in its init line and run in its namespace
/// in this order (harness.py's `PROGRAMS`).
pub const PROGRAMS: [(&str, &str); 5] = [
    ("child", include_str!("harness/child.py")),
    ("reaper", include_str!("harness/reaper.py")),
    ("supervisor", include_str!("harness/supervisor.py")),
    ("zygote", include_str!("harness/zygote.py")),
    ("selftest", include_str!("harness/selftest.py")),
];
/// The Python half of the tagged-JSON codec, sent to the harness at start.
pub const TAGGED_PY: &str = include_str!("harness/tagged.py");
/// Every tier's Landlock domain and seccomp filter, sent likewise.
pub const CONFINE_PY: &str = include_str!("harness/confine.py");
/// Every Python source the harness runs: a change to any of them makes
/// stored outcomes stale (see `harness_version`).
pub const HARNESS_SOURCES: [&str; 8] = [
    HARNESS_PY,
    PROGRAMS[0].1,
    PROGRAMS[1].1,
    PROGRAMS[2].1,
    PROGRAMS[3].1,
    PROGRAMS[4].1,
    TAGGED_PY,
    CONFINE_PY,
];

/// The harness's sources and its limits as its self-check scripts
/// (`harness/*_check.py`) read them on stdin: a JSON object with "harness",
/// "programs", "tagged" and "limits".
#[doc(hidden)]
pub fn check_input() -> String {
    serde_json::json!({
        "harness": HARNESS_PY,
        "programs": PROGRAMS,
        "tagged": TAGGED_PY,
        "limits": limits::HARNESS,
    })
    .to_string()
}

/// Limits every child runs under.
#[derive(Clone, Debug)]
pub struct Limits {
    pub case_timeout: Duration,
    pub wall: Duration,
    pub memory_bytes: u64,
    pub file_bytes: u64,
    pub open_files: u64,
    /// Processes a submission may run (RLIMIT_NPROC). Where its processes
    /// share a uid with the grader and the other workers (no uid of its
    /// own, no bwrap namespace), the harness counts that uid's tasks too.
    pub processes: u64,
    /// Workers recording at once: without a uid or namespace of their own,
    /// their submissions share one process count.
    pub workers: usize,
}

/// What a worker needs to start: the isolation, the limits and the cases'
/// inputs (tagged JSON, never expected outcomes), shared by all workers.
pub struct Setup {
    pub isolation: Isolation,
    pub python: Python,
    /// Files student code must not be able to read (the corpus, the grader):
    /// the harness's self-test checks them under bwrap and landlock.
    pub must_not_read: Vec<PathBuf>,
    pub limits: Limits,
    /// The cases' inputs: the visible ones sent at start, the hidden ones
    /// per submission on request (`[{"f": function, "a": [args], "k":
    /// [[name, value]]}, ...]` as JSON text each).
    pub inputs: super::Inputs,
}

/// What the harness answered for one submission.
pub struct Reply {
    /// (corpus index, outcome as the store keeps it: compact JSON of a
    /// [`CaseOutcome`]), in the order the cases ran.
    pub outcomes: Vec<(usize, Arc<str>)>,
    pub output: String,
    /// What the supervisor saw that only a submission reaching into the
    /// harness does (runtime integrity findings), capped.
    pub integrity: Vec<crate::integrity::Finding>,
    /// `main.py` compiled by this session (a `.pyc`, hex), for the store:
    /// a later session of the same source is given it and skips compiling.
    pub pyc: Option<String>,
}

/// A running harness process.
pub struct Worker {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<std::io::Result<String>>,
    stderr_tail: Arc<Mutex<Vec<u8>>>,
    reply_limit: Duration,
    /// How often the harness asked for hidden inputs (tests).
    hidden_requests: usize,
    /// What the sandbox's self-test found held, as reports say it.
    pub sandbox: String,
    // Dropped after the process is killed.
    _scratch: Option<Scratch>,
    /// Removed after the process is killed (fields drop after `drop`).
    cgroup: Option<MemoryCgroup>,
}

const STDERR_TAIL: usize = 4096;

/// What a supervisor writes when its submission's visible cases are all
/// answered and it needs the hidden cases' inputs.
const HIDDEN_REQUEST: &str = "{\"need\":\"hidden\"}";

/// The harness's first line: its interpreter and what its sandbox self-test
/// found (a child set up exactly as a submission's, minus the student code).
#[derive(serde::Deserialize)]
struct Ready {
    ready: bool,
    python: String,
    self_test: SelfTest,
}

#[derive(serde::Deserialize)]
struct SelfTest {
    ok: bool,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    host_files_hidden: bool,
    #[serde(default)]
    root_hidden: bool,
    #[serde(default)]
    inet_refused: bool,
    /// The child could not signal, re-limit or renice the zygote.
    #[serde(default)]
    zygote_unreachable: bool,
    #[serde(default)]
    landlock: Option<LandlockHeld>,
    /// A seccomp filter was installed (the landlock tier's, or the other
    /// tiers' one that keeps the child off other processes).
    #[serde(default)]
    seccomp: bool,
}

#[derive(serde::Deserialize)]
struct LandlockHeld {
    landlock_abi: u32,
    rules: Vec<String>,
}

impl Ready {
    /// Refuses a harness whose sandbox does not hold what its tier promises;
    /// otherwise says what held, for the reports.
    fn check(self, setup: &Setup, uid: Option<u32>) -> Result<String, RecordError> {
        let python = &setup.python;
        if !self.ready || self.python != python.version {
            return Err(RecordError::Harness(format!(
                "{} answered as CPython {}, not the {} it was probed as",
                python.executable.display(),
                self.python,
                python.version
            )));
        }
        let t = self.self_test;
        let refuse = |why: String| Err(RecordError::Sandbox(why));
        if !t.ok {
            let error = t.error.unwrap_or_default();
            let hint = match uid {
                Some(uid) => format!(
                    " (the worker uid {uid} must be able to read {} and its library: install \
                     Python where every user can read it, e.g. under /usr or /opt)",
                    python.executable.display()
                ),
                None => String::new(),
            };
            return refuse(format!("the sandbox self-test failed: {error}{hint}"));
        }
        let own_uid = if uid.is_some() { ", own uid" } else { "" };
        // What keeps the child off other processes: under bwrap and
        // rlimits, the scope-only Landlock domain and the seccomp filter
        // the harness puts in place where the kernel allows.
        let mut scoped = String::new();
        if let Some(held) = &t.landlock {
            scoped += &format!(
                ", Landlock ABI {} scope ({})",
                held.landlock_abi,
                held.rules.join(", ")
            );
        }
        if t.seccomp {
            scoped += ", seccomp (other processes)";
        }
        if !t.zygote_unreachable {
            scoped += "; other processes NOT out of reach (no uid of its own, no seccomp filter)";
        }
        match setup.isolation {
            Isolation::Bwrap => {
                // (bwrap's own root is listable: it holds only /usr, /tmp, ...)
                if !t.host_files_hidden {
                    return refuse("bwrap let the self-test read the host's files".into());
                }
                Ok(format!(
                    "bwrap: namespaces (network, PID, IPC, mount), only /usr and the \
                     interpreter visible{own_uid}{scoped}"
                ))
            }
            Isolation::Landlock => {
                let Some(held) = t.landlock else {
                    return refuse("the landlock tier did not confine the self-test".into());
                };
                if !(t.host_files_hidden && t.root_hidden && t.inet_refused) {
                    return refuse(format!(
                        "Landlock ABI {} did not hide the host's files or refuse the network \
                         in the self-test",
                        held.landlock_abi
                    ));
                }
                if !t.zygote_unreachable {
                    return refuse(
                        "the landlock tier's seccomp filter did not keep the self-test off \
                         the zygote (signals, limits, priorities)"
                            .into(),
                    );
                }
                Ok(format!(
                    "landlock: ABI {} ({}){own_uid}",
                    held.landlock_abi,
                    held.rules.join(", ")
                ))
            }
            Isolation::Rlimits => Ok(format!(
                "rlimits only{own_uid}{scoped}: host files readable, network reachable"
            )),
        }
    }
}

impl Worker {
    /// Starts the harness and waits until it has imported everything and
    /// checked the cases.
    pub fn start(setup: &Setup, lease: Option<&UidLease>) -> Result<Worker, RecordError> {
        let uid = lease.map(|l| l.uid);
        let scratch = match setup.isolation {
            Isolation::Bwrap => None,
            Isolation::Landlock | Isolation::Rlimits => Some(Scratch::create(uid)?),
        };
        let host_scratch = scratch
            .as_ref()
            .map(|s| s.path.clone())
            .unwrap_or_else(std::env::temp_dir);
        // A submission's total memory: twice what one of its processes may
        // map, for the worker's processes together, where a cgroup can be made.
        let cgroup = MemoryCgroup::create(limits::cgroup_bytes(setup.limits.memory_bytes));
        let (mut cmd, inner_scratch) = sandbox::harness_command(
            setup.isolation,
            &host_scratch,
            &setup.python,
            cgroup.as_ref().ok().map(MemoryCgroup::procs),
        )?;
        cmd.arg("-c")
            .arg(HARNESS_PY)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().map_err(|e| {
            RecordError::Sandbox(format!(
                "cannot start the harness with {}: {e}",
                setup.python.executable.display()
            ))
        })?;
        let harness_err = |why: &str| RecordError::Harness(why.to_string());
        let stdin = child.stdin.take().ok_or_else(|| harness_err("no stdin"))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| harness_err("no stdout"))?;
        let stderr = child
            .stderr
            .take()
            .ok_or_else(|| harness_err("no stderr"))?;
        let stderr_tail = Arc::new(Mutex::new(Vec::new()));
        spawn_stderr_reader(stderr, stderr_tail.clone());
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::with_capacity(1 << 16, stdout);
            loop {
                let mut line = String::new();
                match reader.read_line(&mut line) {
                    Ok(0) => return,
                    Ok(_) => {
                        if tx.send(Ok(line)).is_err() {
                            return;
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            }
        });
        let run = &setup.limits;
        let wall = run.wall.as_secs_f64();
        let head = serde_json::json!({
            "uid": uid,
            "gid": uid,
            "scratch": inner_scratch.to_string_lossy(),
            "timeout": run.case_timeout.as_secs_f64(),
            "wall": wall,
            "limits": limits::HARNESS,
            "programs": PROGRAMS,
            "rlimits": {
                "as": run.memory_bytes,
                "cpu": limits::cpu_seconds(run.wall),
                "fsize": run.file_bytes,
                "nofile": run.open_files,
                "nproc": run.processes,
                "core": 0,
            },
            "workers": run.workers,
            "tagged": TAGGED_PY,
            "tier": setup.isolation.name(),
            "read_roots": setup.python.roots,
            "must_not_read": setup.must_not_read,
            "hidden_count": setup.inputs.order.len() - setup.inputs.visible_count,
        });
        let mut head = head;
        head["confine"] = serde_json::Value::from(CONFINE_PY);
        let head = head.to_string();
        let init = format!(
            "{},\"cases\":{}}}\n",
            &head[..head.len() - 1],
            setup.inputs.visible
        );
        let mut worker = Worker {
            child,
            stdin,
            lines,
            stderr_tail,
            hidden_requests: 0,
            reply_limit: limits::reply_wait(run.wall),
            sandbox: String::new(),
            _scratch: scratch,
            cgroup: cgroup.ok(),
        };
        worker.send(init.as_bytes())?;
        let ready = worker.receive(limits::READY_WAIT)?;
        let ready: Ready = match serde_json::from_str(ready.trim()) {
            Ok(r) => r,
            Err(_) => return Err(worker.failure("the harness did not start")),
        };
        let memory = match &worker.cgroup {
            Some(cg) => cg.describe.clone(),
            None => "memory: per process only (no cgroup here)".to_string(),
        };
        worker.sandbox = format!("{}; {memory}", ready.check(setup, uid)?);
        Ok(worker)
    }

    fn send(&mut self, bytes: &[u8]) -> Result<(), RecordError> {
        let res = self.stdin.write_all(bytes).and_then(|_| self.stdin.flush());
        res.map_err(|e| self.failure(&format!("cannot write to the harness: {e}")))
    }

    fn receive(&mut self, limit: Duration) -> Result<String, RecordError> {
        match self.lines.recv_timeout(limit) {
            Ok(Ok(line)) => Ok(line),
            Ok(Err(e)) => Err(self.failure(&format!("cannot read from the harness: {e}"))),
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                Err(self.failure("the harness did not answer in time"))
            }
            Err(RecvTimeoutError::Disconnected) => Err(self.failure("the harness stopped")),
        }
    }

    fn failure(&mut self, what: &str) -> RecordError {
        // Give the stderr reader a moment to collect a dying harness's last words.
        let status = match self.child.try_wait() {
            Ok(Some(s)) => format!(" ({s})"),
            _ => String::new(),
        };
        std::thread::sleep(Duration::from_millis(20));
        let tail = self
            .stderr_tail
            .lock()
            .map(|t| String::from_utf8_lossy(&t).trim().to_string())
            .unwrap_or_default();
        if tail.is_empty() {
            RecordError::Harness(format!("{what}{status}"))
        } else {
            RecordError::Harness(format!("{what}{status}: {tail}"))
        }
    }

    /// Whether the harness process is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Records one submission's source: every case (`only` = None) or only
    /// the cases whose corpus indices `only` lists (duplicates count once).
    /// Returns one (corpus index, outcome) per case run, in the harness's
    /// order: the visible cases, then the hidden ones, each in corpus order.
    /// The hidden cases' inputs (`inputs`, only the chosen ones) are sent
    /// only when the supervisor asks for them, once every visible case it
    /// runs is answered, and not at all when no chosen case is hidden.
    pub fn record(
        &mut self,
        source: &[u8],
        pyc: Option<&str>,
        inputs: &super::Inputs,
        only: Option<&[usize]>,
    ) -> Result<Reply, RecordError> {
        let plan = Plan::new(inputs, only)?;
        let pyc = pyc.filter(|p| is_pyc_hex(p));
        let mut job = String::with_capacity(source.len() * 2 + pyc.map_or(0, str::len) + 64);
        job.push_str("job\n{\"source_hex\":\"");
        job.push_str(&hex::encode(source));
        job.push('"');
        if let Some(pyc) = pyc {
            job.push_str(",\"pyc_hex\":\"");
            job.push_str(pyc);
            job.push('"');
        }
        if let Some((visible, hidden)) = &plan.subset {
            let visible: Vec<String> = visible.iter().map(usize::to_string).collect();
            job.push_str(&format!(
                ",\"visible\":[{}],\"hidden\":{}",
                visible.join(","),
                hidden.len()
            ));
        }
        job.push_str("}\n");
        self.send(job.as_bytes())?;
        let mut line = self.receive(self.reply_limit)?;
        if line.trim_end() == HIDDEN_REQUEST {
            self.hidden_requests += 1;
            let hidden = match &plan.subset {
                None if inputs.order.len() > inputs.visible_count => inputs.hidden.clone(),
                Some((_, hidden)) if !hidden.is_empty() => {
                    let each: Vec<&str> = hidden
                        .iter()
                        .map(|&k| inputs.hidden_each[k].as_str())
                        .collect();
                    format!("[{}]", each.join(","))
                }
                _ => {
                    return Err(self.failure(
                        "the harness asked for hidden inputs the submission runs none of",
                    ))
                }
            };
            self.send(format!("{hidden}\n").as_bytes())?;
            line = self.receive(self.reply_limit)?;
        }
        let outcomes = parse_reply(&line, plan.order.len())?;
        Ok(Reply {
            outcomes: plan.order.into_iter().zip(outcomes.outcomes).collect(),
            output: outcomes.output,
            integrity: outcomes.integrity,
            // Only when this session compiled it (given one, it says none).
            pyc: outcomes.pyc.filter(|p| pyc.is_none() && is_pyc_hex(p)),
        })
    }

    /// How often this worker's harness asked for hidden inputs.
    #[cfg(test)]
    pub fn hidden_requests(&self) -> usize {
        self.hidden_requests
    }
}

/// Which cases one submission runs, in the harness's order.
struct Plan {
    /// The corpus indices, in the order the harness runs them.
    order: Vec<usize>,
    /// For a subset: the positions of its visible cases among the visible
    /// inputs, and of its hidden cases among the hidden inputs.
    subset: Option<(Vec<usize>, Vec<usize>)>,
}

impl Plan {
    fn new(inputs: &super::Inputs, only: Option<&[usize]>) -> Result<Plan, RecordError> {
        let Some(only) = only else {
            return Ok(Plan {
                order: inputs.order.clone(),
                subset: None,
            });
        };
        let total = inputs.order.len();
        let mut positions = Vec::with_capacity(only.len());
        for &i in only {
            match inputs.position.get(i) {
                Some(&k) => positions.push(k),
                None => {
                    return Err(RecordError::Setup(format!(
                        "case index {i} is out of range: the corpus has {total} cases"
                    )))
                }
            }
        }
        positions.sort_unstable();
        positions.dedup();
        let split = positions.partition_point(|&k| k < inputs.visible_count);
        let hidden = positions[split..]
            .iter()
            .map(|&k| k - inputs.visible_count)
            .collect();
        Ok(Plan {
            order: positions.iter().map(|&k| inputs.order[k]).collect(),
            subset: Some((positions[..split].to_vec(), hidden)),
        })
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn spawn_stderr_reader(mut stderr: std::process::ChildStderr, tail: Arc<Mutex<Vec<u8>>>) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stderr.read(&mut buf) {
            if n == 0 {
                return;
            }
            if let Ok(mut t) = tail.lock() {
                t.extend_from_slice(&buf[..n]);
                let excess = t.len().saturating_sub(STDERR_TAIL);
                t.drain(..excess);
            }
        }
    });
}

/// Parses the harness's answer: a JSON head (`n`, `output`, `integrity`,
/// or `error`), then each outcome after a tab, as the child wrote it (the
/// supervisor passes outcome texts on unparsed). An outcome the harness
/// could not vouch for (a student writing garbage into its own result
/// channel) becomes `crashed`; each goes through [`caps::admit_outcome`],
/// and a submission whose outcomes exceed [`caps::MAX_SUBMISSION_BYTES`] is
/// refused ([`RecordError::TooLarge`], not the grader's fault).
fn parse_reply(line: &str, case_count: usize) -> Result<Parsed, RecordError> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Head {
        n: usize,
        output: String,
        #[serde(default)]
        error: Option<String>,
        #[serde(default)]
        integrity: Vec<Seen>,
        #[serde(default)]
        pyc: Option<String>,
    }
    /// One thing the supervisor saw (`kind`, `what`), student-shaped text.
    #[derive(serde::Deserialize)]
    struct Seen {
        kind: String,
        what: String,
    }
    let harness = |why: String| RecordError::Harness(why);
    let line = line.strip_suffix('\n').unwrap_or(line);
    let (head, rest) = match line.split_once('\t') {
        Some((head, rest)) => (head, Some(rest)),
        None => (line, None),
    };
    if super::store::nesting(head.as_bytes()) > 4096 {
        return Err(harness("the harness answered JSON nested too deep".into()));
    }
    let head: Head = serde_json::from_str(head)
        .map_err(|e| harness(format!("the harness answered malformed JSON: {e}")))?;
    if let Some(error) = head.error {
        return Err(harness(error));
    }
    let texts: Vec<&str> = rest.map(|r| r.split('\t').collect()).unwrap_or_default();
    if head.n != case_count || texts.len() != case_count {
        return Err(harness(format!(
            "the harness answered {} outcomes for {case_count} cases",
            texts.len()
        )));
    }
    let output = crate::report::text::cut(&head.output, caps::MAX_OUTPUT_CHARS);
    let mut total = output.len();
    let mut admissions = Vec::with_capacity(case_count);
    for text in &texts {
        let (admission, bytes) = match admitted::recall(text) {
            Some(a) => (Admission::Known(a.text), a.bytes),
            None => {
                let capped = capped_outcome(text);
                let bytes = caps::outcome_bytes(&capped);
                (Admission::Capped(capped), bytes)
            }
        };
        total += bytes;
        if let Some(why) = caps::over_total(total) {
            return Err(RecordError::TooLarge(why));
        }
        admissions.push((admission, bytes));
    }
    // Values are decoded only once the submission is known to fit.
    let outcomes = admissions
        .into_iter()
        .zip(&texts)
        .map(|((admission, bytes), text)| match admission {
            Admission::Known(kept) => kept,
            Admission::Capped(capped) => {
                let kept = match caps::check_outcome(&capped) {
                    Ok(()) => outcome_text(&capped),
                    Err(_) => outcome_text(&CRASHED),
                };
                let a = admitted::Admitted {
                    text: kept.into(),
                    bytes,
                };
                admitted::remember(text, &a);
                a.text
            }
        })
        .collect();
    let integrity = head
        .integrity
        .into_iter()
        .take(crate::integrity::MAX_FINDINGS)
        .map(|s| crate::integrity::Finding {
            source: crate::integrity::Source::Runtime,
            kind: s.kind,
            line: None,
            what: s.what,
        })
        .collect();
    Ok(Parsed {
        outcomes,
        output,
        integrity,
        pyc: head.pyc,
    })
}

/// Whether `pyc` is a compiled `main.py` as the harness reports one:
/// lowercase hex, whole bytes, within [`limits::PYC_HEX_CHARS`].
fn is_pyc_hex(pyc: &str) -> bool {
    !pyc.is_empty()
        && pyc.len() <= limits::PYC_HEX_CHARS
        && pyc.len() % 2 == 0
        && pyc.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A reply's outcomes in the harness's order, before they are matched to cases.
struct Parsed {
    /// Each outcome as the store keeps it.
    outcomes: Vec<Arc<str>>,
    output: String,
    integrity: Vec<crate::integrity::Finding>,
    pyc: Option<String>,
}

/// One outcome text on its way through [`parse_reply`].
enum Admission {
    /// Admitted before (see [`admitted`]): the outcome as the store keeps it.
    Known(Arc<str>),
    /// Parsed and capped now; its value is decoded once the whole
    /// submission is known to fit.
    Capped(CaseOutcome),
}

/// What an outcome the harness cannot vouch for is graded as.
const CRASHED: CaseOutcome = CaseOutcome::Crashed {
    exit_code: None,
    signal: None,
};

/// One outcome as the child wrote it; None when it is not a valid outcome.
fn parse_outcome(text: &str) -> Option<CaseOutcome> {
    if super::store::nesting(text.as_bytes()) > 1024 {
        return None;
    }
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let outcome: CaseOutcome = serde::Deserialize::deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(outcome)
}

/// One outcome text parsed and capped ([`caps::cap_outcome`]): what the
/// submission's total counts; a crash when it is not a valid outcome.
fn capped_outcome(text: &str) -> CaseOutcome {
    parse_outcome(text)
        .and_then(|o| caps::cap_outcome(o).ok())
        .unwrap_or(CRASHED)
}

#[cfg(test)]
mod tests {
    //! The case-subset API: only the chosen cases run, visible before
    //! hidden, and a subset without hidden cases never asks for their inputs.
    use super::*;
    use crate::corpus::{Case, Corpus, Visibility};
    use crate::value::PyValue;

    fn corpus(cases: &[(&str, bool)]) -> Corpus {
        let cases = cases
            .iter()
            .map(|&(name, hidden)| Case {
                id: format!("parse_contract_json/{name}"),
                name: name.to_string(),
                lesson: "test".into(),
                checkpoint: "parse_contract_json".into(),
                call: "parse_contract_json(...)".into(),
                args: vec![PyValue::str(name)],
                kwargs: Vec::new(),
                lets: Vec::new(),
                tags: vec!["valid".into()],
                visibility: if hidden {
                    Visibility::Hidden
                } else {
                    Visibility::Visible
                },
                weight: 1,
                expect: None,
                note: None,
                file: PathBuf::from("test.toml"),
                line: 1,
            })
            .collect();
        Corpus {
            root: PathBuf::from("cases"),
            lessons: Vec::new(),
            cases,
            fingerprint: "test".into(),
            settings: Default::default(),
            selection: None,
        }
    }

    /// Each call returns its input and every input this process has seen;
    /// an input starting with "crash" ends the process.
    const SOURCE: &str = "import os\nSEEN = []\n\
        def parse_contract_json(s):\n    SEEN.append(s)\n    \
        if s.startswith('crash'):\n        os._exit(3)\n    return [s, list(SEEN)]\n";

    fn ran(reply: &Reply, corpus: &Corpus) -> Vec<(String, serde_json::Value)> {
        reply
            .outcomes
            .iter()
            .map(|(i, o)| {
                let o: CaseOutcome = serde_json::from_str(o).unwrap();
                let got = match o {
                    CaseOutcome::Returned { value, .. } => value.to_json().unwrap(),
                    CaseOutcome::Crashed { .. } => serde_json::json!("crashed"),
                    other => panic!("unexpected outcome {other:?}"),
                };
                (corpus.cases[*i].name.clone(), got)
            })
            .collect()
    }

    /// Runs a harness self-check script (`check`) with `source` on its
    /// stdin, under the grader's interpreter; it prints "ok ..." when it holds.
    fn python_check(check: &str, source: &str) {
        use std::io::Write;
        let python = sandbox::Python::find(None).unwrap();
        let mut child = std::process::Command::new(&python.executable)
            .args(["-s", "-S", "-c", check])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(source.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.starts_with("ok "),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// `plain_json` writes exactly what the general encoder writes wherever
    /// it answers, and `object_hook` builds exactly what `decode` builds, on
    /// seeded hostile values (every kind, subclasses, surrogates, cycles,
    /// the depth and size caps).
    #[test]
    fn the_tagged_fast_paths_agree_with_the_general_ones() {
        python_check(include_str!("harness/tagged_check.py"), &check_input());
    }

    #[test]
    fn the_supervisor_reads_case_lines_in_one_pass_as_it_reads_them_one_by_one() {
        python_check(include_str!("harness/lines_check.py"), &check_input());
    }

    #[test]
    fn a_child_reads_its_job_exactly_and_refuses_a_broken_one() {
        python_check(include_str!("harness/job_check.py"), &check_input());
    }

    #[test]
    fn the_supervisor_never_blocks_giving_a_child_its_hidden_inputs() {
        python_check(include_str!("harness/hidden_check.py"), &check_input());
    }

    /// A change to the sandbox's rules (confine.py) redoes stored outcomes
    /// as a change to the harness does: every Python source in
    /// `harness/` but the tests' is hashed into the harness version.
    #[test]
    fn the_harness_version_covers_every_source_the_harness_runs() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/record/harness");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !name.ends_with(".py") || name.ends_with("_check.py") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(
                HARNESS_SOURCES.contains(&text.as_str()),
                "{name} runs in the harness but is not in HARNESS_SOURCES"
            );
            seen += 1;
        }
        assert_eq!(
            seen,
            HARNESS_SOURCES.len(),
            "a source in HARNESS_SOURCES is not in {dir:?}"
        );
    }

    /// The seccomp filters alone keep a child off other processes (its
    /// supervisor, the zygote, other workers, the grader) and, under the
    /// landlock tier, off the host's UNIX sockets: no Landlock ABI or uid of
    /// its own needed, and the same calls on itself still work.
    #[test]
    fn a_child_cannot_reach_another_process_or_a_host_socket() {
        python_check(include_str!("harness/confine_check.py"), CONFINE_PY);
    }

    #[test]
    fn a_subset_runs_exactly_its_cases_visible_first() {
        use serde_json::json;
        // Corpus order interleaves visible (v*) and hidden (h*) cases.
        let corpus = corpus(&[
            ("v0", false),
            ("h0", true),
            ("v1", false),
            ("crash-v2", false),
            ("h1", true),
            ("v3", false),
            ("crash-h2", true),
            ("h3", true),
        ]);
        let inputs = crate::record::case_inputs(&corpus);
        let python = sandbox::Python::find(None).unwrap();
        let setup = Setup {
            isolation: Isolation::Rlimits,
            python,
            must_not_read: Vec::new(),
            limits: Limits {
                case_timeout: Duration::from_secs(5),
                wall: Duration::from_secs(60),
                memory_bytes: limits::MEMORY_BYTES,
                file_bytes: limits::FILE_BYTES,
                open_files: limits::OPEN_FILES,
                processes: limits::PROCESSES,
                workers: 1,
            },
            inputs,
        };
        let lease = sandbox::lease_uid().unwrap();
        let mut w = Worker::start(&setup, lease.as_ref()).unwrap();
        let src = SOURCE.as_bytes();

        // Visible cases only: the hidden inputs are never asked for.
        let reply = w.record(src, None, &setup.inputs, Some(&[5, 0])).unwrap();
        assert_eq!(
            ran(&reply, &corpus),
            vec![
                ("v0".into(), json!(["v0", ["v0"]])),
                ("v3".into(), json!(["v3", ["v0", "v3"]])),
            ]
        );
        assert_eq!(w.hidden_requests(), 0);

        // Visible before hidden, corpus order within each, duplicates once,
        // a crash in either part restarting at the next chosen case.
        let only = [7, 3, 1, 6, 0, 7, 2];
        let reply = w.record(src, None, &setup.inputs, Some(&only)).unwrap();
        assert_eq!(
            ran(&reply, &corpus),
            vec![
                ("v0".into(), json!(["v0", ["v0"]])),
                ("v1".into(), json!(["v1", ["v0", "v1"]])),
                ("crash-v2".into(), json!("crashed")),
                ("h0".into(), json!(["h0", ["h0"]])),
                ("crash-h2".into(), json!("crashed")),
                ("h3".into(), json!(["h3", ["h3"]])),
            ]
        );
        assert_eq!(w.hidden_requests(), 1);

        // Hidden cases only, then every case: the worker answers in step.
        let reply = w.record(src, None, &setup.inputs, Some(&[4])).unwrap();
        assert_eq!(
            ran(&reply, &corpus),
            vec![("h1".into(), json!(["h1", ["h1"]]))]
        );
        assert_eq!(w.hidden_requests(), 2);
        let reply = w.record(src, None, &setup.inputs, None).unwrap();
        let order: Vec<usize> = reply.outcomes.iter().map(|(i, _)| *i).collect();
        assert_eq!(order, vec![0, 2, 3, 5, 1, 4, 6, 7]);
        assert_eq!(w.hidden_requests(), 3);
        // Every case again: the supervisor keeps every hidden input it
        // prepared for the first such job, and the outcomes are the same.
        let again = w.record(src, None, &setup.inputs, None).unwrap();
        assert_eq!(ran(&again, &corpus), ran(&reply, &corpus));
        assert_eq!(w.hidden_requests(), 3);
        // A subset still gets only its own (asked for again).
        let reply = w.record(src, None, &setup.inputs, Some(&[4])).unwrap();
        assert_eq!(
            ran(&reply, &corpus),
            vec![("h1".into(), json!(["h1", ["h1"]]))]
        );
        assert_eq!(w.hidden_requests(), 4);

        // An empty subset runs nothing; an index past the corpus is refused.
        let reply = w.record(src, None, &setup.inputs, Some(&[])).unwrap();
        assert!(reply.outcomes.is_empty());
        assert!(w.record(src, None, &setup.inputs, Some(&[8])).is_err());
        assert_eq!(w.hidden_requests(), 4);
    }
}

#[cfg(test)]
mod admitted_tests {
    //! A text admitted before is admitted the same again: the memo changes cost,
    //! never an outcome.
    use super::*;

    /// A returned outcome whose value holds `value`, with a mark no other
    /// test's text has: the memo serves the whole process, and these texts
    /// must be admitted here first.
    fn returned(value: &str) -> String {
        format!(
            "{{\"kind\":\"returned\",\"value\":[{value},\"admitted-test\"],\"shares_with_args\":false,\"args_changed\":false}}"
        )
    }

    fn texts() -> Vec<String> {
        let long = "m".repeat(3 * caps::MAX_MESSAGE_CHARS);
        vec![
            returned("[1,\"a\",{\"k\":null}]"),
            returned("{\"$int\":\"123456789012345678901234567890\"}"),
            returned("{\"$nope\":1}"),
            returned("{\"a\":{\"$nope\":1},\"a\":2}"),
            returned("1e400"),
            returned("{\"$str\":[55296]}"),
            returned("{\"$dict\":[[[1],2]]}"),
            "{\"kind\":\"returned\",\"value\":[\"admitted-test\",".to_string(),
            format!("{{\"kind\":\"raised\",\"class\":\"ValueError\",\"mro\":[\"ValueError\",\"Exception\",\"BaseException\",\"object\"],\"message\":\"{long}\"}}"),
            "{\"kind\":\"raised\",\"class\":\"\",\"mro\":[],\"message\":\"\"}".to_string(),
            "{\"kind\":\"timeout\",\"seconds\":2.0}".to_string(),
            "{\"kind\":\"missing\"}".to_string(),
            "{\"kind\":\"nonsense\"}".to_string(),
            returned("{\"$nope\":1}"),
        ]
    }

    fn reply(texts: &[String]) -> String {
        format!(
            "{{\"n\":{},\"output\":\"\",\"integrity\":[]}}\t{}\n",
            texts.len(),
            texts.join("\t")
        )
    }

    fn outcomes(line: &str, n: usize) -> Vec<CaseOutcome> {
        match parse_reply(line, n) {
            Ok(p) => p
                .outcomes
                .iter()
                .map(|t| serde_json::from_str(t).unwrap())
                .collect(),
            Err(e) => panic!("{e}"),
        }
    }

    /// A submission over the total is refused even when every one of its
    /// texts was admitted before: a kept text counts its full size.
    #[test]
    fn a_text_admitted_before_counts_its_full_size() {
        let text = returned(&format!("\"{}\"", "counted".repeat(260)));
        outcomes(&reply(std::slice::from_ref(&text)), 1);
        assert!(
            admitted::recall(&text).is_some(),
            "kept: {} bytes",
            text.len()
        );
        let capped = capped_outcome(&text);
        assert!(matches!(capped, CaseOutcome::Returned { .. }));
        let n = caps::MAX_SUBMISSION_BYTES / caps::outcome_bytes(&capped) + 1;
        let many = vec![text; n];
        match parse_reply(&reply(&many), n) {
            Err(RecordError::TooLarge(_)) => {}
            Ok(_) => panic!("{n} outcomes admitted"),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn a_text_admitted_before_is_admitted_the_same() {
        let texts = texts();
        let line = reply(&texts);
        let n = texts.len();
        let cold = outcomes(&line, n);
        let warm = outcomes(&line, n);
        let kept: Vec<Option<(CaseOutcome, usize)>> = texts
            .iter()
            .map(|t| admitted::recall(t).map(|a| (serde_json::from_str(&a.text).unwrap(), a.bytes)))
            .collect();
        assert_eq!(cold, warm);
        let crashed = |i: usize| matches!(cold[i], CaseOutcome::Crashed { .. });
        // Admitted as the grader always has: bad values and texts are crashes,
        // a duplicate key's dropped value is never decoded, messages are cut.
        assert!(!crashed(0) && !crashed(1) && !crashed(3) && !crashed(5));
        assert!(crashed(2) && crashed(4) && crashed(6) && crashed(7) && crashed(9));
        assert!(crashed(12) && crashed(13));
        match &cold[8] {
            CaseOutcome::Raised { message, .. } => {
                assert!(message.chars().count() <= caps::MAX_MESSAGE_CHARS + 64)
            }
            other => panic!("{other:?}"),
        }
        // A kept text is kept as graded; what it counts toward the
        // submission's total is the outcome it was capped to, even for a
        // value that does not decode (then graded as a crash).
        for (i, text) in texts.iter().enumerate() {
            let Some((outcome, bytes)) = &kept[i] else {
                continue;
            };
            assert_eq!(outcome, &cold[i]);
            assert_eq!(*bytes, caps::outcome_bytes(&capped_outcome(text)), "{text}");
        }
        match &kept[2] {
            Some((CaseOutcome::Crashed { .. }, bytes)) => {
                assert!(*bytes > caps::outcome_bytes(&CRASHED))
            }
            other => panic!("{other:?}"),
        }
        // Too long to keep.
        assert!(kept[8].is_none());
    }
}
