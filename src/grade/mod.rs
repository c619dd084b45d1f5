//! Grading: a recording compared with the reference outcomes.
//!
//! [`expected_outcomes`] asks the reference core once per corpus;
//! [`grade_recordings`] turns every submission's recording into a
//! [`GradeRun`], the one in-memory result every report is rendered from.
//! Its data (`model.rs`) is below the engine (`grader.rs`): what reports read
//! never depends on how it was computed.

mod audience;
mod details;
pub mod feedback;
mod grader;
mod model;
mod run;
mod score;
pub mod verdict;

pub use audience::{hidden_case_name, hidden_reason};
pub(crate) use details::cases_of;
pub use details::CaseGradeStorage;
pub(crate) use grader::expected_outcomes_on_this_thread;
pub use grader::{expected_outcomes, grade_recordings, GradeError, Grader};
pub use model::{
    intern, Audience, CaseGrade, CaseInfo, CheckpointGrade, CheckpointInfo, CorpusInfo,
    Counterexample, CounterexampleSearch, CriterionGrade, CriterionInfo, Failure, HeldShards,
    MatcherInfo, RecordingInfo, Status, SubmissionGrade,
};
pub use run::GradeRun;
pub use score::ERROR_CHARS;
pub use verdict::{judge, value_matches, Verdict};
