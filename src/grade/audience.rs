//! What each audience may see of a run: students never see a hidden case's
//! input, where a case is written, or integrity findings.

use super::model::{Audience, CorpusInfo, SubmissionGrade};
use crate::corpus::Visibility;

impl SubmissionGrade {
    /// Drops what `audience` may not see: for students, integrity findings,
    /// where cases are written, and a failed hidden case's call, values and
    /// detailed reason (it keeps its tags, a value-free reason and its
    /// counterexample, a call made to show no hidden input), and
    /// unless `show_hidden_ids`, a hidden case's id (an id such as
    /// `objects-depth-9` tells the input: see [`hidden_case_name`]).
    pub fn show_to(&mut self, audience: Audience, show_hidden_ids: bool) {
        if audience != Audience::Student {
            return;
        }
        self.integrity.clear();
        if !show_hidden_ids {
            for cp in &mut self.checkpoints {
                let names = hidden_names(cp.cases.iter().map(|c| c.visibility));
                for (case, name) in cp.cases.iter_mut().zip(names) {
                    if let Some(name) = name {
                        case.id = format!("{}/{name}", cp.id);
                        case.case = name;
                    }
                }
            }
        }
        for case in self.checkpoints.iter_mut().flat_map(|c| c.cases.iter_mut()) {
            let hidden = case.visibility == Visibility::Hidden;
            let Some(f) = case.failure.as_mut() else {
                continue;
            };
            f.source = None;
            if hidden {
                f.reason = hidden_reason(&f.brief);
                f.call = None;
                f.bindings = Vec::new();
                f.expected = None;
                f.got = None;
                f.diff = None;
                f.matchers.clear();
            }
        }
    }
}

impl CorpusInfo {
    /// Names `audience` may see: for students (unless `show_hidden_ids`),
    /// each hidden case by its [`hidden_case_name`].
    pub(crate) fn show_to(&mut self, audience: Audience) {
        if audience == Audience::Student && !self.show_hidden_ids {
            for cp in &mut self.checkpoints {
                let names = hidden_names(cp.case_list.iter().map(|c| c.visibility));
                for (case, name) in cp.case_list.iter_mut().zip(names) {
                    if let Some(name) = name {
                        case.case = name;
                    }
                }
            }
        }
    }
}

/// What a student's view calls the `k`-th (from 1) of a checkpoint's `n`
/// hidden cases: `hidden case 7 of 61`. Its tags are still shown.
pub fn hidden_case_name(k: usize, n: usize) -> String {
    format!("hidden case {k} of {n}")
}

/// For each case of a checkpoint (by visibility, in corpus order), its
/// [`hidden_case_name`] when hidden: the same names whatever the case
/// grades are made from (a summary, a spool, a JSON report read back).
fn hidden_names(visibility: impl Iterator<Item = Visibility> + Clone) -> Vec<Option<String>> {
    let n = visibility
        .clone()
        .filter(|&v| v == Visibility::Hidden)
        .count();
    let mut k = 0;
    visibility
        .map(|v| {
            (v == Visibility::Hidden).then(|| {
                k += 1;
                hidden_case_name(k, n)
            })
        })
        .collect()
}

/// What a student reads of a failed hidden case: its value-free reason.
pub fn hidden_reason(brief: &str) -> String {
    format!("a hidden case failed: {brief}")
}
