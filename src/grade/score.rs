//! Scores: a checkpoint's from its case grades under the run's policy
//! (the one place points are computed), and the all-zero grade of a
//! submission that could not be graded.

use super::model::{
    intern, CheckpointGrade, CheckpointInfo, CorpusInfo, CriterionGrade, Failure, Status,
    SubmissionGrade,
};
use crate::corpus::Scoring;

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
            .map(|cp| error_checkpoint(cp, info.scoring))
            .collect(),
        recording: None,
        integrity: Vec::new(),
    }
}

/// A checkpoint of a submission that could not be graded: nothing earned.
pub(crate) fn error_checkpoint(cp: &CheckpointInfo, scoring: Scoring) -> CheckpointGrade {
    CheckpointGrade {
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
        criteria: criteria_grades(scoring, cp, &vec![true; cp.case_list.len()]),
    }
}

/// A checkpoint's grade from its case grades that are not a plain pass,
/// under `scoring`: all or nothing (`checkpoints`), the passed criteria's
/// points (`criteria`), or passed weight over total weight (`cases`). Its
/// `cases` are left empty (see [`super::CaseGradeStorage::keep_parts`]).
pub(crate) fn score_checkpoint(
    cp: &CheckpointInfo,
    kept: &[(u32, f64, Option<Failure>)],
    scoring: Scoring,
) -> CheckpointGrade {
    let mut failed = vec![false; cp.case_list.len()];
    for (k, _, f) in kept {
        if let (Some(slot), Some(_)) = (failed.get_mut(*k as usize), f) {
            *slot = true;
        }
    }
    let weight_total: u64 = cp.case_list.iter().map(|c| u64::from(c.weight)).sum();
    let failed_weight: u64 = cp
        .case_list
        .iter()
        .zip(&failed)
        .filter(|(_, &f)| f)
        .map(|(c, _)| u64::from(c.weight))
        .sum();
    let cases_failed = failed.iter().filter(|&&f| f).count();
    let weight_passed = weight_total - failed_weight;
    let criteria = criteria_grades(scoring, cp, &failed);
    let score = match scoring {
        Scoring::Cases if weight_total > 0 => weight_passed as f64 / weight_total as f64,
        Scoring::Criteria if !criteria.is_empty() => {
            let total: f64 = cp.criteria.iter().map(|c| c.points).sum();
            if total > 0.0 {
                criteria.iter().map(|c| c.points).sum::<f64>() / total
            } else {
                criteria.iter().filter(|c| c.passed).count() as f64 / criteria.len() as f64
            }
        }
        _ if cases_failed == 0 => 1.0,
        _ => 0.0,
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
        criteria,
    }
}

/// Each criterion's result given which cases failed (by index in the case
/// list), under the `criteria` policy; empty under the others.
fn criteria_grades(scoring: Scoring, cp: &CheckpointInfo, failed: &[bool]) -> Vec<CriterionGrade> {
    if scoring != Scoring::Criteria {
        return Vec::new();
    }
    cp.criteria
        .iter()
        .map(|cr| {
            let bad = cr
                .cases
                .iter()
                .filter(|&&k| failed.get(k as usize).copied().unwrap_or(true))
                .count();
            CriterionGrade {
                passed: bad == 0,
                points: if bad == 0 { cr.points } else { 0.0 },
                cases_passed: cr.cases.len() - bad,
            }
        })
        .collect()
}
