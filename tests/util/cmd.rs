//! The built `autograder`, run as a user runs it (in the style of
//! ripgrep's `tests/util.rs`): a [`TestCommand`] collects arguments and
//! environment, then runs once and asserts how it ended.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};

/// One run of the built binary, colours off (`NO_COLOR=1`) so output
/// compares as text.
pub struct TestCommand {
    cmd: Command,
}

impl TestCommand {
    /// `autograder` with no arguments yet.
    pub fn new() -> TestCommand {
        let mut cmd = TestCommand::bare();
        cmd.env("NO_COLOR", "1");
        cmd
    }

    /// `autograder` in this process's environment, colours as it says.
    pub fn bare() -> TestCommand {
        TestCommand {
            cmd: Command::new(env!("CARGO_BIN_EXE_autograder")),
        }
    }

    /// `autograder grade SUBS --cases CASES --work-dir WORK`, the start of
    /// every grading run the tests make.
    pub fn grade(subs: &Path, cases: &Path, work: &Path) -> TestCommand {
        let mut cmd = TestCommand::new();
        cmd.arg("grade")
            .arg(subs)
            .arg("--cases")
            .arg(cases)
            .arg("--work-dir")
            .arg(work);
        cmd
    }

    pub fn arg(&mut self, arg: impl AsRef<OsStr>) -> &mut TestCommand {
        self.cmd.arg(arg);
        self
    }

    pub fn args<I, A>(&mut self, args: I) -> &mut TestCommand
    where
        I: IntoIterator<Item = A>,
        A: AsRef<OsStr>,
    {
        self.cmd.args(args);
        self
    }

    pub fn env(&mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> &mut TestCommand {
        self.cmd.env(key, value);
        self
    }

    pub fn env_remove(&mut self, key: impl AsRef<OsStr>) -> &mut TestCommand {
        self.cmd.env_remove(key);
        self
    }

    pub fn current_dir(&mut self, dir: impl AsRef<Path>) -> &mut TestCommand {
        self.cmd.current_dir(dir);
        self
    }

    /// The underlying command, for what the builder does not say (stdin,
    /// a cleared environment).
    pub fn cmd(&mut self) -> &mut Command {
        &mut self.cmd
    }

    /// Runs it, however it ends.
    pub fn output(&mut self) -> Output {
        let _machine = super::machine::shared();
        self.cmd
            .output()
            .unwrap_or_else(|e| panic!("cannot run {:?}: {e}", self.cmd))
    }

    /// Runs it, however it ends, and measures it: its own peak resident
    /// memory (`VmHWM`, read from /proc every 10 ms while it runs: its
    /// children's are not counted) and its CPU seconds with every process
    /// it waited for (`wait4`).
    pub fn measured(&mut self) -> (Output, Measured) {
        use std::io::Read as _;
        use std::process::Stdio;
        let _machine = super::machine::shared();
        // Reaped by the wait4 below, which also says what it cost.
        #[allow(clippy::zombie_processes)]
        let mut child = self
            .cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {:?}: {e}", self.cmd));
        let pipe = |mut p: Box<dyn std::io::Read + Send>| {
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                let _ = p.read_to_end(&mut buf);
                buf
            })
        };
        let stdout = pipe(Box::new(child.stdout.take().expect("piped")));
        let stderr = pipe(Box::new(child.stderr.take().expect("piped")));
        let pid = child.id() as libc::pid_t;
        let status_file = format!("/proc/{pid}/status");
        let mut peak = 0u64;
        let (status, usage) = loop {
            // Read before asking whether it ended: a zombie has no VmHWM.
            let hwm = std::fs::read_to_string(&status_file).ok().and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("VmHWM:"))
                    .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            });
            peak = peak.max(hwm.unwrap_or(0) * 1024);
            let mut status = 0;
            // SAFETY: wait4 writes only the status and the rusage it is given.
            let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
            let got = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
            if got == pid {
                break (status, usage);
            }
            assert!(got == 0, "wait4: {}", std::io::Error::last_os_error());
            std::thread::sleep(std::time::Duration::from_millis(10));
        };
        let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        let output = Output {
            status: std::os::unix::process::ExitStatusExt::from_raw(status),
            stdout: stdout.join().unwrap_or_default(),
            stderr: stderr.join().unwrap_or_default(),
        };
        let measured = Measured {
            peak_bytes: peak,
            cpu_with_children: secs(usage.ru_utime) + secs(usage.ru_stime),
        };
        (output, measured)
    }

    /// Runs it, asserts it succeeded (exit 0, stderr shown otherwise) and
    /// returns its stdout.
    pub fn stdout(&mut self) -> String {
        let out = self.assert_exit(0);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Runs it and asserts its exit code, showing its stderr when it differs.
    pub fn assert_exit(&mut self, code: i32) -> Output {
        let out = self.output();
        assert_eq!(
            out.status.code(),
            Some(code),
            "{:?} ended with {}, expected exit {code}:\n{}",
            self.cmd,
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }
}

/// What a [`TestCommand::measured`] run cost.
#[derive(Clone, Copy, Debug)]
pub struct Measured {
    /// Its own peak resident memory (its children's not counted).
    pub peak_bytes: u64,
    /// CPU seconds, its own and every process it waited for.
    pub cpu_with_children: f64,
}

/// The grader's own CPU seconds from the `--timings` table on `stderr`
/// (`  total  0.787 s, 0.419 s CPU (the sandbox's processes not counted)`).
pub fn timings_cpu(stderr: &str) -> Option<f64> {
    stderr.lines().find_map(|l| {
        let rest = l.trim_start().strip_prefix("total")?;
        let cpu = rest.split(',').nth(1)?.trim();
        cpu.split(" s CPU").next()?.trim().parse().ok()
    })
}

impl Default for TestCommand {
    fn default() -> TestCommand {
        TestCommand::new()
    }
}
