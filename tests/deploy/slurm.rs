//! `package slurm` on a real Slurm cluster, one node the test starts itself
//! (`util::slurm`): the instructor's submit.sh queues the grading array and
//! the dependent merge, and the merged reports are byte for byte a single
//! `grade`'s.

use crate::util::deploy::*;
use crate::util::slurm::{self, Cluster};
use std::fs;
use std::path::Path;
use std::time::Duration;

const REPORTS: [&str; 3] = ["report.json", "grades.csv", "dashboard.html"];

#[test]
fn slurm_array_shards_merge_into_a_single_runs_reports() {
    if !can_run() {
        return;
    }
    let tmp = shared_tempdir();
    let cluster = Cluster::start(&tmp.path().join("slurm"));
    // A folder name the scripts must quote: a space and a quote.
    let course = course(&tmp.path().join("it's a course"));
    let subs = course.join("submissions");
    for (name, source) in [
        ("model", "model-solution"),
        ("buggy", "returns-input-call"),
        ("alice", "model-solution"),
        ("bob", "returns-input-call"),
    ] {
        submission(&subs, name, &bundled(source));
    }
    submission(&subs, "empty", "");
    // The directives a package may add, as real sbatch reads them.
    let options = course.join("options");
    let out = autograder(
        &course,
        &[
            "package",
            "slurm",
            "--shards",
            "2",
            "--partition",
            slurm::PARTITION,
            "--time",
            "0:10:00",
            "--mem",
            "500M",
            "--cpus",
            "1",
            "-o",
            "options",
        ],
    );
    expect_code(&out, 0, "package slurm with options");
    for script in ["grade.sbatch", "merge.sbatch"] {
        let checked = cluster.client_in(&options, "sbatch", &["--test-only", script]);
        expect_code(&checked, 0, &format!("sbatch --test-only {script}"));
    }

    // As the instructor: the README's commands, as written.
    let recipe = readme_block("On a Slurm cluster");
    let shards: usize = recipe
        .split_whitespace()
        .skip_while(|w| *w != "--shards")
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("the README's recipe says --shards N");
    let package = course.join("slurm");
    let conf = cluster.conf();
    let submitted = run_script(&recipe, &course, &[("SLURM_CONF", conf.to_str().unwrap())]);
    expect_code(&submitted, 0, "the README's Slurm recipe");
    let merge = merge_job(&submitted);
    wait_until_ended(&cluster, &merge);
    let logs = logs(&package);
    assert_eq!(
        job_state(&cluster, &merge),
        "COMPLETED",
        "{logs}\n{}",
        cluster.diagnosis()
    );
    // Each task graded a slice of its own, the 5 submissions spread evenly.
    let held: Vec<usize> = (1..=shards)
        .map(|k| {
            let shard = package.join(format!("shards/shard-{k}.json"));
            let shard = fs::read(&shard)
                .unwrap_or_else(|e| panic!("array task {k} wrote no shard ({e})\n{logs}"));
            let shard: serde_json::Value = serde_json::from_slice(&shard).unwrap();
            shard["submissions"].as_array().unwrap().len()
        })
        .collect();
    assert_eq!(held.iter().sum::<usize>(), 5, "{held:?}\n{logs}");
    let (least, most) = (held.iter().min(), held.iter().max());
    assert!(most.unwrap() - least.unwrap() <= 1, "{held:?}\n{logs}");

    // One grade of the same folder, from the same place, with the same
    // reports, in a fresh work dir: what the merge must equal.
    let single = course.join("single");
    fs::create_dir_all(&single).unwrap();
    let path = |p: &Path| p.to_str().unwrap().to_string();
    let mut args = vec![
        "grade".to_string(),
        path(&subs),
        "--cases".into(),
        path(&course.join("cases")),
        "--assignment".into(),
        "tool-proposals".into(),
        "--quiet".into(),
    ];
    for (flag, name) in ["--json", "--csv", "--html"].iter().zip(REPORTS) {
        args.extend([flag.to_string(), path(&single.join(name))]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    expect_code(&autograder(&single, &args), 0, "the single grade");
    for name in REPORTS {
        let merged = fs::read(package.join(name)).unwrap();
        let whole = fs::read(single.join(name)).unwrap();
        assert!(
            merged == whole,
            "{name}: the merged shards differ from a single run:\n{}",
            similar::TextDiff::from_lines(text(&whole).as_str(), text(&merged).as_str())
                .unified_diff()
        );
    }
    let report: serde_json::Value =
        serde_json::from_slice(&fs::read(package.join("report.json")).unwrap()).unwrap();
    let graded = report["submissions"].as_array().unwrap().len();
    assert_eq!(graded, 5, "every submission, once");
    say!("slurm: {shards} array tasks and the merge job ran; {graded} submissions, reports byte-identical to a single run");
}

#[test]
fn slurm_merge_is_cancelled_when_an_array_task_fails() {
    if !can_run() {
        return;
    }
    let tmp = shared_tempdir();
    let cluster = Cluster::start(&tmp.path().join("slurm"));
    let course = course(tmp.path());
    submission(
        &course.join("submissions"),
        "model",
        &bundled("model-solution"),
    );
    // A grader that fails: every task exits 1.
    let out = autograder(
        &course,
        &[
            "package",
            "slurm",
            "--shards",
            "2",
            "--binary",
            "/bin/false",
            "-o",
            "failing",
        ],
    );
    expect_code(&out, 0, "package slurm");
    let conf = cluster.conf();
    let submitted = run_script(
        "failing/submit.sh",
        &course,
        &[("SLURM_CONF", conf.to_str().unwrap())],
    );
    expect_code(&submitted, 0, "submit.sh");
    let merge = merge_job(&submitted);
    wait_until_ended(&cluster, &merge);
    // Cancelled, not left pending forever, and no report written.
    assert_eq!(
        job_state(&cluster, &merge),
        "CANCELLED",
        "{}",
        cluster.diagnosis()
    );
    assert!(!course.join("failing/report.json").exists());
}

/// Whether the Slurm tests run: the deploy tier, as root, with Slurm and
/// munge installed (under CI=true, a failure when not).
fn can_run() -> bool {
    if !crate::util::tier::runs(crate::util::tier::Tier::Deploy) {
        return false;
    }
    if !is_root() {
        cannot_run("a Slurm cluster of the test's own needs root (slurmd runs jobs as their user)");
        return false;
    }
    if let Some(why) = slurm::missing() {
        cannot_run(&format!("Slurm: {why}"));
        return false;
    }
    true
}

/// The merge job submit.sh says it queued.
fn merge_job(submitted: &std::process::Output) -> String {
    let said = text(&submitted.stdout);
    said.lines()
        .find_map(|l| l.strip_prefix("merge job: "))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("submit.sh names no merge job:\n{said}"))
        .to_string()
}

/// A job's state as slurmctld has it (COMPLETED, CANCELLED...).
fn job_state(cluster: &Cluster, job: &str) -> String {
    let show = cluster.client("scontrol", &["show", "job", job]);
    text(&show.stdout)
        .split_whitespace()
        .find_map(|w| w.strip_prefix("JobState="))
        .unwrap_or("")
        .to_string()
}

/// Waits (ten minutes at most) until `job` has ended, however.
fn wait_until_ended(cluster: &Cluster, job: &str) {
    cluster.wait_for(
        "the merge job to end",
        Duration::from_secs(600),
        &mut || {
            !matches!(
                job_state(cluster, job).as_str(),
                "PENDING" | "RUNNING" | "COMPLETING" | ""
            )
        },
    );
}

/// Every job's log, for a failure's message.
fn logs(package: &Path) -> String {
    let mut all = String::new();
    let mut entries: Vec<_> = fs::read_dir(package.join("logs"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    entries.sort();
    for path in entries {
        let content = fs::read_to_string(&path).unwrap_or_default();
        all.push_str(&format!("--- {}:\n{content}\n", path.display()));
    }
    all
}
