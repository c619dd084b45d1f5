//! The terminal table fits the terminal (issue 23, item 6): at `COLUMNS`,
//! else the terminal's width, else 100 columns, it has one column per
//! checkpoint when they fit, else one per lesson, else only the totals
//! (the id cut if need be), and no line of it is wider.

use crate::util::record as record_support;

use crate::util::grading as support;

use crate::util::TestCommand;
use autograder::report::{fmt_points, fmt_score};
use record_support::{tier_name, tier_or_skip, TIERS};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `autograder grade SUBS --cases cases/ --json JSON` with `COLUMNS` set to
/// `columns` (unset for `None`), recording under `tier` if it records,
/// stdout a pipe; its stdout.
fn grade(
    subs: &Path,
    work: &Path,
    json: &Path,
    columns: Option<usize>,
    tier: Option<&str>,
) -> String {
    let mut cmd = TestCommand::grade(subs, &root().join("cases"), work);
    cmd.arg("--json")
        .arg(json)
        .env_remove("CLICOLOR_FORCE")
        .env_remove("COLUMNS");
    if let Some(tier) = tier {
        cmd.env("AUTOGRADER_ISOLATION", tier);
    }
    if let Some(n) = columns {
        cmd.env("COLUMNS", n.to_string());
    }
    let out = cmd.output();
    assert!(
        out.status.success() || out.status.code() == Some(1),
        "exit {:?}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The table's lines: everything before the first blank line.
fn table(stdout: &str) -> Vec<&str> {
    stdout.lines().take_while(|l| !l.is_empty()).collect()
}

/// A line's cells: they are at least two spaces apart (a total, `11.86/12
/// (99%)`, holds one).
fn cells(line: &str) -> Vec<String> {
    line.split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether `shown` is `full`, or `full` cut: a prefix of it and `…`.
fn names(shown: &str, full: &str) -> bool {
    shown == full
        || shown
            .strip_suffix('…')
            .is_some_and(|p| !p.is_empty() && full.starts_with(p))
}

/// A submission's expected row: its id, its checkpoint cells, its lesson cells.
type Row = (String, Vec<String>, Vec<String>);

/// What the report says the table should show.
struct Expected {
    checkpoints: Vec<String>,
    lessons: Vec<String>,
    rows: Vec<Row>,
}

fn expected(json: &Path) -> Expected {
    let report: Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    let text = |v: &Value| v.as_str().unwrap().to_string();
    let course = report["corpus"]["checkpoints"].as_array().unwrap();
    let checkpoints: Vec<String> = course.iter().map(|c| text(&c["id"])).collect();
    let mut lessons: Vec<String> = Vec::new();
    for c in course {
        if !lessons.contains(&text(&c["lesson"])) {
            lessons.push(text(&c["lesson"]));
        }
    }
    let rows = report["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let error = s["status"] == "error";
            let cps = s["checkpoints"].as_array().unwrap();
            let by_checkpoint = cps
                .iter()
                .map(|c| match () {
                    _ if error => "-".to_string(),
                    _ if c["passed"] == true => "✓".to_string(),
                    _ => format!("{}/{}", c["weight_passed"], c["weight_total"]),
                })
                .collect();
            let by_lesson = lessons
                .iter()
                .map(|lesson| {
                    let of: Vec<&Value> = cps.iter().filter(|c| c["lesson"] == **lesson).collect();
                    if error {
                        return "-".to_string();
                    }
                    if of.iter().all(|c| c["passed"] == true) {
                        return "✓".to_string();
                    }
                    let points: f64 = of.iter().map(|c| c["points"].as_f64().unwrap()).sum();
                    let max: f64 = of.iter().map(|c| c["max_points"].as_f64().unwrap()).sum();
                    format!("{}/{}", fmt_score(points, max), fmt_points(max))
                })
                .collect();
            (text(&s["id"]), by_checkpoint, by_lesson)
        })
        .collect();
    Expected {
        checkpoints,
        lessons,
        rows,
    }
}

/// No line of the table is wider than `width` characters.
fn assert_fits(lines: &[&str], width: usize) {
    for line in lines {
        assert!(
            line.chars().count() <= width,
            "{} characters, wider than {width}: {line:?}\n{}",
            line.chars().count(),
            lines.join("\n")
        );
    }
}

/// Every row as `expected` says, in the layout whose middle cells `pick`
/// chooses; ids whole.
fn assert_rows(lines: &[&str], expected: &Expected, pick: fn(&Row) -> &Vec<String>) {
    assert!(lines.len() > expected.rows.len(), "{}", lines.join("\n"));
    for (line, row) in lines[1..].iter().zip(&expected.rows) {
        let got = cells(line);
        assert_eq!(got[0], row.0, "{line}");
        assert_eq!(&got[1..got.len() - 1], pick(row).as_slice(), "{line}");
    }
}

/// The checks every width makes on one stdout; the layout by width as
/// `wide` (one column per checkpoint) and `lessons` (one per lesson) say.
fn check(stdout: &str, width: usize, expected: &Expected, layout: &str) {
    let lines = table(stdout);
    assert_fits(&lines, width);
    let header = cells(lines[0]);
    let n = expected.rows.len();
    match layout {
        "checkpoints" => {
            let mut want = vec!["submission".to_string()];
            want.extend(expected.checkpoints.iter().cloned());
            want.push("total".into());
            assert_eq!(header, want, "{stdout}");
            // No note: the table as it always was.
            assert_eq!(lines.len(), 1 + n, "{stdout}");
            assert_rows(&lines, expected, |r| &r.1);
        }
        "lessons" => {
            assert_eq!(header.len(), 2 + expected.lessons.len(), "{stdout}");
            assert_eq!(header[0], "submission");
            assert_eq!(header[header.len() - 1], "total");
            for (shown, lesson) in header[1..].iter().zip(&expected.lessons) {
                assert!(names(shown, lesson), "{shown} for {lesson}\n{stdout}");
            }
            assert_eq!(lines.len(), 1 + n + 1, "{stdout}");
            assert!(
                lines[n + 1].starts_with("columns are lessons, to fit"),
                "{stdout}"
            );
            assert_rows(&lines, expected, |r| &r.2);
        }
        "totals" => {
            assert_eq!(header.len(), 2, "{stdout}");
            assert!(names(&header[0], "submission"), "{stdout}");
            assert_eq!(header[1], "total");
            assert_eq!(lines.len(), 1 + n + 1, "{stdout}");
            assert!(lines[n + 1].starts_with("totals only"), "{stdout}");
            for (line, row) in lines[1..].iter().zip(&expected.rows) {
                let got = cells(line);
                assert_eq!(got.len(), 2, "{line}");
                assert!(names(&got[0], &row.0), "{line}");
            }
        }
        other => unreachable!("{other}"),
    }
}

fn write_recording(subs: &Path, rec: &autograder::recording::format::Recording) {
    let dir = subs.join(&rec.submission);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("recording.json"), serde_json::to_vec(rec).unwrap()).unwrap();
}

/// Shipped recordings of the course's twelve checkpoints (no sandbox
/// needed): a model answer with a long id, one that fails two cases of
/// `execute_tool`, one that fails every case of `parse_contract_json` and
/// one of `run_tool_loop`, and a broken recording.
#[test]
fn the_course_table_fits_every_width() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Heavy) {
        return;
    }
    use autograder::recording::format::CaseOutcome;
    let tmp = tempfile::tempdir().unwrap();
    let subs = tmp.path().join("subs");
    let corpus = autograder::corpus::load(&root().join("cases")).unwrap();
    let raised = || CaseOutcome::Raised {
        class: "TypeError".into(),
        mro: vec![
            "TypeError".into(),
            "Exception".into(),
            "BaseException".into(),
            "object".into(),
        ],
        message: "no".into(),
    };
    let failing = |id: &str, checkpoints: &[(&str, usize)]| {
        let mut rec = support::perfect_recording(&corpus, id);
        for &(checkpoint, n) in checkpoints {
            let cases = corpus.cases.iter().filter(|c| c.checkpoint == checkpoint);
            for case in cases.take(n) {
                rec.outcomes.insert(case.id.clone(), raised());
            }
        }
        rec
    };
    write_recording(
        &subs,
        &support::perfect_recording(&corpus, "validates-before-unknown-tool"),
    );
    write_recording(
        &subs,
        &failing("executes-two-unvalidated", &[("execute_tool", 2)]),
    );
    write_recording(
        &subs,
        &failing(
            "two-lessons",
            &[("parse_contract_json", usize::MAX), ("run_tool_loop", 1)],
        ),
    );
    std::fs::create_dir_all(subs.join("broken")).unwrap();
    std::fs::write(subs.join("broken/recording.json"), "{").unwrap();

    let work = tmp.path().join("work");
    let json = tmp.path().join("report.json");
    let run = |columns| grade(&subs, &work, &json, columns, None);
    let wide = run(Some(250));
    let expected = expected(&json);
    assert_eq!(expected.checkpoints.len(), 12);
    assert_eq!(expected.lessons.len(), 4);
    check(&wide, 250, &expected, "checkpoints");

    let hundred = run(Some(100));
    check(&hundred, 100, &expected, "lessons");
    // The known rows, cell by cell.
    let row = |id: &str| {
        cells(
            table(&hundred)
                .into_iter()
                .find(|l| l.starts_with(&format!("{id} ")))
                .unwrap(),
        )
    };
    let execute = row("executes-two-unvalidated");
    assert_eq!(execute[1], "✓");
    assert!(
        execute[2].ends_with("/3") && execute[2] != "3/3",
        "{execute:?}"
    );
    assert_eq!(execute[3..5], ["✓", "✓"]);
    assert_eq!(row("two-lessons")[1], "2/3");
    assert!(row("two-lessons")[4].ends_with("/3"));
    assert_eq!(row("broken")[1..], ["-", "-", "-", "-", "error"]);
    assert_eq!(
        row("validates-before-unknown-tool")[1..],
        ["✓", "✓", "✓", "✓", "12/12 (100%)"]
    );

    // A pipe without COLUMNS is 100 wide.
    assert_eq!(run(None), hundred);
    check(&run(Some(60)), 60, &expected, "totals");
    // Narrower than an id and a total: the ids are cut, the rows still fit.
    let narrow = run(Some(24));
    check(&narrow, 24, &expected, "totals");
    assert!(
        table(&narrow)[1..]
            .iter()
            .any(|l| cells(l)[0].ends_with('…')),
        "{narrow}"
    );
    let tiny = run(Some(5));
    assert_fits(&table(&tiny), 5);
}

/// The README's command on the bundled submissions (recorded in a
/// sandbox): the table fits in 100 columns, with `COLUMNS=100` and in a
/// pipe without it, by lesson; at 250 it is one column per checkpoint.
#[test]
fn the_bundled_submissions_fit_in_100_columns() {
    if !crate::util::tier::runs(crate::util::tier::Tier::Heavy) {
        return;
    }
    let Some(tier) = TIERS
        .into_iter()
        .find(|&t| tier_or_skip(t, "terminal_width"))
        .map(tier_name)
    else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    let json = tmp.path().join("report.json");
    let subs = root().join("submissions");
    let run = |columns| grade(&subs, &work, &json, columns, Some(tier));
    // The first run records; the others grade from the store.
    let wide = run(Some(250));
    let expected = expected(&json);
    assert_eq!(expected.rows.len(), 41);
    check(&wide, 250, &expected, "checkpoints");
    let hundred = run(Some(100));
    check(&hundred, 100, &expected, "lessons");
    assert_eq!(run(None), hundred);
    // `executes-unvalidated` fails only execute_tool, of lesson tool-proposals.
    let row = table(&hundred)
        .into_iter()
        .find(|l| l.starts_with("executes-unvalidated "))
        .map(cells)
        .unwrap();
    assert_eq!(row[1], "✓");
    assert!(row[2].ends_with("/3") && row[2] != "3/3", "{row:?}");
    assert_eq!(row[3..5], ["✓", "✓"]);
    check(&run(Some(60)), 60, &expected, "totals");
    say!("terminal_width: the bundled submissions under {tier}");
}
