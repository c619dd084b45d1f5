//! What makes two failures "the same mistake": the kind of outcome the
//! reference core expected (a raise or a return) and the failure's
//! value-free brief (`expected ValueError, got a return value`, `returned a
//! wrong value`, `raised KeyError`, `returned an object that is also in its
//! arguments…`, `changed its argument`, `timed out after 2 s`…), which
//! names the kind of failure and never a value.

use crate::grade::Failure;
use crate::value::Outcome;

/// The kind of one failure (see the module's comment).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Mistake {
    expected_raise: bool,
    brief: String,
}

impl Mistake {
    /// The mistake of a call whose expected outcome is `expected` and that
    /// failed with `failure`.
    pub fn of(expected: &Outcome, failure: &Failure) -> Mistake {
        Mistake {
            expected_raise: matches!(expected, Outcome::Raises(_)),
            brief: failure.brief.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{Exception, PyValue};

    fn failure(brief: &str) -> Failure {
        Failure {
            reason: String::new(),
            brief: brief.into(),
            call: None,
            bindings: Vec::new(),
            source: None,
            expected: None,
            got: None,
            diff: None,
            matchers: Vec::new(),
            counterexample: None,
        }
    }

    #[test]
    fn raising_where_a_value_was_expected_is_not_raising_the_wrong_class() {
        let raises = Outcome::Raises(Exception::ValueError);
        let returns = Outcome::Returns(PyValue::None);
        let raised = failure("raised TypeError");
        assert_ne!(
            Mistake::of(&raises, &raised),
            Mistake::of(&returns, &raised)
        );
        assert_eq!(
            Mistake::of(&returns, &raised),
            Mistake::of(&returns, &raised)
        );
        assert_ne!(
            Mistake::of(&returns, &raised),
            Mistake::of(&returns, &failure("raised KeyError"))
        );
    }
}
