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

impl Default for TestCommand {
    fn default() -> TestCommand {
        TestCommand::new()
    }
}
