//! Grading: a recording compared with the reference outcomes.
//!
//! [`expected_outcomes`] asks the reference core once per corpus;
//! [`grade_recordings`] turns every submission's recording into a
//! [`GradeRun`], the one in-memory result every report is rendered from.

mod details;
pub mod feedback;
mod run;
pub mod verdict;

pub(crate) use details::cases_of;
pub use details::Details;
pub use run::{
    expected_outcomes, grade_recordings, hidden_case_name, hidden_reason, intern, Audience,
    CaseGrade, CaseInfo, CheckpointGrade, CheckpointInfo, CorpusInfo, Failure, GradeError,
    GradeRun, Grader, MatcherInfo, RecordingInfo, Shards, Status, SubmissionGrade,
};
pub use verdict::{judge, value_matches, Verdict};
