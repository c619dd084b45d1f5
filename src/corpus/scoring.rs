//! Scoring policies (`scoring = "…"` in `course.toml`, `--scoring`) and the
//! rubric criteria a checkpoint may name: how many of a checkpoint's points
//! a submission earns from which of its cases passed.

use super::problems::Problem;
use super::{Case, Corpus};

/// How a checkpoint's points are earned.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Scoring {
    /// All or nothing: every case of the checkpoint passes (what the
    /// course page counts).
    #[default]
    Checkpoints,
    /// The checkpoint's points split over its criteria, each earned when
    /// every one of its cases passes.
    Criteria,
    /// Proportional credit: passed case weight over total weight.
    Cases,
}

impl Scoring {
    pub const ALL: [Scoring; 3] = [Scoring::Checkpoints, Scoring::Criteria, Scoring::Cases];

    /// The name `course.toml`, `--scoring` and the reports use.
    pub fn name(self) -> &'static str {
        match self {
            Scoring::Checkpoints => "checkpoints",
            Scoring::Criteria => "criteria",
            Scoring::Cases => "cases",
        }
    }

    /// What a checkpoint's points take, in a few words for reports.
    pub fn rule(self) -> &'static str {
        match self {
            Scoring::Checkpoints => "a checkpoint's points need all its cases",
            Scoring::Criteria => {
                "a criterion's share of its checkpoint's points needs all its cases"
            }
            Scoring::Cases => "a checkpoint's points in proportion to its passed cases' weight",
        }
    }

    /// What a report that predates the policy was scored under.
    pub fn legacy() -> Scoring {
        Scoring::Cases
    }

    fn known() -> String {
        Scoring::ALL.map(Scoring::name).join(", ")
    }
}

/// Why a policy's name is not one.
#[derive(Debug, thiserror::Error)]
#[error("unknown scoring policy {0:?} (the policies: {known})", known = Scoring::known())]
pub struct UnknownScoring(pub String);

impl std::str::FromStr for Scoring {
    type Err = UnknownScoring;

    fn from_str(s: &str) -> Result<Scoring, UnknownScoring> {
        Scoring::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| UnknownScoring(s.to_string()))
    }
}

/// A criterion `course.toml` names for a checkpoint
/// (`[[lesson.checkpoint.criterion]]`): the cases carrying any of `tags`,
/// and the cases named in `cases`.
#[derive(Clone, Debug, PartialEq)]
pub struct Criterion {
    pub title: String,
    pub tags: Vec<String>,
    /// Case ids within the checkpoint (`bool-x`).
    pub cases: Vec<String>,
    pub points: f64,
    /// Its line in `course.toml`, for problems found once cases are read.
    pub line: usize,
}

impl Criterion {
    /// Whether `case` counts in this criterion.
    pub fn covers(&self, case: &Case) -> bool {
        self.cases.contains(&case.name) || case.tags.iter().any(|t| self.tags.contains(t))
    }
}

/// The problems of explicit criteria that only the cases can show: a tag no
/// case of the checkpoint carries, a case it does not have, a case no
/// criterion covers. Each names `course.toml` and the criterion's line.
pub(crate) fn check_criteria(corpus: &Corpus) -> Vec<Problem> {
    let file = corpus.root.join("course.toml");
    let mut problems = Vec::new();
    let mut at = |line: usize, message: String| {
        problems.push(Problem {
            file: file.clone(),
            line: Some(line),
            case: None,
            message,
        })
    };
    for cp in corpus.checkpoints() {
        let Some(first) = cp.criteria.first() else {
            continue;
        };
        let cases: Vec<&Case> = corpus
            .cases
            .iter()
            .filter(|c| c.checkpoint == cp.id)
            .collect();
        for cr in &cp.criteria {
            for tag in &cr.tags {
                if !cases.iter().any(|c| c.tags.contains(tag)) {
                    at(
                        cr.line,
                        format!(
                            "criterion {:?} of {}: no case of the checkpoint has tag {tag:?}",
                            cr.title, cp.id
                        ),
                    );
                }
            }
            for name in &cr.cases {
                if !cases.iter().any(|c| &c.name == name) {
                    at(
                        cr.line,
                        format!(
                            "criterion {:?} of {}: the checkpoint has no case {name:?}",
                            cr.title, cp.id
                        ),
                    );
                }
            }
        }
        let uncovered: Vec<&str> = cases
            .iter()
            .filter(|c| !cp.criteria.iter().any(|cr| cr.covers(c)))
            .map(|c| c.name.as_str())
            .collect();
        if let Some(one) = uncovered.first() {
            at(
                first.line,
                format!(
                    "{} case{} of {} {} in no criterion (first: {one:?}); every case counts in one",
                    uncovered.len(),
                    if uncovered.len() == 1 { "" } else { "s" },
                    cp.id,
                    if uncovered.len() == 1 { "is" } else { "are" },
                ),
            );
        }
    }
    problems
}
