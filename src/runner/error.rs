//! Why a submission could not be recorded, typed: each variant names what
//! failed and carries its cause as `source` (shown after it, `: `-joined,
//! by [`crate::errors::chain`] and by anyhow's `{:#}`).

pub use super::sandbox::SandboxError;
use super::MAX_SOURCE_BYTES;
use crate::recording::RecordingError;
use std::path::PathBuf;
use std::process::ExitStatus;

/// Why a submission could not be recorded (a broken submission is not an
/// error: its import errors, crashes and timeouts are outcomes).
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// Reading a submission's `main.py` failed.
    #[error("{}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A shipped recording could not be read.
    #[error(transparent)]
    Recording(#[from] RecordingError),
    #[error("{}: main.py is {size} bytes, more than the {MAX_SOURCE_BYTES} byte limit", path.display())]
    SourceTooLarge { path: PathBuf, size: u64 },
    #[error("sandbox")]
    Sandbox(#[from] SandboxError),
    /// A folder that cannot be graded (see
    /// [`crate::submission::SubmissionSource::Unusable`]): the text is the
    /// product, shown to the student.
    #[error("{0}")]
    Unusable(String),
    #[error("harness")]
    Harness(#[from] HarnessError),
    /// The submission recorded more than one submission may (see
    /// [`crate::recording::caps::MAX_SUBMISSION_BYTES`]): its own doing, not
    /// the grader's; the text is shown to the student.
    #[error("{0}")]
    TooLarge(String),
    /// No usable interpreter or sandbox tier here.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// A recording could not be stored in the work dir.
    #[error("cannot store the recording: {}", path.display())]
    Store {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A submission's recording failed on the grader's side twice, on two
    /// fresh workers: the run stops rather than grade anyone on it.
    #[error("recording {submission} failed on the grader's side, twice")]
    Aborted {
        submission: String,
        #[source]
        error: Box<RecordError>,
    },
}

impl RecordError {
    /// Whether the grader failed here (no interpreter, sandbox or harness,
    /// an unwritable store), not the submission: such a failure must never
    /// become the student's grade.
    pub fn is_grader_fault(&self) -> bool {
        matches!(
            self,
            RecordError::Sandbox(_)
                | RecordError::Harness(_)
                | RecordError::Setup(_)
                | RecordError::Store { .. }
                | RecordError::Aborted { .. }
        )
    }
}

/// The harness process failed, or answered what the protocol does not allow.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// Talking to the harness failed at `what`; `status` is its exit status
    /// when it had ended, `stderr` the tail of what it wrote there.
    #[error("{what}{}{}", status.map(|s| format!(" ({s})")).unwrap_or_default(),
        if stderr.is_empty() { String::new() } else { format!(": {stderr}") })]
    Process {
        what: ProcessFailure,
        status: Option<ExitStatus>,
        stderr: String,
    },
    #[error("no {0}")]
    NoPipe(&'static str),
    #[error("{} answered as CPython {answered}, not the {probed} it was probed as", python.display())]
    WrongPython {
        python: PathBuf,
        answered: String,
        probed: String,
    },
    #[error("the harness answered JSON nested too deep")]
    TooDeep,
    #[error("the harness answered malformed JSON")]
    Malformed(#[source] serde_json::Error),
    /// The harness's own report of what went wrong.
    #[error("{0}")]
    Reported(String),
    #[error("the harness answered {answered} outcomes for {cases} cases")]
    Count { answered: usize, cases: usize },
    #[error("the submission was not recorded")]
    NotRecorded,
    #[error("the init line cannot be written")]
    Init(#[source] crate::recording::json::JsonError),
}

/// What the grader was doing when the harness process failed.
#[derive(Debug, thiserror::Error)]
pub enum ProcessFailure {
    #[error("the harness did not start")]
    DidNotStart,
    #[error("cannot write to the harness: {0}")]
    Write(std::io::Error),
    #[error("cannot read from the harness: {0}")]
    Read(std::io::Error),
    #[error("the harness did not answer in time")]
    Timeout,
    #[error("the harness stopped")]
    Stopped,
    #[error("the harness asked for hidden inputs the submission runs none of")]
    UnaskedHidden,
}

/// No run can record here: no interpreter or sandbox tier, or a request
/// the corpus cannot answer.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// `AUTOGRADER_ISOLATION` names no tier.
    #[error(transparent)]
    Isolation(#[from] super::sandbox::UnknownIsolation),
    /// No usable interpreter.
    #[error(transparent)]
    Python(#[from] super::sandbox::PythonError),
    /// The tier asked for does not work here.
    #[error(transparent)]
    Tier(#[from] super::sandbox::TierError),
    #[error("the harness does not start here")]
    HarnessDoesNotStart(#[source] Box<RecordError>),
    #[error("case index {index} is out of range: the corpus has {total} cases")]
    CaseOutOfRange { index: usize, total: usize },
    #[error("no interpreter or sandbox was settled")]
    NotSettled,
}
