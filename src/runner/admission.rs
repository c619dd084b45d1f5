//! Admitting a reply's outcome texts: each parsed and capped (or, when it
//! was admitted before, recalled from [`crate::recording::admitted`]; a
//! result sent as marshal bytes measured, nothing built: what its tagged
//! JSON will take, each back-reference counted in full), the submission's
//! total checked before any value is decoded or expanded, then each value
//! decoded once. An outcome the harness could not vouch for (a student
//! writing garbage into its own result channel) becomes `crashed`.

use super::protocol::{self, Marshalled};
use super::{HarnessError, RecordError};
use crate::recording::admitted;
use crate::recording::caps;
use crate::recording::case_store::outcome_text;
use crate::recording::format::CaseOutcome;
use rayon::prelude::*;
use std::sync::Arc;

/// Parses the harness's answer (see [`protocol::read_reply`]) when no part
/// came before it: [`Admitting::finish`].
#[cfg(test)]
pub(super) fn parse_reply(line: &str, case_count: usize) -> Result<Parsed, RecordError> {
    Admitting::new(case_count).finish(line)
}

/// One submission's outcomes admitted as they come: in the parts the
/// supervisor sends ahead of its answer ([`protocol::read_part`]), then
/// the answer's. An outcome the harness could not vouch for (a student
/// writing garbage into its own result channel) becomes `crashed`; each
/// goes through [`caps::admit_outcome`], and a submission whose outcomes
/// and output exceed [`caps::MAX_SUBMISSION_BYTES`] is refused
/// ([`RecordError::TooLarge`], not the grader's fault). No value is decoded
/// past the total.
pub(super) struct Admitting {
    case_count: usize,
    /// Outcomes the harness has sent, in its order.
    received: usize,
    /// Each admitted (as the store keeps it), with the bytes it counts.
    admitted: Vec<(Arc<str>, usize)>,
    /// What `admitted` counts.
    total: usize,
    /// Why the submission is refused, once its outcomes are over the total
    /// (then none is admitted after them).
    too_large: Option<String>,
}

impl Admitting {
    pub(super) fn new(case_count: usize) -> Admitting {
        Admitting {
            case_count,
            received: 0,
            admitted: Vec::new(),
            total: 0,
            too_large: None,
        }
    }

    /// Admits a part: `texts`, the outcomes from case `first` (in the
    /// harness's order) on, one at a time (the submission is still running
    /// beside). Returns where its outcomes start in [`Admitting::since`].
    pub(super) fn part(&mut self, first: usize, texts: &[&str]) -> Result<usize, RecordError> {
        if first != self.received || first + texts.len() > self.case_count {
            return Err(HarnessError::Count {
                answered: first + texts.len(),
                cases: self.case_count,
            }
            .into());
        }
        self.received += texts.len();
        let from = self.admitted.len();
        self.admit(texts, false);
        Ok(from)
    }

    /// The outcomes admitted from position `from` on.
    pub(super) fn since(&self, from: usize) -> impl Iterator<Item = &str> {
        self.admitted[from..].iter().map(|(text, _)| &**text)
    }

    /// Admits the answer (a head, then the outcomes from its `first` case
    /// on: any a part held from there are replaced) and returns them all.
    pub(super) fn finish(mut self, line: &str) -> Result<Parsed, RecordError> {
        let (head, texts) = protocol::read_reply(line)?;
        if head.n != self.case_count
            || head.first > self.received
            || head.first + texts.len() != self.case_count
        {
            return Err(HarnessError::Count {
                answered: head.first + texts.len(),
                cases: self.case_count,
            }
            .into());
        }
        if head.first < self.received {
            // What was over the total, if anything, came after `first`.
            if self.admitted.len() >= head.first {
                self.admitted.truncate(head.first);
                self.total = self.admitted.iter().map(|(_, bytes)| bytes).sum();
                self.too_large = None;
            }
            self.received = head.first;
        }
        self.admit(&texts, true);
        let output = crate::text::cut(&head.output, caps::MAX_OUTPUT_CHARS);
        if self.too_large.is_none() {
            self.too_large = caps::over_total(self.total + output.len()).map(|why| why.to_string());
        }
        if let Some(why) = self.too_large {
            return Err(RecordError::TooLarge(why));
        }
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
            outcomes: self.admitted.into_iter().map(|(text, _)| text).collect(),
            output,
            integrity,
            pyc: head.pyc,
        })
    }

    /// Each text parsed and capped on its own (side by side with
    /// `parallel`: each is capped by the supervisor's line limit), their
    /// sizes summed in order, then, as far as the total holds, each value
    /// decoded once. A long text the same as the one before it (an import
    /// error, which the supervisor copies into every case) is admitted
    /// once: its copies share what it was admitted as, and count as much.
    fn admit(&mut self, texts: &[&str], parallel: bool) {
        if self.too_large.is_some() {
            return;
        }
        let copies = copies(texts);
        let admit = |(text, copy): (&&str, &Option<usize>)| match copy {
            Some(_) => (Admission::Copy, 0),
            None => admission(text),
        };
        let mut capped: Vec<(Admission, usize)> = match parallel {
            true => texts
                .par_iter()
                .zip(&copies)
                .with_min_len(64)
                .map(admit)
                .collect(),
            false => texts.iter().zip(&copies).map(admit).collect(),
        };
        for (i, copy) in copies.iter().enumerate() {
            if let Some(j) = *copy {
                capped[i].1 = capped[j].1;
            }
        }
        let mut total = self.total;
        for (_, bytes) in &capped {
            total += bytes;
            if let Some(why) = caps::over_total(total) {
                self.too_large = Some(why.to_string());
                return;
            }
        }
        let mut decoded: Vec<(Arc<str>, usize)> = match parallel {
            true => capped
                .into_par_iter()
                .with_min_len(64)
                .zip(texts)
                .map(|(a, text)| decoded(a, text))
                .collect(),
            false => capped
                .into_iter()
                .zip(texts)
                .map(|(a, text)| decoded(a, text))
                .collect(),
        };
        for (i, copy) in copies.iter().enumerate() {
            if let Some(j) = *copy {
                decoded[i] = decoded[j].clone();
            }
        }
        // A marshalled value counted as measured is counted as written
        // (at most a digit more an int).
        self.total += decoded.iter().map(|(_, bytes)| bytes).sum::<usize>();
        if let Some(why) = caps::over_total(self.total) {
            self.too_large = Some(why.to_string());
        }
        self.admitted.extend(decoded);
    }
}

/// Texts at least this long are compared with the long text before them.
const COPY_BYTES: usize = 1024;

/// For each text, the position of an earlier one it is the same as: the
/// last long one before it, when it is long too (texts are compared as
/// bytes, in linear time).
fn copies(texts: &[&str]) -> Vec<Option<usize>> {
    let mut last: Option<usize> = None;
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            if t.len() < COPY_BYTES {
                return None;
            }
            match last {
                Some(j) if std::ptr::eq(texts[j], *t) || texts[j] == *t => Some(j),
                _ => {
                    last = Some(i);
                    None
                }
            }
        })
        .collect()
}

/// One text recalled (see [`admitted`]), measured (a result the child
/// sent as marshal bytes: what its value's tagged JSON will take, nothing
/// built) or parsed and capped, with the bytes it counts toward the
/// submission's total.
fn admission(text: &str) -> (Admission, usize) {
    if let Some(a) = admitted::recall(text) {
        return (Admission::Known(a.text), a.bytes);
    }
    let capped = match protocol::measure_marshalled(text) {
        Some(Marshalled::Fits(measured)) => {
            let bytes = caps::returned_bytes(measured.tagged_bytes());
            return (Admission::Marshalled(Box::new(measured)), bytes);
        }
        Some(Marshalled::TooLarge) => CaseOutcome::OutputTooLarge,
        None => capped_outcome(text),
    };
    let bytes = caps::outcome_bytes(&capped);
    (Admission::Capped(capped), bytes)
}

/// One admitted text as the store keeps it (its value decoded, once the
/// submission is known to fit), with the bytes it counts.
fn decoded((admission, bytes): (Admission, usize), text: &str) -> (Arc<str>, usize) {
    match admission {
        Admission::Known(kept) => (kept, bytes),
        // Filled from the text it is a copy of.
        Admission::Copy => (Arc::from(""), 0),
        Admission::Marshalled(measured) => {
            let capped = capped_text(measured.expand().as_deref().unwrap_or(text));
            let bytes = caps::outcome_bytes(&capped);
            decoded((Admission::Capped(capped), bytes), text)
        }
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
            (a.text, bytes)
        }
    }
}

/// A reply's outcomes in the harness's order, before they are matched to cases.
pub(super) struct Parsed {
    /// Each outcome as the store keeps it.
    pub outcomes: Vec<Arc<str>>,
    pub output: String,
    pub integrity: Vec<crate::integrity::Finding>,
    pub pyc: Option<String>,
}

/// One outcome text on its way through [`Admitting`].
enum Admission {
    /// Admitted before (see [`admitted`]): the outcome as the store keeps it.
    Known(Arc<str>),
    /// Parsed and capped now; its value is decoded once the whole
    /// submission is known to fit.
    Capped(CaseOutcome),
    /// A result the child sent as marshal bytes, measured: expanded,
    /// capped and decoded once the whole submission is known to fit.
    Marshalled(Box<protocol::MeasuredResult>),
    /// The same as an earlier text of the same reply ([`copies`]).
    Copy,
}

/// What an outcome the harness cannot vouch for is graded as.
const CRASHED: CaseOutcome = CaseOutcome::Crashed {
    exit_code: None,
    signal: None,
};

/// One outcome text parsed (a result the child sent as marshal bytes
/// first written as the recording format has it,
/// [`protocol::expand_marshalled`]) and capped ([`caps::cap_outcome`]):
/// what the submission's total counts; a crash when it is not a valid
/// outcome.
fn capped_outcome(text: &str) -> CaseOutcome {
    match protocol::expand_marshalled(text) {
        Some(Marshalled::TooLarge) => CaseOutcome::OutputTooLarge,
        Some(Marshalled::Fits(expanded)) => capped_text(&expanded),
        None => capped_text(text),
    }
}

/// An outcome text (a marshalled result's written out) parsed and capped;
/// a crash when it is not a valid outcome.
fn capped_text(text: &str) -> CaseOutcome {
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
            Ok(p) => decoded(&p),
            Err(e) => panic!("{e}"),
        }
    }

    /// The outcomes `parsed` holds, read back from their kept texts.
    fn decoded(parsed: &Parsed) -> Vec<CaseOutcome> {
        parsed
            .outcomes
            .iter()
            .map(|t| serde_json::from_str(t).unwrap())
            .collect()
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

    /// Admitted in parts (two, then the answer's rest) as it is whole.
    /// A result the child sent as marshal bytes is admitted as the
    /// recording format writes it; one whose bytes do not read is a crash,
    /// as any outcome the harness cannot vouch for.
    #[test]
    fn a_marshalled_result_is_admitted_as_written_out() {
        // marshal.dumps({'k': (1, 'x')}, 4) for a result only the child held.
        let marshalled = |hex: &str, changed: &str| {
            format!(
                "{{\"kind\":\"returned\",\"marshal\":\"{hex}\",\"shares_with_args\":false,\"args_changed\":{changed}}}"
            )
        };
        let texts = [
            marshalled("7bda016ba902e901000000da017830", "true"),
            marshalled("7bda016ba902e901000000da017830ff", "false"),
            marshalled("7BDA016BA902E901000000DA017830", "false"),
            marshalled("3c00000000", "false"),
        ];
        let line = reply(&texts);
        let got = outcomes(&line, texts.len());
        let want = CaseOutcome::parse(
            "{\"kind\":\"returned\",\"value\":{\"k\":{\"$tuple\":[1,\"x\"]}},\"shares_with_args\":false,\"args_changed\":true}",
        )
        .unwrap();
        assert_eq!(got[0], want);
        for forged in &got[1..] {
            assert_eq!(forged, &CRASHED);
        }
    }

    #[test]
    fn outcomes_in_parts_are_admitted_as_in_one_answer() {
        let texts = texts();
        let n = texts.len();
        let whole = outcomes(&reply(&texts), n);
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let mut a = Admitting::new(n);
        assert_eq!(a.part(0, &refs[..5]).unwrap(), 0);
        assert_eq!(a.part(5, &refs[5..9]).unwrap(), 5);
        assert_eq!(a.since(5).count(), 4);
        let answer = format!(
            "{{\"n\":{n},\"first\":9,\"output\":\"\",\"integrity\":[]}}\t{}\n",
            refs[9..].join("\t")
        );
        let got = decoded(&a.finish(&answer).unwrap());
        assert_eq!(got, whole);
    }

    /// An answer from an earlier case than the parts reached replaces what
    /// they held from there (a later child's import error changes every
    /// outcome).
    #[test]
    fn an_answer_from_an_earlier_case_replaces_the_parts() {
        let missing = "{\"kind\":\"missing\"}";
        let timeout = "{\"kind\":\"timeout\",\"seconds\":2.0}";
        let mut a = Admitting::new(3);
        a.part(0, &[missing, missing]).unwrap();
        let answer = format!("{{\"n\":3,\"first\":1,\"output\":\"\"}}\t{timeout}\t{timeout}\n");
        let kinds = decoded(&a.finish(&answer).unwrap());
        assert!(matches!(kinds[0], CaseOutcome::Missing));
        assert!(matches!(kinds[1], CaseOutcome::Timeout { .. }));
        assert!(matches!(kinds[2], CaseOutcome::Timeout { .. }));
    }

    /// A part out of step, or an answer whose outcomes do not meet the
    /// parts' or make up every case, is the harness's fault.
    #[test]
    fn parts_out_of_step_are_refused() {
        let missing = "{\"kind\":\"missing\"}";
        let count = |r: Result<usize, RecordError>| {
            matches!(r, Err(RecordError::Harness(HarnessError::Count { .. })))
        };
        let mut a = Admitting::new(3);
        assert!(count(a.part(1, &[missing])));
        let mut a = Admitting::new(3);
        a.part(0, &[missing]).unwrap();
        assert!(count(a.part(0, &[missing])));
        assert!(count(a.part(1, &[missing, missing, missing])));
        let finish = |first: usize, texts: usize| {
            let mut a = Admitting::new(3);
            a.part(0, &[missing]).unwrap();
            let answer = format!(
                "{{\"n\":3,\"first\":{first},\"output\":\"\"}}\t{}\n",
                vec![missing; texts].join("\t")
            );
            matches!(
                a.finish(&answer),
                Err(RecordError::Harness(HarnessError::Count { .. }))
            )
        };
        assert!(finish(2, 1), "an answer past what the parts held");
        assert!(finish(1, 1), "too few outcomes");
        assert!(finish(1, 3), "too many outcomes");
        assert!(!finish(1, 2));
    }

    /// Outcomes over the submission's total in parts refuse it, once its
    /// answer is read (the worker stays in step); an answer that replaces
    /// them from before where the total was passed admits it again.
    #[test]
    fn a_total_passed_in_parts_refuses_the_submission() {
        let text = returned(&format!("\"{}\"", "part-total".repeat(400)));
        let bytes = caps::outcome_bytes(&capped_outcome(&text));
        let n = caps::MAX_SUBMISSION_BYTES / bytes + 2;
        let missing = "{\"kind\":\"missing\"}";
        let many = vec![text.as_str(); n - 1];
        let mut a = Admitting::new(n);
        a.part(0, &many).unwrap();
        let answer = format!(
            "{{\"n\":{n},\"first\":{},\"output\":\"\"}}\t{missing}\n",
            n - 1
        );
        assert!(matches!(a.finish(&answer), Err(RecordError::TooLarge(_))));
        let mut a = Admitting::new(n);
        a.part(0, &many[..2]).unwrap();
        a.part(2, &many[2..]).unwrap();
        let answer = format!(
            "{{\"n\":{n},\"first\":1,\"output\":\"\"}}\t{}\n",
            vec![missing; n - 1].join("\t")
        );
        let parsed = a.finish(&answer).unwrap();
        assert_eq!(parsed.outcomes.len(), n);
    }

    /// `marshal.dumps` of a list of one `len`-character str and `refs`
    /// back-references to it, as the child would send it.
    fn repeated_text(len: usize, refs: u32) -> String {
        let mut v = b"[".to_vec();
        v.extend_from_slice(&(refs + 1).to_le_bytes());
        v.push(b'u' | 0x80);
        v.extend_from_slice(&(len as u32).to_le_bytes());
        v.extend(std::iter::repeat_n(b'y', len));
        for _ in 0..refs {
            v.extend_from_slice(b"r\x00\x00\x00\x00");
        }
        format!(
            "{{\"kind\":\"returned\",\"marshal\":\"{}\",\"shares_with_args\":false,\"args_changed\":false}}",
            hex::encode(v)
        )
    }

    /// A marshalled result that would build more than one value may hold
    /// (4 MB of back-references to one text stood for 80 GB) is
    /// `output-too-large`, found before it is built, and the others are
    /// admitted; copies of one that fits (an import error is copied into
    /// every case) count what they expand to toward the submission's
    /// total before any is built.
    #[test]
    fn a_marshalled_result_counts_what_it_expands_to() {
        let huge = repeated_text(100_000, 800_000);
        let fits = repeated_text(100_000, 30);
        let texts = [huge, fits.clone(), "{\"kind\":\"missing\"}".to_string()];
        let started = std::time::Instant::now();
        let got = outcomes(&reply(&texts), texts.len());
        assert!(
            started.elapsed().as_secs_f64() < 5.0,
            "{:?}",
            started.elapsed()
        );
        assert_eq!(got[0], CaseOutcome::OutputTooLarge);
        assert!(matches!(&got[1], CaseOutcome::Returned { value, .. }
            if value.text().len() == 31 * 100_003 + 1));
        assert_eq!(got[2], CaseOutcome::Missing);
        let (_, bytes) = admission(&fits);
        assert_eq!(bytes, caps::outcome_bytes(&capped_outcome(&fits)));
        let n = caps::MAX_SUBMISSION_BYTES / bytes + 1;
        let many = vec![fits; n];
        match parse_reply(&reply(&many), n) {
            Err(RecordError::TooLarge(_)) => {}
            Ok(_) => panic!("{n} outcomes admitted"),
            Err(e) => panic!("{e}"),
        }
    }
}
