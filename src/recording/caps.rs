//! What one case and one submission may put in a recording, checked when a
//! recording is read: from the harness (whose limits, in `limits.rs`, take
//! these where they must stay within them) and
//! from a shipped `recording.json` (which nothing else checked). Documented
//! in `docs/recording-format.md` ("Caps").
//!
//! Text that is only shown (a class name, a message, the output) is cut
//! with "… N more characters". A returned value is graded, so it is never
//! cut: too large, it becomes `output-too-large`. A submission whose
//! outcomes together exceed [`MAX_SUBMISSION_BYTES`] is refused.

use super::format::{CaseOutcome, Recording};
use super::json::{json_shape, JsonError, MAX_VALUE_NESTING};
use crate::text::cut;

/// A raised outcome's `class` (`type(e).__name__`), in characters.
pub const MAX_CLASS_CHARS: usize = 200;
/// One `mro` entry (`module.qualname`, each part at most as long as a class).
pub const MAX_MRO_ENTRY_CHARS: usize = 2 * MAX_CLASS_CHARS + 1;
/// `mro` entries kept in full; after them only bare names (the builtin
/// classes grading looks for), at most [`MAX_MRO_BARE_AFTER`] more.
pub const MAX_MRO_ENTRIES: usize = 64;
/// Bare `mro` names kept after the first [`MAX_MRO_ENTRIES`].
pub const MAX_MRO_BARE_AFTER: usize = 16;
/// A raised outcome's `message` and an import error's, in characters.
pub const MAX_MESSAGE_CHARS: usize = 1024;
/// The line of main.py an import error quotes, in characters.
pub const MAX_SOURCE_LINE_CHARS: usize = 200;
/// The captured output the harness keeps, in bytes (then a note saying
/// how much more there was).
pub const OUTPUT_KEPT_BYTES: usize = 64 * 1024;
/// The captured output, in characters: what the harness keeps and its note.
pub const MAX_OUTPUT_CHARS: usize = OUTPUT_KEPT_BYTES + 256;
/// One returned value's tagged JSON text, in bytes; larger is `output-too-large`.
pub const MAX_VALUE_BYTES: usize = 4 << 20;
/// One returned value's JSON elements (see [`super::json::json_shape`]); more is
/// `output-too-large` (the harness's own budget is half as many nodes).
pub const MAX_VALUE_ELEMENTS: usize = 400_000;
/// All of one submission's outcomes (values, names, messages, case ids)
/// and its output, in bytes: a recording over it is refused.
pub const MAX_SUBMISSION_BYTES: usize = 64 << 20;
/// The fields that say where a recording comes from (`harness`,
/// `isolation`, `python`, hashes...), in characters: a recording with a
/// longer one is refused (no runner writes one).
pub const MAX_META_CHARS: usize = 256;
/// The `sandbox` description and the submission id, in characters.
pub const MAX_LONG_META_CHARS: usize = 4096;

/// Why an outcome or a recording is not within the caps (shown, `: `-joined
/// with its cause, in the error row of the recording it refuses).
#[derive(Debug, thiserror::Error)]
pub enum CapError {
    #[error("returned value nested deeper than {MAX_VALUE_NESTING} levels")]
    TooDeep,
    #[error("a raised outcome needs a class and a non-empty mro")]
    NoClass,
    #[error("timeout seconds must be a non-negative number")]
    BadTimeout,
    #[error("returned value is not valid tagged JSON")]
    NotTagged(#[source] ValueError),
    #[error("`{field}` is {chars} characters long, more than {max}")]
    MetaTooLong {
        field: &'static str,
        chars: usize,
        max: usize,
    },
    #[error("the recording holds {:.1} MiB of outcomes and output, more than the {} MiB one \
             submission may record (returned values too large, e.g. a long list from every case)",
        *total as f64 / (1 << 20) as f64, MAX_SUBMISSION_BYTES >> 20)]
    OverTotal { total: usize },
    /// The outcome of `case` (its id, cut) is not within the caps.
    #[error("outcome of {case}")]
    Outcome {
        case: String,
        #[source]
        why: Box<CapError>,
    },
}

/// Why a returned value does not decode.
#[derive(Debug, thiserror::Error)]
pub enum ValueError {
    #[error(transparent)]
    Json(#[from] JsonError),
    #[error(transparent)]
    Tagged(#[from] crate::value::tagged::TaggedError),
}

/// One outcome within the caps: shown text cut, a value too large for the
/// grader `output-too-large`; `Err` when it is not a valid outcome (a
/// value that is not tagged JSON, a raised outcome without a class...).
/// [`cap_outcome`] then [`check_outcome`].
pub fn admit_outcome(outcome: CaseOutcome) -> Result<CaseOutcome, CapError> {
    let outcome = cap_outcome(outcome)?;
    check_outcome(&outcome)?;
    Ok(outcome)
}

/// The cheap half of [`admit_outcome`], which never decodes a value: what a
/// submission's total ([`outcome_bytes`]) is counted on, so a submission
/// over it is refused before any of its values is decoded.
pub fn cap_outcome(outcome: CaseOutcome) -> Result<CaseOutcome, CapError> {
    match outcome {
        CaseOutcome::Returned { ref value, .. } => {
            let text = value.text().as_bytes();
            let (depth, elements) = json_shape(text);
            if text.len() > MAX_VALUE_BYTES || elements > MAX_VALUE_ELEMENTS {
                return Ok(CaseOutcome::OutputTooLarge);
            }
            if depth > MAX_VALUE_NESTING {
                return Err(CapError::TooDeep);
            }
            Ok(outcome)
        }
        CaseOutcome::Raised {
            class,
            mro,
            message,
        } => {
            if mro.is_empty() || class.is_empty() {
                return Err(CapError::NoClass);
            }
            Ok(CaseOutcome::Raised {
                class: cut(&class, MAX_CLASS_CHARS),
                mro: admit_mro(mro),
                message: cut(&message, MAX_MESSAGE_CHARS),
            })
        }
        CaseOutcome::ImportError {
            exc_type,
            message,
            line,
            source_line,
        } => Ok(CaseOutcome::ImportError {
            exc_type: cut(&exc_type, MAX_CLASS_CHARS),
            message: cut(&message, MAX_MESSAGE_CHARS),
            line,
            source_line: source_line.map(|l| cut(&l, MAX_SOURCE_LINE_CHARS)),
        }),
        CaseOutcome::Timeout {
            seconds,
            submission_budget,
        } if [Some(seconds), submission_budget]
            .into_iter()
            .flatten()
            .any(|s| !s.is_finite() || s < 0.0) =>
        {
            Err(CapError::BadTimeout)
        }
        other => Ok(other),
    }
}

/// The other half of [`admit_outcome`]: a returned value must decode (it
/// is decoded again, and only then kept decoded, when its case is graded).
/// A valid value over what the grader reads (an int in more decimal digits
/// than Python reads, see `value::budget`) is kept: its case fails "too
/// large to grade", the rest of the recording is graded.
pub fn check_outcome(outcome: &CaseOutcome) -> Result<(), CapError> {
    use crate::value::tagged::{decode, DollarKeys, TaggedError};
    let CaseOutcome::Returned { value, .. } = outcome else {
        return Ok(());
    };
    // Most values hold no tag: read once, never built (JSON that does not
    // read is left to `to_json`, whose error is the one to report).
    let text = value.text().as_bytes();
    if let Ok(DollarKeys(false)) = super::json::from_slice(text, MAX_VALUE_NESTING) {
        return Ok(());
    }
    let json = value.to_json().map_err(|e| CapError::NotTagged(e.into()))?;
    match decode(&json) {
        Ok(_) | Err(TaggedError::TooLarge(_)) => Ok(()),
        Err(e) => Err(CapError::NotTagged(e.into())),
    }
}

/// An MRO within the caps, graded as before: entries cut to
/// [`MAX_MRO_ENTRY_CHARS`] (a builtin's bare name is far shorter, and a cut
/// name can never become one); past [`MAX_MRO_ENTRIES`], only bare names
/// (no dot: the builtin classes grading tests for) are kept.
fn admit_mro(mro: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(mro.len().min(MAX_MRO_ENTRIES));
    let mut bare_after = 0;
    for (i, name) in mro.into_iter().enumerate() {
        if i < MAX_MRO_ENTRIES {
            out.push(cut(&name, MAX_MRO_ENTRY_CHARS));
        } else if !name.contains('.')
            && name.chars().count() <= MAX_MRO_ENTRY_CHARS
            && bare_after < MAX_MRO_BARE_AFTER
            && !out.contains(&name)
        {
            bare_after += 1;
            out.push(name);
        }
    }
    out
}

/// What [`outcome_bytes`] counts for any outcome, besides its text.
const OUTCOME_FIXED_BYTES: usize = 64;

/// What [`outcome_bytes`] counts for a returned outcome whose value's
/// tagged JSON is `value_bytes` long.
pub fn returned_bytes(value_bytes: usize) -> usize {
    OUTCOME_FIXED_BYTES.saturating_add(value_bytes)
}

/// The bytes an outcome holds, as [`MAX_SUBMISSION_BYTES`] counts them.
pub fn outcome_bytes(outcome: &CaseOutcome) -> usize {
    OUTCOME_FIXED_BYTES
        + match outcome {
            CaseOutcome::Returned {
                value,
                shared,
                changed,
                ..
            } => {
                let change = changed.as_ref().map_or(0, |c| {
                    c.path.len()
                        + [&c.before, &c.after]
                            .into_iter()
                            .flatten()
                            .map(|v| v.text().len())
                            .sum::<usize>()
                });
                value.text().len() + shared.as_ref().map_or(0, String::len) + change
            }
            CaseOutcome::Raised {
                class,
                mro,
                message,
            } => class.len() + mro.iter().map(String::len).sum::<usize>() + message.len(),
            CaseOutcome::ImportError {
                exc_type,
                message,
                source_line,
                ..
            } => exc_type.len() + message.len() + source_line.as_ref().map_or(0, String::len),
            _ => 0,
        }
}

/// Why a recording holding this much is refused, if it is.
pub fn over_total(total: usize) -> Option<CapError> {
    (total > MAX_SUBMISSION_BYTES).then_some(CapError::OverTotal { total })
}

/// A whole recording within the caps: its outcomes through
/// [`admit_outcome`] (an invalid one refuses the recording), its output
/// cut, its where-from fields and its total checked.
pub fn admit_recording(mut rec: Recording) -> Result<Recording, CapError> {
    let meta: [(&str, Option<&str>, usize); 7] = [
        ("submission", Some(&rec.submission), MAX_LONG_META_CHARS),
        (
            "source_sha256",
            rec.source_sha256.as_deref(),
            MAX_META_CHARS,
        ),
        (
            "corpus_fingerprint",
            Some(&rec.corpus_fingerprint),
            MAX_META_CHARS,
        ),
        ("harness", Some(&rec.harness), MAX_META_CHARS),
        ("isolation", Some(&rec.isolation), MAX_META_CHARS),
        ("python", rec.python.as_deref(), MAX_META_CHARS),
        ("sandbox", rec.sandbox.as_deref(), MAX_LONG_META_CHARS),
    ];
    for (field, text, max) in meta {
        let chars = text.map_or(0, |t| t.chars().count());
        if chars > max {
            return Err(CapError::MetaTooLong { field, chars, max });
        }
    }
    let named = |case: &str, why: CapError| CapError::Outcome {
        case: cut(case, MAX_META_CHARS),
        why: Box::new(why),
    };
    rec.output = cut(&rec.output, MAX_OUTPUT_CHARS);
    rec.integrity = crate::integrity::capped(std::mem::take(&mut rec.integrity));
    let mut total = rec.output.len();
    let outcomes = std::mem::take(&mut rec.outcomes);
    for (case, outcome) in outcomes {
        let outcome = cap_outcome(outcome).map_err(|why| named(&case, why))?;
        total += case.len() + outcome_bytes(&outcome);
        if let Some(why) = over_total(total) {
            return Err(why);
        }
        rec.outcomes.insert(case, outcome);
    }
    for (case, outcome) in &rec.outcomes {
        check_outcome(outcome).map_err(|why| named(case, why))?;
    }
    Ok(rec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn raised(class: &str, mro: Vec<String>, message: &str) -> CaseOutcome {
        CaseOutcome::Raised {
            class: class.into(),
            mro,
            message: message.into(),
        }
    }

    #[test]
    fn shown_text_is_cut_and_says_how_much() {
        let long = "C".repeat(40_000);
        let CaseOutcome::Raised {
            class,
            mro,
            message,
        } = admit_outcome(raised(
            &long,
            vec![format!("main.{long}"), "ValueError".into()],
            &"m".repeat(5000),
        ))
        .unwrap()
        else {
            panic!()
        };
        assert!(class.starts_with(&"C".repeat(200)));
        assert!(class.ends_with("… (39800 more characters)"), "{class}");
        assert_eq!(mro[1], "ValueError");
        assert!(mro[0].chars().count() < 450);
        assert!(message.ends_with("… (3976 more characters)"), "{message}");
    }

    #[test]
    fn a_long_mro_keeps_what_grading_reads() {
        let mut mro: Vec<String> = (0..5000).map(|i| format!("main.C{i}")).collect();
        mro.extend(["ValueError", "Exception", "BaseException", "object"].map(String::from));
        let CaseOutcome::Raised { mro: kept, .. } = admit_outcome(raised("C0", mro, "")).unwrap()
        else {
            panic!()
        };
        assert_eq!(kept.len(), MAX_MRO_ENTRIES + 4);
        assert_eq!(kept[0], "main.C0");
        assert!(kept.contains(&"ValueError".to_string()));
    }

    #[test]
    fn a_value_too_large_is_refused_never_cut() {
        let many = CaseOutcome::Returned {
            value: json!(vec![0; MAX_VALUE_ELEMENTS + 1]).into(),
            shares_with_args: false,
            args_changed: false,
            shares_with_state: false,
            shared: None,
            changed: None,
        };
        assert_eq!(admit_outcome(many).unwrap(), CaseOutcome::OutputTooLarge);
        let long = CaseOutcome::Returned {
            value: json!("x".repeat(MAX_VALUE_BYTES)).into(),
            shares_with_args: false,
            args_changed: false,
            shares_with_state: false,
            shared: None,
            changed: None,
        };
        assert_eq!(admit_outcome(long).unwrap(), CaseOutcome::OutputTooLarge);
        let fits = CaseOutcome::Returned {
            value: json!(vec![0; 199_990]).into(),
            shares_with_args: false,
            args_changed: false,
            shares_with_state: false,
            shared: None,
            changed: None,
        };
        assert_eq!(admit_outcome(fits.clone()).unwrap(), fits);
    }

    #[test]
    fn the_total_counts_what_a_returned_outcome_shows_besides_its_value() {
        use crate::recording::format::ArgChange;
        let plain = CaseOutcome::Returned {
            value: json!(1).into(),
            shares_with_args: false,
            args_changed: true,
            shares_with_state: false,
            shared: None,
            changed: None,
        };
        let CaseOutcome::Returned { value, .. } = plain.clone() else {
            unreachable!()
        };
        let shown = CaseOutcome::Returned {
            value,
            shares_with_args: true,
            args_changed: true,
            shares_with_state: false,
            shared: Some("got is args[0]".into()),
            changed: Some(ArgChange {
                path: "args[0]".into(),
                before: Some(json!("x".repeat(100)).into()),
                after: None,
            }),
        };
        // The shared path (14), the change's path (7) and its value (102).
        assert_eq!(outcome_bytes(&shown), outcome_bytes(&plain) + 14 + 7 + 102);
    }
}
