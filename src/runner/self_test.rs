//! The harness's first line: its interpreter and what its sandbox
//! self-test found (a child set up exactly as a submission's, minus the
//! student code), judged against what the tier promises
//! ([`super::sandbox::tier`]).

use super::sandbox::tier::{self, SelfTest};
use super::setup::Setup;
use super::{HarnessError, RecordError, SandboxError};

/// The harness's first line.
#[derive(serde::Deserialize)]
pub(super) struct Ready {
    ready: bool,
    python: String,
    self_test: SelfTest,
    /// Why the harness could not join the worker's memory cgroup.
    #[serde(default)]
    cgroup_error: Option<String>,
    /// When each of the harness's start-up steps ended (its name, seconds
    /// of the monotonic clock), for `grade --timings`.
    #[serde(default)]
    steps: Vec<(String, f64)>,
    /// The programs as it compiled them ([tag, hex of the marshalled
    /// code]), when asked to send them back.
    #[serde(default)]
    compiled: Option<(String, String)>,
}

impl Ready {
    /// Keeps the harness's start-up steps as spans (see
    /// [`crate::timings::span`]): the first from `spawned`, when the
    /// sandbox's process was started, each next from the end of the last.
    pub(super) fn record_steps(&self, spawned: f64) {
        let mut start = spawned;
        for (name, end) in &self.steps {
            let name = match name.as_str() {
                "interpreter started" => "harness: sandbox and interpreter started",
                "hello written" => "harness: hello (its interpreter's facts, bwrap's check)",
                "warm imports" => "harness: warm imports",
                "programs compiled" => "harness: programs compiled",
                "programs loaded" => "harness: programs loaded (compiled by an earlier run)",
                "init line read" => "harness: waiting for the init line",
                "programs and tagged module run" => "harness: programs and tagged module run",
                "confinement prepared" => "harness: confinement prepared",
                "sandbox self-test" => "harness: sandbox self-test",
                "case arguments prepared" => "harness: case arguments prepared",
                "collector frozen" => "harness: collector frozen",
                _ => "harness: other step",
            };
            crate::timings::record(name, start, end.max(start));
            start = end.max(start);
        }
    }

    /// The programs it compiled, for the cache (taken once).
    pub(super) fn compiled(&mut self) -> Option<super::compiled::Compiled> {
        let (tag, code) = self.compiled.take()?;
        Some(super::compiled::Compiled {
            tag,
            code: hex::decode(code).ok()?,
        })
    }

    /// Why the harness is not in the worker's memory cgroup it was handed.
    pub(super) fn cgroup_error(&self) -> Option<&str> {
        self.cgroup_error.as_deref()
    }

    /// Refuses a harness whose sandbox does not hold what its tier promises;
    /// otherwise says what held, for the reports.
    pub(super) fn check(self, setup: &Setup, uid: Option<u32>) -> Result<String, RecordError> {
        let python = &setup.python;
        if !self.ready || self.python != python.version {
            return Err(HarnessError::WrongPython {
                python: python.executable.clone(),
                answered: self.python,
                probed: python.version.clone(),
            }
            .into());
        }
        let t = self.self_test;
        if !t.ok {
            return Err(SandboxError::SelfTestFailed {
                error: t.error.clone().unwrap_or_default(),
                uid,
                python: python.executable.clone(),
            }
            .into());
        }
        tier::verdict(setup.isolation, &t, uid.is_some()).map_err(|why| {
            RecordError::from(SandboxError::NotHeld {
                tier: setup.isolation,
                why,
            })
        })
    }
}
