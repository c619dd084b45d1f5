//! Scores: a checkpoint's from its case grades, and the all-zero grade of a
//! submission that could not be graded.

use super::model::{
    intern, CheckpointGrade, CheckpointInfo, CorpusInfo, Failure, Status, SubmissionGrade,
};

pub(crate) fn max_points(info: &CorpusInfo) -> f64 {
    info.checkpoints.iter().map(|c| c.points).sum()
}

/// An error row's message is cut to this many characters (it may quote a
/// recording's contents), in the middle: its first fifth and the rest from
/// its end, where it says what is wrong (after a path, which may be
/// thousands of characters long).
pub const ERROR_CHARS: usize = 1000;

pub(crate) fn error_grade(info: &CorpusInfo, id: String, why: String) -> SubmissionGrade {
    SubmissionGrade {
        id,
        status: Status::Error,
        error: Some(crate::text::cut_middle(
            &why,
            ERROR_CHARS / 5,
            ERROR_CHARS - ERROR_CHARS / 5,
        )),
        points: 0.0,
        max_points: max_points(info),
        checkpoints: info
            .checkpoints
            .iter()
            .map(|cp| CheckpointGrade {
                id: intern(&cp.id),
                lesson: intern(&cp.lesson),
                score: 0.0,
                points: 0.0,
                max_points: cp.points,
                passed: false,
                cases_passed: 0,
                cases_total: cp.cases,
                weight_passed: 0,
                weight_total: cp.weight,
                cases: Vec::new(),
            })
            .collect(),
        recording: None,
        integrity: Vec::new(),
    }
}

/// A checkpoint's score from its case grades that are not a plain pass:
/// passed weight over total weight, points scaled by it. Its `cases` are
/// left empty (see [`super::CaseGradeStorage::keep_parts`]).
pub(crate) fn score_checkpoint(
    cp: &CheckpointInfo,
    kept: &[(u32, f64, Option<Failure>)],
) -> CheckpointGrade {
    let weight_total: u64 = cp.case_list.iter().map(|c| u64::from(c.weight)).sum();
    let failed_weight: u64 = kept
        .iter()
        .filter(|(_, _, f)| f.is_some())
        .filter_map(|(k, _, _)| cp.case_list.get(*k as usize))
        .map(|c| u64::from(c.weight))
        .sum();
    let cases_failed = kept.iter().filter(|(_, _, f)| f.is_some()).count();
    let weight_passed = weight_total - failed_weight;
    let score = if weight_total == 0 {
        1.0
    } else {
        weight_passed as f64 / weight_total as f64
    };
    CheckpointGrade {
        id: intern(&cp.id),
        lesson: intern(&cp.lesson),
        score,
        points: cp.points * score,
        max_points: cp.points,
        passed: cases_failed == 0,
        cases_passed: cp.case_list.len() - cases_failed,
        cases_total: cp.case_list.len(),
        weight_passed,
        weight_total,
        cases: Vec::new(),
    }
}
