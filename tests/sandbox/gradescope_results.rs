//! Gradescope's `results.json` as `run_autograder` makes it (`grade UPLOAD
//! --cases cases --assignment tool-proposals --main-py-only --gradescope
//! FILE`) for a model, a buggy, a hostile and two ungradable uploads, under
//! every `--gradescope-*` option and both `--audience` values (issue 43).
//! Each file is checked against Gradescope's specification
//! (<https://gradescope-autograders.readthedocs.io/en/latest/specs/>, see
//! `util::gradescope_spec`), then against what the options promise: no
//! hidden test unless hidden case tests are asked for (with one, students
//! see no total), hidden cases named neutrally, the same file whoever runs
//! the command, student markup and escapes shown as text.

use crate::util::gradescope_spec::{checked, hidden_tests, outputs, tests};
use crate::util::record::{tier_name, tier_or_skip, TIERS};
use crate::util::TestCommand;
use autograder::corpus::Visibility;
use autograder::report::gradescope::ENVIRONMENT_TEST;
use autograder::text::escaped;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The assignment the Gradescope zip of `tests/deploy/gradescope.rs` grades.
const ASSIGNMENT: &str = "tool-proposals";
/// Its checkpoints, one point each.
const CHECKPOINTS: [&str; 3] = ["validate_tool_call", "execute_tool", "order_tool_results"];
/// What `markup.py` raises and returns: an entity, markup and colours.
const MARK: &str = "<b>bold</b> &amp; & \x1b[31mred\x1b[0m";
/// Its exception class's name.
const MARK_CLASS: &str = "Mark<b>&\x1b[31m";
/// What the upload without main.py holds: its folder's name is the
/// student's, with markup and an escape.
const NO_MAIN_PY: &str = "notes<b>&\x1b[31m/solution.py";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Upload {
    Model,
    /// `returns-input-call`: fails some of validate_tool_call.
    Buggy,
    /// The model with `markup.py` after it.
    Hostile,
    /// A main.py that does not import.
    SyntaxError,
    /// An upload without main.py ([`NO_MAIN_PY`]): graded as a
    /// submission in error, whose message names what it holds.
    NoMainPy,
}

const UPLOADS: [Upload; 5] = [
    Upload::Model,
    Upload::Buggy,
    Upload::Hostile,
    Upload::SyntaxError,
    Upload::NoMainPy,
];

impl Upload {
    /// The upload's folder under `dir`, written.
    fn write(self, dir: &Path) -> PathBuf {
        let bundled = |name: &str| {
            std::fs::read_to_string(root().join("submissions").join(name).join("main.py")).unwrap()
        };
        let (file, text) = match self {
            Upload::Model => ("main.py", bundled("model-solution")),
            Upload::Buggy => ("main.py", bundled("returns-input-call")),
            Upload::Hostile => {
                let tail =
                    std::fs::read_to_string(root().join("tests/fixtures/student-bytes/markup.py"))
                        .unwrap();
                // The fixture's literal is MARK, written as Python source.
                assert!(tail.contains(&escaped(MARK)), "markup.py changed");
                ("main.py", bundled("model-solution") + &tail)
            }
            Upload::SyntaxError => (
                "main.py",
                "def validate_tool_call(call:\n    return '<b>&'\n".into(),
            ),
            Upload::NoMainPy => (NO_MAIN_PY, bundled("model-solution")),
        };
        let folder = dir.join(format!("{self:?}"));
        let path = folder.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        folder
    }
}

/// `--gradescope-hidden` and `--gradescope-tests` as given (`None`: left
/// out, the default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Layout {
    hidden: Option<&'static str>,
    tests: Option<&'static str>,
}

impl Layout {
    fn args(self) -> Vec<&'static str> {
        let mut args = Vec::new();
        if let Some(h) = self.hidden {
            args.extend(["--gradescope-hidden", h]);
        }
        if let Some(t) = self.tests {
            args.extend(["--gradescope-tests", t]);
        }
        args
    }

    fn per_case(self) -> bool {
        self.tests == Some("case")
    }

    /// Whether hidden cases are Gradescope tests students never see.
    fn hides(self) -> bool {
        self.per_case() && self.hidden != Some("after-published")
    }
}

/// The defaults (`hidden`, `checkpoint`), then every value of each option.
const LAYOUTS: [Layout; 4] = [
    Layout {
        hidden: None,
        tests: None,
    },
    Layout {
        hidden: Some("hidden"),
        tests: Some("case"),
    },
    Layout {
        hidden: Some("after-published"),
        tests: Some("checkpoint"),
    },
    Layout {
        hidden: Some("after-published"),
        tests: Some("case"),
    },
];

const AUDIENCES: [&str; 2] = ["instructor", "student"];

/// The assignment's hidden cases, from the corpus.
struct HiddenCases {
    count: usize,
    /// Those no visible case shares a name with, as `(checkpoint, case)`:
    /// a student's view must never name them.
    unshared: Vec<(String, String)>,
}

fn hidden_cases() -> HiddenCases {
    let corpus = autograder::corpus::load(&root().join("cases")).unwrap();
    let ours = || corpus.cases.iter().filter(|c| c.lesson == ASSIGNMENT);
    let visible: Vec<&str> = ours()
        .filter(|c| c.visibility == Visibility::Visible)
        .map(|c| c.name.as_str())
        .collect();
    let hidden = || ours().filter(|c| c.visibility == Visibility::Hidden);
    HiddenCases {
        count: hidden().count(),
        unshared: hidden()
            .filter(|c| !visible.contains(&c.name.as_str()))
            .map(|c| (c.checkpoint.clone(), c.name.clone()))
            .collect(),
    }
}

/// The ways a report names a case: a test's name, and a failure's line.
fn names_case(text: &str, (checkpoint, name): &(String, String)) -> bool {
    [
        format!("\"{checkpoint}/{name}\""),
        format!("{checkpoint}/{name} "),
        format!("✗ {name} "),
        format!("✗ {name}:"),
    ]
    .iter()
    .any(|p| text.contains(p.as_str()))
}

type Files = BTreeMap<(Upload, Layout, &'static str), Vec<u8>>;

/// Every upload graded under every layout and audience, two runs at a
/// time (each upload's runs one after another: they share its work dir,
/// which its first run records into).
fn grade_all(tier: &str, dir: &Path) -> Files {
    let files = Mutex::new(Files::new());
    let next = Mutex::new(UPLOADS.iter());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let Some(&upload) = next.lock().unwrap().next() else {
                    return;
                };
                let folder = upload.write(&dir.join("uploads"));
                let work = dir.join("work").join(format!("{upload:?}"));
                for layout in LAYOUTS {
                    for audience in AUDIENCES {
                        let file = grade(tier, &folder, &work, layout, audience);
                        files
                            .lock()
                            .unwrap()
                            .insert((upload, layout, audience), file);
                    }
                }
            });
        }
    });
    files.into_inner().unwrap()
}

/// One run as `run_autograder` makes it; its results.json.
fn grade(tier: &str, upload: &Path, work: &Path, layout: Layout, audience: &str) -> Vec<u8> {
    let results = work.with_extension(format!(
        "{}-{}-{audience}.json",
        layout.hidden.unwrap_or("default"),
        layout.tests.unwrap_or("default")
    ));
    let out = TestCommand::grade(upload, &root().join("cases"), work)
        .env("AUTOGRADER_ISOLATION", tier)
        .args(["--assignment", ASSIGNMENT, "--main-py-only", "--quiet"])
        .args(["--audience", audience, "--gradescope"])
        .arg(&results)
        .args(layout.args())
        .output();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{upload:?} {layout:?} {audience}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read(&results).unwrap()
}

#[test]
fn results_json_meets_the_specification_for_every_upload_and_option() {
    let Some(tier) = TIERS
        .into_iter()
        .find(|&t| tier_or_skip(t, "gradescope_results"))
    else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let files = grade_all(tier_name(tier), tmp.path());
    let hidden = hidden_cases();
    assert!(hidden.unshared.len() > 10, "{}", hidden.count);
    for upload in UPLOADS {
        for layout in LAYOUTS {
            let what = format!("{upload:?} {layout:?}");
            let file = &files[&(upload, layout, "instructor")];
            // Gradescope shows students the file: it is theirs whoever runs
            // the command.
            assert!(
                file == &files[&(upload, layout, "student")],
                "{what}: --audience changes results.json"
            );
            let doc = checked(file, &what);
            check_layout(&doc, upload, layout, hidden.count, &what);
            check_upload(&doc, upload, layout, &what);
            let text = String::from_utf8_lossy(file);
            for case in &hidden.unshared {
                assert!(!names_case(&text, case), "{what}: names {case:?}");
            }
        }
    }
    say!(
        "results.json meets Gradescope's specification for {} uploads × {} layouts × 2 audiences under {}",
        UPLOADS.len(),
        LAYOUTS.len(),
        tier_name(tier)
    );
}

/// What `--gradescope-tests` and `--gradescope-hidden` promise.
fn check_layout(doc: &Value, upload: Upload, layout: Layout, hidden_cases: usize, what: &str) {
    assert_eq!(doc["visibility"], "visible", "{what}");
    let tests = tests(doc);
    if upload == Upload::NoMainPy {
        assert!(tests.is_empty(), "{what}: {doc}");
        return;
    }
    let hidden = hidden_tests(doc);
    if !layout.per_case() {
        let names: Vec<&str> = tests.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, CHECKPOINTS, "{what}");
        assert!(hidden.is_empty(), "{what}: a hidden test: {hidden:?}");
        return;
    }
    // One test per case; hidden cases named `<checkpoint>/hidden case k of
    // n`, shown to students as asked; the environment test only beside
    // hidden ones (students see no total anyway).
    let not_visible: Vec<&Value> = tests
        .iter()
        .filter(|t| t["visibility"] != "visible" && t["name"] != ENVIRONMENT_TEST)
        .collect();
    assert_eq!(not_visible.len(), hidden_cases, "{what}");
    let want = if layout.hides() {
        "hidden"
    } else {
        "after_published"
    };
    for t in &not_visible {
        assert_eq!(t["visibility"], want, "{what}: {t}");
        assert!(
            t["name"].as_str().unwrap().contains("/hidden case "),
            "{what}: {t}"
        );
    }
    let environment = tests.iter().any(|t| t["name"] == ENVIRONMENT_TEST);
    assert_eq!(environment, layout.hides(), "{what}");
    if !layout.hides() {
        assert!(hidden.is_empty(), "{what}: a hidden test: {hidden:?}");
    }
}

/// What each upload's file says.
fn check_upload(doc: &Value, upload: Upload, layout: Layout, what: &str) {
    let score = doc["score"].as_f64().unwrap();
    let points = CHECKPOINTS.len() as f64;
    assert_eq!(doc["max_score"].as_f64(), Some(points), "{what}");
    let top = doc["output"].as_str().unwrap();
    let tests = tests(doc);
    match upload {
        Upload::Model => {
            assert_eq!(score, points, "{what}");
            assert!(tests.iter().all(|t| t["status"] == "passed"), "{what}");
        }
        Upload::Buggy => {
            assert!(0.0 < score && score < points, "{what}: {score}");
            let failed = tests.iter().find(|t| t["status"] == "failed").unwrap();
            assert!(
                failed["name"]
                    .as_str()
                    .unwrap()
                    .starts_with("validate_tool_call"),
                "{what}: {failed}"
            );
        }
        Upload::Hostile => {
            assert!(score < points, "{what}: {score}");
            // Shown as text: the escapes visible, the markup as written,
            // not rendered and not escaped twice.
            let shown = outputs(doc);
            let quoted = format!("raised main.{}: {}", escaped(MARK_CLASS), escaped(MARK));
            let with = |needle: &str| shown.iter().filter(|(o, _)| o.contains(needle)).count();
            assert!(with(&quoted) > 0, "{what}: {quoted:?} is not shown");
            assert!(with(&format!("'{}'", escaped(MARK))) > 0, "{what}");
            assert_eq!(with("&lt;"), 0, "{what}: HTML-escaped text");
            assert_eq!(with("&amp;amp;"), 0, "{what}: escaped twice");
            assert!(shown.iter().all(|(_, format)| *format == "text"), "{what}");
        }
        Upload::SyntaxError => {
            assert_eq!(score, 0.0, "{what}");
            assert!(
                top.contains("main.py did not import under CPython ")
                    && top.contains(", so none of its cases could run: SyntaxError"),
                "{what}: {top}"
            );
            let pointer = if layout.per_case() {
                "failed for the reason at the top of the page"
            } else {
                "(every case failed for the reason at the top of the page)"
            };
            for t in tests.iter().filter(|t| t["name"] != ENVIRONMENT_TEST) {
                assert_eq!(t["status"], "failed", "{what}: {t}");
                assert!(
                    t["output"].as_str().unwrap().contains(pointer),
                    "{what}: {t}"
                );
            }
        }
        Upload::NoMainPy => {
            assert_eq!(score, 0.0, "{what}");
            let folder = escaped(NO_MAIN_PY.split('/').next().unwrap());
            assert!(
                top.starts_with("Your submission could not be graded: ")
                    && top.contains(&format!("{folder}: no main.py")),
                "{what}: {top}"
            );
        }
    }
}
