//! The `--html` dashboard: golden files on the fixture run, the class
//! numbers it draws (computed independently here), hostile student text
//! that must stay text, self-containment and determinism.

use crate::util::grading as support;

use autograder::grade::{self, Audience, GradeRun, Status};
use autograder::recording::format::CaseOutcome;
use autograder::report;
use autograder::report::html::stats;
use std::collections::BTreeSet;

#[test]
fn html_golden() {
    let run = support::run();
    support::check_golden("dashboard.html", &report::html::render(&run));
    let student = run.for_audience(Audience::Student);
    support::check_golden("dashboard-student.html", &report::html::render(&student));
}

#[test]
fn html_is_deterministic_and_pure() {
    let run = support::run();
    let a = report::html::render(&run);
    // Graded again from scratch (a new parallel grading) gives the same bytes.
    let b = report::html::render(&support::run());
    assert!(a == b);
    // Reading the JSON report back gives the same page (what merge relies on).
    let back = report::read::parse(&report::json::render(&run)).unwrap();
    assert!(report::html::render(&back) == a);
}

#[test]
fn html_is_self_contained() {
    let html = report::html::render(&support::run());
    assert!(html.starts_with("<!DOCTYPE html>"));
    for needle in ["http://", "https://", "src=", "<link", "@import", "url("] {
        assert!(!html.contains(needle), "the page loads something: {needle}");
    }
    assert_eq!(
        html.matches("<script").count(),
        2,
        "one inline script and its data"
    );
    assert_eq!(
        html.matches("<script>").count(),
        1,
        "one inline script only"
    );
    assert_eq!(
        html.matches("<script type=\"application/json\" id=\"data\">")
            .count(),
        1
    );
    assert!(html.contains("<svg"), "charts are inline SVG");
}

/// The page's data (`<script type="application/json" id="data">`), read
/// back; checks that nothing in it can end or change its element.
fn data(html: &str) -> serde_json::Value {
    let open = "<script type=\"application/json\" id=\"data\">";
    let start = html.find(open).expect("the page has its data") + open.len();
    let end = start + html[start..].find("</script>").unwrap();
    let text = &html[start..end];
    for c in ['<', '>', '&', '\u{2028}', '\u{2029}'] {
        assert!(!text.contains(c), "{c:?} in the page's data");
    }
    serde_json::from_str(text).expect("the page's data is JSON")
}

/// The page with what its script draws from its data appended as HTML: the
/// details written in full (as HTML, escaped when the page was written), and
/// the rows and details in brief as the text the script puts in (escaped
/// here as the DOM would show it).
fn expanded(html: &str) -> String {
    let data = data(html);
    let mut out = html.to_string();
    for row in data["rows"].as_array().unwrap() {
        for v in row.as_array().unwrap() {
            if let Some(t) = v.as_str() {
                out.push_str(&report::html::esc(t));
                out.push('\n');
            }
        }
    }
    for d in data["details"].as_array().unwrap() {
        match d.as_str() {
            Some(html) => out.push_str(html),
            None => out.push_str(&report::html::esc(&d.to_string())),
        }
    }
    out
}

/// The class numbers, computed here straight from the run.
#[test]
fn stats_match_the_run() {
    let run = support::run();
    let s = stats::compute(&run);
    let graded: Vec<_> = run
        .submissions
        .iter()
        .filter(|s| s.status == Status::Graded)
        .collect();
    assert_eq!((s.submissions, s.graded, s.errors), (5, 4, 1));
    let mut pcts: Vec<f64> = graded.iter().map(|s| s.percent()).collect();
    pcts.sort_by(f64::total_cmp);
    let mean = pcts.iter().sum::<f64>() / pcts.len() as f64;
    assert!((s.mean.unwrap() - mean).abs() < 1e-9);
    assert!((s.median.unwrap() - (pcts[1] + pcts[2]) / 2.0).abs() < 1e-9);
    assert_eq!(s.histogram.iter().sum::<usize>(), graded.len());
    assert_eq!(s.histogram[stats::BINS - 1], 1, "the model scores 100 %");
    for (i, cp) in s.checkpoints.iter().enumerate() {
        let passed = graded.iter().filter(|g| g.checkpoints[i].passed).count();
        assert_eq!(cp.passed, passed, "{}", cp.id);
    }
    // Every heatmap cell: failed / total runs of that tag's cases there.
    for (ti, tag) in s.tags.iter().enumerate() {
        for (ci, cp) in run.corpus.checkpoints.iter().enumerate() {
            let (mut failed, mut runs) = (0, 0);
            for g in &graded {
                for case in g.checkpoints[ci]
                    .cases
                    .iter()
                    .filter(|c| c.tags.contains(tag))
                {
                    runs += 1;
                    failed += usize::from(!case.passed);
                }
            }
            let cell = s.heat[ti][ci];
            if runs == 0 {
                assert_eq!(cell, None, "{tag} × {}", cp.id);
            } else {
                let cell = cell.unwrap();
                assert_eq!(
                    (cell.failed, cell.runs),
                    (failed, runs),
                    "{tag} × {}",
                    cp.id
                );
            }
        }
    }
    // The groups: the whole course, then each lesson in course order, and
    // each one's scores from its own checkpoints' points.
    let names: Vec<&str> = s.groups.iter().map(|g| g.group.name.as_str()).collect();
    assert_eq!(names, ["whole course", "json-contract", "tool-proposals"]);
    let keys: Vec<&str> = s.groups.iter().map(|g| g.group.key.as_str()).collect();
    assert_eq!(keys, ["all", "l0", "l1"]);
    assert_eq!(s.groups[0].group.checkpoints, [0, 1, 2]);
    assert_eq!(s.groups[1].group.checkpoints, [0]);
    assert_eq!(s.groups[2].group.checkpoints, [1, 2]);
    assert_eq!(s.groups[0].scores.histogram, s.histogram);
    assert_eq!(
        (s.groups[0].scores.mean, s.groups[0].scores.median),
        (s.mean, s.median)
    );
    for g in &s.groups[1..] {
        for &i in &g.group.checkpoints {
            assert_eq!(run.corpus.checkpoints[i].lesson, g.group.name);
        }
        let mut pcts: Vec<f64> = graded
            .iter()
            .map(|sub| {
                let cps = g.group.checkpoints.iter().map(|&i| &sub.checkpoints[i]);
                let points: f64 = cps.clone().map(|c| c.points).sum();
                let max: f64 = cps.map(|c| c.max_points).sum();
                100.0 * points / max
            })
            .collect();
        pcts.sort_by(f64::total_cmp);
        let mut histogram = [0; stats::BINS];
        for p in &pcts {
            histogram[stats::bin(*p)] += 1;
        }
        assert_eq!(g.scores.histogram, histogram, "{}", g.group.name);
        let mean = pcts.iter().sum::<f64>() / pcts.len() as f64;
        assert!((g.scores.mean.unwrap() - mean).abs() < 1e-9);
        assert!((g.scores.median.unwrap() - (pcts[1] + pcts[2]) / 2.0).abs() < 1e-9);
    }
    // Most failed first, each case under its checkpoint.
    for w in s.failed_cases.windows(2) {
        assert!(w[0].rate.share() >= w[1].rate.share());
    }
    for c in &s.failed_cases {
        let cp = &run.corpus.checkpoints[c.checkpoint];
        assert!(c.id.starts_with(&format!("{}/", cp.id)), "{}", c.id);
    }
    let top = &s.failed_cases[0];
    assert!(top.top_count >= 1 && top.top_count <= top.rate.failed);
}

/// A student's recording full of markup: exception class and message, a
/// returned string, a submission id. None of it may become markup.
fn hostile_run() -> GradeRun {
    let corpus = support::corpus();
    let expected = support::expected(&corpus);
    let mut recs = support::recordings();
    let model = recs
        .iter()
        .find(|(id, _)| id == "model")
        .and_then(|(_, r)| r.as_ref().ok())
        .cloned()
        .unwrap();
    let mut evil = model.clone();
    for (i, outcome) in evil.outcomes.values_mut().enumerate() {
        *outcome = if i % 2 == 0 {
            CaseOutcome::Raised {
                class: "<img src=x onerror=alert(1)>".into(),
                mro: vec!["<b>E</b>".into(), "Exception".into(), "object".into()],
                message: "</pre></details><script>alert('pwned')</script>\"'&amp;".into(),
            }
        } else {
            CaseOutcome::Returned {
                value: serde_json::json!({"k": "<script>alert(2)</script>"}).into(),
                shares_with_args: false,
                args_changed: false,
                shares_with_state: false,
                shared: None,
                changed: None,
            }
        };
    }
    recs.push(("<svg onload=alert(3)>\"'".into(), Ok(evil)));
    recs.push((
        "z-error".into(),
        Err("bad <script>alert(4)</script> recording".into()),
    ));
    grade::grade_recordings(&corpus, &expected, recs)
}

/// The tag names of the page, in order of appearance.
fn tag_names(html: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let name: String = rest
            .trim_start_matches(['/', '!'])
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        names.push(name.to_ascii_lowercase());
    }
    names
}

#[test]
fn student_text_cannot_inject_markup() {
    let run = hostile_run();
    // Sanity: the hostile text did reach the run.
    let evil = run
        .submissions
        .iter()
        .find(|s| s.id.starts_with("<svg"))
        .unwrap();
    assert!(evil.checkpoints.iter().any(|c| c
        .failures()
        .any(|(_, f)| f.reason.contains("<script>alert('pwned')"))));
    for audience in [Audience::Instructor, Audience::Student] {
        let html = expanded(&report::html::render(&run.for_audience(audience)));
        let clean = expanded(&report::html::render(
            &support::run().for_audience(audience),
        ));
        // Only the page's own kinds of tags, and no more scripts than it has.
        let allowed: BTreeSet<String> = tag_names(&clean).into_iter().collect();
        for name in tag_names(&html) {
            assert!(allowed.contains(&name), "injected tag <{name}>");
        }
        assert_eq!(html.matches("<script").count(), 2);
        assert_eq!(html.matches("</details>").count(), run.submissions.len());
        assert_eq!(
            html.matches("</pre>").count(),
            html.matches("<pre>").count()
        );
        for bad in ["<img", "<svg onload", "onerror=alert(1)>", "<b>E"] {
            assert!(!html.contains(bad), "{bad} survived");
        }
        // The text is still there, as text.
        assert!(html
            .contains("&lt;script&gt;alert(&#39;pwned&#39;)&lt;/script&gt;&quot;&#39;&amp;amp;"));
        assert!(html.contains("&lt;svg onload=alert(3)&gt;&quot;&#39;"));
        assert!(html.contains("bad &lt;script&gt;alert(4)&lt;/script&gt; recording"));
    }
}

#[test]
fn students_never_see_hidden_inputs() {
    let run = support::run();
    let student = expanded(&report::html::render(&run.for_audience(Audience::Student)));
    let instructor = expanded(&report::html::render(&run));
    // The fixture's hidden cases: their calls appear for instructors only.
    let hidden_calls: Vec<String> = run
        .submissions
        .iter()
        .flat_map(|s| &s.checkpoints)
        .flat_map(|c| c.failures())
        .filter(|(c, _)| c.visibility == autograder::corpus::Visibility::Hidden)
        .filter_map(|(_, f)| f.call.clone())
        .collect();
    assert!(
        !hidden_calls.is_empty(),
        "the fixture has failed hidden cases"
    );
    for call in &hidden_calls {
        let shown = report::html::esc(&format!("call:     {call}"));
        assert!(instructor.contains(&shown), "{call}");
        assert!(!student.contains(&shown), "{call}");
    }
    assert!(student.contains("a hidden case failed: "));
}

#[test]
fn empty_and_all_error_runs_render() {
    let corpus = support::corpus();
    let expected = support::expected(&corpus);
    // An empty shard: no submissions at all.
    let empty = grade::grade_recordings(&corpus, &expected, Vec::new());
    let html = report::html::render(&empty);
    assert!(html.contains("<div class=\"big\">0</div><div>submissions</div>"));
    assert!(html.contains("No graded case runs."));
    assert!(html.contains("No case failed."));
    assert!(html.ends_with("</html>\n"));
    // Nothing gradable: no mean, no rates, the errors shown.
    let broken = grade::grade_recordings(
        &corpus,
        &expected,
        vec![("a".into(), Err("truncated".into()))],
    );
    let s = stats::compute(&broken);
    assert_eq!((s.graded, s.errors, s.mean, s.median), (0, 1, None, None));
    let html = expanded(&report::html::render(&broken));
    assert!(html.contains("<pre>error: truncated</pre>"));
}

/// The class-wide sections by lesson: the lesson buttons (drawn hidden,
/// shown by the script), a block per lesson for the checkpoint bars and the
/// heatmap (shown for the whole course and that lesson), a histogram and a
/// most-failed table for the whole course and for each lesson. A course of
/// one lesson has no buttons and no per-lesson copies of the course's.
#[test]
fn html_groups_by_lesson() {
    let run = support::run();
    let html = report::html::render(&run);
    assert_eq!(html.matches("<nav id=\"groups\"").count(), 1);
    assert!(
        html.contains("<nav id=\"groups\" class=\"groups\" aria-label=\"Show one lesson\" hidden>")
    );
    for key in ["all", "l0", "l1"] {
        assert_eq!(
            html.matches(&format!("<button type=\"button\" data-group=\"{key}\""))
                .count(),
            1,
            "{key}"
        );
    }
    let section = |id: &str| -> &str {
        let start = html.find(&format!("<section id=\"{id}\">")).unwrap();
        let end = start + html[start..].find("</section>").unwrap();
        &html[start..end]
    };
    let blocks = |id: &str| -> Vec<String> {
        section(id)
            .split("data-groups=\"")
            .skip(1)
            .map(|b| b[..b.find('"').unwrap()].to_string())
            .collect()
    };
    assert_eq!(blocks("scores"), ["all", "l0", "l1"]);
    assert_eq!(blocks("checkpoints"), ["all l0", "all l1"]);
    assert_eq!(blocks("heatmap"), ["all l0", "all l1"]);
    assert_eq!(blocks("failed"), ["all", "l0", "l1"]);
    // The lesson json-contract's heatmap has its checkpoint's column only.
    let heat = section("heatmap");
    let l0 = &heat[heat.find("data-groups=\"all l0\"").unwrap()
        ..heat.find("data-groups=\"all l1\"").unwrap()];
    assert!(l0.contains("parse_<wbr>contract_<wbr>json</th>"));
    assert!(!l0.contains("validate_<wbr>tool_<wbr>call</th>"));
    // Its most failed cases are its own.
    let failed = section("failed");
    let l0 = &failed
        [failed.find("data-groups=\"l0\"").unwrap()..failed.find("data-groups=\"l1\"").unwrap()];
    assert!(l0.contains("<code>parse_contract_json/"));
    assert!(!l0.contains("<code>validate_tool_call/") && !l0.contains("<code>order_tool_results/"));

    // One lesson: no buttons, no copies.
    let mut one = support::run();
    for cp in &mut one.corpus.checkpoints {
        cp.lesson = "only".into();
    }
    let html = report::html::render(&one);
    assert!(!html.contains("<nav id=\"groups\""));
    assert_eq!(
        html.matches("data-groups=\"all\"").count(),
        2,
        "a histogram and a table"
    );
    assert_eq!(
        html.matches("data-groups=\"all l0\"").count(),
        2,
        "bars and a heatmap"
    );
    assert!(!html.contains("data-groups=\"l0\""));
}
