//! `--csv`: a gradebook, one row per submission: `id`, `status`, the points of
//! each checkpoint (course order), `total`, `max`, and for instructors
//! `integrity` (how many integrity findings).
//! Every text cell is a [`crate::text::spreadsheet_cell`]: never a formula.
//! Numbers are exact (every digit of the JSON report's float), so the
//! checkpoint cells add up to `total` and a score below `max` never reads as it.

use super::fmt_exact;
use crate::grade::{Audience, GradeRun, Status};

/// A submission's points in assignment `a`: its checkpoints' points, scaled
/// to the assignment's own `points` when it gives them.
pub fn assignment_points(a: &crate::corpus::Assignment, s: &crate::grade::SubmissionGrade) -> f64 {
    let of_a = || {
        s.checkpoints
            .iter()
            .filter(|c| a.checkpoints.iter().any(|id| **id == *c.id))
    };
    let got: f64 = of_a().map(|c| c.points).sum();
    let max: f64 = of_a().map(|c| c.max_points).sum();
    match a.points {
        Some(p) if max > 0.0 => got * p / max,
        _ => got,
    }
}

/// The gradebook as CSV text.
pub fn render(run: &GradeRun) -> Result<String, ::csv::Error> {
    let mut bytes = Vec::new();
    write(run, &mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Writes the gradebook into `out` (summaries only: no case grades read).
pub fn write(run: &GradeRun, out: &mut dyn std::io::Write) -> Result<(), ::csv::Error> {
    let mut w = ::csv::WriterBuilder::new()
        .terminator(::csv::Terminator::Any(b'\n'))
        .from_writer(out);
    let mut header = vec!["id".to_string(), "status".to_string()];
    // Across several assignments (`--assignment all`): one column each,
    // before the checkpoints.
    let assignments: &[crate::corpus::Assignment] = match run.corpus.assignments.as_slice() {
        [_] => &[],
        many => many,
    };
    header.extend(assignments.iter().map(|a| a.id.clone()));
    header.extend(run.corpus.checkpoints.iter().map(|c| c.id.clone()));
    header.push("total".into());
    header.push("max".into());
    // Instructors' gradebooks count each submission's integrity findings.
    let integrity = run.audience == Audience::Instructor;
    if integrity {
        header.push("integrity".into());
    }
    w.write_record(&header)?;
    for s in &run.submissions {
        let mut row = vec![
            crate::text::spreadsheet_cell(&s.id),
            s.status.name().to_string(),
        ];
        row.extend(assignments.iter().map(|a| match s.status {
            Status::Graded => fmt_exact(assignment_points(a, s)),
            Status::Error => String::new(),
        }));
        row.extend(s.checkpoints.iter().map(|c| match s.status {
            Status::Graded => fmt_exact(c.points),
            Status::Error => String::new(),
        }));
        row.push(fmt_exact(s.points));
        row.push(fmt_exact(s.max_points));
        if integrity {
            row.push(s.integrity.len().to_string());
        }
        w.write_record(&row)?;
    }
    w.flush()?;
    Ok(())
}
