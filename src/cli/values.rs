//! The command line's spellings of the library's choices (`--audience`,
//! `--gradescope-hidden`, `--gradescope-tests`): clap's value enums live
//! here, so the library below the CLI does not depend on clap.

use crate::corpus::Scoring;
use crate::grade::Audience;
use crate::report::gradescope::{HiddenVisibility, Tests};

/// Who reads the output (`--audience`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum AudienceArg {
    #[default]
    Instructor,
    Student,
}

impl From<AudienceArg> for Audience {
    fn from(a: AudienceArg) -> Audience {
        match a {
            AudienceArg::Instructor => Audience::Instructor,
            AudienceArg::Student => Audience::Student,
        }
    }
}

/// The Gradescope visibility given to the corpus's hidden cases
/// (`--gradescope-hidden`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum HiddenVisibilityArg {
    /// Never shown to students (Gradescope's `hidden`); their points count.
    #[default]
    Hidden,
    /// Shown, without input, once grades are published.
    AfterPublished,
}

impl From<HiddenVisibilityArg> for HiddenVisibility {
    fn from(h: HiddenVisibilityArg) -> HiddenVisibility {
        match h {
            HiddenVisibilityArg::Hidden => HiddenVisibility::Hidden,
            HiddenVisibilityArg::AfterPublished => HiddenVisibility::AfterPublished,
        }
    }
}

/// What one Gradescope test is (`--gradescope-tests`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum TestsArg {
    /// One test per checkpoint, with its points and its first failures.
    #[default]
    Checkpoint,
    /// One test per case, worth its share of its checkpoint's points.
    Case,
}

impl From<TestsArg> for Tests {
    fn from(t: TestsArg) -> Tests {
        match t {
            TestsArg::Checkpoint => Tests::Checkpoint,
            TestsArg::Case => Tests::Case,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn audience_names_are_the_libraries() {
        for a in AudienceArg::value_variants() {
            let name = a.to_possible_value().unwrap();
            assert_eq!(name.get_name(), Audience::from(*a).name());
        }
        assert_eq!(Audience::from(AudienceArg::default()), Audience::default());
    }

    #[test]
    fn gradescope_names_are_the_libraries() {
        for h in HiddenVisibilityArg::value_variants() {
            let name = h.to_possible_value().unwrap();
            let lib = HiddenVisibility::from(*h).as_str().replace('_', "-");
            assert_eq!(name.get_name(), lib);
        }
        assert_eq!(
            HiddenVisibility::from(HiddenVisibilityArg::default()),
            HiddenVisibility::default()
        );
        assert_eq!(Tests::from(TestsArg::default()), Tests::default());
        let names: Vec<_> = TestsArg::value_variants()
            .iter()
            .map(|t| t.to_possible_value().unwrap().get_name().to_string())
            .collect();
        assert_eq!(names, ["checkpoint", "case"]);
    }
}

/// The scoring policy (`--scoring`), over `course.toml`'s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum ScoringArg {
    /// A checkpoint's points only when every one of its cases passes.
    Checkpoints,
    /// A checkpoint's points split over its criteria, each earned when all its cases pass.
    Criteria,
    /// Proportional credit by case weight.
    Cases,
}

impl From<ScoringArg> for Scoring {
    fn from(s: ScoringArg) -> Scoring {
        match s {
            ScoringArg::Checkpoints => Scoring::Checkpoints,
            ScoringArg::Criteria => Scoring::Criteria,
            ScoringArg::Cases => Scoring::Cases,
        }
    }
}
