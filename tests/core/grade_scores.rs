//! Scores and statuses of the fixture recordings against the fixture corpus.

use crate::util::grading as support;

use autograder::corpus::Scoring;
use autograder::grade::{self, Audience, GradeRun, Status, SubmissionGrade};
use autograder::recording::format::{CaseOutcome, Recording};

fn sub<'a>(run: &'a GradeRun, id: &str) -> &'a SubmissionGrade {
    run.submissions.iter().find(|s| s.id == id).expect(id)
}

#[test]
fn the_model_recording_scores_full_points() {
    let run = support::run();
    let model = sub(&run, "model");
    assert_eq!(model.status, Status::Graded);
    assert_eq!(model.max_points, 4.0);
    assert_eq!(model.points, model.max_points);
    assert!(model.checkpoints.iter().all(|c| c.passed && c.score == 1.0));
    assert_eq!(run.corpus.cases, 8);
}

/// Under `cases`, the proportional credit every run had before policies.
#[test]
fn cases_scores_are_passed_weight_over_total_weight() {
    let run = support::run_under(Scoring::Cases);
    let partial = sub(&run, "partial");
    let parse = &partial.checkpoints[0];
    assert_eq!(&*parse.id, "parse_contract_json");
    // object, trailing and the weight-2 hidden nan case all fail.
    assert_eq!((parse.weight_passed, parse.weight_total), (0, 4));
    let order = &partial.checkpoints[2];
    assert_eq!(&*order.id, "order_tool_results");
    // shuffled timed out, empty not recorded, tuple-calls raised a fake ValueError.
    assert_eq!((order.cases_passed, order.cases_total), (0, 3));

    let mixed = sub(&run, "mixed");
    let vtc = &mixed.checkpoints[1];
    // ok changed its argument; bool-x raised UnicodeDecodeError (a ValueError).
    assert_eq!((vtc.weight_passed, vtc.weight_total), (1, 2));
    assert_eq!(vtc.score, 0.5);
    assert_eq!(vtc.points, 0.5);
    assert!(!vtc.passed);
    assert_eq!(mixed.points, 0.5);
}

/// By default a checkpoint earns its points only when every case passes:
/// `mixed` passed one of validate_tool_call's two cases and earns nothing.
#[test]
fn checkpoints_scores_are_all_or_nothing() {
    let run = support::run();
    assert_eq!(run.corpus.scoring, Scoring::Checkpoints);
    let mixed = sub(&run, "mixed");
    let vtc = &mixed.checkpoints[1];
    assert_eq!((vtc.weight_passed, vtc.weight_total), (1, 2));
    assert_eq!((vtc.score, vtc.points), (0.0, 0.0));
    assert!(vtc.criteria.is_empty());
    assert_eq!(mixed.points, 0.0);
    for s in &run.submissions {
        let passed: f64 = s
            .checkpoints
            .iter()
            .filter(|c| c.passed)
            .map(|c| c.max_points)
            .sum();
        assert_eq!(s.points, passed, "{}", s.id);
    }
}

/// Under `criteria` the tags are the criteria, the checkpoint's points
/// split evenly: validate_tool_call's `valid` failed (ok), its
/// `boolean-ints` passed (bool-x).
#[test]
fn criteria_scores_are_the_passed_criteria_points() {
    let run = support::run_under(Scoring::Criteria);
    let info = &run.corpus.checkpoints[1];
    let titles: Vec<&str> = info.criteria.iter().map(|c| c.title.as_str()).collect();
    assert_eq!(titles, ["valid", "boolean-ints"]);
    assert_eq!(info.criteria[0].points, 0.5);
    let vtc = &sub(&run, "mixed").checkpoints[1];
    let passed: Vec<bool> = vtc.criteria.iter().map(|c| c.passed).collect();
    assert_eq!(passed, [false, true]);
    assert_eq!(vtc.points, 0.5);
    // order_tool_results (2 points): shuffled has two tags and counts in both.
    let order = &run.corpus.checkpoints[2];
    let cases: Vec<&[u32]> = order.criteria.iter().map(|c| c.cases.as_slice()).collect();
    assert_eq!(cases, [&[0, 1][..], &[0][..], &[2][..]]);
    assert_eq!(order.criteria[0].points, 2.0 / 3.0);
    // A run rescored (what `merge --scoring` does) equals one graded so.
    let rescored = support::run().rescored(Scoring::Criteria);
    assert_eq!(rescored, run);
    assert_eq!(
        support::run_under(Scoring::Criteria).rescored(Scoring::Cases),
        support::run_under(Scoring::Cases)
    );
}

#[test]
fn an_unusable_recording_is_an_error_and_the_others_are_graded() {
    let run = support::run();
    let broken = sub(&run, "broken");
    assert_eq!(broken.status, Status::Error);
    assert!(
        broken.error.as_deref().unwrap().contains("EOF"),
        "{:?}",
        broken.error
    );
    assert_eq!(broken.points, 0.0);
    let ids: Vec<&str> = run.submissions.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["broken", "mixed", "model", "partial", "syntax-error"]);
    assert_eq!(run.below(100.0).len(), 4);
    assert_eq!(run.below(0.0).len(), 1);
}

#[test]
fn an_import_error_fails_every_case_with_its_reason() {
    let run = support::run();
    let s = sub(&run, "syntax-error");
    assert_eq!(s.status, Status::Graded);
    assert_eq!(s.points, 0.0);
    for cp in &s.checkpoints {
        for (_, f) in cp.failures() {
            assert_eq!(
                f.reason,
                "main.py did not import: SyntaxError line 12: invalid syntax"
            );
        }
        assert_eq!(cp.failures().count(), cp.cases_total);
    }
}

#[test]
fn grading_is_independent_of_input_order_and_threads() {
    let corpus = support::corpus();
    let expected = support::expected(&corpus);
    let mut recs = support::recordings();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let a = one.install(|| grade::grade_recordings(&corpus, &expected, recs.clone()));
    recs.reverse();
    let b = grade::grade_recordings(&corpus, &expected, recs);
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
}

#[test]
fn students_never_see_the_input_of_a_hidden_case() {
    let run = support::run().for_audience(Audience::Student);
    let partial = sub(&run, "partial");
    // The fixture's one hidden case of the checkpoint (`nan`), named
    // neutrally: its id can tell the input.
    assert!(!partial.checkpoints[0].cases.iter().any(|c| c.case == "nan"));
    let nan = partial.checkpoints[0]
        .cases
        .iter()
        .find(|c| c.case == autograder::grade::hidden_case_name(1, 1))
        .unwrap();
    assert_eq!(nan.id, "parse_contract_json/hidden case 1 of 1");
    let f = nan.failure.as_ref().unwrap();
    assert_eq!(
        f.reason,
        "a hidden case failed: expected ValueError, got a return value"
    );
    assert!(f.call.is_none() && f.expected.is_none() && f.got.is_none() && f.diff.is_none());
    // Visible cases keep their details.
    let object = &partial.checkpoints[0].cases[0];
    assert!(object.failure.as_ref().unwrap().diff.is_some());
}

#[test]
fn a_stale_recording_grades_unknown_cases_as_not_recorded() {
    let corpus = support::corpus();
    let expected = support::expected(&corpus);
    let mut rec: Recording =
        support::read_recording(&support::fixture_dir().join("recordings/model.json")).unwrap();
    rec.corpus_fingerprint = "an older corpus".into();
    rec.outcomes.remove("validate_tool_call/ok");
    rec.outcomes
        .insert("validate_tool_call/gone".into(), CaseOutcome::Missing);
    let run = grade::grade_recordings(&corpus, &expected, vec![("old".into(), Ok(rec))]);
    let s = &run.submissions[0];
    assert!(s.recording.as_ref().unwrap().stale);
    let ok = &s.checkpoints[1].cases[0];
    assert_eq!(ok.failure.as_ref().unwrap().reason, "not recorded");
    // validate_tool_call (1 point) is not passed: all or nothing.
    assert_eq!(s.points, 3.0);
}

/// A spooled run (case grades on disk, summaries in memory) gives back
/// exactly the submissions it was made from, for either audience.
#[test]
fn a_spooled_run_reads_back_every_case_grade() {
    let run = support::run();
    let spooled = run.clone().spooled().expect("spool");
    assert!(spooled
        .submissions
        .iter()
        .all(|s| s.checkpoints.iter().all(|c| c.cases.is_empty())));
    for audience in [Audience::Instructor, Audience::Student] {
        let want = run.for_audience(audience);
        let got = spooled.view(audience);
        let full: Vec<_> = got.full().map(|s| s.into_owned()).collect();
        assert_eq!(full, want.submissions, "{audience:?}");
    }
    assert_eq!(spooled.details.error(), None);
}

/// The grader remembers outcomes it has judged: a submission graded after
/// others returned the same values is graded exactly as on its own.
#[test]
fn a_remembered_outcome_grades_as_a_fresh_one() {
    let corpus = support::corpus();
    let expected = support::expected(&corpus);
    let alone: Vec<_> = support::recordings()
        .into_iter()
        .map(|(id, rec)| grade::grade_recordings(&corpus, &expected, vec![(id, rec)]))
        .flat_map(|run| run.submissions)
        .collect();
    // Every recording twice in one run: the second copies hit the memo.
    let twice: Vec<_> = support::recordings()
        .into_iter()
        .flat_map(|(id, rec)| [(format!("{id}-1"), rec.clone()), (format!("{id}-2"), rec)])
        .collect();
    let together = grade::grade_recordings(&corpus, &expected, twice);
    for s in &alone {
        for copy in ["1", "2"] {
            let id = format!("{}-{copy}", s.id);
            let mut got = together
                .submissions
                .iter()
                .find(|t| t.id == id)
                .unwrap()
                .clone();
            got.id = s.id.clone();
            assert_eq!(&got, s, "{id}");
        }
    }
}
