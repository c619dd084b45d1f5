//! The corpus loader: a good corpus loads in course order; every broken file
//! gives problems naming the file and line (and the case), never a panic,
//! and all problems are reported at once.

use autograder::corpus::{self, Visibility};
use autograder::value::{strict_eq, Exception, Outcome, PyValue};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// A corpus with the course file of the good fixture plus `files`.
fn corpus_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::copy(
        fixture("corpus-good/course.toml"),
        dir.path().join("course.toml"),
    )
    .expect("copy course.toml");
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    dir
}

/// The problems of a corpus that must not load, one display line each.
fn problems(files: &[(&str, &str)]) -> Vec<String> {
    let dir = corpus_with(files);
    match corpus::load(dir.path()) {
        Ok(c) => panic!("should not load, but gave {} cases", c.cases.len()),
        Err(e) => {
            let root = format!("{}/", dir.path().display());
            e.problems
                .iter()
                .map(|p| p.to_string().replace(&root, ""))
                .collect()
        }
    }
}

fn assert_one(files: &[(&str, &str)], want_prefix: &str, want_text: &str) {
    let ps = problems(files);
    assert_eq!(ps.len(), 1, "{ps:#?}");
    assert!(
        ps[0].starts_with(want_prefix),
        "{:?} should start with {want_prefix:?}",
        ps[0]
    );
    assert!(
        ps[0].contains(want_text),
        "{:?} should mention {want_text:?}",
        ps[0]
    );
}

const VT: &str = "tool-proposals/validate_tool_call.toml";
const HEAD: &str = "checkpoint = \"validate_tool_call\"\n";
const OK_CALL: &str =
    "validate_tool_call({'id': 'c1', 'name': 'multiply', 'arguments': {'x': 6, 'y': 7}})";

fn case(id: &str, extra: &str) -> String {
    format!("\n[[case]]\nid = \"{id}\"\ncall = \"{OK_CALL}\"\ntags = [\"valid\"]\n{extra}")
}

#[test]
fn good_fixture_loads_in_course_order() {
    let c = corpus::load(&fixture("corpus-good")).expect("the good fixture loads");
    assert_eq!(c.lessons.len(), 2);
    assert_eq!(c.checkpoints().count(), 6);
    assert_eq!(c.cases.len(), 24);
    let order: Vec<&str> = c.cases.iter().map(|c| c.checkpoint.as_str()).collect();
    let mut sorted = order.clone();
    let rank = |cp: &str| c.checkpoints().position(|x| x.id == cp);
    sorted.sort_by_key(|cp| rank(cp));
    assert_eq!(order, sorted, "cases follow the course's checkpoint order");
    assert_eq!(c.cases[0].id, "parse_contract_json/lesson-id");

    let find = |id: &str| c.cases.iter().find(|c| c.id == id).expect(id);
    let first = find("parse_contract_json/lesson-id");
    assert_eq!(
        (first.lesson.as_str(), first.name.as_str()),
        ("json-contract", "lesson-id")
    );
    assert_eq!(first.line, 9, "the line of its [[case]] header");
    assert!(first
        .file
        .ends_with("json-contract/parse_contract_json.toml"));
    match &first.expect {
        Some(Outcome::Returns(v)) => assert!(strict_eq(
            v,
            &PyValue::dict_of(vec![("id", PyValue::str("r1"))])
        )),
        other => panic!("{other:?}"),
    }
    let dup = find("parse_contract_json/lesson-duplicate");
    assert!(matches!(
        dup.expect,
        Some(Outcome::Raises(Exception::ValueError))
    ));
    let hidden = find("parse_contract_json/escaped-duplicate");
    assert_eq!(hidden.visibility, Visibility::Hidden);
    assert_eq!(
        hidden.note.as_deref(),
        Some("\\u0061 is a, so the key repeats")
    );
    let fits = find("parse_contract_json/exactly-4096-bytes");
    assert_eq!(fits.weight, 2);
    assert_eq!(
        fits.args[0].as_str().map(|s| s.utf8_len()),
        Some(Some(4096))
    );
    assert!(find("parse_contract_json/raw-surrogate").expect.is_none());
    let kw = find("accept_ticket/limit-by-keyword");
    assert_eq!(kw.args.len(), 4);
    assert_eq!(kw.kwargs[0].0, "limit");
    assert_eq!(kw.tags, ["retry-policy"]);
}

#[test]
fn fingerprint_covers_paths_and_contents() {
    let a = corpus_with(&[(VT, &format!("{HEAD}{}", case("one", "")))]);
    let fa = corpus::load(a.path()).expect("loads").fingerprint;
    assert_eq!(fa.len(), 64);
    assert_eq!(
        fa,
        corpus::load(a.path()).expect("loads").fingerprint,
        "deterministic"
    );
    let b = corpus_with(&[(VT, &format!("{HEAD}{}", case("two", "")))]);
    assert_ne!(fa, corpus::load(b.path()).expect("loads").fingerprint);
    let c = corpus_with(&[(
        "tool-proposals/other.toml",
        &format!("{HEAD}{}", case("one", "")),
    )]);
    assert_ne!(fa, corpus::load(c.path()).expect("loads").fingerprint);
}

#[test]
fn toml_syntax_error_names_file_and_line() {
    assert_one(
        &[(VT, &format!("{HEAD}\n[[case]]\nid = \"x\"\ncall = = 1\n"))],
        &format!("{VT}:5:"),
        "TOML syntax",
    );
    assert_one(
        &[(VT, &format!("{HEAD}{}when = 1979-05-27\n", case("x", "")))],
        &format!("{VT}:7:"),
        "dates",
    );
}

#[test]
fn unknown_keys() {
    assert_one(
        &[(
            VT,
            &format!("{HEAD}{}", case("x", "expected = \"ValueError\"\n")),
        )],
        &format!("{VT}:7: case validate_tool_call/x: unknown key \"expected\""),
        "allowed: id, call",
    );
    assert_one(
        &[(VT, &format!("{HEAD}lets = 1\n{}", case("x", "")))],
        &format!("{VT}:2: unknown key \"lets\""),
        "",
    );
}

#[test]
fn unknown_checkpoint_and_wrong_folder() {
    assert_one(
        &[(
            VT,
            &format!("checkpoint = \"validate_call\"\n{}", case("x", "")),
        )],
        &format!("{VT}:1: unknown checkpoint \"validate_call\""),
        "validate_tool_call",
    );
    let misplaced = "json-contract/validate_tool_call.toml";
    assert_one(
        &[(misplaced, &format!("{HEAD}{}", case("x", "")))],
        &format!(
            "{misplaced}:1: checkpoint \"validate_tool_call\" belongs to lesson \"tool-proposals\""
        ),
        "move this file",
    );
    assert_one(
        &[(
            "nowhere/validate_tool_call.toml",
            &format!("{HEAD}{}", case("x", "")),
        )],
        "nowhere: folder \"nowhere\" is not a lesson",
        "",
    );
    assert_one(
        &[("stray.toml", &format!("{HEAD}{}", case("x", "")))],
        "stray.toml: case files belong in a lesson folder",
        "",
    );
    assert_one(
        &[(
            "tool-proposals/deep/x.toml",
            &format!("{HEAD}{}", case("x", "")),
        )],
        "tool-proposals/deep/x.toml: case files belong directly in a lesson folder",
        "",
    );
}

#[test]
fn duplicate_case_ids_within_and_across_files() {
    assert_one(
        &[(VT, &format!("{HEAD}{}{}", case("x", ""), case("x", "")))],
        &format!("{VT}:8: case validate_tool_call/x: duplicate case id (first defined at "),
        ":3)",
    );
    let other = "tool-proposals/validate_tool_call-more.toml";
    assert_one(
        &[
            (VT, &format!("{HEAD}{}", case("x", ""))),
            (other, &format!("{HEAD}{}", case("x", ""))),
        ],
        &format!("{VT}:3: case validate_tool_call/x: duplicate case id"),
        &format!("first defined at {other}:3"),
    );
}

#[test]
fn bad_tags_visibility_weight_and_ids() {
    let file = |body: &str| format!("{HEAD}\n[[case]]\nid = \"x\"\ncall = \"{OK_CALL}\"\n{body}");
    let cases: &[(&str, usize, &str)] = &[
        ("tags = []\n", 6, "at least one tag"),
        ("tags = [\"valid\", \"nope\"]\n", 6, "unknown tag \"nope\""),
        ("tags = [\"valid\", \"valid\"]\n", 6, "listed twice"),
        ("tags = \"valid\"\n", 6, "tags must be an array"),
        ("", 3, "missing key \"tags\""),
        (
            "tags = [\"valid\"]\nvisibility = \"secret\"\n",
            7,
            "visibility must be",
        ),
        (
            "tags = [\"valid\"]\nweight = 0\n",
            7,
            "weight must be a positive integer",
        ),
        (
            "tags = [\"valid\"]\nweight = -3\n",
            7,
            "weight must be a positive integer",
        ),
        (
            "tags = [\"valid\"]\nweight = \"2\"\n",
            7,
            "weight must be a positive integer",
        ),
        (
            "tags = [\"valid\"]\nweight = 1.5\n",
            7,
            "weight must be a positive integer",
        ),
        ("tags = [\"valid\"]\nnote = 3\n", 7, "note must be a string"),
    ];
    for (body, line, text) in cases {
        assert_one(
            &[(VT, &file(body))],
            &format!("{VT}:{line}: case validate_tool_call/x: "),
            text,
        );
    }
    assert_one(
        &[(VT, &format!("{HEAD}{}", case("Bad_Id", "")))],
        &format!("{VT}:4: case validate_tool_call/Bad_Id: case id \"Bad_Id\" must match"),
        "",
    );
}

#[test]
fn calls_that_cannot_be_made() {
    let file = |call: &str| {
        format!("{HEAD}\n[[case]]\nid = \"x\"\ncall = '''{call}'''\ntags = [\"valid\"]\n")
    };
    assert_one(
        &[(VT, &file("execute_tool({})"))],
        &format!("{VT}:5: case validate_tool_call/x: call: this file is for validate_tool_call, but the call is to execute_tool"),
        "",
    );
    assert_one(
        &[(VT, &file("validate_tool_call({'id': 'c1', 'x': [1, 2}"))],
        &format!(
            "{VT}:5: case validate_tool_call/x: call: column 43: SyntaxError: closing parenthesis"
        ),
        "",
    );
    assert_one(
        &[(VT, &file("validate_tool_call({'id': undefined_name})"))],
        &format!("{VT}:5: case validate_tool_call/x: call: column 27: NameError: name 'undefined_name' is not defined"),
        "",
    );
    assert_one(
        &[(VT, &file("validate_tool_call({}, {})"))],
        &format!("{VT}:5: case validate_tool_call/x: call: "),
        "positional argument",
    );
    assert_one(
        &[(VT, &file("validate_tool_call(call={}, limit=2)"))],
        &format!("{VT}:5: case validate_tool_call/x: call: "),
        "limit",
    );
    assert_one(
        &[(VT, &file("validate_tool_call()"))],
        &format!("{VT}:5: case validate_tool_call/x: call: "),
        "call",
    );
}

#[test]
fn expect_that_does_not_parse() {
    assert_one(
        &[(
            VT,
            &format!("{HEAD}{}", case("x", "expect = \"TypeError\"\n")),
        )],
        &format!("{VT}:7: case validate_tool_call/x: expect: column 1: NameError"),
        "bare name ValueError",
    );
    assert_one(
        &[(VT, &format!("{HEAD}{}", case("x", "expect = \"{'a': \"\n")))],
        &format!("{VT}:7: case validate_tool_call/x: expect: "),
        "SyntaxError",
    );
}

#[test]
fn lets_are_checked_and_ordered() {
    let text = format!(
        "{HEAD}[let]\nb = \"a + 1\"\na = \"1\"\nfloat = \"2\"\nn = 5\n{}",
        case("x", "")
    );
    let ps = problems(&[(VT, &text)]);
    assert_eq!(ps.len(), 3, "{ps:#?}");
    assert!(
        ps[0].starts_with(&format!("{VT}:3: let b: column 1: NameError")),
        "{}",
        ps[0]
    );
    assert!(
        ps[1].starts_with(&format!("{VT}:5: let float: bad name")),
        "{}",
        ps[1]
    );
    assert!(
        ps[2].starts_with(&format!("{VT}:6: let n: must be a string")),
        "{}",
        ps[2]
    );
}

#[test]
fn every_problem_is_reported_at_once() {
    let text = format!(
        "{HEAD}{}{}{}{}",
        case("a", "weight = 0\n"),
        case("b", "visibility = \"nope\"\n"),
        case("c", "bogus = 1\n"),
        case("d", "")
    );
    let ps = problems(&[
        (VT, &text),
        (
            "tool-proposals/execute_tool.toml",
            "checkpoint = \"execute_tool\"\n[[case]]\nid = 3\n",
        ),
    ]);
    assert_eq!(ps.len(), 6, "{ps:#?}");
    assert!(ps
        .iter()
        .any(|p| p.contains("validate_tool_call/a") && p.contains("weight")));
    assert!(ps
        .iter()
        .any(|p| p.contains("validate_tool_call/b") && p.contains("visibility")));
    assert!(ps
        .iter()
        .any(|p| p.contains("validate_tool_call/c") && p.contains("bogus")));
    assert!(ps
        .iter()
        .any(|p| p.starts_with("tool-proposals/execute_tool.toml:3:")
            && p.contains("id must be a string")));
    assert!(ps.iter().any(|p| p.contains("missing key \"call\"")));
    assert!(ps.iter().any(|p| p.contains("missing key \"tags\"")));
}

#[test]
fn course_file_problems() {
    let dir = tempfile::tempdir().expect("temp dir");
    let e = corpus::load(dir.path()).expect_err("no course.toml");
    assert!(e.to_string().contains("course.toml: cannot read"), "{e}");

    std::fs::write(
        dir.path().join("course.toml"),
        "title = \"t\"\n[[lesson]]\nid = \"l\"\ntitle = \"L\"\n  [[lesson.checkpoint]]\n  function = \"rm_rf\"\n  title = \"x\"\n  points = -1\n  extra = true\n",
    )
    .expect("write");
    let e = corpus::load(dir.path()).expect_err("bad course");
    let text = e.to_string();
    assert!(
        text.contains("course.toml:6: the reference core has no function \"rm_rf\""),
        "{text}"
    );
    assert!(text.contains("course.toml:8: points must be"), "{text}");
    assert!(
        text.contains("course.toml:9: unknown key \"extra\""),
        "{text}"
    );
    assert_eq!(e.problems.len(), 3, "{text}");
}

#[test]
fn hostile_files_never_panic() {
    let deep = format!("{HEAD}x = {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    let ps = problems(&[(VT, &deep)]);
    assert!(ps[0].starts_with(VT), "{ps:?}");
    let ps = problems(&[(VT, "\u{0}\u{1}garbage = [\n")]);
    assert!(ps[0].starts_with(&format!("{VT}:1: TOML syntax")), "{ps:?}");
    let dir = corpus_with(&[]);
    std::fs::create_dir_all(dir.path().join("tool-proposals")).expect("mkdir");
    std::fs::write(
        dir.path().join(VT),
        b"checkpoint = \"validate_tool_call\"\n\xff\xfe\n",
    )
    .expect("write");
    let e = corpus::load(dir.path()).expect_err("not UTF-8");
    assert!(
        e.to_string()
            .contains("validate_tool_call.toml:2: not valid UTF-8"),
        "{e}"
    );
    // A huge value in a call is refused with its column, not built.
    let big = format!(
        "{HEAD}{}",
        case("x", "").replace(OK_CALL, "validate_tool_call('x' * 10 ** 9)")
    );
    let ps = problems(&[(VT, &big)]);
    assert!(ps[0].contains("call: column 24: too large"), "{ps:?}");
}

#[cfg(unix)]
#[test]
fn symlinks_are_not_followed() {
    let outside = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        outside.path().join("x.toml"),
        format!("{HEAD}{}", case("x", "")),
    )
    .expect("write");
    let dir = corpus_with(&[(VT, &format!("{HEAD}{}", case("y", "")))]);
    std::os::unix::fs::symlink(outside.path(), dir.path().join("tool-proposals/linked"))
        .expect("symlink");
    let e = corpus::load(dir.path()).expect_err("symlink refused");
    assert_eq!(e.problems.len(), 1, "{e}");
    assert!(
        e.to_string().contains("symbolic links are not followed"),
        "{e}"
    );
}

#[test]
fn shipped_corpus_covers_every_applicable_tag_of_every_checkpoint() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("cases");
    let c = corpus::load(&root).expect("the shipped corpus loads");
    let declared: Vec<&str> = autograder::reference::names();
    let in_course: Vec<&str> = c.checkpoints().map(|cp| cp.id.as_str()).collect();
    assert_eq!(
        in_course, declared,
        "course.toml lists every checkpoint of the registry, in order"
    );
    let gaps = corpus::tag_gaps(&c);
    assert!(gaps.is_empty(), "applicable tags without a case: {gaps:?}");
    // And the check is real: a corpus without a tag's cases has a gap.
    let mut fewer = c.clone();
    for k in fewer
        .cases
        .iter_mut()
        .filter(|k| k.checkpoint == "accept_ticket")
    {
        k.tags.retain(|t| t != "retry-policy");
    }
    assert_eq!(
        corpus::tag_gaps(&fewer),
        [("accept_ticket".to_string(), "retry-policy")]
    );
}

#[test]
fn matchers_belong_in_expect_only() {
    // In expect (directly or through a let): read as matchers.
    let text = format!(
        "{HEAD}[let]\nmsg = \"any_str(min_len=1)\"\n{}{}",
        case(
            "a",
            "expect = \"{'id': any_str(), 'n': any_int(min=0), 'x': [any(), msg]}\"\n"
        ),
        case("b", "expect = \"any_float(max=float('inf'))\"\n"),
    );
    let dir = corpus_with(&[(VT, &text)]);
    let c = corpus::load(dir.path()).expect("matchers in expect load");
    let Some(Outcome::Returns(v)) = &c.cases[0].expect else {
        panic!("a value pin")
    };
    assert_eq!(
        autograder::value::repr::repr(v),
        "{'id': <any str>, 'n': <any int >= 0>, 'x': [<any value>, <any non-empty str>]}"
    );
    // In a call: refused, with the column.
    let call = "validate_tool_call({'id': any_str(), 'name': 'stock', 'arguments': {}})";
    assert_one(
        &[(
            VT,
            &format!("{HEAD}\n[[case]]\nid = \"m\"\ncall = \"{call}\"\ntags = [\"valid\"]\n"),
        )],
        &format!("{VT}:5: case validate_tool_call/m: call: column 20:"),
        "can only appear in expect",
    );
    // Misspelt or misused matchers: Python-style errors.
    for (expect, why) in [
        ("any_str(1)", "keyword arguments only"),
        ("any_str(min=1)", "unexpected keyword argument 'min'"),
        ("any_int(min=True)", "must be an int"),
        ("{any(): 1}", "unhashable type: 'any'"),
        ("any_str() + 'x'", "unsupported operand"),
        ("any_text()", "is not defined"),
    ] {
        let ps = problems(&[(
            VT,
            &format!("{HEAD}{}", case("x", &format!("expect = \"{expect}\"\n"))),
        )]);
        assert_eq!(ps.len(), 1, "{expect}: {ps:?}");
        assert!(ps[0].contains(why), "{expect}: {}", ps[0]);
    }
}

/// The grading fixture's corpus with `course` as its course.toml.
fn grading_corpus_with(course: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let from = fixture("grading/cases");
    for lesson in ["json-contract", "tool-proposals"] {
        std::fs::create_dir_all(dir.path().join(lesson)).expect("mkdir");
        for f in std::fs::read_dir(from.join(lesson)).expect("read") {
            let f = f.expect("entry").path();
            std::fs::copy(&f, dir.path().join(lesson).join(f.file_name().unwrap())).expect("copy");
        }
    }
    std::fs::write(dir.path().join("course.toml"), course).expect("write");
    dir
}

const GRADING_COURSE: &str = "title = \"t\"\n\
[[lesson]]\nid = \"json-contract\"\ntitle = \"L2\"\n\
  [[lesson.checkpoint]]\n  function = \"parse_contract_json\"\n  title = \"p\"\n\
[[lesson]]\nid = \"tool-proposals\"\ntitle = \"L3\"\n\
  [[lesson.checkpoint]]\n  function = \"validate_tool_call\"\n  title = \"v\"\n\
  [[lesson.checkpoint]]\n  function = \"order_tool_results\"\n  title = \"o\"\n  points = 2\n";

/// The course's `scoring`, and an assignment's when it is graded alone;
/// `checkpoints` when neither says.
#[test]
fn scoring_comes_from_the_course_and_a_lone_assignment() {
    use corpus::Scoring;
    let plain = grading_corpus_with(GRADING_COURSE);
    assert_eq!(
        corpus::load(plain.path()).unwrap().scoring,
        Scoring::Checkpoints
    );
    let course = GRADING_COURSE.replacen("[[lesson]]", "scoring = \"cases\"\n[[lesson]]", 1)
        + "[[assignment]]\nid = \"second\"\ntitle = \"S\"\nlessons = [\"tool-proposals\"]\nscoring = \"criteria\"\n\
           [[assignment]]\nid = \"first\"\ntitle = \"F\"\nlessons = [\"json-contract\"]\n";
    let dir = grading_corpus_with(&course);
    let loaded = corpus::load(dir.path()).unwrap();
    assert_eq!(loaded.scoring, Scoring::Cases);
    let second = loaded.clone().select(&["second".into()], &[]).unwrap();
    assert_eq!(second.scoring, Scoring::Criteria);
    let first = loaded.clone().select(&["first".into()], &[]).unwrap();
    assert_eq!(first.scoring, Scoring::Cases);
    let both = loaded.select(&["all".into()], &[]).unwrap();
    assert_eq!(both.scoring, Scoring::Cases);
}

/// Every problem of a criterion table, each at its line.
#[test]
fn criterion_tables_are_checked() {
    let course = format!(
        "{GRADING_COURSE}\
    [[lesson.checkpoint.criterion]]\n    title = \"a\"\n    tags = []\n    points = 1\n\
    [[lesson.checkpoint.criterion]]\n    title = \"a\"\n    points = \"x\"\n    weight = 2\n\
    [[lesson.checkpoint.criterion]]\n    title = \"b\"\n    cases = [\"empty\", 3]\n"
    );
    let dir = grading_corpus_with(&course);
    let text = corpus::load(dir.path())
        .expect_err("bad criteria")
        .to_string();
    for want in [
        "course.toml:20: tags must be a non-empty list of strings",
        "course.toml:25: unknown key \"weight\" in [[lesson.checkpoint.criterion]]",
        "course.toml:23: criterion \"a\" is declared twice",
        "course.toml:22: a criterion covers something",
        "course.toml:24: points must be a non-negative number",
        "course.toml:28: cases must be a non-empty list of strings",
        "course.toml:26: missing key \"points\"",
        "course.toml:14: the criteria's points add up to 1, the checkpoint's points are 2",
    ] {
        assert!(text.contains(want), "{want:?} in\n{text}");
    }
    // A case in no criterion: named, at the first criterion's line.
    let course = format!(
        "{GRADING_COURSE}\
    [[lesson.checkpoint.criterion]]\n    title = \"order\"\n    tags = [\"shuffled-results\"]\n    points = 2\n"
    );
    let dir = grading_corpus_with(&course);
    let text = corpus::load(dir.path()).expect_err("uncovered").to_string();
    assert!(
        text.contains(
            "course.toml:18: 2 cases of order_tool_results are in no criterion (first: \"empty\")"
        ),
        "{text}"
    );
    // scoring must be a known policy, as a string.
    let dir =
        grading_corpus_with(&GRADING_COURSE.replacen("[[lesson]]", "scoring = 3\n[[lesson]]", 1));
    let text = corpus::load(dir.path()).expect_err("bad type").to_string();
    assert!(
        text.contains("course.toml:2: scoring must be a string"),
        "{text}"
    );
}
