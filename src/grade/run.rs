//! A whole graded run and how reports read it: for an audience, and with
//! its case grades wherever [`CaseGradeStorage`] keeps them.

use super::details::CaseGradeStorage;
use super::model::{Audience, CorpusInfo, HeldShards, Status, SubmissionGrade};
use super::score::{error_checkpoint, score_checkpoint};
use crate::corpus::Scoring;
use std::borrow::Cow;

/// Everything one grading run found, in a fixed order: submissions by id,
/// checkpoints in course order, cases in corpus order.
#[derive(Clone, Debug, PartialEq)]
pub struct GradeRun {
    pub corpus: CorpusInfo,
    /// The audience the failures are shown for (see [`GradeRun::for_audience`]).
    pub audience: Audience,
    pub submissions: Vec<SubmissionGrade>,
    /// `Some` when the run holds only some shards of a whole run (`grade
    /// --shard K/N`, or `merge --allow-partial`): every report says so.
    pub shards: Option<HeldShards>,
    /// Where the case grades are: in `submissions` (the default), or, for a
    /// large run, spooled to disk with `submissions` holding summaries (no
    /// `cases`). Reports read case grades through [`GradeRun::full`].
    pub details: CaseGradeStorage,
}

impl GradeRun {
    /// The run as `audience` may see it: for students, a failed hidden case
    /// keeps only its id, tags and a value-free reason ("a hidden case
    /// failed: ..."); its call, expected, got and diff are dropped. Students
    /// never see where a case is written (`source`).
    pub fn for_audience(&self, audience: Audience) -> GradeRun {
        self.view(audience).into_owned()
    }

    /// [`GradeRun::for_audience`] without a copy when the run already is for
    /// `audience` (an instructor run shown to instructors, the usual case:
    /// a thousand submissions' grades are not duplicated to write reports).
    pub fn view(&self, audience: Audience) -> Cow<'_, GradeRun> {
        if audience == self.audience {
            return Cow::Borrowed(self);
        }
        Cow::Owned(self.clone().into_audience(audience))
    }

    /// The run for `audience`, made in place (no copy of the submissions:
    /// what a large run's `grade --audience student` does).
    pub fn into_audience(mut self, audience: Audience) -> GradeRun {
        if audience != self.audience {
            self.audience = audience;
            let shown = self.corpus.show_hidden_ids;
            self.corpus.show_to(audience);
            for s in &mut self.submissions {
                s.show_to(audience, shown);
            }
        }
        self
    }

    /// Every submission with its case grades, in order, as the run's
    /// audience may see them. What needs case grades loops over this (a
    /// spooled run reads them back one submission at a time); what needs
    /// only scores reads `submissions`.
    pub fn full(&self) -> impl Iterator<Item = Cow<'_, SubmissionGrade>> + '_ {
        self.submissions.iter().map(|s| self.full_one(s))
    }

    /// This run with its case grades spooled to disk (what a large run
    /// does as it grades; tests check every report reads the same from both).
    pub fn spooled(mut self) -> std::io::Result<GradeRun> {
        let details = CaseGradeStorage::spooled()?;
        self.submissions = std::mem::take(&mut self.submissions)
            .into_iter()
            .map(|s| details.keep(s))
            .collect();
        self.details = details;
        Ok(self)
    }

    /// One of `submissions` with its case grades (see [`GradeRun::full`]).
    pub fn full_one<'a>(&'a self, s: &'a SubmissionGrade) -> Cow<'a, SubmissionGrade> {
        match &self.details.0 {
            None => Cow::Borrowed(s),
            Some(spool) => Cow::Owned(spool.fill(&self.corpus, s, self.audience)),
        }
    }

    /// This run scored under `scoring` (`merge --scoring`): every
    /// checkpoint's points again from the same case grades.
    pub fn rescored(mut self, scoring: Scoring) -> GradeRun {
        if self.corpus.scoring == scoring {
            return self;
        }
        self.corpus.scoring = scoring;
        let mut submissions = std::mem::take(&mut self.submissions);
        for s in &mut submissions {
            let full = self.full_one(s).into_owned();
            for ((cp, info), had) in s
                .checkpoints
                .iter_mut()
                .zip(&self.corpus.checkpoints)
                .zip(&full.checkpoints)
            {
                let kept: Vec<_> = (0u32..)
                    .zip(&had.cases)
                    .filter(|(_, c)| s.status != Status::Graded || !c.passed)
                    .map(|(k, c)| (k, c.seconds, c.failure.clone()))
                    .collect();
                let mut new = match s.status {
                    Status::Graded => score_checkpoint(info, &kept, scoring),
                    Status::Error => error_checkpoint(info, scoring),
                };
                new.cases = std::mem::take(&mut cp.cases);
                *cp = new;
            }
            s.points = s.checkpoints.iter().map(|c| c.points).sum();
        }
        self.submissions = submissions;
        self
    }

    /// Submissions below `percent` of their maximum, or in error.
    pub fn below(&self, percent: f64) -> Vec<&SubmissionGrade> {
        self.submissions
            .iter()
            .filter(|s| s.status == Status::Error || s.percent() < percent)
            .collect()
    }
}
