//! Admitting a reply's outcome texts: each parsed and capped (or, when it
//! was admitted before, recalled from [`crate::recording::admitted`]), the
//! submission's total checked before any value is decoded, then each value
//! decoded once. An outcome the harness could not vouch for (a student
//! writing garbage into its own result channel) becomes `crashed`.

use super::protocol;
use super::{HarnessError, RecordError};
use crate::recording::admitted;
use crate::recording::caps;
use crate::recording::case_store::outcome_text;
use crate::recording::format::CaseOutcome;
use rayon::prelude::*;
use std::sync::Arc;

/// Parses the harness's answer (see [`protocol::read_reply`]). An outcome the harness
/// could not vouch for (a student writing garbage into its own result
/// channel) becomes `crashed`; each goes through [`caps::admit_outcome`],
/// and a submission whose outcomes exceed [`caps::MAX_SUBMISSION_BYTES`] is
/// refused ([`RecordError::TooLarge`], not the grader's fault).
pub(super) fn parse_reply(line: &str, case_count: usize) -> Result<Parsed, RecordError> {
    let (head, texts) = protocol::read_reply(line)?;
    if head.n != case_count || texts.len() != case_count {
        return Err(HarnessError::Count {
            answered: texts.len(),
            cases: case_count,
        }
        .into());
    }
    let output = crate::text::cut(&head.output, caps::MAX_OUTPUT_CHARS);
    // Each outcome parsed on its own, side by side (each text is capped
    // by the supervisor's line limit); then their sizes summed in order.
    let admissions: Vec<(Admission, usize)> = texts
        .par_iter()
        .with_min_len(64)
        .map(|text| match admitted::recall(text) {
            Some(a) => (Admission::Known(a.text), a.bytes),
            None => {
                let capped = capped_outcome(text);
                let bytes = caps::outcome_bytes(&capped);
                (Admission::Capped(capped), bytes)
            }
        })
        .collect();
    let mut total = output.len();
    for (_, bytes) in &admissions {
        total += bytes;
        if let Some(why) = caps::over_total(total) {
            return Err(RecordError::TooLarge(why.to_string()));
        }
    }
    // Values are decoded only once the submission is known to fit.
    let outcomes = admissions
        .into_par_iter()
        .with_min_len(64)
        .zip(&texts)
        .map(|((admission, bytes), text)| match admission {
            Admission::Known(kept) => kept,
            Admission::Capped(capped) => {
                let kept = match caps::check_outcome(&capped) {
                    Ok(()) => outcome_text(&capped),
                    Err(_) => outcome_text(&CRASHED),
                };
                let a = admitted::Admitted {
                    text: kept.into(),
                    bytes,
                };
                admitted::remember(text, &a);
                a.text
            }
        })
        .collect();
    let integrity = head
        .integrity
        .into_iter()
        .take(crate::integrity::MAX_FINDINGS)
        .map(|s| crate::integrity::Finding {
            source: crate::integrity::Source::Runtime,
            kind: s.kind,
            line: None,
            what: s.what,
        })
        .collect();
    Ok(Parsed {
        outcomes,
        output,
        integrity,
        pyc: head.pyc,
    })
}

/// A reply's outcomes in the harness's order, before they are matched to cases.
pub(super) struct Parsed {
    /// Each outcome as the store keeps it.
    pub outcomes: Vec<Arc<str>>,
    pub output: String,
    pub integrity: Vec<crate::integrity::Finding>,
    pub pyc: Option<String>,
}

/// One outcome text on its way through [`parse_reply`].
enum Admission {
    /// Admitted before (see [`admitted`]): the outcome as the store keeps it.
    Known(Arc<str>),
    /// Parsed and capped now; its value is decoded once the whole
    /// submission is known to fit.
    Capped(CaseOutcome),
}

/// What an outcome the harness cannot vouch for is graded as.
const CRASHED: CaseOutcome = CaseOutcome::Crashed {
    exit_code: None,
    signal: None,
};

/// One outcome text parsed and capped ([`caps::cap_outcome`]): what the
/// submission's total counts; a crash when it is not a valid outcome.
fn capped_outcome(text: &str) -> CaseOutcome {
    CaseOutcome::parse(text)
        .ok()
        .and_then(|o| caps::cap_outcome(o).ok())
        .unwrap_or(CRASHED)
}

#[cfg(test)]
mod tests {
    //! A text admitted before is admitted the same again: the memo changes cost,
    //! never an outcome.
    use super::*;

    /// A returned outcome whose value holds `value`, with a mark no other
    /// test's text has: the memo serves the whole process, and these texts
    /// must be admitted here first.
    fn returned(value: &str) -> String {
        format!(
            "{{\"kind\":\"returned\",\"value\":[{value},\"admitted-test\"],\"shares_with_args\":false,\"args_changed\":false}}"
        )
    }

    fn texts() -> Vec<String> {
        let long = "m".repeat(3 * caps::MAX_MESSAGE_CHARS);
        vec![
            returned("[1,\"a\",{\"k\":null}]"),
            returned("{\"$int\":\"123456789012345678901234567890\"}"),
            returned("{\"$nope\":1}"),
            returned("{\"a\":{\"$nope\":1},\"a\":2}"),
            returned("1e400"),
            returned("{\"$str\":[55296]}"),
            returned("{\"$dict\":[[[1],2]]}"),
            "{\"kind\":\"returned\",\"value\":[\"admitted-test\",".to_string(),
            format!("{{\"kind\":\"raised\",\"class\":\"ValueError\",\"mro\":[\"ValueError\",\"Exception\",\"BaseException\",\"object\"],\"message\":\"{long}\"}}"),
            "{\"kind\":\"raised\",\"class\":\"\",\"mro\":[],\"message\":\"\"}".to_string(),
            "{\"kind\":\"timeout\",\"seconds\":2.0}".to_string(),
            "{\"kind\":\"missing\"}".to_string(),
            "{\"kind\":\"nonsense\"}".to_string(),
            returned("{\"$nope\":1}"),
        ]
    }

    fn reply(texts: &[String]) -> String {
        format!(
            "{{\"n\":{},\"output\":\"\",\"integrity\":[]}}\t{}\n",
            texts.len(),
            texts.join("\t")
        )
    }

    fn outcomes(line: &str, n: usize) -> Vec<CaseOutcome> {
        match parse_reply(line, n) {
            Ok(p) => p
                .outcomes
                .iter()
                .map(|t| serde_json::from_str(t).unwrap())
                .collect(),
            Err(e) => panic!("{e}"),
        }
    }

    /// A submission over the total is refused even when every one of its
    /// texts was admitted before: a kept text counts its full size.
    #[test]
    fn a_text_admitted_before_counts_its_full_size() {
        let text = returned(&format!("\"{}\"", "counted".repeat(260)));
        outcomes(&reply(std::slice::from_ref(&text)), 1);
        assert!(
            admitted::recall(&text).is_some(),
            "kept: {} bytes",
            text.len()
        );
        let capped = capped_outcome(&text);
        assert!(matches!(capped, CaseOutcome::Returned { .. }));
        let n = caps::MAX_SUBMISSION_BYTES / caps::outcome_bytes(&capped) + 1;
        let many = vec![text; n];
        match parse_reply(&reply(&many), n) {
            Err(RecordError::TooLarge(_)) => {}
            Ok(_) => panic!("{n} outcomes admitted"),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn a_text_admitted_before_is_admitted_the_same() {
        let texts = texts();
        let line = reply(&texts);
        let n = texts.len();
        let cold = outcomes(&line, n);
        let warm = outcomes(&line, n);
        let kept: Vec<Option<(CaseOutcome, usize)>> = texts
            .iter()
            .map(|t| admitted::recall(t).map(|a| (serde_json::from_str(&a.text).unwrap(), a.bytes)))
            .collect();
        assert_eq!(cold, warm);
        let crashed = |i: usize| matches!(cold[i], CaseOutcome::Crashed { .. });
        // Admitted as the grader always has: bad values and texts are crashes,
        // a duplicate key's dropped value is never decoded, messages are cut.
        assert!(!crashed(0) && !crashed(1) && !crashed(3) && !crashed(5));
        assert!(crashed(2) && crashed(4) && crashed(6) && crashed(7) && crashed(9));
        assert!(crashed(12) && crashed(13));
        match &cold[8] {
            CaseOutcome::Raised { message, .. } => {
                assert!(message.chars().count() <= caps::MAX_MESSAGE_CHARS + 64)
            }
            other => panic!("{other:?}"),
        }
        // A kept text is kept as graded; what it counts toward the
        // submission's total is the outcome it was capped to, even for a
        // value that does not decode (then graded as a crash).
        for (i, text) in texts.iter().enumerate() {
            let Some((outcome, bytes)) = &kept[i] else {
                continue;
            };
            assert_eq!(outcome, &cold[i]);
            assert_eq!(*bytes, caps::outcome_bytes(&capped_outcome(text)), "{text}");
        }
        match &kept[2] {
            Some((CaseOutcome::Crashed { .. }, bytes)) => {
                assert!(*bytes > caps::outcome_bytes(&CRASHED))
            }
            other => panic!("{other:?}"),
        }
        // Too long to keep.
        assert!(kept[8].is_none());
    }
}
