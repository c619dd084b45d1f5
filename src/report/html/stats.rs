//! The class-wide numbers the dashboard draws, computed from a run. Only
//! graded submissions count towards rates (a submission in error has no
//! case results); every order is fixed, so the page is deterministic.

use crate::corpus::Visibility;
use crate::grade::{GradeRun, Status, SubmissionGrade};
use crate::reference::TAGS;
use std::collections::BTreeMap;

/// Histogram bins: 0–9 %, 10–19 %, …, 90–99 %, and exactly 100 %.
pub const BINS: usize = 11;

/// Everything the dashboard shows about the class as a whole.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    pub submissions: usize,
    pub graded: usize,
    pub errors: usize,
    /// Mean and median percentage of the graded submissions.
    pub mean: Option<f64>,
    pub median: Option<f64>,
    /// Graded submissions per score bin (see [`BINS`]).
    pub histogram: [usize; BINS],
    /// The groups of checkpoints the page can be filtered by (see
    /// [`groups`]): the whole course first, then each lesson, each with its
    /// score distribution.
    pub groups: Vec<GroupStat>,
    /// One per checkpoint, in course order.
    pub checkpoints: Vec<CheckpointStat>,
    /// Tags that occur in the corpus: the vocabulary's order, then others by name.
    pub tags: Vec<String>,
    /// `heat[tag][checkpoint]`: failed and total case runs, `None` when the
    /// checkpoint has no case with that tag.
    pub heat: Vec<Vec<Option<Rate>>>,
    /// Every case that failed at least once, most failed first.
    pub failed_cases: Vec<CaseStat>,
    /// Under the `criteria` policy, every criterion (course order) with
    /// how many graded submissions passed it; else empty.
    pub criteria: Vec<CriterionStat>,
}

/// One criterion across the class.
#[derive(Debug, Clone, PartialEq)]
pub struct CriterionStat {
    /// Its checkpoint, as an index into the run's checkpoints.
    pub checkpoint: usize,
    pub title: String,
    pub points: f64,
    /// Graded submissions that passed it (`failed`) of all graded (`runs`).
    pub failed: Rate,
}

/// A count of failures among runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    pub failed: usize,
    pub runs: usize,
}

impl Rate {
    /// The failed share in 0..=1 (0 without runs).
    pub fn share(self) -> f64 {
        if self.runs == 0 {
            0.0
        } else {
            self.failed as f64 / self.runs as f64
        }
    }
}

/// One checkpoint across the class.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckpointStat {
    pub id: String,
    pub title: String,
    /// Graded submissions that passed every case.
    pub passed: usize,
    /// Mean score (0..=1) over graded submissions; `None` without any.
    pub mean_score: Option<f64>,
}

/// A named group of checkpoints: the whole course, or a lesson (and, the
/// same way, any subset of the course graded as one unit).
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    /// The page's key for it: `all` for the whole course, `l0`, `l1`, …
    /// for the lessons in course order (ASCII, safe in any attribute).
    pub key: String,
    /// Its name: the lesson's id; `whole course` for the course.
    pub name: String,
    /// Whether it is the whole course.
    pub course: bool,
    /// Its checkpoints, as indexes into the run's checkpoints, in course order.
    pub checkpoints: Vec<usize>,
}

/// The graded submissions' scores within a group's checkpoints.
#[derive(Debug, Clone, PartialEq)]
pub struct Scores {
    /// Mean and median percentage.
    pub mean: Option<f64>,
    pub median: Option<f64>,
    /// Graded submissions per score bin (see [`BINS`]).
    pub histogram: [usize; BINS],
}

/// A group and its scores.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupStat {
    pub group: Group,
    pub scores: Scores,
}

/// One case across the class.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseStat {
    /// `<checkpoint>/<case>`.
    pub id: String,
    /// Its checkpoint's index in the run's checkpoints.
    pub checkpoint: usize,
    pub tags: Vec<String>,
    pub hidden: bool,
    pub rate: Rate,
    /// The most common value-free reason and how many submissions failed with it.
    pub top_reason: String,
    pub top_count: usize,
}

/// The groups of the course's checkpoints the dashboard shows apart: the
/// whole course, then each lesson in course order (by the checkpoints'
/// `lesson`, in order of first appearance).
pub fn groups(run: &GradeRun) -> Vec<Group> {
    let mut lessons: Vec<Group> = Vec::new();
    for (i, cp) in run.corpus.checkpoints.iter().enumerate() {
        match lessons.iter_mut().find(|g| g.name == cp.lesson) {
            Some(g) => g.checkpoints.push(i),
            None => lessons.push(Group {
                key: format!("l{}", lessons.len()),
                name: cp.lesson.clone(),
                course: false,
                checkpoints: vec![i],
            }),
        }
    }
    let course = Group {
        key: "all".to_string(),
        name: "whole course".to_string(),
        course: true,
        checkpoints: (0..run.corpus.checkpoints.len()).collect(),
    };
    std::iter::once(course).chain(lessons).collect()
}

/// A graded submission's percentage of the points of `checkpoints` (its
/// total percentage for the whole course; 100 for checkpoints worth no points).
pub fn percent_of(s: &SubmissionGrade, checkpoints: &[usize]) -> f64 {
    if checkpoints.len() == s.checkpoints.len() {
        return s.percent();
    }
    let (points, max) = checkpoints
        .iter()
        .filter_map(|&i| s.checkpoints.get(i))
        .fold((0.0, 0.0), |(p, m), c| (p + c.points, m + c.max_points));
    if max > 0.0 {
        100.0 * points / max
    } else {
        100.0
    }
}

/// The graded submissions' scores within `checkpoints` (indexes into the
/// run's checkpoints): mean, median and histogram.
pub fn scores(graded: &[&SubmissionGrade], checkpoints: &[usize]) -> Scores {
    let mut percents: Vec<f64> = graded.iter().map(|s| percent_of(s, checkpoints)).collect();
    percents.sort_by(f64::total_cmp);
    let mean = (!percents.is_empty()).then(|| percents.iter().sum::<f64>() / percents.len() as f64);
    let median = match percents.len() {
        0 => None,
        n if n % 2 == 1 => Some(percents[n / 2]),
        n => Some((percents[n / 2 - 1] + percents[n / 2]) / 2.0),
    };
    let mut histogram = [0; BINS];
    for p in &percents {
        histogram[bin(*p)] += 1;
    }
    Scores {
        mean,
        median,
        histogram,
    }
}

/// The class-wide numbers of `run`.
pub fn compute(run: &GradeRun) -> Stats {
    let graded: Vec<_> = run
        .submissions
        .iter()
        .filter(|s| s.status == Status::Graded)
        .collect();
    let groups: Vec<GroupStat> = groups(run)
        .into_iter()
        .map(|group| GroupStat {
            scores: scores(&graded, &group.checkpoints),
            group,
        })
        .collect();
    let Scores {
        mean,
        median,
        histogram,
    } = groups[0].scores.clone();

    let checkpoints = run
        .corpus
        .checkpoints
        .iter()
        .enumerate()
        .map(|(i, cp)| {
            let scores: Vec<_> = graded.iter().filter_map(|s| s.checkpoints.get(i)).collect();
            CheckpointStat {
                id: cp.id.clone(),
                title: cp.title.clone(),
                passed: scores.iter().filter(|c| c.passed).count(),
                mean_score: (!scores.is_empty())
                    .then(|| scores.iter().map(|c| c.score).sum::<f64>() / scores.len() as f64),
            }
        })
        .collect();

    let mut tags: Vec<String> = TAGS
        .iter()
        .map(|t| t.to_string())
        .filter(|t| corpus_tags(run).any(|c| c == t))
        .collect();
    let mut others: Vec<String> = corpus_tags(run)
        .filter(|t| !TAGS.contains(&t.as_str()))
        .cloned()
        .collect();
    others.sort();
    others.dedup();
    tags.extend(others);

    // Per case (corpus order): failures and their reasons, counted in one
    // pass over the graded submissions' case grades (read back one at a
    // time when the run is spooled).
    let mut counts: Vec<Vec<(Rate, BTreeMap<String, usize>)>> = run
        .corpus
        .checkpoints
        .iter()
        .map(|cp| vec![(Rate { failed: 0, runs: 0 }, BTreeMap::new()); cp.case_list.len()])
        .collect();
    for summary in &graded {
        let s = run.full_one(summary);
        for (cp, per_case) in s.checkpoints.iter().zip(counts.iter_mut()) {
            for (case, (rate, reasons)) in cp.cases.iter().zip(per_case.iter_mut()) {
                rate.runs += 1;
                if let Some(f) = &case.failure {
                    rate.failed += 1;
                    match reasons.get_mut(f.brief.as_str()) {
                        Some(n) => *n += 1,
                        None => {
                            reasons.insert(f.brief.clone(), 1);
                        }
                    }
                }
            }
        }
    }
    let mut heat = vec![vec![None; run.corpus.checkpoints.len()]; tags.len()];
    let mut failed_cases = Vec::new();
    for (ci, (cp, per_case)) in run.corpus.checkpoints.iter().zip(counts).enumerate() {
        for (info, (rate, reasons)) in cp.case_list.iter().zip(per_case) {
            for tag in &info.tags {
                if let Some(ti) = tags.iter().position(|t| t == tag) {
                    let cell = heat[ti][ci].get_or_insert(Rate { failed: 0, runs: 0 });
                    cell.failed += rate.failed;
                    cell.runs += rate.runs;
                }
            }
            if rate.failed > 0 {
                // Most frequent first; ties by reason text (BTreeMap order).
                let (top_reason, top_count) =
                    reasons.iter().fold(
                        ("", 0),
                        |best, (r, n)| {
                            if *n > best.1 {
                                (r.as_str(), *n)
                            } else {
                                best
                            }
                        },
                    );
                failed_cases.push(CaseStat {
                    id: format!("{}/{}", cp.id, info.case),
                    checkpoint: ci,
                    tags: info.tags.clone(),
                    hidden: info.visibility == Visibility::Hidden,
                    rate,
                    top_reason: top_reason.to_string(),
                    top_count,
                });
            }
        }
    }
    // Most failed first; the sort is stable, so ties keep corpus order.
    failed_cases.sort_by(|a, b| b.rate.share().total_cmp(&a.rate.share()));

    let criteria = run
        .corpus
        .checkpoints
        .iter()
        .enumerate()
        .flat_map(|(ci, cp)| {
            let graded = &graded;
            cp.criteria.iter().enumerate().map(move |(k, cr)| {
                let results = graded
                    .iter()
                    .filter_map(|s| s.checkpoints[ci].criteria.get(k));
                CriterionStat {
                    checkpoint: ci,
                    title: cr.title.clone(),
                    points: cr.points,
                    failed: Rate {
                        failed: results.clone().filter(|c| !c.passed).count(),
                        runs: results.count(),
                    },
                }
            })
        })
        .filter(|c| c.failed.runs > 0)
        .collect();

    Stats {
        submissions: run.submissions.len(),
        graded: graded.len(),
        errors: run.submissions.len() - graded.len(),
        mean,
        median,
        histogram,
        groups,
        checkpoints,
        tags,
        heat,
        failed_cases,
        criteria,
    }
}

fn corpus_tags(run: &GradeRun) -> impl Iterator<Item = &String> {
    run.corpus
        .checkpoints
        .iter()
        .flat_map(|c| &c.case_list)
        .flat_map(|k| &k.tags)
}

/// The histogram bin of a percentage (rounded down, as everywhere else).
pub fn bin(percent: f64) -> usize {
    if percent >= 100.0 {
        BINS - 1
    } else if percent > 0.0 {
        ((percent / 10.0).floor() as usize).min(BINS - 2)
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_round_down() {
        assert_eq!(bin(0.0), 0);
        assert_eq!(bin(9.99), 0);
        assert_eq!(bin(10.0), 1);
        assert_eq!(bin(99.99), 9);
        assert_eq!(bin(100.0), 10);
        assert_eq!(bin(f64::NAN), 0);
    }
}
