//! One worker: a long-lived pre-forked harness process (the "zygote") that
//! records one submission per request, talking JSON lines over its
//! stdin/stdout.

use super::caps;
use super::cgroup::MemoryCgroup;
use super::format::CaseOutcome;
use super::sandbox::{self, Isolation, Python, Scratch, UidLease};
use super::RecordError;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The harness, embedded in the binary.
pub const HARNESS_PY: &str = include_str!("harness/harness.py");
/// The Python half of the tagged-JSON codec, sent to the harness at start.
pub const TAGGED_PY: &str = include_str!("harness/tagged.py");
/// The landlock tier's Landlock domain and seccomp filter, sent likewise.
pub const CONFINE_PY: &str = include_str!("harness/confine.py");

/// Limits every child runs under.
#[derive(Clone, Debug)]
pub struct Limits {
    pub case_timeout: Duration,
    pub wall: Duration,
    pub memory_bytes: u64,
    pub file_bytes: u64,
    pub open_files: u64,
    pub processes: u64,
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
    pub outcomes: Vec<CaseOutcome>,
    pub output: String,
    /// What the supervisor saw that only a submission reaching into the
    /// harness does (runtime integrity findings), capped.
    pub integrity: Vec<crate::integrity::Finding>,
}

/// A running harness process.
pub struct Worker {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<std::io::Result<String>>,
    stderr_tail: Arc<Mutex<Vec<u8>>>,
    case_count: usize,
    reply_limit: Duration,
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
    #[serde(default)]
    zygote_unreachable: bool,
    #[serde(default)]
    landlock: Option<LandlockHeld>,
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
        // Under bwrap and rlimits: the scope-only Landlock domain, if any.
        let scoped = match (&t.landlock, t.zygote_unreachable) {
            (Some(held), true) => format!(
                ", Landlock ABI {} scope ({})",
                held.landlock_abi,
                held.rules.join(", ")
            ),
            (Some(held), false) => format!(
                ", Landlock ABI {} scope ({}; signals NOT scoped)",
                held.landlock_abi,
                held.rules.join(", ")
            ),
            (None, true) => String::new(),
            (None, false) => {
                ", supervisor NOT protected (no uid of its own, no Landlock)".to_string()
            }
        };
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
                let signals = if t.zygote_unreachable {
                    ""
                } else {
                    "; signals NOT scoped (Landlock ABI below 6 and no uid of its own)"
                };
                Ok(format!(
                    "landlock: ABI {} ({}){own_uid}{signals}",
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
        let cgroup = MemoryCgroup::create(2 * setup.limits.memory_bytes);
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
        let limits = &setup.limits;
        let wall = limits.wall.as_secs_f64();
        let head = serde_json::json!({
            "uid": uid,
            "gid": uid,
            "scratch": inner_scratch.to_string_lossy(),
            "timeout": limits.case_timeout.as_secs_f64(),
            "wall": wall,
            "limits": {
                "as": limits.memory_bytes,
                "cpu": wall.ceil() as u64 + 1,
                "fsize": limits.file_bytes,
                "nofile": limits.open_files,
                "nproc": limits.processes,
                "core": 0,
            },
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
            case_count: setup.inputs.order.len(),
            reply_limit: limits.wall + Duration::from_secs(30),
            sandbox: String::new(),
            _scratch: scratch,
            cgroup: cgroup.ok(),
        };
        worker.send(init.as_bytes())?;
        let ready = worker.receive(Duration::from_secs(60))?;
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

    /// Records one submission's source; one outcome per case, in the
    /// harness's order (visible cases, then hidden ones). `hidden` (the
    /// hidden cases' inputs) is sent only when the supervisor asks for it,
    /// once every visible case is answered.
    pub fn record(&mut self, source: &[u8], hidden: &str) -> Result<Reply, RecordError> {
        let job = format!("job\n{{\"source_hex\":\"{}\"}}\n", hex::encode(source));
        self.send(job.as_bytes())?;
        let mut line = self.receive(self.reply_limit)?;
        if line.trim_end() == HIDDEN_REQUEST {
            self.send(format!("{hidden}\n").as_bytes())?;
            line = self.receive(self.reply_limit)?;
        }
        parse_reply(&line, self.case_count)
    }

    /// Records the cases `only` names (corpus indices; `None`: all) and
    /// returns `(corpus index, outcome)` pairs.
    pub fn record_cases(
        &mut self,
        source: &[u8],
        inputs: &super::Inputs,
        only: Option<&[usize]>,
    ) -> Result<IndexedReply, RecordError> {
        let reply = self.record(source, &inputs.hidden)?;
        let wanted = |i: &usize| only.map_or(true, |o| o.binary_search(i).is_ok());
        Ok(IndexedReply {
            outcomes: inputs
                .order
                .iter()
                .copied()
                .zip(reply.outcomes)
                .filter(|(i, _)| wanted(i))
                .collect(),
            output: reply.output,
            integrity: reply.integrity,
        })
    }
}

/// A [`Reply`] whose outcomes say which case (corpus index) they answer.
pub struct IndexedReply {
    pub outcomes: Vec<(usize, CaseOutcome)>,
    pub output: String,
    pub integrity: Vec<crate::integrity::Finding>,
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

/// Parses the harness's answer. An outcome the harness could not vouch for
/// (a student writing garbage into its own result channel) becomes
/// `crashed`; each goes through [`caps::admit_outcome`], and a submission
/// whose outcomes exceed [`caps::MAX_SUBMISSION_BYTES`] is refused
/// ([`RecordError::TooLarge`], not the grader's fault). The outcomes are
/// read one at a time from the line, never as one tree.
fn parse_reply(line: &str, case_count: usize) -> Result<Reply, RecordError> {
    use serde_json::value::RawValue;
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Raw<'a> {
        #[serde(borrow)]
        outcomes: Vec<&'a RawValue>,
        output: String,
        #[serde(default)]
        error: Option<String>,
        #[serde(default)]
        integrity: Vec<Seen>,
    }
    /// One thing the supervisor saw (`kind`, `what`), student-shaped text.
    #[derive(serde::Deserialize)]
    struct Seen {
        kind: String,
        what: String,
    }
    let harness = |why: String| RecordError::Harness(why);
    if super::store::nesting(line.as_bytes()) > 4096 {
        return Err(harness("the harness answered JSON nested too deep".into()));
    }
    let mut de = serde_json::Deserializer::from_str(line);
    de.disable_recursion_limit();
    let raw: Raw = serde::Deserialize::deserialize(&mut de)
        .map_err(|e| harness(format!("the harness answered malformed JSON: {e}")))?;
    if let Some(error) = raw.error {
        return Err(harness(error));
    }
    if raw.outcomes.len() != case_count {
        return Err(harness(format!(
            "the harness answered {} outcomes for {case_count} cases",
            raw.outcomes.len()
        )));
    }
    let output = crate::report::text::cut(&raw.output, caps::MAX_OUTPUT_CHARS);
    let mut total = output.len();
    let mut outcomes = Vec::with_capacity(case_count);
    for raw in raw.outcomes {
        let parsed = match serde_json::from_str::<String>(raw.get()) {
            // What the child reported, passed on unparsed by the supervisor.
            Ok(text) => parse_outcome(&text),
            // What the supervisor decided (timeout, crashed).
            Err(_) => serde_json::from_str::<CaseOutcome>(raw.get()).ok(),
        };
        let outcome = parsed
            .and_then(|o| caps::cap_outcome(o).ok())
            .unwrap_or(CRASHED);
        total += caps::outcome_bytes(&outcome);
        if let Some(why) = caps::over_total(total) {
            return Err(RecordError::TooLarge(why));
        }
        outcomes.push(outcome);
    }
    // Values are decoded only once the submission is known to fit.
    for outcome in &mut outcomes {
        if caps::check_outcome(outcome).is_err() {
            *outcome = CRASHED;
        }
    }
    let integrity = raw
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
    Ok(Reply {
        outcomes,
        output,
        integrity,
    })
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
