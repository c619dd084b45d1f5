//! What every worker of a run starts with: the sandbox tier, the
//! interpreter, the limits its children run under and the cases' inputs.

use super::inputs::Inputs;
use super::sandbox::{Isolation, Python};
use std::path::PathBuf;
use std::time::Duration;

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

impl Limits {
    /// A run's limits for `opts` and `tuning`, with `workers` recording at once.
    pub fn of(opts: &super::RecordOptions, tuning: &super::Tuning, workers: usize) -> Limits {
        Limits {
            case_timeout: opts.case_timeout,
            wall: tuning
                .wall_limit
                .unwrap_or_else(|| super::limits::wall(opts.case_timeout)),
            memory_bytes: tuning.memory_bytes,
            file_bytes: super::limits::FILE_BYTES,
            open_files: super::limits::OPEN_FILES,
            processes: super::limits::PROCESSES,
            workers,
        }
    }

    /// The limits an outcome depends on, as the store keys it (a timeout
    /// at 0.3 s is not one at 2 s). Not `workers`: where the worker's
    /// processes share a count with the others, the harness counts them
    /// apart, so a submission's own limit is the same.
    pub fn shaping(&self) -> String {
        format!(
            "case_timeout={:?} wall={:?} memory={} file={} open_files={} processes={}",
            self.case_timeout,
            self.wall,
            self.memory_bytes,
            self.file_bytes,
            self.open_files,
            self.processes
        )
    }
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
    pub inputs: Inputs,
    /// Whether each zygote imports the modules students commonly use
    /// before its first child ([`super::Tuning::warm_imports`]).
    pub warm: bool,
    /// Where the harness's compiled programs are kept
    /// ([`super::Tuning::code_cache`]).
    pub code_cache: Option<std::path::PathBuf>,
}
