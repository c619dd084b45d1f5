//! The recording format (`autograder-recording/1`): one JSON document per
//! submission, the interface to other runners. Documented in
//! `docs/recording-format.md`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The `format` field every recording carries.
pub const RECORDING_FORMAT: &str = "autograder-recording/1";

/// One submission's outcomes, one per case id (`<checkpoint>/<case>`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recording {
    pub format: String,
    /// The submission id (its folder name).
    pub submission: String,
    /// sha256 of `main.py`, hex; absent for recordings made elsewhere without one.
    #[serde(default)]
    pub source_sha256: Option<String>,
    /// The corpus fingerprint the outcomes answer.
    pub corpus_fingerprint: String,
    /// Which harness produced it (e.g. `autograder-harness/1`, or another runner's name).
    pub harness: String,
    /// The sandbox tier the code ran under: `bwrap`, `landlock`, `rlimits`,
    /// or what another runner says.
    pub isolation: String,
    /// The interpreter's version (`3.10.13`); absent from other runners.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python: Option<String>,
    /// What the sandbox's self-test found held (e.g. `landlock: ABI 7 (files,
    /// tcp, signals, abstract-unix, seccomp)`); absent from other runners.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
    /// Outcomes by case id.
    pub outcomes: BTreeMap<String, CaseOutcome>,
    /// What the student's code printed, capped.
    #[serde(default)]
    pub output: String,
}

/// What happened when one case's call ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum CaseOutcome {
    /// The call returned; `value` is tagged JSON.
    Returned {
        value: serde_json::Value,
        /// The result shares a list or dict object with the arguments.
        shares_with_args: bool,
        /// The call changed its arguments.
        args_changed: bool,
    },
    /// The call raised.
    Raised {
        /// `type(e).__name__`.
        class: String,
        /// Names along `type(e).__mro__`, most derived first.
        mro: Vec<String>,
        /// `str(e)`, cut to 1 KiB.
        message: String,
    },
    /// The returned value was too large to encode.
    OutputTooLarge,
    /// The call ran past the per-case time limit (`seconds`), or the
    /// submission's wall budget for all its cases ran out before or while it
    /// ran (`submission_budget`, that budget in seconds; absent from older
    /// recordings and other runners).
    Timeout {
        seconds: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        submission_budget: Option<f64>,
    },
    /// The process died during the call.
    Crashed {
        #[serde(default)]
        exit_code: Option<i32>,
        #[serde(default)]
        signal: Option<i32>,
    },
    /// The process ran out of memory during the call.
    OutOfMemory,
    /// The submission wrote more than `bytes` to its folder (the only place
    /// it may write under landlock) during the call, and was stopped.
    DiskLimit { bytes: u64 },
    /// `main.py` defines no such function.
    Missing,
    /// `main.py` did not import.
    ImportError {
        exc_type: String,
        message: String,
        #[serde(default)]
        line: Option<u32>,
    },
}
