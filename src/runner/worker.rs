//! One worker: a long-lived pre-forked harness process (the "zygote") that
//! records one submission per request, talking the wire protocol
//! ([`super::protocol`]) over its stdin/stdout: its start, its lines, its
//! failures and its end.

use super::admission;
use super::cgroup::MemoryCgroup;
use super::harness::BOOT_PY;
use super::inputs::Inputs;
use super::limits;
use super::oom::{self, OomWatch};
use super::plan::Plan;
use super::protocol::{self, Hello, HIDDEN_REQUEST};
use super::sandbox::{self, Isolation, Python, Scratch, UidLease};
use super::self_test::Ready;
use super::setup::Setup;
use super::{HarnessError, ProcessFailure, RecordError, SandboxError};
use crate::recording::format::MemoryScope;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::AsFd;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
    /// `None` once [`Worker::stop`] closed it.
    stdin: Option<ChildStdin>,
    lines: Receiver<std::io::Result<String>>,
    stderr_tail: Arc<Mutex<Vec<u8>>>,
    /// Disconnected once the harness's stderr is at its end.
    stderr_ended: Receiver<()>,
    reply_limit: Duration,
    /// The next job is the last (see [`Worker::last_job`]).
    last_job: bool,
    /// How often the harness asked for hidden inputs (tests).
    hidden_requests: usize,
    /// What the sandbox's self-test found held, as reports say it.
    pub sandbox: String,
    /// Removed by [`Worker::stop`], else dropped after the process is killed.
    scratch: Option<Scratch>,
    /// Removed after the process is killed (fields drop after `drop`).
    cgroup: Option<MemoryCgroup>,
    /// Where the OOM kills of the harness's processes are counted (its
    /// cgroup's, else this process's), when the kernel counts them.
    oom: Option<OomWatch>,
    /// RLIMIT_AS of a child: what a `MemoryError` ran out of.
    memory_bytes: u64,
}

const STDERR_TAIL: usize = 4096;

/// The zygote's last line when nothing of the worker uid is left as it ends
/// (see `harness/zygote.py`, where it is ENDED_CLEAN too).
pub const ENDED_CLEAN: &str = "autograder zygote: nothing of the worker uid is left\n";

/// A harness process started ([`Worker::spawn`]) but not yet sent its init
/// line; killed when dropped.
pub struct Spawned {
    worker: Worker,
    isolation: Isolation,
    python: Python,
    memory_bytes: u64,
    /// The uid its student code runs as, once [`Spawned::leased`].
    uid: Option<u32>,
    /// Nothing of that uid can be left ([`UidLease::take_clean`]): its
    /// start need not reap the uid's leftovers.
    reaped: bool,
    /// The scratch folder as the harness sees it.
    inner_scratch: std::path::PathBuf,
    /// When its process was started (the monotonic clock's seconds).
    spawned: f64,
    /// Its first line, once read ([`Spawned::hello`]).
    hello: Option<Hello>,
    /// Where the programs it compiles are kept for later runs.
    code_cache: Option<std::path::PathBuf>,
    /// The write end of the pipe its first child reads a source on
    /// ([`super::early_source`]), until [`Spawned::init`].
    early_source: Option<std::os::fd::OwnedFd>,
}

impl Spawned {
    /// Runs student code as `lease`'s uid (None: as the grader's user).
    /// Nothing in the harness depends on it before its init line, so the
    /// lease (its name service lookups take ~1 ms) can be taken while the
    /// interpreter starts.
    pub fn leased(mut self, lease: Option<&UidLease>) -> Spawned {
        self.uid = lease.map(|l| l.uid);
        self.reaped = lease.is_some_and(UidLease::take_clean);
        self
    }

    /// Whether it was started as a worker of `setup` is, as `uid`.
    pub fn fits(&self, setup: &Setup, uid: Option<u32>) -> bool {
        self.isolation == setup.isolation
            && self.python == setup.python
            && self.memory_bytes == setup.limits.memory_bytes
            && self.uid == uid
    }

    /// The harness's first line: its interpreter's facts and, started in
    /// bwrap, whether bwrap's check passed in its sandbox (read once).
    pub fn hello(&mut self) -> Result<&Hello, RecordError> {
        if self.hello.is_none() {
            let line = self.worker.receive(limits::READY_WAIT)?;
            match serde_json::from_str::<Hello>(line.trim()) {
                Ok(hello) if hello.hello => self.hello = Some(hello),
                _ => return Err(self.worker.failure(ProcessFailure::DidNotStart)),
            }
        }
        Ok(self.hello.as_ref().expect("read above"))
    }

    /// The interpreter it runs, as settled from its [`Spawned::hello`].
    pub fn settled(&mut self, python: Python) {
        self.python = python;
    }

    /// Sends the init line and waits until the harness has imported
    /// everything, checked the cases and passed its sandbox self-test.
    /// `source_ahead`: the source its first job will most likely run,
    /// which its first child then compiles ahead ([`super::early_source`]).
    pub fn init(
        mut self,
        setup: &Setup,
        source_ahead: Option<&[u8]>,
    ) -> Result<Worker, RecordError> {
        self.hello()?;
        let Spawned {
            mut worker,
            uid,
            reaped,
            inner_scratch,
            spawned,
            code_cache,
            early_source,
            ..
        } = self;
        // Before the init line: the first child is forked after it.
        if let Some(write) = early_source {
            super::early_source::send(write, source_ahead);
        }
        worker.reply_limit = limits::reply_wait(setup.limits.wall);
        let init = crate::timings::span("init line built", || {
            protocol::init_line(setup, uid, reaped, &inner_scratch)
        })
        .map_err(HarnessError::Init)?;
        worker.send(&init)?;
        let ready = worker.receive(limits::READY_WAIT)?;
        let mut ready: Ready = match serde_json::from_str(ready.trim()) {
            Ok(r) => r,
            Err(_) => return Err(worker.failure(ProcessFailure::DidNotStart)),
        };
        ready.record_steps(spawned);
        if let (Some(dir), Some(compiled)) = (&code_cache, ready.compiled()) {
            // A cache that cannot be written costs the next run its compile.
            let _ = crate::timings::span("compiled programs cached", || {
                super::compiled::store(dir, &setup.python.executable, &compiled)
            });
        }
        worker.oom = match (&worker.cgroup, ready.cgroup_error()) {
            (Some(cg), None) => OomWatch::worker(cg),
            _ => OomWatch::own(),
        };
        let mut memory = match (&worker.cgroup, ready.cgroup_error()) {
            (Some(cg), None) => cg.describe.clone(),
            (Some(_), Some(why)) => format!("memory: per process only ({why})"),
            (None, _) => "memory: per process only (no cgroup here)".to_string(),
        };
        if let Some(limit) = worker.oom.as_ref().map(OomWatch::limit) {
            if limit.of == MemoryScope::Grader {
                let mib = limit.bytes >> 20;
                memory.push_str(&format!(", {mib} MiB for the grader's container or job"));
            }
        }
        worker.sandbox = format!("{}; {memory}", ready.check(setup, uid)?);
        Ok(worker)
    }
}

impl Worker {
    /// Starts the harness and waits until it has imported everything and
    /// checked the cases.
    pub fn start(
        setup: &Setup,
        lease: Option<&UidLease>,
        source_ahead: Option<&[u8]>,
    ) -> Result<Worker, RecordError> {
        Worker::spawn(
            setup.isolation,
            &setup.python,
            setup.limits.memory_bytes,
            lease.is_some(),
            setup.warm,
            setup.code_cache.as_deref(),
        )?
        .leased(lease)
        .init(setup, source_ahead)
    }

    /// Starts the harness's process in `isolation` with `python`, its
    /// processes' memory bounded by [`limits::cgroup_bytes`] of
    /// `memory_bytes`, running student code as a uid of its own when
    /// `leased` (the caller's lease, given with [`Spawned::leased`] before
    /// its init line; its scratch is made for it): it says hello
    /// ([`Spawned::hello`]), imports what it warms (with `warm`), compiles
    /// its programs (sent here; or loads them as compiled by an earlier run,
    /// from `code_cache`, where they are kept) and waits for its init line
    /// ([`Spawned::init`]).
    pub fn spawn(
        isolation: Isolation,
        python: &Python,
        memory_bytes: u64,
        leased: bool,
        warm: bool,
        code_cache: Option<&std::path::Path>,
    ) -> Result<Spawned, RecordError> {
        let scratch = match isolation.host_scratch() {
            false => None,
            true => Some(Scratch::create(leased)?),
        };
        let host_scratch = scratch
            .as_ref()
            .map(|s| s.path.clone())
            .unwrap_or_else(std::env::temp_dir);
        // A submission's total memory: twice what one of its processes may
        // map, for the worker's processes together, where a cgroup can be made.
        let cgroup = crate::timings::span("cgroup made", || {
            MemoryCgroup::create(limits::cgroup_bytes(memory_bytes))
        });
        // Held open until the harness is spawned, which inherits it; a
        // cgroup it cannot be handed is no cgroup.
        let procs = cgroup.as_ref().ok().and_then(|cg| cg.open_procs().ok());
        let cgroup = cgroup.ok().filter(|_| procs.is_some());
        // Written (or only closed) with the init line: Spawned::init.
        let early_source = super::early_source::pipe().ok();
        let (mut cmd, inner_scratch) = sandbox::harness_command(
            isolation,
            &host_scratch,
            python,
            sandbox::Handed {
                cgroup: procs.as_ref().map(|fd| fd.as_fd()),
                early_source: early_source.as_ref().map(|(read, _)| read.as_fd()),
            },
        )?;
        let bwrap_check = match isolation {
            Isolation::Bwrap => sandbox::BWRAP_CHECK,
            Isolation::Landlock | Isolation::Rlimits => "",
        };
        cmd.arg("-c")
            .arg(BOOT_PY)
            .arg(if warm { "warm" } else { "cold" })
            .arg(sandbox::PROBE)
            .arg(bwrap_check)
            .arg(match procs {
                Some(_) => super::cgroup::CGROUP_FD.to_string(),
                None => String::new(),
            })
            .arg(match early_source {
                Some(_) => super::early_source::EARLY_SOURCE_FD.to_string(),
                None => String::new(),
            })
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let spawned = crate::timings::now();
        let mut child = cmd.spawn().map_err(|source| SandboxError::Spawn {
            python: python.executable.clone(),
            source,
        })?;
        drop(procs);
        let early_source = early_source.map(|(_, write)| write);
        let mut stdin = child.stdin.take().ok_or(HarnessError::NoPipe("stdin"))?;
        // The boot data and the programs line fit the pipe: written now,
        // they never wait for the harness to read them (a smaller pipe only
        // makes this wait).
        let cached = code_cache.and_then(|dir| super::compiled::load(dir, &python.executable));
        let mut first = protocol::boot_message(cached.as_ref());
        first.extend_from_slice(&protocol::programs_message(code_cache.is_some()));
        grow_pipe(&stdin, first.len());
        let wrote = stdin.write_all(&first).and_then(|_| stdin.flush());
        let stdout = child.stdout.take().ok_or(HarnessError::NoPipe("stdout"))?;
        // An answer (or a part) is up to a few hundred KiB: held whole by
        // the pipe, the supervisor writes it without waiting for each read
        // here, and one read takes it.
        grow_pipe(&stdout, ANSWER_BYTES);
        let stderr = child.stderr.take().ok_or(HarnessError::NoPipe("stderr"))?;
        let stderr_tail = Arc::new(Mutex::new(Vec::new()));
        let (stderr_open, stderr_ended) = mpsc::channel();
        spawn_stderr_reader(stderr, stderr_tail.clone(), stderr_open);
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::with_capacity(ANSWER_BYTES, stdout);
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
        let mut worker = Worker {
            child,
            stdin: Some(stdin),
            lines,
            stderr_tail,
            stderr_ended,
            hidden_requests: 0,
            reply_limit: limits::READY_WAIT,
            last_job: false,
            sandbox: String::new(),
            scratch,
            cgroup,
            oom: None,
            memory_bytes,
        };
        if let Err(e) = wrote {
            return Err(worker.failure(ProcessFailure::Write(e)));
        }
        Ok(Spawned {
            worker,
            isolation,
            python: python.clone(),
            memory_bytes,
            uid: None,
            reaped: false,
            inner_scratch,
            spawned,
            hello: None,
            code_cache: code_cache.map(|d| d.to_path_buf()),
            early_source,
        })
    }

    fn send(&mut self, bytes: &[u8]) -> Result<(), RecordError> {
        let res = match self.stdin.as_mut() {
            Some(stdin) => stdin.write_all(bytes).and_then(|_| stdin.flush()),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        };
        res.map_err(|e| self.failure(ProcessFailure::Write(e)))
    }

    fn receive(&mut self, limit: Duration) -> Result<String, RecordError> {
        match self.lines.recv_timeout(limit) {
            Ok(Ok(line)) => Ok(line),
            Ok(Err(e)) => Err(self.failure(ProcessFailure::Read(e))),
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                Err(self.failure(ProcessFailure::Timeout))
            }
            Err(RecvTimeoutError::Disconnected) => Err(self.failure(ProcessFailure::Stopped)),
        }
    }

    fn failure(&mut self, what: ProcessFailure) -> RecordError {
        let status = self.child.try_wait().ok().flatten();
        // A dying harness's last words: its stderr up to its end, or
        // what came within a moment when it is still open (a process it
        // left holds it).
        let _ = self.stderr_ended.recv_timeout(Duration::from_millis(20));
        let stderr = self
            .stderr_tail
            .lock()
            .map(|t| String::from_utf8_lossy(&t).trim().to_string())
            .unwrap_or_default();
        HarnessError::Process {
            what,
            status,
            stderr,
        }
        .into()
    }

    /// Stops the harness once it has done what it does after its last
    /// answer (its supervisor removes what that submission left, or for a
    /// [`Worker::last_job`] kills what it left running and leaves its files
    /// to the scratch's removal): its stdin is closed, and its supervisor
    /// ends when it reads that end; then its zygote kills whatever is left
    /// below it and ends (under bwrap, the sandbox with it). Whatever is
    /// left of it is killed (as on drop) once its stdout and stderr have
    /// closed (or a line came: none is its to write now), or after
    /// [`limits::STOP_WAIT`] for each.
    ///
    /// Returns whether nothing of its uid is left: its zygote said so as it
    /// ended ([`ENDED_CLEAN`]), it exited 0 and its scratch folder is
    /// removed ([`UidLease::mark_clean`]).
    pub fn stop(mut self) -> bool {
        use mpsc::RecvTimeoutError::Disconnected;
        drop(self.stdin.take());
        // Disconnected: its stdout closed (the supervisor ended).
        let out_ended = matches!(
            self.lines.recv_timeout(limits::STOP_WAIT),
            Err(Disconnected)
        );
        // Its stderr closes as the zygote ends, once it has killed whatever
        // was left below it: not killed before that, or what it had not
        // killed yet would outlive the recording (under bwrap, the sandbox's
        // processes would die only after the grader has gone on).
        let err_ended = matches!(
            self.stderr_ended.recv_timeout(limits::STOP_WAIT),
            Err(Disconnected)
        );
        let said = self
            .stderr_tail
            .lock()
            .is_ok_and(|t| t.ends_with(ENDED_CLEAN.as_bytes()));
        let exited = out_ended && err_ended && self.child.wait().is_ok_and(|s| s.success());
        let removed = self.scratch.take().map_or(true, |s| s.remove().is_ok());
        out_ended && err_ended && said && exited && removed
    }

    /// The next job recorded is this worker's last (it is stopped after
    /// it): its supervisor answers it and ends without removing the
    /// submission's files, where nothing of them can be anywhere but its
    /// folder, which goes with the worker's scratch (bwrap; landlock with a
    /// uid of its own); the child's leftover processes are killed as after
    /// any job.
    pub fn last_job(&mut self) {
        self.last_job = true;
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
    /// Outcomes the supervisor sends ahead of its answer are admitted as
    /// they come, and each shown to `ahead` (corpus index, outcome as the
    /// store keeps it) while the rest run; one its answer replaces was
    /// shown too.
    pub fn record(
        &mut self,
        source: &[u8],
        pyc: Option<&str>,
        inputs: &Inputs,
        only: Option<&[usize]>,
        ahead: Option<Ahead<'_>>,
    ) -> Result<Reply, RecordError> {
        let plan = Plan::new(inputs, only)?;
        let pyc = pyc.filter(|p| is_pyc_hex(p));
        let subset = plan
            .subset
            .as_ref()
            .map(|(visible, hidden)| (visible.as_slice(), hidden.len()));
        let job = protocol::job_lines(source, pyc, subset, &plan.groups, self.last_job);
        self.send(job.as_bytes())?;
        // Each process has the submission's wall budget: the reply may
        // take that long for each, with no line between.
        let reply_wait =
            self.reply_limit * u32::try_from(plan.groups.len().max(1)).unwrap_or(u32::MAX);
        let kills_before = self.oom.as_ref().and_then(OomWatch::kills);
        let mut admitting = admission::Admitting::new(plan.order.len());
        let mut hidden_sent = false;
        let line = loop {
            let line = self.receive(reply_wait)?;
            if !hidden_sent && line.trim_end() == HIDDEN_REQUEST {
                self.hidden_requests += 1;
                let hidden = match &plan.subset {
                    None if inputs.order.len() > inputs.visible_count => inputs.hidden_line(None),
                    Some((_, hidden)) if !hidden.is_empty() => inputs.hidden_line(Some(hidden)),
                    _ => return Err(self.failure(ProcessFailure::UnaskedHidden)),
                };
                self.send(hidden.as_bytes())?;
                hidden_sent = true;
                continue;
            }
            let Some(part) = protocol::read_part(&line) else {
                break line;
            };
            let (first, texts) = part?;
            let from = admitting.part(first, &texts)?;
            if let Some(ahead) = ahead {
                for (k, text) in admitting.since(from).enumerate() {
                    ahead(plan.order[first + k], text);
                }
            }
        };
        let mut outcomes = admitting.finish(&line)?;
        let oom_killed = self
            .oom
            .as_ref()
            .filter(|watch| matches!((kills_before, watch.kills()), (Some(a), Some(b)) if b > a));
        oom::explain(
            &mut outcomes.outcomes,
            self.memory_bytes,
            oom_killed.map(OomWatch::limit),
        );
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

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What [`Worker::record`] shows each outcome admitted ahead of the
/// answer: its case's corpus index and its text as the store keeps it.
pub type Ahead<'a> = &'a (dyn Fn(usize, &str) + Sync);

/// What the pipe the harness answers on holds, and what one read of it takes.
const ANSWER_BYTES: usize = 1 << 20;

/// Makes the pipe `end` is an end of hold at least `bytes` where the kernel
/// allows it (F_SETPIPE_SZ, up to /proc/sys/fs/pipe-max-size).
fn grow_pipe(end: impl AsFd, bytes: usize) {
    // A refusal (EPERM, EBUSY) leaves the pipe as it was.
    let _ = rustix::pipe::fcntl_setpipe_size(end, bytes + 4096);
}

/// Keeps the last [`STDERR_TAIL`] bytes of the harness's stderr in `tail`;
/// `open` is dropped at its end.
fn spawn_stderr_reader(
    mut stderr: std::process::ChildStderr,
    tail: Arc<Mutex<Vec<u8>>>,
    open: mpsc::Sender<()>,
) {
    std::thread::spawn(move || {
        let _open = open;
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

/// Whether `pyc` is a compiled `main.py` as the harness reports one:
/// lowercase hex, whole bytes, within [`limits::PYC_HEX_CHARS`].
fn is_pyc_hex(pyc: &str) -> bool {
    !pyc.is_empty()
        && pyc.len() <= limits::PYC_HEX_CHARS
        && pyc.len() % 2 == 0
        && pyc.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    //! The case-subset API: only the chosen cases run, visible before
    //! hidden, and a subset without hidden cases never asks for their inputs.
    use super::*;
    use crate::corpus::{Case, Corpus, Visibility};
    use crate::recording::format::CaseOutcome;
    use crate::runner::sandbox::Isolation;
    use crate::runner::setup::Limits;
    use crate::value::PyValue;
    use std::path::PathBuf;

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
            scoring: Default::default(),
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

    /// The folders of the first job's children (scratch/j<zygote>-1/<n>).
    fn first_job_folders(w: &Worker) -> Vec<std::path::PathBuf> {
        let scratch = w.scratch.as_ref().expect("rlimits scratch").path.clone();
        std::fs::read_dir(&scratch)
            .into_iter()
            .flatten()
            .flatten()
            .map(|job| job.path())
            .filter(|job| {
                job.file_name()
                    .is_some_and(|n| n.to_string_lossy().ends_with("-1"))
            })
            .flat_map(|job| std::fs::read_dir(job).into_iter().flatten().flatten())
            .map(|child| child.path())
            .collect()
    }

    /// The zygote's first child does the self-test in its sandbox, then
    /// waits there for a first job that runs every case; a first job for a
    /// subset ends that child (which has made its folder in the job's) and
    /// runs its own, in that same job folder.
    #[test]
    fn a_first_job_for_a_subset_does_not_run_in_the_child_forked_for_every_case() {
        use serde_json::json;
        let corpus = corpus(&[("v0", false), ("h0", true), ("v1", false)]);
        let setup = rlimits_setup(&corpus);
        let lease = sandbox::lease_uid().unwrap();
        let mut w = Worker::start(&setup, lease.as_ref(), None).unwrap();
        // Ready means the self-test passed: the first child is in its sandbox.
        assert_eq!(
            first_job_folders(&w)
                .iter()
                .map(|f| f.file_name().unwrap().to_owned())
                .collect::<Vec<_>>(),
            vec![std::ffi::OsString::from("0")]
        );
        let reply = w
            .record(SOURCE.as_bytes(), None, &setup.inputs, Some(&[2]), None)
            .unwrap();
        assert_eq!(
            ran(&reply, &corpus),
            vec![("v1".into(), json!(["v1", ["v1"]]))]
        );
        // The next job, every case, runs in a child of its own.
        let reply = w
            .record(SOURCE.as_bytes(), None, &setup.inputs, None, None)
            .unwrap();
        assert_eq!(
            ran(&reply, &corpus),
            vec![
                ("v0".into(), json!(["v0", ["v0"]])),
                ("v1".into(), json!(["v1", ["v0", "v1"]])),
                // The hidden cases are a process group of their own.
                ("h0".into(), json!(["h0", ["h0"]])),
            ]
        );
    }

    /// Each process group (a checkpoint's visible cases, its hidden ones)
    /// runs in a process and a folder of its own, in the harness's order:
    /// what one group's calls leave in the module or on disk never reaches
    /// another, so a group records the same whichever others run.
    #[test]
    fn each_process_group_runs_in_a_fresh_process_and_folder() {
        use serde_json::json;
        let mut corpus = corpus(&[
            ("a0", false),
            ("a1", false),
            ("b0", false),
            ("ha", true),
            ("b1", false),
            ("hb", true),
        ]);
        for case in &mut corpus.cases {
            if case.name.ends_with('b') || case.name.starts_with('b') {
                case.checkpoint = "validate_ticket".into();
            }
        }
        let setup = rlimits_setup(&corpus);
        let lease = sandbox::lease_uid().unwrap();
        let mut w = Worker::start(&setup, lease.as_ref(), None).unwrap();
        // Each call also leaves a file, and says which it found.
        let source = "import os\nSEEN = []\n\
            def call(s):\n    SEEN.append(s)\n    found = sorted(os.listdir('.'))\n    \
            open('left-' + s, 'w').close()\n    return [s, list(SEEN), found]\n\
            parse_contract_json = validate_ticket = call\n";
        let reply = w
            .record(source.as_bytes(), None, &setup.inputs, None, None)
            .unwrap();
        assert_eq!(
            ran(&reply, &corpus),
            vec![
                ("a0".into(), json!(["a0", ["a0"], ["main.py"]])),
                (
                    "a1".into(),
                    json!(["a1", ["a0", "a1"], ["left-a0", "main.py"]])
                ),
                ("b0".into(), json!(["b0", ["b0"], ["main.py"]])),
                (
                    "b1".into(),
                    json!(["b1", ["b0", "b1"], ["left-b0", "main.py"]])
                ),
                ("ha".into(), json!(["ha", ["ha"], ["main.py"]])),
                ("hb".into(), json!(["hb", ["hb"], ["main.py"]])),
            ]
        );
        // The same groups as a subset (what a store lacks): the same outcomes.
        let b = [2, 4, 5];
        let again = w
            .record(source.as_bytes(), None, &setup.inputs, Some(&b), None)
            .unwrap();
        let whole = ran(&reply, &corpus);
        let want: Vec<_> = whole
            .iter()
            .filter(|(name, _)| name.starts_with('b') || name == "hb")
            .cloned()
            .collect();
        assert_eq!(ran(&again, &corpus), want);
    }

    /// A group's child that fails after its group's last case is answered
    /// (here: it answers that case itself, then writes a line the harness
    /// did not write) costs the next group none of its cases.
    #[test]
    fn a_child_that_fails_after_its_groups_last_case_leaves_the_next_group_whole() {
        use serde_json::json;
        let mut corpus = corpus(&[("a0", false), ("a1", false), ("b0", false), ("b1", false)]);
        for case in &mut corpus.cases {
            if case.name.starts_with('b') {
                case.checkpoint = "validate_ticket".into();
            }
        }
        let setup = rlimits_setup(&corpus);
        let lease = sandbox::lease_uid().unwrap();
        let mut w = Worker::start(&setup, lease.as_ref(), None).unwrap();
        let source = "import os\n\
            def parse_contract_json(s):\n    if s == 'a1':\n        \
            os.write(3, b'C 1 {\"kind\":\"returned\",\"value\":[\"a1\"],\"shares_with_args\":false,\"args_changed\":false}\\nforged\\n')\n    return [s]\n\
            validate_ticket = parse_contract_json\n";
        let reply = w
            .record(source.as_bytes(), None, &setup.inputs, None, None)
            .unwrap();
        let got = ran(&reply, &corpus);
        assert_eq!(got[2], ("b0".into(), json!(["b0"])), "{got:?}");
        assert_eq!(got[3], ("b1".into(), json!(["b1"])), "{got:?}");
    }

    /// The self-test runs in the child that then waits for the first job:
    /// what it made to check it can write its folder is gone before any
    /// student code runs there.
    #[test]
    fn the_first_child_runs_its_job_in_a_folder_the_self_test_left_empty() {
        use serde_json::json;
        let corpus = corpus(&[("v0", false), ("v1", false)]);
        let setup = rlimits_setup(&corpus);
        let lease = sandbox::lease_uid().unwrap();
        let mut w = Worker::start(&setup, lease.as_ref(), None).unwrap();
        let folders = first_job_folders(&w);
        assert_eq!(folders.len(), 1, "{folders:?}");
        assert_eq!(std::fs::read_dir(&folders[0]).unwrap().count(), 0);
        let source = "import os\n\
            def parse_contract_json(s):\n    return [sorted(os.listdir('.')), os.getcwd()]\n";
        let reply = w
            .record(source.as_bytes(), None, &setup.inputs, None, None)
            .unwrap();
        let cwd = folders[0].to_string_lossy().into_owned();
        assert_eq!(
            ran(&reply, &corpus),
            vec![
                ("v0".into(), json!([["main.py"], cwd])),
                ("v1".into(), json!([["main.py"], cwd])),
            ]
        );
    }

    /// A source handed ahead is compiled by the first child before its
    /// job, and used only for a job of the very same bytes: another job
    /// runs its own source; the same one runs it, with the compiled code
    /// (for the store) of a run without it; one whose compile warns prints
    /// the warning once, as without it.
    #[test]
    fn a_source_handed_ahead_is_used_only_for_a_job_of_the_same_bytes() {
        use serde_json::json;
        let corpus = corpus(&[("v0", false)]);
        let setup = rlimits_setup(&corpus);
        let lease = sandbox::lease_uid().unwrap();
        let a = "def parse_contract_json(s):\n    return 'A'\n";
        let b = "def parse_contract_json(s):\n    return 'B'\n";
        let warns = "def parse_contract_json(s):\n    return 1 is 1\n";
        let first = |ahead: Option<&str>, job: &str| {
            let mut w = Worker::start(&setup, lease.as_ref(), ahead.map(str::as_bytes)).unwrap();
            w.record(job.as_bytes(), None, &setup.inputs, None, None)
                .unwrap()
        };
        let other = first(Some(a), b);
        assert_eq!(ran(&other, &corpus), vec![("v0".into(), json!("B"))]);
        assert_eq!(other.pyc, first(None, b).pyc);
        let same = first(Some(a), a);
        assert_eq!(ran(&same, &corpus), vec![("v0".into(), json!("A"))]);
        let without = first(None, a);
        assert!(same.pyc.is_some());
        assert_eq!(same.pyc, without.pyc);
        let warned = first(Some(warns), warns);
        assert_eq!(
            warned.output.matches("SyntaxWarning").count(),
            1,
            "{}",
            warned.output
        );
        // The same but for the worker's scratch folder in the path.
        let after = |r: &Reply| r.output.split_once("/main.py:").map(|(_, w)| w.to_string());
        assert_eq!(after(&warned), after(&first(None, warns)));
    }

    fn rlimits_setup(corpus: &Corpus) -> Setup {
        Setup {
            isolation: Isolation::Rlimits,
            python: sandbox::Python::find(None).unwrap(),
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
            inputs: crate::runner::inputs::Inputs::of(corpus),
            warm: true,
            code_cache: None,
        }
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
        let setup = rlimits_setup(&corpus);
        let lease = sandbox::lease_uid().unwrap();
        let mut w = Worker::start(&setup, lease.as_ref(), None).unwrap();
        let src = SOURCE.as_bytes();

        // Visible cases only: the hidden inputs are never asked for.
        let reply = w
            .record(src, None, &setup.inputs, Some(&[5, 0]), None)
            .unwrap();
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
        let reply = w
            .record(src, None, &setup.inputs, Some(&only), None)
            .unwrap();
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
        let reply = w
            .record(src, None, &setup.inputs, Some(&[4]), None)
            .unwrap();
        assert_eq!(
            ran(&reply, &corpus),
            vec![("h1".into(), json!(["h1", ["h1"]]))]
        );
        assert_eq!(w.hidden_requests(), 2);
        let reply = w.record(src, None, &setup.inputs, None, None).unwrap();
        let order: Vec<usize> = reply.outcomes.iter().map(|(i, _)| *i).collect();
        assert_eq!(order, vec![0, 2, 3, 5, 1, 4, 6, 7]);
        assert_eq!(w.hidden_requests(), 3);
        // Every case again: the supervisor keeps every hidden input it
        // prepared for the first such job, and the outcomes are the same.
        let again = w.record(src, None, &setup.inputs, None, None).unwrap();
        assert_eq!(ran(&again, &corpus), ran(&reply, &corpus));
        assert_eq!(w.hidden_requests(), 3);
        // A subset still gets only its own (asked for again).
        let reply = w
            .record(src, None, &setup.inputs, Some(&[4]), None)
            .unwrap();
        assert_eq!(
            ran(&reply, &corpus),
            vec![("h1".into(), json!(["h1", ["h1"]]))]
        );
        assert_eq!(w.hidden_requests(), 4);

        // An empty subset runs nothing; an index past the corpus is refused.
        let reply = w.record(src, None, &setup.inputs, Some(&[]), None).unwrap();
        assert!(reply.outcomes.is_empty());
        assert!(w
            .record(src, None, &setup.inputs, Some(&[8]), None)
            .is_err());
        assert_eq!(w.hidden_requests(), 4);
    }
}
